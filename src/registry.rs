//! Methods a model file can name beyond the built-in ones: fluid methods
//! ([`crate::fluid::FluidMethod`]) and contact resolvers ([`crate::impulse::ContactResolver`])
//! registered by name with their parameter type.
//!
//! ```rust,ignore
//! let mut registry = vcsim::registry::Registry::new();
//! registry.fluid_method("Rotating", |p: RotatingParams, _fluid, _gravity| {
//!     Ok(Box::new(Rotating::new(p)))
//! })?;
//! let (model, _) = vcsim::model::load_file_with(path, &registry)?;   // `method: Rotating(omega: 6.28)`
//! let mut world = vcsim::model::build_world_with(&model, &registry)?;
//! ```
//!
//! A registered name is read like a built-in variant (`Rotating(omega: 6.28)`, `Plastic()`);
//! its parameters are read from RON into the registered type ([`MethodParams`]: serde, with
//! `#[serde(default, deny_unknown_fields)]` as the built-in types have, and `validate()`), so a
//! misspelt field or a value out of range gets the file, line, column and field of a built-in
//! method's error. The same registry goes to everything that reads or builds the model: the
//! loader and [`crate::model::build::build_world_with`], the library runner's caller, a study
//! ([`crate::study::load_study_with`]) and the command line ([`crate::cli::run_with`], which
//! `run`, `check`, `study` and `--resume` use). A name that is neither built in nor registered
//! is an error that lists both.
//!
//! The registry holds builders, not methods: each model builds its own method (with its own
//! state) from its own parameters. Nothing is built and then replaced.

use crate::fluid::{Fluid, FluidMethod, FluidMethodChoice};
use crate::impulse::{ContactResolver, ResolverChoice};
use crate::math::{Real, Vec3};
use crate::named::Named;
use crate::params::ParamError;
use serde::de::DeserializeOwned;
use std::collections::BTreeMap;
use std::sync::Arc;

/// A registered method's parameter type: read from RON (with the model files' options), then
/// checked. `validate` names the field as in RON and says what it admits (default: every value
/// admitted).
pub trait MethodParams: DeserializeOwned + Send + Sync + 'static {
    /// Checks every value.
    fn validate(&self) -> Result<(), ParamError> {
        Ok(())
    }
}

/// Why a named method cannot be used.
#[derive(Debug, Clone, PartialEq)]
pub enum NamedError {
    /// Neither built in nor registered: the name, and what is known.
    Unknown {
        /// The name as written.
        name: String,
        /// The names known, built-in first.
        known: Vec<String>,
    },
    /// The parameters' text does not read as the registered type (the position is within
    /// [`Named::params`]).
    Parse(ron::error::SpannedError),
    /// A value outside its range.
    Value(ParamError),
}

impl std::fmt::Display for NamedError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NamedError::Unknown { name, known } => write!(
                f,
                "`{name}` is neither built in nor registered; expected one of {}{}",
                known.join(", "),
                crate::named::closest(name, known)
                    .map(|c| format!(" (did you mean `{c}`?)"))
                    .unwrap_or_default()
            ),
            NamedError::Parse(e) => write!(f, "{}", e.code),
            NamedError::Value(e) => write!(f, "{e}"),
        }
    }
}

/// Why a registration was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    /// The name is a built-in method's or was registered already.
    #[error("`{0}` is taken (a built-in name, or registered twice)")]
    Taken(String),
    /// Not a RON identifier starting with a capital letter (as variant names are).
    #[error("`{0}` cannot be named in a model: a name is a capital letter followed by letters, digits and _")]
    BadName(String),
}

type Check = dyn Fn(&str) -> Result<(), NamedError> + Send + Sync;
type FluidBuild = dyn Fn(&str, &Fluid, &Vec3) -> Result<Box<dyn FluidMethod>, String> + Send + Sync;
type ResolverBuild = dyn Fn(&str, Real) -> Result<Box<dyn ContactResolver>, String> + Send + Sync;

/// A registered method: how to check its parameters' text and how to build it.
struct Entry<B: ?Sized> {
    check: Box<Check>,
    build: Box<B>,
}

/// One kind of registered method (fluid methods, or contact resolvers): the built-in names of
/// that kind and the entries registered by name.
struct Kind<B: ?Sized> {
    built_in: &'static [&'static str],
    entries: BTreeMap<String, Arc<Entry<B>>>,
}

impl<B: ?Sized> Clone for Kind<B> {
    fn clone(&self) -> Self {
        Kind {
            built_in: self.built_in,
            entries: self.entries.clone(),
        }
    }
}

impl<B: ?Sized> Kind<B> {
    fn new(built_in: &'static [&'static str]) -> Self {
        Kind {
            built_in,
            entries: BTreeMap::new(),
        }
    }

    /// Registers `entry` under `name`: a name a model can write as a variant (a capital
    /// letter, then letters, digits and `_`), neither built in nor registered already.
    fn insert(&mut self, name: &str, entry: Entry<B>) -> Result<(), RegistryError> {
        let ident = name.starts_with(|c: char| c.is_ascii_uppercase())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !ident {
            return Err(RegistryError::BadName(name.to_string()));
        }
        if self.entries.contains_key(name) || self.built_in.contains(&name) {
            return Err(RegistryError::Taken(name.to_string()));
        }
        self.entries.insert(name.to_string(), Arc::new(entry));
        Ok(())
    }

    /// The entry of `n`, or the error that lists the built-in and registered names.
    fn entry(&self, n: &Named) -> Result<&Entry<B>, NamedError> {
        self.entries
            .get(&n.name)
            .map(|e| &**e)
            .ok_or_else(|| NamedError::Unknown {
                name: n.name.clone(),
                known: self
                    .built_in
                    .iter()
                    .copied()
                    .chain(self.names())
                    .map(String::from)
                    .collect(),
            })
    }

    /// Checks `n`: registered, and its parameters read and in range.
    fn check(&self, n: &Named) -> Result<(), NamedError> {
        (self.entry(n)?.check)(n.params_text())
    }

    fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(String::as_str)
    }
}

/// Fluid methods and contact resolvers by name (module docs). Cloning is cheap (the entries
/// are shared).
#[derive(Clone)]
pub struct Registry {
    fluid: Kind<FluidBuild>,
    resolvers: Kind<ResolverBuild>,
}

impl Default for Registry {
    fn default() -> Self {
        Registry {
            fluid: Kind::new(FluidMethodChoice::BUILT_IN),
            resolvers: Kind::new(ResolverChoice::BUILT_IN),
        }
    }
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("fluid_methods", &self.fluid_methods().collect::<Vec<_>>())
            .field(
                "contact_resolvers",
                &self.contact_resolvers().collect::<Vec<_>>(),
            )
            .finish()
    }
}

/// Reads `P` from the parameters' RON text and checks it.
fn read<P: MethodParams>(text: &str) -> Result<P, NamedError> {
    let p: P = crate::named::ron_options()
        .from_str(text)
        .map_err(NamedError::Parse)?;
    p.validate().map_err(NamedError::Value)?;
    Ok(p)
}

impl Registry {
    /// A registry of the built-in methods only.
    pub fn new() -> Registry {
        Registry::default()
    }

    /// Registers a fluid method under `name`: `build` makes it from its parameters, the
    /// built fluid and gravity (m/s²).
    pub fn fluid_method<P: MethodParams>(
        &mut self,
        name: &str,
        build: impl Fn(P, &Fluid, &Vec3) -> Result<Box<dyn FluidMethod>, String> + Send + Sync + 'static,
    ) -> Result<&mut Registry, RegistryError> {
        let entry = Entry::<FluidBuild> {
            check: Box::new(|text| read::<P>(text).map(|_| ())),
            build: Box::new(move |text, fluid, gravity| {
                build(read::<P>(text).map_err(|e| e.to_string())?, fluid, gravity)
            }),
        };
        self.fluid.insert(name, entry)?;
        Ok(self)
    }

    /// Registers a contact resolver under `name`: `build` makes it from its parameters and the
    /// model's `contact.restitution_threshold` (m/s).
    pub fn contact_resolver<P: MethodParams>(
        &mut self,
        name: &str,
        build: impl Fn(P, Real) -> Box<dyn ContactResolver> + Send + Sync + 'static,
    ) -> Result<&mut Registry, RegistryError> {
        let entry = Entry::<ResolverBuild> {
            check: Box::new(|text| read::<P>(text).map(|_| ())),
            build: Box::new(move |text, threshold| {
                Ok(build(
                    read::<P>(text).map_err(|e| e.to_string())?,
                    threshold,
                ))
            }),
        };
        self.resolvers.insert(name, entry)?;
        Ok(self)
    }

    /// The names of the registered fluid methods.
    pub fn fluid_methods(&self) -> impl Iterator<Item = &str> {
        self.fluid.names()
    }

    /// The names of the registered contact resolvers.
    pub fn contact_resolvers(&self) -> impl Iterator<Item = &str> {
        self.resolvers.names()
    }

    /// Checks a named fluid method: registered, and its parameters read and in range.
    pub fn check_fluid_method(&self, n: &Named) -> Result<(), NamedError> {
        self.fluid.check(n)
    }

    /// Checks a named contact resolver: registered, and its parameters read and in range.
    pub fn check_contact_resolver(&self, n: &Named) -> Result<(), NamedError> {
        self.resolvers.check(n)
    }

    /// The fluid method a model chose, built for the built `fluid` under `gravity` (m/s²).
    pub fn build_fluid_method(
        &self,
        choice: &FluidMethodChoice,
        fluid: &Fluid,
        gravity: &Vec3,
    ) -> Result<Box<dyn FluidMethod>, String> {
        match choice.registered() {
            None => choice.build(fluid, gravity),
            Some(n) => {
                let e = self.fluid.entry(n).map_err(|e| e.to_string())?;
                (e.build)(n.params_text(), fluid, gravity)
            }
        }
    }

    /// The contact resolver a model chose, restitution off below `restitution_threshold` (m/s).
    pub fn build_contact_resolver(
        &self,
        choice: &ResolverChoice,
        restitution_threshold: Real,
    ) -> Result<Box<dyn ContactResolver>, String> {
        match choice.registered() {
            None => choice.build(restitution_threshold),
            Some(n) => {
                let e = self.resolvers.entry(n).map_err(|e| e.to_string())?;
                (e.build)(n.params_text(), restitution_threshold)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize)]
    #[serde(default, deny_unknown_fields)]
    struct Speed {
        speed: Real,
    }
    impl Default for Speed {
        fn default() -> Self {
            Speed { speed: 1.0 }
        }
    }
    impl MethodParams for Speed {
        fn validate(&self) -> Result<(), ParamError> {
            crate::params::positive("speed", self.speed)
        }
    }

    fn registry() -> Registry {
        let mut r = Registry::new();
        r.contact_resolver("Sticky", |_: Speed, _| {
            Box::new(crate::impulse::Complementarity)
        })
        .unwrap();
        r
    }

    #[test]
    fn names_are_checked_when_registered() {
        let mut r = registry();
        let b =
            |_: Speed, _| -> Box<dyn ContactResolver> { Box::new(crate::impulse::Complementarity) };
        assert_eq!(
            r.contact_resolver("Sticky", b).err(),
            Some(RegistryError::Taken("Sticky".into()))
        );
        assert_eq!(
            r.contact_resolver("Eti", b).err(),
            Some(RegistryError::Taken("Eti".into()))
        );
        for bad in ["sticky", "Two words", "", "Ünï"] {
            assert_eq!(
                r.contact_resolver(bad, b).err(),
                Some(RegistryError::BadName(bad.into()))
            );
        }
    }

    #[test]
    fn parameters_are_read_checked_and_located_in_their_text() {
        let r = registry();
        assert_eq!(
            r.check_contact_resolver(&Named::new("Sticky", "()")),
            Ok(())
        );
        assert_eq!(r.check_contact_resolver(&Named::new("Sticky", "")), Ok(()));
        match r.check_contact_resolver(&Named::new("Sticky", "(\n  sped: 2.0)")) {
            Err(NamedError::Parse(e)) => {
                assert_eq!((e.span.start.line, e.span.start.col), (2, 3), "{e}");
                assert!(e.to_string().contains("sped"), "{e}");
            }
            other => panic!("{other:?}"),
        }
        match r.check_contact_resolver(&Named::new("Sticky", "(speed: -1)")) {
            Err(NamedError::Value(e)) => assert_eq!(e.field, "speed"),
            other => panic!("{other:?}"),
        }
        let e = r
            .check_contact_resolver(&Named::new("Stiky", "()"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("Complementarity, Eti, SequentialImpulse, SimultaneousImpulse, Sticky")
                && e.contains("did you mean `Sticky`"),
            "{e}"
        );
    }
}
