//! The step's named switches: which fluid method and which contact resolver a world uses.
//! Closed sets, selected by name in RON (`fluid: (method: Constraint() | Wcsph(..) | Isph(..))`).

use crate::fluid::wcsph::WcsphParams;

/// How the fluid is advanced.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum FluidMethod {
    /// The constraint method (monolithic): the fluid brings density, wall and particle contact
    /// rows ([`crate::constraints::density`], [`crate::constraints::wall`],
    /// [`crate::constraints::particle_contact`]) into the one solve with the bodies' rows
    /// (001; 004 KCSPH with bilateral rows).
    #[default]
    Constraint,
    /// Weakly compressible SPH ([`crate::fluid::wcsph`]): explicit sub-steps within the model
    /// step, no rows in the solve; the bodies get the fluid's force as a load (partitioned
    /// coupling).
    Wcsph(WcsphParams),
    /// Incompressible SPH ([`crate::fluid::isph`]): Chorin projection sub-steps within the
    /// model step, no rows in the solve; partitioned coupling like WCSPH.
    Isph(crate::fluid::isph::IsphParams),
}

impl FluidMethod {
    /// Whether the fluid's particles are unknowns of the constraint solve.
    pub fn in_solve(&self) -> bool {
        matches!(self, FluidMethod::Constraint)
    }

    /// Short name for summaries.
    pub fn name(&self) -> &'static str {
        match self {
            FluidMethod::Constraint => "constraint (monolithic)",
            FluidMethod::Wcsph(_) => "WCSPH (partitioned)",
            FluidMethod::Isph(_) => "ISPH (partitioned)",
        }
    }
}

/// What resolves rigid-body contacts.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum ContactResolver {
    /// Complementarity rows (normal + Coulomb friction, [`crate::constraints::contact`]) in the
    /// same PGS/APGD solve as every other row.
    #[default]
    Complementarity,
    /// Energy-tracking impulses ([`crate::impulse::eti`]) on the bodies' velocities before the
    /// solve; joints and fluid rows stay in the solve.
    Eti(crate::impulse::eti::EtiParams),
    /// Sequential impulses ([`crate::impulse::sqm`]), as `Eti`.
    SequentialImpulse(crate::impulse::sqm::SqmParams),
    /// Simultaneous impulses ([`crate::impulse::smm`]), as `Eti`.
    SimultaneousImpulse(crate::impulse::smm::SmmParams),
}

impl ContactResolver {
    /// Short name for summaries.
    pub fn name(&self) -> &'static str {
        match self {
            ContactResolver::Complementarity => "complementarity rows",
            ContactResolver::Eti(_) => "energy-tracking impulses (ETI)",
            ContactResolver::SequentialImpulse(_) => "sequential impulses (SQM)",
            ContactResolver::SimultaneousImpulse(_) => "simultaneous impulses (SMM)",
        }
    }
}
