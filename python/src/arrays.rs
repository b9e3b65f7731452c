//! numpy arrays filled from the world's flat arrays: one pass, no Python objects per element.
//!
//! Fluid arrays come in particle-id order (row `i` is particle `i` at every step), although
//! the fluid keeps its particles in cell order and re-sorts them every step: the world's
//! buffers are re-sorted and may be reallocated by a step, so a numpy view of them would
//! change meaning or dangle after the next `step()`. The copy is a scatter of 24 bytes per
//! particle (well under 1 % of a step; the book's Python page measures it). Pass `out=` to
//! fill an array of your own and allocate nothing.

use numpy::ndarray::Dimension;
use numpy::{PyArray, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

/// `out` when given (checked: a writeable C-contiguous float64 numpy array of shape `shape`),
/// else a new zeroed array; then `fill` writes its elements in C order.
pub fn filled<'py, D: Dimension>(
    py: Python<'py>,
    shape: D,
    out: Option<Bound<'py, PyAny>>,
    fill: impl FnOnce(&mut [f64]),
) -> PyResult<Bound<'py, PyArray<f64, D>>> {
    let wanted = || {
        format!(
            "out must be a writeable C-contiguous float64 numpy array of shape {:?}",
            shape.slice()
        )
    };
    let a = match out {
        None => PyArray::zeros(py, shape.clone(), false),
        Some(o) => {
            let a = o
                .cast_into::<PyArray<f64, D>>()
                .map_err(|_| PyTypeError::new_err(wanted()))?;
            if a.shape() != shape.slice() || !a.is_c_contiguous() {
                return Err(PyValueError::new_err(format!(
                    "{}; got shape {:?}{}",
                    wanted(),
                    a.shape(),
                    if a.is_c_contiguous() {
                        ""
                    } else {
                        ", not C-contiguous"
                    }
                )));
            }
            a
        }
    };
    {
        let mut w = a
            .try_readwrite()
            .map_err(|_| PyValueError::new_err(wanted()))?;
        let s = w
            .as_slice_mut()
            .map_err(|_| PyValueError::new_err(wanted()))?;
        fill(s);
    }
    Ok(a)
}

/// Scatters `values` (in storage order) to rows `ids[k]` of `out` (`width` floats a row):
/// particle-id order.
pub fn scatter<T: Copy>(
    out: &mut [f64],
    ids: &[u32],
    values: &[T],
    width: usize,
    put: impl Fn(&T, &mut [f64]),
) {
    for (&id, v) in ids.iter().zip(values) {
        let i = id as usize * width;
        if let Some(row) = out.get_mut(i..i + width) {
            put(v, row);
        }
    }
}
