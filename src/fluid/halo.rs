//! A fluid divided among processes: each part holds the particles it owns and, as *ghosts*,
//! copies of the particles of other parts within reach of its own (issue 55; the halo of
//! PySPH's parallel manager and of domain-decomposed SPH codes generally).
//!
//! A fluid method that supports it ([`crate::fluid::FluidMethod::set_halo`]; WCSPH so far)
//! calls the [`Halo`] at fixed points of its sub-step: before a neighbour search
//! ([`Halo::redistribute`]: owned particles that left the part go to their new owner, ghosts are
//! copied afresh), after it ([`Halo::reordered`]: the particles' new order), after every
//! position/velocity/density update ([`Halo::refresh`]: the ghosts take their owners' values),
//! and wherever a decision must be the same on every part ([`Halo::max`]: the sub-step, whether
//! to search, whether to stop). Ghosts take part in every pair pass as ordinary particles; what
//! they compute for themselves is overwritten by the next refresh. With ghosts up to two kernel
//! supports plus the neighbour lists' skin from a part, every quantity an owned particle reads
//! within a sub-step (its neighbours' positions, velocities and densities, the wall pressures
//! extrapolated from their fluid neighbours) is computed from complete neighbourhoods, so the
//! owned particles step as they would in one process, up to the order of the sums.
//!
//! The implementation over processes is [`crate::distributed::SlabHalo`].

use super::Fluid;
use crate::math::{Real, Vec3};

/// The exchange between the parts of a divided fluid (see the module doc).
pub trait Halo: Send + Sync {
    /// Replaces each entry of `v` by its largest value over all parts (every part calls it
    /// with the same length at the same point).
    fn max(&mut self, v: &mut [Real]);

    /// Replaces each entry of `v` by its sum over all parts (the same bits on every part).
    fn sum(&mut self, v: &mut [Real]);

    /// Whether `flag` holds on any part.
    fn any(&mut self, flag: bool) -> bool {
        let mut v = [if flag { 1.0 } else { 0.0 }];
        self.max(&mut v);
        v[0] > 0.0
    }

    /// The smallest value of `x` over all parts.
    fn min(&mut self, x: Real) -> Real {
        let mut v = [-x];
        self.max(&mut v);
        -v[0]
    }

    /// Before a neighbour search: drops the ghosts, hands the owned particles that left this
    /// part to their owners (with their carried densities `rho`, kg/m³), and appends the other
    /// parts' particles within reach as ghosts.
    fn redistribute(&mut self, fluid: &mut Fluid, rho: &mut Vec<Real>);

    /// After the neighbour search that followed [`Halo::redistribute`]: the particles' new
    /// order ([`Fluid::reorder_like_last_search`]).
    fn reordered(&mut self, fluid: &Fluid);

    /// Ghosts' positions (m), velocities (m/s) and densities (kg/m³) from their owners.
    fn refresh(&mut self, pos: &mut [Vec3], vel: &mut [Vec3], rho: &mut [Real]);

    /// Whether each particle (in the current order) is owned by this part (not a ghost).
    fn owned(&self) -> &[bool];

    /// The implementation, for its own figures (the run loop reads
    /// [`crate::distributed::SlabHalo`]'s).
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any;
}

impl Fluid {
    /// Keeps the particles `i` with `keep[i]` (in order), with their entries of `rho`.
    pub fn keep_particles(&mut self, keep: &[bool], rho: &mut Vec<Real>) {
        fn retain<T: Copy>(v: &mut Vec<T>, keep: &[bool]) {
            if v.len() == keep.len() {
                let mut k = keep.iter();
                v.retain(|_| *k.next().unwrap_or(&false));
            }
        }
        retain(&mut self.pos, keep);
        retain(&mut self.vel, keep);
        retain(&mut self.id, keep);
        retain(&mut self.pressure, keep);
        retain(&mut self.density_error, keep);
        retain(rho, keep);
    }

    /// Appends a particle with id `id` at `x` (m) with velocity `v` (m/s) and density `rho`
    /// (kg/m³, appended to `rhos`).
    pub fn push_particle(&mut self, id: u32, x: Vec3, v: Vec3, rho: Real, rhos: &mut Vec<Real>) {
        let n = self.pos.len();
        for a in [&mut self.pressure, &mut self.density_error] {
            if a.len() == n {
                a.push(0.0);
            }
        }
        self.pos.push(x);
        self.vel.push(v);
        self.id.push(id);
        rhos.push(rho);
    }
}
