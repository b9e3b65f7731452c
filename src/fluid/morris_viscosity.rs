//! Laminar viscosity: the SPH Laplacian of Morris, Fox & Zhu 1997 ("Modeling low Reynolds
//! number incompressible flows using SPH", J. Comput. Phys. 136:214, eq. 8; 004 eq. 9):
//!
//! `a_i = Σ_j 2 ν V (r_ij · ∇_i W_ij) / (r_ij² + η²) (v_i − v_j)` (m/s²)
//!
//! with the kinematic viscosity ν (m²/s), the particle volume `V = m/ρ` (m^d), `r_ij = x_i − x_j`
//! and `η² = 0.01 h²` keeping the denominator away from zero. Since `r · ∇W = r W'(r) ≤ 0`, each
//! pair term pulls `v_i` towards `v_j`; the terms are equal and opposite, so momentum is kept.
//!
//! Walls are no-slip (Morris et al. 1997 §3.3): the same term over the boundary neighbours b,
//! with the boundary particle's velocity extrapolated across the wall from the fluid particle's,
//! `v_b = v_w − (d_b / d_i)(v_i − v_w)`, so that the velocity varies linearly through the wall
//! and reaches the wall's velocity `v_w` there: `v_i − v_b = β (v_i − v_w)`,
//! `β = 1 + d_b / max(d_i, l/2)`, with `d_b` the boundary particle's depth below the surface and
//! `d_i = n_b · (x_i − x_b) − d_b` the fluid particle's distance from the wall's tangent plane
//! at b ([`super::Fluid::to_surface`]); Morris caps β at 1.5, here `d_i` is held at half a
//! spacing or more instead (the contact rows keep fluid particles about a spacing from boundary
//! particles). `β = 1` (`v_b = v_w`) where a particle's surface is unknown. Measured on the
//! Poiseuille channel (`tests/poiseuille.rs`, relative RMS error at t = 1 s): `v_b = v_w` 9.1 %
//! (the first layer slides at twice the series' speed); Adami et al.'s 2012 extrapolation
//! `v_b = 2 v_w − ṽ_b` (Shepard mean ṽ_b of the fluid) 0.89 %; this form, see the test.

use super::grid::Neighbours;
use super::kernel::Kernel;
use crate::math::{Real, Vec3};

/// What a pair force needs of the fluid: positions, velocities, fluid neighbours, kernel,
/// particle volume (m^d) and `η² = 0.01 h²` (m²).
#[derive(Clone, Copy)]
pub struct Pairs<'a> {
    /// Positions (m).
    pub pos: &'a [Vec3],
    /// Velocities (m/s).
    pub vel: &'a [Vec3],
    /// Fluid neighbours.
    pub ff: &'a Neighbours,
    /// Kernel.
    pub kernel: &'a Kernel,
    /// Particle volume V (m^d).
    pub volume: Real,
    /// `η² = 0.01 h²` (m²).
    pub eta2: Real,
    /// Periodic axes (pair separations are nearest-image).
    pub periodic: super::periodic::Periodic,
    /// Boundary particles (m) and their velocities (m/s).
    pub boundary: &'a [Vec3],
    /// Velocity of the body at each body particle (m/s): boundary particle `first_body + k` has
    /// `wall_vel[k]`; the static walls before them are at rest.
    pub wall_vel: &'a [Vec3],
    /// Index of the first body particle among the boundary particles.
    pub first_body: usize,
    /// Offset of each boundary particle to its surface (m; [`super::Fluid::to_surface`]).
    pub to_surface: &'a [Vec3],
    /// Smallest fluid-particle distance from a wall in `β` (m): half a spacing.
    pub min_gap: Real,
    /// Boundary neighbours of each fluid particle.
    pub fb: &'a Neighbours,
}

/// Adds particle `i`'s viscous acceleration (m/s²) for kinematic viscosity `nu` (m²/s) to `a`,
/// one neighbour at a time.
#[inline]
pub fn accumulate(p: &Pairs, i: usize, nu: Real, a: &mut Vec3) {
    let (pos, vel, k) = (p.pos, p.vel, p.kernel);
    for &j in p.ff.of(i) {
        let j = j as usize;
        let rij = p.periodic.delta(&pos[i], &pos[j]);
        let r = rij.norm();
        if r > 0.0 {
            let rdotgrad = k.dw(r) * r; // r_ij · ∇_i W_ij
            *a += (vel[i] - vel[j]) * (2.0 * nu * p.volume * rdotgrad / (r * r + p.eta2));
        }
    }
    for &b in p.fb.of(i) {
        let b = b as usize;
        let d = p.periodic.delta(&pos[i], &p.boundary[b]);
        let r = d.norm();
        if r > 0.0 {
            let rdotgrad = k.dw(r) * r;
            let beta = no_slip_factor(&d, &p.to_surface[b], p.min_gap);
            let wall = b
                .checked_sub(p.first_body)
                .map_or(Vec3::zeros(), |k| p.wall_vel[k]);
            *a += (vel[i] - wall) * (beta * 2.0 * nu * p.volume * rdotgrad / (r * r + p.eta2));
        }
    }
}

/// Morris' no-slip factor `β = 1 + d_b / max(d_i, min_gap)` for a fluid particle at `d = x_i − x_b`
/// (m) from a boundary particle whose offset to its surface is `to_surface` (m); 1 where the
/// offset is zero (unknown).
#[inline]
pub fn no_slip_factor(d: &Vec3, to_surface: &Vec3, min_gap: Real) -> Real {
    let db = to_surface.norm();
    if db == 0.0 {
        return 1.0;
    }
    let di = to_surface.dot(d) / db - db;
    1.0 + db / di.max(min_gap)
}
