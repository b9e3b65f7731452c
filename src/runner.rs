//! The library runner: steps a [`World`] to an end time, checks every step for divergence,
//! samples probes at output times and returns their series in memory. It prints nothing and
//! writes no file: an [`Observer`] sees every sample (the CLI's observer writes CSV and VTK
//! frames and draws the progress bar; a study keeps only the series).
//!
//! Sampling: the state at t = 0, then every `round(every / dt)` steps (at least one), and the
//! last step; the run takes `round(until / dt)` steps (at least one).

use crate::interrupt::Abort;
use crate::pipeline::{Stage, World};
use crate::probe::Probe;
use crate::Real;
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// Bounds checked after every step (RON: `guard: (max_compression: 0.2, max_cfl: 1)`). A run
/// whose state leaves them stops with [`RunError::Bound`]: a blow-up never passes silently.
/// A non-finite state always stops the run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Bounds {
    /// Largest fluid compression `(ρ − ρ0)/ρ0` at the start of a step (dimensionless). Default
    /// 0.2: the validated models stay below 0.07; a time step far too long for the flow gives
    /// compressions of several hundred per cent.
    pub max_compression: Real,
    /// Largest distance a fluid particle may move relative to the fluid's mean motion in one
    /// step, in particle spacings: `max |v_i − v̄| dt / l` (a CFL number), with dt the model
    /// step divided by the sub-steps of its last step (WCSPH and ISPH move their particles in
    /// sub-steps; the constraint method splits a step where a particle is fast, its `cfl`).
    /// Default 1: a particle that jumps a spacing per step passes through its neighbours and
    /// walls.
    pub max_cfl: Real,
    /// Most sub-steps a fluid method may take in one model step (WCSPH and ISPH; the constraint
    /// method stops the run before a step it would split into more), 1 to 1e9. Default 10 000:
    /// the shipped WCSPH models take at most a few hundred; a wall driven at hundreds of metres
    /// per second asks millions, which is a run that never ends.
    pub max_substeps: u64,
    /// How far outside the scene a dynamic body's centre or a fluid particle may go, in
    /// multiples of the scene's largest extent (dimensionless). The scene is the box around the
    /// fluid, its walls and the bodies when the model was built; only models with a fluid are
    /// checked (a grain falling off a heap's floor is a model's business, a body thrown metres
    /// out of a tank is a blow-up). Default 1: a particle or body that far out left the water
    /// for good; raise it for a body meant to leave (a projectile, a tank carried far).
    pub scene_margin: Real,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            max_compression: 0.2,
            max_cfl: 1.0,
            max_substeps: 10_000,
            scene_margin: 1.0,
        }
    }
}

impl Bounds {
    /// Checks every value; the error names the field (as in RON).
    pub fn validate(&self) -> Result<(), crate::params::ParamError> {
        crate::params::positive("max_compression", self.max_compression)?;
        crate::params::positive("max_cfl", self.max_cfl)?;
        crate::params::positive("scene_margin", self.scene_margin)?;
        if !(1..=1_000_000_000).contains(&self.max_substeps) {
            return Err(crate::params::ParamError::new(
                "max_substeps",
                "from 1 to 1e9 sub-steps per model step",
                self.max_substeps as Real,
            ));
        }
        Ok(())
    }

    /// The first bound `world` is outside of: (bound, value, limit, what).
    pub fn check(&self, world: &World) -> Option<(&'static str, Real, Real, String)> {
        let f = world.fluid.as_ref()?;
        if let Some((i, c)) = f.largest_compression() {
            if c > self.max_compression {
                let p = f.pos[i];
                let what = format!(
                    "fluid particle {} at ({:.4}, {:.4}, {:.4}) m",
                    f.id[i], p.x, p.y, p.z
                );
                return Some(("max_compression", c, self.max_compression, what));
            }
        }
        // A method that moves its particles in sub-steps: the jump per sub-step is what must
        // stay below a spacing.
        let substeps = world.last_substeps.substeps.max(1) as Real;
        let scale = world.dt / substeps / f.params.spacing;
        if let Some((i, u)) = f.fastest_relative() {
            if u * scale > self.max_cfl {
                let p = f.pos[i];
                let what = format!(
                    "fluid particle {} at ({:.4}, {:.4}, {:.4}) m, {u:.3e} m/s relative to the \
                     fluid's mean",
                    f.id[i], p.x, p.y, p.z
                );
                return Some(("max_cfl", u * scale, self.max_cfl, what));
            }
        }
        self.check_scene(world)
    }

    /// The dynamic body or fluid particle farthest outside [`World::scene`], if farther than
    /// `scene_margin` times the scene's largest extent.
    fn check_scene(&self, world: &World) -> Option<(&'static str, Real, Real, String)> {
        let [lo, hi] = world.scene?;
        let f = world.fluid.as_ref()?;
        let size = (hi - lo).max().max(f.params.spacing);
        let outside =
            |p: &crate::math::Vec3| (lo - p).sup(&(p - hi)).sup(&Default::default()).norm() / size;
        let body = world
            .bodies
            .iter()
            .filter(|b| b.kind == crate::body::Kind::Dynamic)
            .map(|b| (outside(&b.pose.translation.vector), b))
            .max_by(|a, b| a.0.total_cmp(&b.0));
        let particle = f
            .pos
            .iter()
            .map(outside)
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(&b.1));
        // The farthest out: a body (Ok) or a particle (Err, its index).
        let (d, who) = match (body, particle) {
            (Some((db, b)), Some((_, dp))) if db >= dp => (db, Ok(b)),
            (Some((db, b)), None) => (db, Ok(b)),
            (_, Some((i, dp))) => (dp, Err(i)),
            (None, None) => return None,
        };
        (d > self.scene_margin).then(|| {
            let (what, p) = match who {
                Ok(b) => (format!("body `{}`", b.name), b.pose.translation.vector),
                Err(i) => (format!("fluid particle {}", f.id[i]), f.pos[i]),
            };
            let what = format!(
                "{what} at ({:.4}, {:.4}, {:.4}) m, outside the scene from ({:.4}, {:.4}, {:.4}) \
                 to ({:.4}, {:.4}, {:.4}) m by {d:.2} times its size; if it is meant to go there, \
                 raise guard.scene_margin",
                p.x, p.y, p.z, lo.x, lo.y, lo.z, hi.x, hi.y, hi.z
            );
            ("scene_margin", d, self.scene_margin, what)
        })
    }
}

/// Probe series sampled during a run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Series {
    /// Column names, probe by probe (as in `probes.csv`).
    pub columns: Vec<String>,
    /// Sample times (s).
    pub time: Vec<Real>,
    /// One vector per column, aligned with `time`.
    pub values: Vec<Vec<Real>>,
}

impl Series {
    /// The values of the column with this name.
    pub fn column(&self, name: &str) -> Option<&[Real]> {
        let i = self.columns.iter().position(|c| c == name)?;
        Some(&self.values[i])
    }

    /// Appends a sample: time `t` (s) and one value per column.
    pub fn push(&mut self, t: Real, row: &[Real]) {
        self.time.push(t);
        for (s, v) in self.values.iter_mut().zip(row) {
            s.push(*v);
        }
    }
}

/// What a run reports besides the series.
#[derive(Debug, Clone, Default)]
pub struct RunReport {
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
    /// Samples taken (the state at t = 0 included).
    pub samples: usize,
    /// Largest fluid compression of any step and the time it was seen ([`Totals`]).
    pub max_compression: (Real, Real),
    /// Mean sub-steps per step of an explicit fluid method (0 for the constraint method).
    pub mean_substeps: Real,
    /// Mean iterations of the fluid method's inner solve per sub-step (ISPH: conjugate-gradient
    /// iterations of the pressure solve; 0 without one).
    pub solve_iterations: Real,
    /// Largest relative residual of the fluid method's inner solve (0 without one).
    pub max_solve_residual: Real,
    /// Impulse contact resolvers ([`Totals::impulses`]).
    pub impulses: (u64, usize, u64, Real),
}

/// Running totals of a run's solver statistics, carried across a checkpoint so that a resumed
/// run reports the whole run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Totals {
    /// Solver iterations summed over the steps.
    pub iterations: u64,
    /// Largest solver iteration count of a step.
    pub max_iterations: usize,
    /// Largest final residual of a step (m/s).
    pub max_residual: Real,
    /// Steps whose solve stopped at the iteration limit.
    pub unconverged_steps: u64,
    /// Samples taken.
    pub samples: usize,
    /// Wall time of the earlier parts of a resumed run (s).
    pub earlier_wall: Real,
    /// Largest fluid compression `(ρ − ρ0)/ρ0` seen at any step (dimensionless; the density
    /// error the step's rows were built with, as the guard checks it), and the time of that
    /// step's start (s). Zero without fluid.
    pub max_compression: (Real, Real),
    /// Sub-steps of an explicit fluid method summed over the steps.
    pub substeps: u64,
    /// Iterations of the fluid method's inner solve summed over the steps.
    pub solve_iterations: u64,
    /// Largest relative residual of the fluid method's inner solve.
    pub max_solve_residual: Real,
    /// Impulse contact resolvers: impulses summed over the steps, the largest of a step, the
    /// steps that stopped at a cap, and the kinetic energy they changed, summed (J).
    pub impulses: (u64, usize, u64, Real),
}

/// Where a run stands after a step (for observers that save checkpoints).
#[derive(Debug, Clone, Copy)]
pub struct Progress<'a> {
    /// The step just taken.
    pub step: u64,
    /// The last step of the run.
    pub total: u64,
    /// Whether the step is on the output grid (every `round(every / dt)` steps).
    pub on_grid: bool,
    /// Whether the state after this step was sampled (on the grid, or the last step).
    pub sampled: bool,
    /// Totals including this step.
    pub totals: &'a Totals,
}

/// Sees each sample of a run, and each step.
pub trait Observer {
    /// Why the observer failed (e.g. a file could not be written).
    type Error;
    /// Called at each output time with the world and the probe values of this sample.
    fn sample(&mut self, world: &World, values: &[Real]) -> Result<(), Self::Error>;
    /// Called after each step, after its sample if it has one. Default: nothing.
    fn stepped(&mut self, _world: &World, _at: &Progress) -> Result<(), Self::Error> {
        Ok(())
    }
    /// Asked after each step: whether the run should stop there (an interruption). The state
    /// at that step is sampled before the run returns [`RunError::Interrupted`]. Default: never.
    fn stop_requested(&self) -> bool {
        false
    }
}

/// An observer that does nothing: the run only returns its series.
impl Observer for () {
    type Error = std::convert::Infallible;
    fn sample(&mut self, _: &World, _: &[Real]) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// Why a run stopped early.
#[derive(Debug, thiserror::Error)]
pub enum RunError<E> {
    /// The state became non-finite.
    #[error("the simulation diverged at t = {time:.6} s (step {step}): {what} has a non-finite state; try a smaller time step")]
    Diverged {
        /// Time (s).
        time: Real,
        /// Step.
        step: u64,
        /// What diverged (a body or a fluid particle).
        what: String,
    },
    /// Contacts between two bodies could not be computed (an unsupported shape pair).
    #[error("at t = {time:.6} s (step {step}) contacts between {what} could not be computed; the run cannot go on without them")]
    Contacts {
        /// Time (s).
        time: Real,
        /// Step.
        step: u64,
        /// The bodies, named.
        what: String,
    },
    /// A bound of [`Bounds`] was left after step `step`; the samples before it were all within
    /// the bounds.
    #[error("the run left its bounds after step {step} (t = {time:.6} s): {bound} = {value:.4e} exceeds its limit {limit} ({what}); {hint}; the bounds are the model's `guard`")]
    Bound {
        /// Time (s).
        time: Real,
        /// Step.
        step: u64,
        /// The bound's name as in RON.
        bound: &'static str,
        /// The value reached.
        value: Real,
        /// The limit.
        limit: Real,
        /// The worst particle or body.
        what: String,
        /// What to change ([`bound_hint`]).
        hint: String,
    },
    /// The observer asked to stop (e.g. on SIGINT); the state at `step` was sampled.
    #[error("interrupted at step {step}, t = {time:.6} s")]
    Interrupted {
        /// Time (s).
        time: Real,
        /// Step.
        step: u64,
    },
    /// A signal arrived during step `step` and the step ran on for
    /// [`crate::interrupt::GRACE`]: it was left unfinished, and the samples end before it.
    #[error("interrupted during step {step} (from t = {time:.6} s), which was left unfinished")]
    InterruptedInStep {
        /// Time at the start of the unfinished step (s).
        time: Real,
        /// The unfinished step.
        step: u64,
    },
    /// A loop inside step `step` reached its cap; the samples end before it.
    #[error("step {step} stopped at a cap: {what}; the cap is set or explained by `{field}`")]
    Cap {
        /// Time at the start of the step (s).
        time: Real,
        /// The step.
        step: u64,
        /// What reached its cap.
        what: String,
        /// The model field that sets or explains the cap.
        field: &'static str,
    },
    /// The observer failed.
    #[error("{0}")]
    Observer(E),
}

impl<E> RunError<E> {
    /// Step `step`, started at `time` (s), ended early for `abort`.
    pub fn of_abort(abort: Abort, time: Real, step: u64) -> Self {
        match abort {
            Abort::Interrupted => RunError::InterruptedInStep { time, step },
            Abort::Cap { what, field } => RunError::Cap {
                time,
                step,
                what,
                field,
            },
        }
    }
}

/// The first body or fluid particle with a non-finite state, named.
pub fn non_finite(world: &World) -> Option<String> {
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
    bad_body.or_else(|| {
        world.fluid.as_ref().and_then(|f| {
            f.pos
                .iter()
                .zip(&f.vel)
                .zip(&f.id)
                .find(|((p, v), _)| !p.iter().chain(v.iter()).all(|x| x.is_finite()))
                .map(|(_, id)| format!("fluid particle {id}"))
        })
    })
}

/// Runs `world` for `until` seconds of simulated time, sampling `probes` every `every` seconds
/// (see the module doc) and checking `bounds` after every step. Returns the series and the
/// report; on divergence or an observer error, the samples taken so far were already given to
/// the observer.
pub fn run<O: Observer>(
    world: &mut World,
    probes: &[Probe],
    until: Real,
    every: Real,
    bounds: &Bounds,
    observer: &mut O,
) -> Result<(Series, RunReport), RunError<O::Error>> {
    run_from(world, probes, until, every, bounds, None, observer)
}

/// As [`run`], for a world that may have been restored from a checkpoint: with `resumed`
/// (the totals saved with it) the run goes on from `world.steps` without sampling the start
/// again, and its report covers the whole run. Step numbers and output times are those of the
/// uninterrupted run (counted from the world's time origin), so a resumed run writes the same
/// samples.
pub fn run_from<O: Observer>(
    world: &mut World,
    probes: &[Probe],
    until: Real,
    every: Real,
    bounds: &Bounds,
    resumed: Option<Totals>,
    observer: &mut O,
) -> Result<(Series, RunReport), RunError<O::Error>> {
    let columns: Vec<String> = probes.iter().flat_map(|p| p.columns(world)).collect();
    let mut series = Series {
        values: vec![Vec::new(); columns.len()],
        columns,
        time: Vec::new(),
    };
    let base = world.steps_origin;
    let total = base + ((until - world.time_origin) / world.dt).round().max(1.0) as u64;
    let every = (every / world.dt).round().max(1.0) as u64;
    let start = Instant::now();
    let mut row = Vec::with_capacity(series.columns.len());
    let mut sample = |world: &World, series: &mut Series, observer: &mut O| {
        row.clear();
        Probe::sample_all(probes, world, &mut row);
        series.push(world.time, &row);
        observer.sample(world, &row).map_err(RunError::Observer)
    };
    let mut totals = match resumed {
        Some(t) => t,
        None => {
            sample(world, &mut series, observer)?;
            Totals {
                samples: 1,
                ..Totals::default()
            }
        }
    };
    for step in world.steps + 1..=total {
        let info = world.step();
        if let Some(abort) = world.abort.take() {
            // The step did not end: its state is not written (module `interrupt`).
            return Err(RunError::of_abort(abort, world.time, step));
        }
        totals.add_step(world, &info);
        check_step(world, step, bounds)?;
        let on_grid = (step - base).is_multiple_of(every);
        let sampled = on_grid || step == total;
        if sampled {
            let t0 = Instant::now();
            sample(world, &mut series, observer)?;
            totals.samples += 1;
            world.timings.add(Stage::Output, t0);
        }
        let at = Progress {
            step,
            total,
            on_grid,
            sampled,
            totals: &totals,
        };
        observer.stepped(world, &at).map_err(RunError::Observer)?;
        if step < total && observer.stop_requested() {
            // The state where the run stops is written (an extra sample off the grid).
            if !sampled {
                sample(world, &mut series, observer)?;
            }
            return Err(RunError::Interrupted {
                time: world.time,
                step,
            });
        }
    }
    let wall = start.elapsed() + Duration::from_secs_f64(totals.earlier_wall);
    Ok((series, totals.report(world.steps, wall)))
}

impl Totals {
    /// Adds the step `world` just took (its solve reported `info`).
    pub fn add_step(&mut self, world: &World, info: &crate::solver::SolveInfo) {
        self.iterations += info.iterations as u64;
        self.max_iterations = self.max_iterations.max(info.iterations);
        self.max_residual = self.max_residual.max(info.residual);
        self.unconverged_steps += (!info.converged) as u64;
        self.substeps += world.last_substeps.substeps as u64;
        self.solve_iterations += world.last_substeps.solve_iterations as u64;
        let k = world.last_impulses;
        self.impulses.0 += k.iterations as u64;
        self.impulses.1 = self.impulses.1.max(k.iterations);
        self.impulses.2 += k.capped as u64;
        self.impulses.3 += k.energy_change;
        self.max_solve_residual = self
            .max_solve_residual
            .max(world.last_substeps.solve_residual);
        if let Some((_, c)) = world.fluid.as_ref().and_then(|f| f.largest_compression()) {
            if c > self.max_compression.0 {
                self.max_compression = (c, world.time - world.dt);
            }
        }
    }

    /// The report of a run of `steps` steps that took `wall` (s).
    fn report(&self, steps: u64, wall: Duration) -> RunReport {
        RunReport {
            steps,
            wall,
            mean_iterations: self.iterations as Real / steps.max(1) as Real,
            max_iterations: self.max_iterations,
            max_residual: self.max_residual,
            unconverged_steps: self.unconverged_steps,
            samples: self.samples,
            max_compression: self.max_compression,
            mean_substeps: self.substeps as Real / steps.max(1) as Real,
            solve_iterations: self.solve_iterations as Real / self.substeps.max(1) as Real,
            max_solve_residual: self.max_solve_residual,
            impulses: self.impulses,
        }
    }
}

/// The checks after every step: a finite state, within `bounds`, contacts that could be
/// computed.
pub fn check_step<E>(world: &World, step: u64, bounds: &Bounds) -> Result<(), RunError<E>> {
    if let Some(what) = non_finite(world) {
        return Err(RunError::Diverged {
            time: world.time,
            step,
            what,
        });
    }
    if let Some((bound, value, limit, what)) = bounds.check(world) {
        let hint = bound_hint(world, step, bound);
        return Err(RunError::Bound {
            time: world.time,
            step,
            bound,
            value,
            limit,
            what,
            hint,
        });
    }
    if let Some(&(a, b)) = world.geometry.failed_pairs().first() {
        return Err(RunError::Contacts {
            time: world.time,
            step,
            what: format!(
                "bodies `{}` and `{}`",
                world.bodies[a].name, world.bodies[b].name
            ),
        });
    }
    Ok(())
}

/// What to change when bound `bound` was left after step `step`. A fluid compressed past its
/// bound at the first step was compressed by where its particles started, not by the flow — a
/// shorter step does not help (a paddle 2.5 spacings thick, sampled with a particle row on its
/// face, stopped here at any step): the hint names the closest pair of a fluid particle and a
/// boundary particle, and its body. Later, a shorter time step usually helps.
pub fn bound_hint(world: &World, step: u64, bound: &str) -> String {
    let later = "a shorter time step usually helps".to_string();
    let (Some(f), true) = (
        world.fluid.as_ref(),
        step <= 1 && bound == "max_compression",
    ) else {
        return later;
    };
    let Some(nearest) = f.most_compressed_to_boundary() else {
        return later;
    };
    let whose = match world.bodies.get(nearest.1 as usize) {
        Some(b) => format!("body `{}`", b.name),
        None => "a wall".to_string(),
    };
    format!(
        "at the first step the compression comes from where the particles start, and a shorter \
         time step does not help: the most compressed particle is {:.2} spacings from a boundary \
         particle of {whose} (about 1 where faces lie half a spacing from the fluid's rows); \
         `vcsim check` lists bodies whose boundary particles start too close to the fluid",
        nearest.0 / f.params.spacing
    )
}
