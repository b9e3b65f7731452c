//! Constraint row families. Each family turns the current state into velocity-level rows
//! `w = J v⁺ + b + ε λ` (see [`crate::solver`]) and reads its impulses back after the solve.
//!
//! | family | file | rows | touches |
//! |---|---|---|---|
//! | rigid contacts | [`contact`] | normal (restitution, Baumgarte, speculative) + Coulomb friction | two bodies |
//! | joints | [`joint`] | fixed, spherical, revolute, prismatic; rigid or compliant | two bodies |
//! | fluid density | [`density`] | one per fluid particle: `ρ_i ≤ ρ0` (001) or `= ρ0` (KCSPH) | particle, its neighbours, bodies of its boundary neighbours |
//! | wall density | [`wall`] | one per boundary particle near the fluid (wall pressure) | its fluid neighbours, its body |
//! | particle contacts | [`particle_contact`] | fluid particles as spheres (001 §4.2) | two particles, or a particle and a body |
//!
//! Contacts and joints share the two-body storage [`BodyRows`]; density and wall rows share
//! [`DensityRows`] (one transposed product gathers both into each particle); particle contacts
//! have [`ParticleContactRows`]. Every row's Jacobian on a body is a [`BodyJacobian`]
//! `(c, r × c)`. DOF offsets come from the one [`VelocityLayout`].
//!
//! A new family implements [`RowFamily`] (the solver's [`RowSet`] plus its warm start) in a
//! file of its own and is added to the pipeline's list of families; no other family changes.

pub mod body_jacobian;
pub mod contact;
pub mod density;
pub mod density_pairs;
pub mod joint;
pub mod layout;
pub mod particle_contact;
mod two_body;
pub mod wall;

pub use body_jacobian::{BodyEntries, BodyEntry, BodyJacobian, NO_DOF};
pub use density::DensityRows;
pub use layout::VelocityLayout;
pub use particle_contact::ParticleContactRows;
pub use two_body::{BodyRow, BodyRows};

use crate::body::{linear_mask, Dofs, RigidBody};
use crate::math::{Mat3, Real, Vec3};
use crate::solver::RowSet;

/// A row family as the pipeline sees it: rows for the solver, and the impulses to start from.
pub trait RowFamily: RowSet {
    /// Short name, for timings and diagnostics.
    fn name(&self) -> &'static str;
    /// Appends one warm-start impulse per row to `out` (N·s, or the family's impulse unit).
    fn warm_start(&self, out: &mut Vec<Real>);
    /// The family's rows as named groups in order, `(name, rows)`, for analysis
    /// ([`crate::pipeline::Problem`]); default one group named [`RowFamily::name`].
    fn groups(&self, out: &mut dyn FnMut(&'static str, usize)) {
        out(self.name(), self.len());
    }
}

/// Inverse-mass data of a body as the rows see it.
#[derive(Debug, Clone, Copy)]
pub struct BodyMass {
    /// Offset of the body's 6 DOFs in the velocity vector, or [`NO_DOF`].
    pub dof: u32,
    /// 1/m per linear direction (masked for planar bodies), 1/kg.
    pub inv_mass: Vec3,
    /// World inverse inertia (masked), 1/(kg·m²).
    pub inv_inertia: Mat3,
    /// Current centre of mass (m).
    pub com: Vec3,
    /// Velocity used for bodies without DOFs (kinematic), m/s and rad/s.
    pub lin_vel: Vec3,
    /// Angular velocity (world) for bodies without DOFs.
    pub ang_vel: Vec3,
}

impl BodyMass {
    /// Builds the mass data of all bodies, with DOF offsets from `layout`.
    pub fn of(bodies: &[RigidBody], dofs: Dofs, layout: &VelocityLayout, out: &mut Vec<BodyMass>) {
        out.clear();
        for (i, b) in bodies.iter().enumerate() {
            out.push(BodyMass {
                dof: layout.body_dof(i),
                inv_mass: linear_mask(dofs) * b.inv_mass,
                inv_inertia: b.inv_inertia_world(dofs),
                com: b.com(),
                lin_vel: b.lin_vel,
                ang_vel: b.ang_vel,
            });
        }
    }
}

impl RowFamily for BodyRows {
    fn name(&self) -> &'static str {
        "contacts and joints"
    }
    fn warm_start(&self, out: &mut Vec<Real>) {
        out.extend_from_slice(&self.warm);
    }
    fn groups(&self, out: &mut dyn FnMut(&'static str, usize)) {
        out("body", self.len());
    }
}

/// Turns a spring-damper (stiffness `k`, damping `c`) acting on a constraint error `C` into
/// the row compliance and bias of an implicit (backward Euler) step of length `h`:
/// the impulse `λ = −h (k C⁺ + c Ċ⁺)` with `C⁺ = C + h J v⁺` gives
/// `J v⁺ + k C / (h k + c) + λ / (h (h k + c)) = 0`, i.e. `ε = 1 / (h (h k + c))`,
/// `b = k C / (h k + c)`. As `k → ∞` this tends to the rigid row with full position correction.
pub fn spring_row(k: Real, c: Real, h: Real, err: Real) -> (Real, Real) {
    let denom = h * k + c;
    (1.0 / (h * denom), k * err / denom)
}

/// The compliance and bias of a spring-damper row that does not dissipate: the impulse
/// `λ = −h (k (C + h (u⁺ − u)/2) + c u⁺)`, with `u = J v` at the start of the step and the
/// position update `C⁺ = C + h u⁺` of the step, gives
/// `J v⁺ + (k C − h k u/2)/(h k/2 + c) + λ/(h (h k/2 + c)) = 0`.
///
/// Why: for one mode of frequency ω (c = 0, `a = (ωh)²`) the step maps `(C, u)` by a matrix of
/// determinant 1 and trace `2/(1 + a/2)`: the amplitude is kept exactly for every `ωh`
/// (unconditionally stable, no numerical damping) and the period is longer by `5 (ωh)²/24`.
/// [`spring_row`] (backward Euler) has determinant `1/(1 + a)`: an amplitude decay per step of
/// `a/2`, a damping ratio `ζ ≈ ωh/2`. In the static limit both give `λ = −h k C`.
pub fn conservative_spring_row(k: Real, c: Real, h: Real, err: Real, u: Real) -> (Real, Real) {
    let denom = 0.5 * h * k + c;
    (1.0 / (h * denom), (k * err - 0.5 * h * k * u) / denom)
}
