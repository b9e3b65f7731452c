//! What a finished case leaves in its folder (`cases/<label>/`): `case.ron` (the model it ran,
//! the study's changes spliced in), `probes.csv` (its series) and `result.ron` (how it ended
//! and the run's own numbers). A rerun compares `case.ron` and the version in `result.ron`
//! with what it would run and skips the case when both are unchanged; `case.ron` is compared
//! by its tokens, so an edit of the model's comments or layout reruns nothing.

use crate::runner::Series;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// How a case ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Status {
    /// It ran to its end.
    Done,
    /// It could not run or stopped early; the reason.
    Failed(String),
}

/// The numbers a run reports about itself (the [`super::schema::RunMetric`]s).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunNumbers {
    /// Steps taken.
    pub steps: u64,
    /// Simulated time (s).
    pub sim_time: f64,
    /// Wall time (s).
    pub wall_s: f64,
    /// Threads the case ran on.
    pub threads: usize,
    /// Mean solver iterations per step.
    pub mean_iterations: f64,
    /// Solver iterations of the first step.
    pub first_iterations: usize,
    /// Steps at the iteration cap.
    pub steps_at_cap: u64,
    /// Largest final residual of a step (m/s).
    pub max_residual: f64,
    /// Largest compression of any step (dimensionless).
    pub max_compression: f64,
    /// Mean sub-steps per step (explicit fluid methods).
    pub mean_substeps: f64,
    /// ISPH: mean CG iterations per pressure solve.
    pub pressure_iterations: f64,
    /// Impulse resolvers: impulses summed over the steps.
    pub impulses: u64,
    /// Fluid particles.
    pub particles: usize,
}

/// `result.ron`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseResult {
    /// The case's label.
    pub label: String,
    /// The vcsim version that ran it.
    pub version: String,
    /// How it ended.
    pub status: Status,
    /// The run's numbers (zero for a case that did not start).
    pub numbers: RunNumbers,
}

/// The version recorded with results: a result of another version is rerun.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

impl CaseResult {
    /// Reads `result.ron` of a case folder, if there is a readable one.
    pub fn read(dir: &Path) -> Option<CaseResult> {
        let text = std::fs::read_to_string(dir.join("result.ron")).ok()?;
        ron::from_str(&text).ok()
    }

    /// Writes `result.ron` (through a temporary file, so a killed run leaves none or a whole
    /// one).
    pub fn write(&self, dir: &Path) -> std::io::Result<()> {
        let text = ron::ser::to_string_pretty(self, ron::ser::PrettyConfig::default())
            .map_err(std::io::Error::other)?;
        write_atomic(&dir.join("result.ron"), &text)
    }
}

/// Whether the `case.ron` in the case folder `dir` is the model `text`: the same text, or the
/// same tokens ([`crate::model::spans::tokens`]: its comments and layout aside).
pub fn same_case(dir: &Path, text: &str) -> bool {
    std::fs::read_to_string(dir.join("case.ron")).is_ok_and(|t| {
        t == text || crate::model::spans::tokens(&t) == crate::model::spans::tokens(text)
    })
}

/// Writes `text` to `path` through a temporary file of this process and a rename (ranks of an
/// MPI job may write the same file at once).
pub fn write_atomic(path: &Path, text: &str) -> std::io::Result<()> {
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path)
}

/// The series as CSV (`t` first; shortest round-trip decimal forms, so reading it back gives
/// the same numbers).
pub fn series_csv(s: &Series) -> String {
    let mut out = String::from("t");
    for c in &s.columns {
        out.push(',');
        out.push_str(c);
    }
    out.push('\n');
    for (k, t) in s.time.iter().enumerate() {
        out.push_str(&format!("{t:?}"));
        for v in &s.values {
            out.push_str(&format!(",{:?}", v[k]));
        }
        out.push('\n');
    }
    out
}

/// Reads a series written by [`series_csv`].
pub fn read_series(path: &Path) -> Option<Series> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next()?.split(',').collect();
    let columns: Vec<String> = head.iter().skip(1).map(|c| c.to_string()).collect();
    let mut s = Series {
        values: vec![Vec::new(); columns.len()],
        columns,
        time: Vec::new(),
    };
    for l in lines {
        let v: Vec<f64> = l
            .split(',')
            .map(|x| x.parse().unwrap_or(f64::NAN))
            .collect();
        if v.len() != head.len() {
            return None;
        }
        s.time.push(v[0]);
        for (col, x) in s.values.iter_mut().zip(&v[1..]) {
            col.push(*x);
        }
    }
    Some(s)
}
