//! Bodies: names, materials, positions and speeds within limits, planar components, motion,
//! rotation, arrays, shapes that have mass; then the names the arrays' copies take, collision
//! groups and `no_contact`.

use super::{at, item, magnitude, value, Checked, FieldError, MAX_LENGTH, MAX_SPEED};
use crate::math::Real;
use crate::model::array_defs::{ArrayDef, MAX_COPIES};
use crate::model::schema::{BodyDef, BodyKind, Dimension, Model, ShapeDef};
use crate::model::shapes::build_shape;
use std::collections::HashSet;

/// Checks the bodies; returns the names probes and joints may use (array copies by their own
/// names, not their template's).
pub(super) fn validate(
    m: &Model,
    materials: &HashSet<&str>,
) -> Result<HashSet<String>, Box<FieldError>> {
    let planar = m.scene.dimension == Dimension::Two;
    let mut names = HashSet::new();
    for (i, b) in m.bodies.iter().enumerate() {
        let here = item("bodies", i);
        values(&here, b)?;
        if b.name.is_empty() {
            return Err(FieldError::new(
                at(&here, "name"),
                "a body needs a non-empty name",
            ));
        }
        if !names.insert(b.name.as_str()) {
            return Err(FieldError::new(
                at(&here, "name"),
                format!("body `{}` is defined twice; names must be unique", b.name),
            ));
        }
        if !materials.contains(b.material.as_str()) {
            let mut known: Vec<_> = materials.iter().copied().collect();
            known.sort();
            return Err(FieldError::new(
                at(&here, "material"),
                format!(
                    "unknown material `{}`; expected one of: {}",
                    b.material,
                    known.join(", ")
                ),
            ));
        }
        limits(&here, b, planar)?;
        super::motion::validate(&here, b, m)?;
        if b.rotation.quat().is_none() {
            return Err(FieldError::new(
                at(&here, "rotation"),
                "expected a non-zero axis or quaternion",
            ));
        }
        array(&here, b, planar)?;
        shape(&here, b, m)?;
    }
    // The copies of an array replace their template under their own names.
    let mut names: HashSet<String> = names.into_iter().map(str::to_string).collect();
    for (i, b) in m
        .bodies
        .iter()
        .enumerate()
        .filter(|(_, b)| b.array.is_some())
    {
        names.remove(&b.name);
        for n in b.copy_names(planar) {
            if !names.insert(n.clone()) {
                return Err(FieldError::new(
                    at(&item("bodies", i), "array"),
                    format!("copy `{n}` of this array has the name of another body"),
                ));
            }
        }
    }
    groups(m)?;
    Ok(names)
}

/// The value types' rules of a body (for models built in code).
fn values(here: &str, b: &BodyDef) -> Checked {
    for (field, v) in [
        ("position", b.position),
        ("velocity", b.velocity),
        ("angular_velocity", b.angular_velocity),
        ("force", b.force),
        ("torque", b.torque),
    ] {
        value(|| at(here, field), v.check())?;
    }
    value(|| at(here, "rotation"), b.rotation.check())?;
    if let Some(mass) = b.mass {
        value(|| at(here, "mass"), mass.check())?;
    }
    shape_values(&at(here, "shape"), &b.shape)?;
    if let Some(a) = &b.array {
        let arr = at(here, "array");
        value(|| at(&arr, "spacing"), a.spacing.check())?;
        if let Some(r) = a.radius {
            value(|| at(&arr, "radius"), r.check())?;
        }
    }
    Ok(())
}

/// The value types' rules of a shape at `path` (for models built in code).
pub(super) fn shape_values(path: &str, s: &ShapeDef) -> Checked {
    match s {
        ShapeDef::Ball { radius } | ShapeDef::FacetedBall { radius, .. } => {
            value(|| at(path, "radius"), radius.check())
        }
        ShapeDef::Cuboid { half_extents } => {
            value(|| at(path, "half_extents"), half_extents.check())
        }
        ShapeDef::Capsule {
            half_height,
            radius,
        }
        | ShapeDef::Cylinder {
            half_height,
            radius,
        } => {
            value(|| at(path, "half_height"), half_height.check())?;
            value(|| at(path, "radius"), radius.check())
        }
        ShapeDef::ConvexHull { points } => points
            .iter()
            .enumerate()
            .try_for_each(|(k, p)| value(|| item(&at(path, "points"), k), p.check())),
        ShapeDef::TriMesh { vertices, .. } => vertices
            .iter()
            .enumerate()
            .try_for_each(|(k, p)| value(|| item(&at(path, "vertices"), k), p.check())),
        ShapeDef::Compound { parts } => parts.iter().enumerate().try_for_each(|(k, p)| {
            let part = item(&at(path, "parts"), k);
            value(|| at(&part, "position"), p.position.check())?;
            value(|| at(&part, "rotation"), p.rotation.check())?;
            shape_values(&at(&part, "shape"), &p.shape)
        }),
    }
}

/// Position and speeds within the model's limits; no component a planar model cannot honour.
fn limits(here: &str, b: &BodyDef, planar: bool) -> Checked {
    let norm = |v: &crate::model::values::V3| magnitude(&v.vec());
    for (field, value, limit, unit) in [
        ("position", norm(&b.position), MAX_LENGTH, "m"),
        ("velocity", norm(&b.velocity), MAX_SPEED, "m/s"),
        (
            "angular_velocity",
            norm(&b.angular_velocity),
            MAX_SPEED,
            "rad/s",
        ),
    ] {
        if value.is_nan() || value > limit {
            return Err(FieldError::new(
                at(here, field),
                format!("expected a magnitude up to {limit:e} {unit}, got {value:e}"),
            ));
        }
    }
    if !planar {
        return Ok(());
    }
    // Components a planar model cannot honour are refused, not dropped.
    for (field, value) in [
        ("position", b.position.2),
        ("velocity", b.velocity.2),
        ("force", b.force.2),
        (
            "angular_velocity",
            b.angular_velocity.0.abs().max(b.angular_velocity.1.abs()),
        ),
        ("torque", b.torque.0.abs().max(b.torque.1.abs())),
    ] {
        if value != 0.0 {
            let what = if field == "angular_velocity" || field == "torque" {
                "x and y components (only rotation about z is planar)"
            } else {
                "z component"
            };
            return Err(FieldError::new(
                at(here, field),
                format!("a 2D model has no {what}; got {value}"),
            ));
        }
    }
    Ok(())
}

/// The body's array (if any): counts, size, extent, and that it keeps a point.
fn array(here: &str, b: &BodyDef, planar: bool) -> Checked {
    let Some(a) = &b.array else { return Ok(()) };
    let fail = |msg: String| Err(FieldError::new(at(here, "array"), msg));
    let ArrayDef { count: n, .. } = *a;
    if n.0 == 0 || n.1 == 0 || n.2 == 0 {
        return fail(format!(
            "count ({}, {}, {}): every count must be at least 1",
            n.0, n.1, n.2
        ));
    }
    if planar && n.2 != 1 {
        return fail(format!(
            "count along z is {} in a planar model; it must be 1",
            n.2
        ));
    }
    let total = n.0 as u64 * n.1 as u64 * n.2 as u64;
    if total > MAX_COPIES {
        return fail(format!(
            "{total} copies; an array may make at most {MAX_COPIES}"
        ));
    }
    let s = a.spacing.0;
    let p = b.position;
    let reach = [(n.0, s.0, p.0), (n.1, s.1, p.1), (n.2, s.2, p.2)]
        .iter()
        .map(|&(n, s, p)| 0.5 * (n as Real - 1.0) * s + p.abs())
        .fold(0.0, Real::max);
    if reach.is_nan() || reach > MAX_LENGTH {
        return fail(format!(
            "the lattice reaches {reach:e} m from the origin; bodies must stay within {MAX_LENGTH:e} m"
        ));
    }
    if b.copy_names(planar).is_empty() {
        return fail("`radius` leaves no lattice point; make it at least half a spacing".into());
    }
    Ok(())
}

/// The body's shape: one parry can build, a triangle mesh only on a static body, and a
/// dynamic body with a finite positive mass and inertia.
fn shape(here: &str, b: &BodyDef, m: &Model) -> Checked {
    if matches!(b.shape, ShapeDef::TriMesh { .. }) && b.kind != BodyKind::Static {
        return Err(FieldError::new(
            at(here, "kind"),
            "a TriMesh body must be Static (triangle meshes have no volume)",
        ));
    }
    let dofs = if m.scene.dimension == Dimension::Two {
        crate::body::Dofs::Planar
    } else {
        crate::body::Dofs::Spatial
    };
    let shape = match build_shape(&b.shape, dofs, m.scene.thickness.0) {
        Ok((s, _)) => s,
        Err(e) => return Err(FieldError::new(at(here, "shape"), e.0)),
    };
    if b.kind != BodyKind::Dynamic {
        return Ok(());
    }
    let density = m
        .materials
        .iter()
        .find(|x| x.name == b.material)
        .map(|x| x.density.0)
        .unwrap_or(1000.0);
    let mp = shape.mass_properties(density);
    let mass = mp.mass();
    let inertia = mp.principal_inertia();
    let ok = |x: f64| x.is_finite() && x > 0.0;
    if !(ok(mass) && ok(inertia.x) && ok(inertia.y) && ok(inertia.z)) {
        return Err(FieldError::new(
            at(here, "shape"),
            format!(
                "a dynamic body needs a finite positive mass and inertia; this shape gives mass {mass:e} kg and principal inertia ({:e}, {:e}, {:e}) kg·m² (check its size and the density)",
                inertia.x, inertia.y, inertia.z
            ),
        ));
    }
    Ok(())
}

/// Collision groups: at most 32, and `no_contact` names only groups some body has.
fn groups(m: &Model) -> Checked {
    let groups = m.collision_groups();
    if groups.len() > 32 {
        let name = groups[32];
        let body = m
            .bodies
            .iter()
            .position(|b| b.groups.iter().any(|g| g == name));
        return Err(FieldError::new(
            body.map_or("bodies".to_string(), |i| at(&item("bodies", i), "groups")),
            format!("at most 32 collision groups; `{name}` is the 33rd"),
        ));
    }
    for (k, (a, b)) in m.no_contact.iter().enumerate() {
        for (side, g) in [a, b].into_iter().enumerate() {
            if !groups.contains(&g.as_str()) {
                return Err(FieldError::new(
                    at(&item("no_contact", k), &side.to_string()),
                    format!(
                        "unknown collision group `{g}`; the bodies' groups are: {}",
                        if groups.is_empty() {
                            "(none)".to_string()
                        } else {
                            groups.join(", ")
                        }
                    ),
                ));
            }
        }
    }
    Ok(())
}
