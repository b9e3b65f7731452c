//! Beams: names unique (with the names their elements, hinges and support take), a known
//! material and support body, a root within limits, directions that have a direction (the
//! bending axis across the beam; in 2D in the plane), a thickness below the length, 1 to
//! [`MAX_ELEMENTS`] elements, a width in 3D only, moduli and viscosities within physical
//! limits, a Poisson's ratio in [0, 0.5], and room for one collision group per beam.

use super::{at, item, magnitude, value, Checked, FieldError, MAX_LENGTH, MAX_SPEED};
use crate::model::beam_defs::{BeamDef, Support, MAX_ELEMENTS};
use crate::model::schema::{Dimension, Model};
use std::collections::HashSet;

/// The largest Young's modulus (Pa): ten times diamond's.
pub const MAX_MODULUS: f64 = 1e13;
/// The largest Kelvin–Voigt viscosity (Pa·s).
pub const MAX_VISCOSITY: f64 = 1e12;

/// Checks the beams; adds the names of their bodies to `bodies` (joints and probes may name
/// an element) and returns the beams' names.
pub(super) fn validate(
    m: &Model,
    materials: &HashSet<&str>,
    bodies: &mut HashSet<String>,
) -> Result<HashSet<String>, Box<FieldError>> {
    let planar = m.scene.dimension == Dimension::Two;
    let mut beams = HashSet::new();
    let groups = m.collision_groups().len();
    if groups + m.beams.len() > 32 {
        return Err(FieldError::named(
            "beams",
            "beams",
            format!(
                "each beam takes a collision group and the bodies have {groups}: at most {} \
                 beams fit in 32 groups",
                32usize.saturating_sub(groups)
            ),
        )
        .at_key());
    }
    for (i, b) in m.beams.iter().enumerate() {
        let here = item("beams", i);
        values(&here, b)?;
        shape(&here, b, planar)?;
        if !materials.contains(b.material.as_str()) {
            return Err(FieldError::new(
                at(&here, "material"),
                format!("unknown material `{}`", b.material),
            ));
        }
        if b.name.is_empty() || !beams.insert(b.name.clone()) {
            return Err(FieldError::new(
                at(&here, "name"),
                format!("beam `{}`: expected a non-empty name used once", b.name),
            ));
        }
        if let Support::ClampedTo(s) | Support::PinnedTo(s) = &b.support {
            if !bodies.contains(s) {
                return Err(FieldError::new(
                    at(&here, "support"),
                    format!("beam `{}` is held by unknown body `{s}`", b.name),
                ));
            }
        }
        let mut mine: Vec<String> = (0..b.elements).map(|j| format!("{}.{j}", b.name)).collect();
        if matches!(b.support, Support::Clamped | Support::Pinned) {
            mine.push(format!("{}.support", b.name));
        }
        for n in mine {
            if !bodies.insert(n.clone()) {
                return Err(FieldError::new(
                    at(&here, "name"),
                    format!(
                        "beam `{}` names its element `{n}`, which is already a body",
                        b.name
                    ),
                ));
            }
        }
    }
    Ok(beams)
}

/// Sizes, directions and counts.
fn shape(here: &str, b: &BeamDef, planar: bool) -> Checked {
    let fail = |key: &str, msg: String| Err(FieldError::new(at(here, key), msg));
    let d = magnitude(&b.root.vec());
    if d.is_nan() || d > MAX_LENGTH {
        return fail(
            "root",
            format!("expected a distance from the origin up to {MAX_LENGTH:e} m, got {d:e}"),
        );
    }
    if b.length.0 > MAX_LENGTH {
        return fail(
            "length",
            format!("expected at most {MAX_LENGTH:e} m, got {:e}", b.length.0),
        );
    }
    if b.thickness.0 >= b.length.0 {
        return fail(
            "thickness",
            format!(
                "a beam's thickness must be smaller than its length ({} m); got {} m",
                b.length.0, b.thickness.0
            ),
        );
    }
    if !(1..=MAX_ELEMENTS).contains(&b.elements) {
        return fail(
            "elements",
            format!("expected 1 to {MAX_ELEMENTS} elements, got {}", b.elements),
        );
    }
    let dir = b.direction.vec();
    let n = magnitude(&dir);
    if !(n > 1e-12 && n.is_finite()) || (planar && b.direction.2 != 0.0) {
        return fail(
            "direction",
            "expected a non-zero finite direction (in 2D, in the x–y plane)".into(),
        );
    }
    let axis = b.bending_axis.vec();
    let a = magnitude(&axis);
    if planar {
        if axis.x != 0.0 || axis.y != 0.0 || axis.z == 0.0 {
            return fail(
                "bending_axis",
                "a 2D beam bends about z; leave `bending_axis` out".into(),
            );
        }
    } else if !(a > 1e-12 && a.is_finite()) || (axis / a).cross(&(dir / n)).norm() < 1e-6 {
        return fail(
            "bending_axis",
            "expected a non-zero axis across the beam's direction".into(),
        );
    }
    // Sizes so small that an element's volume or a hinge's stiffness is not a normal number.
    let f = crate::model::beam_defs::BeamFrame::of(b, planar, 1.0);
    let volume = f.ds * b.thickness.0 * b.width.map_or(1.0, |w| w.0);
    let k = f.ei / f.ds;
    if !(volume.is_normal() && k.is_normal()) {
        return fail(
            "thickness",
            format!(
                "elements {:e} m long and {:e} m thick have no usable volume or stiffness",
                f.ds, b.thickness.0
            ),
        );
    }
    match (planar, b.width) {
        (true, Some(_)) => fail(
            "width",
            "a 2D beam's width is the scene's `thickness`; leave `width` out".into(),
        ),
        (false, None) => fail("width", "a 3D beam needs a `width` (m)".into()),
        (false, Some(w)) if w.0 > MAX_LENGTH => fail(
            "width",
            format!("expected at most {MAX_LENGTH:e} m, got {:e}", w.0),
        ),
        _ => Ok(()),
    }
}

/// The value types' rules and physical limits.
fn values(here: &str, b: &BeamDef) -> Checked {
    value(|| at(here, "root"), b.root.check())?;
    value(|| at(here, "direction"), b.direction.check())?;
    value(|| at(here, "bending_axis"), b.bending_axis.check())?;
    value(|| at(here, "length"), b.length.check())?;
    value(|| at(here, "thickness"), b.thickness.check())?;
    value(|| at(here, "youngs_modulus"), b.youngs_modulus.check())?;
    value(|| at(here, "viscosity"), b.viscosity.check())?;
    value(|| at(here, "tip_velocity"), b.tip_velocity.check())?;
    if let Some(w) = b.width {
        value(|| at(here, "width"), w.check())?;
    }
    let fail = |key: &str, msg: String| Err(FieldError::new(at(here, key), msg));
    if b.youngs_modulus.0 > MAX_MODULUS {
        return fail(
            "youngs_modulus",
            format!(
                "expected at most {MAX_MODULUS:e} Pa, got {:e}",
                b.youngs_modulus.0
            ),
        );
    }
    if b.viscosity.0 > MAX_VISCOSITY {
        return fail(
            "viscosity",
            format!(
                "expected at most {MAX_VISCOSITY:e} Pa·s, got {:e}",
                b.viscosity.0
            ),
        );
    }
    if let Some(nu) = b.poisson_ratio {
        value(|| at(here, "poisson_ratio"), nu.check())?;
        if nu.0 > 0.5 {
            return fail(
                "poisson_ratio",
                format!("expected a Poisson's ratio in [0, 0.5], got {}", nu.0),
            );
        }
    }
    if b.tip_velocity.0.abs() > MAX_SPEED {
        return fail(
            "tip_velocity",
            format!(
                "expected at most {MAX_SPEED:e} m/s, got {:e}",
                b.tip_velocity.0
            ),
        );
    }
    Ok(())
}
