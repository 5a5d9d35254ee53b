//! The one map from failures to Python exceptions: the core's [`Error`]
//! and the few failures of the bindings themselves ([`BindingError`]).
//!
//! Bad values (ranges, names, shapes, NaN) are `ValueError`, as the Python
//! package documents; arrays of the wrong kind are `TypeError`; Ctrl-C is
//! `KeyboardInterrupt`; what no caller can fix (a thread pool that does not
//! start, a lost worker) is `RuntimeError`.

use crate::error::Error;
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::PyErr;

impl From<Error> for PyErr {
    fn from(e: Error) -> PyErr {
        match e {
            Error::InvalidParameter { .. } | Error::Shape { .. } | Error::NonFinite { .. } => {
                PyValueError::new_err(e.to_string())
            }
            Error::Interrupted => PyKeyboardInterrupt::new_err(e.to_string()),
            Error::ThreadPool { .. } => PyRuntimeError::new_err(e.to_string()),
        }
    }
}

/// What can go wrong in the bindings before or after the core runs. The
/// Python package converts every input first, so the type errors here only
/// reach code that calls `smartigan._core` directly.
#[derive(Debug)]
pub(super) enum BindingError {
    /// An argument that is not a float32/float64 array of the right
    /// dimension (`what` says which).
    NotFloat {
        name: &'static str,
        what: &'static str,
    },
    /// Data and centroids of different float types.
    DtypeMismatch,
    /// An array that another thread holds writable (numpy's borrow check).
    Busy { name: &'static str },
    /// The worker thread ended without sending its result.
    WorkerLost,
}

impl From<BindingError> for PyErr {
    fn from(e: BindingError) -> PyErr {
        match e {
            BindingError::NotFloat { name, what } => PyTypeError::new_err(format!(
                "{name} must be a {what} float32 or float64 numpy array"
            )),
            BindingError::DtypeMismatch => {
                PyTypeError::new_err("x and centroids must have the same dtype")
            }
            BindingError::Busy { name } => {
                PyRuntimeError::new_err(format!("{name} is being written by another thread"))
            }
            BindingError::WorkerLost => {
                PyRuntimeError::new_err("smartigan worker thread stopped without a result")
            }
        }
    }
}
