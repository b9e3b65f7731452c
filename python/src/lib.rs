//! `vcsim._vcsim`: the Python bindings of vcsim (PyO3). The package `vcsim` (python/vcsim/)
//! re-exports these and adds the study table's helpers; its stubs (`_vcsim.pyi`) document the
//! same API for editors.
//!
//! - [`model::load`] / [`model::loads`]: a model from a file or a string; a bad one raises
//!   `ModelError` with the CLI's located message (file, line, column, field) and those as
//!   attributes.
//! - [`model::Model`]: read (`get`) and change (`set`) fields before building; `build` a
//!   simulation.
//! - [`simulation::Simulation`]: a [`vcsim::io::session::Session`] (the CLI's checks after
//!   every step, probes at the output times, optionally the CLI's output files and
//!   checkpoints); steps run with the GIL released, and Ctrl-C ends `run` after a whole step
//!   with everything up to it written. Arrays are numpy arrays in SI units.
//! - [`study::study`]: a study run as `vcsim study` runs it, its table returned as CSV text.

pub mod arrays;
pub mod errors;
pub mod model;
pub mod simulation;
pub mod study;

use pyo3::prelude::*;

/// The extension module.
#[pymodule]
fn _vcsim(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("ModelError", py.get_type::<errors::ModelError>())?;
    m.add("RunError", py.get_type::<errors::RunError>())?;
    m.add_class::<model::Model>()?;
    m.add_class::<simulation::Simulation>()?;
    m.add_function(wrap_pyfunction!(model::load, m)?)?;
    m.add_function(wrap_pyfunction!(model::loads, m)?)?;
    m.add_function(wrap_pyfunction!(simulation::resume, m)?)?;
    m.add_function(wrap_pyfunction!(study::study, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
