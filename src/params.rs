//! What every algorithm's parameters share: the error a `validate()` returns and the range
//! checks it is made of. Parameter types themselves live with their algorithm
//! ([`crate::solver::PgsParams`], [`crate::constraints::contact::ContactParams`],
//! [`crate::fluid::FluidParams`], ...): each has `Default`, units and defaults in its docs, and
//! `validate()`; the model layer only maps RON onto them and locates their errors in the file.

use crate::math::Real;

/// A parameter outside its admissible range: which field (as named in RON), what was
/// expected, what was given.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("field `{field}`: expected {expected}, got {value}")]
pub struct ParamError {
    /// The field's name as in RON.
    pub field: &'static str,
    /// What the field admits.
    pub expected: &'static str,
    /// The value given.
    pub value: Real,
}

impl ParamError {
    /// A parameter error.
    pub fn new(field: &'static str, expected: &'static str, value: Real) -> ParamError {
        ParamError {
            field,
            expected,
            value,
        }
    }

    /// `expected …, got …`, the value written short (`1e308`, not its 309 digits).
    pub fn message(&self) -> String {
        format!("expected {}, got {}", self.expected, shown(self.value))
    }
}

/// A value as a message shows it, as a user would write it: plain between 1e-4 and 1e6, else
/// in e-notation (`1e308`, not its 309 digits).
pub fn shown(v: Real) -> String {
    if v.is_finite() && v != 0.0 && !(1e-4..1e6).contains(&v.abs()) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// The most iterations a solve may be given: beyond it a step that does not converge would run
/// for hours (an iteration over 10⁴ rows takes tens of µs).
pub const MAX_ITERATIONS: usize = 100_000;

/// `Ok` for an iteration limit from 1 to [`MAX_ITERATIONS`].
pub fn iteration_limit(field: &'static str, n: usize) -> Result<(), ParamError> {
    if (1..=MAX_ITERATIONS).contains(&n) {
        Ok(())
    } else {
        Err(ParamError::new(
            field,
            "from 1 to 100000 iterations",
            n as Real,
        ))
    }
}

/// `Ok` for a finite number > 0.
pub fn positive(field: &'static str, v: Real) -> Result<(), ParamError> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(ParamError::new(field, "a finite number > 0", v))
    }
}

/// `Ok` for a finite number ≥ 0.
pub fn non_negative(field: &'static str, v: Real) -> Result<(), ParamError> {
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        Err(ParamError::new(field, "a finite number ≥ 0", v))
    }
}

/// `Ok` for a number in [0, 1].
pub fn unit_interval(field: &'static str, v: Real) -> Result<(), ParamError> {
    if (0.0..=1.0).contains(&v) {
        Ok(())
    } else {
        Err(ParamError::new(field, "a number in [0, 1]", v))
    }
}
