//! Prescribed motion of kinematic bodies: a sinusoid or a time table of displacements of the
//! body frame from its initial pose.
//!
//! At time `t` (s) the body frame is at `x(t) = x₀ + d(t)` with orientation `exp([θ(t)]×) R₀`: the
//! displacement `d` (m) moves the frame origin, the rotation vector `θ` (rad, axis times angle,
//! world frame) turns the body about its frame origin. Two kinds:
//!
//! - [`Motion::Sine`]: `d(t) = D sin(2π f t + φ)`, `θ(t) = Θ sin(2π f t + φ)` (004 §4.4's sloshing
//!   tank: `x = X0 sin 2πft`);
//! - [`Motion::Table`]: `d` and `θ` interpolated linearly between the rows of a table, held at the
//!   first row before it and at the last row after it.
//!
//! **Velocity consistent with position.** Over a step from `t` to `t + h` the body moves with the
//! constant velocities that carry its pose exactly from the prescribed pose at `t` to the one at
//! `t + h` (the secant): `V = (c(t+h) − c(t))/h` for the centre of mass `c`, and `ω` the rotation
//! vector of `R(t+h) R(t)ᵀ` over `h`. Contacts, fluid rows and the explicit fluid's sub-steps see
//! these velocities, and the integrated pose at the step's end is the prescribed one (it is then
//! set to it, removing rounding). For a sinusoid the secant velocity differs from `dx/dt` by
//! `O((2πf h)²)` relative.

use super::RigidBody;
use crate::math::{Iso, Quat, Real, Vec3};

/// A prescribed motion.
#[derive(Debug, Clone, PartialEq)]
pub enum Motion {
    /// `d(t) = translation · sin(2π f t + phase)`, `θ(t) = rotation · sin(2π f t + phase)`.
    Sine {
        /// Displacement amplitude (m).
        translation: Vec3,
        /// Rotation-vector amplitude (rad).
        rotation: Vec3,
        /// Frequency f (Hz).
        frequency: Real,
        /// Phase φ (rad).
        phase: Real,
    },
    /// Linear interpolation in a table of (time in s, displacement in m, rotation vector in
    /// rad); times strictly increasing.
    Table(Vec<(Real, Vec3, Vec3)>),
}

impl Motion {
    /// Displacement (m) and rotation vector (rad) at time `t` (s).
    pub fn at(&self, t: Real) -> (Vec3, Vec3) {
        match self {
            Motion::Sine {
                translation,
                rotation,
                frequency,
                phase,
            } => {
                let s = (2.0 * std::f64::consts::PI * frequency * t + phase).sin();
                (translation * s, rotation * s)
            }
            Motion::Table(rows) => {
                let (Some(first), Some(last)) = (rows.first(), rows.last()) else {
                    return (Vec3::zeros(), Vec3::zeros());
                };
                if t <= first.0 {
                    return (first.1, first.2);
                }
                if t >= last.0 {
                    return (last.1, last.2);
                }
                // The row at or before t (times increase).
                let k = rows.partition_point(|r| r.0 <= t) - 1;
                let (a, b) = (&rows[k], &rows[k + 1]);
                let s = (t - a.0) / (b.0 - a.0);
                (a.1 + (b.1 - a.1) * s, a.2 + (b.2 - a.2) * s)
            }
        }
    }
}

impl Motion {
    /// The largest speed (m/s) of a point `reach` (m) from the body frame's origin under this
    /// motion: `2π f (|D| + |Θ| reach)` for a sine, the fastest segment of a table.
    pub fn peak_speed(&self, reach: Real) -> Real {
        match self {
            Motion::Sine {
                translation,
                rotation,
                frequency,
                ..
            } => {
                2.0 * std::f64::consts::PI
                    * frequency.abs()
                    * (translation.norm() + rotation.norm() * reach)
            }
            Motion::Table(rows) => rows
                .windows(2)
                .map(|w| {
                    let dt = w[1].0 - w[0].0;
                    ((w[1].1 - w[0].1).norm() + (w[1].2 - w[0].2).norm() * reach) / dt
                })
                .fold(0.0, Real::max),
        }
    }
}

/// A body's prescribed motion with the pose it is measured from.
#[derive(Debug, Clone, PartialEq)]
pub struct Prescribed {
    /// The motion.
    pub motion: Motion,
    /// Pose of the body frame at zero displacement (the model's `position` and `rotation`).
    pub origin: Iso,
}

impl Prescribed {
    /// Pose of the centre-of-mass frame of `body` at time `t` (s).
    pub fn com_pose(&self, body: &RigidBody, t: Real) -> Iso {
        let (d, theta) = self.motion.at(t);
        let mut frame = self.origin;
        frame.translation.vector += d;
        frame.rotation = Quat::from_scaled_axis(theta) * frame.rotation;
        frame * body.com_to_frame.inverse()
    }

    /// The velocities (m/s, rad/s) that carry `body` from its prescribed pose at `t` to the one
    /// at `t + h` (s): the secant.
    pub fn velocities(&self, body: &RigidBody, t: Real, h: Real) -> (Vec3, Vec3) {
        let (a, b) = (self.com_pose(body, t), self.com_pose(body, t + h));
        (
            (b.translation.vector - a.translation.vector) / h,
            (b.rotation * a.rotation.inverse()).scaled_axis() / h,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::Kind;

    fn body(origin: Iso) -> RigidBody {
        RigidBody {
            name: "b".into(),
            kind: Kind::Kinematic,
            pose: origin,
            lin_vel: Vec3::zeros(),
            ang_vel: Vec3::zeros(),
            mass: 0.0,
            inv_mass: 0.0,
            inertia: Vec3::zeros(),
            com_to_frame: Iso::identity(),
            force: Vec3::zeros(),
            torque: Vec3::zeros(),
            collider: 0,
            motion: None,
        }
    }

    #[test]
    fn table_interpolates_and_holds_its_ends() {
        let m = Motion::Table(vec![
            (1.0, Vec3::new(0.0, 0.0, 0.0), Vec3::zeros()),
            (3.0, Vec3::new(2.0, -4.0, 0.0), Vec3::new(0.0, 0.0, 1.0)),
        ]);
        assert_eq!(m.at(0.0).0, Vec3::zeros());
        assert_eq!(m.at(2.0).0, Vec3::new(1.0, -2.0, 0.0));
        assert_eq!(m.at(2.0).1, Vec3::new(0.0, 0.0, 0.5));
        assert_eq!(m.at(9.0).0, Vec3::new(2.0, -4.0, 0.0));
    }

    #[test]
    fn secant_velocities_carry_the_pose_to_the_prescribed_one() {
        let origin = Iso::translation(1.0, 2.0, 0.5);
        let mut b = body(origin);
        let p = Prescribed {
            motion: Motion::Sine {
                translation: Vec3::new(0.1, 0.0, 0.05),
                rotation: Vec3::new(0.0, 0.3, 0.4),
                frequency: 0.75,
                phase: 0.2,
            },
            origin,
        };
        b.pose = p.com_pose(&b, 0.0);
        let h = 0.01;
        for k in 0..200 {
            let t = k as Real * h;
            (b.lin_vel, b.ang_vel) = p.velocities(&b, t, h);
            crate::body::integrate_pose(&mut b, h);
            let want = p.com_pose(&b, t + h);
            let dx = (b.pose.translation.vector - want.translation.vector).norm();
            let dq = b.pose.rotation.angle_to(&want.rotation);
            assert!(dx < 1e-12 && dq < 1e-12, "step {k}: {dx:e} m, {dq:e} rad");
            b.pose = want;
        }
    }
}
