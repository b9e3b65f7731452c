//! Running a study's cases: several at a time on one machine (each on its own rayon pool, so
//! `jobs × threads` stays within the cores), each in its folder, each isolated — a case that is
//! invalid, leaves its bounds, diverges or panics is recorded as failed with its reason and the
//! others go on. A case whose `case.ron` (comments aside) and version match a finished result
//! is not rerun.

use super::expand::{Case, Study};
use super::result::{same_case, series_csv, write_atomic, CaseResult, RunNumbers, Status, VERSION};
use crate::pipeline::World;
use crate::runner::{Observer, Progress};
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// How to run.
#[derive(Debug, Clone)]
pub struct ExecOptions {
    /// The study's output folder (cases go into `cases/<label>/`).
    pub out: PathBuf,
    /// Cases run at once.
    pub jobs: usize,
    /// Threads per case (0: the cores divided among the jobs).
    pub threads: usize,
    /// Draw progress bars (on a terminal).
    pub progress: bool,
    /// Rerun cases that failed before.
    pub rerun_failed: bool,
    /// Set (by a signal) to stop: running cases end and are not recorded; finished ones stay.
    pub stop: Arc<AtomicBool>,
}

/// What happened to each case asked for.
#[derive(Debug, Default, Clone)]
pub struct ExecOutcome {
    /// Cases run now (by index).
    pub ran: Vec<usize>,
    /// Cases skipped: unchanged since their result.
    pub skipped: Vec<usize>,
    /// Cases that failed (now or before).
    pub failed: Vec<usize>,
    /// Whether a stop was requested before every case finished.
    pub interrupted: bool,
}

/// The folder of a case.
pub fn case_dir(out: &Path, case: &Case) -> PathBuf {
    out.join("cases").join(&case.dir)
}

/// Whether the case's result on disk is current (the same model, comments aside; the same
/// version).
pub fn is_current(out: &Path, case: &Case, rerun_failed: bool) -> bool {
    let dir = case_dir(out, case);
    same_case(&dir, &case.text)
        && CaseResult::read(&dir).is_some_and(|r| {
            r.version == VERSION && !(rerun_failed && matches!(r.status, Status::Failed(_)))
        })
}

/// The threads each of `jobs` cases gets on this machine.
pub fn threads_per_job(jobs: usize, threads: usize) -> usize {
    if threads > 0 {
        return threads;
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    (cores / jobs.max(1)).max(1)
}

/// Splits the cases into those finished and current (the outcome's `skipped`, with `failed` for
/// those that failed) and those to run.
fn sort_out_finished(
    study: &Study,
    which: &[usize],
    opts: &ExecOptions,
) -> std::io::Result<(ExecOutcome, Vec<usize>)> {
    let mut outcome = ExecOutcome::default();
    let mut todo = Vec::new();
    for &i in which {
        let c = &study.cases[i];
        if !is_current(&opts.out, c, opts.rerun_failed) {
            todo.push(i);
            continue;
        }
        outcome.skipped.push(i);
        let dir = case_dir(&opts.out, c);
        // The folder keeps the model as it now reads (its comments may have changed).
        let file = dir.join("case.ron");
        if std::fs::read_to_string(&file).ok().as_deref() != Some(c.text.as_str()) {
            write_atomic(&file, &c.text)?;
        }
        if matches!(
            CaseResult::read(&dir).map(|r| r.status),
            Some(Status::Failed(_))
        ) {
            outcome.failed.push(i);
        }
    }
    Ok((outcome, todo))
}

/// Runs the cases of `study` with the given indices (module docs).
pub fn run_cases(
    study: &Study,
    which: &[usize],
    opts: &ExecOptions,
) -> std::io::Result<ExecOutcome> {
    std::fs::create_dir_all(opts.out.join("cases"))?;
    let (mut outcome, todo) = sort_out_finished(study, which, opts)?;
    let jobs = opts.jobs.clamp(1, todo.len().max(1));
    let threads = threads_per_job(jobs, opts.threads);
    let multi = if opts.progress {
        MultiProgress::new()
    } else {
        MultiProgress::with_draw_target(indicatif::ProgressDrawTarget::hidden())
    };
    let overall = multi.add(ProgressBar::new(which.len() as u64));
    overall.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} cases | {elapsed} | {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    overall.set_position(outcome.skipped.len() as u64);
    overall.set_message(format!("{jobs} at a time, {threads} thread(s) each"));
    let next = AtomicUsize::new(0);
    let results = Mutex::new((Vec::new(), Vec::new()));
    let io_error: Mutex<Option<std::io::Error>> = Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build();
                loop {
                    if opts.stop.load(Ordering::Relaxed) {
                        return;
                    }
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&i) = todo.get(k) else { return };
                    let case = &study.cases[i];
                    let bar = multi.add(ProgressBar::new(1));
                    bar.set_style(
                        ProgressStyle::with_template("  {bar:30} {msg}")
                            .unwrap_or_else(|_| ProgressStyle::default_bar()),
                    );
                    bar.set_message(case.label.clone());
                    let r = match &pool {
                        Ok(p) => {
                            p.install(|| run_one(study, case, &opts.out, threads, &bar, &opts.stop))
                        }
                        Err(e) => Err(std::io::Error::other(e.to_string())),
                    };
                    bar.finish_and_clear();
                    multi.remove(&bar);
                    match r {
                        Ok(Some(failed)) => {
                            let mut g = results.lock().unwrap_or_else(|p| p.into_inner());
                            g.0.push(i);
                            if failed {
                                g.1.push(i);
                            }
                            overall.inc(1);
                        }
                        Ok(None) => {}
                        Err(e) => {
                            *io_error.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                            opts.stop.store(true, Ordering::Relaxed);
                        }
                    }
                }
            });
        }
    });
    overall.finish_and_clear();
    if let Some(e) = io_error.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    let (ran, failed) = results.into_inner().unwrap_or_else(|p| p.into_inner());
    outcome.interrupted = ran.len() < todo.len();
    outcome.ran = ran;
    outcome.failed.extend(failed);
    outcome.ran.sort_unstable();
    outcome.failed.sort_unstable();
    Ok(outcome)
}

/// The study's observer of one case: progress, the first step's iterations, the stop flag.
struct CaseObserver<'a> {
    bar: &'a ProgressBar,
    stop: &'a AtomicBool,
    first_iterations: Option<usize>,
}

impl Observer for CaseObserver<'_> {
    type Error = std::convert::Infallible;
    fn sample(&mut self, _: &World, _: &[f64]) -> Result<(), Self::Error> {
        Ok(())
    }
    fn stepped(&mut self, world: &World, at: &Progress) -> Result<(), Self::Error> {
        self.first_iterations
            .get_or_insert(world.last_solve.iterations);
        if at.step == 1 || at.step.is_multiple_of(16) || at.step == at.total {
            self.bar.set_length(at.total);
            self.bar.set_position(at.step);
        }
        Ok(())
    }
    fn stop_requested(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// Runs one case into its folder. `Ok(Some(failed))` when a result was recorded, `Ok(None)`
/// when the run was interrupted (nothing recorded).
fn run_one(
    study: &Study,
    case: &Case,
    out: &Path,
    threads: usize,
    bar: &ProgressBar,
    stop: &AtomicBool,
) -> std::io::Result<Option<bool>> {
    let dir = case_dir(out, case);
    std::fs::create_dir_all(&dir)?;
    let _ = std::fs::remove_file(dir.join("result.ron"));
    write_atomic(&dir.join("case.ron"), &case.text)?;
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        simulate(study, case, threads, bar, stop)
    }));
    let (status, numbers, series) = match run {
        Ok(Ok(Some((n, s)))) => (Status::Done, n, Some(s)),
        Ok(Ok(None)) => return Ok(None),
        Ok(Err(f)) => {
            let (reason, n, s) = *f;
            (Status::Failed(reason), n, s)
        }
        Err(p) => {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown".into());
            (
                Status::Failed(format!(
                    "the run panicked: {msg} (a defect of vcsim: please report it with case.ron)"
                )),
                RunNumbers::default(),
                None,
            )
        }
    };
    if let Some(s) = &series {
        write_atomic(&dir.join("probes.csv"), &series_csv(s))?;
    } else {
        let _ = std::fs::remove_file(dir.join("probes.csv"));
    }
    let failed = matches!(status, Status::Failed(_));
    CaseResult {
        label: case.label.clone(),
        version: VERSION.into(),
        status,
        numbers,
    }
    .write(&dir)?;
    Ok(Some(failed))
}

type Failure = Box<(String, RunNumbers, Option<crate::runner::Series>)>;

/// Builds and runs a case's world. `Ok(None)`: interrupted.
fn simulate(
    study: &Study,
    case: &Case,
    threads: usize,
    bar: &ProgressBar,
    stop: &AtomicBool,
) -> Result<Option<(RunNumbers, crate::runner::Series)>, Failure> {
    let fail = |m: String| Box::new((m, RunNumbers::default(), None));
    if let Some(e) = &case.error {
        return Err(fail(format!("invalid: {e}")));
    }
    let model = crate::model::load::parse_str_with(&study.model_path, &case.text, &study.registry)
        .map_err(|e| fail(format!("invalid: {e}")))?;
    let mut world = crate::model::build_world_with(&model, &study.registry).map_err(|e| {
        fail(format!(
            "invalid: {}",
            e.locate(&study.model_path, &case.text)
        ))
    })?;
    // A case owns its job's threads: the other workers poll for work during a step.
    world.active_wait = crate::pipeline::active_wait_wanted();
    let probes = crate::model::resolve_probes(&model, &world).map_err(|e| {
        fail(format!(
            "invalid: {}",
            e.locate(&study.model_path, &case.text)
        ))
    })?;
    let mut obs = CaseObserver {
        bar,
        stop,
        first_iterations: None,
    };
    let particles = world.fluid.as_ref().map_or(0, |f| f.len());
    let r = crate::runner::run(
        &mut world,
        &probes,
        model.time.end.0,
        model.output.every.0,
        &model.guard,
        &mut obs,
    );
    let numbers = |rep: &crate::runner::RunReport, first: Option<usize>| RunNumbers {
        steps: rep.steps,
        sim_time: rep.steps as f64 * world.dt,
        wall_s: rep.wall.as_secs_f64(),
        threads,
        mean_iterations: rep.mean_iterations,
        first_iterations: first.unwrap_or(0),
        steps_at_cap: rep.unconverged_steps,
        max_residual: rep.max_residual,
        max_compression: rep.max_compression.0,
        mean_substeps: rep.mean_substeps,
        pressure_iterations: rep.solve_iterations,
        impulses: rep.impulses.0,
        particles,
    };
    match r {
        Ok((series, rep)) => Ok(Some((numbers(&rep, obs.first_iterations), series))),
        Err(
            crate::runner::RunError::Interrupted { .. }
            | crate::runner::RunError::InterruptedInStep { .. },
        ) => Ok(None),
        Err(e) => {
            let n = RunNumbers {
                steps: world.steps,
                particles,
                threads,
                ..RunNumbers::default()
            };
            Err(Box::new((e.to_string(), n, None)))
        }
    }
}
