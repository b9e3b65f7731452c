//! Python exceptions: `ModelError` (a `ValueError` carrying the located message and its
//! parts), `RunError` (a `RuntimeError`: a step left its bounds, diverged or met a cap).

use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use vcsim::io::session::SessionError;

pyo3::create_exception!(
    vcsim,
    ModelError,
    PyValueError,
    "A model or study file that is invalid. `str(e)` is the CLI's message \
     `file:line:column: field `name`: what is wrong`; the parts are the attributes `file`, \
     `line`, `column` (1-based), `field` (or None) and `message`."
);
pyo3::create_exception!(
    vcsim,
    RunError,
    PyRuntimeError,
    "A step that left the model's bounds (`guard`), diverged, met a cap or contacts that \
     cannot be computed. The simulation refuses to step on; resume a checkpoint."
);

/// A located model error as a Python `ModelError` with its parts as attributes.
pub fn model_error(py: Python<'_>, e: &vcsim::ModelError) -> PyErr {
    let err = ModelError::new_err(e.to_string());
    let v = err.value(py);
    let set = || -> PyResult<()> {
        v.setattr("file", &e.file)?;
        v.setattr("line", e.line)?;
        v.setattr("column", e.column)?;
        v.setattr("field", e.field.clone())?;
        v.setattr("message", &e.message)?;
        Ok(())
    };
    match set() {
        Ok(()) => err,
        Err(e) => e,
    }
}

/// A session's error as the Python exception that fits it.
pub fn session_error(py: Python<'_>, e: SessionError) -> PyErr {
    match e {
        SessionError::Model(m) => model_error(py, &m),
        SessionError::Input(s) => PyValueError::new_err(s),
        e @ SessionError::Io { .. } => PyOSError::new_err(e.to_string()),
        SessionError::Step(e) => RunError::new_err(e.to_string()),
    }
}
