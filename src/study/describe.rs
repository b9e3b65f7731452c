//! What each study metric means, in words, for `report.md`: its unit, window and frequency.

use super::metrics::name;
use super::schema::{Frequency, MetricDef, RunMetric};

/// What metric `m` means, in words, with its unit where the metric fixes one (a probe column's
/// unit is the probe's: `probes.csv`'s header and the modelling chapter's probe list), its
/// window and frequency: one line of `report.md`'s metrics section.
pub fn describe(m: &MetricDef) -> String {
    let what = match m {
        MetricDef::Final { column, .. } => {
            format!("the last sample of `{column}` (the column's unit)")
        }
        MetricDef::Mean {
            column, from, to, ..
        } => format!("mean of `{column}` {} (the column's unit)", window(from, to)),
        MetricDef::Max {
            column, from, to, ..
        } => format!("largest `{column}` {} (the column's unit)", window(from, to)),
        MetricDef::Min {
            column, from, to, ..
        } => format!("smallest `{column}` {} (the column's unit)", window(from, to)),
        MetricDef::Amplitude {
            column,
            frequency,
            from,
            free,
            over,
            ..
        } => amplitude(column, frequency, *from, free, over.as_deref()),
        MetricDef::Error {
            column,
            reference,
            norm,
            from,
            until,
            ..
        } => format!(
            "{norm:?} error of `{column}` against reference `{reference}` at its points {} (relative norms: a fraction; RMS: the reference's unit)",
            window(from, until).replace(" s", "")
        ),
        MetricDef::Deviation {
            metric, reference, ..
        } => format!("deviation of metric `{metric}` from reference `{reference}` (relative)"),
        MetricDef::Over {
            metric, by, case, ..
        } => format!(
            "metric `{metric}` over metric `{by}` of the calibration case ({}; the ratio of their units)",
            case.iter()
                .map(|(a, l)| format!("{a} = {l}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        MetricDef::Period {
            column,
            minus,
            from,
            to,
            ..
        } => format!(
            "mean period of {} between its first and last upward crossings of the window's mean {} (s)",
            signal(column, minus),
            window(from, to)
        ),
        MetricDef::Decay {
            column,
            minus,
            from,
            to,
            ..
        } => format!(
            "fraction of {}'s oscillation amplitude lost per period, from the log-linear fit of its largest deviations between upward mean crossings {} (dimensionless)",
            signal(column, minus),
            window(from, to)
        ),
        MetricDef::DampingRatio {
            column,
            minus,
            from,
            to,
            ..
        } => format!(
            "damping ratio ζ = σ/√(σ² + ω_d²) of the least-squares damped sine c + e^(−σt)(a cos ω_d t + b sin ω_d t) fitted to {} {} (dimensionless)",
            signal(column, minus),
            window(from, to)
        ),
        MetricDef::DampedPeriod {
            column,
            minus,
            from,
            to,
            ..
        } => format!(
            "damped period 2π/ω_d of the least-squares damped sine c + e^(−σt)(a cos ω_d t + b sin ω_d t) fitted to {} {} (s)",
            signal(column, minus),
            window(from, to)
        ),
        MetricDef::Drift { column, .. } => {
            format!("relative change of `{column}` from its first sample to its last, (last − first)/|first| (dimensionless)")
        }
        MetricDef::Field { field, scale, .. } => match scale {
            Some(s) => format!("the case's model field `{field}` times {}", s.0),
            None => format!("the case's model field `{field}`"),
        },
        MetricDef::Run(r) => run(*r).to_string(),
    };
    format!("`{}`: {what}", name(m))
}

/// What a run metric means, with its unit.
fn run(r: RunMetric) -> &'static str {
    match r {
        RunMetric::WallTime => "wall time of the case's run (s)",
        RunMetric::TimePerStep => "wall time per step (ms)",
        RunMetric::WallPerSimSecond => "wall time per simulated second (s/s)",
        RunMetric::Steps => "steps taken",
        RunMetric::MeanIterations => "mean solver iterations per step",
        RunMetric::FirstIterations => "solver iterations of the first step",
        RunMetric::StepsAtCap => "steps whose solve stopped at its iteration cap",
        RunMetric::LargestCompression => "largest fluid compression (ρ − ρ0)/ρ0 of any step (%)",
        RunMetric::MeanSubsteps => {
            "mean sub-steps per step (an explicit fluid method's; the constraint method's at speed)"
        }
        RunMetric::PressureIterations => {
            "ISPH: mean conjugate-gradient iterations per pressure solve"
        }
        RunMetric::ImpulsesPerStep => "impulses per step of an impulse resolver",
        RunMetric::Particles => "fluid particles",
        RunMetric::MaxResidual => "largest final residual of a step's solve (m/s)",
    }
}

/// What an amplitude metric means: `column` at `frequency` from `from` (s), with `free` further
/// frequencies, over the amplitude of `over` when given.
fn amplitude(
    column: &str,
    frequency: &Frequency,
    from: Option<f64>,
    free: &[super::schema::Num],
    over: Option<&str>,
) -> String {
    let f = match frequency {
        Frequency::Hz(n) => format!("{} Hz", n.0),
        Frequency::Field(p) => format!("the case's `{p}` (Hz)"),
        Frequency::Period(p) => format!("one over the case's `{p}` (s)"),
    };
    let free = if free.is_empty() {
        String::new()
    } else {
        let hz: Vec<String> = free.iter().map(|n| format!("{}", n.0)).collect();
        format!(", fitted alongside {} Hz", hz.join(", "))
    };
    let window = window(&from, &None);
    match over {
        None => format!(
            "amplitude of `{column}` at {f} by a least-squares fit of a sine, a cosine and a constant {window}{free} (the column's unit)"
        ),
        Some(o) => format!(
            "amplitude of `{column}` over the amplitude of `{o}`, both at {f} by a least-squares fit {window}{free} (a response amplitude operator: the columns' units' ratio)"
        ),
    }
}

/// A window in words.
fn window(from: &Option<f64>, to: &Option<f64>) -> String {
    match (from, to) {
        (None, None) => "over the whole run".to_string(),
        (Some(a), None) => format!("over t ≥ {a} s"),
        (None, Some(b)) => format!("over t ≤ {b} s"),
        (Some(a), Some(b)) => format!("over {a} s ≤ t ≤ {b} s"),
    }
}

/// The signal a periodic metric reads: a column, or half its difference with another.
fn signal(column: &str, minus: &Option<String>) -> String {
    match minus {
        Some(m) => format!("(`{column}` − `{m}`)/2"),
        None => format!("`{column}`"),
    }
}
