//! The probe columns a study's metrics and series plots name, checked before anything runs
//! against the columns the cases' models give (a typo in a column found after hours of runs
//! would waste them). One world is built per distinct `probes` list among the cases.

use super::expand::Study;
use super::schema::{MetricDef, PlotDef};
use crate::model::spans::Spans;
use std::collections::BTreeMap;

/// The probe column a metric reads, if it reads one.
fn metric_column(m: &MetricDef) -> Option<&str> {
    match m {
        MetricDef::Final { column, .. }
        | MetricDef::Mean { column, .. }
        | MetricDef::Max { column, .. }
        | MetricDef::Min { column, .. }
        | MetricDef::Amplitude { column, .. }
        | MetricDef::Error { column, .. }
        | MetricDef::Period { column, .. }
        | MetricDef::Decay { column, .. }
        | MetricDef::DampingRatio { column, .. }
        | MetricDef::DampedPeriod { column, .. }
        | MetricDef::Drift { column, .. } => Some(column),
        _ => None,
    }
}

/// The columns of each distinct `probes` list among the valid cases (by the list's text);
/// cases whose world cannot be built are left to fail when they run.
fn columns_by_probes(study: &Study) -> Vec<Vec<String>> {
    let mut seen: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for c in study.cases.iter().filter(|c| c.error.is_none()) {
        let spans = Spans::of(&c.text);
        let key = spans
            .range("probes")
            .map(|r| c.text[r].to_string())
            .unwrap_or_default();
        if seen.contains_key(&key) {
            continue;
        }
        let Ok(model) =
            crate::model::load::parse_str_with(&study.model_path, &c.text, &study.registry)
        else {
            continue;
        };
        let Ok(world) = crate::model::build_world_with(&model, &study.registry) else {
            continue;
        };
        let Ok(probes) = crate::model::resolve_probes(&model, &world) else {
            continue;
        };
        seen.insert(key, probes.iter().flat_map(|p| p.columns(&world)).collect());
    }
    seen.into_values().collect()
}

/// The first metric or plot naming a probe column that no case's probes give: (path in the
/// study file, message).
pub fn check(study: &Study) -> Option<(String, String)> {
    let mut wanted: Vec<(String, &str)> = Vec::new();
    for (i, m) in study.def.metrics.iter().enumerate() {
        if let Some(c) = metric_column(m) {
            wanted.push((format!("metrics[{i}].column"), c));
        }
        if let MetricDef::Period { minus: Some(c), .. }
        | MetricDef::Decay { minus: Some(c), .. }
        | MetricDef::DampingRatio { minus: Some(c), .. }
        | MetricDef::DampedPeriod { minus: Some(c), .. } = m
        {
            wanted.push((format!("metrics[{i}].minus"), c));
        }
    }
    for (k, p) in study.def.plots.iter().enumerate() {
        if let PlotDef::Series { column, .. } = p {
            wanted.push((format!("plots[{k}].column"), column));
        }
    }
    if wanted.is_empty() {
        return None;
    }
    let lists = columns_by_probes(study);
    if lists.is_empty() {
        return None;
    }
    wanted.into_iter().find(|(_, c)| !lists.iter().any(|l| l.iter().any(|x| x == c))).map(|(path, c)| {
        let mut all: Vec<&str> = lists.iter().flatten().map(String::as_str).collect();
        all.sort_unstable();
        all.dedup();
        (path, format!("no case's probes give a column `{c}` (columns: {}); the model's `probes` decide them, as in its probes.csv", all.join(", ")))
    })
}
