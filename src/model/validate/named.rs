//! Methods named beyond the built-in ones (`fluid.method`, `contact.resolver`): registered in
//! the [`crate::registry::Registry`] the model is checked with, and their parameters read and
//! in range. A file's loader has already located a parameter that does not read at its place
//! in the text; a model built in code gets it here, by field path.

use super::{at, Checked, FieldError, Model};
use crate::registry::{NamedError, Registry};

/// Checks the model's named methods against `registry`.
pub(super) fn validate(m: &Model, registry: &Registry) -> Checked {
    if let Some(n) = m.fluid.as_ref().and_then(|f| f.method.registered()) {
        located("fluid.method", registry.check_fluid_method(n))?;
    }
    if let Some(n) = m.contact.resolver.registered() {
        located("contact.resolver", registry.check_contact_resolver(n))?;
    }
    Ok(())
}

/// The error of a named method at `path` (a value out of range at its field).
fn located(path: &str, r: Result<(), NamedError>) -> Checked {
    match r {
        Ok(()) => Ok(()),
        Err(NamedError::Value(e)) => Err(FieldError::new(at(path, e.field), e.message())),
        Err(NamedError::Parse(e)) => Err(FieldError::new(
            path,
            format!(
                "its parameters do not read: {} (line {}, column {} of them)",
                e.code, e.span.start.line, e.span.start.col
            ),
        )),
        Err(e @ NamedError::Unknown { .. }) => Err(FieldError::new(path, e.to_string())),
    }
}
