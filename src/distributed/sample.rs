//! The probes of a divided run, measured over each rank's owned particles and reduced over
//! the ranks ([`super::run`]).

use super::{Comm, SlabHalo};
use crate::fluid::halo::{owned_of, Halo};
use crate::math::Real;
use crate::pipeline::World;
use crate::probe::Probe;

/// The world's halo, fluid and bodies, borrowed together.
fn parts(world: &mut World) -> (&SlabHalo, &crate::fluid::Fluid, &[crate::body::RigidBody]) {
    let h = SlabHalo::of(&mut *world.fluid_method);
    let f = world.fluid.as_ref().expect("a divided world has a fluid");
    (h, f, &world.bodies)
}

/// The probes over this rank's owned particles, reduced over the ranks (collective).
pub(super) fn sample(world: &mut World, probes: &[Probe]) -> Vec<Real> {
    let g = world.gravity;
    let (halo, f, bodies) = parts(world);
    let owned = halo.owned();
    let mine = |v| owned_of(v, Some(owned));
    // Maxima first, then sums (two reductions per output).
    let mut maxima = Vec::new();
    let mut sums = Vec::new();
    for p in probes {
        match p {
            Probe::Front(d) => maxima.push(
                mine(&f.pos)
                    .map(|x| x.dot(d))
                    .fold(Real::NEG_INFINITY, Real::max),
            ),
            Probe::DensityError => {
                let e = || owned_of(&f.density_error, Some(owned));
                maxima.push(e().copied().fold(0.0, Real::max));
                sums.push(e().map(|e| e.abs()).sum());
                sums.push(e().count() as Real);
            }
            Probe::FluidEnergy => {
                let m = f.mass;
                sums.push(mine(&f.vel).map(|v| 0.5 * m * v.norm_squared()).sum());
                sums.push(mine(&f.pos).map(|x| -m * g.dot(x)).sum());
            }
            Probe::Pressure(x) => {
                let (num, den) = f.pressure_sums(x, Some(owned));
                sums.extend([num, den]);
            }
            _ => {}
        }
    }
    let comm = halo.comm();
    let surfaces = surfaces(comm, (f, bodies), probes, owned, &g);
    let mut surfaces = surfaces.into_iter();
    comm.max(&mut maxima);
    comm.sum(&mut sums);
    let (mut mx, mut sm) = (maxima.into_iter(), sums.into_iter());
    // (Bodies are on every rank, the same bits everywhere: the fluid's force on them is
    // summed over the ranks.)
    let world: &World = world;
    let mut row = Vec::new();
    for p in probes {
        match p {
            Probe::Front(_) => row.push(mx.next().unwrap_or(0.0)),
            Probe::DensityError => {
                let (largest, total, n) = (
                    mx.next().unwrap_or(0.0),
                    sm.next().unwrap_or(0.0),
                    sm.next().unwrap_or(0.0),
                );
                row.extend([largest, total / n.max(1.0)]);
            }
            Probe::FluidEnergy => {
                let (k, pe) = (sm.next().unwrap_or(0.0), sm.next().unwrap_or(0.0));
                row.extend([k, pe, k + pe]);
            }
            Probe::Pressure(_) => {
                let (num, den) = (sm.next().unwrap_or(0.0), sm.next().unwrap_or(0.0));
                row.push(if den > 0.0 { num / den } else { 0.0 });
            }
            Probe::WaveGauge { rest, .. } => {
                row.push(surfaces.next().unwrap_or(Real::NAN) - rest);
            }
            Probe::Submerged(..) => row.push(surfaces.next().unwrap_or(Real::NAN)),
            // (No wildcard: a new probe that reads the fluid must be reduced here.)
            Probe::Position(_)
            | Probe::Velocity(_)
            | Probe::AngularVelocity(_)
            | Probe::Orientation(_)
            | Probe::Energy
            | Probe::FluidForce(_)
            | Probe::JointForce(_)
            | Probe::BeamMoment(..)
            | Probe::BeamEnergy(..)
            | Probe::BeamPoint { .. }
            | Probe::Repose(..)
            | Probe::Resolver => p.sample(world, &mut row),
        }
    }
    row
}

/// The wave gauges' heights and the submerged fractions of `probes`, from every rank's
/// particles (gathered in rank order: every rank reads the same; collective).
fn surfaces(
    comm: &dyn Comm,
    (f, bodies): (&crate::fluid::Fluid, &[crate::body::RigidBody]),
    probes: &[Probe],
    owned: &[bool],
    g: &crate::math::Vec3,
) -> Vec<Real> {
    let mut surfaces = Vec::new();
    for p in probes {
        match p {
            Probe::WaveGauge { point, .. } => {
                let mine = f.surface_column(point, g, Some(owned));
                let mine: Vec<Real> = mine.iter().flat_map(|&(z, l)| [z, l]).collect();
                let all = comm.all_gather(&mine).concat();
                let column: Vec<(Real, Real)> = all.chunks_exact(2).map(|c| (c[0], c[1])).collect();
                surfaces.push(f.height_in_column(&column).unwrap_or(Real::NAN));
            }
            Probe::Submerged(b, pts) => {
                let tops = f.surface_tops(g, Some(owned));
                let mine = tops
                    .iter()
                    .flat_map(|(k, &h)| [k.0 as Real, k.1 as Real, h]);
                let mut tops = crate::probe::SurfaceTops::new();
                let mine: Vec<Real> = mine.collect();
                for c in comm.all_gather(&mine).concat().chunks_exact(3) {
                    let t = tops.entry((c[0] as i64, c[1] as i64)).or_insert(c[2]);
                    *t = t.max(c[2]);
                }
                let pose = &bodies[*b].pose;
                surfaces.push(f.submerged_in(pose, pts, g, tops));
            }
            _ => {}
        }
    }
    surfaces
}
