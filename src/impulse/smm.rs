//! Simultaneous impulse method (SMM; 002 Appendix B after Coutinho): one linear system imposes
//! `u_n⁺ = −e u_n` on every contact that approaches or rests (`u_n ≤ 0`) at once, with normal
//! impulses only — the frictionless case 002 §7.2 compares with (`μ` is not applied). For
//! contact i and the normal impulses λ_j (N·s) of all contacts,
//! `Σ_j A_ij λ_j = −(1 + e_i) u_n,i`, `A_ij` the change of `u_n,i` from a unit normal impulse at
//! j (the normal rows of 002 eq. 88 with the momentum rows eliminated). The system is solved
//! by a singular value decomposition (redundant contacts, e.g. four corners of a box on a
//! plane in 2D, make A singular; the least-norm solution is taken). Dense: `O(n³)` in the
//! number of contacts, for comparisons on small scenes.

use super::{kinetic_energy, restitution, ImpulseBody, ImpulseInfo, Point};
use crate::math::Real;
use nalgebra::{DMatrix, DVector};

/// SMM parameters (RON: `contact: (resolver: SimultaneousImpulse())`: none of its own).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SmmParams {
    /// Approach speed (m/s) below which a contact is resting (no restitution): the model's
    /// `contact.restitution_threshold` (not written here). Default 0.05 m/s.
    #[serde(skip)]
    pub restitution_threshold: Real,
}

impl Default for SmmParams {
    fn default() -> Self {
        SmmParams {
            restitution_threshold: 0.05,
        }
    }
}

/// Resolves `points` on `bodies` (velocities changed in place).
pub fn resolve(p: &SmmParams, points: &mut [Point], bodies: &mut [ImpulseBody]) -> ImpulseInfo {
    let mut info = ImpulseInfo::default();
    let before = kinetic_energy(bodies);
    let un: Vec<Real> = points.iter().map(|c| c.normal_velocity(bodies)).collect();
    let scale = un.iter().map(|u| u.abs()).fold(0.0, Real::max);
    let active: Vec<usize> = (0..points.len())
        .filter(|&k| un[k] <= 1e-13 * scale)
        .collect();
    if active.is_empty() || !un.iter().any(|&u| u < -1e-13 * scale) {
        return info;
    }
    let n = active.len();
    // Column j: the normal velocities of the active contacts after a unit normal impulse at
    // contact j applied to the bodies at rest (no difference of nearly equal velocities: the
    // response is linear).
    let mut a = DMatrix::<Real>::zeros(n, n);
    let mut rest = bodies.to_vec();
    for (col, &j) in active.iter().enumerate() {
        for b in rest.iter_mut() {
            (b.v, b.w) = (Default::default(), Default::default());
        }
        let mut c = points[j].clone();
        c.friction = 0.0;
        c.apply(&mut rest, 1.0 / c.normal_mass);
        for (row, &i) in active.iter().enumerate() {
            a[(row, col)] = points[i].normal_velocity(&rest);
        }
    }
    let b = DVector::from_iterator(
        n,
        active.iter().map(|&i| {
            let e = restitution(&points[i], un[i], p.restitution_threshold);
            -(1.0 + e) * un[i]
        }),
    );
    let svd = a.svd(true, true);
    let eps = 1e-12 * svd.singular_values.max();
    let Ok(lambda) = svd.solve(&b, eps) else {
        return info;
    };
    for (col, &j) in active.iter().enumerate() {
        let c = &mut points[j];
        let f = c.friction;
        c.friction = 0.0;
        c.apply(bodies, lambda[col] / c.normal_mass);
        c.friction = f;
    }
    info.iterations = 1;
    info.energy_change = kinetic_energy(bodies) - before;
    info
}

/// Simultaneous impulses as a contact resolver ([`super::ContactResolver`]).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SimultaneousImpulse(pub SmmParams);

impl super::ContactResolver for SimultaneousImpulse {
    fn name(&self) -> &'static str {
        "simultaneous impulses (SMM)"
    }

    fn resolve(&mut self, points: &mut [Point], bodies: &mut [ImpulseBody]) -> ImpulseInfo {
        resolve(&self.0, points, bodies)
    }
}
