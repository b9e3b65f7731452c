//! An oscillating series' crossings and peaks: the period and the amplitude lost per period
//! that the study metrics `Period` and `Decay` report ([`super::schema::MetricDef`]).

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
}
