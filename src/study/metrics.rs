//! The numbers taken from each case ([`MetricDef`]) and the references they are compared
//! with ([`super::references`]). Everything here is computed from what a case left on disk
//! (its series and run numbers), so a changed metric never reruns a case.
//!
//! Units: series in SI (s, m, N, ...); a data reference in its own units, reached from the
//! simulation's by its `x_scale` and `y_scale` (e.g. the dam-break front's T = t √(2g/L),
//! Z = x/L with L the column width).

pub use super::derived::Calibration;
pub use super::oscillation::{loss_per_period, oscillation};
pub use super::references::{load_references, Reference};
use super::result::{RunNumbers, Status};
use super::schema::{Frequency, MetricDef, Norm, RunMetric};
use crate::runner::Series;

/// The name a metric has in the table.
pub fn name(m: &MetricDef) -> String {
    let or = |n: &Option<String>, d: String| n.clone().unwrap_or(d);
    match m {
        MetricDef::Final { column, name } => or(name, column.clone()),
        MetricDef::Mean { column, name, .. } => or(name, format!("mean({column})")),
        MetricDef::Max { column, name, .. } => or(name, format!("max({column})")),
        MetricDef::Min { column, name, .. } => or(name, format!("min({column})")),
        MetricDef::Amplitude { column, name, .. } => or(name, format!("amplitude({column})")),
        MetricDef::Error {
            column,
            reference,
            name,
            ..
        } => or(name, format!("error({column}, {reference})")),
        MetricDef::Deviation { metric, name, .. } => or(name, format!("deviation({metric})")),
        MetricDef::Over {
            metric, by, name, ..
        } => or(name, format!("{metric}/{by}")),
        MetricDef::Drift { column, name } => or(name, format!("drift({column})")),
        MetricDef::Period { column, name, .. } => or(name, format!("period({column})")),
        MetricDef::Decay { column, name, .. } => or(name, format!("decay({column})")),
        MetricDef::DampingRatio { column, name, .. } => {
            or(name, format!("damping_ratio({column})"))
        }
        MetricDef::DampedPeriod { column, name, .. } => {
            or(name, format!("damped_period({column})"))
        }
        MetricDef::Field { field, name, .. } => or(name, field.clone()),
        MetricDef::Run(r) => run_name(*r).to_string(),
    }
}

/// The column name of a run metric.
pub fn run_name(r: RunMetric) -> &'static str {
    match r {
        RunMetric::WallTime => "wall_s",
        RunMetric::TimePerStep => "ms_per_step",
        RunMetric::WallPerSimSecond => "wall_per_sim_s",
        RunMetric::Steps => "steps",
        RunMetric::MeanIterations => "mean_iterations",
        RunMetric::FirstIterations => "first_iterations",
        RunMetric::StepsAtCap => "steps_at_cap",
        RunMetric::LargestCompression => "max_compression_pct",
        RunMetric::MeanSubsteps => "mean_substeps",
        RunMetric::PressureIterations => "pressure_iterations",
        RunMetric::ImpulsesPerStep => "impulses_per_step",
        RunMetric::Particles => "particles",
        RunMetric::MaxResidual => "max_residual",
    }
}

/// The default metrics: cost and accuracy of any run.
pub fn default_metrics() -> Vec<MetricDef> {
    [
        RunMetric::WallTime,
        RunMetric::TimePerStep,
        RunMetric::MeanIterations,
        RunMetric::StepsAtCap,
        RunMetric::LargestCompression,
    ]
    .into_iter()
    .map(MetricDef::Run)
    .collect()
}

fn run_value(r: RunMetric, n: &RunNumbers) -> f64 {
    let steps = n.steps.max(1) as f64;
    match r {
        RunMetric::WallTime => n.wall_s,
        RunMetric::TimePerStep => 1e3 * n.wall_s / steps,
        RunMetric::WallPerSimSecond => n.wall_s / n.sim_time.max(f64::MIN_POSITIVE),
        RunMetric::Steps => n.steps as f64,
        RunMetric::MeanIterations => n.mean_iterations,
        RunMetric::FirstIterations => n.first_iterations as f64,
        RunMetric::StepsAtCap => n.steps_at_cap as f64,
        RunMetric::LargestCompression => 100.0 * n.max_compression,
        RunMetric::MeanSubsteps => n.mean_substeps,
        RunMetric::PressureIterations => n.pressure_iterations,
        RunMetric::ImpulsesPerStep => n.impulses as f64 / steps,
        RunMetric::Particles => n.particles as f64,
        RunMetric::MaxResidual => n.max_residual,
    }
}

/// What one case gives the metrics.
pub struct CaseData<'a> {
    /// How it ended.
    pub status: &'a Status,
    /// Its run numbers.
    pub numbers: &'a RunNumbers,
    /// Its series.
    pub series: Option<&'a Series>,
    /// Its model (for field values).
    pub model: Option<&'a crate::model::Model>,
    /// An earlier metric of its calibration case: `(case's (axis, level) pairs, metric name)`
    /// → the value ([`MetricDef::Over`]); `None` in the pass before calibration cases are known.
    pub calibration: Option<Calibration<'a>>,
}

/// The metrics of one case, in order: a value or why there is none.
pub fn compute(
    defs: &[MetricDef],
    refs: &[Reference],
    case: &CaseData,
) -> Vec<Result<f64, String>> {
    let mut out: Vec<(String, Result<f64, String>)> = Vec::new();
    for d in defs {
        let v = if let Status::Failed(_) = case.status {
            Err("failed".to_string())
        } else {
            one(d, refs, case, &out)
        };
        out.push((name(d), v));
    }
    out.into_iter().map(|(_, v)| v).collect()
}

fn column<'a>(s: Option<&'a Series>, c: &str) -> Result<(&'a [f64], &'a [f64]), String> {
    let s = s.ok_or("the case has no series")?;
    let v = s
        .column(c)
        .ok_or_else(|| format!("no probe column `{c}` (columns: {})", s.columns.join(", ")))?;
    Ok((&s.time, v))
}

fn window<'a>(
    t: &'a [f64],
    v: &'a [f64],
    from: Option<f64>,
    to: Option<f64>,
) -> impl Iterator<Item = f64> + 'a {
    let (a, b) = (
        from.unwrap_or(f64::NEG_INFINITY),
        to.unwrap_or(f64::INFINITY),
    );
    t.iter()
        .zip(v)
        .filter(move |(t, _)| **t >= a - 1e-12 && **t <= b + 1e-12)
        .map(|(_, v)| *v)
}

fn nonempty(v: Vec<f64>) -> Result<Vec<f64>, String> {
    if v.is_empty() {
        Err("no sample inside the window".into())
    } else {
        Ok(v)
    }
}

fn one(
    d: &MetricDef,
    refs: &[Reference],
    case: &CaseData,
    done: &[(String, Result<f64, String>)],
) -> Result<f64, String> {
    let reference = |r: &str| {
        refs.iter()
            .find(|x| x.name == r)
            .ok_or_else(|| format!("no reference named `{r}`"))
    };
    let model = || {
        case.model
            .ok_or_else(|| "the case's model is not available".to_string())
    };
    match d {
        MetricDef::Final { column: c, .. } => column(case.series, c)?
            .1
            .last()
            .copied()
            .ok_or_else(|| "no samples".into()),
        MetricDef::Mean {
            column: c,
            from,
            to,
            ..
        }
        | MetricDef::Max {
            column: c,
            from,
            to,
            ..
        }
        | MetricDef::Min {
            column: c,
            from,
            to,
            ..
        } => {
            let (t, v) = column(case.series, c)?;
            let w = nonempty(window(t, v, *from, *to).collect())?;
            Ok(match d {
                MetricDef::Max { .. } => w.into_iter().fold(f64::NEG_INFINITY, f64::max),
                MetricDef::Min { .. } => w.into_iter().fold(f64::INFINITY, f64::min),
                _ => w.iter().sum::<f64>() / w.len() as f64,
            })
        }
        MetricDef::Amplitude { .. } => amplitude_metric(d, case),
        MetricDef::Error {
            column: c,
            reference: r,
            norm,
            from,
            until,
            ..
        } => {
            let (t, v) = column(case.series, c)?;
            point_error(t, v, reference(r)?, *norm, (*from, *until))
        }
        MetricDef::Deviation {
            metric,
            reference: r,
            x,
            ..
        } => super::derived::deviation(done, metric, reference(r), x.as_deref(), model),
        MetricDef::Over {
            metric,
            by,
            case: c,
            ..
        } => super::derived::over(done, metric, by, c, case.calibration),
        MetricDef::Period { .. }
        | MetricDef::Decay { .. }
        | MetricDef::DampingRatio { .. }
        | MetricDef::DampedPeriod { .. } => oscillation_metric(d, case),
        MetricDef::Drift { column: c, .. } => {
            let (_, v) = column(case.series, c)?;
            let (a, b) = (
                v.first().ok_or("no samples")?,
                v.last().ok_or("no samples")?,
            );
            Ok((b - a) / a.abs())
        }
        MetricDef::Field { field, scale, .. } => {
            Ok(super::expand::field_number(model()?, field)? * scale.map_or(1.0, |s| s.0))
        }
        MetricDef::Run(r) => Ok(run_value(*r, case.numbers)),
    }
}

/// A metric of an oscillating column: `Period`, `Decay`, `DampingRatio` or `DampedPeriod`.
fn oscillation_metric(d: &MetricDef, case: &CaseData) -> Result<f64, String> {
    let (column, minus, from, to) = match d {
        MetricDef::Period {
            column,
            minus,
            from,
            to,
            ..
        }
        | MetricDef::Decay {
            column,
            minus,
            from,
            to,
            ..
        }
        | MetricDef::DampingRatio {
            column,
            minus,
            from,
            to,
            ..
        }
        | MetricDef::DampedPeriod {
            column,
            minus,
            from,
            to,
            ..
        } => (column, minus, from, to),
        _ => return Err("not an oscillation metric".into()),
    };
    let (c, w) = ((column.as_str(), minus.as_deref()), (*from, *to));
    match d {
        MetricDef::Period { .. } => periodic(case, c, w, false),
        MetricDef::Decay { .. } => periodic(case, c, w, true),
        MetricDef::DampingRatio { .. } => damped(case, c, w).map(|f| f.ratio()),
        _ => damped(case, c, w).map(|f| f.period()),
    }
}

/// The mean period (s) of column `c` over the window, or (`decay`) the fraction of its
/// amplitude lost per period ([`MetricDef::Period`], [`MetricDef::Decay`]).
fn periodic(
    case: &CaseData,
    (c, minus): (&str, Option<&str>),
    (from, to): (Option<f64>, Option<f64>),
    decay: bool,
) -> Result<f64, String> {
    let w = signal_window(case, (c, minus), (from, to))?;
    let (up, peaks) = oscillation(&w);
    if decay && peaks.len() >= 2 {
        Ok(loss_per_period(&peaks))
    } else if !decay && up.len() >= 2 {
        Ok((up[up.len() - 1] - up[0]) / (up.len() - 1) as f64)
    } else {
        Err(format!("`{c}` does not oscillate in the window"))
    }
}

/// The samples `(t, v)` of column `c` (or half its difference with `minus`) in the window.
fn signal_window(
    case: &CaseData,
    (c, minus): (&str, Option<&str>),
    (from, to): (Option<f64>, Option<f64>),
) -> Result<Vec<(f64, f64)>, String> {
    let (t, v) = column(case.series, c)?;
    let other = match minus {
        Some(m) => Some(column(case.series, m)?.1),
        None => None,
    };
    Ok(t.iter()
        .zip(v)
        .enumerate()
        .filter(|(_, (t, _))| from.is_none_or(|f| **t >= f) && to.is_none_or(|e| **t <= e))
        .map(|(k, (t, v))| (*t, other.map_or(*v, |o| 0.5 * (v - o[k]))))
        .collect())
}

/// The damped sine fitted to column `c` over the window ([`MetricDef::DampingRatio`],
/// [`MetricDef::DampedPeriod`]); an error where there is none, or where it explains less than
/// three quarters of the signal's variance about its mean (the window holds no decaying
/// oscillation).
fn damped(
    case: &CaseData,
    (c, minus): (&str, Option<&str>),
    (from, to): (Option<f64>, Option<f64>),
) -> Result<super::oscillation::DampedSine, String> {
    let w = signal_window(case, (c, minus), (from, to))?;
    let f = super::oscillation::damped_fit(&w)
        .ok_or_else(|| format!("`{c}` does not oscillate in the window"))?;
    if f.misfit > 0.5 {
        return Err(format!(
            "`{c}` is not a damped sine in the window (the fit leaves {:.0} % of its RMS)",
            100.0 * f.misfit
        ));
    }
    Ok(f)
}

/// An `Amplitude` metric `d` of `case` ([`MetricDef::Amplitude`]).
fn amplitude_metric(d: &MetricDef, case: &CaseData) -> Result<f64, String> {
    let MetricDef::Amplitude {
        column: c,
        frequency,
        from,
        free,
        over,
        ..
    } = d
    else {
        return Err("not an amplitude".into());
    };
    let model = || {
        case.model
            .ok_or_else(|| "the case's model is not available".to_string())
    };
    let (t, v) = column(case.series, c)?;
    let f = match frequency {
        Frequency::Hz(n) => n.0,
        Frequency::Field(p) => super::expand::field_number(model()?, p)?,
        Frequency::Period(p) => 1.0 / super::expand::field_number(model()?, p)?,
    };
    let free: Vec<f64> = free.iter().map(|n| n.0).collect();
    let over = over
        .as_deref()
        .map(|o| column(case.series, o))
        .transpose()?;
    amplitude_over(t, v, over, f, &free, from.unwrap_or(0.0))
}

/// The amplitude of (t, v) at `f` Hz over t ≥ `from`, divided by that of `over` (same window and
/// frequency) when given.
fn amplitude_over(
    t: &[f64],
    v: &[f64],
    over: Option<(&[f64], &[f64])>,
    f: f64,
    free: &[f64],
    from: f64,
) -> Result<f64, String> {
    let a = amplitude(t, v, f, free, from)?;
    match over {
        None => Ok(a),
        Some((t, v)) => Ok(a / amplitude(t, v, f, free, from)?),
    }
}

/// Least-squares amplitude at `f` Hz of (t, v) over t ≥ `from` (see [`MetricDef::Amplitude`]).
pub fn amplitude(t: &[f64], v: &[f64], f: f64, free: &[f64], from: f64) -> Result<f64, String> {
    let freqs: Vec<f64> = std::iter::once(f)
        .chain(free.iter().copied())
        .map(|f| 2.0 * std::f64::consts::PI * f)
        .collect();
    let n = 2 * freqs.len() + 1;
    let (mut a, mut r) = (
        nalgebra::DMatrix::<f64>::zeros(n, n),
        nalgebra::DVector::<f64>::zeros(n),
    );
    let mut count = 0;
    for (&t, &y) in t.iter().zip(v).filter(|(t, _)| **t >= from) {
        let mut b = nalgebra::DVector::<f64>::zeros(n);
        for (k, w) in freqs.iter().enumerate() {
            b[2 * k] = (w * t).sin();
            b[2 * k + 1] = (w * t).cos();
        }
        b[n - 1] = 1.0;
        a += &b * b.transpose();
        r += b * y;
        count += 1;
    }
    if count < n {
        return Err(format!(
            "{count} samples after t = {from} s: too few for the fit ({n} unknowns)"
        ));
    }
    let x = a
        .lu()
        .solve(&r)
        .ok_or("the fit is singular (frequencies too close for the window)")?;
    Ok(x[0].hypot(x[1]))
}

/// The error of (t, v) against a reference: at its data points (interpolated), or with its
/// formula at every sample; abscissae within `window` (reference units) only.
pub fn point_error(
    t: &[f64],
    v: &[f64],
    r: &Reference,
    norm: Norm,
    window: (Option<f64>, Option<f64>),
) -> Result<f64, String> {
    let inside = |x: f64| window.0.is_none_or(|a| x >= a) && window.1.is_none_or(|b| x <= b);
    let mut e = Vec::new();
    if r.function.is_some() {
        for (&t, &y) in t.iter().zip(v) {
            let x = t * r.x_scale;
            if let Some(f) = r.eval(x).filter(|_| inside(x)) {
                e.push((y * r.y_scale - f, f));
            }
        }
    }
    for &(xr, yr) in r.points.iter().filter(|p| inside(p.0)) {
        let ts = xr / r.x_scale;
        let Some(k) = t.iter().position(|&x| x >= ts) else {
            continue;
        };
        let y = if k == 0 {
            if (t[0] - ts).abs() > 1e-12 {
                continue;
            }
            v[0]
        } else {
            v[k - 1] + (v[k] - v[k - 1]) * (ts - t[k - 1]) / (t[k] - t[k - 1])
        };
        e.push((y * r.y_scale - yr, yr));
    }
    if e.is_empty() {
        return Err(format!(
            "no point of reference `{}` falls inside the run",
            r.name
        ));
    }
    let n = e.len() as f64;
    Ok(match norm {
        Norm::MeanRelative => e.iter().map(|(d, y)| (d / y).abs()).sum::<f64>() / n,
        Norm::MaxRelative => e.iter().map(|(d, y)| (d / y).abs()).fold(0.0, f64::max),
        Norm::Rms => (e.iter().map(|(d, _)| d * d).sum::<f64>() / n).sqrt(),
        Norm::MaxAbs => e.iter().map(|(d, _)| d.abs()).fold(0.0, f64::max),
    })
}

#[cfg(test)]
mod tests {
    use super::super::schema::Source;
    use super::*;

    fn reference(points: Vec<(f64, f64)>, x_scale: f64, y_scale: f64) -> Reference {
        Reference {
            name: "r".into(),
            legend: "r".into(),
            x_scale,
            y_scale,
            labels: Default::default(),
            points,
            function: None,
        }
    }

    #[test]
    fn error_against_points_of_a_known_series() {
        // The series y = 2t (m) sampled every 0.1 s; the reference in units X = 10 t, Y = y/2
        // is Y = X/10 · 1.1: 10 % above everywhere.
        let t: Vec<f64> = (0..=10).map(|k| k as f64 * 0.1).collect();
        let v: Vec<f64> = t.iter().map(|t| 2.0 * t).collect();
        let pts: Vec<(f64, f64)> = [1.5, 3.0, 7.25, 12.0]
            .iter()
            .map(|&x| (x, 1.1 * x / 10.0))
            .collect();
        let r = reference(pts, 10.0, 0.5);
        let rel = point_error(&t, &v, &r, Norm::MeanRelative, (None, None)).unwrap();
        assert!((rel - 0.1 / 1.1).abs() < 1e-12, "{rel}");
        let max_abs = point_error(&t, &v, &r, Norm::MaxAbs, (None, None)).unwrap();
        assert!((max_abs - 0.1 * 0.725).abs() < 1e-12, "{max_abs}");
        // `until` drops the points after X = 3.
        let rms = point_error(&t, &v, &r, Norm::Rms, (None, Some(3.0))).unwrap();
        let want = ((0.015f64.powi(2) + 0.03f64.powi(2)) / 2.0).sqrt();
        assert!((rms - want).abs() < 1e-12, "{rms} {want}");
        assert!(point_error(
            &t,
            &v,
            &reference(vec![(50.0, 1.0)], 1.0, 1.0),
            Norm::Rms,
            (None, None)
        )
        .is_err());
    }

    #[test]
    fn amplitude_of_a_known_signal() {
        let t: Vec<f64> = (0..4000).map(|k| k as f64 * 0.005).collect();
        let w = |f: f64, t: f64| (2.0 * std::f64::consts::PI * f * t).sin();
        let v: Vec<f64> = t
            .iter()
            .map(|&t| 3.0 * w(0.75, t + 0.1) + 0.8 * w(1.09, t) + 5.0)
            .collect();
        let a = amplitude(&t, &v, 0.75, &[1.09], 1.0).unwrap();
        assert!((a - 3.0).abs() < 1e-9, "{a}");
        assert!(amplitude(&t[..2], &v[..2], 0.75, &[], 0.0).is_err());
    }

    #[test]
    fn dodge_matches_the_sloshing_models_figure() {
        let n = super::super::schema::Num;
        let r = Reference {
            function: Some(Source::Dodge {
                width: n(0.6),
                depth: n(0.3),
                amplitude: n(0.1),
                density: n(1000.0),
                gravity: None,
            }),
            ..reference(vec![], 1.0, 1.0)
        };
        // The model's header: 1.43 times the rigid mass' force, 570 N/m.
        let f = r.eval(0.75).unwrap();
        assert!((f - 570.0).abs() < 5.0, "{f}");
    }

    #[test]
    fn poiseuille_energy_tends_to_the_parabolas() {
        let n = super::super::schema::Num;
        let r = Reference {
            function: Some(Source::Poiseuille {
                force: n(0.01),
                viscosity: n(1e-3),
                height: n(0.2),
                length: n(0.1),
                density: n(1000.0),
            }),
            ..reference(vec![], 1.0, 1.0)
        };
        // Steady: u = f y (h − y) / 2ν, ∫u² dy = (f / 2ν)² h⁵ / 30.
        let steady = 0.5 * 1000.0 * 0.1 * (0.01f64 / 2e-3).powi(2) * 0.2f64.powi(5) / 30.0;
        assert!((r.eval(1e4).unwrap() / steady - 1.0).abs() < 1e-9);
        assert!(r.eval(0.0).unwrap().abs() < 1e-9 * steady);
        assert!(r.eval(2.0).unwrap() < r.eval(5.0).unwrap());
    }
}
