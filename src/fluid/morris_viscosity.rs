//! Laminar viscosity: the SPH Laplacian of Morris, Fox & Zhu 1997 ("Modeling low Reynolds
//! number incompressible flows using SPH", J. Comput. Phys. 136:214, eq. 8; 004 eq. 9):
//!
//! `a_i = Σ_j 2 ν V (r_ij · ∇_i W_ij) / (r_ij² + η²) (v_i − v_j)` (m/s²)
//!
//! with the kinematic viscosity ν (m²/s), the particle volume `V = m/ρ` (m^d), `r_ij = x_i − x_j`
//! and `η² = 0.01 h²` keeping the denominator away from zero. Since `r · ∇W = r W'(r) ≤ 0`, each
//! pair term pulls `v_i` towards `v_j`; the terms are equal and opposite, so momentum is kept.

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
}

/// Adds particle `i`'s viscous acceleration (m/s²) for kinematic viscosity `nu` (m²/s) to `a`,
/// one neighbour at a time.
#[inline]
pub fn accumulate(p: &Pairs, i: usize, nu: Real, a: &mut Vec3) {
    let (pos, vel, k) = (p.pos, p.vel, p.kernel);
    for &j in p.ff.of(i) {
        let j = j as usize;
        let rij = pos[i] - pos[j];
        let r = rij.norm();
        if r > 0.0 {
            let rdotgrad = k.dw(r) * r; // r_ij · ∇_i W_ij
            *a += (vel[i] - vel[j]) * (2.0 * nu * p.volume * rdotgrad / (r * r + p.eta2));
        }
    }
}
