//! Wave analysis of gauge records: the first harmonic of a record, and the incident and
//! reflected waves from two gauges (Goda & Suzuki 1976, "Estimation of incident and reflected
//! waves in random wave experiments", Proc. 15th Coastal Engineering Conference, for one
//! frequency).
//!
//! A regular wave of angular frequency ω (rad/s) and wave number k (rad/m) travelling along +x
//! with its reflection has the elevation (m)
//!
//! `η(x, t) = Re[(a_I e^{−ikx} + a_R e^{ikx}) e^{iωt}]`,
//!
//! so the first harmonics `A_1`, `A_2` (complex, m) at gauges `x_1`, `x_2` give `a_I` and
//! `a_R` by a 2×2 solve whose determinant is `2i sin(k (x_2 − x_1))`: the gauges must not be
//! a multiple of half a wavelength apart (Goda & Suzuki: `0.05 < Δx/L < 0.45`). The
//! reflection coefficient is `|a_R| / |a_I|`; wave heights are twice the amplitudes.

use crate::math::Real;

/// A complex amplitude (m).
pub type Complex = nalgebra::Complex<Real>;

/// The first harmonic `A` (m, complex) of the record `(t, y)` at angular frequency `omega`
/// (rad/s), such that `y ≈ c + Re(A e^{iωt})`: a least-squares fit of `c + a cos ωt + b sin ωt`
/// (then `A = a − i b`). NaN samples are skipped; `None` with fewer than 3 samples or a
/// singular fit.
pub fn harmonic(t: &[Real], y: &[Real], omega: Real) -> Option<Complex> {
    // Normal equations of the three-column fit.
    let mut m = [[0.0; 3]; 3];
    let mut r = [0.0; 3];
    let mut n = 0;
    for (&ti, &yi) in t.iter().zip(y) {
        if !yi.is_finite() {
            continue;
        }
        let f = [1.0, (omega * ti).cos(), (omega * ti).sin()];
        for i in 0..3 {
            for j in 0..3 {
                m[i][j] += f[i] * f[j];
            }
            r[i] += f[i] * yi;
        }
        n += 1;
    }
    if n < 3 {
        return None;
    }
    let m = nalgebra::Matrix3::from_fn(|i, j| m[i][j]);
    let sol = m.lu().solve(&nalgebra::Vector3::new(r[0], r[1], r[2]))?;
    Some(Complex::new(sol[1], -sol[2]))
}

/// Incident and reflected complex amplitudes (m) from the first harmonics `a1`, `a2` at gauges
/// `x1`, `x2` (m) of a wave of number `k` (rad/m) travelling along +x (module docs); `None`
/// when the gauges are a multiple of half a wavelength apart.
pub fn separate(
    a1: Complex,
    a2: Complex,
    k: Real,
    x1: Real,
    x2: Real,
) -> Option<(Complex, Complex)> {
    // [e^{−ikx1} e^{ikx1}; e^{−ikx2} e^{ikx2}] (aI, aR) = (a1, a2), by Cramer's rule.
    let e = |phi: Real| Complex::from_polar(1.0, phi);
    let (p1, q1, p2, q2) = (e(-k * x1), e(k * x1), e(-k * x2), e(k * x2));
    let det = p1 * q2 - q1 * p2;
    if det.norm() < 1e-6 {
        return None;
    }
    Some(((a1 * q2 - q1 * a2) / det, (p1 * a2 - a1 * p2) / det))
}

/// The modulus of a complex amplitude (m).
pub fn modulus(a: Complex) -> Real {
    a.norm()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_gauges_separate_a_wave_from_its_reflection() {
        let (omega, k) = (5.0, 2.5);
        let (ai, ar) = (0.02, 0.004);
        let (x1, x2) = (1.5, 1.9);
        let record = |x: Real| -> (Vec<Real>, Vec<Real>) {
            (0..400)
                .map(|n| {
                    let t = n as Real * 0.01;
                    let y = 0.001
                        + ai * (omega * t - k * x + 0.3).cos()
                        + ar * (omega * t + k * x - 1.1).cos();
                    (t, y)
                })
                .unzip()
        };
        let (t, y1) = record(x1);
        let (_, y2) = record(x2);
        let a1 = harmonic(&t, &y1, omega).unwrap();
        let a2 = harmonic(&t, &y2, omega).unwrap();
        let (i, r) = separate(a1, a2, k, x1, x2).unwrap();
        assert!((modulus(i) - ai).abs() < 1e-12, "{}", modulus(i));
        assert!((modulus(r) - ar).abs() < 1e-12, "{}", modulus(r));
        // Gauges half a wavelength apart cannot separate them.
        let half = std::f64::consts::PI / k;
        assert!(separate(a1, a2, k, x1, x1 + half).is_none());
    }
}
