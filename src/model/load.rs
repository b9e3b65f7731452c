//! Loading a model: parse (RON extensions `implicit_some` and `unwrap_variant_newtypes` on), then
//! cross-check names and shapes. Every error carries file, line, column and field.

use super::error::{field_before, ModelError};
use super::schema::{BodyKind, JointKindDef, Model, ProbeDef, ShapeDef};
use super::shapes::build_shape;
use crate::body::Dofs;
use crate::model::schema::Dimension;
use ron::extensions::Extensions;
use std::collections::HashSet;
use std::path::Path;

/// The largest distance of a body from the origin (m), and the largest size of a shape.
pub const MAX_LENGTH: f64 = super::shapes::MAX_LENGTH;
/// The largest initial speed (m/s) or angular speed (rad/s) of a body.
pub const MAX_SPEED: f64 = 1e5;
/// The largest gravity (m/s²): 1000 g.
pub const MAX_GRAVITY: f64 = 1e4;

/// The largest density of a material or a fluid (kg/m³): 40 times osmium's.
pub const MAX_DENSITY: f64 = 1e6;

/// The largest number of steps a run may have (end / dt).
pub const MAX_STEPS: f64 = 1e9;

/// Reads and validates a model file.
pub fn load_file(path: &Path) -> Result<(Model, String), Box<ModelError>> {
    let source = std::fs::read_to_string(path).map_err(|e| {
        Box::new(ModelError::whole(
            path,
            "",
            format!("cannot read the model file: {e}"),
        ))
    })?;
    // A UTF-8 byte-order mark (some editors write one) is not part of the model.
    let source = match source.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_string(),
        None => source,
    };
    let model = parse_str(path, &source)?;
    Ok((model, source))
}

/// Parses and validates model text; `path` is only used in messages.
pub fn parse_str(path: &Path, source: &str) -> Result<Model, Box<ModelError>> {
    let source = source.strip_prefix('\u{feff}').unwrap_or(source);
    let opts = ron::Options::default()
        .with_default_extension(Extensions::IMPLICIT_SOME | Extensions::UNWRAP_VARIANT_NEWTYPES);
    let model: Model = opts.from_str(source).map_err(|e| {
        let pos = e.span.start;
        let field = match &e.code {
            ron::Error::NoSuchStructField { found, .. } => Some(found.clone()),
            ron::Error::MissingStructField { field, .. }
            | ron::Error::DuplicateStructField { field, .. } => Some(field.to_string()),
            _ => None,
        };
        let message = match &e.code {
            ron::Error::ExceededRecursionLimit => {
                "the model nests deeper than the parser allows (128 levels); flatten it".to_string()
            }
            code => code.to_string(),
        };
        Box::new(ModelError::at(
            path, source, pos.line, pos.col, field, message,
        ))
    })?;
    validate(path, source, &model)?;
    Ok(super::arrays::expand(model))
}

/// Offset of the value of `field` inside the list item that mentions `"name"` under `list:`.
fn locate(source: &str, list: &str, name: &str, field: &str) -> usize {
    locate_nth(source, list, name, field, 0)
}

/// As [`locate`], in the `nth` (0-based) item that mentions `"name"`.
fn locate_nth(source: &str, list: &str, name: &str, field: &str, nth: usize) -> usize {
    let start = find_key(source, list, 0).unwrap_or(0);
    let quoted = format!("\"{name}\"");
    let item = source[start..]
        .match_indices(&quoted)
        .nth(nth)
        .map(|(o, _)| start + o)
        .unwrap_or(start);
    if field.is_empty() {
        return item;
    }
    find_key(source, field, item)
        .map(|o| value_start(source, o))
        .unwrap_or(item)
}

/// Offset of `key` followed by `:` at or after `from`.
pub(super) fn find_key(source: &str, key: &str, from: usize) -> Option<usize> {
    let mut at = from;
    while let Some(o) = source[at..].find(key) {
        let pos = at + o;
        let before_ok = pos == 0
            || !source.as_bytes()[pos - 1].is_ascii_alphanumeric()
                && source.as_bytes()[pos - 1] != b'_';
        let after = source[pos + key.len()..].trim_start();
        if before_ok && after.starts_with(':') {
            return Some(pos);
        }
        at = pos + key.len();
    }
    None
}

pub(super) fn value_start(source: &str, key_pos: usize) -> usize {
    let colon = source[key_pos..]
        .find(':')
        .map(|o| key_pos + o + 1)
        .unwrap_or(key_pos);
    colon + (source[colon..].len() - source[colon..].trim_start().len())
}

fn validate(path: &Path, source: &str, m: &Model) -> Result<(), Box<ModelError>> {
    let err = |offset: usize, field: &str, msg: String| {
        let f = if field.is_empty() {
            field_before(source, offset)
        } else {
            Some(field.to_string())
        };
        Err(Box::new(ModelError::at_offset(
            path, source, offset, f, msg,
        )))
    };
    if m.time.dt.0 > m.time.end.0 {
        let o = find_key(source, "dt", 0)
            .map(|o| value_start(source, o))
            .unwrap_or(0);
        return err(
            o,
            "dt",
            format!(
                "the time step ({} s) is longer than the run (end = {} s)",
                m.time.dt.0, m.time.end.0
            ),
        );
    }
    if m.scene.dimension == Dimension::Two && m.scene.gravity.2 != 0.0 {
        let o = find_key(source, "gravity", 0)
            .map(|o| value_start(source, o))
            .unwrap_or(0);
        return err(
            o,
            "gravity",
            format!("a 2D model has no z component; got {}", m.scene.gravity.2),
        );
    }
    let g = magnitude(&m.scene.gravity.vec());
    if g.is_nan() || g > MAX_GRAVITY {
        let o = find_key(source, "gravity", 0)
            .map(|o| value_start(source, o))
            .unwrap_or(0);
        return err(
            o,
            "gravity",
            format!("expected a magnitude up to {MAX_GRAVITY:e} m/s² (1000 g), got {g:e}"),
        );
    }
    let steps = m.time.end.0 / m.time.dt.0;
    if steps > MAX_STEPS {
        let o = find_key(source, "dt", 0)
            .map(|o| value_start(source, o))
            .unwrap_or(0);
        return err(o, "dt", format!("end / dt = {steps:.3e} steps; more than {MAX_STEPS:e} steps is not a run that finishes — raise dt or lower end"));
    }
    if let Err(e) = m.solver_choice().validate() {
        let o = find_key(source, "solver", 0)
            .map(|o| value_start(source, o))
            .unwrap_or(0);
        let msg = if e.field == "tolerance" {
            format!("expected a positive tolerance (m/s), got {}", e.value)
        } else {
            format!("expected {}, got {}", e.expected, e.value)
        };
        return err(o, e.field, msg);
    }
    if let Err(e) = m.guard.validate() {
        let o = find_key(source, "guard", 0)
            .map(|o| value_start(source, o))
            .unwrap_or(0);
        return err(
            o,
            e.field,
            format!("expected {}, got {}", e.expected, e.value),
        );
    }
    let mut materials: HashSet<&str> = HashSet::from(["default"]);
    let mut seen = HashSet::new();
    for mat in &m.materials {
        if mat.density.0 > MAX_DENSITY {
            return err(
                locate(source, "materials", &mat.name, "density"),
                "density",
                format!(
                    "expected a density up to {MAX_DENSITY:e} kg/m³, got {:e}",
                    mat.density.0
                ),
            );
        }
        if !seen.insert(mat.name.as_str()) {
            return err(
                locate_nth(source, "materials", &mat.name, "", 1),
                "name",
                format!("material `{}` is defined twice", mat.name),
            );
        }
        materials.insert(&mat.name);
    }
    let dofs = if m.scene.dimension == Dimension::Two {
        Dofs::Planar
    } else {
        Dofs::Spatial
    };
    if let Some((field, msg)) = m.contact.resolver.check() {
        let from = find_key(source, "resolver", 0).unwrap_or(0);
        let o = find_key(source, field, from).map_or(from, |o| value_start(source, o));
        return err(o, field, msg);
    }
    let mut names = HashSet::new();
    for b in &m.bodies {
        if b.name.is_empty() {
            return err(
                locate(source, "bodies", "", "name"),
                "name",
                "a body needs a non-empty name".into(),
            );
        }
        if !names.insert(b.name.as_str()) {
            return err(
                locate_nth(source, "bodies", &b.name, "", 1),
                "name",
                format!("body `{}` is defined twice; names must be unique", b.name),
            );
        }
        if !materials.contains(b.material.as_str()) {
            let mut known: Vec<_> = materials.iter().copied().collect();
            known.sort();
            return err(
                locate(source, "bodies", &b.name, "material"),
                "material",
                format!(
                    "unknown material `{}`; expected one of: {}",
                    b.material,
                    known.join(", ")
                ),
            );
        }
        let norm = |v: &super::values::V3| magnitude(&v.vec());
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
                return err(
                    locate(source, "bodies", &b.name, field),
                    field,
                    format!("expected a magnitude up to {limit:e} {unit}, got {value:e}"),
                );
            }
        }
        if dofs == Dofs::Planar {
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
                    return err(
                        locate(source, "bodies", &b.name, field),
                        field,
                        format!("a 2D model has no {what}; got {value}"),
                    );
                }
            }
        }
        if let Err((o, field, msg)) = super::motion::validate(
            source,
            locate(source, "bodies", &b.name, ""),
            b,
            dofs == Dofs::Planar,
        ) {
            return err(o, field, msg);
        }
        if b.rotation.quat().is_none() {
            return err(
                locate(source, "bodies", &b.name, "rotation"),
                "rotation",
                "expected a non-zero axis or quaternion".into(),
            );
        }
        let array_at = locate(source, "bodies", &b.name, "array");
        super::arrays::check(path, source, array_at, b, dofs == Dofs::Planar)?;
        if matches!(b.shape, ShapeDef::TriMesh { .. }) && b.kind != BodyKind::Static {
            return err(
                locate(source, "bodies", &b.name, "kind"),
                "kind",
                "a TriMesh body must be Static (triangle meshes have no volume)".into(),
            );
        }
        let shape = match build_shape(&b.shape, dofs, m.scene.thickness.0) {
            Ok((s, _)) => s,
            Err(e) => return err(locate(source, "bodies", &b.name, "shape"), "shape", e.0),
        };
        if b.kind == BodyKind::Dynamic {
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
                return err(
                    locate(source, "bodies", &b.name, "shape"),
                    "shape",
                    format!(
                        "a dynamic body needs a finite positive mass and inertia; this shape gives mass {mass:e} kg and principal inertia ({:e}, {:e}, {:e}) kg·m² (check its size and the density)",
                        inertia.x, inertia.y, inertia.z
                    ),
                );
            }
        }
    }
    // The copies of an array replace their template under their own names.
    let mut names: HashSet<String> = names.into_iter().map(str::to_string).collect();
    for b in m.bodies.iter().filter(|b| b.array.is_some()) {
        names.remove(&b.name);
        for n in super::arrays::copy_names(b, dofs == Dofs::Planar) {
            if !names.insert(n.clone()) {
                return err(
                    locate(source, "bodies", &b.name, "array"),
                    "array",
                    format!("copy `{n}` of this array has the name of another body"),
                );
            }
        }
    }
    let mut jnames = HashSet::new();
    // Collision groups: at most 32, and `no_contact` names only groups some body has.
    let groups = super::build::collision_groups(m);
    if groups.len() > 32 {
        let name = groups[32];
        let body = m.bodies.iter().find(|b| b.groups.iter().any(|g| g == name));
        let o = body.map_or(0, |b| locate(source, "bodies", &b.name, "groups"));
        return err(
            o,
            "groups",
            format!("at most 32 collision groups; `{name}` is the 33rd"),
        );
    }
    for (a, b) in &m.no_contact {
        for g in [a, b] {
            if !groups.contains(&g.as_str()) {
                let start = find_key(source, "no_contact", 0).unwrap_or(0);
                let o = source[start..]
                    .find(&format!("\"{g}\""))
                    .map_or(start, |k| start + k);
                return err(
                    o,
                    "no_contact",
                    format!(
                        "unknown collision group `{g}`; the bodies' groups are: {}",
                        if groups.is_empty() {
                            "(none)".to_string()
                        } else {
                            groups.join(", ")
                        }
                    ),
                );
            }
        }
    }
    for j in &m.joints {
        if dofs == Dofs::Planar && j.anchor.2 != 0.0 {
            return err(
                locate(source, "joints", &j.name, "anchor"),
                "anchor",
                format!("a 2D model has no z component; got {}", j.anchor.2),
            );
        }
        let d = magnitude(&j.anchor.vec());
        if d.is_nan() || d > MAX_LENGTH {
            return err(
                locate(source, "joints", &j.name, "anchor"),
                "anchor",
                format!("expected a distance from the origin up to {MAX_LENGTH:e} m, got {d:e}"),
            );
        }
        if !jnames.insert(j.name.as_str()) {
            return err(
                locate_nth(source, "joints", &j.name, "", 1),
                "name",
                format!("joint `{}` is defined twice", j.name),
            );
        }
        for (field, body) in [("body1", &j.body1), ("body2", &j.body2)] {
            if !names.contains(body.as_str()) {
                return err(
                    locate(source, "joints", &j.name, field),
                    field,
                    format!(
                        "joint `{}` names unknown body `{}`; expected the name of a body",
                        j.name, body
                    ),
                );
            }
        }
        if j.body1 == j.body2 {
            return err(
                locate(source, "joints", &j.name, "body2"),
                "body2",
                format!("joint `{}` joins body `{}` to itself", j.name, j.body1),
            );
        }
        let axis = match &j.kind {
            JointKindDef::Revolute { axis, .. } | JointKindDef::Prismatic { axis } => Some(axis),
            _ => None,
        };
        if let Some(a) = axis {
            let n = magnitude(&a.vec());
            if !(n >= 1e-12 && n.is_finite()) {
                return err(
                    locate(source, "joints", &j.name, "axis"),
                    "axis",
                    "expected a non-zero finite axis".into(),
                );
            }
        }
    }
    if let Err((o, field, msg)) = super::periodic::validate(source, m) {
        return err(o, field, msg);
    }
    if let Some(f) = &m.fluid {
        super::fluid_limits::validate_fluid(source, f, dofs, m).map_err(|(o, field, msg)| {
            Box::new(ModelError::at_offset(
                path,
                source,
                o,
                Some(field.to_string()),
                msg,
            ))
        })?;
    }
    for p in &m.probes {
        let (name, is_joint) = match p {
            ProbeDef::Position(n) | ProbeDef::Velocity(n) | ProbeDef::AngularVelocity(n) => {
                (n, false)
            }
            ProbeDef::JointForce(n) => (n, true),
            ProbeDef::Repose(n) => {
                if dofs == Dofs::Planar {
                    return err(
                        locate(source, "probes", "Repose", ""),
                        "probes",
                        "`Repose` measures a 3D pile (gravity along −z); this model is 2D".into(),
                    );
                }
                (n, false)
            }
            ProbeDef::FluidForce(n) | ProbeDef::Submerged(n) => {
                if m.fluid.is_none() {
                    return err(
                        locate(source, "probes", n, ""),
                        "probes",
                        "this probe measures the fluid, and the model has no `fluid`".into(),
                    );
                }
                (n, false)
            }
            ProbeDef::Front(d) => {
                let n = magnitude(&d.vec());
                if m.fluid.is_none() || !(n > 0.0 && n.is_finite()) {
                    return err(
                        locate(source, "probes", "Front", ""),
                        "probes",
                        "`Front` needs a fluid and a non-zero direction".into(),
                    );
                }
                continue;
            }
            ProbeDef::Pressure(_) | ProbeDef::DensityError | ProbeDef::FluidEnergy => {
                if let ProbeDef::Pressure(x) = p {
                    let d = magnitude(&x.vec());
                    if d.is_nan() || d > MAX_LENGTH {
                        return err(
                            locate(source, "probes", "Pressure", ""),
                            "probes",
                            format!("a `Pressure` point needs a distance from the origin up to {MAX_LENGTH:e} m, got {d:e}"),
                        );
                    }
                }
                if m.fluid.is_none() {
                    return err(
                        locate(source, "probes", "", ""),
                        "probes",
                        "this probe measures the fluid, and the model has no `fluid`".into(),
                    );
                }
                continue;
            }
            ProbeDef::Energy => continue,
            ProbeDef::Resolver => {
                if m.contact.resolver.is_complementarity() {
                    return err(
                        locate(source, "probes", "Resolver", ""),
                        "probes",
                        "`Resolver` reports an impulse contact resolver; this model's \
                         `contact.resolver` is `Complementarity()`"
                            .into(),
                    );
                }
                continue;
            }
        };
        let ok = if is_joint {
            jnames.contains(name.as_str())
        } else {
            names.contains(name.as_str())
        };
        if !ok {
            let what = if is_joint { "joint" } else { "body" };
            return err(
                locate(source, "probes", name, ""),
                "probes",
                format!("probe names unknown {what} `{name}`"),
            );
        }
    }
    Ok(())
}

/// The length of `v` without overflow (|(0, 1e200, 0)| is 1e200, not infinity); NaN if any
/// component is NaN.
pub(super) fn magnitude(v: &crate::math::Vec3) -> f64 {
    if v.iter().any(|x| x.is_nan()) {
        return f64::NAN;
    }
    let m = v.amax();
    if m == 0.0 || !m.is_finite() {
        m
    } else {
        m * (v / m).norm()
    }
}
