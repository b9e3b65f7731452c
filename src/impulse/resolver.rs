//! The contact-resolver interface: what [`crate::pipeline::World::step`] asks of whatever
//! resolves rigid-body contacts. Complementarity rows ([`Complementarity`]) put the contacts
//! into the constraint solve as rows ([`crate::constraints::contact`]); an impulse resolver
//! ([`super::eti::Eti`], [`super::sqm::SequentialImpulse`], [`super::smm::SimultaneousImpulse`],
//! or one written outside the crate) changes the bodies' velocities v* before the solve, in
//! stage 3b, and the solve then takes only joints and fluid rows.

use super::{ImpulseBody, ImpulseInfo, Point};

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
