//! A method chosen by a name that the crate does not build in: `fluid: (method: Rotating(omega:
//! 6.28))`, `contact: (resolver: Plastic())`. The choice enums of the model
//! ([`crate::fluid::FluidMethodChoice`], [`crate::impulse::ResolverChoice`]) read their own
//! variants' parameters as typed values and any other name as a [`Named`]: the name and the RON
//! text of its parameters, which the [`crate::registry::Registry`] the model is loaded with
//! parses, checks and builds (its errors located in the model file like a built-in one's).
//!
//! Reading keeps only the name: the parameters' text is filled in from the model's source by
//! the loader, which knows where the value stands ([`crate::model::load`]). A model built in
//! code writes the text itself, e.g. `Named::new("Rotating", "(omega: 6.28)")`.

use serde::de::{EnumAccess, IgnoredAny, VariantAccess};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A method named in a model but not built into the crate (module docs).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Named {
    /// The name as written (`Rotating`).
    pub name: String,
    /// Its parameters as RON text of an anonymous struct, parentheses included: `(omega:
    /// 6.28)`, `()` for all defaults. Empty until the loader fills it in from the source.
    pub params: String,
}

impl Named {
    /// A named method with the RON text of its parameters (`"(omega: 6.28)"`).
    pub fn new(name: impl Into<String>, params: impl Into<String>) -> Named {
        Named {
            name: name.into(),
            params: params.into(),
        }
    }

    /// The text of the parameters, `()` when none was filled in.
    pub fn params_text(&self) -> &str {
        if self.params.trim().is_empty() {
            "()"
        } else {
            &self.params
        }
    }

    /// Writes the method as a model file does: `Name(params...)`, the parentheses of the
    /// parameters' struct being the variant's own.
    pub fn to_ron(&self) -> String {
        format!("{}{}", self.name, self.params_text())
    }
}

/// A variant's name, read as the identifier it is in RON.
struct Ident(String);

impl<'de> Deserialize<'de> for Ident {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Ident;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a method's name")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Ident, E> {
                Ok(Ident(s.to_string()))
            }
        }
        d.deserialize_identifier(V)
    }
}

/// A choice enum of the model: built-in variants with typed parameters, or a [`Named`] one.
pub(crate) trait Choice: Sized {
    /// The enum's name.
    const NAME: &'static str;
    /// The built-in variants' names.
    const VARIANTS: &'static [&'static str];
    /// What a model may write here, for the parser's messages.
    const EXPECTING: &'static str;
    /// Reads the built-in variant `name` (its typed parameters), or gives the variant back for
    /// any other name.
    fn built_in<'de, V: VariantAccess<'de>>(name: &str, v: V) -> Result<Result<Self, V>, V::Error>;
    /// The choice of a named method.
    fn named(n: Named) -> Self;
}

/// Reads a [`Choice`]: a built-in variant as typed parameters, any other name as a [`Named`]
/// whose content is skipped here (the RON parser still checks its syntax; the loader reads it
/// against the registry, with the source).
pub(crate) fn deserialize_choice<'de, D: Deserializer<'de>, T: Choice>(
    d: D,
) -> Result<T, D::Error> {
    struct V<T>(std::marker::PhantomData<T>);
    impl<'de, T: Choice> serde::de::Visitor<'de> for V<T> {
        type Value = T;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str(T::EXPECTING)
        }
        fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<T, A::Error> {
            let (Ident(name), variant) = data.variant::<Ident>()?;
            match T::built_in(&name, variant)? {
                Ok(t) => Ok(t),
                Err(variant) => {
                    variant.newtype_variant::<IgnoredAny>()?;
                    Ok(T::named(Named::new(name, "")))
                }
            }
        }
    }
    d.deserialize_enum(T::NAME, T::VARIANTS, V(std::marker::PhantomData))
}

/// Writes a [`Named`] method as raw RON (`Name(params)`), as the model file has it.
pub(crate) fn serialize_named<S: Serializer>(n: &Named, s: S) -> Result<S::Ok, S::Error> {
    match ron::value::RawValue::from_boxed_ron(n.to_ron().into_boxed_str()) {
        Ok(raw) => raw.serialize(s),
        Err(e) => Err(serde::ser::Error::custom(format!(
            "the parameters of `{}` are not RON: {e}",
            n.name
        ))),
    }
}

/// The RON options of model files: `implicit_some` and `unwrap_variant_newtypes` on, so
/// `solver: Apgd(tolerance: 1e-3)` and `mass: 2.0` read as written.
pub fn ron_options() -> ron::Options {
    use ron::extensions::Extensions;
    ron::Options::default()
        .with_default_extension(Extensions::IMPLICIT_SOME | Extensions::UNWRAP_VARIANT_NEWTYPES)
}

/// The name among `known` that `name` is most likely a misspelling of: the same but for case,
/// or at most two edits away (Levenshtein), the nearest first.
pub fn closest<'a>(name: &str, known: &'a [String]) -> Option<&'a str> {
    fn edits(a: &str, b: &str) -> usize {
        let b: Vec<char> = b.chars().collect();
        let mut row: Vec<usize> = (0..=b.len()).collect();
        for (i, ca) in a.chars().enumerate() {
            let mut prev = row[0];
            row[0] = i + 1;
            for (j, cb) in b.iter().enumerate() {
                let next = (prev + (ca != *cb) as usize)
                    .min(row[j] + 1)
                    .min(row[j + 1] + 1);
                prev = row[j + 1];
                row[j + 1] = next;
            }
        }
        row[b.len()]
    }
    known
        .iter()
        .map(|k| {
            let d = if k.eq_ignore_ascii_case(name) {
                0
            } else {
                edits(&name.to_lowercase(), &k.to_lowercase())
            };
            (d, k.as_str())
        })
        .filter(|(d, _)| *d <= 2)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_closest_name_is_found_within_two_edits() {
        let known: Vec<String> = ["Constraint", "Wcsph", "Isph", "Rotating"]
            .map(String::from)
            .to_vec();
        assert_eq!(closest("Wcpsh", &known), Some("Wcsph"));
        assert_eq!(closest("isph", &known), Some("Isph"));
        assert_eq!(closest("Rotatin", &known), Some("Rotating"));
        assert_eq!(closest("Explicit", &known), None);
    }

    #[test]
    fn a_named_method_writes_back_as_it_reads() {
        let n = Named::new("Rotating", "(omega: 6.28)");
        assert_eq!(n.to_ron(), "Rotating(omega: 6.28)");
        assert_eq!(Named::new("Plastic", "").to_ron(), "Plastic()");
    }
}
