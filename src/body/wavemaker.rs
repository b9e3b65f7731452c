//! Linear wavemaker theory: the paddle stroke that makes a regular wave of a given height and
//! period in water of a given depth.
//!
//! Notation (SI units): water depth `d` (m), wave height `H` (m, crest to trough), period `T`
//! (s), angular frequency `ω = 2π/T` (rad/s), wave number `k` (rad/m), gravity `g` (m/s²),
//! stroke `S` (m, peak to peak of the paddle's displacement at the mean free surface).
//!
//! - **Dispersion** (Dean & Dalrymple, *Water Wave Mechanics for Engineers and Scientists*,
//!   1991, eq. 4.35): `ω² = g k tanh(k d)`, solved for `k` by Newton's method from the deep-water
//!   `k₀ = ω²/g` raised to the shallow-water `ω/√(g d)` where that is larger (the function is
//!   increasing and concave in k, so Newton from above converges monotonically).
//! - **Transfer function** (Biésel; Dean & Dalrymple 1991, §6.2): far from the paddle the
//!   progressive wave has `H/S = 4 sinh(kd) ∫₀^d f(z) k cosh(kz) dz / (sinh 2kd + 2kd)` for a
//!   paddle whose displacement at height `z` above the bottom is `f(z) S/2`:
//!   - piston (`f = 1`): `H/S = 2 (cosh 2kd − 1) / (sinh 2kd + 2kd)` (D&D eq. 6.20);
//!   - flap hinged at height `l` above the bottom (`f = (z − l)/(d − l)` above the hinge, 0
//!     below): `∫ = sinh kd − (cosh kd − cosh kl) / (k (d − l))`, so
//!     `H/S = 4 sinh kd [sinh kd − (cosh kd − cosh kl)/(k(d − l))] / (sinh 2kd + 2kd)`;
//!     (a hinge below the bottom, `l < 0`: `cosh kl` becomes 1, the integral starting at the
//!     bottom); at `l = 0` this is D&D eq. 6.23, `4 (sinh kd / kd)(kd sinh kd − cosh kd + 1)/(sinh 2kd
//!     + 2kd)`. Derived here (the integral of `(z − l) cosh kz`); checked against both limits in
//!     the tests: `l = 0` gives eq. 6.23, `l → d` gives no wave.
//!   The limits: shallow water (`kd → 0`) piston `H/S → kd`, bottom-hinged flap `H/S → kd/2`;
//!   deep water (`kd → ∞`) piston `→ 2`, bottom-hinged flap `→ 2 (1 − 1/kd)`.
//!
//! The evanescent modes near the paddle decay within about a depth of it (D&D §6.2); gauges
//! closer than two depths measure them too.

use crate::math::Real;

/// Which paddle.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Paddle {
    /// Moves as a whole along the flume.
    Piston,
    /// Turns about a hinge `hinge_height` (m) above the bottom.
    Flap {
        /// Height of the hinge above the bottom (m), below the still water level.
        hinge_height: Real,
    },
}

/// The wave number `k` (rad/m) of a wave of angular frequency `omega` (rad/s) in water of depth
/// `depth` (m) under gravity `g` (m/s²): the root of `ω² = g k tanh(kd)`.
pub fn wave_number(omega: Real, depth: Real, g: Real) -> Real {
    let k_deep = omega * omega / g;
    let k_shallow = omega / (g * depth).sqrt();
    // Newton from above: f(k) = g k tanh(kd) − ω² is increasing and concave.
    let mut k = k_deep.max(k_shallow);
    for _ in 0..100 {
        let t = (k * depth).tanh();
        let f = g * k * t - omega * omega;
        let df = g * t + g * k * depth * (1.0 - t * t);
        let dk = f / df;
        k -= dk;
        if dk.abs() <= 1e-15 * k {
            break;
        }
    }
    k
}

/// Wave height over stroke `H/S` of `paddle` at `kd` (dimensionless) in water of depth `depth`
/// (m; only the flap's hinge height needs it).
pub fn height_over_stroke(paddle: Paddle, kd: Real, depth: Real) -> Real {
    let denom = (2.0 * kd).sinh() + 2.0 * kd;
    match paddle {
        Paddle::Piston => 2.0 * ((2.0 * kd).cosh() - 1.0) / denom,
        Paddle::Flap { hinge_height } => {
            // A hinge below the bottom (a flap on a pivot under the floor): the integral runs
            // from the bottom, where the factor is cosh 0 = 1.
            let kl = kd * hinge_height / depth;
            let wet = kd - kl;
            let integral = kd.sinh() - (kd.cosh() - kl.max(0.0).cosh()) / wet;
            4.0 * kd.sinh() * integral / denom
        }
    }
}

/// The wave made by a paddle: its wave number (rad/m), wavelength (m) and the stroke (m, peak to
/// peak at the still water level) for height `height` (m) and period `period` (s) in water of
/// depth `depth` (m) under gravity `g` (m/s²).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Wave {
    /// Wave number k (rad/m).
    pub k: Real,
    /// Wavelength 2π/k (m).
    pub length: Real,
    /// Paddle stroke S (m).
    pub stroke: Real,
}

impl Wave {
    /// The paddle's wave (module docs).
    pub fn new(paddle: Paddle, height: Real, period: Real, depth: Real, g: Real) -> Wave {
        let omega = 2.0 * std::f64::consts::PI / period;
        let k = wave_number(omega, depth, g);
        let ratio = height_over_stroke(paddle, k * depth, depth);
        Wave {
            k,
            length: 2.0 * std::f64::consts::PI / k,
            stroke: height / ratio,
        }
    }

    /// The steepest regular wave of this length in this depth, by Miche's criterion
    /// `H_max = 0.142 L tanh(kd)` (Dean & Dalrymple 1991, §12.2) (m).
    pub fn breaking_height(&self, depth: Real) -> Real {
        0.142 * self.length * (self.k * depth).tanh()
    }
}

/// The ramp factor at time `t` (s) of a ramp lasting `duration` (s): `(1 − cos(π t/T))/2`
/// rising from 0 to 1 with zero slope at both ends, 1 after it (and always 1 when `duration`
/// is 0).
pub fn ramp(t: Real, duration: Real) -> Real {
    if duration <= 0.0 || t >= duration {
        1.0
    } else if t <= 0.0 {
        0.0
    } else {
        0.5 * (1.0 - (std::f64::consts::PI * t / duration).cos())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const G: Real = 9.81;

    #[test]
    fn the_wave_number_solves_the_dispersion_relation() {
        for (omega, d) in [(0.5, 0.3), (5.2, 0.5), (20.0, 2.0), (6.0, 0.05)] {
            let k = wave_number(omega, d, G);
            let r = G * k * (k * d).tanh() - omega * omega;
            assert!(
                r.abs() < 1e-10 * omega * omega,
                "ω {omega}, d {d}: residual {r:e}"
            );
        }
        // Deep water: k = ω²/g.
        let k = wave_number(10.0, 10.0, G);
        assert!((k - 100.0 / G).abs() < 1e-9 * k);
    }

    #[test]
    fn transfer_functions_have_their_limits() {
        let flap = Paddle::Flap { hinge_height: 0.0 };
        for kd in [1e-3, 1e-2] {
            let p = height_over_stroke(Paddle::Piston, kd, 1.0);
            let f = height_over_stroke(flap, kd, 1.0);
            assert!(
                (p / kd - 1.0).abs() < 2.0 * kd,
                "piston shallow {p} at {kd}"
            );
            assert!(
                (f / (0.5 * kd) - 1.0).abs() < 2.0 * kd,
                "flap shallow {f} at {kd}"
            );
        }
        for kd in [15.0, 30.0] {
            assert!((height_over_stroke(Paddle::Piston, kd, 1.0) - 2.0).abs() < 1e-5);
            // Deep water: the bottom-hinged flap approaches 2 (1 − 1/kd).
            let want = 2.0 * (1.0 - 1.0 / kd);
            assert!((height_over_stroke(flap, kd, 1.0) - want).abs() < 1e-6);
        }
        // The bottom-hinged flap is D&D eq. 6.23.
        for kd in [0.3f64, 1.0, 2.5] {
            let d = 0.7;
            let eq623 = 4.0 * (kd.sinh() / kd) * (kd * kd.sinh() - kd.cosh() + 1.0)
                / ((2.0 * kd).sinh() + 2.0 * kd);
            assert!((height_over_stroke(flap, kd, d) - eq623).abs() < 1e-12);
            // A hinge near the surface makes almost no wave; a hinge below the bottom
            // approaches the piston.
            let high = height_over_stroke(
                Paddle::Flap {
                    hinge_height: 0.999 * d,
                },
                kd,
                d,
            );
            assert!(high < 2e-3 * height_over_stroke(Paddle::Piston, kd, d));
            let deep = height_over_stroke(
                Paddle::Flap {
                    hinge_height: -1e4 * d,
                },
                kd,
                d,
            );
            assert!((deep / height_over_stroke(Paddle::Piston, kd, d) - 1.0).abs() < 1e-3);
        }
    }

    #[test]
    fn a_ramp_rises_smoothly_from_zero_to_one() {
        assert_eq!(ramp(-1.0, 2.0), 0.0);
        assert_eq!(ramp(0.0, 2.0), 0.0);
        assert!((ramp(1.0, 2.0) - 0.5).abs() < 1e-15);
        assert_eq!(ramp(2.0, 2.0), 1.0);
        assert_eq!(ramp(0.0, 0.0), 1.0);
    }
}
