//! Rigid bodies: state, mass properties and integration.
//!
//! A body's state is the pose of its centre-of-mass frame, whose axes are the principal axes of
//! inertia (so the body-frame inertia tensor is diagonal), its linear velocity `V` (m/s) and its
//! world-frame angular velocity `ω` (rad/s). The user's body frame (the one shapes, positions and
//! outputs refer to) is kept as the fixed offset [`RigidBody::com_to_frame`].

mod integrate;
mod motion;
pub mod wavemaker;

pub use integrate::{gyroscopic_step, integrate_pose};
pub use motion::{Motion, Prescribed};

use crate::math::{Iso, Mat3, Real, Vec3};

/// How a body moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Never moves.
    Static,
    /// Moves with its prescribed velocities.
    Kinematic,
    /// Moves under forces and constraints.
    Dynamic,
}

/// Which degrees of freedom exist: all six in 3D, or planar (x, y translation, z rotation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dofs {
    /// All six.
    Spatial,
    /// In-plane motion only.
    Planar,
}

/// A rigid body.
#[derive(Debug, Clone)]
pub struct RigidBody {
    /// Name from the model.
    pub name: String,
    /// Static, kinematic or dynamic.
    pub kind: Kind,
    /// Pose of the centre-of-mass principal frame in the world.
    pub pose: Iso,
    /// Linear velocity of the centre of mass (m/s).
    pub lin_vel: Vec3,
    /// Angular velocity, world frame (rad/s).
    pub ang_vel: Vec3,
    /// Mass (kg); infinite for static and kinematic bodies is expressed by `inv_mass = 0`.
    pub mass: Real,
    /// 1/mass (1/kg), 0 unless dynamic.
    pub inv_mass: Real,
    /// Principal moments of inertia (kg·m²).
    pub inertia: Vec3,
    /// Pose of the user's body frame relative to the centre-of-mass frame.
    pub com_to_frame: Iso,
    /// Constant external force (N, world).
    pub force: Vec3,
    /// Constant external torque (N·m, world).
    pub torque: Vec3,
    /// Index of the body's collider in the geometry set.
    pub collider: usize,
    /// Prescribed motion (kinematic bodies only); `None`: constant velocities.
    pub motion: Option<Prescribed>,
}

impl RigidBody {
    /// Whether the body has degrees of freedom in the solve.
    pub fn is_dynamic(&self) -> bool {
        self.kind == Kind::Dynamic
    }

    /// Pose of the user's body frame in the world.
    pub fn frame_pose(&self) -> Iso {
        self.pose * self.com_to_frame
    }

    /// Centre of mass in the world (m).
    pub fn com(&self) -> Vec3 {
        self.pose.translation.vector
    }

    /// World-frame inverse inertia tensor (1/(kg·m²)) restricted to the body's DOFs
    /// (planar: only the z–z entry survives). Zero unless dynamic.
    pub fn inv_inertia_world(&self, dofs: Dofs) -> Mat3 {
        if !self.is_dynamic() {
            return Mat3::zeros();
        }
        let r = self.pose.rotation.to_rotation_matrix().into_inner();
        match dofs {
            Dofs::Spatial => {
                let inv = self.inertia.map(|i| if i > 0.0 { 1.0 / i } else { 0.0 });
                r * Mat3::from_diagonal(&inv) * r.transpose()
            }
            Dofs::Planar => {
                let izz: Real = (0..3)
                    .map(|k| r[(2, k)] * r[(2, k)] * self.inertia[k])
                    .sum();
                let mut m = Mat3::zeros();
                if izz > 0.0 {
                    m[(2, 2)] = 1.0 / izz;
                }
                m
            }
        }
    }

    /// World-frame inertia tensor (kg·m²).
    pub fn inertia_world(&self) -> Mat3 {
        let r = self.pose.rotation.to_rotation_matrix().into_inner();
        r * Mat3::from_diagonal(&self.inertia) * r.transpose()
    }

    /// Velocity of a world point attached to the body (m/s).
    pub fn point_velocity(&self, p: &Vec3) -> Vec3 {
        self.lin_vel + self.ang_vel.cross(&(p - self.com()))
    }

    /// Kinetic energy (J).
    pub fn kinetic_energy(&self) -> Real {
        if !self.is_dynamic() {
            return 0.0;
        }
        0.5 * self.mass * self.lin_vel.norm_squared()
            + 0.5 * self.ang_vel.dot(&(self.inertia_world() * self.ang_vel))
    }

    /// Angular momentum about the world origin (kg·m²/s).
    pub fn angular_momentum(&self) -> Vec3 {
        self.inertia_world() * self.ang_vel + self.com().cross(&(self.mass * self.lin_vel))
    }
}

/// The linear DOF mask: 1 where the body can translate.
pub fn linear_mask(dofs: Dofs) -> Vec3 {
    match dofs {
        Dofs::Spatial => Vec3::repeat(1.0),
        Dofs::Planar => Vec3::new(1.0, 1.0, 0.0),
    }
}
