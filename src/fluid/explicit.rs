//! The fluid's explicit forces over a step: gravity, laminar viscosity ([`super::morris_viscosity`])
//! and the optional artificial viscosity ([`super::monaghan_viscosity`]), then the velocity filter
//! ([`super::velocity_filter`]) on the predicted velocities.

use super::morris_viscosity::{self, Pairs};
use super::{monaghan_viscosity, Fluid};
use crate::math::{Real, Vec3};
use rayon::prelude::*;

impl Fluid {
    /// Adds gravity (m/s²) and the explicit viscous forces over a step `h` (s) to the
    /// velocities — the predicted velocities `v*` — then applies the velocity filter if the model
    /// asks for it (the solve then projects the filtered field). Needs current neighbour lists.
    /// `halo`: the exchange of a fluid divided among processes (the filter's sums are then the
    /// whole fluid's).
    pub fn external(
        &mut self,
        gravity: &Vec3,
        h: Real,
        bodies: &[crate::body::RigidBody],
        halo: Option<&mut (dyn super::halo::Halo + '_)>,
    ) {
        self.explicit_forces(gravity, h, bodies);
        if self.params.velocity_filter > 0.0 {
            let eps = -(-self.params.velocity_filter * h).exp_m1();
            self.filter_velocities(eps, None, halo);
        }
    }

    /// Adds gravity (m/s²) and the explicit viscous forces over a step `h` (s) to the
    /// velocities (no filter). `bodies` give the velocities of the walls they carry.
    pub fn explicit_forces(&mut self, gravity: &Vec3, h: Real, bodies: &[crate::body::RigidBody]) {
        // The body particles' velocities (the static walls, before them, are at rest).
        let ns = self.static_walls();
        let mut wall_vel = std::mem::take(&mut self.wall_vel);
        wall_vel.clear();
        wall_vel.extend(
            self.owner[ns..]
                .iter()
                .zip(&self.boundary[ns..])
                .map(|(&o, x)| {
                    if o == super::STATIC {
                        Vec3::zeros()
                    } else {
                        bodies[o as usize].point_velocity(x)
                    }
                }),
        );
        let nu = self.params.viscosity / self.laplacian;
        let (alpha, c_sound) = self.params.artificial_viscosity;
        let k = &self.params.kernel;
        let av = alpha * c_sound * k.h;
        let pairs = Pairs {
            pos: &self.pos,
            vel: &self.vel,
            ff: &self.ff,
            kernel: k,
            volume: self.volume,
            eta2: 0.01 * k.h * k.h,
            periodic: self.params.periodic,
            boundary: &self.boundary,
            wall_vel: &wall_vel,
            first_body: ns,
            to_surface: &self.to_surface,
            min_gap: 0.5 * self.params.spacing,
            fb: &self.fb,
        };
        let mask = if self.params.planar {
            Vec3::new(1.0, 1.0, 0.0)
        } else {
            Vec3::repeat(1.0)
        };
        let mut next = std::mem::take(&mut self.spare);
        next.resize(pairs.pos.len(), Vec3::zeros());
        next.par_iter_mut()
            .enumerate()
            .with_min_len(1024)
            .for_each(|(i, out)| {
                let mut a = *gravity;
                if nu > 0.0 {
                    morris_viscosity::accumulate(&pairs, i, nu, &mut a);
                }
                if av > 0.0 {
                    monaghan_viscosity::accumulate(&pairs, i, av, &mut a);
                }
                *out = pairs.vel[i] + a.component_mul(&mask) * h;
            });
        self.spare = std::mem::replace(&mut self.vel, next);
        self.wall_vel = wall_vel;
    }
}
