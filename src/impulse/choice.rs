//! Which contact resolver a model uses, by name in RON (`contact: (resolver: ..)`): the closed
//! set of the crate's resolvers, each with its own parameter type read from RON directly;
//! [`ResolverChoice::build`] makes the resolver ([`super::ContactResolver`]).

use super::eti::{Eti, EtiParams};
use super::resolver::{Complementarity, ContactResolver};
use super::smm::{SimultaneousImpulse, SmmParams};
use super::sqm::{SequentialImpulse, SqmParams};
use crate::math::Real;
use crate::named::{self, Named};
use serde::de::VariantAccess;
use serde::ser::SerializeStructVariant;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Which contact resolver a model uses, by name in RON (`contact: (resolver: ..)`), with its
/// parameters: `Complementarity()` (default), `Eti()`, `Eti(divider: 50)`,
/// `SequentialImpulse()`, `SimultaneousImpulse()`, or the name of a resolver registered outside
/// the crate ([`crate::registry::Registry::contact_resolver`]). [`ResolverChoice::build`] makes
/// a built-in resolver.
#[derive(Debug, Clone, PartialEq)]
pub enum ResolverChoice {
    /// Normal and friction rows in the PGS/APGD solve with everything else (default).
    Complementarity {},
    /// Energy-tracking impulses (002, 000).
    Eti(EtiParams),
    /// Sequential impulses, most negative contact first (002 Appendix A).
    SequentialImpulse(SqmParams),
    /// Simultaneous impulses, one linear system (002 Appendix B; frictionless).
    SimultaneousImpulse(SmmParams),
    /// A resolver registered outside the crate under this name, with the RON text of its
    /// parameters.
    Registered(Named),
}

/// `Complementarity()`'s (empty) parameters.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NoParams {}

impl<'de> Deserialize<'de> for ResolverChoice {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        named::deserialize_choice(d)
    }
}

impl named::Choice for ResolverChoice {
    const NAME: &'static str = "ResolverChoice";
    const VARIANTS: &'static [&'static str] = Self::BUILT_IN;
    const EXPECTING: &'static str = "a contact resolver: Complementarity(), Eti(..), \
        SequentialImpulse(..), SimultaneousImpulse(..) or a registered one";

    fn built_in<'de, V: VariantAccess<'de>>(name: &str, v: V) -> Result<Result<Self, V>, V::Error> {
        Ok(Ok(match name {
            "Complementarity" => {
                v.newtype_variant::<NoParams>()?;
                ResolverChoice::Complementarity {}
            }
            "Eti" => ResolverChoice::Eti(v.newtype_variant()?),
            "SequentialImpulse" => ResolverChoice::SequentialImpulse(v.newtype_variant()?),
            "SimultaneousImpulse" => ResolverChoice::SimultaneousImpulse(v.newtype_variant()?),
            _ => return Ok(Err(v)),
        }))
    }

    fn named(n: Named) -> Self {
        ResolverChoice::Registered(n)
    }
}

impl Serialize for ResolverChoice {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let name = "ResolverChoice";
        match self {
            ResolverChoice::Complementarity {} => s
                .serialize_struct_variant(name, 0, "Complementarity", 0)?
                .end(),
            ResolverChoice::Eti(p) => s.serialize_newtype_variant(name, 1, "Eti", p),
            ResolverChoice::SequentialImpulse(p) => {
                s.serialize_newtype_variant(name, 2, "SequentialImpulse", p)
            }
            ResolverChoice::SimultaneousImpulse(p) => {
                s.serialize_newtype_variant(name, 3, "SimultaneousImpulse", p)
            }
            ResolverChoice::Registered(n) => named::serialize_named(n, s),
        }
    }
}

impl Default for ResolverChoice {
    fn default() -> Self {
        ResolverChoice::Complementarity {}
    }
}

impl ResolverChoice {
    /// The names of the built-in resolvers, as in RON.
    pub const BUILT_IN: &'static [&'static str] = &[
        "Complementarity",
        "Eti",
        "SequentialImpulse",
        "SimultaneousImpulse",
    ];

    /// The registered resolver this names, if it is not a built-in one.
    pub fn registered(&self) -> Option<&Named> {
        match self {
            ResolverChoice::Registered(n) => Some(n),
            _ => None,
        }
    }

    /// The registered resolver this names, to fill in its parameters' text.
    pub fn registered_mut(&mut self) -> Option<&mut Named> {
        match self {
            ResolverChoice::Registered(n) => Some(n),
            _ => None,
        }
    }

    /// Whether this is `Complementarity()` (contacts as rows of the solve).
    pub fn is_complementarity(&self) -> bool {
        matches!(self, ResolverChoice::Complementarity {})
    }

    /// Checks every value; the error names the field (as in RON) and what was expected.
    pub fn validate(&self) -> Result<(), crate::params::ParamError> {
        match self {
            ResolverChoice::Complementarity {}
            | ResolverChoice::SimultaneousImpulse(_)
            | ResolverChoice::Registered(_) => Ok(()),
            ResolverChoice::Eti(p) => p.validate(),
            ResolverChoice::SequentialImpulse(p) => p.validate(),
        }
    }

    /// The built-in resolver, restitution off below `restitution_threshold` (m/s; the model's
    /// `contact.restitution_threshold`); a registered one is its registry's to build (an
    /// error here).
    pub fn build(&self, restitution_threshold: Real) -> Result<Box<dyn ContactResolver>, String> {
        Ok(match *self {
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
            ResolverChoice::Registered(ref n) => {
                return Err(format!(
                    "the contact resolver `{}` is not built in; a registry that has it builds it",
                    n.name
                ))
            }
        })
    }
}
