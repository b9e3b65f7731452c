//! A run on disk: the library runner ([`crate::runner::run`]) with an observer that writes CSV
//! series and VTK frames into the run folder and shows a progress bar; then the plot and the
//! run summary.

use super::checkpoint::{self, Checkpoint, OutputMark};
use super::csv_out::CsvSeries;
use super::plot::{plot_panels, Panel};
use super::summary::RunSummary;
use super::vtk::VtkWriter;
use crate::pipeline::World;
use crate::probe::Probe;
use crate::runner::{self, Observer, Progress, RunReport, Series, Totals};
use crate::Real;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Options of a run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Run folder (created; must not hold an earlier run's files, see the CLI).
    pub out: PathBuf,
    /// End time (s).
    pub end: Real,
    /// Output interval (s): probes, CSV rows and VTK frames.
    pub every: Real,
    /// Write VTK frames.
    pub vtk: bool,
    /// Draw `plot.png` of the probes.
    pub plot: bool,
    /// One line describing the model, for the summary (may be empty).
    pub description: String,
    /// Show a progress bar on stderr (hidden anyway when stderr is not a terminal).
    pub progress: bool,
    /// Bounds checked after every step.
    pub bounds: crate::runner::Bounds,
    /// Set (e.g. by a signal handler) to stop the run after the current step: the state there
    /// is written, then the summary, marked as interrupted.
    pub stop: Option<Arc<AtomicBool>>,
    /// Write checkpoints (`--checkpoint-every`).
    pub checkpoint: Option<CheckpointOptions>,
    /// Go on from a checkpoint: the world was restored from it by the caller; the output files
    /// are cut back to where they were at the checkpoint and appended to.
    pub resume: Option<Resume>,
}

/// Checkpoints of a run: `checkpoint.bin` in the run folder, rewritten at the first output
/// time at least `every` seconds after the last one, when the run is interrupted, and at its
/// last step.
#[derive(Debug, Clone)]
pub struct CheckpointOptions {
    /// Interval (s).
    pub every: Real,
    /// The model file (for messages).
    pub model_path: String,
    /// The model text, saved in the checkpoint.
    pub model_text: String,
}

/// Where a resumed run takes up its outputs.
#[derive(Debug, Clone)]
pub struct Resume {
    /// The runner's totals at the checkpoint.
    pub totals: Totals,
    /// The output files at the checkpoint.
    pub output: OutputMark,
}

impl RunOptions {
    /// The output settings of `model` (interval, VTK, plot, description), into folder `out`, to
    /// end time `end` (s), without a progress bar.
    pub fn for_model(model: &crate::model::Model, out: PathBuf, end: Real) -> RunOptions {
        RunOptions {
            out,
            end,
            every: model.output.every.0,
            vtk: model.output.vtk,
            plot: model.output.plot,
            description: model.description.clone(),
            progress: false,
            bounds: model.guard,
            stop: None,
            checkpoint: None,
            resume: None,
        }
    }
}

/// Errors of a run.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// Writing an output file failed.
    #[error("cannot write the run output in {dir}: {source}")]
    Io {
        /// The run folder.
        dir: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The run left a bound (a blow-up); output up to there is kept, with the summary.
    #[error("{message}. Output up to here, all within the bounds, is kept in {dir}")]
    OutOfBounds {
        /// The diagnostic.
        message: String,
        /// The run folder.
        dir: String,
    },
    /// The run was interrupted; everything up to there is written, with the summary.
    #[error("{message}; output up to here is in {dir}")]
    Interrupted {
        /// Where it stopped.
        message: String,
        /// The run folder.
        dir: String,
    },
    /// The run stopped (contacts that cannot be computed); output up to there is kept.
    #[error("{message}. Output up to here is kept in {dir}")]
    Stopped {
        /// Why.
        message: String,
        /// The run folder.
        dir: String,
    },
    /// The state became non-finite.
    #[error("the simulation diverged at t = {time:.6} s (step {step}): {body} has a non-finite state; try a smaller time step. Output up to here is kept in {dir}")]
    Diverged {
        /// Time (s).
        time: Real,
        /// Step.
        step: u64,
        /// What diverged (a body or a fluid particle).
        body: String,
        /// The run folder.
        dir: String,
    },
}

/// Checkpoints being written.
struct Plan {
    opts: CheckpointOptions,
    dir: PathBuf,
    end: Real,
    columns: Vec<String>,
    /// Time of the last checkpoint (s), or of the start.
    last: Real,
    /// Whether one was written.
    written: bool,
}

/// Writes each sample: CSV rows, VTK frames, the progress bar; and the checkpoints.
struct Files {
    csv: CsvSeries,
    vtk: Option<VtkWriter>,
    frame: usize,
    bar: ProgressBar,
    stop: Option<Arc<AtomicBool>>,
    plan: Option<Plan>,
    /// The outputs before the last sample (a checkpoint after an off-grid sample leaves it out).
    before: OutputMark,
    /// The state at the last output time, kept to be written as the checkpoint when the next
    /// steps leave the bounds (all states that reach the observer passed them).
    good: Option<Checkpoint>,
}

impl Files {
    fn mark(&self) -> std::io::Result<OutputMark> {
        OutputMark::of(&self.csv, self.vtk.as_ref(), self.frame)
    }
}

impl Observer for Files {
    type Error = std::io::Error;
    fn sample(&mut self, world: &World, values: &[Real]) -> std::io::Result<()> {
        if self.plan.is_some() {
            self.before = self.mark()?;
        }
        self.csv.write(world, values)?;
        // Every finished row is on disk at each output time: a run killed at any moment leaves
        // CSV files that end on a complete row.
        self.csv.flush()?;
        if let Some(v) = self.vtk.as_mut() {
            v.write_frame(world, self.frame)?;
        }
        self.frame += 1;
        if world.steps == 0 && self.plan.is_some() {
            // A checkpoint of the start: even a run that leaves its bounds in the first steps
            // can be resumed (with a smaller dt, say).
            let totals = Totals {
                samples: 1,
                ..Totals::default()
            };
            let c = self.checkpoint(world, &totals, self.mark()?);
            self.write(c)?;
        }
        self.bar.set_position(world.steps);
        self.bar.set_message(format!("{:.4}", world.time));
        Ok(())
    }
    fn stop_requested(&self) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
    }
    fn stepped(&mut self, world: &World, at: &Progress) -> std::io::Result<()> {
        let stop = at.step < at.total && self.stop_requested();
        let Some(plan) = self.plan.as_ref() else {
            return Ok(());
        };
        let due = at.on_grid && world.time - plan.last >= plan.opts.every - 0.5 * world.dt;
        let write = due || stop || at.step == at.total;
        let keep = at.sampled && at.on_grid;
        if !(write || keep) {
            return Ok(());
        }
        // The checkpoint's outputs are those of an uninterrupted run up to this step: an
        // off-grid sample (the last step) is left out, to be cut off when the run resumes.
        let output = if at.sampled && !at.on_grid {
            self.before.clone()
        } else {
            self.mark()?
        };
        let c = self.checkpoint(world, at.totals, output);
        if write {
            self.write(c)?;
        } else {
            self.good = Some(c);
        }
        Ok(())
    }
}

impl Files {
    fn checkpoint(&self, world: &World, totals: &Totals, output: OutputMark) -> Checkpoint {
        let plan = self.plan.as_ref().expect("checkpoints are planned");
        Checkpoint {
            model_path: plan.opts.model_path.clone(),
            model_text: plan.opts.model_text.clone(),
            end: plan.end,
            every: plan.opts.every,
            columns: plan.columns.clone(),
            state: world.state(),
            totals: *totals,
            output,
        }
    }

    fn write(&mut self, c: Checkpoint) -> std::io::Result<()> {
        if let Some(plan) = self.plan.as_mut() {
            checkpoint::write(&plan.dir, &c)?;
            plan.last = c.state.time;
            plan.written = true;
        }
        self.good = None;
        Ok(())
    }

    /// After a blow-up: the last state within the bounds becomes the checkpoint.
    fn write_last_good(&mut self) -> std::io::Result<()> {
        match self.good.take() {
            Some(c) => self.write(c),
            None => Ok(()),
        }
    }

    /// How to resume, for messages: empty without a checkpoint.
    fn resume_hint(&self) -> String {
        match &self.plan {
            Some(p) if p.written => format!(
                "; the checkpoint at t = {:.6} s resumes it: vcsim run --resume {} (or vcsim \
                 run MODEL --resume {} with an edited model, e.g. a smaller dt)",
                p.last,
                p.dir.display(),
                p.dir.display()
            ),
            _ => String::new(),
        }
    }
}

/// Runs `world` to `opts.end`, sampling `probes`, and writes the outputs into `opts.out`.
pub fn run(world: &mut World, probes: &[Probe], opts: &RunOptions) -> Result<RunSummary, RunError> {
    let dir = opts.out.clone();
    let io = |source: std::io::Error| RunError::Io {
        dir: dir.display().to_string(),
        source,
    };
    std::fs::create_dir_all(&dir).map_err(io)?;
    let columns: Vec<String> = probes.iter().flat_map(|p| p.columns(world)).collect();
    let total_steps = (opts.end / world.dt).round().max(1.0) as u64;
    let mut files = open_files(world, &columns, opts).map_err(io)?;
    files.bar = progress_bar(total_steps, world.steps, opts.progress);
    let result = runner::run_from(
        world,
        probes,
        opts.end,
        opts.every,
        &opts.bounds,
        opts.resume.as_ref().map(|r| r.totals),
        &mut files,
    );
    files.bar.finish_and_clear();
    let (series, report) = match result {
        Ok(r) => r,
        Err(runner::RunError::Observer(e)) => return Err(io(e)),
        Err(e) => return Err(stopped(e, &mut files, opts, total_steps)),
    };
    files.csv.flush().map_err(io)?;
    if let Some(v) = files.vtk.as_ref() {
        v.write_collection().map_err(io)?;
    }
    let mut summary = summary_of(&report, files.frame, series);
    if opts.plot && !probes.is_empty() {
        if let Err(e) = plot(world, probes, &summary.series, &dir) {
            summary
                .warnings
                .push(format!("the plot could not be drawn: {e}"));
        }
    }
    summary.text = super::summary::summary_text(world, &opts.description, &summary);
    std::fs::write(dir.join("summary.txt"), &summary.text).map_err(io)?;
    Ok(summary)
}

/// The progress bar of a run of `total` steps, at step `at` (hidden unless `shown`).
fn progress_bar(total: u64, at: u64, shown: bool) -> ProgressBar {
    let bar = if shown {
        ProgressBar::new(total)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template("{bar:40} t = {msg} s | {per_sec} (steps) | ETA {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_position(at);
    bar
}

/// The run's output files in `opts.out`, new or (resuming) cut back to the checkpoint's marks.
fn open_files(world: &World, columns: &[String], opts: &RunOptions) -> std::io::Result<Files> {
    let dir = &opts.out;
    let fluid = world.fluid.is_some();
    let (csv, vtk, frame) = match &opts.resume {
        None => (
            CsvSeries::create(dir, columns, fluid)?,
            if opts.vtk {
                Some(VtkWriter::new(dir, world)?)
            } else {
                None
            },
            0,
        ),
        Some(r) => (
            CsvSeries::resume(dir, columns, fluid, &r.output.csv)?,
            if opts.vtk {
                let o = &r.output;
                Some(VtkWriter::resume(
                    dir,
                    world,
                    o.frames.clone(),
                    o.fluid_frames.clone(),
                )?)
            } else {
                None
            },
            r.output.frame,
        ),
    };
    Ok(Files {
        csv,
        vtk,
        frame,
        bar: ProgressBar::hidden(),
        stop: opts.stop.clone(),
        plan: opts.checkpoint.clone().map(|c| Plan {
            opts: c,
            dir: dir.clone(),
            end: opts.end,
            columns: columns.to_vec(),
            last: world.time,
            written: false,
        }),
        before: OutputMark::default(),
        good: None,
    })
}

/// A run that stopped before its end (interrupted, diverged, out of bounds): everything written
/// up to there is flushed, the summary says where, and the error says how to go on.
fn stopped(
    e: runner::RunError<std::io::Error>,
    files: &mut Files,
    opts: &RunOptions,
    total_steps: u64,
) -> RunError {
    let dir = &opts.out;
    let io = |source: std::io::Error| RunError::Io {
        dir: dir.display().to_string(),
        source,
    };
    if let runner::RunError::Interrupted { time, step } = e {
        let written = (|| {
            files.csv.flush()?;
            if let Some(v) = files.vtk.as_ref() {
                v.write_collection()?;
            }
            Ok(())
        })();
        if let Err(e) = written {
            return io(e);
        }
        let message = format!(
            "interrupted at step {step}, t = {time:.6} s{}",
            files.resume_hint()
        );
        let text = format!(
            "run summary\n  {message} (of {total_steps} steps); every output up to there is \
             written\n  frames           {}\n",
            files.frame
        );
        if let Err(e) = std::fs::write(dir.join("summary.txt"), text) {
            return io(e);
        }
        return RunError::Interrupted {
            message,
            dir: dir.display().to_string(),
        };
    }
    let _ = files.csv.flush();
    if let Some(v) = files.vtk.as_ref() {
        let _ = v.write_collection();
    }
    let _ = files.write_last_good();
    let hint = files.resume_hint();
    let dir = dir.display().to_string();
    match e {
        runner::RunError::Diverged { time, step, what } => RunError::Diverged {
            time,
            step,
            body: what,
            dir,
        },
        e @ runner::RunError::InterruptedInStep { .. } => {
            let message = format!("{e}{hint}");
            let text = format!(
                "run summary\n  {message} (of {total_steps} steps); every output of the steps \
                 before it is written\n  frames           {}\n",
                files.frame
            );
            let _ = std::fs::write(opts.out.join("summary.txt"), text);
            RunError::Interrupted { message, dir }
        }
        e @ (runner::RunError::Bound { .. } | runner::RunError::Cap { .. }) => {
            let message = format!("{e}{hint}");
            let text = format!("run summary\n  stopped: {message}\n");
            let _ = std::fs::write(opts.out.join("summary.txt"), text);
            RunError::OutOfBounds { message, dir }
        }
        e => RunError::Stopped {
            message: e.to_string(),
            dir,
        },
    }
}

fn summary_of(r: &RunReport, frames: usize, series: Series) -> RunSummary {
    RunSummary {
        report: r.clone(),
        frames,
        series,
        warnings: Vec::new(),
        text: String::new(),
    }
}

/// `plot.png`: one panel per probe.
fn plot(
    world: &World,
    probes: &[Probe],
    series: &Series,
    dir: &std::path::Path,
) -> Result<(), String> {
    let mut panels = Vec::new();
    let mut col = 0;
    for p in probes {
        let names = p.columns(world);
        let data = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), series.values[col + i].clone()))
            .collect();
        col += names.len();
        panels.push(Panel {
            title: p.title(world),
            series: data,
        });
    }
    plot_panels(&dir.join("plot.png"), &series.time, &panels).map_err(|e| e.to_string())
}
