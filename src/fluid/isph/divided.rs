//! ISPH's calls to the halo of a fluid divided among processes ([`crate::fluid::halo`], issue
//! 55): every sub-step's neighbour search with the particles' redistribution, the ghosts'
//! refresh after each update of positions or velocities, the kernel sums exchanged (the
//! pressure equation's numbering and free-surface test read the ghosts' sums), the free-surface
//! count and the shifting's speed scale over the whole fluid. The pressure equation divides
//! its own solves ([`super::ppe`]). An owned particle reads only its neighbours' positions,
//! velocities, kernel sums and pressures, each exchanged after it changes, so the ghosts reach
//! one kernel support (and the skin) beyond a part.

use super::{IsphParams, IsphScratch};
use crate::fluid::halo::owned_of;
use crate::fluid::Fluid;
use crate::math::{Real, Vec3};

impl Fluid {
    /// The sub-step's neighbour search; a divided fluid first hands its particles that left
    /// the part to their owners and takes the ghosts afresh ([`crate::fluid::halo::Halo`]).
    pub(super) fn search_divided(&mut self, s: &mut IsphScratch) {
        if let Some(h) = s.halo.0.as_mut() {
            let (ns, nb) = (self.static_walls(), self.boundary.len());
            h.redistribute(self, &mut Default::default());
            // The part's static walls may have changed: their velocities are zero, the body
            // particles' (after them) are kept.
            if s.bvel.len() == nb {
                let body = s.bvel.split_off(ns);
                s.bvel.clear();
                s.bvel.resize(self.static_walls(), Vec3::zeros());
                s.bvel.extend(body);
            }
        }
        self.search(0.0);
        if let Some(h) = s.halo.0.as_mut() {
            h.reordered(self);
        }
    }

    /// A divided fluid's ghosts take their owners' positions and velocities.
    pub(super) fn refresh_isph_ghosts(&mut self, s: &mut IsphScratch) {
        if let Some(h) = s.halo.0.as_mut() {
            s.unused.resize(self.len(), 0.0);
            h.refresh(&mut self.pos, &mut self.vel, &mut s.unused);
        }
    }

    /// The normalised kernel sums into `s.n`; a divided fluid's ghosts take their owners'.
    pub(super) fn shared_kernel_sums(&self, s: &mut IsphScratch) {
        self.kernel_sums(&mut s.n);
        if let Some(h) = s.halo.0.as_deref_mut() {
            h.refresh_scalar(&mut s.n);
        }
    }

    /// The free-surface particles (kernel sum `s.n` below [`IsphParams::surface`]) of the whole
    /// fluid.
    pub(super) fn surface_count(&self, p: &IsphParams, s: &mut IsphScratch) -> usize {
        let owned = s.halo.0.as_deref().map(|h| h.owned());
        let mine = owned_of(&s.n, owned).filter(|&&n| n < p.surface).count();
        match s.halo.0.as_deref_mut() {
            Some(h) => {
                let mut v = [mine as Real];
                h.sum(&mut v);
                v[0] as usize
            }
            None => mine,
        }
    }

    /// Particle shifting ([`crate::fluid::lind_shifting`]), its speed scale and the ghosts'
    /// fills over the whole fluid when it is divided, the ghosts moved after it.
    pub(super) fn shift_isph(&mut self, h: Real, s: &mut IsphScratch) {
        if s.halo.0.is_none() {
            return self.shift_particles(h);
        }
        let umax = self.relative_speed_max(s.halo.0.as_deref_mut());
        self.shift_particles_at(h, umax, s.halo.0.as_deref_mut());
        self.refresh_isph_ghosts(s);
    }
}
