//! WCSPH's calls to the halo of a fluid divided among processes ([`crate::fluid::halo`]): the
//! neighbour search with the particles' redistribution, the ghosts' refresh after each update,
//! shifting's speed scale over the whole fluid.

use super::{Fluid, WcsphScratch, SKIN};
use crate::fluid::halo::Carried;
use crate::math::{Real, Vec3};

impl Fluid {
    /// A neighbour search, if one is due on any part of the fluid: the first of a model step,
    /// or some particle may have entered another's support since the last. A divided fluid
    /// exchanges its particles first ([`Halo::redistribute`]).
    pub(super) fn search_if_due(&mut self, s: &mut WcsphScratch) {
        let mut due = !s.searched || !self.within_skin(s);
        if let Some(h) = s.halo.0.as_mut() {
            due = h.any(due);
            if due {
                let c = &mut s.carry;
                let mut carried = Carried {
                    scalars: vec![&mut c.rho, &mut c.prev_rho],
                    vectors: vec![&mut c.prev_vel],
                    walls: vec![&mut c.brho, &mut c.prev_brho],
                };
                let (ns, nb) = (self.static_walls(), self.boundary.len());
                h.redistribute(self, &mut carried);
                // The part's static walls may have changed: the walls' velocities of this
                // model step (zero for static walls; the body particles' after them, as they
                // were).
                if s.bvel.len() == nb {
                    let body = s.bvel.split_off(ns);
                    s.bvel.clear();
                    s.bvel.resize(self.static_walls(), Vec3::zeros());
                    s.bvel.extend(body);
                }
            }
        }
        if !due {
            return;
        }
        self.search(SKIN * self.params.kernel.support());
        // The carried densities and Verlet's previous sub-step follow their particles
        // into cell order.
        self.reorder_like_last_search(&mut s.carry.prev_vel, &mut s.perm_vel);
        self.reorder_like_last_search(&mut s.carry.rho, &mut s.perm_rho);
        self.reorder_like_last_search(&mut s.carry.prev_rho, &mut s.perm_rho);
        if let Some(h) = s.halo.0.as_mut() {
            h.reordered(self);
        }
        s.x_search.clone_from(&self.pos);
        s.b_search.clone_from(&self.boundary);
        s.searched = true;
    }

    /// Particle shifting ([`super::lind_shifting`]) with its speed scale over the whole fluid
    /// when it is divided.
    pub(super) fn shift_divided(&mut self, sub: Real, s: &mut WcsphScratch) {
        let umax = self.relative_speed_max(s.halo.0.as_deref_mut());
        self.shift_particles_at(sub, umax, None);
    }

    /// A divided fluid's ghosts take their owners' positions, velocities and densities.
    pub(super) fn refresh_ghosts(&mut self, s: &mut WcsphScratch) {
        if let Some(h) = s.halo.0.as_mut() {
            h.refresh(&mut self.pos, &mut self.vel, &mut s.carry.rho);
        }
    }

    /// A divided fluid's force and torque on each body: the sum of the ranks' shares (each
    /// from its owned particles), the same bits on every rank.
    pub(super) fn reduce_body_forces(&mut self, s: &mut WcsphScratch) {
        if let Some(h) = s.halo.0.as_deref_mut() {
            crate::fluid::halo::sum_body_forces(self, h);
        }
    }
}
