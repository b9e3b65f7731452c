//! Artificial viscosity (Monaghan 1992, "Smoothed particle hydrodynamics", Annu. Rev. Astron.
//! Astrophys. 30:543; its viscous term `Π_ij`, here with `m_j / ρ̄_ij = V`): for approaching
//! pairs (`v_ij · r_ij < 0`)
//!
//! `a_i += Σ_j V α c h μ_ij ∇_i W_ij`, `μ_ij = v_ij · r_ij / (r_ij² + 0.01 h²)` (m/s²),
//!
//! with α (dimensionless) and the sound speed c (m/s) that a WCSPH model of the same flow would
//! use (a WCSPH comparison can then share α and c). The pair terms are equal and opposite, so it
//! keeps linear momentum, and it only removes kinetic energy. Off unless the model asks for it.

use super::morris_viscosity::Pairs;
use crate::math::Vec3;

/// Adds particle `i`'s artificial-viscosity acceleration (m/s²) to `a`, one neighbour at a time;
/// `av = α c h` (m²/s).
#[inline]
pub fn accumulate(p: &Pairs, i: usize, av: f64, a: &mut Vec3) {
    let (pos, vel, k) = (p.pos, p.vel, p.kernel);
    for &j in p.ff.of(i) {
        let j = j as usize;
        let rij = p.periodic.delta(&pos[i], &pos[j]);
        let approach = (vel[i] - vel[j]).dot(&rij);
        let r = rij.norm();
        if approach < 0.0 && r > 0.0 {
            let mu = approach / (r * r + p.eta2);
            // V α c h μ' ∇_i W_ij with ∇_i W_ij = W'(r) r_ij / r
            *a += rij * (p.volume * av * mu * k.dw(r) / r);
        }
    }
}
