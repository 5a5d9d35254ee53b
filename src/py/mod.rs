//! Python bindings (`smartigan._core`), compiled only with the `python`
//! feature. The Python package `python/smartigan` wraps them with type
//! coercion and docstrings; every value check happens in the Rust core.
//!
//! One file per concern:
//! * [`errors`]: the one map from failures (the core's and the bindings'
//!   own) to Python exceptions;
//! * [`params`]: `Params`, the one parameter object Python builds;
//! * [`result`]: `Clustering`, the one result object Python gets back;
//! * [`arrays`]: the points Python hands over (a dense array or a
//!   `CsrMatrix`, of float32 or float64) and the one dispatch on their
//!   float type;
//! * [`interrupt`]: core work with the GIL released, stoppable by Ctrl-C;
//! * [`fit`]: the one-shot calls (`fit`, `kmeans_plusplus`, `predict`,
//!   `transform`);
//! * [`run`]: `Run`, a fit advanced one sweep at a time;
//! * [`path`]: `fit_path`, the solutions over a range of `k`, as `Path`.
//!
//! The names and defaults that Python, the command line and the
//! scikit-learn estimator show (`METHODS`, `INITS`, `DEFAULT_*`) come from
//! the core through this module, so that no Python file restates them.

mod arrays;
mod errors;
mod fit;
mod interrupt;
mod params;
mod path;
mod result;
mod run;

use crate::params::{defaults, Init, Method, Metric};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// The work `n_init="auto"` may spend on data of this shape, in passes
/// over the data (the core's rule, so that Python never restates it).
#[pyfunction]
fn auto_budget(n_samples: usize, n_features: usize, k: usize) -> f64 {
    defaults::auto_budget(n_samples, n_features, k)
}

/// The rows of the sample `n_init="auto"` descends a candidate on first,
/// or `None` where it draws none (the core's rule).
#[pyfunction]
fn sample_rows(n_samples: usize, n_features: usize, k: usize) -> Option<usize> {
    defaults::sample_rows(n_samples, n_features, k)
}

/// The most work `n_init="best"` may spend on data of this shape, in passes.
#[pyfunction]
fn best_budget(n_samples: usize, n_features: usize, k: usize) -> f64 {
    defaults::best_budget(n_samples, n_features, k)
}

/// The relative tolerance `tol="auto"` uses for data of this shape.
#[pyfunction]
fn auto_tol(n_samples: usize, n_features: usize, k: usize) -> f64 {
    defaults::tol(n_samples, n_features, k)
}

/// The `n_iter` that `n_iter=None` means for `method` (the core's rule),
/// for data of this shape if it is given (`sizes`: `(n_samples,
/// n_features, k)`), else on small problems.
#[pyfunction]
#[pyo3(signature = (method, sizes=None))]
fn default_n_iter(method: &str, sizes: Option<(usize, usize, usize)>) -> PyResult<usize> {
    let method = method.parse::<Method>()?;
    Ok(match sizes {
        Some((n, d, k)) => defaults::n_iter_for(method, n, d, k),
        None => defaults::n_iter(method),
    })
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(fit::fit, m)?)?;
    m.add_function(wrap_pyfunction!(fit::kmeans_plusplus, m)?)?;
    m.add_function(wrap_pyfunction!(fit::predict, m)?)?;
    m.add_function(wrap_pyfunction!(fit::transform, m)?)?;
    m.add_function(wrap_pyfunction!(path::fit_path, m)?)?;
    m.add_function(wrap_pyfunction!(auto_budget, m)?)?;
    m.add_function(wrap_pyfunction!(sample_rows, m)?)?;
    m.add_function(wrap_pyfunction!(best_budget, m)?)?;
    m.add_function(wrap_pyfunction!(auto_tol, m)?)?;
    m.add_function(wrap_pyfunction!(default_n_iter, m)?)?;
    m.add_class::<params::PyParams>()?;
    m.add_class::<result::PyClustering>()?;
    m.add_class::<arrays::PyCsrMatrix>()?;
    m.add_class::<run::PyRun>()?;
    m.add_class::<path::PyPath>()?;
    m.add_class::<path::PyPathStep>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    let py = m.py();
    m.add("METHODS", PyTuple::new(py, Method::ALL.map(Method::name))?)?;
    m.add("INITS", PyTuple::new(py, Init::NAMES)?)?;
    m.add("METRICS", PyTuple::new(py, Metric::ALL.map(Metric::name))?)?;
    m.add("DEFAULT_METRIC", defaults::METRIC.name())?;
    m.add("MAX_N_ITER", crate::params::MAX_N_ITER)?;
    m.add("DEFAULT_METHOD", defaults::METHOD.name())?;
    m.add("DEFAULT_N_ITER", defaults::N_ITER)?;
    m.add("DEFAULT_N_ITER_LARGE", defaults::N_ITER_LARGE)?;
    m.add("SCHEDULE_OVERLAP_SHARE", defaults::OVERLAP_SHARE)?;
    m.add("SCHEDULE_RANDOM_WALK_SHARE", defaults::RANDOM_WALK_SHARE)?;
    m.add("SCHEDULE_START_SHARE", defaults::START_SHARE)?;
    m.add("DEFAULT_MAX_ITER", defaults::MAX_ITER)?;
    m.add("AUTO_SMALL_PROBLEM", defaults::SMALL_PROBLEM)?;
    m.add("DEFAULT_INIT", defaults::init().name())?;
    m.add("DEFAULT_SCHEDULE", defaults::SCHEDULE)?;
    m.add("DEFAULT_POLISH", defaults::POLISH)?;
    m.add("DEFAULT_REFINE", defaults::REFINE)?;
    m.add("AUTO_TOL_LARGE", defaults::TOL_LARGE)?;
    m.add("FAST_TOL", defaults::FAST_TOL)?;
    m.add(
        "PLUS_PLUS_ROWS_PER_CENTRE",
        defaults::PLUS_PLUS_ROWS_PER_CENTRE,
    )?;
    m.add("LARGE_PROBLEM_ROWS", crate::engine::rounds::ROUNDS_MIN_ROWS)?;
    m.add("LARGE_PROBLEM_WORK", crate::engine::rounds::ROUNDS_MIN_WORK)?;
    Ok(())
}
