//! An oscillating series' crossings and peaks: the period and the amplitude lost per period
//! that the study metrics `Period` and `Decay` report; and a least-squares damped sine, whose
//! damping ratio and damped period the metrics `DampingRatio` and `DampedPeriod` report
//! ([`super::schema::MetricDef`]).
//!
//! The damped sine of a linear oscillator released from rest (e.g. a floating body's free heave
//! decay): `y(t) = c + e^(−σt) (a cos ω_d t + b sin ω_d t)`, with damping ratio
//! `ζ = σ / √(σ² + ω_d²)` and natural frequency `ω_n = √(σ² + ω_d²)` (rad/s). A free-decay
//! test's log decrement per period is `δ = 2π ζ / √(1 − ζ²)`.

/// The fraction of an amplitude lost per period from successive peaks: `1 − e^s`, s the
/// least-squares slope of `ln p_n` over n (all peaks count, so one noisy peak at either end
/// does not set it); NaN with fewer than two positive peaks.
pub fn loss_per_period(peaks: &[f64]) -> f64 {
    let pts: Vec<(f64, f64)> = peaks
        .iter()
        .enumerate()
        .filter(|(_, p)| **p > 0.0)
        .map(|(n, p)| (n as f64, p.ln()))
        .collect();
    if pts.len() < 2 {
        return f64::NAN;
    }
    let m = pts.len() as f64;
    let (mx, my) = (
        pts.iter().map(|p| p.0).sum::<f64>() / m,
        pts.iter().map(|p| p.1).sum::<f64>() / m,
    );
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    1.0 - (sxy / sxx).exp()
}

/// The upward crossings (s, interpolated) of a series `(t, v)` through its mean, and the
/// largest deviation from the mean between each two successive crossings. Noise does not
/// add crossings: after one, the next counts only once the series has been below the mean
/// by a twentieth of its largest deviation in the window (a hysteresis band).
pub fn oscillation(s: &[(f64, f64)]) -> (Vec<f64>, Vec<f64>) {
    let mean = s.iter().map(|p| p.1).sum::<f64>() / s.len().max(1) as f64;
    let band = 0.05 * s.iter().map(|p| (p.1 - mean).abs()).fold(0.0, f64::max);
    let (mut up, mut peaks, mut peak) = (Vec::new(), Vec::new(), 0.0f64);
    let mut armed = false;
    for w in s.windows(2) {
        let ((t0, y0), (t1, y1)) = ((w[0].0, w[0].1 - mean), (w[1].0, w[1].1 - mean));
        peak = peak.max(y1.abs());
        armed |= y1 < -band;
        if armed && y0 < 0.0 && y1 >= 0.0 {
            if !up.is_empty() {
                peaks.push(peak);
            }
            up.push(t0 + (t1 - t0) * (-y0) / (y1 - y0));
            peak = 0.0;
            armed = false;
        }
    }
    (up, peaks)
}

/// A damped sine fitted to a series by least squares ([`damped_fit`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DampedSine {
    /// Decay rate σ (1/s); negative for a growing oscillation.
    pub rate: f64,
    /// Damped angular frequency ω_d (rad/s).
    pub omega: f64,
    /// Mean c (the series' unit).
    pub mean: f64,
    /// Amplitude √(a² + b²) at the window's start (the series' unit).
    pub amplitude: f64,
    /// RMS of the residual over the RMS of the series about c (0: a perfect damped sine).
    pub misfit: f64,
}

impl DampedSine {
    /// Damping ratio ζ = σ / √(σ² + ω_d²) (dimensionless).
    pub fn ratio(&self) -> f64 {
        self.rate / self.rate.hypot(self.omega)
    }

    /// Damped period 2π / ω_d (s).
    pub fn period(&self) -> f64 {
        std::f64::consts::TAU / self.omega
    }
}

/// For a decay rate and frequency, the linear least-squares fit of `c`, `a`, `b` to the series
/// (t counted from the window's start) and the sum of squared residuals; `None` when the three
/// basis functions are not independent on the samples.
fn linear_part(s: &[(f64, f64)], rate: f64, omega: f64) -> Option<([f64; 3], f64)> {
    let t0 = s.first()?.0;
    let basis = |t: f64| {
        let e = (-rate * (t - t0)).exp();
        let (sn, cs) = (omega * (t - t0)).sin_cos();
        [1.0, e * cs, e * sn]
    };
    let (mut m, mut r) = (
        nalgebra::Matrix3::<f64>::zeros(),
        nalgebra::Vector3::<f64>::zeros(),
    );
    for &(t, y) in s {
        let f = nalgebra::Vector3::from(basis(t));
        m += f * f.transpose();
        r += f * y;
    }
    let x = m.cholesky()?.solve(&r);
    let sse = s
        .iter()
        .map(|&(t, y)| {
            let f = basis(t);
            (y - f[0] * x[0] - f[1] * x[1] - f[2] * x[2]).powi(2)
        })
        .sum();
    Some(([x[0], x[1], x[2]], sse))
}

/// The damped sine `c + e^(−σt)(a cos ω_d t + b sin ω_d t)` closest to the series `(t, v)` in
/// least squares: c, a and b solved linearly for each (σ, ω_d) (variable projection), σ and
/// ω_d found by a grid search — ω_d from one period over the window to a tenth of the
/// sampling's Nyquist frequency, σ from −ω_d/4 to 2ω_d — refined by a shrinking pattern
/// search. `None` for fewer than eight samples, a constant series, or a window shorter than
/// half a period of every frequency tried.
pub fn damped_fit(s: &[(f64, f64)]) -> Option<DampedSine> {
    if s.len() < 8 {
        return None;
    }
    let span = s[s.len() - 1].0 - s[0].0;
    let dt = span / (s.len() - 1) as f64;
    let mean = s.iter().map(|p| p.1).sum::<f64>() / s.len() as f64;
    let total: f64 = s.iter().map(|p| (p.1 - mean).powi(2)).sum();
    if !(span > 0.0 && total > 0.0 && total.is_finite()) {
        return None;
    }
    let (lo, hi) = (
        std::f64::consts::TAU / span,
        0.1 * std::f64::consts::PI / dt,
    );
    if hi <= lo {
        return None;
    }
    let sse = |rate: f64, omega: f64| linear_part(s, rate, omega).map_or(f64::INFINITY, |f| f.1);
    // Grid: ω log-spaced, σ as a multiple of ω (so the grid covers every ratio alike).
    let mut best = (f64::INFINITY, lo, 0.0);
    for i in 0..120 {
        let omega = lo * (hi / lo).powf(i as f64 / 119.0);
        for j in 0..24 {
            let rate = omega * (-0.25 + 2.25 * j as f64 / 23.0);
            let e = sse(rate, omega);
            if e < best.0 {
                best = (e, omega, rate);
            }
        }
    }
    let (mut e, mut omega, mut rate) = best;
    let (mut dw, mut dr) = (0.05 * omega, 0.1 * omega);
    for _ in 0..200 {
        let mut moved = false;
        for (w, r) in [
            (omega + dw, rate),
            (omega - dw, rate),
            (omega, rate + dr),
            (omega, rate - dr),
        ] {
            let f = if w > 0.0 { sse(r, w) } else { f64::INFINITY };
            if f < e {
                (e, omega, rate, moved) = (f, w, r, true);
            }
        }
        if !moved {
            (dw, dr) = (0.5 * dw, 0.5 * dr);
            if dw < 1e-9 * omega && dr < 1e-9 * omega {
                break;
            }
        }
    }
    let (x, sse) = linear_part(s, rate, omega)?;
    Some(DampedSine {
        rate,
        omega,
        mean: x[0],
        amplitude: x[1].hypot(x[2]),
        misfit: (sse / total).sqrt(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A damped sine's period and its amplitude lost per period, from samples.
    #[test]
    fn oscillation_finds_the_period_and_the_decay_of_a_damped_sine() {
        let s: Vec<(f64, f64)> = (0..4000)
            .map(|k| {
                let t = k as f64 * 1e-3;
                (
                    t,
                    2.0 + (-0.1 * t).exp() * (2.0 * std::f64::consts::PI * t / 0.5).sin(),
                )
            })
            .collect();
        let (up, peaks) = oscillation(&s);
        let period = (up[up.len() - 1] - up[0]) / (up.len() - 1) as f64;
        assert!((period - 0.5).abs() < 1e-3, "period {period}");
        let decay = loss_per_period(&peaks);
        assert!(
            (decay - (1.0 - (-0.05f64).exp())).abs() < 2e-3,
            "decay {decay}"
        );
    }

    /// Noise at ten times the signal's frequency and a tenth of its amplitude adds no
    /// crossing, and moves neither the period nor the decay much.
    #[test]
    fn oscillation_is_not_fooled_by_ripples() {
        let tau = 2.0 * std::f64::consts::PI;
        let s: Vec<(f64, f64)> = (0..6000)
            .map(|k| {
                let t = k as f64 * 1e-3;
                let a = (-0.2 * t).exp();
                (
                    t,
                    a * (tau * t).sin() + 0.1 * a * (tau * 10.3 * t + 0.7).sin(),
                )
            })
            .collect();
        let (up, peaks) = oscillation(&s);
        assert_eq!(up.len(), 5, "{up:?}");
        let period = (up[up.len() - 1] - up[0]) / (up.len() - 1) as f64;
        assert!((period - 1.0).abs() < 0.01, "period {period}");
        let decay = loss_per_period(&peaks);
        assert!(
            (decay - (1.0 - (-0.2f64).exp())).abs() < 0.02,
            "decay {decay}"
        );
    }

    /// A heavily damped sine (ζ = 0.15, as a floating body's heave) over two periods, with a
    /// mean and a phase, sampled every 10 ms: its ratio, period and mean come back.
    #[test]
    fn damped_fit_recovers_a_heavily_damped_sine() {
        let (zeta, wn) = (0.15f64, 5.37f64);
        let wd = wn * (1.0 - zeta * zeta).sqrt();
        let s: Vec<(f64, f64)> = (0..250)
            .map(|k| {
                let t = 0.3 + k as f64 * 0.01;
                let y = 0.9 + 0.04 * (-zeta * wn * t).exp() * (wd * t + 0.4).cos();
                (t, y)
            })
            .collect();
        let f = damped_fit(&s).unwrap();
        assert!((f.ratio() - zeta).abs() < 1e-6, "{f:?}");
        assert!(
            (f.period() - std::f64::consts::TAU / wd).abs() < 1e-6,
            "{f:?}"
        );
        assert!((f.mean - 0.9).abs() < 1e-9 && f.misfit < 1e-6, "{f:?}");
    }

    /// Noise at a tenth of the first amplitude moves the ratio by under 0.02; an undamped sine
    /// gives zero; a growing one a negative ratio; a constant no fit.
    #[test]
    fn damped_fit_is_robust_and_signed() {
        let noisy: Vec<(f64, f64)> = (0..400)
            .map(|k| {
                let t = k as f64 * 0.01;
                let n = 0.1 * ((k * 7919 % 101) as f64 / 50.0 - 1.0);
                (t, (-0.5 * t).exp() * (4.0 * t).cos() + n * (-0.5 * t).exp())
            })
            .collect();
        let f = damped_fit(&noisy).unwrap();
        let zeta = 0.5 / 0.5f64.hypot(4.0);
        assert!((f.ratio() - zeta).abs() < 0.02, "{f:?}");
        let sine: Vec<(f64, f64)> = (0..300)
            .map(|k| (k as f64 * 0.01, (3.0 * k as f64 * 0.01).sin()))
            .collect();
        assert!(damped_fit(&sine).unwrap().ratio().abs() < 1e-6);
        let grow: Vec<(f64, f64)> = (0..300)
            .map(|k| {
                let t = k as f64 * 0.01;
                (t, (0.2 * t).exp() * (3.0 * t).sin())
            })
            .collect();
        assert!(damped_fit(&grow).unwrap().ratio() < -0.05);
        let flat: Vec<(f64, f64)> = (0..300).map(|k| (k as f64 * 0.01, 1.0)).collect();
        assert!(damped_fit(&flat).is_none());
    }
}
