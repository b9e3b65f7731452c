//! Resolving a model's probe definitions (names of bodies and joints) into [`Probe`]s of a
//! built world. Names were checked when the model was loaded; a name that still does not
//! resolve is an error, never a dropped probe.

use super::beams::{BeamDef, BeamFrame};
use super::error::FieldError;
use super::schema::Model;
use super::values::V3;
use crate::math::Real;
use crate::pipeline::World;
use crate::probe::Probe;
use serde::{Deserialize, Serialize};

/// A measured series.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum ProbeDef {
    /// Centre-of-mass position of a body (m): columns `<body>.x`, `.y`, `.z`.
    Position(String),
    /// Linear velocity of a body (m/s).
    Velocity(String),
    /// Angular velocity of a body (rad/s).
    AngularVelocity(String),
    /// Orientation of a body's frame as a rotation vector, axis times angle (rad, the angle in
    /// [0, π]): columns `<body>.rot.x`, `.y`, `.z`; in 2D `.rot.z` is the angle about z in
    /// (−π, π] (it wraps when a body turns past half a turn).
    Orientation(String),
    /// Constraint force of a joint on its second body (N).
    JointForce(String),
    /// Kinetic, potential and total energy of all bodies (J).
    Energy,
    /// Surge front: the largest coordinate of a fluid particle centre along the direction
    /// (e.g. `Front((1, 0, 0))`), m: column `front`.
    Front(V3),
    /// Smoothed fluid pressure at a point (Pa): the kernel-weighted (Shepard) mean of the
    /// particle pressures within the kernel support of the point, 0 where there is no fluid.
    Pressure(V3),
    /// Fluid force (N) and torque about the centre of mass (N·m) on a body, from the last solve.
    FluidForce(String),
    /// Largest compression `max (ρ − ρ0)/ρ0` and mean `|ρ − ρ0|/ρ0` of the fluid particles.
    DensityError,
    /// Fraction of a body's volume below the free surface (0–1). The surface height (against
    /// gravity) is half a spacing above the mean top particle of horizontal bins of width l,
    /// over the fluid farther from the body than its horizontal extent plus one kernel support;
    /// meant for bodies floating in a tank; NaN where it cannot be measured, and for a body
    /// with no fluid around it seen along gravity (not in the fluid at all).
    Submerged(String),
    /// Kinetic, potential (relative to the origin) and total energy of the fluid (J).
    FluidEnergy,
    /// What the impulse contact resolver did in the last step: impulses, the largest energy
    /// stored in the contacts at once and the energy released (J, ETI), and the bodies' kinetic
    /// energy change (J). Needs an impulse resolver (`contact: (resolver: Eti() | ..)`).
    Resolver,
    /// Angle of repose (degrees) of the pile of dynamic bodies on a plate body, by the
    /// fixed-base cone method (3D, gravity along −z): in each of 8 sectors around the plate's
    /// centre, the highest grain top of each ring one grain diameter wide from a quarter of
    /// the plate's radius out, a least-squares line through them; the mean of the sectors'
    /// angles (`crate::probe::repose`). Columns `repose_angle` and `repose_spread` (half the
    /// range over the sectors, deg), `pile_grains` and `pile_height` (m).
    Repose(String),
    /// Displacement (m) of a beam's tip from its straight initial position ([`super::beams`]):
    /// columns `<beam>.tip.dx`, `.dy`, `.dz`.
    BeamTip(String),
    /// Displacement (m) of the point of a beam at a fraction (0 root – 1 tip) of its length
    /// from its straight initial position, e.g. `BeamPoint("plate", 0.5)`.
    BeamPoint(String, Real),
    /// Bending moment at a beam's root (N·m): the root hinge's spring-damper moment on the
    /// first element, `−(kθ + cθ̇)`; 0 for a pinned or free root.
    BeamMoment(String),
    /// Elastic energy of a beam's hinges, `Σ kθ²/2` (J).
    BeamEnergy(String),
}

/// The probes of `model` in `world` (built from it), in the model's order; an error names the
/// probe by its path (`probes[2]`).
pub fn resolve_probes(model: &Model, world: &World) -> Result<Vec<Probe>, Box<FieldError>> {
    model
        .probes
        .iter()
        .enumerate()
        .map(|(k, p)| {
            resolve(p, model, world)
                .map_err(|e| FieldError::named(format!("probes[{k}]"), "probes", e))
        })
        .collect()
}

fn resolve(def: &ProbeDef, model: &Model, world: &World) -> Result<Probe, String> {
    let body = |n: &str| {
        world
            .body(n)
            .ok_or_else(|| format!("probe: unknown body `{n}`"))
    };
    Ok(match def {
        ProbeDef::Position(n) => Probe::Position(body(n)?),
        ProbeDef::Velocity(n) => Probe::Velocity(body(n)?),
        ProbeDef::AngularVelocity(n) => Probe::AngularVelocity(body(n)?),
        ProbeDef::Orientation(n) => Probe::Orientation(body(n)?),
        ProbeDef::JointForce(n) => Probe::JointForce(
            world
                .joint(n)
                .ok_or_else(|| format!("probe: unknown joint `{n}`"))?,
        ),
        ProbeDef::Energy => Probe::Energy,
        ProbeDef::Front(d) => Probe::Front(d.vec().normalize()),
        ProbeDef::Pressure(p) => Probe::Pressure(p.vec()),
        ProbeDef::FluidForce(n) => Probe::FluidForce(body(n)?),
        ProbeDef::DensityError => Probe::DensityError,
        ProbeDef::Resolver => Probe::Resolver,
        ProbeDef::Submerged(n) => {
            let i = body(n)?;
            let l = world
                .fluid
                .as_ref()
                .ok_or("probe `Submerged` needs a fluid")?
                .params
                .spacing;
            let pts =
                world
                    .geometry
                    .volume_samples(i, 0.25 * l, world.dofs == crate::body::Dofs::Planar);
            Probe::Submerged(i, pts)
        }
        ProbeDef::FluidEnergy => Probe::FluidEnergy,
        ProbeDef::Repose(n) => Probe::Repose(body(n)?, crate::probe::repose::bounding_radii(world)),
        ProbeDef::BeamTip(n) => beam_point(model, world, n, 1.0)?,
        ProbeDef::BeamPoint(n, at) => beam_point(model, world, n, *at)?,
        ProbeDef::BeamMoment(n) => {
            let root = world.joint(&format!("{n}.hinge0"));
            Probe::BeamMoment(n.clone(), root)
        }
        ProbeDef::BeamEnergy(n) => {
            let beam = beam(model, n)?;
            let hinges = (0..beam.elements)
                .filter_map(|j| world.joint(&format!("{n}.hinge{j}")))
                .collect();
            Probe::BeamEnergy(n.clone(), hinges)
        }
    })
}

fn beam<'a>(model: &'a Model, name: &str) -> Result<&'a BeamDef, String> {
    model
        .beams
        .iter()
        .find(|b| b.name == name)
        .ok_or_else(|| format!("probe: unknown beam `{name}`"))
}

/// The point at `fraction` of beam `name`'s length: its element, its offset in the element's
/// frame (x along the beam) and its straight initial position.
fn beam_point(model: &Model, world: &World, name: &str, fraction: Real) -> Result<Probe, String> {
    let b = beam(model, name)?;
    let planar = world.dofs == crate::body::Dofs::Planar;
    let f = BeamFrame::of(b, planar, model.scene.thickness.0);
    let s = fraction * b.length.0;
    let j = ((s / f.ds).floor() as u32).min(b.elements - 1);
    let element = format!("{name}.{j}");
    let body = world
        .body(&element)
        .ok_or_else(|| format!("probe: beam element `{element}` not built"))?;
    let local = crate::math::Vec3::new(s - (j as Real + 0.5) * f.ds, 0.0, 0.0);
    Ok(Probe::BeamPoint {
        label: format!("{name}@{fraction}"),
        body,
        local,
        initial: f.point(s),
    })
}
