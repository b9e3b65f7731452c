//! Validation: `validate(&Model)` checks everything a model must satisfy before a world is
//! built from it, without its source text, and reports the first error by field path
//! ([`FieldError`]; [`super::spans`] locates it in a file). [`super::build::build_world`] calls
//! it, so a model edited in code gets the same checks as one read from a file; loading calls it
//! right after parsing.
//!
//! One file per section, in the order the checks run: `scene.rs` (time, gravity, solver, guard,
//! contact, output), `materials.rs`, `bodies.rs` (with `motion.rs`, arrays and shapes,
//! collision groups), `beams.rs`, `joints.rs`, `periodic.rs`, `fluid.rs` (with its method), `named.rs` (methods of a registry), `probes.rs`.
//! The value types
//! of the schema ([`super::values`]) check their rule while a file is parsed; the sections
//! check the same rules again (`check()`), for models built in code.
//!
//! The chain is one-way: `schema` → `validate` → `build`; nothing here imports `build` or
//! `load`.

mod beams;
mod bodies;
mod fluid;
mod joints;
mod materials;
mod motion;
mod named;
mod periodic;
mod probes;
mod scene;

pub use super::error::FieldError;
use super::schema::Model;
use crate::math::Vec3;
use crate::registry::Registry;

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

/// What validation returns: the first error found, by field path.
pub type Checked = Result<(), Box<FieldError>>;

/// Checks the whole model (module docs) with the built-in methods only.
pub fn validate(m: &Model) -> Checked {
    validate_with(m, &Registry::new())
}

/// Checks the whole model (module docs); the methods it names beyond the built-in ones must
/// be in `registry` ([`crate::registry`]).
pub fn validate_with(m: &Model, registry: &Registry) -> Checked {
    scene::validate(m)?;
    let materials = materials::validate(m)?;
    let mut names = bodies::validate(m, &materials)?;
    let beams = beams::validate(m, &materials, &mut names)?;
    let joints = joints::validate(m, &names)?;
    periodic::validate(m)?;
    fluid::validate(m)?;
    named::validate(m, registry)?;
    probes::validate(m, &names, &joints, &beams)?;
    Ok(())
}

/// The length of `v` without overflow (|(0, 1e200, 0)| is 1e200, not infinity); NaN if any
/// component is NaN.
pub fn magnitude(v: &Vec3) -> f64 {
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

/// `Ok` if a value type's rule holds, else the error at `path`.
fn value(path: impl FnOnce() -> String, rule: Result<(), String>) -> Checked {
    rule.map_err(|e| FieldError::new(path(), e))
}

/// `parent.key` (or `key` at the top level).
fn at(parent: &str, key: &str) -> String {
    super::spans::join(parent, key)
}

/// `parent[i]`.
fn item(parent: &str, i: usize) -> String {
    super::spans::item(parent, i)
}
