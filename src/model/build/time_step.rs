//! The time step of a fluid model that gives none: half a spacing per step at the largest
//! speed the model can reach. The constraint method takes each step whole (001 §4: one
//! velocity-level solve per step, then `r^{t+1} = r^t + h u^{t+1}`), so a particle that moves
//! more than a fraction of a spacing in one step meets neighbours its rows did not hold
//! apart; `vcsim check` warns of a given `dt` above the same bound
//! ([`crate::model::resolution`]). Where the flow outruns that bound later, the method splits
//! a step into sub-steps ([`crate::fluid::constraint::ConstraintParams::cfl`]).
//!
//! `dt = ½ l / u`, `u = √(2 g H) + u_fluid + u_bodies` (m/s): H (m) the height along gravity
//! spanned by the fluid particles and the moving bodies' centres plus a spacing (water and
//! bodies falling through it), u_fluid the fastest initial particle, u_bodies the fastest
//! prescribed motion (a point at the body's reach: its size) or initial body speed — summed,
//! since a paddle's stroke adds to the water's own speed against it.

use crate::body::{Kind, RigidBody};
use crate::fluid::Fluid;
use crate::math::{Real, Vec3};

/// Spacings a particle moves in one step at the largest speed (dimensionless).
pub const SPACINGS_PER_STEP: Real = 0.5;

/// The speed (m/s) [`default_time_step`] divides by, and the height (m) it was taken from.
pub fn reachable_speed(fluid: &Fluid, bodies: &[RigidBody], gravity: &Vec3) -> (Real, Real) {
    let g = gravity.norm();
    let l = fluid.params.spacing;
    let moving = bodies.iter().filter(|b| b.kind != Kind::Static);
    let height = crate::math::fall_height(
        fluid.pos.iter().copied().chain(moving.map(|b| b.com())),
        gravity,
        l,
    );
    let fluid_speed = fluid.vel.iter().map(|v| v.norm()).fold(0.0, Real::max);
    // How far each body's boundary particles reach from its centre of mass (m; at least a
    // spacing).
    let mut reach = vec![l; bodies.len()];
    let ns = fluid.static_walls();
    for (&o, x) in fluid.owner[ns..].iter().zip(&fluid.local) {
        if let Some(r) = reach.get_mut(o as usize) {
            *r = r.max(x.norm());
        }
    }
    let body_speed = bodies
        .iter()
        .zip(&reach)
        .filter(|(b, _)| b.kind != Kind::Static)
        .map(|(b, &r)| {
            let prescribed = b.motion.as_ref().map_or(0.0, |m| m.peak_speed(r));
            prescribed.max(b.lin_vel.norm() + b.ang_vel.norm() * r)
        })
        .fold(0.0, Real::max);
    let u = (2.0 * g * height).sqrt() + fluid_speed + body_speed;
    (u, height)
}

/// The time step (s) of a fluid model that gives none (module docs); `None` when nothing can
/// move (no gravity, everything at rest).
pub fn default_time_step(fluid: &Fluid, bodies: &[RigidBody], gravity: &Vec3) -> Option<Real> {
    let (u, _) = reachable_speed(fluid, bodies, gravity);
    let dt = SPACINGS_PER_STEP * fluid.params.spacing / u;
    (dt.is_finite() && dt > 0.0).then_some(dt)
}
