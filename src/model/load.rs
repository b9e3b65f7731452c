//! Loading a model file: parse (RON extensions `implicit_some` and `unwrap_variant_newtypes`
//! on), validate ([`super::validate::validate`]), and locate a validation error in the text by
//! its field path ([`super::spans`]). Every error carries file, line, column and field. The
//! orchestrator of the chain: it imports every stage, and no stage imports it.

use super::error::ModelError;
use super::schema::Model;
use crate::named::Named;
use crate::registry::{NamedError, Registry};
use std::path::Path;

/// Reads and validates a model file (built-in methods only; [`load_file_with`] for a model
/// that names registered ones).
pub fn load_file(path: &Path) -> Result<(Model, String), Box<ModelError>> {
    load_file_with(path, &Registry::new())
}

/// Reads and validates a model file that may name the methods of `registry`
/// ([`crate::registry`]).
pub fn load_file_with(
    path: &Path,
    registry: &Registry,
) -> Result<(Model, String), Box<ModelError>> {
    let source = std::fs::read_to_string(path).map_err(|e| {
        Box::new(ModelError::whole(
            path,
            "",
            format!("cannot read the model file: {e}"),
        ))
    })?;
    // A UTF-8 byte-order mark (some editors write one) is not part of the model.
    let source = match source.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_string(),
        None => source,
    };
    let model = parse_str_with(path, &source, registry)?;
    Ok((model, source))
}

/// Parses and validates model text (built-in methods only); `path` is only used in messages.
/// Body arrays are kept as written ([`super::build::build_world`] expands them).
pub fn parse_str(path: &Path, source: &str) -> Result<Model, Box<ModelError>> {
    parse_str_with(path, source, &Registry::new())
}

/// [`parse_str`] for model text that may name the methods of `registry`: their parameters are
/// read from the text where they stand, and an error in them is located there.
pub fn parse_str_with(
    path: &Path,
    source: &str,
    registry: &Registry,
) -> Result<Model, Box<ModelError>> {
    let source = source.strip_prefix('\u{feff}').unwrap_or(source);
    let mut model: Model = options()
        .from_str(source)
        .map_err(|e| ron_error(path, source, 0, &e))?;
    named_parameters(&mut model, path, source, registry)?;
    super::validate::validate_with(&model, registry)
        .map_err(|e| Box::new(e.locate(path, source)))?;
    Ok(model)
}

/// A RON parse error of the text that starts at byte `base` of `source` (the whole model, or
/// a named method's parameters), located in `source`.
fn ron_error(
    path: &Path,
    source: &str,
    base: usize,
    e: &ron::error::SpannedError,
) -> Box<ModelError> {
    let pos = e.span.start;
    let field = match &e.code {
        ron::Error::NoSuchStructField { found, .. } => Some(found.clone()),
        ron::Error::MissingStructField { field, .. }
        | ron::Error::DuplicateStructField { field, .. } => Some(field.to_string()),
        _ => None,
    };
    let offset = base + super::error::offset_of(&source[base..], pos.line, pos.col);
    let key = field
        .clone()
        .or_else(|| super::error::field_before(source, offset));
    let message = match &e.code {
        ron::Error::ExceededRecursionLimit => {
            "the model nests deeper than the parser allows (128 levels); flatten it".to_string()
        }
        code => super::hints::message(code, source, offset, key.as_deref()),
    };
    let (line, column) = match base {
        0 => (pos.line, pos.col),
        _ => super::error::line_col(source, offset),
    };
    Box::new(ModelError::at(path, source, line, column, field, message))
}

/// Fills in the parameters' text of each method the model names beyond the built-in ones
/// (`fluid.method`, `contact.resolver`) from `source`, and checks that it reads as the
/// registered type: an error is located in the parameters' text.
fn named_parameters(
    model: &mut Model,
    path: &Path,
    source: &str,
    registry: &Registry,
) -> Result<(), Box<ModelError>> {
    let spans = super::spans::Spans::of(source);
    let fluid = model.fluid.as_mut().and_then(|f| f.method.registered_mut());
    let resolver = model.contact.resolver.registered_mut();
    type Check = fn(&Registry, &Named) -> Result<(), NamedError>;
    let named: [(&str, Option<&mut Named>, Check); 2] = [
        ("fluid.method", fluid, Registry::check_fluid_method),
        (
            "contact.resolver",
            resolver,
            Registry::check_contact_resolver,
        ),
    ];
    for (at, n, check) in named {
        let (Some(n), Some(range)) = (n, spans.range(at)) else {
            continue;
        };
        // The value is `Name(params)`: the parameters are the parenthesised rest.
        let text = &source[range.clone()];
        let Some(open) = text.find('(') else {
            continue;
        };
        n.params = text[open..].to_string();
        if let Err(NamedError::Parse(e)) = check(registry, n) {
            return Err(ron_error(path, source, range.start + open, &e));
        }
    }
    Ok(())
}

/// The RON options of model files: `implicit_some` and `unwrap_variant_newtypes` on, so
/// `solver: Apgd(tolerance: 1e-3)` and `mass: 2.0` read as written.
fn options() -> ron::Options {
    crate::named::ron_options()
}

/// Reads a piece of a model written in RON (a shape, a fluid method, a contact resolver, ...)
/// with the model files' options, e.g. `from_ron_str::<ResolverChoice>("Eti(divider: 50)")`.
/// Not validated: put it into a model, whose validation checks it.
pub fn from_ron_str<T: serde::de::DeserializeOwned>(
    text: &str,
) -> Result<T, ron::error::SpannedError> {
    options().from_str(text)
}
