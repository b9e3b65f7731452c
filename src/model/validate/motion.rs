//! A kinematic body's prescribed motion: only kinematic bodies move by prescription and then
//! take no `velocity`; sizes and speeds within the model limits; table times increasing;
//! planar models move in their plane.

use super::{at, item, magnitude, value, Checked, FieldError, MAX_LENGTH, MAX_SPEED};
use crate::math::{Real, Vec3};
use crate::model::motion::{MotionDef, MAX_ROWS};
use crate::model::schema::{BodyDef, BodyKind};
use crate::model::values::V3;

/// Checks the motion of body `b`, the body at path `here`.
pub(super) fn validate(here: &str, b: &BodyDef, planar: bool) -> Checked {
    let Some(def) = &b.motion else {
        return Ok(());
    };
    let motion = at(here, "motion");
    values(&motion, def)?;
    if b.kind != BodyKind::Kinematic {
        return Err(FieldError::new(
            motion,
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
            return Err(FieldError::new(
                at(here, field),
                format!(
                    "body `{}` follows its `motion`, which gives its velocity; remove `{field}`",
                    b.name
                ),
            ));
        }
    }
    match def {
        MotionDef::Sine {
            displacement,
            rotation,
            frequency,
            ..
        } => {
            pose(&motion, displacement, rotation, planar)?;
            let (dm, rm) = (magnitude(&displacement.vec()), degrees(rotation));
            speed(&motion, dm, rm, 2.0 * std::f64::consts::PI * frequency.0)
        }
        MotionDef::Table(rows) => {
            if rows.is_empty() || rows.len() > MAX_ROWS {
                return Err(FieldError::named(
                    motion,
                    "motion",
                    format!(
                        "expected a table of 1 to {MAX_ROWS} rows, got {}",
                        rows.len()
                    ),
                ));
            }
            for (k, r) in rows.iter().enumerate() {
                let row = at(&item(&at(&motion, "0"), k), "t");
                pose(&row, &r.displacement, &r.rotation, planar)?;
                let Some(p) = k.checked_sub(1).map(|j| &rows[j]) else {
                    continue;
                };
                let dt = r.t.0 - p.t.0;
                if dt <= 0.0 {
                    return Err(FieldError::new(
                        row,
                        format!(
                            "table times must increase: row {k} has t = {} after t = {}",
                            r.t.0, p.t.0
                        ),
                    ));
                }
                let dm = magnitude(&(r.displacement.vec() - p.displacement.vec()));
                let rm = degrees(&V3(
                    r.rotation.0 - p.rotation.0,
                    r.rotation.1 - p.rotation.1,
                    r.rotation.2 - p.rotation.2,
                ));
                speed(&row, dm, rm, 1.0 / dt)?;
            }
            Ok(())
        }
    }
}

/// The value types' rules of a motion (for models built in code).
fn values(motion: &str, def: &MotionDef) -> Checked {
    match def {
        MotionDef::Sine {
            displacement,
            rotation,
            frequency,
            phase,
        } => {
            value(|| at(motion, "displacement"), displacement.check())?;
            value(|| at(motion, "rotation"), rotation.check())?;
            value(|| at(motion, "frequency"), frequency.check())?;
            value(|| at(motion, "phase"), phase.check())
        }
        MotionDef::Table(rows) => {
            for (k, r) in rows.iter().enumerate() {
                let row = item(&at(motion, "0"), k);
                value(|| at(&row, "t"), r.t.check())?;
                value(|| at(&row, "displacement"), r.displacement.check())?;
                value(|| at(&row, "rotation"), r.rotation.check())?;
            }
            Ok(())
        }
    }
}

/// An axis-times-angle rotation in degrees, as an angle in rad.
fn degrees(r: &V3) -> Real {
    magnitude(&r.vec()) * std::f64::consts::PI / 180.0
}

/// A pose of the motion (displacement in m, rotation in degrees): in the plane, in range.
fn pose(path: &str, d: &V3, r: &V3, planar: bool) -> Checked {
    let fail = |msg: String| Err(FieldError::named(path, "motion", msg));
    let (dm, rm) = (magnitude(&d.vec()), degrees(r));
    if planar && (d.2 != 0.0 || r.0 != 0.0 || r.1 != 0.0) {
        return fail(
            "a 2D model moves in its plane: no z displacement, rotation only about z".into(),
        );
    }
    if dm > MAX_LENGTH {
        return fail(format!(
            "expected a displacement up to {MAX_LENGTH:e} m, got {dm:e}"
        ));
    }
    if rm.is_nan() || rm > 1e6 {
        return fail(format!("expected a rotation up to 1e6 rad, got {rm:e} rad"));
    }
    Ok(())
}

/// A speed: `rate` (1/s) times the larger of a distance (m) and an angle (rad).
fn speed(path: &str, dm: Real, rm: Real, rate: Real) -> Checked {
    let reach = dm.max(rm);
    let v = if reach > 0.0 { rate * reach } else { 0.0 };
    if v.is_nan() || v > MAX_SPEED {
        return Err(FieldError::named(
            path,
            "motion",
            format!("the motion is faster than {MAX_SPEED:e} m/s (or rad/s): {v:e}"),
        ));
    }
    Ok(())
}
