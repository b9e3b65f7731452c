//! The world and its time step: the sequence of stages and nothing else.
//!
//! ```text
//! 1 external forces   gravity, applied forces, gyroscopic step     -> v*
//! 2 neighbours        fluid particles: cell sort, neighbour lists, gravity + viscosity
//! 3 geometry          broad + narrow phase                         -> contacts (warm λ)
//! 4 rows              contact + friction, joints, fluid density    -> constraint rows
//! 5 solve             PGS | APGD, all rows in one solve            -> λ, SolveInfo
//! 6 integrate         symplectic Euler, quaternion exp map         -> new state
//! ```
//!
//! Probes and output (stage 7) are done by the runner ([`crate::io::run()`]) between steps.
//! State that matters lives in [`World`]; scratch buffers live in [`Scratch`], never saved.

mod timing;

pub use timing::{Stage, StageTimes};

use crate::body::{gyroscopic_step, integrate_pose, linear_mask, Dofs, RigidBody};
use crate::constraints::contact::{self, ContactParams, ContactRows};
use crate::constraints::joint::{self, Joint, JointRow};
use crate::constraints::{BodyMass, BodyRows};
use crate::fluid::Fluid;
use crate::geometry::{Contact, Geometry, Impulse};
use crate::math::{Real, Vec3};
use crate::solver::{Block, SolveInfo, SolverChoice, Stacked, Workspace};
use std::time::Instant;

/// Scratch buffers of a step, reused to avoid allocation per step.
#[derive(Default)]
pub struct Scratch {
    masses: Vec<BodyMass>,
    /// Contacts of the current step.
    pub contacts: Vec<Contact>,
    contact_rows: Vec<ContactRows>,
    joint_rows: Vec<JointRow>,
    /// The rows of the current step.
    pub rows: BodyRows,
    lambda: Vec<Real>,
    v: Vec<Real>,
    impulses: Vec<Impulse>,
    solver: Workspace,
    blocks: Vec<Block>,
    body_dofs: usize,
}

/// Everything that evolves, and the settings of its evolution.
pub struct World {
    /// Planar or spatial.
    pub dofs: Dofs,
    /// Gravity (m/s²).
    pub gravity: Vec3,
    /// Time step (s).
    pub dt: Real,
    /// Current time (s).
    pub time: Real,
    /// Steps taken.
    pub steps: u64,
    /// Rigid bodies.
    pub bodies: Vec<RigidBody>,
    /// Collision shapes and persistent contact data.
    pub geometry: Geometry,
    /// Joints.
    pub joints: Vec<Joint>,
    /// Constraint solver.
    pub solver: SolverChoice,
    /// Contact parameters.
    pub contact: ContactParams,
    /// Wall time per stage, accumulated.
    pub timings: StageTimes,
    /// Scratch.
    pub scratch: Scratch,
    /// What the last solve reported.
    pub last_solve: SolveInfo,
    /// SPH fluid particles, if the model has a fluid.
    pub fluid: Option<Fluid>,
}

impl World {
    /// Advances the world by one step of `dt`.
    pub fn step(&mut self) -> SolveInfo {
        let h = self.dt;

        // 1 external forces -> v*
        let t0 = Instant::now();
        let mask = linear_mask(self.dofs);
        for b in self.bodies.iter_mut().filter(|b| b.is_dynamic()) {
            b.lin_vel += (self.gravity + b.force * b.inv_mass).component_mul(&mask) * h;
            let w = gyroscopic_step(b, h, self.dofs);
            b.ang_vel = w + b.inv_inertia_world(self.dofs) * b.torque * h;
            b.lin_vel.component_mul_assign(&mask);
            if self.dofs == Dofs::Planar {
                b.ang_vel.x = 0.0;
                b.ang_vel.y = 0.0;
            }
        }
        self.timings.add(Stage::External, t0);

        // 2 neighbours (fluid), then the fluid's explicit forces
        if let Some(f) = self.fluid.as_mut() {
            let t0 = Instant::now();
            f.update_neighbours(&self.bodies);
            self.timings.add(Stage::Neighbours, t0);
            let t0 = Instant::now();
            f.external(&self.gravity, h);
            self.timings.add(Stage::External, t0);
        }

        // 3 geometry, 4 rows
        let ndof = self.detect_and_build_rows();
        debug_assert_eq!(self.scratch.v.len(), ndof);
        let s = &mut self.scratch;

        // 5 solve: body rows alone, or body and fluid rows in one monolithic solve
        let t0 = Instant::now();
        s.lambda.clear();
        s.lambda.extend_from_slice(&s.rows.warm);
        let nbody_rows = s.lambda.len();
        let info = match self.fluid.as_mut() {
            None => self
                .solver
                .solve(&s.rows, &mut s.lambda, &mut s.v, &mut s.solver),
            Some(f) => {
                f.warm_start(&mut s.lambda);
                let rows = Stacked::new(&s.rows, &f.rows, &mut s.blocks);
                let info = self
                    .solver
                    .solve(&rows, &mut s.lambda, &mut s.v, &mut s.solver);
                f.store_solution(&s.v, &s.lambda[nbody_rows..], s.body_dofs, h);
                info
            }
        };
        contact::read_impulses(&s.contact_rows, &s.lambda, &mut s.impulses);
        self.geometry.store_impulses(&s.contacts, &s.impulses);
        joint::read_impulses(&mut self.joints, &s.rows, &s.joint_rows, &s.lambda, h);
        self.timings.add(Stage::Solve, t0);

        // 6 integrate
        let t0 = Instant::now();
        let mut k = 0;
        for b in self.bodies.iter_mut() {
            if b.is_dynamic() {
                b.lin_vel = Vec3::new(s.v[k], s.v[k + 1], s.v[k + 2]);
                b.ang_vel = Vec3::new(s.v[k + 3], s.v[k + 4], s.v[k + 5]);
                k += 6;
            }
            if b.kind != crate::body::Kind::Static {
                integrate_pose(b, h);
            }
        }
        if let Some(f) = self.fluid.as_mut() {
            f.integrate(h);
        }
        self.steps += 1;
        self.time = self.steps as Real * h;
        self.timings.add(Stage::Integrate, t0);
        self.last_solve = info;
        info
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

    /// Number of degrees of freedom (6 per dynamic body, 3 per fluid particle).
    pub fn dof_count(&self) -> usize {
        6 * self.bodies.iter().filter(|b| b.is_dynamic()).count()
            + self.fluid.as_ref().map(|f| 3 * f.len()).unwrap_or(0)
    }

    /// Number of fluid particles whose centre lies inside a body's shape (0 without fluid).
    pub fn fluid_inside_bodies(&self) -> usize {
        let Some(f) = self.fluid.as_ref() else {
            return 0;
        };
        let poses: Vec<_> = self
            .geometry
            .colliders
            .iter()
            .map(|c| crate::math::to_pose(&(self.bodies[c.body].pose * c.local)))
            .collect();
        f.pos
            .iter()
            .filter(|x| {
                let p = crate::math::to_pv(x);
                self.geometry
                    .colliders
                    .iter()
                    .zip(&poses)
                    .any(|(c, pose)| c.shape.contains_point(pose, p))
            })
            .count()
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
}

impl World {
    /// Stages 3 and 4 at the current state and velocities (taken as `v*`): mass data, the DOF
    /// vector, contacts, rows. Returns the number of DOFs. Timed as geometry and rows.
    fn detect_and_build_rows(&mut self) -> usize {
        let (h, s) = (self.dt, &mut self.scratch);
        let ndof = BodyMass::of(&self.bodies, self.dofs, &mut s.masses);
        s.body_dofs = ndof;
        s.v.clear();
        for b in self.bodies.iter().filter(|b| b.is_dynamic()) {
            s.v.extend(b.lin_vel.iter().chain(b.ang_vel.iter()));
        }
        if let Some(f) = self.fluid.as_ref() {
            s.v.extend(f.vel.iter().flat_map(|v| v.iter().copied()));
        }
        let t0 = Instant::now();
        self.geometry
            .update(&self.bodies, self.contact.prediction, &mut s.contacts);
        self.timings.add(Stage::Geometry, t0);
        let t0 = Instant::now();
        s.rows.clear();
        contact::build_rows(
            &s.contacts,
            &s.masses,
            &s.v,
            h,
            &self.contact,
            &mut s.rows,
            &mut s.contact_rows,
        );
        joint::build_rows(
            &self.joints,
            &self.bodies,
            &s.masses,
            h,
            self.contact.baumgarte,
            &mut s.rows,
            &mut s.joint_rows,
        );
        if let Some(f) = self.fluid.as_mut() {
            f.build_rows(ndof, h, &s.masses);
        }
        self.timings.add(Stage::Rows, t0);
        s.v.len()
    }

    /// Detects contacts and builds the rows at the current state without stepping; returns
    /// (contact points, rows). Used by `check`.
    pub fn initial_rows(&mut self) -> (usize, usize) {
        if let Some(f) = self.fluid.as_mut() {
            f.update_neighbours(&self.bodies);
        }
        self.detect_and_build_rows();
        let fluid_rows = self.fluid.as_ref().map(|f| f.rows.diag.len()).unwrap_or(0);
        (
            self.scratch.contacts.len(),
            self.scratch.rows.rows.len() + fluid_rows,
        )
    }
}
