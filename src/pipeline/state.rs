//! The evolving state of a [`World`], saved and restored bit for bit (checkpoints): time and
//! step count, the step the warm starts were found over, body poses and velocities, joint warm
//! starts and forces, parry's persistent contact manifolds (feature ids and warm-start
//! impulses), and the fluid's particles in their current order ([`crate::fluid::FluidState`]).
//! Everything else — shapes, masses, parameters, scratch, neighbour lists — comes from the model
//! or is rebuilt by the next step, so a world built from the same model and given this state
//! steps exactly as the saved one would have.

use super::World;
use crate::fluid::FluidState;
use crate::geometry::PairCache;
use crate::math::{Iso, Real, Vec3};
use serde::{Deserialize, Serialize};

/// Pose and velocities of a body (m, rad; m/s, rad/s).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BodyState {
    name: String,
    pose: Iso,
    lin_vel: Vec3,
    ang_vel: Vec3,
}

/// Warm-start impulses (N·s, N·m·s) and last forces (N, N·m) of a joint.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct JointState {
    name: String,
    lambda: [Real; 6],
    force: Vec3,
    torque: Vec3,
}

/// The evolving state of a world.
#[derive(Clone, Serialize, Deserialize)]
pub struct WorldState {
    /// Time (s).
    pub time: Real,
    /// Steps taken.
    pub steps: u64,
    /// Time step (s) the state was reached with.
    pub dt: Real,
    /// The (sub-)step the warm-start impulses were found over ([`World::impulse_dt`], s).
    impulse_dt: Real,
    time_origin: Real,
    steps_origin: u64,
    bodies: Vec<BodyState>,
    joints: Vec<JointState>,
    pairs: Vec<((u32, u32), PairCache)>,
    fluid: Option<FluidState>,
    /// The fluid method's carried state ([`crate::fluid::FluidMethod::save_state`]).
    fluid_method: Vec<u8>,
}

impl WorldState {
    /// The number of fluid particles in the state (0 without a fluid).
    pub fn fluid_len(&self) -> usize {
        self.fluid.as_ref().map_or(0, |f| f.len())
    }
}

impl World {
    /// A copy of the evolving state.
    pub fn state(&self) -> WorldState {
        WorldState {
            time: self.time,
            steps: self.steps,
            dt: self.dt,
            impulse_dt: self.impulse_dt,
            time_origin: self.time_origin,
            steps_origin: self.steps_origin,
            bodies: self
                .bodies
                .iter()
                .map(|b| BodyState {
                    name: b.name.clone(),
                    pose: b.pose,
                    lin_vel: b.lin_vel,
                    ang_vel: b.ang_vel,
                })
                .collect(),
            joints: self
                .joints
                .iter()
                .map(|j| JointState {
                    name: j.name.clone(),
                    lambda: j.lambda,
                    force: j.force,
                    torque: j.torque,
                })
                .collect(),
            pairs: self.geometry.pair_caches(),
            fluid: self.fluid.as_ref().map(|f| f.state()),
            fluid_method: self.fluid_method.save_state(),
        }
    }

    /// Puts a saved state into a world built from the same model, or from a model with the same
    /// bodies, joints and particle counts (e.g. a smaller time step: the clock then continues
    /// from the saved time with the new step). The error says what does not match; the world is
    /// unchanged then.
    pub fn restore(&mut self, s: WorldState) -> Result<(), String> {
        self.restore_with(s, false)
    }

    /// [`World::restore`] of one rank's state in a run divided among processes: its fluid is
    /// the rank's part ([`crate::fluid::Fluid::restore_part`]).
    pub fn restore_part(&mut self, s: WorldState) -> Result<(), String> {
        self.restore_with(s, true)
    }

    fn restore_with(&mut self, s: WorldState, part: bool) -> Result<(), String> {
        let names = |a: Vec<&str>, b: Vec<&str>, what: &str| {
            if a == b {
                Ok(())
            } else {
                Err(format!(
                    "the checkpoint has {what} [{}]; the model has [{}]",
                    a.join(", "),
                    b.join(", ")
                ))
            }
        };
        names(
            s.bodies.iter().map(|b| b.name.as_str()).collect(),
            self.bodies.iter().map(|b| b.name.as_str()).collect(),
            "bodies",
        )?;
        names(
            s.joints.iter().map(|j| j.name.as_str()).collect(),
            self.joints.iter().map(|j| j.name.as_str()).collect(),
            "joints",
        )?;
        match (&mut self.fluid, s.fluid) {
            (Some(f), Some(fs)) if part => f.restore_part(fs)?,
            (Some(f), Some(fs)) => f.restore(fs)?,
            (None, None) => {}
            (Some(_), None) => return Err("the model has a fluid; the checkpoint has none".into()),
            (None, Some(_)) => return Err("the checkpoint has a fluid; the model has none".into()),
        }
        self.fluid_method.restore_state(&s.fluid_method)?;
        self.geometry.restore_pair_caches(s.pairs)?;
        for (b, st) in self.bodies.iter_mut().zip(s.bodies) {
            b.pose = st.pose;
            b.lin_vel = st.lin_vel;
            b.ang_vel = st.ang_vel;
        }
        for (j, st) in self.joints.iter_mut().zip(s.joints) {
            j.lambda = st.lambda;
            j.force = st.force;
            j.torque = st.torque;
        }
        self.time = s.time;
        self.steps = s.steps;
        // The warm starts are rescaled to the next (sub-)step, whatever the model's step now.
        self.impulse_dt = s.impulse_dt;
        if s.dt.to_bits() == self.dt.to_bits() {
            self.time_origin = s.time_origin;
            self.steps_origin = s.steps_origin;
        } else {
            // A new time step: the clock counts on from here.
            self.time_origin = s.time;
            self.steps_origin = s.steps;
        }
        Ok(())
    }
}
