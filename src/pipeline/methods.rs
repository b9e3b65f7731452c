//! The step's named switches: which fluid method and which contact resolver a world uses.
//! Closed sets, selected by name in RON; each has one variant until its alternatives land.

/// How the fluid is advanced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FluidMethod {
    /// The constraint method (monolithic): the fluid brings density, wall and particle contact
    /// rows ([`crate::constraints::density`], [`crate::constraints::wall`],
    /// [`crate::constraints::particle_contact`]) into the one solve with the bodies' rows
    /// (001; 004 KCSPH with bilateral rows).
    #[default]
    Constraint,
}

/// What resolves rigid-body contacts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ContactResolver {
    /// Complementarity rows (normal + Coulomb friction, [`crate::constraints::contact`]) in the
    /// same PGS/APGD solve as every other row.
    #[default]
    Complementarity,
}
