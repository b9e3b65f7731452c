//! A kinematic body's prescribed motion: only kinematic bodies move by prescription and then
//! take no `velocity`; sizes and speeds within the model limits; table times increasing;
//! planar models move in their plane; a wavemaker's wave is one the fluid's spacing resolves
//! (at least [`MIN_SPACINGS_PER_WAVELENGTH`] spacings per wavelength), does not break at the
//! paddle (Miche's limit) and needs a flap angle below [`MAX_FLAP_ANGLE_DEG`].

use super::{at, item, magnitude, value, Checked, FieldError, MAX_LENGTH, MAX_SPEED};
use crate::math::{Real, Vec3};
use crate::model::motion::{MotionDef, MAX_ROWS};
use crate::model::schema::{BodyDef, BodyKind, Dimension, Model};
use crate::model::values::V3;

/// The fewest fluid spacings per wavelength a wavemaker's wave may have.
pub const MIN_SPACINGS_PER_WAVELENGTH: Real = 10.0;
/// The largest amplitude of a flap's angle (degrees).
pub const MAX_FLAP_ANGLE_DEG: Real = 30.0;

/// Checks the motion of body `b` of model `m`, the body at path `here`.
pub(super) fn validate(here: &str, b: &BodyDef, m: &Model) -> Checked {
    let planar = m.scene.dimension == Dimension::Two;
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
        MotionDef::Piston { direction, .. }
        | MotionDef::Flap {
            axis: direction, ..
        } => wavemaker(&motion, def, direction, m),
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
            pivot,
            ramp,
        } => {
            value(|| at(motion, "pivot"), pivot.check())?;
            if magnitude(&pivot.vec()) > MAX_LENGTH {
                return Err(FieldError::new(
                    at(motion, "pivot"),
                    format!("expected a pivot within {MAX_LENGTH:e} m of the body's position"),
                ));
            }
            value(|| at(motion, "ramp"), ramp.check())?;
            value(|| at(motion, "displacement"), displacement.check())?;
            value(|| at(motion, "rotation"), rotation.check())?;
            value(|| at(motion, "frequency"), frequency.check())?;
            value(|| at(motion, "phase"), phase.check())
        }
        MotionDef::Piston { .. } | MotionDef::Flap { .. } => Ok(()),
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

/// A wavemaker (`def`, at path `motion`, moving along or turning about `direction`): the
/// direction, the hinge, and the wave against the fluid's spacing, breaking and the paddle's
/// travel. Each error names the field to change.
fn wavemaker(motion: &str, def: &MotionDef, direction: &V3, m: &Model) -> Checked {
    paddle_direction(motion, def, direction, m)?;
    let (height, period, depth) = match def {
        MotionDef::Piston {
            height,
            period,
            depth,
            ..
        }
        | MotionDef::Flap {
            height,
            period,
            depth,
            ..
        } => (height.0, period.0, depth.0),
        _ => return Ok(()),
    };
    if let MotionDef::Flap {
        hinge,
        hinge_height,
        ..
    } = def
    {
        value(|| at(motion, "hinge"), hinge.check())?;
        if magnitude(&hinge.vec()) > MAX_LENGTH {
            return Err(FieldError::new(
                at(motion, "hinge"),
                format!("expected a hinge within {MAX_LENGTH:e} m of the origin"),
            ));
        }
        if hinge_height.0 >= depth {
            return Err(FieldError::new(
                at(motion, "hinge_height"),
                format!(
                    "the hinge must be below the still water level: hinge_height {} m, depth {depth} m",
                    hinge_height.0
                ),
            ));
        }
    }
    let g = magnitude(&m.scene.gravity.vec());
    if g.is_nan() || g <= 0.0 {
        return Err(FieldError::new(
            motion.to_string(),
            "a wavemaker makes gravity waves: the scene needs gravity",
        ));
    }
    let Some(wm) = def.wavemaker(g) else {
        return Ok(());
    };
    wave_fits(motion, &wm, (height, period, depth), m)
}

/// A wavemaker's direction (piston) or axis (flap): non-zero, in the plane of a 2D model.
fn paddle_direction(motion: &str, def: &MotionDef, direction: &V3, m: &Model) -> Checked {
    let planar = m.scene.dimension == Dimension::Two;
    let field = if matches!(def, MotionDef::Piston { .. }) {
        "direction"
    } else {
        "axis"
    };
    let n = magnitude(&direction.vec());
    if !(n > 0.0 && n <= MAX_LENGTH) {
        return Err(FieldError::new(
            at(motion, field),
            format!("expected a non-zero `{field}`, got {direction:?}"),
        ));
    }
    if planar {
        let d = direction.vec() / n;
        let in_plane = if field == "direction" {
            d.z.abs() < 1e-12
        } else {
            (d.z.abs() - 1.0).abs() < 1e-12
        };
        if !in_plane {
            return Err(FieldError::new(
                at(motion, field),
                "a 2D model moves in its plane: a piston along (x, y), a flap about (0, 0, 1)",
            ));
        }
    }
    Ok(())
}

/// The wave of wavemaker `wm` (height, period, depth in m, s, m) against the fluid's spacing,
/// breaking and the flap's travel.
fn wave_fits(
    motion: &str,
    wm: &crate::model::motion::Wavemaker,
    (height, period, depth): (Real, Real, Real),
    m: &Model,
) -> Checked {
    let wave = wm.wave;
    if let Some(f) = &m.fluid {
        let l = f.spacing.0;
        if wave.length < MIN_SPACINGS_PER_WAVELENGTH * l {
            return Err(FieldError::new(
                at(motion, "period"),
                format!(
                    "a period of {period} s makes waves {:.4} m long in {depth} m of water, {:.1} spacings of {l} m; \
                     at least {MIN_SPACINGS_PER_WAVELENGTH} are needed: a longer period or a finer spacing",
                    wave.length,
                    wave.length / l
                ),
            ));
        }
    }
    let breaking = wave.breaking_height(depth);
    if height > breaking {
        return Err(FieldError::new(
            at(motion, "height"),
            format!(
                "a wave {height} m high breaks at the paddle: waves {:.4} m long in {depth} m of water break above {breaking:.4} m (Miche)",
                wave.length
            ),
        ));
    }
    if wm.angle.to_degrees() > MAX_FLAP_ANGLE_DEG {
        return Err(FieldError::new(
            at(motion, "height"),
            format!(
                "the flap would turn by ±{:.1}° (stroke {:.4} m at the still water level), beyond the ±{MAX_FLAP_ANGLE_DEG}° of linear wavemaker theory: a lower wave or a longer period",
                wm.angle.to_degrees(),
                wave.stroke
            ),
        ));
    }
    Ok(())
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
