//! The world and its time step: the sequence of stages and nothing else.
//!
//! ```text
//! 0 motion            kinematic bodies with a prescribed motion: velocities  (body)
//!                     to their poses at the step's end
//! 1 neighbours        FluidMethod::find_neighbours (constraint: cell sort,  (fluid)
//!                     neighbour lists)
//! 1b explicit fluid   FluidMethod::advance (WCSPH, ISPH: sub-steps over the  (fluid)
//!                     step, bodies moving as they are; the fluid's force on them)
//! 2 external forces   bodies: gravity, applied forces (+ a partitioned      (body, fluid)
//!                     fluid's force), gyroscopic step, FluidMethod::couple_body;
//!                     FluidMethod::external (gravity, viscosity, filter;    -> v*
//!                     constraint in one process: the filter in stage 4's pass)
//! 3 geometry          broad + narrow phase                                  -> contacts (warm λ)
//! 3b impulses         ContactResolver::resolve unless its contacts are rows (body)
//!                     (ETI, SQM, SMM): contacts resolved on the bodies' v*
//! 4 rows              contacts + friction (if rows), joints;                (constraints)
//!                     FluidMethod::build_rows (density + wall, particle contacts), v*'s particles
//! 5 solve             PGS | APGD over the stacked families, read back       -> λ, v⁺, SolveInfo
//!                     (FluidMethod::read_back)
//! 6 integrate         bodies: symplectic Euler, quaternion exp map;         (body, fluid)
//!                     prescribed poses set exactly; FluidMethod::integrate
//! ```
//!
//! The velocity vector is laid out once per step ([`VelocityLayout`]: bodies, then particles).
//! Row families are listed in [`World::step`]'s solve stage: each builds its rows in stage 4,
//! gives its warm start, and reads its impulses back after the solve. The world holds one
//! fluid method ([`FluidMethod`], a trait object: the stages call its hooks, never ask which
//! method it is) and one contact resolver ([`ContactResolver`], likewise): a fluid method
//! that brings no rows (a partitioned backend) or another contact resolver replaces a family
//! without touching the others.
//!
//! Probes and output (stage 7) are done by the runner ([`crate::runner`]) between steps.
//! State that matters lives in [`World`]; scratch buffers live in [`Scratch`], never saved.

mod impulses;
mod problem;
mod state;
mod timing;
mod warm;

pub use crate::fluid::FluidMethod;
pub use crate::impulse::ContactResolver;
pub use problem::Problem;
pub use state::WorldState;
pub use timing::{Stage, StageTimes};

use crate::body::{gyroscopic_step, integrate_pose, linear_mask, Dofs, Kind, RigidBody};
use crate::constraints::contact::{self, ContactParams, ContactRows};
use crate::constraints::joint::{self, Joint, JointRow};
use crate::constraints::{BodyMass, BodyRows, RowFamily, VelocityLayout};
use crate::fluid::constraint::HaloParts;
use crate::fluid::{Fluid, RowContext, SubStepInfo};
use crate::geometry::{Contact, Geometry, Impulse};
use crate::math::{Real, Vec3};
use crate::solver::{Block, RowSet, RowStack, SolveInfo, SolverChoice, Workspace, MAX_FAMILIES};
use std::time::Instant;

/// Scratch buffers of a step, reused to avoid allocation per step.
#[derive(Default)]
pub struct Scratch {
    layout: VelocityLayout,
    masses: Vec<BodyMass>,
    /// Contacts of the current step.
    pub contacts: Vec<Contact>,
    contact_rows: Vec<ContactRows>,
    joint_rows: Vec<JointRow>,
    /// Row family: rigid contacts and joints (two-body rows).
    pub body_rows: BodyRows,
    lambda: Vec<Real>,
    v: Vec<Real>,
    impulses: Vec<Impulse>,
    solver: Workspace,
    blocks: Vec<Block>,
    impulse: impulses::ImpulseScratch,
    /// Per row of a divided solve: whether another part updates it, the share of its unknowns
    /// that another part's rows touch.
    foreign: Vec<bool>,
    interface: Vec<Real>,
}

/// Everything that evolves, and the settings of its evolution.
pub struct World {
    /// Planar or spatial.
    pub dofs: Dofs,
    /// Gravity (m/s²).
    pub gravity: Vec3,
    /// Time step (s): the model's, on which the runner samples and the clock counts.
    pub dt: Real,
    /// The (sub-)step being taken (s): `dt`, or `dt / n` in a step the fluid method splits
    /// into `n` sub-steps ([`FluidMethod::substeps`]); set by [`World::step`].
    pub h: Real,
    /// The (sub-)step (s) over which the impulses the next solve starts from were found: the
    /// warm starts are scaled by `h / impulse_dt` (impulses grow with the step).
    pub impulse_dt: Real,
    /// Current time (s).
    pub time: Real,
    /// Steps taken.
    pub steps: u64,
    /// The clock: `time = time_origin + (steps − steps_origin) dt` (s); both zero unless the
    /// run was resumed from a checkpoint with another time step.
    pub time_origin: Real,
    /// See [`World::time_origin`].
    pub steps_origin: u64,
    /// Rigid bodies.
    pub bodies: Vec<RigidBody>,
    /// Collision shapes and persistent contact data.
    pub geometry: Geometry,
    /// Joints.
    pub joints: Vec<Joint>,
    /// Constraint solver.
    pub solver: SolverChoice,
    /// Contact parameters. (Their `resolver` is the model's description; the step uses
    /// [`World::contact_resolver`], built from it.)
    pub contact: ContactParams,
    /// How the fluid is advanced (the constraint method unless the model names another).
    pub fluid_method: Box<dyn FluidMethod>,
    /// What resolves rigid contacts (complementarity rows unless the model names another).
    pub contact_resolver: Box<dyn ContactResolver>,
    /// Wall time per stage, accumulated.
    pub timings: StageTimes,
    /// Scratch.
    pub scratch: Scratch,
    /// What the last solve reported.
    pub last_solve: SolveInfo,
    /// SPH fluid particles, if the model has a fluid.
    pub fluid: Option<Fluid>,
    /// The box around the fluid, its walls and the bodies' centres when the model was built
    /// (m; lower and upper corner), from which the guard's `scene_margin` is measured; `None`
    /// for a model without fluid.
    pub scene: Option<[Vec3; 2]>,
    /// What the partitioned fluid method's sub-steps did in the last step (zero for the
    /// constraint method).
    pub last_substeps: SubStepInfo,
    /// What the impulse contact resolver did in the last step (zero for complementarity rows).
    pub last_impulses: crate::impulse::ImpulseInfo,
    /// Why the last step ended before its end ([`crate::interrupt`]); its state is then not a
    /// step's end and is not to be written. `None` after a whole step.
    pub abort: Option<crate::interrupt::Abort>,
    /// Whether the pool's other workers poll for work during a step instead of sleeping
    /// (`warm`'s module doc): faster on more than one thread when the run owns its cores,
    /// the same results. Off unless the caller turns it on (`vcsim run` and `vcsim study` do).
    pub active_wait: bool,
}

/// Whether `vcsim run` and `vcsim study` step with [`World::active_wait`]: yes unless the
/// environment variable `VCSIM_ACTIVE_WAIT` is `0` (for runs that share their cores).
pub fn active_wait_wanted() -> bool {
    std::env::var("VCSIM_ACTIVE_WAIT").map_or(true, |v| v.trim() != "0")
}

impl World {
    /// Advances the world by one step of `dt`: the stages of the module doc, in order.
    pub fn step(&mut self) -> SolveInfo {
        // The stages inside the thread pool: their parallel passes then start on a worker
        // instead of each waking the pool from outside (for small models that hand-over cost
        // more than the passes).
        rayon::scope(|s| {
            let _warm = (self.active_wait && rayon::current_num_threads() > 1)
                .then(|| warm::KeepWarm::start(s));
            self.stages()
        })
    }

    /// The stages of [`World::step`], in order, over one step of `dt` or, where the fluid
    /// method asks for them ([`FluidMethod::substeps`]), `n` sub-steps of `dt / n`: each a
    /// whole pass through the stages, bodies included. The solve's report sums the sub-steps'
    /// iterations and keeps their largest residual; [`World::last_substeps`] says how many.
    fn stages(&mut self) -> SolveInfo {
        self.abort = None;
        let (n, cap) = match self.fluid.as_ref() {
            Some(f) if self.fluid_method.in_solve() => (
                self.fluid_method.substeps(f, self.dt),
                f.params.max_substeps,
            ),
            _ => (1, 1),
        };
        let n = n.max(1);
        let (t0, dt) = (self.time, self.dt);
        if n as u64 > cap {
            // Speeds far beyond any the step was chosen for: a blow-up, not a flow to follow.
            self.abort = Some(crate::interrupt::Abort::Cap {
                what: format!(
                    "the fluid would need {n} sub-steps in the step from t = {t0:.6} s to keep \
                     its fastest particle within `cfl` spacings per sub-step"
                ),
                field: "guard.max_substeps",
            });
            return SolveInfo::default();
        }
        self.h = dt / n as Real;
        let mut total = SolveInfo {
            converged: true,
            ..Default::default()
        };
        for k in 0..n {
            self.time = t0 + k as Real * self.h;
            let end = (k + 1 < n).then(|| t0 + (k + 1) as Real * self.h);
            let info = self.sub_step(end);
            total.iterations += info.iterations;
            total.residual = total.residual.max(info.residual);
            total.converged &= info.converged;
            if self.abort.is_some() {
                // (The step's start, which the runner's message names; the state is not written.)
                self.time = t0;
                break;
            }
        }
        if self.fluid_method.in_solve() {
            self.last_substeps.substeps = n;
        }
        total
    }

    /// One pass through the stages over `self.h`; `end` is the sub-step's end time, `None`
    /// for the model step's last (the clock then counts the step).
    fn sub_step(&mut self, end: Option<Real>) -> SolveInfo {
        self.prescribe_motion();
        self.find_neighbours();
        self.advance_explicit_fluid();
        if self.aborted() {
            return SolveInfo::default();
        }
        self.apply_external_forces();
        self.detect_contacts();
        self.resolve_contacts_by_impulses();
        if self.aborted() {
            return SolveInfo::default();
        }
        self.build_rows();
        let info = self.solve();
        if self.aborted() {
            return info;
        }
        self.integrate(end);
        info
    }

    /// Whether the step must end here: an interruption is overdue, or a loop reached its cap
    /// ([`crate::interrupt`]); sets [`World::abort`].
    fn aborted(&mut self) -> bool {
        if self.abort.is_none() {
            self.abort = self.why_abort();
        }
        self.abort.is_some()
    }

    /// Why the step must end here, if it must (see [`World::aborted`]): an overdue
    /// interruption, the fluid's sub-steps at their cap, or what the fluid method and the
    /// contact resolver each say of their own last report.
    fn why_abort(&self) -> Option<crate::interrupt::Abort> {
        use crate::interrupt::{overdue, Abort};
        let t = self.time;
        if overdue() {
            Some(Abort::Interrupted)
        } else if self.last_substeps.cut {
            Some(Abort::Cap {
                what: format!(
                    "the fluid took {} sub-steps in the step from t = {t:.6} s without reaching its end",
                    self.last_substeps.substeps
                ),
                field: "guard.max_substeps",
            })
        } else if let Some(stop) = self.fluid_method.stop(&self.last_substeps, t) {
            Some(stop)
        } else {
            self.contact_resolver.stop(&self.last_impulses, t)
        }
    }

    /// Stage 0: bodies with a prescribed motion take the velocities that carry them to their
    /// prescribed poses at the end of the step ([`crate::body::Prescribed::velocities`]).
    fn prescribe_motion(&mut self) {
        let (t, h) = (self.time, self.h);
        for b in &mut self.bodies {
            if let Some((v, w)) = b.motion.as_ref().map(|m| m.velocities(b, t, h)) {
                (b.lin_vel, b.ang_vel) = (v, w);
            }
        }
    }

    /// Whether the fluid's particles are unknowns of this step's solve.
    fn fluid_in_solve(&self) -> bool {
        self.fluid.is_some() && self.fluid_method.in_solve()
    }

    /// Stage 1: the fluid's neighbour lists (body particles follow their bodies first), for a
    /// method in the solve; partitioned methods search inside their sub-steps.
    fn find_neighbours(&mut self) {
        if let Some(f) = self.fluid.as_mut() {
            let t0 = Instant::now();
            self.fluid_method.find_neighbours(f, &self.bodies);
            self.timings.add(Stage::Neighbours, t0);
        }
    }

    /// Stage 1b, partitioned fluid methods: the fluid's sub-steps over the whole step, with
    /// the bodies moving as they do now; leaves the fluid's force on each body.
    fn advance_explicit_fluid(&mut self) {
        self.last_substeps = Default::default();
        let Some(f) = self.fluid.as_mut() else {
            return;
        };
        if self.fluid_method.in_solve() {
            return;
        }
        let t0 = Instant::now();
        self.last_substeps = self
            .fluid_method
            .advance(f, &self.bodies, &self.gravity, self.h);
        self.timings.add(Stage::Fluid, t0);
    }

    /// Stage 2: external forces over the step, giving the predicted velocities `v*`. With a
    /// partitioned fluid method the fluid's force on each body is one of them, and the method
    /// may couple each body further (ISPH: its added mass).
    fn apply_external_forces(&mut self) {
        let (h, t0) = (self.h, Instant::now());
        let mask = linear_mask(self.dofs);
        let explicit = !self.fluid_method.in_solve();
        let active = match self.dofs {
            Dofs::Planar => [true, true, false, false, false, true],
            _ => [true; 6],
        };
        let coupled = explicit && self.fluid.is_some();
        for (k, b) in self.bodies.iter_mut().enumerate() {
            let v0 = (b.lin_vel, b.ang_vel);
            if b.is_dynamic() {
                let (mut force, mut torque) = (b.force, b.torque);
                if let (true, Some(f)) = (explicit, self.fluid.as_ref()) {
                    force += f.body_force.get(k).copied().unwrap_or_default();
                    torque += f.body_torque.get(k).copied().unwrap_or_default();
                }
                b.lin_vel += (self.gravity + force * b.inv_mass).component_mul(&mask) * h;
                let w = gyroscopic_step(b, h, self.dofs);
                b.ang_vel = w + b.inv_inertia_world(self.dofs) * torque * h;
                b.lin_vel.component_mul_assign(&mask);
                if self.dofs == Dofs::Planar {
                    b.ang_vel.x = 0.0;
                    b.ang_vel.y = 0.0;
                }
            }
            if coupled {
                self.fluid_method.couple_body(k, b, v0, active);
            }
        }
        if let (false, Some(f)) = (explicit, self.fluid.as_mut()) {
            self.fluid_method
                .external(f, &self.gravity, h, &self.bodies);
        }
        self.timings.add(Stage::External, t0);
    }

    /// Stage 3: broad and narrow phase; also lays out the velocity vector `v*`.
    fn detect_contacts(&mut self) {
        let in_solve = self.fluid_in_solve();
        let s = &mut self.scratch;
        let fluid = self.fluid.as_ref().filter(|_| in_solve);
        let particles = fluid.map(|f| f.len()).unwrap_or(0);
        s.layout.build(&self.bodies, particles);
        BodyMass::of(&self.bodies, self.dofs, &s.layout, &mut s.masses);
        let vel = fluid.map(|f| &f.vel[..]).unwrap_or(&[]);
        s.layout.gather(&self.bodies, vel, &mut s.v);
        let t0 = Instant::now();
        self.geometry
            .update(&self.bodies, self.contact.prediction, &mut s.contacts);
        self.timings.add(Stage::Geometry, t0);
    }

    /// Stage 4: every row family builds its rows from the current state and `v*`.
    fn build_rows(&mut self) {
        let (h, s, t0) = (self.h, &mut self.scratch, Instant::now());
        s.body_rows.clear();
        if self.contact_resolver.rows_in_solve() {
            contact::build_rows(
                &s.contacts,
                &s.masses,
                &s.v,
                h,
                &self.contact,
                &mut s.body_rows,
                &mut s.contact_rows,
            );
        } else {
            // Resolved by impulses in stage 3b: no rows.
            s.contact_rows.clear();
        }
        joint::build_rows(
            &self.joints,
            &self.bodies,
            &s.masses,
            h,
            self.contact.baumgarte,
            &mut s.body_rows,
            &mut s.joint_rows,
        );
        if let (true, Some(f)) = (self.fluid_method.in_solve(), self.fluid.as_mut()) {
            let ctx = RowContext {
                layout: &s.layout,
                masses: &s.masses,
                h,
                colour: self.solver.sweeps_rows(),
                multilevel: self.solver.multilevel(),
            };
            self.fluid_method.build_rows(f, &ctx);
            // (The method may filter the velocities in the same pass: v* takes them.)
            s.layout.gather_particles(&f.vel, &mut s.v);
        }
        self.timings.add(Stage::Rows, t0);
    }

    /// Stage 5: one solve over all row families (monolithic), then each family reads its
    /// impulses back.
    fn solve(&mut self) -> SolveInfo {
        let (h, t0) = (self.h, Instant::now());
        // A divided fluid's exchange, out of the method for the solve ([`Parts`]).
        let mut halo = self.fluid_method.take_halo();
        let s = &mut self.scratch;
        if let (Some(halo), Some(fluid)) = (halo.as_deref(), self.fluid.as_ref()) {
            // Rows between bodies are part 0's; the fluid method says whose its rows are.
            s.foreign.clear();
            s.foreign.resize(s.body_rows.len(), halo.part() != 0);
            s.interface.clear();
            s.interface.resize(s.body_rows.len(), 0.0);
            let (foreign, interface) = (&mut s.foreign, &mut s.interface);
            self.fluid_method
                .foreign_rows(fluid, halo, foreign, interface);
        }
        let with_fluid = self.fluid.is_some();
        let (families, n) = families(&s.body_rows, &*self.fluid_method, with_fluid);
        let families = &families[..n];
        s.lambda.clear();
        for f in families {
            f.warm_start(&mut s.lambda);
        }
        if self.impulse_dt != h && self.impulse_dt > 0.0 {
            // Impulses found over another (sub-)step: the same forces over this one.
            let scale = h / self.impulse_dt;
            s.lambda.iter_mut().for_each(|l| *l *= scale);
        }
        self.impulse_dt = h;
        let mut parts = match (halo.as_deref_mut(), with_fluid) {
            (Some(halo), true) => Some(HaloParts {
                halo,
                foreign: &s.foreign,
                interface: &s.interface,
                dof0: s.layout.particle_dof0(),
                body_dofs: s.layout.body_dofs(),
            }),
            _ => None,
        };
        let parts = parts.as_mut().map(|p| p as &mut dyn crate::solver::Parts);
        let info = if families[1..].iter().all(|f| f.is_empty()) {
            // A stack of one family is that family: solved with static dispatch (the same
            // numbers; the per-row virtual calls of the stack cost rigid-body scenes 1.7x).
            self.solver
                .solve_parts(&s.body_rows, &mut s.lambda, &mut s.v, &mut s.solver, parts)
        } else {
            let mut sets: [&dyn RowSet; MAX_FAMILIES] = [&s.body_rows; MAX_FAMILIES];
            for (set, f) in sets.iter_mut().zip(families) {
                *set = *f as &dyn RowSet;
            }
            let rows = RowStack::new(&sets[..n], &mut s.blocks);
            self.solver
                .solve_parts(&rows, &mut s.lambda, &mut s.v, &mut s.solver, parts)
        };
        let nb = s.body_rows.len();
        if self.contact_resolver.rows_in_solve() {
            contact::read_impulses(&s.contact_rows, &s.lambda, &mut s.impulses);
        }
        self.geometry.store_impulses(&s.contacts, &s.impulses);
        joint::read_impulses(&mut self.joints, &s.body_rows, &s.joint_rows, &s.lambda, h);
        s.layout.scatter_bodies(&s.v, &mut self.bodies);
        if let (true, Some(f)) = (self.fluid_method.in_solve(), self.fluid.as_mut()) {
            s.layout.scatter_particles(&s.v, &mut f.vel);
            f.clear_body_forces(self.bodies.len());
            if let Some(halo) = halo.take() {
                self.fluid_method.put_halo(halo);
            }
            self.fluid_method.read_back(&s.lambda[nb..], h, f);
        }
        if let Some(halo) = halo {
            self.fluid_method.put_halo(halo);
        }
        self.timings.add(Stage::Solve, t0);
        self.last_solve = info;
        info
    }

    /// Stage 6: positions from the new velocities; the clock moves to `end`, or counts the
    /// step if `end` is `None` (the model step's last sub-step).
    fn integrate(&mut self, end: Option<Real>) {
        let (h, t0) = (self.h, Instant::now());
        for b in self.bodies.iter_mut().filter(|b| b.kind != Kind::Static) {
            integrate_pose(b, h);
        }
        if let Some(t) = end {
            self.time = t;
        } else {
            self.steps += 1;
            self.time = self.time_origin + (self.steps - self.steps_origin) as Real * self.dt;
        }
        // Prescribed poses exactly (the secant velocities reach them up to rounding).
        for b in &mut self.bodies {
            if let Some(pose) = b.motion.as_ref().map(|m| m.com_pose(b, self.time)) {
                b.pose = pose;
            }
        }
        if let Some(f) = self.fluid.as_mut() {
            let s = &mut self.scratch;
            let scratch = crate::solver::SolveScratch::new(&mut s.solver, &mut s.lambda, &mut s.v);
            self.fluid_method.integrate(f, h, &mut self.bodies, scratch);
            f.damp(h);
        }
        self.timings.add(Stage::Integrate, t0);
    }

    /// Index of the body with this name.
    pub fn body(&self, name: &str) -> Option<usize> {
        self.bodies.iter().position(|b| b.name == name)
    }

    /// Index of the joint with this name.
    pub fn joint(&self, name: &str) -> Option<usize> {
        self.joints.iter().position(|j| j.name == name)
    }

    /// The contacts of the last step.
    pub fn contacts(&self) -> &[Contact] {
        &self.scratch.contacts
    }

    /// Contact impulses of the last step, in the order of [`World::contacts`] (N·s).
    pub fn contact_impulses(&self) -> &[Impulse] {
        &self.scratch.impulses
    }

    /// Number of two-body rows (contacts and joints) of the last step.
    pub fn body_row_count(&self) -> usize {
        self.scratch.body_rows.len()
    }

    /// Number of degrees of freedom: in 3D 6 per dynamic body and 3 per fluid particle, in 2D
    /// 3 per body (x, y, rotation about z) and 2 per particle.
    pub fn dof_count(&self) -> usize {
        let (body, particle) = match self.dofs {
            Dofs::Planar => (3, 2),
            Dofs::Spatial => (6, 3),
        };
        body * self.bodies.iter().filter(|b| b.is_dynamic()).count()
            + particle * self.fluid.as_ref().map(|f| f.len()).unwrap_or(0)
    }

    /// Kinetic energy of all bodies (J).
    pub fn kinetic_energy(&self) -> Real {
        self.bodies.iter().map(|b| b.kinetic_energy()).sum()
    }

    /// Gravitational potential energy of all dynamic bodies relative to the origin (J).
    pub fn potential_energy(&self) -> Real {
        self.bodies
            .iter()
            .filter(|b| b.is_dynamic())
            .map(|b| -b.mass * self.gravity.dot(&b.com()))
            .sum()
    }

    /// Detects contacts and builds the rows at the current state without stepping; returns
    /// (contact points, rows). Used by `check`.
    pub fn initial_rows(&mut self) -> (usize, usize) {
        self.h = self.dt;
        self.find_neighbours();
        self.detect_contacts();
        self.build_rows();
        let with_fluid = self.fluid.is_some();
        let (families, n) = families(&self.scratch.body_rows, &*self.fluid_method, with_fluid);
        let rows = families[..n].iter().map(|f| f.len()).sum();
        (self.scratch.contacts.len(), rows)
    }
}

/// The row families of a step in stack order: contacts and joints, then the fluid method's if
/// its particles are in the solve and there is a fluid (at most
/// [`crate::solver::MAX_FAMILIES`]); how many there are.
pub(crate) fn families<'a>(
    body_rows: &'a BodyRows,
    method: &'a dyn FluidMethod,
    with_fluid: bool,
) -> ([&'a dyn RowFamily; MAX_FAMILIES], usize) {
    let mut out: [&dyn RowFamily; MAX_FAMILIES] = [body_rows; MAX_FAMILIES];
    let mut n = 1;
    if with_fluid && method.in_solve() {
        method.row_families(&mut |f| {
            assert!(n < MAX_FAMILIES, "too many row families");
            out[n] = f;
            n += 1;
        });
    }
    (out, n)
}
