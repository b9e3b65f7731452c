//! The contact-resolver interface: what [`crate::pipeline::World::step`] asks of whatever
//! resolves rigid-body contacts. Complementarity rows ([`Complementarity`]) put the contacts
//! into the constraint solve as rows ([`crate::constraints::contact`]); an impulse resolver
//! ([`super::eti::Eti`], [`super::sqm::SequentialImpulse`], [`super::smm::SimultaneousImpulse`],
//! or one written outside the crate) changes the bodies' velocities v* before the solve, in
//! stage 3b, and the solve then takes only joints and fluid rows.

use super::eti::{Eti, EtiParams};
use super::smm::{SimultaneousImpulse, SmmParams};
use super::sqm::{SequentialImpulse, SqmParams};
use super::{ImpulseBody, ImpulseInfo, Point};
use crate::math::Real;
use serde::{Deserialize, Serialize};

/// Which contact resolver a model uses, by name in RON (`contact: (resolver: ..)`), with its
/// parameters: `Complementarity()` (default), `Eti()`, `Eti(divider: 50)`,
/// `SequentialImpulse()`, `SimultaneousImpulse()`. [`ResolverChoice::build`] makes the
/// resolver.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum ResolverChoice {
    /// Normal and friction rows in the PGS/APGD solve with everything else (default).
    Complementarity {},
    /// Energy-tracking impulses (002, 000).
    Eti(#[serde(default)] EtiParams),
    /// Sequential impulses, most negative contact first (002 Appendix A).
    SequentialImpulse(#[serde(default)] SqmParams),
    /// Simultaneous impulses, one linear system (002 Appendix B; frictionless).
    SimultaneousImpulse(#[serde(default)] SmmParams),
}

impl Default for ResolverChoice {
    fn default() -> Self {
        ResolverChoice::Complementarity {}
    }
}

impl ResolverChoice {
    /// Whether this is `Complementarity()` (contacts as rows of the solve).
    pub fn is_complementarity(&self) -> bool {
        matches!(self, ResolverChoice::Complementarity {})
    }

    /// Checks every value; the error names the field (as in RON) and what was expected.
    pub fn validate(&self) -> Result<(), crate::params::ParamError> {
        match self {
            ResolverChoice::Complementarity {} | ResolverChoice::SimultaneousImpulse(_) => Ok(()),
            ResolverChoice::Eti(p) => p.validate(),
            ResolverChoice::SequentialImpulse(p) => p.validate(),
        }
    }

    /// The resolver, restitution off below `restitution_threshold` (m/s; the model's
    /// `contact.restitution_threshold`).
    pub fn build(&self, restitution_threshold: Real) -> Box<dyn ContactResolver> {
        match *self {
            ResolverChoice::Complementarity {} => Box::new(Complementarity),
            ResolverChoice::Eti(p) => Box::new(Eti::new(EtiParams {
                restitution_threshold,
                ..p
            })),
            ResolverChoice::SequentialImpulse(p) => Box::new(SequentialImpulse(SqmParams {
                restitution_threshold,
                ..p
            })),
            ResolverChoice::SimultaneousImpulse(_) => Box::new(SimultaneousImpulse(SmmParams {
                restitution_threshold,
            })),
        }
    }
}

/// A contact resolver (module docs).
pub trait ContactResolver: Send + Sync {
    /// Short name for summaries, e.g. `"energy-tracking impulses (ETI)"`.
    fn name(&self) -> &'static str;

    /// Whether the contacts become complementarity rows of the constraint solve; then
    /// [`ContactResolver::resolve`] is never called. Default false.
    fn rows_in_solve(&self) -> bool {
        false
    }

    /// Stage 3b: resolves the step's contact points (touching or closing within the step,
    /// [`super::prepare`]) on the bodies' velocities, changed in place (m/s, rad/s). Each point
    /// records the impulse it applied ([`Point::apply`]).
    fn resolve(&mut self, points: &mut [Point], bodies: &mut [ImpulseBody]) -> ImpulseInfo;
}

/// Normal and Coulomb friction rows in the same PGS/APGD solve as every other row (the
/// default).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Complementarity;

impl ContactResolver for Complementarity {
    fn name(&self) -> &'static str {
        "complementarity rows"
    }

    fn rows_in_solve(&self) -> bool {
        true
    }

    fn resolve(&mut self, _points: &mut [Point], _bodies: &mut [ImpulseBody]) -> ImpulseInfo {
        ImpulseInfo::default()
    }
}
