//! Which fluid method a model uses, by name in RON, with its parameters (`fluid: (method:
//! Constraint() | Wcsph(..) | Isph(..))`): the closed set of the crate's methods. Each
//! method's parameter type is its own ([`ConstraintParams`], [`WcsphParams`],
//! [`IsphParams`]: `Default`, units and defaults in the docs, `validate()`, serde), read from
//! RON directly; [`FluidMethodChoice::build`] makes the method. Any other name is a method
//! registered outside the crate ([`FluidMethodChoice::Registered`]): a
//! [`crate::registry::Registry`] checks and builds it.

use super::constraint::{Constraint, ConstraintParams};
use super::isph::{Isph, IsphParams};
use super::kernel::KernelKind;
use super::wcsph::{Wcsph, WcsphParams};
use super::{DensityMethod, Fluid, FluidMethod, FluidParams};
use crate::math::{Real, Vec3};
use crate::named::{self, Named};
use crate::params::ParamError;
use serde::de::VariantAccess;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A fluid method and its parameters (module docs).
#[derive(Debug, Clone, PartialEq)]
pub enum FluidMethodChoice {
    /// The constraint method (monolithic; default): density rows in the one solve with the
    /// bodies ([`super::constraint`]).
    Constraint(ConstraintParams),
    /// Weakly compressible SPH: explicit sub-steps, partitioned coupling ([`super::wcsph`]).
    Wcsph(WcsphParams),
    /// Incompressible SPH: projection sub-steps, partitioned coupling ([`super::isph`]).
    Isph(IsphParams),
    /// A method registered outside the crate under this name, with the RON text of its
    /// parameters ([`crate::registry::Registry::fluid_method`]).
    Registered(Named),
}

impl<'de> Deserialize<'de> for FluidMethodChoice {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        named::deserialize_choice(d)
    }
}

impl named::Choice for FluidMethodChoice {
    const NAME: &'static str = "FluidMethodChoice";
    const VARIANTS: &'static [&'static str] = Self::BUILT_IN;
    const EXPECTING: &'static str =
        "a fluid method: Constraint(..), Wcsph(..), Isph(..) or a registered one";

    fn built_in<'de, V: VariantAccess<'de>>(name: &str, v: V) -> Result<Result<Self, V>, V::Error> {
        Ok(Ok(match name {
            "Constraint" => FluidMethodChoice::Constraint(v.newtype_variant()?),
            "Wcsph" => FluidMethodChoice::Wcsph(v.newtype_variant()?),
            "Isph" => FluidMethodChoice::Isph(v.newtype_variant()?),
            _ => return Ok(Err(v)),
        }))
    }

    fn named(n: Named) -> Self {
        FluidMethodChoice::Registered(n)
    }
}

impl Serialize for FluidMethodChoice {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let name = "FluidMethodChoice";
        match self {
            FluidMethodChoice::Constraint(p) => {
                s.serialize_newtype_variant(name, 0, "Constraint", p)
            }
            FluidMethodChoice::Wcsph(p) => s.serialize_newtype_variant(name, 1, "Wcsph", p),
            FluidMethodChoice::Isph(p) => s.serialize_newtype_variant(name, 2, "Isph", p),
            FluidMethodChoice::Registered(n) => named::serialize_named(n, s),
        }
    }
}

impl Default for FluidMethodChoice {
    fn default() -> Self {
        FluidMethodChoice::Constraint(ConstraintParams::default())
    }
}

impl FluidMethodChoice {
    /// The names of the built-in methods, as in RON.
    pub const BUILT_IN: &'static [&'static str] = &["Constraint", "Wcsph", "Isph"];

    /// The registered method this names, if it is not a built-in one.
    pub fn registered(&self) -> Option<&Named> {
        match self {
            FluidMethodChoice::Registered(n) => Some(n),
            _ => None,
        }
    }

    /// The registered method this names, to fill in its parameters' text.
    pub fn registered_mut(&mut self) -> Option<&mut Named> {
        match self {
            FluidMethodChoice::Registered(n) => Some(n),
            _ => None,
        }
    }

    /// Checks every value; the error names the field (as in RON) and what was expected. (A
    /// registered method's values are its registry's to check.)
    pub fn validate(&self) -> Result<(), ParamError> {
        match self {
            FluidMethodChoice::Constraint(p) => p.validate(),
            FluidMethodChoice::Wcsph(p) => p.validate(),
            FluidMethodChoice::Isph(p) => p.validate(),
            FluidMethodChoice::Registered(_) => Ok(()),
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

    /// The built-in method for the built `fluid` under `gravity` (m/s²), its defaults
    /// resolved; a registered one is its registry's to build (an error here).
    pub fn build(&self, fluid: &Fluid, gravity: &Vec3) -> Result<Box<dyn FluidMethod>, String> {
        Ok(match self {
            FluidMethodChoice::Constraint(p) => Box::new(Constraint::new(*p)),
            FluidMethodChoice::Wcsph(p) => Box::new(Wcsph::new(*p, fluid, gravity)?),
            FluidMethodChoice::Isph(p) => Box::new(Isph::new(*p)),
            FluidMethodChoice::Registered(n) => {
                return Err(format!(
                    "the fluid method `{}` is not built in; a registry that has it builds it",
                    n.name
                ))
            }
        })
    }
}
