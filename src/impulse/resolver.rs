//! The contact-resolver interface: what [`crate::pipeline::World::step`] asks of whatever
//! resolves rigid-body contacts. Complementarity rows ([`Complementarity`]) put the contacts
//! into the constraint solve as rows ([`crate::constraints::contact`]); an impulse resolver
//! ([`super::eti::Eti`], [`super::sqm::SequentialImpulse`], [`super::smm::SimultaneousImpulse`],
//! or one written outside the crate) changes the bodies' velocities v* before the solve, in
//! stage 3b, and the solve then takes only joints and fluid rows.

use super::{ImpulseBody, ImpulseInfo, Point};
use crate::math::Real;

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

    /// Whether the run must stop after a step from `t` (s) whose resolution reported `info`,
    /// and why (the guard's message, naming the model field to change). Default: at the cap
    /// every resolver shares ([`super::MAX_IMPULSES`]).
    fn stop(&self, info: &ImpulseInfo, t: Real) -> Option<crate::interrupt::Abort> {
        super::cap_reached(info, t)
    }

    /// The energy the last resolution stored in the contacts at most and released back into
    /// motion (J), for a resolver that tracks it (ETI; `None` otherwise: the `Resolver`
    /// probe then writes zeros).
    fn tracked_energy(&self) -> Option<(Real, Real)> {
        None
    }
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
