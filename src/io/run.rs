//! A run on disk: the library runner ([`crate::runner::run`]) with an observer that writes CSV
//! series and VTK frames into the run folder and shows a progress bar; then the plot and the
//! run summary.

use super::csv_out::CsvSeries;
use super::plot::{plot_panels, Panel};
use super::vtk::VtkWriter;
use crate::pipeline::{Stage, World};
use crate::probe::Probe;
use crate::runner::{self, Observer, RunReport, Series};
use crate::Real;
use indicatif::{ProgressBar, ProgressStyle};
use std::fmt::Write as _;
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
        }
    }
}

/// What a run reports.
#[derive(Debug, Clone, Default)]
pub struct RunSummary {
    /// Steps, wall time, iterations and residuals, as the runner reports them.
    pub report: RunReport,
    /// Frames written.
    pub frames: usize,
    /// The probe series, as in `probes.csv`.
    pub series: Series,
    /// Warnings (e.g. a plot that could not be drawn); the run itself succeeded.
    pub warnings: Vec<String>,
    /// The summary text (also written to `summary.txt`).
    pub text: String,
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

/// Writes each sample: CSV rows, VTK frames, the progress bar.
struct Files {
    csv: CsvSeries,
    vtk: Option<VtkWriter>,
    frame: usize,
    bar: ProgressBar,
    stop: Option<Arc<AtomicBool>>,
}

impl Observer for Files {
    type Error = std::io::Error;
    fn sample(&mut self, world: &World, values: &[Real]) -> std::io::Result<()> {
        self.csv.write(world, values)?;
        // Every finished row is on disk at each output time: a run killed at any moment leaves
        // CSV files that end on a complete row.
        self.csv.flush()?;
        if let Some(v) = self.vtk.as_mut() {
            v.write_frame(world, self.frame)?;
        }
        self.frame += 1;
        self.bar.set_position(world.steps);
        self.bar.set_message(format!("{:.4}", world.time));
        Ok(())
    }
    fn stop_requested(&self) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
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
    let bar = if opts.progress {
        ProgressBar::new(total_steps)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template("{bar:40} t = {msg} s | {per_sec} (steps) | ETA {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut files = Files {
        csv: CsvSeries::create(&dir, &columns, world.fluid.is_some()).map_err(io)?,
        vtk: if opts.vtk {
            Some(VtkWriter::new(&dir, world).map_err(io)?)
        } else {
            None
        },
        frame: 0,
        bar,
        stop: opts.stop.clone(),
    };
    let result = runner::run(
        world,
        probes,
        opts.end,
        opts.every,
        &opts.bounds,
        &mut files,
    );
    files.bar.finish_and_clear();
    let (series, report) = match result {
        Ok(r) => r,
        Err(runner::RunError::Observer(e)) => return Err(io(e)),
        Err(runner::RunError::Interrupted { time, step }) => {
            files.csv.flush().map_err(io)?;
            if let Some(v) = files.vtk.as_ref() {
                v.write_collection().map_err(io)?;
            }
            let message = format!("interrupted at step {step}, t = {time:.6} s");
            let text = format!(
                "run summary\n  {message} (of {total_steps} steps); every output up to there is \
                 written\n  frames           {}\n",
                files.frame
            );
            std::fs::write(dir.join("summary.txt"), text).map_err(io)?;
            return Err(RunError::Interrupted {
                message,
                dir: dir.display().to_string(),
            });
        }
        Err(e) => {
            let _ = files.csv.flush();
            if let Some(v) = files.vtk.as_ref() {
                let _ = v.write_collection();
            }
            let dir = dir.display().to_string();
            return Err(match e {
                runner::RunError::Diverged { time, step, what } => RunError::Diverged {
                    time,
                    step,
                    body: what,
                    dir,
                },
                e @ runner::RunError::Bound { .. } => {
                    let message = e.to_string();
                    let text = format!("run summary\n  stopped: {message}\n");
                    let _ = std::fs::write(opts.out.join("summary.txt"), text);
                    RunError::OutOfBounds { message, dir }
                }
                e => RunError::Stopped {
                    message: e.to_string(),
                    dir,
                },
            });
        }
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
    summary.text = summary_text(world, &opts.description, &summary);
    std::fs::write(dir.join("summary.txt"), &summary.text).map_err(io)?;
    Ok(summary)
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

fn summary_text(world: &World, description: &str, summary: &RunSummary) -> String {
    let s = &summary.report;
    let mut t = String::new();
    let _ = writeln!(t, "run summary");
    if !description.is_empty() {
        let _ = writeln!(t, "  model            {description}");
    }
    let _ = writeln!(t, "  solver           {}", world.solver.name());
    let _ = writeln!(
        t,
        "  bodies           {} ({} dynamic), joints {}",
        world.bodies.len(),
        world.bodies.iter().filter(|b| b.is_dynamic()).count(),
        world.joints.len()
    );
    if let Some(f) = world.fluid.as_ref() {
        let _ = writeln!(
            t,
            "  fluid            {} particles, {} boundary particles",
            f.len(),
            f.boundary.len()
        );
    }
    let _ = writeln!(
        t,
        "  unknowns         {} (6 per dynamic body, 3 per particle{})",
        world.dof_count(),
        if world.dofs == crate::body::Dofs::Planar {
            "; planar: 3 and 2 of them move"
        } else {
            ""
        }
    );
    let _ = writeln!(
        t,
        "  steps            {} of dt = {} s, to t = {:.6} s",
        s.steps, world.dt, world.time
    );
    let _ = writeln!(
        t,
        "  wall time        {:.3} s ({:.1} steps/s)",
        s.wall.as_secs_f64(),
        s.steps as Real / s.wall.as_secs_f64().max(1e-9)
    );
    let _ = writeln!(
        t,
        "  iterations       mean {:.2}, max {}",
        s.mean_iterations, s.max_iterations
    );
    let _ = writeln!(
        t,
        "  residual         max {:.3e} m/s; {} steps stopped at the iteration limit",
        s.max_residual, s.unconverged_steps
    );
    let _ = writeln!(t, "  frames           {}", summary.frames);
    let _ = writeln!(t, "  wall time per stage (total, per step):");
    for st in Stage::ALL {
        let d = world.timings.get(st).as_secs_f64();
        let _ = writeln!(
            t,
            "    {:<16} {:>9.4} s  {:>9.2} µs",
            st.name(),
            d,
            1e6 * d / s.steps.max(1) as Real
        );
    }
    t
}
