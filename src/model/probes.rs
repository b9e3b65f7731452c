//! Resolving a model's probe definitions (names of bodies and joints) into [`Probe`]s of a
//! built world. Names were checked when the model was loaded; a name that still does not
//! resolve is an error, never a dropped probe.

use super::schema::{Model, ProbeDef};
use crate::pipeline::World;
use crate::probe::Probe;

/// The probes of `model` in `world` (built from it), in the model's order.
pub fn resolve_probes(model: &Model, world: &World) -> Result<Vec<Probe>, String> {
    model.probes.iter().map(|p| resolve(p, world)).collect()
}

fn resolve(def: &ProbeDef, world: &World) -> Result<Probe, String> {
    let body = |n: &str| {
        world
            .body(n)
            .ok_or_else(|| format!("probe: unknown body `{n}`"))
    };
    Ok(match def {
        ProbeDef::Position(n) => Probe::Position(body(n)?),
        ProbeDef::Velocity(n) => Probe::Velocity(body(n)?),
        ProbeDef::AngularVelocity(n) => Probe::AngularVelocity(body(n)?),
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
    })
}
