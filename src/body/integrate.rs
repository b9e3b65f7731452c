//! Time integration of rigid bodies: symplectic Euler with the quaternion exponential map and a
//! momentum-conserving implicit gyroscopic step.
//!
//! Within a step of length h (s): velocities first (`V* = V + h (g + F/m)`,
//! `ω* = gyro(ω) + h I⁻¹ τ`, then the constraint solve), then positions with the new velocities
//! (`x⁺ = x + h V⁺`, `q⁺ = exp(h ω⁺ / 2) ⊗ q`, world-frame ω left-multiplies, 001 eqs. 44–45).
//!
//! # Gyroscopic step
//!
//! Torque-free rotation conserves the world angular momentum `L = R I Rᵀ ω`. With the pose update
//! `R⁺ = exp(h [ω⁺]×) R`, writing `Ω = Rᵀ ω⁺` (body frame at the start of the step) and
//! `L_b = I Rᵀ ω`, exact conservation `R⁺ I R⁺ᵀ ω⁺ = L` becomes (using `exp(h[Ω]×) Ω = Ω`)
//!
//! `I Ω = exp(−h [Ω]×) L_b`,
//!
//! solved here by Newton iterations with the approximate Jacobian `I − h [L_b]×`. The step
//! conserves `L` to the Newton tolerance and never increases the kinetic energy:
//! `E − E⁺ = ½ |ω_b − Ω|²_I ≥ 0`. An explicit gyroscopic term instead gains energy, and Bullet's
//! implicit (backward Euler) step `I(Ω − ω_b) + h Ω × IΩ = 0` loses `|L|` at O(h²) per step.

use super::{Dofs, RigidBody};
use crate::math::{skew, Quat, Real, Vec3};

/// Rotation matrix of `exp(θ [axis]×)` applied to a vector: `exp(h[w]×) v`.
fn rotate_by(w: &Vec3, h: Real, v: &Vec3) -> Vec3 {
    let q = Quat::from_scaled_axis(w * h);
    q * v
}

/// The angular velocity (world) after a torque-free step of length `h` that conserves the world
/// angular momentum exactly (see the module docs). Planar bodies rotate about z only and have no
/// gyroscopic term.
pub fn gyroscopic_step(body: &RigidBody, h: Real, dofs: Dofs) -> Vec3 {
    if dofs == Dofs::Planar || body.ang_vel.norm_squared() == 0.0 {
        return body.ang_vel;
    }
    let rot = body.pose.rotation;
    let i = body.inertia;
    if i.iter().any(|&c| c <= 0.0) {
        return body.ang_vel;
    }
    let wb = rot.inverse() * body.ang_vel;
    let lb = i.component_mul(&wb);
    let jac = nalgebra::Matrix3::from_diagonal(&i) - h * skew(&lb);
    let Some(jinv) = jac.try_inverse() else {
        return body.ang_vel;
    };
    let mut omega = wb;
    for _ in 0..50 {
        let res = i.component_mul(&omega) - rotate_by(&omega, -h, &lb);
        let d = jinv * res;
        omega -= d;
        if d.norm() <= 1e-15 * omega.norm().max(1e-300) {
            break;
        }
    }
    rot * omega
}

/// Advances the pose of a body by `h` with its current velocities (symplectic Euler part).
pub fn integrate_pose(body: &mut RigidBody, h: Real) {
    body.pose.translation.vector += h * body.lin_vel;
    let dq = Quat::from_scaled_axis(body.ang_vel * h);
    body.pose.rotation = Quat::new_normalize((dq * body.pose.rotation).into_inner());
}
