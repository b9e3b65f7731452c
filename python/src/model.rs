//! `load`, `loads` and `Model`: a model file read and validated as `vcsim check` reads it, its
//! fields read and changed by path before it is built.

use crate::errors::model_error;
use crate::simulation::Simulation;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyList, PyString, PyTuple};
use std::path::{Path, PathBuf};
use vcsim::registry::Registry;
use vcsim::study::{expand::field_text, splice};

/// A model read from RON and validated; change its fields with `set`, then `build` it.
#[pyclass(module = "vcsim", frozen)]
pub struct Model {
    pub(crate) path: PathBuf,
    pub(crate) text: std::sync::RwLock<(String, vcsim::Model)>,
}

impl Model {
    fn new(path: PathBuf, text: String, model: vcsim::Model) -> Model {
        Model {
            path,
            text: std::sync::RwLock::new((text, model)),
        }
    }

    /// The model's text and value now.
    pub(crate) fn current(&self) -> (String, vcsim::Model) {
        let g = self.text.read().unwrap_or_else(|e| e.into_inner());
        (g.0.clone(), g.1.clone())
    }
}

/// Reads and validates the model file at `path` (as `vcsim check` does).
///
/// Raises `ModelError` (file, line, column, field) for a model that is invalid or cannot be
/// read.
#[pyfunction]
pub fn load(py: Python<'_>, path: PathBuf) -> PyResult<Model> {
    let r = py.detach(|| vcsim::model::load_file_with(&path, &Registry::new()));
    match r {
        Ok((m, text)) => Ok(Model::new(path, text, m)),
        Err(e) => Err(model_error(py, &e)),
    }
}

/// Reads and validates model text; `path` names it in messages (and is where a run's default
/// output folder is named from).
#[pyfunction]
#[pyo3(signature = (text, path = "<string>"))]
pub fn loads(py: Python<'_>, text: &str, path: &str) -> PyResult<Model> {
    let p = PathBuf::from(path);
    match vcsim::model::parse_str_with(&p, text, &Registry::new()) {
        Ok(m) => Ok(Model::new(p, text.to_string(), m)),
        Err(e) => Err(model_error(py, &e)),
    }
}

/// `value` as RON text: a bool, an int, a float (shortest text that reads back the same), a
/// tuple `(a, b)` or list `[a, b]` of those, or a str taken as RON text as it is.
fn ron_text(value: &Bound<'_, PyAny>) -> PyResult<String> {
    if value.is_instance_of::<PyBool>() {
        return Ok(value.extract::<bool>()?.to_string());
    }
    if value.is_instance_of::<PyInt>() {
        return Ok(value.extract::<i128>()?.to_string());
    }
    if value.is_instance_of::<PyFloat>() {
        return Ok(format!("{:?}", value.extract::<f64>()?));
    }
    if value.is_instance_of::<PyString>() {
        return value.extract::<String>();
    }
    let items = |open: &str, close: &str| -> PyResult<String> {
        let parts: PyResult<Vec<String>> = value.try_iter()?.map(|v| ron_text(&v?)).collect();
        Ok(format!("{open}{}{close}", parts?.join(", ")))
    };
    if value.is_instance_of::<PyTuple>() {
        return items("(", ")");
    }
    if value.is_instance_of::<PyList>() {
        return items("[", "]");
    }
    // numpy scalars and 0-d arrays read as floats.
    if let Ok(x) = value.extract::<f64>() {
        return Ok(format!("{x:?}"));
    }
    Err(PyTypeError::new_err(format!(
        "cannot write a {} into a model: give a bool, int, float, a tuple or list of them, or \
         RON text as a str",
        value.get_type().name()?
    )))
}

/// Whether `path` is a field the schema has but the model leaves out without a default (an
/// optional value such as `time.dt` of a fluid model): written into the text, it is not
/// refused as unknown.
fn left_out(text: &str, path: &str) -> bool {
    let Ok(paths) = splice::resolve(text, path) else {
        return false;
    };
    paths.iter().all(|p| match splice::set_one(text, p, "0") {
        Ok((t, _, _)) => !matches!(
            vcsim::model::from_ron_str::<vcsim::Model>(&t),
            Err(e) if matches!(e.code, ron::Error::NoSuchStructField { .. })
        ),
        Err(_) => false,
    })
}

/// A field's RON text as a Python value: a bool, int or float where it is one, else the text.
fn py_value<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    let t = text.trim();
    let v = match t {
        "true" => PyBool::new(py, true).to_owned().into_any(),
        "false" => PyBool::new(py, false).to_owned().into_any(),
        _ => {
            if let Ok(i) = t.parse::<i64>() {
                i.into_pyobject(py)?.into_any()
            } else if let Ok(x) = t.parse::<f64>() {
                PyFloat::new(py, x).into_any()
            } else {
                PyString::new(py, t).into_any()
            }
        }
    };
    Ok(v)
}

#[pymethods]
impl Model {
    /// The file the model was read from (or the name given to `loads`).
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    /// The model's RON text, with the changes made by `set`.
    #[getter]
    fn text(&self) -> String {
        self.current().0
    }

    /// The value of the field at `path` (`"time.dt"`, `"bodies[box].density"`,
    /// `"fluid.spacing"`), defaults filled in: a bool, int or float where the field is one,
    /// None for an optional field the model leaves out (`time.dt` of a fluid model, chosen
    /// when it is built), else its RON text (a str). A path that names several items
    /// (`materials[*].friction`) reads the first.
    fn get<'py>(&self, py: Python<'py>, path: &str) -> PyResult<Bound<'py, PyAny>> {
        let (text, m) = self.current();
        match field_text(&m, path) {
            Ok(t) => py_value(py, &t),
            Err(e) if left_out(&text, path) => {
                let _ = e;
                Ok(py.None().into_bound(py))
            }
            Err(e) => Err(PyValueError::new_err(e)),
        }
    }

    /// Sets the field at `path` to `value` (a number, a bool, a tuple or list of numbers, or
    /// RON text as a str: `m.set("solver", "Pgs(max_iterations: 10)")`) in the model's text;
    /// `bodies[*].density` sets every item. The edited model is validated: a bad value raises
    /// `ModelError` located in the edited text, and leaves the model as it was.
    fn set(&self, py: Python<'_>, path: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let value = ron_text(value)?;
        let (mut text, _) = self.current();
        let paths = splice::resolve(&text, path).map_err(PyValueError::new_err)?;
        for p in &paths {
            text = splice::set_one(&text, p, &value)
                .map_err(PyValueError::new_err)?
                .0;
        }
        match vcsim::model::parse_str_with(&self.path, &text, &Registry::new()) {
            Ok(m) => {
                *self.text.write().unwrap_or_else(|e| e.into_inner()) = (text, m);
                Ok(())
            }
            Err(e) => Err(model_error(py, &e)),
        }
    }

    /// The model's located warnings (what `vcsim check` warns about), as strings; building
    /// the world may take a while for a large fluid.
    fn warnings(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        let (text, m) = self.current();
        let path = self.path.clone();
        let world = py
            .detach(|| vcsim::model::build_world_with(&m, &Registry::new()))
            .map_err(|e| model_error(py, &e.locate(&path, &text)))?;
        let spans = vcsim::model::spans::Spans::of(&text);
        Ok(vcsim::model::warnings::warnings(&m, Some(&spans), &world)
            .iter()
            .map(|w| w.locate(&path, &text).to_string())
            .collect())
    }

    /// Builds the world and samples its probes at t = 0. With `out`, the CLI's output files
    /// (`probes.csv` and the other CSV series, VTK frames when the model asks for them) are
    /// written there as the simulation steps (the folder must be new or empty). `threads`: the
    /// threads a step uses (default: every core).
    #[pyo3(signature = (out = None, threads = None))]
    fn build(
        &self,
        py: Python<'_>,
        out: Option<PathBuf>,
        threads: Option<usize>,
    ) -> PyResult<Simulation> {
        let (text, m) = self.current();
        let path: &Path = &self.path;
        Simulation::build(py, &m, (path, &text), out.as_deref(), threads)
    }

    fn __repr__(&self) -> String {
        format!("vcsim.Model({:?})", self.path.display().to_string())
    }
}
