//! Resolving a model's probe definitions (names of bodies and joints) into [`Probe`]s of a
//! built world. Names were checked when the model was loaded; a name that still does not
//! resolve is an error, never a dropped probe.

use crate::math::Real;
use crate::model::beam_defs::{BeamDef, BeamFrame};
use crate::model::error::FieldError;
use crate::model::probe_defs::ProbeDef;
use crate::model::schema::Model;
use crate::pipeline::World;
use crate::probe::Probe;

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
        ProbeDef::WaveGauge(p) => {
            let point = p.vec();
            let f = world.fluid.as_ref().ok_or("`WaveGauge` needs a fluid")?;
            let rest = f.surface_height(&point, &world.gravity).ok_or_else(|| {
                format!(
                    "no fluid within a kernel support ({:.4} m) of the gauge's vertical line \
                     through ({}, {}, {}) at the start: put the gauge over the water",
                    f.params.kernel.support(),
                    point.x,
                    point.y,
                    point.z
                )
            })?;
            Probe::WaveGauge { point, rest }
        }
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
