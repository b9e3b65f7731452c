//! The fluid-method interface: what [`crate::pipeline::World::step`] asks of a fluid method at
//! each stage where one acts. One trait, one call per stage; each method is a type in its own
//! folder that owns its parameters, scratch buffers and carried state:
//!
//! | method | type | stages it acts in |
//! |---|---|---|
//! | constraint (monolithic; 001, 004 KCSPH) | [`super::constraint::Constraint`] | 1 neighbours, 2 explicit forces, 4 rows, 5 read-back, 6 integrate |
//! | WCSPH (partitioned) | [`super::wcsph::Wcsph`] | 1b sub-steps (leaves the fluid's force on the bodies) |
//! | ISPH (partitioned) | [`super::isph::Isph`] | 1b sub-steps, 2 added mass of the bodies |
//!
//! [`Fluid`] keeps the particle state every method shares (positions, velocities, boundary
//! particles, neighbour lists, pressures, density errors, the fluid's force on each body).
//! What one method carries from step to step is its own type's: WCSPH's densities, the
//! constraint rows' warm-start impulses, ISPH's pressures of the last solve. Per-particle
//! arrays among them follow the particles through the cell sort
//! ([`Fluid::reorder_like_last_search`] after each search); checkpoints take them through
//! [`FluidMethod::save_state`], VTK frames any the method declares
//! ([`FluidMethod::point_fields`]), the summary its [`FluidMethod::summary_line`].
//!
//! **Contract.** A method whose particles are unknowns of the constraint solve
//! ([`FluidMethod::in_solve`]) brings row families ([`FluidMethod::row_families`]) and reads
//! its impulses back ([`FluidMethod::read_back`]); its particles are laid out after the bodies'
//! degrees of freedom. A partitioned method advances the fluid over the whole step in
//! [`FluidMethod::advance`] and leaves the fluid's mean force (N) and torque (N·m) on each body
//! in [`Fluid::body_force`] / [`Fluid::body_torque`], which the bodies take as a load in stage 2.
//! Every hook has a default that does nothing, so a method implements only the stages it acts
//! in (the book's "Adding a method" page walks through a fourth method written outside the
//! crate).

use super::Fluid;
use crate::body::RigidBody;
use crate::constraints::{BodyMass, RowFamily, VelocityLayout};
use crate::math::{Real, Vec3};
use crate::solver::SolveScratch;

/// What a partitioned method's sub-steps did in the last model step (zero for the constraint
/// method): what any sub-stepping method reports. A method's own figures stay in its own type;
/// whether they stop the run it says itself ([`FluidMethod::stop`]).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SubStepInfo {
    /// Sub-steps taken in the last model step.
    pub substeps: usize,
    /// Iterations of the method's inner solve (e.g. conjugate-gradient iterations of a
    /// pressure equation), summed over the step's sub-steps; 0 for a method without one or
    /// with a direct solve ([`FluidMethod::inner_solve`]).
    pub solve_iterations: usize,
    /// Largest relative residual of the step's inner solves (dimensionless; 0 without one).
    pub solve_residual: Real,
    /// The sub-steps stopped at their cap ([`super::FluidParams::max_substeps`]) or at an
    /// overdue interruption ([`crate::interrupt`]) before the end of the step.
    pub cut: bool,
}

/// How the run summary names a method's inner solve ([`FluidMethod::inner_solve`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InnerSolve {
    /// What is solved, e.g. `"pressure solve"`.
    pub name: &'static str,
    /// What its iterations are, e.g. `"CG iterations"`.
    pub iterations: &'static str,
}

/// What stage 4 gives a method that builds rows.
pub struct RowContext<'a> {
    /// The velocity vector's layout (bodies, then particles).
    pub layout: &'a VelocityLayout,
    /// Inverse-mass data of every body, indexed like the bodies.
    pub masses: &'a [BodyMass],
    /// Time step h (s).
    pub h: Real,
    /// Whether the solver sweeps rows one at a time (PGS), so rows that share no unknown
    /// should be grouped by colour.
    pub colour: bool,
    /// Whether the PGS solve adds multilevel corrections, so the coloured rows should also be
    /// grouped into aggregates ([`crate::solver::multilevel`]).
    pub multilevel: bool,
}

/// A fluid method: the hooks of [`crate::pipeline::World::step`] (module docs).
pub trait FluidMethod: Send + Sync {
    /// Short name for summaries, e.g. `"WCSPH (partitioned)"`.
    fn name(&self) -> &'static str;

    /// Whether the fluid's particles are unknowns of the constraint solve (default false).
    fn in_solve(&self) -> bool {
        false
    }

    /// For a method in the solve: into how many equal sub-steps the next model step of `dt`
    /// (s) is split, each a whole step of every stage, the bodies' too (default one; the
    /// constraint method's [`super::constraint::ConstraintParams::cfl`]).
    fn substeps(&mut self, _fluid: &Fluid, _dt: Real) -> usize {
        1
    }

    /// Stage 1: neighbour lists for the step (body particles follow their bodies first).
    /// Partitioned methods search inside their sub-steps instead.
    fn find_neighbours(&mut self, _fluid: &mut Fluid, _bodies: &[RigidBody]) {}

    /// Stage 1b, partitioned methods: advance the fluid over the step `dt` (s) under `gravity`
    /// (m/s²), the bodies moving with their current velocities; leave the fluid's force and
    /// torque on each body in [`Fluid::body_force`] / [`Fluid::body_torque`].
    fn advance(
        &mut self,
        _fluid: &mut Fluid,
        _bodies: &[RigidBody],
        _gravity: &Vec3,
        _dt: Real,
    ) -> SubStepInfo {
        SubStepInfo::default()
    }

    /// Stage 2, after body `k`'s free velocity update (gravity, loads, the fluid's force):
    /// couple the body to the fluid beyond the load, e.g. by its added mass. `v0` is the body's
    /// (linear, angular) velocity at the start of the step (m/s, rad/s); only the velocity
    /// components in `active` (x, y, z, rx, ry, rz) may change. Called for every body.
    fn couple_body(
        &mut self,
        _k: usize,
        _body: &mut RigidBody,
        _v0: (Vec3, Vec3),
        _active: [bool; 6],
    ) {
    }

    /// Stage 2, methods in the solve: the fluid's explicit forces over the step `h` (s) under
    /// `gravity` (m/s²), giving the predicted velocities `v*`.
    fn external(&mut self, _fluid: &mut Fluid, _gravity: &Vec3, _h: Real, _bodies: &[RigidBody]) {}

    /// Stage 4, methods in the solve: build this step's rows from the fluid and `v*`.
    fn build_rows(&mut self, _fluid: &mut Fluid, _ctx: &RowContext) {}

    /// Stage 5: the row families this method adds to the solve, in stack order (none for a
    /// partitioned method).
    fn row_families<'a>(&'a self, _push: &mut dyn FnMut(&'a dyn RowFamily)) {}

    /// Stage 5, after the solve: the impulses of this method's rows, in the order of
    /// [`FluidMethod::row_families`] (N·s); the particles' new velocities are already in
    /// [`Fluid::vel`], the fluid's force on the bodies was zeroed.
    fn read_back(&mut self, _lambda: &[Real], _h: Real, _fluid: &mut Fluid) {}

    /// Stage 6, methods in the solve: move the particles over `h` (s); the bodies are at their
    /// poses at the end of the step, and a method may change their velocities by the reaction
    /// of an impulse it gives the fluid (the constraint method's density projection).
    /// `scratch` is the step's solve scratch, free at this stage, for a solve of the method's
    /// own.
    fn integrate(
        &mut self,
        _fluid: &mut Fluid,
        _h: Real,
        _bodies: &mut [RigidBody],
        _scratch: SolveScratch<'_>,
    ) {
    }

    /// The inner solve whose iterations and residual the method reports in [`SubStepInfo`]
    /// (the run summary then prints them; default none).
    fn inner_solve(&self) -> Option<InnerSolve> {
        None
    }

    /// Whether the run must stop after a step from `t` (s) whose sub-steps reported `info`,
    /// and why (the guard's message, naming the model field to change); default never. (The
    /// sub-steps' cap, [`SubStepInfo::cut`], is checked for every method.)
    fn stop(&self, _info: &SubStepInfo, _t: Real) -> Option<crate::interrupt::Abort> {
        None
    }

    /// What will run, for `vcsim check`: the name and the settings a user would want to see
    /// (default: the name).
    fn describe(&self) -> String {
        self.name().to_string()
    }

    /// A line for the run summary about what the method did beyond the solve (None: nothing
    /// to say).
    fn summary_line(&self, _steps: u64) -> Option<String> {
        None
    }

    /// Fields of the model's `fluid:` section this method does not use (a model that writes
    /// them gets a located warning).
    fn unused_fields(&self) -> &'static [&'static str] {
        &[]
    }

    /// Per-particle fields the method writes into the fluid's VTK frames beside the shared ones
    /// (velocity, pressure, smoothed pressure, density error, id): `push(name, values)`, the
    /// name a plain identifier with its unit in the method's docs, one value per particle in
    /// the particles' current order (a field of another length is not written). Default none.
    fn point_fields<'a>(&'a self, _push: &mut dyn FnMut(&'static str, &'a [Real])) {}

    /// The state the method carries from one step to the next beyond the particles, for
    /// checkpoints (bytes of the method's own format; empty if none).
    fn save_state(&self) -> Vec<u8> {
        Vec::new()
    }

    /// Puts state from [`FluidMethod::save_state`] back; the error says what does not fit.
    fn restore_state(&mut self, bytes: &[u8]) -> Result<(), String> {
        if bytes.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "the checkpoint has state for another fluid method than {}",
                self.name()
            ))
        }
    }

    /// Divides the fluid among processes ([`super::halo`]): the method calls `halo` at the
    /// points of its sub-step that the module doc names. An error for a method that does not
    /// support it.
    fn set_halo(&mut self, _halo: Box<dyn super::halo::Halo>) -> Result<(), String> {
        Err(format!(
            "{} does not run divided among processes yet (WCSPH, ISPH and the constraint method do)",
            self.name()
        ))
    }

    /// How far (a fraction of the kernel support) a particle may move between two of the
    /// method's neighbour searches, each of which redistributes a divided fluid: the ghost
    /// layers reach [`FluidMethod::ghost_supports`] × (1 + 2 × this) supports beyond a slab
    /// (the slabs of [`crate::distributed`]). 0.12 (as WCSPH's lists' skin) unless the method
    /// says otherwise.
    fn ghost_skin(&self, _fluid: &Fluid) -> Real {
        0.12
    }

    /// How many kernel supports beyond its own particles a part of a divided fluid reads: 2
    /// where an owned particle reads values its neighbours computed from their own neighbours
    /// (WCSPH's extrapolated wall pressures, density gradients), 1 where those values are
    /// exchanged instead. 2 unless the method says otherwise.
    fn ghost_supports(&self) -> Real {
        2.0
    }

    /// The exchange given by [`FluidMethod::set_halo`], if any.
    fn halo(&mut self) -> Option<&mut dyn super::halo::Halo> {
        None
    }

    /// For a method in the solve whose fluid is divided: its exchange, taken out for the
    /// step's solve ([`crate::pipeline::World`] divides the solve with it, then gives it back
    /// with [`FluidMethod::put_halo`]); `None` for a fluid in one process.
    fn take_halo(&mut self) -> Option<Box<dyn super::halo::Halo>> {
        None
    }

    /// Gives back the exchange [`FluidMethod::take_halo`] took.
    fn put_halo(&mut self, _halo: Box<dyn super::halo::Halo>) {}

    /// For a divided solve: appends, per row of the method's families in their order
    /// ([`FluidMethod::row_families`]), whether another part of the fluid updates it
    /// (`foreign`) and the share of its unknowns that another part's rows touch (`interface`;
    /// [`crate::solver::Parts`]).
    fn foreign_rows(
        &mut self,
        _fluid: &Fluid,
        _halo: &dyn super::halo::Halo,
        _foreign: &mut Vec<bool>,
        _interface: &mut Vec<Real>,
    ) {
    }
}
