//! `study`: a study file run as `vcsim study` runs it (same cases, folders, reuse of finished
//! cases, report and figures), its table returned as CSV text for the package to parse.

use crate::errors::model_error;
use pyo3::exceptions::{PyKeyboardInterrupt, PyOSError, PyValueError};
use pyo3::prelude::*;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use vcsim::registry::Registry;
use vcsim::study as st;
use vcsim::study::exec::ExecOptions;

/// Runs the study at `path` into `out` (default `runs/STUDY`; a folder with this study's
/// earlier output is resumed: finished cases with unchanged models are not rerun), `jobs`
/// cases at once (default: one per core) with `threads` threads each (default: the cores
/// divided among the jobs). Returns `(table.csv text, output folder)`. Ctrl-C stops the
/// running cases (finished ones are kept, the report is written) and raises
/// KeyboardInterrupt.
#[pyfunction]
#[pyo3(signature = (path, out = None, jobs = None, threads = None, rerun_failed = false))]
pub fn study(
    py: Python<'_>,
    path: PathBuf,
    out: Option<PathBuf>,
    jobs: Option<usize>,
    threads: Option<usize>,
    rerun_failed: bool,
) -> PyResult<(String, PathBuf)> {
    let registry = Registry::new();
    let s = st::load_study_with(&path, &registry).map_err(|e| model_error(py, &e))?;
    let refs = st::check_names(&s).map_err(|e| model_error(py, &e))?;
    if jobs == Some(0) {
        return Err(PyValueError::new_err("jobs must be at least 1"));
    }
    let out = st::choose_out(&s, out).map_err(PyValueError::new_err)?;
    let origin = st::Origin {
        study: st::absolute(&path),
        shard: None,
    };
    let io =
        |e: std::io::Error| PyOSError::new_err(format!("cannot write into {}: {e}", out.display()));
    origin.write(&out).map_err(io)?;
    let stop = Arc::new(AtomicBool::new(false));
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let opts = ExecOptions {
        out: out.clone(),
        jobs: jobs.unwrap_or(cores),
        threads: threads.unwrap_or(0),
        progress: false,
        rerun_failed,
        stop: stop.clone(),
    };
    let which: Vec<usize> = (0..s.cases.len()).collect();
    // The cases run on a thread of their own; this one holds the GIL only to look for Ctrl-C.
    let mut interrupt = None;
    let outcome = std::thread::scope(|scope| {
        let h = scope.spawn(|| st::exec::run_cases(&s, &which, &opts));
        while !h.is_finished() {
            py.detach(|| std::thread::sleep(Duration::from_millis(50)));
            if let Err(e) = py.check_signals() {
                stop.store(true, Ordering::Relaxed);
                interrupt = Some(e);
            }
        }
        h.join()
    });
    let outcome = match outcome {
        Ok(r) => r.map_err(io)?,
        Err(_) => return Err(PyOSError::new_err("the study's cases panicked")),
    };
    let command = format!("vcsim.study({:?})", path.display().to_string());
    let w = py
        .detach(|| st::write_report(&s, &refs, &out, &command))
        .map_err(io)?;
    if let Some(e) = interrupt {
        return Err(e);
    }
    if outcome.interrupted {
        return Err(PyKeyboardInterrupt::new_err("the study was interrupted"));
    }
    let table = std::fs::read_to_string(&w.table).map_err(io)?;
    Ok((table, out))
}
