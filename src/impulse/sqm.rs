//! Sequential impulse method (SQM; 002 Appendix A, Chatterjee & Ruina's ordering): the contact
//! with the most negative normal velocity gets the one impulse that sets `u_n → −e u_n`
//! (with the friction of [`super`]'s module docs: sticking if `|p_t| ≤ μ |p_n|`, else sliding
//! with the normal change kept), the bodies are updated, and the next most negative contact is
//! taken, until no contact approaches or `max_iterations` impulses were applied. The result
//! depends on the order (002: its main drawback) and elastic chains may not end.

use super::{kinetic_energy, restitution, ImpulseBody, ImpulseInfo, Point};
use crate::math::Real;

/// SQM parameters (RON: `contact: (resolver: SequentialImpulse(max_iterations: 1000))`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SqmParams {
    /// Impulses after which the resolution stops (reported as capped), 1 to
    /// [`super::MAX_IMPULSES`]. Default 10 000.
    pub max_iterations: u32,
    /// Approach speed (m/s) below which a contact is resting (no restitution): the model's
    /// `contact.restitution_threshold` (not written here). Default 0.05 m/s.
    #[serde(skip)]
    pub restitution_threshold: Real,
}

impl SqmParams {
    /// Checks every value; the error names the field (as in RON) and what was expected.
    pub fn validate(&self) -> Result<(), crate::params::ParamError> {
        let cap = super::MAX_IMPULSES as u32;
        if (1..=cap).contains(&self.max_iterations) {
            Ok(())
        } else {
            Err(crate::params::ParamError::new(
                "max_iterations",
                "from 1 to 10000000 impulses per step",
                self.max_iterations as Real,
            ))
        }
    }
}

impl Default for SqmParams {
    fn default() -> Self {
        SqmParams {
            max_iterations: 10_000,
            restitution_threshold: 0.05,
        }
    }
}

/// Resolves `points` on `bodies` (velocities changed in place).
pub fn resolve(p: &SqmParams, points: &mut [Point], bodies: &mut [ImpulseBody]) -> ImpulseInfo {
    let mut info = ImpulseInfo::default();
    let before = kinetic_energy(bodies);
    let scale = points
        .iter()
        .map(|c| c.normal_velocity(bodies).abs())
        .fold(0.0, Real::max);
    let tol = 1e-13 * scale;
    loop {
        let mut best = (0, Real::INFINITY);
        for (k, c) in points.iter().enumerate() {
            let un = c.normal_velocity(bodies);
            if un < best.1 {
                best = (k, un);
            }
        }
        let (k, un) = best;
        if un >= -tol {
            break;
        }
        if info.iterations >= p.max_iterations as usize || super::interrupt_due(info.iterations) {
            info.capped = true;
            break;
        }
        let e = restitution(&points[k], un, p.restitution_threshold);
        points[k].apply(bodies, -(1.0 + e) * un);
        info.iterations += 1;
    }
    info.energy_change = kinetic_energy(bodies) - before;
    info
}

/// Sequential impulses as a contact resolver ([`super::ContactResolver`]).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SequentialImpulse(pub SqmParams);

impl super::ContactResolver for SequentialImpulse {
    fn name(&self) -> &'static str {
        "sequential impulses (SQM)"
    }

    fn resolve(&mut self, points: &mut [Point], bodies: &mut [ImpulseBody]) -> ImpulseInfo {
        resolve(&self.0, points, bodies)
    }
}
