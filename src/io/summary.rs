//! The run summary (`summary.txt`): what ran, for how long, how the solves went, the largest
//! compression, and per stage where the time went.

use crate::pipeline::{Stage, World};
use crate::runner::{RunReport, Series};
use crate::Real;
use std::fmt::Write as _;

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

/// The text of `summary.txt` for a finished run of `world`.
pub(super) fn summary_text(world: &World, description: &str, summary: &RunSummary) -> String {
    let s = &summary.report;
    let mut t = String::new();
    let _ = writeln!(t, "run summary");
    if !description.is_empty() {
        let _ = writeln!(t, "  model            {description}");
    }
    what_ran(&mut t, world);
    let _ = writeln!(
        t,
        "  steps            {} of dt = {} s, to t = {:.6} s",
        s.steps, world.dt, world.time
    );
    let wall = s.wall.as_secs_f64();
    let _ = writeln!(
        t,
        "  wall time        {:.3} s ({:.1} steps/s; {:.4} ms per step; {:.2} s per simulated second)",
        wall,
        s.steps as Real / wall.max(1e-9),
        1e3 * wall / s.steps.max(1) as Real,
        wall / (s.steps.max(1) as Real * world.dt)
    );
    how_the_solves_went(&mut t, world, s);
    let _ = writeln!(t, "  frames           {}", summary.frames);
    let _ = writeln!(t, "  wall time per stage (total, per step):");
    stage_times(&mut t, world, s.steps);
    t
}

/// The wall time of each stage of the step (total, per step).
fn stage_times(t: &mut String, world: &World, steps: u64) {
    for st in Stage::ALL {
        let d = world.timings.get(st).as_secs_f64();
        let _ = writeln!(
            t,
            "    {:<16} {:>9.4} s  {:>9.2} µs",
            st.name(),
            d,
            1e6 * d / steps.max(1) as Real
        );
    }
}

/// What ran: the solver, the bodies, the fluid and its method, the unknowns.
fn what_ran(t: &mut String, world: &World) {
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
            "  fluid            {} particles, {} boundary particles; method {}",
            f.len(),
            f.boundary.len(),
            world.fluid_method.name()
        );
    }
    let _ = writeln!(
        t,
        "  unknowns         {} ({})",
        world.dof_count(),
        if world.dofs == crate::body::Dofs::Planar {
            "2D: 3 per dynamic body, 2 per particle"
        } else {
            "6 per dynamic body, 3 per particle"
        }
    );
}

/// How the step's solvers did: the constraint solve, the fluid's sub-steps and inner solve,
/// the impulse resolver, the residual, the compression.
fn how_the_solves_went(t: &mut String, world: &World, s: &RunReport) {
    let _ = writeln!(
        t,
        "  iterations       mean {:.2}, max {} (constraint solve)",
        s.mean_iterations, s.max_iterations
    );
    if !world.fluid_method.in_solve() && world.fluid.is_some() {
        let _ = writeln!(
            t,
            "  sub-steps        mean {:.2} per step (explicit fluid)",
            s.mean_substeps
        );
    } else if s.mean_substeps > 1.0 {
        let _ = writeln!(
            t,
            "  sub-steps        mean {:.3} per step (steps split where a particle would move more than `cfl` spacings)",
            s.mean_substeps
        );
    }
    if !world.contact_resolver.rows_in_solve() {
        let (sum, max, capped, de) = s.impulses;
        let _ = writeln!(
            t,
            "  contacts         {}: mean {:.1} impulses per step, max {max}, {capped} steps capped; kinetic energy changed by {de:.6e} J in all",
            world.contact_resolver.name(),
            sum as Real / s.steps.max(1) as Real
        );
    }
    if let Some(line) = world.fluid_method.summary_line(s.steps) {
        let _ = writeln!(t, "  {line}");
    }
    if let Some(solve) = world.fluid_method.inner_solve() {
        let _ = writeln!(
            t,
            "  {:<16} mean {:.1} {} per sub-step, largest residual {:.2e}",
            solve.name, s.solve_iterations, solve.iterations, s.max_solve_residual
        );
    }
    let _ = writeln!(
        t,
        "  residual         max {:.3e} m/s; {} steps stopped at the iteration limit",
        s.max_residual, s.unconverged_steps
    );
    if 2 * s.unconverged_steps > s.steps {
        let advice = world.solver.cap_advice();
        let _ = writeln!(t, "                   {advice}");
    }
    if world.fluid.is_some() {
        let (c, at) = s.max_compression;
        let _ = writeln!(
            t,
            "  compression      largest {c:.3e} (t = {at:.6} s; checked every step)"
        );
    }
}
