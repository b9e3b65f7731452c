//! Which fluid method a model uses, by name in RON, with its parameters (`fluid: (method:
//! Constraint() | Wcsph(..) | Isph(..))`): the closed set of the crate's methods. Each
//! method's parameter type is its own ([`ConstraintParams`], [`WcsphParams`],
//! [`IsphParams`]: `Default`, units and defaults in the docs, `validate()`, serde), read from
//! RON directly; [`FluidMethodChoice::build`] makes the method. A method written outside the
//! crate implements [`super::FluidMethod`] and is put into a world in code.

use super::constraint::{Constraint, ConstraintParams};
use super::isph::{Isph, IsphParams};
use super::kernel::KernelKind;
use super::wcsph::{Wcsph, WcsphParams};
use super::{DensityMethod, Fluid, FluidMethod, FluidParams};
use crate::math::{Real, Vec3};
use crate::params::ParamError;
use serde::{Deserialize, Serialize};

/// A fluid method and its parameters (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum FluidMethodChoice {
    /// The constraint method (monolithic; default): density rows in the one solve with the
    /// bodies ([`super::constraint`]).
    Constraint(#[serde(default)] ConstraintParams),
    /// Weakly compressible SPH: explicit sub-steps, partitioned coupling ([`super::wcsph`]).
    Wcsph(#[serde(default)] WcsphParams),
    /// Incompressible SPH: projection sub-steps, partitioned coupling ([`super::isph`]).
    Isph(#[serde(default)] IsphParams),
}

impl Default for FluidMethodChoice {
    fn default() -> Self {
        FluidMethodChoice::Constraint(ConstraintParams::default())
    }
}

impl FluidMethodChoice {
    /// Checks every value; the error names the field (as in RON) and what was expected.
    pub fn validate(&self) -> Result<(), ParamError> {
        match self {
            FluidMethodChoice::Constraint(p) => p.projection.validate(),
            FluidMethodChoice::Wcsph(p) => p.validate(),
            FluidMethodChoice::Isph(p) => p.validate(),
        }
    }

    /// The constraint method's kind of density rows (the default for the other methods, which
    /// build none).
    pub fn density(&self) -> DensityMethod {
        match self {
            FluidMethodChoice::Constraint(p) => p.density,
            _ => DensityMethod::default(),
        }
    }

    /// The smoothing length over spacing `h / l` when the model gives none: DualSPHysics'
    /// `√d` (coefh = 1, d the dimension) for WCSPH, else the kernel's default
    /// ([`FluidParams::default_smoothing`]).
    pub fn default_smoothing(&self, kernel: KernelKind, dim: u32) -> Real {
        match self {
            FluidMethodChoice::Wcsph(_) => (dim as Real).sqrt(),
            _ => FluidParams::default_smoothing(kernel),
        }
    }

    /// The shifting coefficient A when the model gives none: WCSPH's
    /// [`WcsphParams::DEFAULT_SHIFTING`], else [`FluidParams::DEFAULT_SHIFTING`].
    pub fn default_shifting(&self) -> Real {
        match self {
            FluidMethodChoice::Wcsph(_) => WcsphParams::DEFAULT_SHIFTING,
            _ => FluidParams::DEFAULT_SHIFTING,
        }
    }

    /// The method for the built `fluid` under `gravity` (m/s²), its defaults resolved.
    pub fn build(&self, fluid: &Fluid, gravity: &Vec3) -> Result<Box<dyn FluidMethod>, String> {
        Ok(match *self {
            FluidMethodChoice::Constraint(p) => Box::new(Constraint::new(p)),
            FluidMethodChoice::Wcsph(p) => Box::new(Wcsph::new(p, fluid, gravity)?),
            FluidMethodChoice::Isph(p) => Box::new(Isph::new(p)),
        })
    }
}
