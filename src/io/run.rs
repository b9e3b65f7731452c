//! The run loop: steps the world to the end time, samples probes, writes CSV, VTK frames, the
//! plot and the run summary into the run folder, and shows a progress bar.

use super::csv_out::CsvSeries;
use super::plot::{plot_panels, Panel};
use super::probe::Probe;
use super::vtk::VtkWriter;
use crate::model::Model;
use crate::pipeline::{Stage, World};
use crate::Real;
use indicatif::{ProgressBar, ProgressStyle};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Options of a run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Run folder (created; must not hold an earlier run's files, see the CLI).
    pub out: PathBuf,
    /// End time (s).
    pub end: Real,
    /// Show a progress bar on stderr (hidden anyway when stderr is not a terminal).
    pub progress: bool,
}

/// What a run reports.
#[derive(Debug, Clone, Default)]
pub struct RunSummary {
    /// Steps taken.
    pub steps: u64,
    /// Wall time of the whole run.
    pub wall: Duration,
    /// Mean solver iterations per step.
    pub mean_iterations: Real,
    /// Largest solver iteration count of a step.
    pub max_iterations: usize,
    /// Largest final residual of a step (m/s).
    pub max_residual: Real,
    /// Steps whose solve stopped at the iteration limit.
    pub unconverged_steps: u64,
    /// Frames written.
    pub frames: usize,
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

/// Runs `world` (built from `model`) to `opts.end` and writes the outputs.
pub fn run(world: &mut World, model: &Model, opts: &RunOptions) -> Result<RunSummary, RunError> {
    let dir = opts.out.clone();
    let io = |source: std::io::Error| RunError::Io {
        dir: dir.display().to_string(),
        source,
    };
    std::fs::create_dir_all(&dir).map_err(io)?;
    let probes: Vec<Probe> = model
        .probes
        .iter()
        .filter_map(|p| Probe::resolve(p, world))
        .collect();
    let columns: Vec<String> = probes.iter().flat_map(|p| p.columns(world)).collect();
    let mut csv = CsvSeries::create(&dir, &columns, world.fluid.is_some()).map_err(io)?;
    let mut vtk = if model.output.vtk {
        Some(VtkWriter::new(&dir, world).map_err(io)?)
    } else {
        None
    };
    let mut times = Vec::new();
    let mut samples: Vec<Vec<Real>> = vec![Vec::new(); columns.len()];
    let mut row = Vec::with_capacity(columns.len());

    let total_steps = (opts.end / world.dt).round().max(1.0) as u64;
    let every = (model.output.every.0 / world.dt).round().max(1.0) as u64;
    let bar = if opts.progress {
        ProgressBar::new(total_steps)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template("{bar:40} t = {msg} s | {per_sec} steps | ETA {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_message(format!("{:.4}", world.time));
    let start = Instant::now();
    let mut summary = RunSummary::default();
    let mut iter_sum = 0u64;
    let mut frame = 0;
    let mut output = |world: &World, summary: &mut RunSummary| -> Result<(), RunError> {
        row.clear();
        for p in &probes {
            p.sample(world, &mut row);
        }
        times.push(world.time);
        for (s, v) in samples.iter_mut().zip(&row) {
            s.push(*v);
        }
        csv.write(world, &row).map_err(io)?;
        if let Some(v) = vtk.as_mut() {
            v.write_frame(world, frame).map_err(io)?;
        }
        frame += 1;
        summary.frames = frame;
        Ok(())
    };
    output(world, &mut summary)?;
    for step in 1..=total_steps {
        let info = world.step();
        iter_sum += info.iterations as u64;
        summary.max_iterations = summary.max_iterations.max(info.iterations);
        summary.max_residual = summary.max_residual.max(info.residual);
        summary.unconverged_steps += (!info.converged) as u64;
        let bad_body = world
            .bodies
            .iter()
            .find(|b| {
                !(b.pose.translation.vector.iter().all(|x| x.is_finite())
                    && b.lin_vel
                        .iter()
                        .chain(b.ang_vel.iter())
                        .all(|x| x.is_finite()))
            })
            .map(|b| format!("body `{}`", b.name));
        let bad_fluid = world.fluid.as_ref().and_then(|f| {
            f.pos
                .iter()
                .zip(&f.vel)
                .zip(&f.id)
                .find(|((p, v), _)| !p.iter().chain(v.iter()).all(|x| x.is_finite()))
                .map(|(_, id)| format!("fluid particle {id}"))
        });
        if let Some(b) = bad_body.or(bad_fluid) {
            let _ = csv.flush();
            if let Some(v) = vtk.as_ref() {
                let _ = v.write_collection();
            }
            return Err(RunError::Diverged {
                time: world.time,
                step,
                body: b,
                dir: dir.display().to_string(),
            });
        }
        if step % every == 0 || step == total_steps {
            let t0 = Instant::now();
            output(world, &mut summary)?;
            world.timings.add(Stage::Output, t0);
            bar.set_position(step);
            bar.set_message(format!("{:.4}", world.time));
        }
    }
    bar.finish_and_clear();
    csv.flush().map_err(io)?;
    if let Some(v) = vtk.as_ref() {
        v.write_collection().map_err(io)?;
    }
    summary.steps = total_steps;
    summary.wall = start.elapsed();
    summary.mean_iterations = iter_sum as Real / total_steps as Real;
    if model.output.plot && !probes.is_empty() {
        let mut panels = Vec::new();
        let mut col = 0;
        for p in &probes {
            let names = p.columns(world);
            let series = names
                .iter()
                .map(|n| {
                    (
                        n.clone(),
                        samples[col + names.iter().position(|x| x == n).unwrap_or(0)].clone(),
                    )
                })
                .collect();
            col += names.len();
            panels.push(Panel {
                title: p.title(world),
                series,
            });
        }
        if let Err(e) = plot_panels(&dir.join("plot.png"), &times, &panels) {
            eprintln!("warning: the plot could not be drawn: {e}");
        }
    }
    summary.text = summary_text(world, model, &summary);
    std::fs::write(dir.join("summary.txt"), &summary.text).map_err(io)?;
    Ok(summary)
}

fn summary_text(world: &World, model: &Model, s: &RunSummary) -> String {
    let mut t = String::new();
    let _ = writeln!(t, "run summary");
    if !model.description.is_empty() {
        let _ = writeln!(t, "  model            {}", model.description);
    }
    let _ = writeln!(t, "  solver           {}", world.solver.name());
    let _ = writeln!(
        t,
        "  bodies           {} ({} DOFs), joints {}",
        world.bodies.len(),
        world.dof_count(),
        world.joints.len()
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
    let _ = writeln!(t, "  frames           {}", s.frames);
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
