//! The probes a model asks for (`probes: [Position("ball"), ...]`): the measured series by the
//! names of bodies, joints and beams; [`crate::model::build::probes`] resolves them in a built
//! world.

use super::values::V3;
use crate::math::Real;
use serde::{Deserialize, Serialize};

/// A measured series.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum ProbeDef {
    /// Centre-of-mass position of a body (m): columns `<body>.x`, `.y`, `.z`.
    Position(String),
    /// Linear velocity of a body (m/s).
    Velocity(String),
    /// Angular velocity of a body (rad/s).
    AngularVelocity(String),
    /// Orientation of a body's frame as a rotation vector, axis times angle (rad, the angle in
    /// [0, π]): columns `<body>.rot.x`, `.y`, `.z`; in 2D `.rot.z` is the angle about z in
    /// (−π, π] (it wraps when a body turns past half a turn).
    Orientation(String),
    /// Constraint force of a joint on its second body (N).
    JointForce(String),
    /// Kinetic, potential and total energy of all bodies (J).
    Energy,
    /// Surge front: the largest coordinate of a fluid particle centre along the direction
    /// (e.g. `Front((1, 0, 0))`), m: column `front`.
    Front(V3),
    /// Smoothed fluid pressure at a point (Pa): the kernel-weighted (Shepard) mean of the
    /// particle pressures within the kernel support of the point, 0 where there is no fluid.
    Pressure(V3),
    /// Wave gauge: the free-surface elevation (m) on the vertical line (against gravity)
    /// through a point, from the surface's height there at the start, e.g. `WaveGauge(2.0, 0)`
    /// (2D: x, y; 3D: x, y, z): column `elevation(x y z)`. The surface is where the fluid's kernel-weighted
    /// volume fraction falls through 1/2 ([`crate::fluid::Fluid::surface_height`]); NaN when no
    /// fluid is within a kernel support of the line.
    WaveGauge(V3),
    /// Fluid force (N) and torque about the centre of mass (N·m) on a body, from the last solve;
    /// static bodies (walls, fixed obstacles) too.
    FluidForce(String),
    /// Largest compression `max (ρ − ρ0)/ρ0` and mean `|ρ − ρ0|/ρ0` of the fluid particles.
    DensityError,
    /// Fraction of a body's volume below the free surface (0–1). The surface height (against
    /// gravity) is half a spacing above the mean top particle of horizontal bins of width l,
    /// over the fluid farther from the body than its horizontal extent plus one kernel support;
    /// meant for bodies floating in a tank; NaN where it cannot be measured, and for a body
    /// with no fluid around it seen along gravity (not in the fluid at all).
    Submerged(String),
    /// Kinetic, potential (relative to the origin) and total energy of the fluid (J).
    FluidEnergy,
    /// What the impulse contact resolver did in the last step: impulses, the largest energy
    /// stored in the contacts at once and the energy released (J, ETI), and the bodies' kinetic
    /// energy change (J). Needs an impulse resolver (`contact: (resolver: Eti() | ..)`).
    Resolver,
    /// Angle of repose (degrees) of the pile of dynamic bodies on a plate body, by the
    /// fixed-base cone method (3D, gravity along −z): in each of 8 sectors around the plate's
    /// centre, the highest grain top of each ring one grain diameter wide from a quarter of
    /// the plate's radius out, a least-squares line through them; the mean of the sectors'
    /// angles (`crate::probe::repose`). Columns `repose_angle` and `repose_spread` (half the
    /// range over the sectors, deg), `pile_grains` and `pile_height` (m).
    Repose(String),
    /// Displacement (m) of a beam's tip from its straight initial position ([`super::beam_defs`]):
    /// columns `<beam>.tip.dx`, `.dy`, `.dz`.
    BeamTip(String),
    /// Displacement (m) of the point of a beam at a fraction (0 root – 1 tip) of its length
    /// from its straight initial position, e.g. `BeamPoint("plate", 0.5)`.
    BeamPoint(String, Real),
    /// Bending moment at a beam's root (N·m): the root hinge's spring-damper moment on the
    /// first element, `−(kθ + cθ̇)`; 0 for a pinned or free root.
    BeamMoment(String),
    /// Elastic energy of a beam's hinges, `Σ kθ²/2` (J).
    BeamEnergy(String),
}
