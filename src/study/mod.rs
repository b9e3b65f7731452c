//! Comparative method studies: one RON file names a base model, axes that change any of its
//! fields, the metrics to take from each case, references to compare with and the figures to
//! draw; `vcsim study` runs the cases (in parallel, resumably, across a cluster) and writes
//! `table.csv`, `table.md`, `report.md` and the figures. The book's chapter "Studies" documents
//! the file.
//!
//! Stages, one way: [`expand`] (read the file, splice each case's changes into the model's
//! text with [`splice`], check every case like a model file) → [`exec`] (run the cases, each
//! into `cases/<label>/`, see [`result`]) → [`report`] and [`plots`] (everything from the
//! cases' folders, so shards run on different machines merge into the same report).
//! [`cluster`] divides the cases among MPI ranks or scheduler shards.

pub mod chart;
pub mod cluster;
pub mod columns;
pub mod derived;
pub mod describe;
pub mod exec;
pub mod expand;
pub mod expr;
pub mod metrics;
pub mod oscillation;
pub mod plots;
pub mod references;
pub mod report;
pub mod result;
pub mod schema;
pub mod splice;

pub use expand::{is_study, load_study, load_study_with, Study};

use crate::model::error::ModelError;
use crate::model::spans::Spans;
use metrics::Reference;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Checks what the study's metrics and plots name (references, metrics, axes, probe columns)
/// and loads the references; errors are located in the study file.
pub fn check_names(study: &Study) -> Result<Vec<Reference>, Box<ModelError>> {
    let spans = Spans::of(&study.source);
    let at = |path: &str, field: &str, m: String| {
        Box::new(ModelError::at_offset(
            &study.path,
            &study.source,
            spans.locate(path),
            Some(field.into()),
            m,
        ))
    };
    let refs = metrics::load_references(&study.path, &study.def.references)
        .map_err(|(i, m)| at(&format!("references[{i}].source"), "source", m))?;
    let names: Vec<String> = report::metric_defs(study)
        .iter()
        .map(metrics::name)
        .collect();
    for (i, n) in names.iter().enumerate() {
        if names[..i].contains(n) {
            return Err(at(
                &format!("metrics[{i}]"),
                "metrics",
                format!("two metrics are named `{n}`; give one a `name`"),
            ));
        }
    }
    for (i, m) in study.def.metrics.iter().enumerate() {
        use schema::MetricDef as M;
        let wanted = match m {
            M::Error { reference, .. } => {
                refs.iter().find(|r| &r.name == reference).ok_or(reference)
            }
            M::Deviation {
                reference, metric, ..
            } => {
                if !names[..i].contains(metric) {
                    return Err(at(
                        &format!("metrics[{i}].metric"),
                        "metric",
                        format!(
                            "no earlier metric named `{metric}` (metrics before it: {})",
                            names[..i].join(", ")
                        ),
                    ));
                }
                refs.iter().find(|r| &r.name == reference).ok_or(reference)
            }
            M::Over {
                metric, by, case, ..
            } => {
                check_over(study, &names[..i], metric, by, case)
                    .map_err(|(f, m)| at(&format!("metrics[{i}].{f}"), f, m))?;
                continue;
            }
            _ => continue,
        };
        match wanted {
            Err(r) => return Err(at(&format!("metrics[{i}].reference"), "reference", format!("no reference named `{r}` (references: {})", refs.iter().map(|r| r.name.as_str()).collect::<Vec<_>>().join(", ")))),
            Ok(r) if r.function.is_none() && matches!(m, M::Deviation { x: None, .. }) => return Err(at(&format!("metrics[{i}]"), "x", "`Deviation` from a data reference needs `x`, the model field whose value the data are read at".into())),
            Ok(_) => {}
        }
    }
    for (k, p) in study.def.plots.iter().enumerate() {
        plots::check(study, p).map_err(|m| at(&format!("plots[{k}]"), "plots", m))?;
    }
    if let Some((path, m)) = columns::check(study) {
        return Err(at(&path, "column", m));
    }
    Ok(refs)
}

/// Whether an `Over` metric names earlier metrics (`by` not itself an `Over`) and axes and
/// levels the study has: (field, message) when not.
fn check_over(
    study: &Study,
    earlier: &[String],
    metric: &str,
    by: &str,
    case: &[(String, String)],
) -> Result<(), (&'static str, String)> {
    for (field, m) in [("metric", metric), ("by", by)] {
        if !earlier.iter().any(|n| n == m) {
            let list = earlier.join(", ");
            return Err((
                field,
                format!("no earlier metric named `{m}` (metrics before it: {list})"),
            ));
        }
    }
    // (Only the study's own metrics can be an `Over`; the default metrics are run numbers.)
    if study
        .def
        .metrics
        .iter()
        .any(|d| matches!(d, schema::MetricDef::Over { .. }) && metrics::name(d) == by)
    {
        return Err(("by", format!("`{by}` is itself a ratio to a calibration case; divide by a metric the calibration case computes alone")));
    }
    for (axis, label) in case {
        let Some(a) = study.axes.iter().find(|a| &a.name == axis) else {
            let list: Vec<&str> = study.axes.iter().map(|a| a.name.as_str()).collect();
            return Err((
                "case",
                format!("no axis named `{axis}` (axes: {})", list.join(", ")),
            ));
        };
        if !a.levels.iter().any(|l| &l.label == label) {
            let list: Vec<&str> = a.levels.iter().map(|l| l.label.as_str()).collect();
            return Err((
                "case",
                format!(
                    "axis `{axis}` has no level `{label}` (levels: {})",
                    list.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

/// `origin.ron` in a study's output folder: which study wrote it, and which shard.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Origin {
    /// The study file (absolute).
    pub study: PathBuf,
    /// `(i, n)`: shard i of n (1-based), when the folder holds one shard's cases.
    pub shard: Option<(usize, usize)>,
}

impl Origin {
    /// Reads `origin.ron` of a folder.
    pub fn read(dir: &Path) -> Option<Origin> {
        ron::from_str(&std::fs::read_to_string(dir.join("origin.ron")).ok()?).ok()
    }

    /// Writes `origin.ron` into a folder.
    pub fn write(&self, dir: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(dir)?;
        result::write_atomic(
            &dir.join("origin.ron"),
            &ron::to_string(self).map_err(std::io::Error::other)?,
        )
    }
}

/// The absolute form of a path (as given when it cannot be resolved).
pub fn absolute(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// Picks a study's output folder: the given one, or `runs/<stem>`; a folder that holds files
/// must be this study's earlier output (it is then resumed), never something else.
pub fn choose_out(study: &Study, out: Option<PathBuf>) -> Result<PathBuf, String> {
    let stem = study
        .path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("study");
    let dir = out.unwrap_or_else(|| PathBuf::from("runs").join(stem));
    if dir.exists() && !dir.is_dir() {
        return Err(format!(
            "--out {} is a file, not a folder; choose another --out (nothing is overwritten)",
            dir.display()
        ));
    }
    let empty = std::fs::read_dir(&dir)
        .map(|mut d| d.next().is_none())
        .unwrap_or(true);
    if !empty {
        match Origin::read(&dir) {
            Some(o) if o.study == absolute(&study.path) => {}
            Some(o) => return Err(format!("{} holds the output of another study ({}); choose another --out (nothing is overwritten)", dir.display(), o.study.display())),
            None => return Err(format!("{} already holds files that are not a study's output; choose another --out (nothing is overwritten)", dir.display())),
        }
    }
    Ok(dir)
}

/// What writing the report produced.
#[derive(Debug, Clone)]
pub struct Written {
    /// `table.csv`.
    pub table: PathBuf,
    /// `report.md`.
    pub report: PathBuf,
    /// The figures' stems.
    pub figures: Vec<PathBuf>,
    /// Cases done, failed, not run.
    pub counts: (usize, usize, usize),
}

/// Writes `table.csv`, `table.md`, `report.md` and the figures of the cases in `out`.
pub fn write_report(
    study: &Study,
    refs: &[Reference],
    out: &Path,
    command: &str,
) -> std::io::Result<Written> {
    let rows = report::collect(study, out, refs);
    let mut figures = Vec::new();
    let mut notes = Vec::new();
    let mut files = Vec::new();
    for k in 0..study.def.plots.len() {
        match plots::draw(study, k, &rows, refs, out) {
            Ok(Some(f)) => {
                files.push(out.join(&f.stem));
                notes.extend(f.notes);
                figures.push((f.title, f.stem));
            }
            Ok(None) => notes.push(format!(
                "figure {k}: nothing to draw (no finished case has its values)"
            )),
            Err(e) => notes.push(format!("figure {k} could not be drawn: {e}")),
        }
    }
    let table = out.join("table.csv");
    result::write_atomic(&table, &report::table_csv(study, &rows))?;
    let info = report::ReportInfo {
        command,
        figures: &figures,
        notes: &notes,
    };
    // The table with the failures and the figures' notes below it, for a page to include.
    let mut table_md = report::table_md(study, &rows);
    let below: Vec<String> = report::problems(study, &rows)
        .into_iter()
        .chain(notes.iter().map(|n| format!("- {n}")))
        .collect();
    if !below.is_empty() {
        table_md.push_str(&format!("\n{}\n", below.join("\n")));
    }
    result::write_atomic(&out.join("table.md"), &table_md)?;
    let report = out.join("report.md");
    result::write_atomic(&report, &report::report_md(study, &rows, &info))?;
    let count = |s: &str| rows.iter().filter(|r| r.status() == s).count();
    Ok(Written {
        table,
        report,
        figures: files,
        counts: (count("done"), count("failed"), count("not run")),
    })
}
