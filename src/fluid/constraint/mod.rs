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
//!
//! **Sub-steps at speed.** The method takes each step whole — rows built at the step's start,
//! one solve, one move — so a particle must not pass more than a fraction of a spacing per step
//! (the wall's contact rows are built for pairs within `1.15 l`, and a particle that jumps a
//! spacing passes through its neighbours). The model's step is chosen before the flow is
//! known; an impact can throw a jet several times faster than anything the model could
//! foresee (a dam break's run-up along a wall, water falling into a corner). A step in which
//! the fastest particle, relative to the fluid's mean, would move more than `cfl` spacings
//! (default 0.5: half a spacing, the rule the default step is chosen by) is therefore taken as
//! `n = ⌈u dt / (cfl l)⌉` equal sub-steps, each a whole step of every stage — bodies,
//! contacts and joints too ([`crate::pipeline::World::step`]) — so the output and probes stay
//! on the model's grid and the cost is paid only where the flow is fast. This is the
//! Courant–Friedrichs–Lewy condition on the particles' own speed that explicit SPH codes apply
//! every step (its advective part, as reviewed by Monaghan 1992, Annu. Rev. Astron.
//! Astrophys. 30:543); here it only ever shortens the model's step.

mod divided;
pub mod projection;

pub use divided::HaloParts;

pub use projection::{ProjectionInfo, ProjectionParams};

use super::method::{FluidMethod, RowContext};
use super::Fluid;
use crate::body::RigidBody;
use crate::constraints::density::FilterPass;
pub use crate::constraints::density_pairs::PairCoefficients;
use crate::constraints::{DensityRows, ParticleContactRows, RowFamily};
use crate::math::{Real, Vec3};

/// The constraint method's own parameters (RON: `fluid: (method: Constraint(density: ..))`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
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
    /// Largest distance a particle may move in one step relative to the fluid's mean, in
    /// spacings (`max |v_i − v̄| dt / l`, dimensionless, above 0 and at most 1): a faster step
    /// is split into sub-steps (module docs). Default 0.5.
    pub cfl: Real,
}

impl ConstraintParams {
    /// Default [`ConstraintParams::cfl`]: half a spacing per step.
    pub const DEFAULT_CFL: Real = 0.5;

    /// Checks every value; the error names the field (as in RON) and what was expected.
    pub fn validate(&self) -> Result<(), crate::params::ParamError> {
        self.projection.validate().map_err(|mut e| {
            e.field = match e.field {
                "tolerance" => "projection.tolerance",
                "max_sweeps" => "projection.max_sweeps",
                f => f,
            };
            e
        })?;
        if !(self.cfl > 0.0 && self.cfl <= 1.0) {
            return Err(crate::params::ParamError::new(
                "cfl",
                "a distance per step above 0 and at most 1 spacing",
                self.cfl,
            ));
        }
        Ok(())
    }

    /// Into how many equal sub-steps a step of `dt` (s) is split for the fluid as it is: one
    /// unless its fastest particle relative to the mean would move more than `cfl` spacings
    /// (module docs). A state that is not finite gives one (the guard stops it after the
    /// step); the world refuses more than `guard.max_substeps`.
    pub fn substeps(&self, fluid: &Fluid, dt: Real) -> usize {
        let Some((_, u)) = fluid.fastest_relative() else {
            return 1;
        };
        self.substeps_at(fluid, dt, u)
    }

    /// [`ConstraintParams::substeps`] for the fastest speed relative to the mean `u` (m/s).
    pub fn substeps_at(&self, fluid: &Fluid, dt: Real, u: Real) -> usize {
        let k = (u * dt / (self.cfl * fluid.params.spacing)).ceil();
        if k.is_finite() && k > 1.0 {
            // (Saturating: a count beyond usize is beyond any cap.)
            k as usize
        } else {
            1
        }
    }
}

impl Default for ConstraintParams {
    fn default() -> Self {
        ConstraintParams {
            density: Default::default(),
            projection: Default::default(),
            pair_coefficients: Default::default(),
            cfl: Self::DEFAULT_CFL,
        }
    }
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
    /// The sub-steps' bound ([`ConstraintParams::cfl`]) and the rest of the parameters.
    pub params: ConstraintParams,
    /// Density and wall rows.
    pub density: DensityRows,
    /// Particle contact rows.
    pub contacts: ParticleContactRows,
    /// The density projection after each step.
    pub projection: projection::Projection,
    /// The exchange of a fluid divided among processes ([`divided`]); none in one process.
    halo: crate::fluid::halo::HaloSlot,
    /// Scratch for the ghosts' refresh (the method keeps no density per particle).
    rho: Vec<Real>,
    /// Scratch of a divided solve: per particle, whether it is or neighbours a ghost.
    near: Vec<bool>,
    /// The velocity filter's fraction ε when it is due in the next rows' pass, which forms
    /// the kernel values it needs (one process; a divided fluid filters in `external`, where
    /// its ghosts are refreshed after it).
    filter: Option<Real>,
}

impl Constraint {
    /// The method with its parameters.
    pub fn new(p: ConstraintParams) -> Self {
        let mut c = Constraint {
            params: p,
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

    fn substeps(&mut self, fluid: &Fluid, dt: Real) -> usize {
        match self.halo.0.as_deref_mut() {
            None => self.params.substeps(fluid, dt),
            Some(h) => {
                let u = fluid.relative_speed_max(Some(h));
                self.params.substeps_at(fluid, dt, u)
            }
        }
    }

    fn find_neighbours(&mut self, fluid: &mut Fluid, bodies: &[RigidBody]) {
        if self.find_neighbours_divided(fluid, bodies) {
            self.density.follow_search(fluid);
        }
    }

    fn external(&mut self, fluid: &mut Fluid, gravity: &Vec3, h: Real, bodies: &[RigidBody]) {
        let gamma = fluid.params.velocity_filter;
        self.filter = None;
        if self.halo.0.is_none() && gamma > 0.0 {
            // The filter waits for the rows' pass (`build_rows`): the same numbers, one pass
            // over the pairs fewer.
            fluid.explicit_forces(gravity, h, bodies);
            self.filter = Some(-(-gamma * h).exp_m1());
        } else {
            fluid.external(gravity, h, bodies, self.halo.0.as_deref_mut());
        }
        self.refresh_ghosts(fluid);
    }

    fn build_rows(&mut self, fluid: &mut Fluid, ctx: &RowContext) {
        let mut err = std::mem::take(&mut fluid.density_error);
        self.density.colour = ctx.colour;
        self.density.multilevel = ctx.multilevel;
        // The filter due from `external` rides on the fluid rows' pass.
        let eps = self.filter.take();
        let mut next = eps.map(|_| fluid.take_spare());
        let filter = eps.zip(next.as_mut()).map(|(eps, next)| FilterPass {
            vel: &fluid.vel,
            eps,
            next,
        });
        self.density
            .build_filtering(fluid, ctx.layout, ctx.h, ctx.masses, &mut err, filter);
        if let Some(next) = next {
            fluid.finish_filter(next, None);
        }
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
        self.sum_body_forces(fluid);
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
        let cfl = self.params.cfl;
        let split = format!("sub-steps where a particle would move more than {cfl} spacings");
        if p.max_sweeps == 0 {
            format!("{}; density projection off; {pairs}; {split}", self.name())
        } else {
            format!(
                "{}; density projection of particles compressed by more than {}, at most {} sweeps; {pairs}; {split}",
                self.name(),
                p.tolerance,
                p.max_sweeps
            )
        }
    }

    fn summary_line(&self, steps: u64) -> Option<String> {
        self.projection.summary_line(steps)
    }

    fn integrate(
        &mut self,
        fluid: &mut Fluid,
        h: Real,
        bodies: &mut [RigidBody],
        scratch: crate::solver::SolveScratch<'_>,
    ) {
        // (A divided fluid's ghosts take their owners' values after the move and after the
        // projection; in one process there are none.)
        fluid.integrate(h, self.halo.0.as_deref_mut());
        self.refresh_ghosts(fluid);
        let halo = self.halo.0.as_deref_mut();
        self.projection
            .apply(&mut self.density, fluid, h, bodies, halo, scratch);
        self.refresh_ghosts(fluid);
    }

    fn set_halo(&mut self, halo: Box<dyn crate::fluid::halo::Halo>) -> Result<(), String> {
        self.halo.0 = Some(halo);
        Ok(())
    }

    /// A divided fluid is redistributed when a particle has moved by half the projection's
    /// skin ([`projection::SKIN`] spacings) since the last search.
    fn ghost_skin(&self, fluid: &Fluid) -> Real {
        projection::SKIN * fluid.params.spacing / fluid.params.kernel.support()
    }

    /// One support: an owned particle reads its neighbours' positions, velocities and (for the
    /// shifting's surface band) kernel fills, and the ghosts' fills are exchanged
    /// ([`Fluid::shift_particles_at`]).
    fn ghost_supports(&self) -> Real {
        1.0
    }

    fn halo(&mut self) -> Option<&mut dyn crate::fluid::halo::Halo> {
        match self.halo.0.as_mut() {
            Some(h) => Some(&mut **h),
            None => None,
        }
    }

    fn take_halo(&mut self) -> Option<Box<dyn crate::fluid::halo::Halo>> {
        self.halo.0.take()
    }

    fn put_halo(&mut self, halo: Box<dyn crate::fluid::halo::Halo>) {
        self.halo.0 = Some(halo);
    }

    fn foreign_rows(
        &mut self,
        fluid: &Fluid,
        halo: &dyn crate::fluid::halo::Halo,
        foreign: &mut Vec<bool>,
        interface: &mut Vec<Real>,
    ) {
        divided::foreign_density_rows(&self.density, fluid, halo, foreign);
        self.foreign_contact_rows(fluid, halo, foreign);
        let mut near = std::mem::take(&mut self.near);
        divided::near_ghosts(fluid, halo, &mut near);
        divided::interface_density_rows(&self.density, &near, interface);
        self.interface_contact_rows(fluid, &near, interface);
        self.near = near;
    }
}
