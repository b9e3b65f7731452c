//! The velocity vector of the solve: its one description.
//!
//! Unknowns are ordered bodies first — 6 per dynamic body `(V, ω)` (m/s, rad/s; world frame),
//! in body order, static and kinematic bodies have none — then fluid particles, 3 per particle
//! `v` (m/s) in the fluid's current (cell) order. Every row family, the pipeline and the read-back
//! take offsets from here and nowhere else.

use super::body_jacobian::NO_DOF;
use crate::body::RigidBody;
use crate::math::{Real, Vec3};

/// Where each body's and particle's DOFs are in the velocity vector.
#[derive(Debug, Default, Clone)]
pub struct VelocityLayout {
    body_dof: Vec<u32>,
    body_dofs: usize,
    particles: usize,
}

impl VelocityLayout {
    /// Lays out the DOFs of `bodies` (dynamic ones only) followed by `particles` fluid
    /// particles. Reuses its storage.
    pub fn build(&mut self, bodies: &[RigidBody], particles: usize) {
        self.body_dof.clear();
        let mut n = 0u32;
        for b in bodies {
            if b.is_dynamic() {
                self.body_dof.push(n);
                n += 6;
            } else {
                self.body_dof.push(NO_DOF);
            }
        }
        self.body_dofs = n as usize;
        self.particles = particles;
    }

    /// Offset of body `i`'s six DOFs, or [`NO_DOF`].
    #[inline]
    pub fn body_dof(&self, i: usize) -> u32 {
        self.body_dof[i]
    }

    /// Number of body DOFs (6 per dynamic body).
    pub fn body_dofs(&self) -> usize {
        self.body_dofs
    }

    /// Offset of particle 0's three DOFs (particle `p` at `particle_dof0() + 3 p`).
    #[inline]
    pub fn particle_dof0(&self) -> usize {
        self.body_dofs
    }

    /// Number of fluid particles.
    pub fn particles(&self) -> usize {
        self.particles
    }

    /// Length of the velocity vector.
    pub fn len(&self) -> usize {
        self.body_dofs + 3 * self.particles
    }

    /// Whether there are no DOFs at all.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Writes the velocity vector of `bodies` and particle velocities `vel` into `v`.
    pub fn gather(&self, bodies: &[RigidBody], vel: &[Vec3], v: &mut Vec<Real>) {
        debug_assert_eq!(vel.len(), self.particles);
        v.clear();
        for b in bodies.iter().filter(|b| b.is_dynamic()) {
            v.extend(b.lin_vel.iter().chain(b.ang_vel.iter()));
        }
        v.extend(vel.iter().flat_map(|x| x.iter().copied()));
    }

    /// Overwrites the particles' part of `v` (built by [`VelocityLayout::gather`]) with `vel`
    /// (m/s): a fluid method that changed its velocities while building its rows.
    pub fn gather_particles(&self, vel: &[Vec3], v: &mut [Real]) {
        let o = self.particle_dof0();
        for (x, out) in vel.iter().zip(v[o..].chunks_exact_mut(3)) {
            out.copy_from_slice(x.as_slice());
        }
    }

    /// Reads the dynamic bodies' velocities back from `v`.
    pub fn scatter_bodies(&self, v: &[Real], bodies: &mut [RigidBody]) {
        for (b, &o) in bodies.iter_mut().zip(&self.body_dof) {
            if o != NO_DOF {
                let k = o as usize;
                b.lin_vel = Vec3::new(v[k], v[k + 1], v[k + 2]);
                b.ang_vel = Vec3::new(v[k + 3], v[k + 4], v[k + 5]);
            }
        }
    }

    /// Reads the particle velocities back from `v`.
    pub fn scatter_particles(&self, v: &[Real], vel: &mut [Vec3]) {
        let o = self.particle_dof0();
        for (i, x) in vel.iter_mut().enumerate() {
            let k = o + 3 * i;
            *x = Vec3::new(v[k], v[k + 1], v[k + 2]);
        }
    }
}
