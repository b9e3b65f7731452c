//! Prescribed motion of kinematic bodies: a sinusoid or a time table of displacements of the
//! body frame from its initial pose.
//!
//! At time `t` (s) the body frame is at `x(t) = x₀ + d(t)` with orientation `exp([θ(t)]×) R₀`: the
//! displacement `d` (m) moves the frame origin, the rotation vector `θ` (rad, axis times angle,
//! world frame) turns the body about its frame origin. Two kinds:
//!
//! - [`Motion::Sine`]: `θ(t) = Θ sin(2π f t + φ)` about a pivot `p` (m, from the body's origin,
//!   world frame at the start) and `d(t) = D sin(2π f t + φ) + p − R(θ(t)) p` (004 §4.4's
//!   sloshing tank: `x = X0 sin 2πft`; a flap wavemaker turns about its hinge);
//! - [`Motion::Table`]: `d` and `θ` interpolated linearly between the rows of a table, held at the
//!   first row before it and at the last row after it.
//!
//! **Ramp.** A [`Prescribed`] motion may rise over a ramp of `T` seconds: the amplitudes (`D`,
//! `Θ`, a table's displacements and rotations) are scaled by
//! [`super::wavemaker::ramp`]`(t, T) = (1 − cos(π t/T))/2` until `t = T`, so the body starts at
//! rest in its initial pose, with no jump in velocity (wavemakers: two periods or more, Dean &
//! Dalrymple 1991 §6; DualSPHysics' wave generation ramps the same way).
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
        /// The point the rotation turns about, from the body's origin (m, world frame at the
        /// start; zero: the origin).
        pivot: Vec3,
    },
    /// Linear interpolation in a table of (time in s, displacement in m, rotation vector in
    /// rad); times strictly increasing.
    Table(Vec<(Real, Vec3, Vec3)>),
}

impl Motion {
    /// Displacement (m) and rotation vector (rad) at time `t` (s).
    pub fn at(&self, t: Real) -> (Vec3, Vec3) {
        self.scaled(t, 1.0)
    }

    /// Displacement (m) and rotation vector (rad) at time `t` (s) with the amplitudes scaled by
    /// `scale` (a ramp).
    pub fn scaled(&self, t: Real, scale: Real) -> (Vec3, Vec3) {
        match self {
            Motion::Sine {
                translation,
                rotation,
                frequency,
                phase,
                pivot,
            } => {
                let s = scale * (2.0 * std::f64::consts::PI * frequency * t + phase).sin();
                let theta = rotation * s;
                let turned = Quat::from_scaled_axis(theta) * pivot;
                (translation * s + pivot - turned, theta)
            }
            Motion::Table(rows) => {
                let (Some(first), Some(last)) = (rows.first(), rows.last()) else {
                    return (Vec3::zeros(), Vec3::zeros());
                };
                if t <= first.0 {
                    return (first.1 * scale, first.2 * scale);
                }
                if t >= last.0 {
                    return (last.1 * scale, last.2 * scale);
                }
                // The row at or before t (times increase).
                let k = rows.partition_point(|r| r.0 <= t) - 1;
                let (a, b) = (&rows[k], &rows[k + 1]);
                let s = (t - a.0) / (b.0 - a.0);
                (
                    (a.1 + (b.1 - a.1) * s) * scale,
                    (a.2 + (b.2 - a.2) * s) * scale,
                )
            }
        }
    }
}

impl Motion {
    /// The largest speed (m/s) of a point `reach` (m) from the body frame's origin under this
    /// motion: `2π f (|D| + |Θ| (reach + |p|))` for a sine about pivot `p`, the fastest segment
    /// of a table.
    pub fn peak_speed(&self, reach: Real) -> Real {
        match self {
            Motion::Sine { frequency, .. } => {
                2.0 * std::f64::consts::PI * frequency.abs() * self.amplitude(reach)
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

    /// The largest displacement (m) of a point `reach` (m) from the body frame's origin from
    /// its initial place, bounded by `|D| + |Θ| (reach + |p|)` (a table: its largest row).
    pub fn amplitude(&self, reach: Real) -> Real {
        match self {
            Motion::Sine {
                translation,
                rotation,
                pivot,
                ..
            } => translation.norm() + rotation.norm() * (reach + pivot.norm()),
            Motion::Table(rows) => rows
                .iter()
                .map(|r| r.1.norm() + r.2.norm() * reach)
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
    /// Duration of the ramp (s; 0: none; module docs).
    pub ramp: Real,
}

impl Prescribed {
    /// The largest speed (m/s) of a point `reach` (m) from the body frame's origin: the
    /// motion's, plus what the ramp adds (`π/(2T)` times the amplitude).
    pub fn peak_speed(&self, reach: Real) -> Real {
        let ramp = if self.ramp > 0.0 {
            std::f64::consts::PI / (2.0 * self.ramp) * self.motion.amplitude(reach)
        } else {
            0.0
        };
        self.motion.peak_speed(reach) + ramp
    }

    /// Pose of the centre-of-mass frame of `body` at time `t` (s).
    pub fn com_pose(&self, body: &RigidBody, t: Real) -> Iso {
        let scale = super::wavemaker::ramp(t, self.ramp);
        let (d, theta) = self.motion.scaled(t, scale);
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
    fn a_sine_about_a_pivot_keeps_the_pivot_in_place() {
        let pivot = Vec3::new(0.0, -0.5, 0.0);
        let m = Motion::Sine {
            translation: Vec3::zeros(),
            rotation: Vec3::new(0.0, 0.0, 0.2),
            frequency: 1.0,
            phase: 0.0,
            pivot,
        };
        for t in [0.1, 0.25, 0.6] {
            let (d, theta) = m.at(t);
            // The pivot's world position after the motion: origin + d + R(θ) pivot.
            let moved = d + Quat::from_scaled_axis(theta) * pivot;
            assert!((moved - pivot).norm() < 1e-15, "t {t}: {moved:?}");
        }
        let p = Prescribed {
            motion: m,
            origin: Iso::identity(),
            ramp: 2.0,
        };
        // The ramp starts at rest: at t = 0 and over the first instants the pose is the origin.
        assert_eq!(
            p.motion
                .scaled(0.3, crate::body::wavemaker::ramp(0.0, 2.0))
                .1,
            Vec3::zeros()
        );
        assert!(p.peak_speed(0.0) > p.motion.peak_speed(0.0));
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
                pivot: Vec3::new(0.0, -0.3, 0.1),
            },
            origin,
            ramp: 0.7,
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
