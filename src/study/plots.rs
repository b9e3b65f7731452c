//! The study's figures ([`PlotDef`]) as charts: series of every case over the references,
//! response curves, convergence with fitted orders, cost against accuracy with the Pareto
//! front.

use super::chart::{sig, Chart, Item, Style};
use super::expand::Study;
use super::metrics::{self, Reference};
use super::report::{metric_defs, Row};
use super::schema::PlotDef;
use std::path::Path;

/// A drawn figure: its title and file stem, and notes for the report.
pub struct Figure {
    /// Title.
    pub title: String,
    /// File stem (relative to the output folder).
    pub stem: String,
    /// Notes (fitted orders).
    pub notes: Vec<String>,
}

fn metric_index(study: &Study, name: &str) -> Option<usize> {
    metric_defs(study)
        .iter()
        .position(|d| metrics::name(d) == name)
}

fn axis_index(study: &Study, name: &str) -> Option<usize> {
    study.axes.iter().position(|a| a.name == name)
}

/// Checks the names a plot uses (metrics, axes, references): the message of the first one
/// that does not exist.
pub fn check(study: &Study, p: &PlotDef) -> Result<(), String> {
    let metric = |m: &str| {
        metric_index(study, m).map(|_| ()).ok_or_else(|| {
            format!(
                "no metric named `{m}` (metrics: {})",
                metric_defs(study)
                    .iter()
                    .map(metrics::name)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
    };
    let axis = |a: &str| {
        axis_index(study, a).map(|_| ()).ok_or_else(|| {
            format!(
                "no axis named `{a}` (axes: {})",
                study
                    .axes
                    .iter()
                    .map(|a| a.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
    };
    let reference = |r: &str| {
        study
            .def
            .references
            .iter()
            .any(|x| x.name == r)
            .then_some(())
            .ok_or_else(|| format!("no reference named `{r}`"))
    };
    match p {
        PlotDef::Series { references, .. } => references.iter().try_for_each(|r| reference(r)),
        PlotDef::Response {
            metric: m,
            x,
            group,
            reference: r,
            ..
        } => {
            metric(m)?;
            axis(x)?;
            group.as_deref().map_or(Ok(()), axis)?;
            r.as_deref().map_or(Ok(()), reference)
        }
        PlotDef::Convergence {
            metric: m,
            x,
            group,
            ..
        } => {
            metric(m)?;
            axis(x)?;
            group.as_deref().map_or(Ok(()), axis)
        }
        PlotDef::CostAccuracy {
            cost, error, group, ..
        } => {
            metric(cost)?;
            metric(error)?;
            group.as_deref().map_or(Ok(()), axis)
        }
    }
}

/// The label of the group of a case (the level of axis `group`), or "" without a group.
fn group_of(study: &Study, row: &Row, group: Option<&str>) -> String {
    group
        .and_then(|g| axis_index(study, g))
        .map_or(String::new(), |a| {
            study.axes[a].levels[study.cases[row.case].levels[a]]
                .label
                .clone()
        })
}

/// Cases grouped by a group axis' level, in the order the groups first appear.
fn groups<'a>(study: &Study, rows: &'a [Row], group: Option<&str>) -> Vec<(String, Vec<&'a Row>)> {
    let mut out: Vec<(String, Vec<&Row>)> = Vec::new();
    for r in rows.iter().filter(|r| r.done()) {
        let g = group_of(study, r, group);
        match out.iter_mut().find(|(k, _)| *k == g) {
            Some((_, v)) => v.push(r),
            None => out.push((g, vec![r])),
        }
    }
    out
}

/// Draws figure `k` of the study into `out`.
pub fn draw(
    study: &Study,
    k: usize,
    rows: &[Row],
    refs: &[Reference],
    out: &Path,
) -> Result<Option<Figure>, String> {
    let mut notes = Vec::new();
    let chart = match &study.def.plots[k] {
        PlotDef::Series {
            column,
            references,
            title,
            until,
        } => series(study, rows, refs, column, references, title, *until),
        PlotDef::Response {
            metric,
            x,
            group,
            reference,
            title,
            log,
        } => {
            let r = reference
                .as_deref()
                .and_then(|n| refs.iter().find(|r| r.name == n));
            response(study, rows, r, (metric, x, group.as_deref()), title, *log)?
        }
        PlotDef::Convergence {
            metric,
            x,
            group,
            title,
        } => convergence(
            study,
            rows,
            (metric, x, group.as_deref()),
            title,
            &mut notes,
        )?,
        PlotDef::CostAccuracy {
            cost,
            error,
            group,
            title,
        } => cost_accuracy(
            study,
            rows,
            (cost, error, group.as_deref()),
            title,
            &mut notes,
        )?,
    };
    let stem = match &study.def.plots[k] {
        PlotDef::Series { .. } => format!("series-{k}"),
        PlotDef::Response { .. } => format!("response-{k}"),
        PlotDef::Convergence { .. } => format!("convergence-{k}"),
        PlotDef::CostAccuracy { .. } => format!("cost-accuracy-{k}"),
    };
    let title = chart.title.clone();
    Ok(chart
        .write(&out.join(&stem))?
        .then_some(Figure { title, stem, notes }))
}

/// The numeric value of a case's level on an axis.
fn x_of(study: &Study, r: &Row, axis: usize) -> Option<f64> {
    study.axes[axis].levels[study.cases[r.case].levels[axis]].value
}

fn series(
    study: &Study,
    rows: &[Row],
    refs: &[Reference],
    column: &str,
    references: &[String],
    title: &Option<String>,
    until: Option<f64>,
) -> Chart {
    let chosen: Vec<&Reference> = references
        .iter()
        .filter_map(|n| refs.iter().find(|r| &r.name == n))
        .collect();
    let first = chosen.first();
    let (sx, sy) = first.map_or((1.0, 1.0), |r| (r.x_scale, r.y_scale));
    let keep = |x: f64| until.is_none_or(|u| x <= u);
    let mut items: Vec<Item> = rows
        .iter()
        .filter(|r| r.done())
        .filter_map(|r| {
            let s = r.series.as_ref()?;
            let v = s.column(column)?;
            Some(Item {
                legend: study.cases[r.case].label.clone(),
                points: s
                    .time
                    .iter()
                    .zip(v)
                    .map(|(t, v)| (t * sx, v * sy))
                    .filter(|p| keep(p.0))
                    .collect(),
                style: Style::Line,
            })
        })
        .collect();
    for r in &chosen {
        let points = r.points.iter().copied().filter(|p| keep(p.0)).collect();
        items.push(Item {
            legend: r.legend.clone(),
            points,
            style: Style::ReferencePoints,
        });
    }
    let (x_label, y_label) =
        first.map_or(("t (s)".to_string(), String::new()), |r| r.labels.clone());
    Chart {
        title: title.clone().unwrap_or_else(|| column.to_string()),
        x_label,
        y_label: if y_label.is_empty() {
            column.to_string()
        } else {
            y_label
        },
        items,
        ..Chart::default()
    }
}

/// A formula's curve over `lo..hi` within the cases' values (widened by their range on each
/// side, so a resonance's peak does not flatten the cases), cut where it leaves them.
fn curve(r: &Reference, (lo, hi): (f64, f64), (ylo, yhi): (f64, f64)) -> Vec<Item> {
    let pad = (yhi - ylo).max(yhi.abs() * 0.5);
    let mut pieces: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
    for i in 0..=800 {
        let x = lo + (hi - lo) * i as f64 / 800.0;
        let y = r
            .eval(x * r.x_scale)
            .map(|y| y / r.y_scale)
            .filter(|y| *y >= ylo - pad && *y <= yhi + pad);
        match (y, pieces.last_mut()) {
            (Some(y), Some(p)) => p.push((x, y)),
            (None, Some(p)) if !p.is_empty() => pieces.push(Vec::new()),
            _ => {}
        }
    }
    pieces
        .into_iter()
        .filter(|p| p.len() > 1)
        .enumerate()
        .map(|(k, points)| Item {
            legend: if k == 0 {
                r.legend.clone()
            } else {
                String::new()
            },
            points,
            style: Style::Reference,
        })
        .collect()
}

fn range(v: impl Iterator<Item = f64>) -> (f64, f64) {
    v.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
        (a.min(x), b.max(x))
    })
}

fn response(
    study: &Study,
    rows: &[Row],
    reference: Option<&Reference>,
    (metric, x, group): (&str, &str, Option<&str>),
    title: &Option<String>,
    log: bool,
) -> Result<Chart, String> {
    let (m, a) = (
        metric_index(study, metric).ok_or("metric")?,
        axis_index(study, x).ok_or("axis")?,
    );
    let mut items = Vec::new();
    for (g, rs) in groups(study, rows, group) {
        let mut pts: Vec<(f64, f64)> = rs
            .iter()
            .filter_map(|r| Some((x_of(study, r, a)?, *r.metrics[m].as_ref().ok()?)))
            .collect();
        pts.sort_by(|p, q| p.0.total_cmp(&q.0));
        let legend = if g.is_empty() { metric.to_string() } else { g };
        items.push(Item {
            legend,
            points: pts,
            style: Style::LineMarkers,
        });
    }
    if let Some(r) = reference {
        let xs = range(items.iter().flat_map(|i| i.points.iter().map(|p| p.0)));
        let ys = range(items.iter().flat_map(|i| i.points.iter().map(|p| p.1)));
        if r.points.is_empty() {
            if xs.0 < xs.1 {
                items.extend(curve(r, xs, ys));
            }
        } else {
            let points = r
                .points
                .iter()
                .map(|&(px, py)| (px / r.x_scale, py / r.y_scale))
                .collect();
            items.push(Item {
                legend: r.legend.clone(),
                points,
                style: Style::ReferencePoints,
            });
        }
    }
    Ok(Chart {
        title: title
            .clone()
            .unwrap_or_else(|| format!("{metric} against {x}")),
        x_label: x.to_string(),
        y_label: metric.to_string(),
        log_x: log,
        log_y: log,
        items,
    })
}

fn convergence(
    study: &Study,
    rows: &[Row],
    (metric, x, group): (&str, &str, Option<&str>),
    title: &Option<String>,
    notes: &mut Vec<String>,
) -> Result<Chart, String> {
    let (m, a) = (
        metric_index(study, metric).ok_or("metric")?,
        axis_index(study, x).ok_or("axis")?,
    );
    let mut items = Vec::new();
    for (g, rs) in groups(study, rows, group) {
        let mut pts: Vec<(f64, f64)> = rs
            .iter()
            .filter_map(|r| Some((x_of(study, r, a)?, r.metrics[m].as_ref().ok()?.abs())))
            .filter(|p| p.0 > 0.0 && p.1 > 0.0)
            .collect();
        pts.sort_by(|p, q| p.0.total_cmp(&q.0));
        let name = if g.is_empty() { metric.to_string() } else { g };
        let legend = match fitted_order(&pts) {
            Some(o) => {
                notes.push(format!(
                    "{name}: {metric} ∝ {x}^{} (least-squares fit on log–log axes over {} points)",
                    sig(o),
                    pts.len()
                ));
                format!("{name} (order {o:.2})")
            }
            None => name,
        };
        items.push(Item {
            legend,
            points: pts,
            style: Style::LineMarkers,
        });
    }
    Ok(Chart {
        title: title
            .clone()
            .unwrap_or_else(|| format!("{metric} against {x}")),
        x_label: x.to_string(),
        y_label: format!("|{metric}|"),
        log_x: true,
        log_y: true,
        items,
    })
}

fn cost_accuracy(
    study: &Study,
    rows: &[Row],
    (cost, error, group): (&str, &str, Option<&str>),
    title: &Option<String>,
    notes: &mut Vec<String>,
) -> Result<Chart, String> {
    let (c, e) = (
        metric_index(study, cost).ok_or("metric")?,
        metric_index(study, error).ok_or("metric")?,
    );
    let point = |r: &Row| {
        Some((
            *r.metrics[c].as_ref().ok()?,
            r.metrics[e].as_ref().ok()?.abs(),
        ))
    };
    let mut items: Vec<Item> = groups(study, rows, group)
        .into_iter()
        .map(|(g, rs)| Item {
            legend: if g.is_empty() { "cases".into() } else { g },
            points: rs.iter().filter_map(|r| point(r)).collect(),
            style: Style::Markers,
        })
        .collect();
    let mut all: Vec<(f64, f64, usize)> = rows
        .iter()
        .filter(|r| r.done())
        .filter_map(|r| point(r).map(|p| (p.0, p.1, r.case)))
        .collect();
    all.sort_by(|p, q| p.0.total_cmp(&q.0).then(p.1.total_cmp(&q.1)));
    let (mut front, mut names, mut best) = (Vec::new(), Vec::new(), f64::INFINITY);
    for (x, y, case) in all {
        if y < best {
            best = y;
            front.push((x, y));
            names.push(format!("`{}`", study.cases[case].label));
        }
    }
    notes.push(format!(
        "Pareto front of {cost} against {error}, cheapest first: {}",
        names.join(", ")
    ));
    items.push(Item {
        legend: "Pareto front".into(),
        points: front,
        style: Style::Reference,
    });
    Ok(Chart {
        title: title
            .clone()
            .unwrap_or_else(|| format!("{cost} against {error}")),
        x_label: cost.to_string(),
        y_label: error.to_string(),
        log_x: true,
        log_y: true,
        items,
    })
}

/// The slope of log y against log x by least squares (the order of convergence), with at
/// least two distinct x.
pub fn fitted_order(pts: &[(f64, f64)]) -> Option<f64> {
    let l: Vec<(f64, f64)> = pts.iter().map(|p| (p.0.ln(), p.1.ln())).collect();
    let n = l.len() as f64;
    if l.len() < 2 {
        return None;
    }
    let (mx, my) = (
        l.iter().map(|p| p.0).sum::<f64>() / n,
        l.iter().map(|p| p.1).sum::<f64>() / n,
    );
    let sxx: f64 = l.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = l.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

#[cfg(test)]
mod tests {
    #[test]
    fn order_of_a_power_law() {
        let pts: Vec<(f64, f64)> = [0.04, 0.02, 0.01, 0.005]
            .iter()
            .map(|&h: &f64| (h, 3.0 * h.powf(1.5)))
            .collect();
        assert!((super::fitted_order(&pts).unwrap() - 1.5).abs() < 1e-12);
        assert!(super::fitted_order(&pts[..1]).is_none());
    }
}
