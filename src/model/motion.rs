//! The RON side of prescribed motion (`motion:` of a kinematic body; the core type is
//! [`crate::body::Motion`]) and its checks before the run.

use super::load::{find_key, magnitude, value_start, MAX_LENGTH, MAX_SPEED};
use super::values::{Finite, Positive, V3};
use crate::body::Motion;
use crate::math::{Real, Vec3};
use serde::{Deserialize, Serialize};

/// The most rows a motion table may have.
pub const MAX_ROWS: usize = 1_000_000;

/// A prescribed motion of a kinematic body, relative to its `position` and `rotation`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum MotionDef {
    /// `d(t) = displacement · sin(2π f t + phase)` and the rotation `rotation · sin(…)` about the
    /// body's origin, e.g. `Sine(displacement: (0.1, 0), frequency: 0.75)`.
    Sine {
        /// Displacement amplitude of the body origin (m).
        #[serde(default)]
        displacement: V3,
        /// Rotation amplitude as axis times angle (degrees; planar: `(0, 0, angle)`).
        #[serde(default)]
        rotation: V3,
        /// Frequency f (Hz).
        frequency: Positive,
        /// Phase φ (rad). Default 0.
        #[serde(default)]
        phase: Finite,
    },
    /// Displacement and rotation interpolated linearly between rows, held before the first and
    /// after the last: `Table([(t: 0, displacement: (0, 0)), (t: 1, displacement: (0.2, 0))])`.
    Table(Vec<MotionRow>),
}

/// One row of a motion table.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MotionRow {
    /// Time (s).
    pub t: Finite,
    /// Displacement of the body origin (m).
    #[serde(default)]
    pub displacement: V3,
    /// Rotation as axis times angle (degrees).
    #[serde(default)]
    pub rotation: V3,
}

impl MotionDef {
    /// The core motion (rotations in rad).
    pub fn motion(&self) -> Motion {
        let rad = |v: &V3| v.vec() * std::f64::consts::PI / 180.0;
        match self {
            MotionDef::Sine {
                displacement,
                rotation,
                frequency,
                phase,
            } => Motion::Sine {
                translation: displacement.vec(),
                rotation: rad(rotation),
                frequency: frequency.0,
                phase: phase.0,
            },
            MotionDef::Table(rows) => Motion::Table(
                rows.iter()
                    .map(|r| (r.t.0, r.displacement.vec(), rad(&r.rotation)))
                    .collect(),
            ),
        }
    }
}

/// Checks the motion of body `b` (whose entry starts at `item` in `source`): only kinematic
/// bodies move by prescription and then take no `velocity`; sizes and speeds within the model
/// limits; table times increasing; planar models move in their plane. Returns (offset, field,
/// message).
pub(super) fn validate(
    source: &str,
    item: usize,
    b: &super::schema::BodyDef,
    planar: bool,
) -> Result<(), (usize, &'static str, String)> {
    let Some(def) = &b.motion else {
        return Ok(());
    };
    let at = |field: &str, from: usize| {
        find_key(source, field, from).map_or(from, |o| value_start(source, o))
    };
    let motion_at = at("motion", item);
    if b.kind != super::schema::BodyKind::Kinematic {
        return Err((
            motion_at,
            "motion",
            format!(
                "a prescribed motion needs `kind: Kinematic`; body `{}` is {:?}",
                b.name, b.kind
            ),
        ));
    }
    for (field, v) in [
        ("velocity", &b.velocity),
        ("angular_velocity", &b.angular_velocity),
    ] {
        if v.vec() != Vec3::zeros() {
            return Err((
                at(field, item),
                field,
                format!(
                    "body `{}` follows its `motion`, which gives its velocity; remove `{field}`",
                    b.name
                ),
            ));
        }
    }
    let fail = |from: usize, msg: String| Err((from, "motion", msg));
    let deg = std::f64::consts::PI / 180.0;
    // A pose of the motion (displacement in m, rotation in degrees): in the plane, in range.
    let pose = |from: usize, d: &V3, r: &V3| -> Result<(), (usize, &'static str, String)> {
        let (dm, rm) = (magnitude(&d.vec()), magnitude(&r.vec()) * deg);
        if planar && (d.2 != 0.0 || r.0 != 0.0 || r.1 != 0.0) {
            return fail(
                from,
                "a 2D model moves in its plane: no z displacement, rotation only about z".into(),
            );
        }
        if dm > MAX_LENGTH {
            return fail(
                from,
                format!("expected a displacement up to {MAX_LENGTH:e} m, got {dm:e}"),
            );
        }
        if rm.is_nan() || rm > 1e6 {
            return fail(
                from,
                format!("expected a rotation up to 1e6 rad, got {rm:e} rad"),
            );
        }
        Ok(())
    };
    // A speed: `rate` (1/s) times the larger of a distance (m) and an angle (rad).
    let speed = |from: usize, dm: Real, rm: Real, rate: Real| {
        let reach = dm.max(rm);
        let v = if reach > 0.0 { rate * reach } else { 0.0 };
        if v.is_nan() || v > MAX_SPEED {
            return fail(
                from,
                format!("the motion is faster than {MAX_SPEED:e} m/s (or rad/s): {v:e}"),
            );
        }
        Ok(())
    };
    match def {
        MotionDef::Sine {
            displacement,
            rotation,
            frequency,
            ..
        } => {
            pose(motion_at, displacement, rotation)?;
            let (dm, rm) = (
                magnitude(&displacement.vec()),
                magnitude(&rotation.vec()) * deg,
            );
            speed(motion_at, dm, rm, 2.0 * std::f64::consts::PI * frequency.0)
        }
        MotionDef::Table(rows) => {
            if rows.is_empty() || rows.len() > MAX_ROWS {
                return fail(
                    motion_at,
                    format!(
                        "expected a table of 1 to {MAX_ROWS} rows, got {}",
                        rows.len()
                    ),
                );
            }
            let mut from = motion_at;
            for (k, r) in rows.iter().enumerate() {
                let row_at = at("t", from);
                from = row_at;
                pose(row_at, &r.displacement, &r.rotation)?;
                let Some(p) = k.checked_sub(1).map(|j| &rows[j]) else {
                    continue;
                };
                let dt = r.t.0 - p.t.0;
                if dt <= 0.0 {
                    return Err((
                        row_at,
                        "t",
                        format!(
                            "table times must increase: row {k} has t = {} after t = {}",
                            r.t.0, p.t.0
                        ),
                    ));
                }
                let dm = magnitude(&(r.displacement.vec() - p.displacement.vec()));
                let rm = magnitude(&(r.rotation.vec() - p.rotation.vec())) * deg;
                speed(row_at, dm, rm, 1.0 / dt)?;
            }
            Ok(())
        }
    }
}
