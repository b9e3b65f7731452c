//! Damping zones: where waves are absorbed at the end of a flume.
//!
//! Over a zone from `start` to `end` (m) the fluid's velocity relaxes towards rest, more
//! strongly the deeper into the zone: with `s = (x − start)·e / L` (`e` the unit vector from
//! `start` to `end`, `L` their distance), each step of `h` seconds multiplies the velocity of a
//! particle at `0 ≤ s ≤ 1` by
//!
//! `exp(−σ s² h)`,
//!
//! `σ` the zone's rate (1/s). Particles beyond `end` (`s > 1`) are relaxed at the full rate,
//! particles before `start` not at all. The quadratic ramp lets a wave enter the zone without a
//! reflection from its edge (Cruz et al. 1993's sponge layer; the relaxation zones of
//! DualSPHysics' wave generation, Altomare et al. 2017, Coastal Engineering 127, §3, act the
//! same way); a zone of about a wavelength absorbs most of the wave. The reflection that is
//! left is measured, not assumed (the book's waves chapter, the two-gauge method). The
//! relaxation acts once per model step on the velocities after the step, so it is the same for
//! every fluid method.

use super::Fluid;
use crate::math::{Real, Vec3};
use rayon::prelude::*;

/// A damping zone (module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DampingZone {
    /// Where the relaxation starts (m).
    pub start: Vec3,
    /// Where it reaches its full rate (m).
    pub end: Vec3,
    /// Full rate σ (1/s).
    pub rate: Real,
}

impl DampingZone {
    /// The factor a velocity at `x` (m) is multiplied by over a step of `h` (s).
    #[inline]
    pub fn factor(&self, x: &Vec3, h: Real) -> Real {
        let axis = self.end - self.start;
        let len2 = axis.norm_squared();
        if len2 <= 0.0 {
            return 1.0;
        }
        let s = ((x - self.start).dot(&axis) / len2).min(1.0);
        if s <= 0.0 {
            1.0
        } else {
            (-self.rate * s * s * h).exp()
        }
    }
}

impl Fluid {
    /// Relaxes the velocities in the fluid's damping zones over a step of `h` (s).
    pub fn damp(&mut self, h: Real) {
        if self.damping.is_empty() {
            return;
        }
        let zones = &self.damping;
        let damp = |(v, x): (&mut Vec3, &Vec3)| {
            let f: Real = zones.iter().map(|z| z.factor(x, h)).product();
            if f < 1.0 {
                *v *= f;
            }
        };
        if self.pos.len() >= super::PARALLEL_MIN_ROWS {
            self.vel.par_iter_mut().zip(&self.pos).for_each(damp);
        } else {
            self.vel.iter_mut().zip(&self.pos).for_each(damp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_relaxation_grows_quadratically_into_the_zone() {
        let z = DampingZone {
            start: Vec3::new(2.0, 0.0, 0.0),
            end: Vec3::new(4.0, 0.0, 0.0),
            rate: 10.0,
        };
        let h = 0.01;
        assert_eq!(z.factor(&Vec3::new(1.0, 0.3, 0.0), h), 1.0);
        assert_eq!(z.factor(&Vec3::new(2.0, 0.3, 0.0), h), 1.0);
        let half = z.factor(&Vec3::new(3.0, 0.3, 0.0), h);
        assert!((half - (-10.0 * 0.25 * h).exp()).abs() < 1e-15);
        let full = (-10.0 * h).exp();
        assert!((z.factor(&Vec3::new(4.0, 0.0, 0.0), h) - full).abs() < 1e-15);
        assert!((z.factor(&Vec3::new(9.0, 0.0, 0.0), h) - full).abs() < 1e-15);
    }
}
