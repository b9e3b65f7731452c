//! Loading a model file: parse (RON extensions `implicit_some` and `unwrap_variant_newtypes`
//! on), validate ([`super::validate::validate`]), and locate a validation error in the text by
//! its field path ([`super::spans`]). Every error carries file, line, column and field. The
//! orchestrator of the chain: it imports every stage, and no stage imports it.

use super::error::ModelError;
use super::schema::Model;
use ron::extensions::Extensions;
use std::path::Path;

/// Reads and validates a model file.
pub fn load_file(path: &Path) -> Result<(Model, String), Box<ModelError>> {
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
    let model = parse_str(path, &source)?;
    Ok((model, source))
}

/// Parses and validates model text; `path` is only used in messages. Body arrays are kept as
/// written ([`super::build::build_world`] expands them).
pub fn parse_str(path: &Path, source: &str) -> Result<Model, Box<ModelError>> {
    let source = source.strip_prefix('\u{feff}').unwrap_or(source);
    let model: Model = options().from_str(source).map_err(|e| {
        let pos = e.span.start;
        let field = match &e.code {
            ron::Error::NoSuchStructField { found, .. } => Some(found.clone()),
            ron::Error::MissingStructField { field, .. }
            | ron::Error::DuplicateStructField { field, .. } => Some(field.to_string()),
            _ => None,
        };
        let offset = super::error::offset_of(source, pos.line, pos.col);
        let key = field
            .clone()
            .or_else(|| super::error::field_before(source, offset));
        let message = match &e.code {
            ron::Error::ExceededRecursionLimit => {
                "the model nests deeper than the parser allows (128 levels); flatten it".to_string()
            }
            code => super::hints::message(code, source, offset, key.as_deref()),
        };
        Box::new(ModelError::at(
            path, source, pos.line, pos.col, field, message,
        ))
    })?;
    super::validate::validate(&model).map_err(|e| Box::new(e.locate(path, source)))?;
    Ok(model)
}

/// The RON options of model files: `implicit_some` and `unwrap_variant_newtypes` on, so
/// `solver: Apgd(tolerance: 1e-3)` and `mass: 2.0` read as written.
fn options() -> ron::Options {
    ron::Options::default()
        .with_default_extension(Extensions::IMPLICIT_SOME | Extensions::UNWRAP_VARIANT_NEWTYPES)
}

/// Reads a piece of a model written in RON (a shape, a fluid method, a contact resolver, ...)
/// with the model files' options, e.g. `from_ron_str::<ResolverChoice>("Eti(divider: 50)")`.
/// Not validated: put it into a model, whose validation checks it.
pub fn from_ron_str<T: serde::de::DeserializeOwned>(
    text: &str,
) -> Result<T, ron::error::SpannedError> {
    options().from_str(text)
}
