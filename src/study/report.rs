//! The study's outputs from its cases' folders: `table.csv` (one row per case: its label, one
//! column per axis, its status and reason, one column per metric), `report.md` (description,
//! command, machine, the table, the figures) and the figures ([`super::plots`]).

use super::chart::sig;
use super::expand::Study;
use super::metrics::{self, CaseData, Reference};
use super::result::{read_series, CaseResult, Status};
use crate::runner::Series;
use std::fmt::Write as _;
use std::path::Path;

/// One case as the report sees it.
pub struct Row {
    /// Index of the case.
    pub case: usize,
    /// Its result (`None`: not run).
    pub result: Option<CaseResult>,
    /// Its series.
    pub series: Option<Series>,
    /// Its metrics.
    pub metrics: Vec<Result<f64, String>>,
}

impl Row {
    /// The status word of the table.
    pub fn status(&self) -> &'static str {
        match self.result.as_ref().map(|r| &r.status) {
            Some(Status::Done) => "done",
            Some(Status::Failed(_)) => "failed",
            None => "not run",
        }
    }

    /// Whether the case ran to its end.
    pub fn done(&self) -> bool {
        matches!(self.result.as_ref().map(|r| &r.status), Some(Status::Done))
    }
}

/// Reads every case's results from `out` and computes its metrics: first each case alone,
/// then, when a metric divides by a calibration case's ([`super::schema::MetricDef::Over`]),
/// again with the first pass's values of the other cases at hand.
pub fn collect(study: &Study, out: &Path, refs: &[Reference]) -> Vec<Row> {
    let defs = metric_defs(study);
    let read: Vec<_> = study
        .cases
        .iter()
        .map(|c| {
            let dir = super::exec::case_dir(out, c);
            let current = super::result::same_case(&dir, &c.text);
            let result = current.then(|| CaseResult::read(&dir)).flatten();
            let series = result
                .as_ref()
                .and_then(|_| read_series(&dir.join("probes.csv")));
            let model =
                crate::model::load::parse_str_with(&study.model_path, &c.text, &study.registry)
                    .ok();
            (result, series, model)
        })
        .collect();
    let compute = |k: usize, calibration: Option<metrics::Calibration<'_>>| {
        let (result, series, model) = &read[k];
        match result {
            Some(r) => metrics::compute(
                &defs,
                refs,
                &CaseData {
                    status: &r.status,
                    numbers: &r.numbers,
                    series: series.as_ref(),
                    model: model.as_ref(),
                    calibration,
                },
            ),
            None => defs.iter().map(|_| Err("not run".to_string())).collect(),
        }
    };
    let first: Vec<_> = (0..read.len()).map(|k| compute(k, None)).collect();
    let calibrated = defs
        .iter()
        .any(|d| matches!(d, super::schema::MetricDef::Over { .. }));
    let names: Vec<String> = defs.iter().map(metrics::name).collect();
    let metrics: Vec<_> = if calibrated {
        (0..read.len())
            .map(|k| {
                let lookup = |pairs: &[(String, String)], by: &str| {
                    let j = calibration_case(study, k, pairs)?;
                    let m = names.iter().position(|n| n == by).ok_or("no such metric")?;
                    first[j][m]
                        .clone()
                        .map_err(|e| format!("calibration case {}: {e}", study.cases[j].label))
                };
                compute(k, Some(&lookup))
            })
            .collect()
    } else {
        first
    };
    read.into_iter()
        .zip(metrics)
        .enumerate()
        .map(|(k, ((result, series, _), metrics))| Row {
            case: study.cases[k].index,
            result,
            series,
            metrics,
        })
        .collect()
}

/// The index of case `k`'s calibration case: the same levels but `pairs`' (axis name, level
/// label) on those axes.
pub fn calibration_case(
    study: &Study,
    k: usize,
    pairs: &[(String, String)],
) -> Result<usize, String> {
    let mut want = study.cases[k].levels.clone();
    for (axis, label) in pairs {
        let a = (study.axes.iter().position(|x| &x.name == axis))
            .ok_or_else(|| format!("no axis named `{axis}`"))?;
        want[a] = (study.axes[a].levels.iter().position(|l| &l.label == label))
            .ok_or_else(|| format!("axis `{axis}` has no level `{label}`"))?;
    }
    (study.cases.iter().position(|c| c.levels == want))
        .ok_or_else(|| "no case has the calibration's levels".to_string())
}

/// The study's metrics (its own, or the defaults).
pub fn metric_defs(study: &Study) -> Vec<super::schema::MetricDef> {
    if study.def.metrics.is_empty() {
        metrics::default_metrics()
    } else {
        study.def.metrics.clone()
    }
}

fn csv_cell(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// A row's first cells: the case's label, its level on each axis, its status.
fn label_cells(study: &Study, r: &Row) -> Vec<String> {
    let c = &study.cases[r.case];
    let mut cells = vec![c.label.clone()];
    cells.extend(
        c.levels
            .iter()
            .zip(&study.axes)
            .map(|(&j, a)| a.levels[j].label.clone()),
    );
    cells.push(r.status().into());
    cells
}

/// `table.csv`: numbers in their shortest exact decimal form; an empty cell where a metric has
/// no value (its reason is in `report.md`).
pub fn table_csv(study: &Study, rows: &[Row]) -> String {
    let defs = metric_defs(study);
    let mut head: Vec<String> = vec!["case".into()];
    head.extend(study.axes.iter().map(|a| a.name.clone()));
    head.extend(["status".into(), "reason".into()]);
    head.extend(defs.iter().map(metrics::name));
    let mut out = head
        .iter()
        .map(|h| csv_cell(h))
        .collect::<Vec<_>>()
        .join(",");
    out.push('\n');
    for r in rows {
        let mut cells = label_cells(study, r);
        cells.push(match r.result.as_ref().map(|x| &x.status) {
            Some(Status::Failed(why)) => why.clone(),
            _ => String::new(),
        });
        cells.extend(
            r.metrics
                .iter()
                .map(|m| m.as_ref().map(|v| format!("{v:?}")).unwrap_or_default()),
        );
        out.push_str(
            &cells
                .iter()
                .map(|c| csv_cell(c))
                .collect::<Vec<_>>()
                .join(","),
        );
        out.push('\n');
    }
    out
}

/// The machine a study ran on, in one line.
pub fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let host = std::fs::read_to_string("/etc/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!(
        "{cpu}, {cores} cores available, {} {}{}",
        std::env::consts::OS,
        std::env::consts::ARCH,
        if host.is_empty() {
            String::new()
        } else {
            format!(", host {host}")
        }
    )
}

/// UTC date and time now, `YYYY-MM-DD HH:MM UTC`.
pub fn now_utc() -> String {
    let s = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs()) as i64;
    let (days, rem) = (s.div_euclid(86_400), s.rem_euclid(86_400));
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + (m <= 2) as i64;
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60
    )
}

/// The report's table alone (a Markdown table, metrics to four significant digits): with the
/// figures' notes below it, `table.md`, for a page to include (`{{#include}}` in the book).
pub fn table_md(study: &Study, rows: &[Row]) -> String {
    let defs = metric_defs(study);
    let mut s = String::new();
    let mut head = vec!["case".to_string()];
    head.extend(study.axes.iter().map(|a| a.name.clone()));
    head.push("status".into());
    head.extend(defs.iter().map(metrics::name));
    let _ = writeln!(s, "| {} |", head.join(" | "));
    let _ = writeln!(s, "|{}", "---|".repeat(head.len()));
    for r in rows {
        let mut cells = label_cells(study, r);
        cells.extend(
            r.metrics
                .iter()
                .map(|m| m.as_ref().map(|v| sig(*v)).unwrap_or_else(|_| "—".into())),
        );
        let _ = writeln!(
            s,
            "| {} |",
            cells
                .iter()
                .map(|c| c.replace('|', "\\|"))
                .collect::<Vec<_>>()
                .join(" | ")
        );
    }
    s
}

/// The failed cases and the metrics a finished case lacks, one line each (`- ...`).
pub fn problems(study: &Study, rows: &[Row]) -> Vec<String> {
    let defs = metric_defs(study);
    let mut problems = Vec::new();
    for r in rows {
        let label = &study.cases[r.case].label;
        if let Some(Status::Failed(why)) = r.result.as_ref().map(|x| &x.status) {
            problems.push(format!("- `{label}` failed: {why}"));
        } else if r.done() {
            for (d, m) in defs.iter().zip(&r.metrics) {
                if let Err(e) = m {
                    problems.push(format!("- `{label}`, {}: {e}", metrics::name(d)));
                }
            }
        }
    }
    problems
}

/// What `report.md` needs besides the rows.
pub struct ReportInfo<'a> {
    /// The command that made the report.
    pub command: &'a str,
    /// Figures: (title, file stem relative to the report).
    pub figures: &'a [(String, String)],
    /// Notes from the plots (fitted orders, ...).
    pub notes: &'a [String],
}

/// `report.md`.
pub fn report_md(study: &Study, rows: &[Row], info: &ReportInfo) -> String {
    let mut s = String::new();
    let title = study
        .path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("study");
    let _ = writeln!(s, "# Study `{title}`\n");
    if !study.def.description.trim().is_empty() {
        let _ = writeln!(s, "{}\n", study.def.description.trim());
    }
    let done = rows.iter().filter(|r| r.done()).count();
    let wall: f64 = rows
        .iter()
        .filter_map(|r| r.result.as_ref())
        .map(|r| r.numbers.wall_s)
        .sum();
    let _ = writeln!(
        s,
        "- study file: `{}`; base model: `{}`",
        study.path.display(),
        study.model_path.display()
    );
    let _ = writeln!(s, "- command: `{}`", info.command);
    let _ = writeln!(s, "- machine: {}", machine());
    let _ = writeln!(
        s,
        "- vcsim {}, report written {}",
        super::result::VERSION,
        now_utc()
    );
    let _ = writeln!(
        s,
        "- {} cases: {done} done, {} failed, {} not run; {} s of case wall time in all\n",
        rows.len(),
        rows.iter().filter(|r| r.status() == "failed").count(),
        rows.iter().filter(|r| r.status() == "not run").count(),
        sig(wall)
    );
    let _ = writeln!(s, "## Table\n");
    s.push_str(&table_md(study, rows));
    let _ = writeln!(s, "\n## Metrics\n");
    for m in &metric_defs(study) {
        let _ = writeln!(s, "- {}", super::describe::describe(m));
    }
    let problems = problems(study, rows);
    if !problems.is_empty() {
        let _ = writeln!(
            s,
            "\n## Failures and missing values\n\n{}",
            problems.join("\n")
        );
    }
    if !info.notes.is_empty() {
        let _ = writeln!(
            s,
            "\n## Notes\n\n{}",
            info.notes
                .iter()
                .map(|n| format!("- {n}"))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
    if !info.figures.is_empty() {
        let _ = writeln!(s, "\n## Figures\n");
        for (t, f) in info.figures {
            let _ = writeln!(s, "### {t}\n\n![{t}]({f}.png)\n\n([SVG]({f}.svg))\n");
        }
    }
    s
}
