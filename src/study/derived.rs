//! Metrics computed from other metrics: a deviation from an analytic reference
//! ([`MetricDef::Deviation`]) and a ratio to a calibration case's metric ([`MetricDef::Over`]).
//!
//! [`MetricDef::Deviation`]: super::schema::MetricDef::Deviation
//! [`MetricDef::Over`]: super::schema::MetricDef::Over

use super::references::Reference;

/// A calibration case's metric value by (axis, level) pairs and metric name
/// ([`super::metrics::CaseData::calibration`]).
pub type Calibration<'a> = &'a dyn Fn(&[(String, String)], &str) -> Result<f64, String>;

/// An earlier metric's value by name.
fn earlier(done: &[(String, Result<f64, String>)], metric: &str) -> Result<f64, String> {
    done.iter()
        .find(|(n, _)| n == metric)
        .ok_or_else(|| format!("no earlier metric named `{metric}`"))?
        .1
        .clone()
}

/// A `Deviation` metric: the earlier metric `metric` against the reference `r` at the model
/// field `x` (relative: `(m · y_scale − y) / y`; a data reference interpolated,
/// [`Reference::value_at`]).
pub fn deviation<'m>(
    done: &[(String, Result<f64, String>)],
    metric: &str,
    r: Result<&Reference, String>,
    x: Option<&str>,
    model: impl Fn() -> Result<&'m crate::model::Model, String>,
) -> Result<f64, String> {
    let m = earlier(done, metric)?;
    let r = r?;
    let xv = match x {
        Some(x) => super::expand::field_number(model()?, x)? * r.x_scale,
        None => 0.0,
    };
    let y = r.value_at(xv).ok_or_else(|| {
        format!(
            "reference `{}` has no value at {xv} (outside its data points)",
            r.name
        )
    })?;
    Ok((m * r.y_scale - y) / y)
}

/// An `Over` metric: this case's earlier metric `metric` over the calibration case's `by`
/// (the case at the levels `case`, looked up by `calibration`).
pub fn over(
    done: &[(String, Result<f64, String>)],
    metric: &str,
    by: &str,
    case: &[(String, String)],
    calibration: Option<Calibration<'_>>,
) -> Result<f64, String> {
    let m = earlier(done, metric)?;
    let calibration = calibration.ok_or("the calibration cases are read after every case")?;
    let b = calibration(case, by)?;
    if b == 0.0 {
        return Err(format!("the calibration case's `{by}` is zero"));
    }
    Ok(m / b)
}
