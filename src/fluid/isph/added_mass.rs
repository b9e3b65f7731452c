//! Added mass of the bodies in ISPH, taken implicitly by the rigid-body step.
//!
//! The wall condition makes the fluid answer a change δ of a body's velocity at
//! once, with a pressure impulse `−M_a δ` at the next step's first sub-step. Explicitly
//! staggered, a body lighter than its added mass `M_a` then overshoots by a factor `M_a/M`
//! every step and the coupling diverges (000 §3 notes that light structures need strong
//! coupling; the buoyant box of `buoyancy_2d_apgd` at density ratio 0.5 did, in 20 steps).
//! `M_a` (6×6) is measured each model step by PPE solves with unit body velocities
//! ([`super::ppe::Ppe::added_mass`]), and the rigid-body step takes it implicitly: the velocity
//! change over the step solves `(M + M_a) Δv = M Δv_free + M_a Δv_prev`, where `Δv_free` is
//! the change from gravity and the fluid's force alone and `Δv_prev` the body's last change
//! (the artificial-added-mass scheme of partitioned FSI, here with the measured `M_a`;
//! consistent: at a steady change both sides agree).

use crate::body::RigidBody;
use crate::math::{Real, Vec3};

/// The rigid-body step's velocity change of a dynamic body with its added mass `ma` taken
/// implicitly (module docs): `v0` is the body's (linear, angular) velocity at
/// the start of the step (m/s, rad/s), the body's velocity now holds `v0` plus the change from
/// gravity and the fluid's force alone, and `prev` its velocity at the start of the last step.
/// Only the modes in `active` change.
pub fn take_added_mass(
    b: &mut RigidBody,
    ma: &nalgebra::Matrix6<Real>,
    v0: (Vec3, Vec3),
    prev: (Vec3, Vec3),
    active: [bool; 6],
) {
    let six = |l: Vec3, a: Vec3| nalgebra::Vector6::new(l.x, l.y, l.z, a.x, a.y, a.z);
    let free = six(b.lin_vel - v0.0, b.ang_vel - v0.1);
    let last = six(v0.0 - prev.0, v0.1 - prev.1);
    let mut m = nalgebra::Matrix6::<Real>::zeros();
    for a in 0..3 {
        m[(a, a)] = b.mass;
    }
    m.fixed_view_mut::<3, 3>(3, 3).copy_from(&b.inertia_world());
    let mut lhs = m + ma;
    let mut rhs = m * free + ma * last;
    for (e, _) in active.iter().enumerate().filter(|a| !*a.1) {
        lhs.row_mut(e).fill(0.0);
        lhs.column_mut(e).fill(0.0);
        lhs[(e, e)] = 1.0;
        rhs[e] = 0.0;
    }
    if let Some(dv) = lhs.lu().solve(&rhs) {
        if dv.iter().all(|x| x.is_finite()) {
            b.lin_vel = v0.0 + Vec3::new(dv[0], dv[1], dv[2]);
            b.ang_vel = v0.1 + Vec3::new(dv[3], dv[4], dv[5]);
        }
    }
}
