//! Stage 3b, impulse contact resolvers only (a [`crate::impulse::ContactResolver`] whose
//! contacts are not rows of the solve: ETI, SQM, SMM or one written outside the crate): the
//! contacts of stage 3 are resolved on the bodies' velocities (v*); the constraint solve then
//! takes the joints and fluid rows, and no contact rows.

use super::World;
use crate::geometry::Impulse;
use crate::impulse::{self, ImpulseBody, ImpulseInfo};

/// Buffers of the impulse resolvers, reused.
#[derive(Default)]
pub struct ImpulseScratch {
    bodies: Vec<ImpulseBody>,
    points: Vec<(usize, impulse::Point)>,
    only: Vec<impulse::Point>,
}

impl World {
    /// Resolves this step's contacts with the world's impulse resolver (nothing for
    /// complementarity rows); writes the new body velocities, the velocity vector of the solve
    /// and each contact's impulse (N·s) for output.
    pub(super) fn resolve_contacts_by_impulses(&mut self) {
        if self.contact_resolver.rows_in_solve() {
            self.last_impulses = ImpulseInfo::default();
            return;
        }
        let t0 = std::time::Instant::now();
        let planar = self.dofs == crate::body::Dofs::Planar;
        let s = &mut self.scratch;
        let k = &mut s.impulse;
        k.bodies.clear();
        k.bodies
            .extend(self.bodies.iter().map(|b| ImpulseBody::of(b, self.dofs)));
        let touch = self.contact.slop;
        impulse::prepare(&s.contacts, &k.bodies, planar, self.h, touch, &mut k.points);
        k.only.clear();
        k.only.extend(k.points.iter().map(|(_, p)| p.clone()));
        let info = self.contact_resolver.resolve(&mut k.only, &mut k.bodies);
        for (b, r) in self.bodies.iter_mut().zip(&k.bodies) {
            if b.is_dynamic() {
                (b.lin_vel, b.ang_vel) = (r.v, r.w);
            }
        }
        s.impulses.clear();
        s.impulses.resize(s.contacts.len(), Impulse::default());
        for ((i, _), p) in k.points.iter().zip(&k.only) {
            s.impulses[*i] = p.output();
        }
        // The solve starts from the resolved velocities.
        let fluid = self.fluid.as_ref().filter(|_| self.fluid_method.in_solve());
        let vel = fluid.map(|f| &f.vel[..]).unwrap_or(&[]);
        s.layout.gather(&self.bodies, vel, &mut s.v);
        self.last_impulses = info;
        self.timings.add(super::timing::Stage::Impulses, t0);
    }
}
