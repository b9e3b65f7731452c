//! Building a [`World`] from a [`Model`]: [`build_world`] validates the model first
//! ([`super::validate::validate`]), so a model edited in code gets the same checks, and errors
//! by field path, as one read from a file; then expands body arrays and builds. What only
//! building can find (a fluid too large to sample, a body too small to carry boundary
//! particles, a pair of shapes without contacts) is reported by path too.
//!
//! Mass properties come from parry (`mass_properties(density)`): mass (kg), centre of mass and
//! principal inertia (kg·m²) of the shape, scaled when the body gives its mass directly. The
//! body's state is kept in its centre-of-mass principal frame; the user's frame is kept as an
//! offset. Planar models have the thickness as extrusion depth, so their masses are per that depth.

mod bodies;
mod fluid;
pub mod probes;
pub mod time_step;

pub(crate) use fluid::aabb_of;
pub use fluid::{MAX_PARTICLES, MAX_VISITS};

use super::error::FieldError;
use super::motion::MotionDef;
use super::schema::{Dimension, Model};
use crate::body::Dofs;
use crate::geometry::Geometry;
use crate::math::Vec3;
use crate::pipeline::World;
use crate::registry::Registry;
use crate::Real;

/// Where an error found while building lies: a body (index in the expanded model), a joint,
/// the fluid, or the model as a whole. The message names what is wrong.
pub(super) enum BuildError {
    Body(usize, String),
    Joint(usize, String),
    Fluid(String),
    /// The fluid regions hold too many particles at this spacing.
    Spacing(String),
    /// The contact resolver cannot be built.
    Contact(String),
    /// The model gives no time step and none follows from it.
    Time(String),
}

impl From<String> for BuildError {
    fn from(message: String) -> BuildError {
        BuildError::Fluid(message)
    }
}

/// Validates the model ([`super::validate::validate`]) and builds the world with the built-in
/// methods; the error names the field by its path (`bodies[3]`, `fluid`, `time.dt`, ...).
pub fn build_world(m: &Model) -> Result<World, Box<FieldError>> {
    build_world_with(m, &Registry::new())
}

/// [`build_world`] for a model that may name methods of `registry`
/// ([`crate::registry`]): each is built from its parameters, once.
pub fn build_world_with(m: &Model, registry: &Registry) -> Result<World, Box<FieldError>> {
    super::validate::validate_with(m, registry)?;
    let origin = super::expand::arrays::origins(m);
    let expanded = super::expand::beams::expanded(super::expand::arrays::expanded(m));
    // Bodies and joints past the model's own come from its beams, in the beams' order.
    let beam = |name: &str, msg: String| {
        let k = m.beams.iter().position(|b| {
            name.strip_prefix(b.name.as_str())
                .is_some_and(|rest| rest.starts_with('.'))
        });
        FieldError::named(format!("beams[{}].name", k.unwrap_or(0)), "beams", msg)
    };
    let world = build(&expanded, registry).map_err(|e| match e {
        // At the body's (joint's) name, or the `fluid` key: what the message is about.
        BuildError::Body(i, msg) if i >= origin.len() => beam(&expanded.bodies[i].name, msg),
        BuildError::Body(i, msg) => {
            FieldError::named(format!("bodies[{}].name", origin[i]), "bodies", msg)
        }
        BuildError::Joint(i, msg) if i >= m.joints.len() => beam(&expanded.joints[i].name, msg),
        BuildError::Joint(i, msg) => FieldError::named(format!("joints[{i}].name"), "joints", msg),
        BuildError::Fluid(msg) => FieldError::new("fluid", msg).at_key(),
        BuildError::Spacing(msg) => FieldError::named("fluid.spacing", "fluid", msg),
        BuildError::Contact(msg) => FieldError::new("contact.resolver", msg),
        BuildError::Time(msg) => FieldError::new("time.dt", msg),
    })?;
    wavemakers(m, &world)?;
    Ok(world)
}

/// The fewest time steps per period of a wavemaker.
pub const MIN_STEPS_PER_PERIOD: Real = 20.0;

/// A wavemaker's period against the time step, and a piston's travel against the water it
/// pushes: checks that need the built fluid and step. Each error names the motion's field.
fn wavemakers(m: &Model, world: &World) -> Result<(), Box<FieldError>> {
    let g = world.gravity.norm();
    for (k, b) in m.bodies.iter().enumerate() {
        let Some(def) = &b.motion else { continue };
        let Some(wm) = def.wavemaker(g) else { continue };
        let here = format!("bodies[{k}].motion");
        let period = match def {
            MotionDef::Piston { period, .. } | MotionDef::Flap { period, .. } => period.0,
            _ => continue,
        };
        if period < MIN_STEPS_PER_PERIOD * world.dt {
            return Err(FieldError::new(
                format!("{here}.period"),
                format!(
                    "a period of {period} s is {:.1} time steps of {:.3e} s; at least \
                     {MIN_STEPS_PER_PERIOD} are needed: a longer period or a shorter `dt`",
                    period / world.dt,
                    world.dt
                ),
            ));
        }
        if let (MotionDef::Piston { direction, .. }, Some(f)) = (def, &world.fluid) {
            let Some(d) = direction.vec().try_normalize(1e-300) else {
                continue;
            };
            let (lo, hi) = f
                .pos
                .iter()
                .fold((Real::INFINITY, Real::NEG_INFINITY), |(a, c), x| {
                    (a.min(x.dot(&d)), c.max(x.dot(&d)))
                });
            let length = hi - lo;
            if wm.excursion >= 0.5 * length {
                return Err(FieldError::new(
                    format!("{here}.height"),
                    format!(
                        "the stroke for this wave is {:.4} m: the paddle would travel ±{:.4} m, \
                         beyond half the water's length along its direction ({length:.4} m); \
                         a lower wave, a shorter period or a longer flume",
                        wm.wave.stroke, wm.excursion
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Builds the world from a validated model whose arrays are expanded.
fn build(m: &Model, registry: &Registry) -> Result<World, BuildError> {
    let dofs = match m.scene.dimension {
        Dimension::Two => Dofs::Planar,
        Dimension::Three => Dofs::Spatial,
    };
    let planar = dofs == Dofs::Planar;
    let flat = |v: Vec3| if planar { Vec3::new(v.x, v.y, 0.0) } else { v };
    let mut built = Vec::with_capacity(m.bodies.len());
    let groups = m.collision_groups();
    let mut geometry = Geometry::default();
    for (i, b) in m.bodies.iter().enumerate() {
        let (body, collider) = bodies::body(i, b, m, dofs, &groups)?;
        built.push(body);
        geometry.colliders.push(collider);
    }
    for (a, b) in &m.no_contact {
        let (ga, gb) = (
            bodies::group_bits(&groups, [a]),
            bodies::group_bits(&groups, [b]),
        );
        let (ka, kb) = (ga.trailing_zeros() as usize, gb.trailing_zeros() as usize);
        if ga != 0 && gb != 0 {
            geometry.no_contact[ka] |= gb;
            geometry.no_contact[kb] |= ga;
        }
    }
    let joints = bodies::joints(m, &built, flat, &mut geometry)?;
    geometry.excluded.sort_unstable();
    geometry.excluded.dedup();
    bodies::check_contact_pairs(&geometry, &built)?;
    let fluid = match &m.fluid {
        Some(f) => Some(fluid::build_fluid(f, m, &built, &geometry)?),
        None => None,
    };
    let fluid_method = match (&m.fluid, &fluid) {
        (Some(def), Some(f)) => {
            registry.build_fluid_method(&def.method, f, &flat(m.scene.gravity.vec()))?
        }
        _ => Box::new(crate::fluid::constraint::Constraint::default()),
    };
    let contact_resolver = registry
        .build_contact_resolver(&m.contact.resolver, m.contact.restitution_threshold)
        .map_err(BuildError::Contact)?;
    let scene = fluid.as_ref().map(|f| scene_box(f, &built));
    let gravity = flat(m.scene.gravity.vec());
    let dt = time_step(m, fluid.as_ref(), &built, &gravity)?;
    Ok(World {
        dofs,
        gravity,
        dt,
        h: dt,
        impulse_dt: dt,
        time: 0.0,
        steps: 0,
        time_origin: 0.0,
        steps_origin: 0,
        bodies: built,
        geometry,
        joints,
        solver: m.solver_choice(dt),
        contact: m.contact.clone(),
        fluid_method,
        last_substeps: Default::default(),
        last_impulses: Default::default(),
        abort: None,
        active_wait: false,
        contact_resolver,
        timings: Default::default(),
        scratch: Default::default(),
        last_solve: Default::default(),
        scene,
        fluid,
    })
}

/// The model's time step (s): its own, or the default of a fluid model
/// ([`time_step::default_time_step`]) within the steps a run may take.
fn time_step(
    m: &Model,
    fluid: Option<&crate::fluid::Fluid>,
    bodies: &[crate::body::RigidBody],
    gravity: &Vec3,
) -> Result<Real, BuildError> {
    if let Some(dt) = m.time.dt {
        return Ok(dt.0);
    }
    let Some(f) = fluid else {
        return Err(BuildError::Time(
            "expected a time step (s): only a model with a fluid gets one by default".into(),
        ));
    };
    let dt = time_step::default_time_step(f, bodies, gravity).ok_or_else(|| {
        BuildError::Time(
            "nothing in the model can move (no gravity, fluid and bodies at rest), so no time \
             step follows from its speeds: give `dt` (s)"
                .into(),
        )
    })?;
    if dt > m.time.end.0 {
        return Err(BuildError::Time(format!(
            "the default time step ({dt:.3e} s, half a spacing per step at the speed the model \
             can reach) is longer than the run (end = {} s): give `dt` (s) or a later end",
            m.time.end.0
        )));
    }
    let steps = m.time.end.0 / dt;
    if steps > super::validate::MAX_STEPS {
        return Err(BuildError::Time(format!(
            "the default time step {dt:.3e} s (half a spacing per step at the speed the model \
             can reach) makes end / dt = {steps:.3e} steps; more than {:e} is not a run that \
             finishes — lower end or coarsen the spacing",
            super::validate::MAX_STEPS
        )));
    }
    Ok(dt)
}

/// The box around the fluid particles, the boundary particles (walls and bodies) and the
/// bodies' centres (m; lower and upper corner).
fn scene_box(f: &crate::fluid::Fluid, bodies: &[crate::body::RigidBody]) -> [Vec3; 2] {
    let centres = bodies.iter().map(|b| b.pose.translation.vector);
    f.pos
        .iter()
        .chain(&f.boundary)
        .copied()
        .chain(centres)
        .fold(
            [
                Vec3::repeat(Real::INFINITY),
                Vec3::repeat(Real::NEG_INFINITY),
            ],
            |[lo, hi], p| [lo.inf(&p), hi.sup(&p)],
        )
}
