//! Physically meaningful fluid values, checked when a model is loaded: densities, region
//! positions and sizes (m), initial speeds (m/s), no z in a 2D model. Errors are located at
//! the region's field.

use super::load::{find_key, magnitude, value_start, MAX_DENSITY, MAX_LENGTH, MAX_SPEED};
use crate::body::Dofs;

/// Offset of the `nth` (0-based) item of the list that follows `key:` (after `from`), or of the
/// key itself when the list is shorter.
pub(super) fn list_item(source: &str, key: &str, from: usize, nth: usize) -> usize {
    let Some(k) = find_key(source, key, from) else {
        return from;
    };
    let open = value_start(source, k);
    let (mut depth, mut item, mut at_item_start) = (0i32, 0usize, false);
    for (i, c) in source[open..].char_indices() {
        let o = open + i;
        if at_item_start && !c.is_whitespace() {
            if item == nth {
                return o;
            }
            at_item_start = false;
        }
        match c {
            '[' | '(' | '{' => {
                depth += 1;
                if depth == 1 {
                    at_item_start = true;
                }
            }
            ']' | ')' | '}' => {
                depth -= 1;
                if depth <= 0 {
                    break;
                }
            }
            ',' if depth == 1 => {
                item += 1;
                at_item_start = true;
            }
            _ => {}
        }
    }
    k
}

/// The kernel support over the spacing a model may ask for: below it a particle barely reaches
/// its nearest neighbours (the sums are meaningless); above it the neighbour lists grow as the
/// support's cube (6 spacings: about 900 neighbours per particle in 3D).
pub const MIN_SUPPORT: f64 = 1.2;
/// See [`MIN_SUPPORT`].
pub const MAX_SUPPORT: f64 = 6.0;

/// Largest `fluid.jitter` (spacings): neighbours stay at least half a spacing apart.
pub const MAX_JITTER: f64 = 0.25;

/// Physically meaningful fluid values: density, smoothing, region positions and sizes, initial
/// speeds. An error is (offset, field, message).
pub(super) fn validate_fluid(
    source: &str,
    f: &super::schema::FluidDef,
    dofs: Dofs,
    m: &super::schema::Model,
) -> Result<(), (usize, &'static str, String)> {
    use super::schema::{RegionDef, VelocityDef};
    let fluid = find_key(source, "fluid", 0).unwrap_or(0);
    super::methods::validate_method(source, f, fluid, m)?;
    if f.density.0 > MAX_DENSITY {
        let o = find_key(source, "density", fluid).map_or(fluid, |o| value_start(source, o));
        return Err((
            o,
            "density",
            format!(
                "expected a density up to {MAX_DENSITY:e} kg/m³, got {:e}",
                f.density.0
            ),
        ));
    }
    if let Some(ratio) = &f.smoothing {
        // The support over the spacing (the kernel at h = h/l).
        let support = crate::fluid::kernel::Kernel::new(f.kernel, ratio.0, 2).support();
        if !(MIN_SUPPORT..=MAX_SUPPORT).contains(&support) {
            let o = find_key(source, "smoothing", fluid).map_or(fluid, |o| value_start(source, o));
            return Err((
                o,
                "smoothing",
                format!(
                    "expected h/l (a ratio to the spacing, not a length) whose kernel support lies between {MIN_SUPPORT} and {MAX_SUPPORT} spacings, got {} (support {support:.3} spacings)",
                    ratio.0
                ),
            ));
        }
    }
    if f.jitter.0 > MAX_JITTER {
        let o = find_key(source, "jitter", fluid).map_or(fluid, |o| value_start(source, o));
        return Err((
            o,
            "jitter",
            format!(
                "expected an offset up to {MAX_JITTER} spacings, got {}",
                f.jitter.0
            ),
        ));
    }
    for (i, r) in f.regions.iter().enumerate() {
        let item = list_item(source, "regions", fluid, i);
        let at =
            |field: &str| find_key(source, field, item).map_or(item, |o| value_start(source, o));
        let (points, size, velocity) = match r {
            RegionDef::Box { min, max, velocity } => {
                (vec![("min", min.vec()), ("max", max.vec())], None, velocity)
            }
            RegionDef::Ball {
                center,
                radius,
                velocity,
            } => (vec![("center", center.vec())], Some(radius.0), velocity),
            RegionDef::Shape {
                shape,
                position,
                velocity,
                ..
            } => {
                // A shape's points lie within √3 × its largest size of its frame (an oversized
                // shape is refused when it is built).
                let s = super::shapes::largest_length(shape);
                let s = if s <= MAX_LENGTH {
                    3f64.sqrt() * s
                } else {
                    0.0
                };
                (vec![("position", position.vec())], Some(s), velocity)
            }
        };
        let mut reach: f64 = 0.0;
        for (field, x) in &points {
            let d = magnitude(x);
            if d.is_nan() || d > MAX_LENGTH {
                return Err((
                    at(field),
                    field,
                    format!(
                        "expected a distance from the origin up to {MAX_LENGTH:e} m, got {d:e}"
                    ),
                ));
            }
            if dofs == Dofs::Planar && x.z != 0.0 {
                return Err((
                    at(field),
                    field,
                    format!("a 2D model has no z component; got {}", x.z),
                ));
            }
            reach = reach.max(d);
        }
        if let Some(radius) = size {
            if radius > MAX_LENGTH && matches!(r, RegionDef::Ball { .. }) {
                return Err((
                    at("radius"),
                    "radius",
                    format!("expected a radius up to {MAX_LENGTH:e} m, got {radius:e}"),
                ));
            }
            reach += radius;
        }
        // The fastest initial particle: |u| for a uniform field, at most ‖G‖ times the farthest
        // point of the region for a linear one.
        let speed = match velocity {
            VelocityDef::Uniform(u) => {
                if dofs == Dofs::Planar && u.2 != 0.0 {
                    return Err((
                        at("velocity"),
                        "velocity",
                        format!("a 2D model has no z component; got {}", u.2),
                    ));
                }
                magnitude(&u.vec())
            }
            VelocityDef::Linear(a, b, c) => {
                let g = (a.vec().norm_squared() + b.vec().norm_squared() + c.vec().norm_squared())
                    .sqrt();
                g * reach
            }
        };
        if speed.is_nan() || speed > MAX_SPEED {
            return Err((
                at("velocity"),
                "velocity",
                format!("expected initial speeds up to {MAX_SPEED:e} m/s, this field reaches {speed:.3e} m/s in the region"),
            ));
        }
    }
    Ok(())
}
