//! The constraint method (monolithic; 001, 004 KCSPH with bilateral rows): the fluid's
//! particles are unknowns of the one constraint solve, beside the bodies. Each step it finds
//! neighbours (stage 1), adds gravity, viscosity and the velocity filter (stage 2,
//! [`super::Fluid::external`]), builds its two row families (stage 4): density and wall rows
//! ([`crate::constraints::density`], [`crate::constraints::wall`]) and particle contacts
//! ([`crate::constraints::particle_contact`]), reads their impulses back after the solve
//! (stage 5: pressures, warm starts, the fluid's force on the bodies) and moves the particles
//! with shifting (stage 6, [`super::lind_shifting`]).
//!
//! Its parameters are the fluid's ([`super::FluidParams`]) and the kind of density rows
//! ([`ConstraintParams`], written `Constraint(density: Kcsph)` in RON).

pub mod projection;

pub use projection::{ProjectionInfo, ProjectionParams};

use super::method::{FluidMethod, RowContext};
use super::Fluid;
use crate::body::RigidBody;
pub use crate::constraints::density_pairs::PairCoefficients;
use crate::constraints::{DensityRows, ParticleContactRows, RowFamily};
use crate::math::{Real, Vec3};

/// The constraint method's own parameters (RON: `fluid: (method: Constraint(density: ..))`).
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ConstraintParams {
    /// `Unilateral` (001, default) or `Kcsph` (004: bilateral) density rows.
    pub density: super::DensityMethod,
    /// The density projection after each step ([`projection`]; `max_sweeps: 0` turns it off).
    pub projection: ProjectionParams,
    /// How the density rows hold their pair coefficients: `Auto` (default: stored, formed beyond
    /// 256 MiB when PGS sweeps solve them), `Stored` or `Formed`
    /// ([`crate::constraints::density_pairs`]). The same results either way; `Formed` trades
    /// speed for memory in large 3D models.
    pub pair_coefficients: PairCoefficients,
}

/// What the constraint method carries from one step to the next (checkpoints): the density
/// rows' impulses per particle and boundary particle (their warm starts, in the particles'
/// current order) and the projection's state.
#[derive(Default, serde::Serialize, serde::Deserialize)]
struct Carried<'a> {
    lambda: std::borrow::Cow<'a, [Real]>,
    blambda: std::borrow::Cow<'a, [Real]>,
    projection: Vec<u8>,
}

/// The constraint method: its two row families, reused from step to step.
#[derive(Default)]
pub struct Constraint {
    /// Density and wall rows.
    pub density: DensityRows,
    /// Particle contact rows.
    pub contacts: ParticleContactRows,
    /// The density projection after each step.
    pub projection: projection::Projection,
}

impl Constraint {
    /// The method with its parameters.
    pub fn new(p: ConstraintParams) -> Self {
        let mut c = Constraint {
            projection: projection::Projection::new(p.projection),
            ..Default::default()
        };
        c.density.pairs = p.pair_coefficients;
        c
    }
}

impl FluidMethod for Constraint {
    fn name(&self) -> &'static str {
        "constraint (monolithic)"
    }

    fn in_solve(&self) -> bool {
        true
    }

    fn find_neighbours(&mut self, fluid: &mut Fluid, bodies: &[RigidBody]) {
        if self.projection.find_neighbours(fluid, bodies) {
            self.density.follow_search(fluid);
        }
    }

    fn external(&mut self, fluid: &mut Fluid, gravity: &Vec3, h: Real, bodies: &[RigidBody]) {
        fluid.external(gravity, h, bodies);
    }

    fn build_rows(&mut self, fluid: &mut Fluid, ctx: &RowContext) {
        let mut err = std::mem::take(&mut fluid.density_error);
        self.density.colour = ctx.colour;
        self.density.multilevel = ctx.multilevel;
        self.density
            .build(fluid, ctx.layout, ctx.h, ctx.masses, &mut err);
        fluid.density_error = err;
        self.contacts.build(fluid, ctx.layout, ctx.h, ctx.masses);
    }

    fn row_families<'a>(&'a self, push: &mut dyn FnMut(&'a dyn RowFamily)) {
        push(&self.density);
        push(&self.contacts);
    }

    fn read_back(&mut self, lambda: &[Real], h: Real, fluid: &mut Fluid) {
        let nd = crate::solver::RowSet::len(&self.density);
        self.density.read_back(&lambda[..nd], h, fluid);
        self.density.release();
        self.contacts.read_back(&lambda[nd..], h, fluid);
    }

    fn save_state(&self) -> Vec<u8> {
        postcard::to_stdvec(&Carried {
            lambda: std::borrow::Cow::Borrowed(&self.density.lambda),
            blambda: std::borrow::Cow::Borrowed(&self.density.blambda),
            projection: self.projection.save_state(),
        })
        .unwrap_or_default()
    }

    fn restore_state(&mut self, bytes: &[u8]) -> Result<(), String> {
        let c: Carried = if bytes.is_empty() {
            Carried::default()
        } else {
            postcard::from_bytes(bytes).map_err(|e| {
                format!("the checkpoint's constraint-method state cannot be read: {e}")
            })?
        };
        self.projection.restore_state(&c.projection)?;
        self.density.lambda = c.lambda.into_owned();
        self.density.blambda = c.blambda.into_owned();
        Ok(())
    }

    fn describe(&self) -> String {
        let p = self.projection.params;
        let pairs = self.density.pairs.describe();
        if p.max_sweeps == 0 {
            format!("{}; density projection off; {pairs}", self.name())
        } else {
            format!(
                "{}; density projection of particles compressed by more than {}, at most {} sweeps; {pairs}",
                self.name(),
                p.tolerance,
                p.max_sweeps
            )
        }
    }

    fn summary_line(&self, steps: u64) -> Option<String> {
        self.projection.summary_line(steps)
    }

    fn integrate(&mut self, fluid: &mut Fluid, h: Real, bodies: &mut [RigidBody]) {
        fluid.integrate(h);
        self.projection.apply(&mut self.density, fluid, h, bodies);
    }
}
