//! `_core.Clustering`: the one result object that crosses the boundary,
//! the core's [`Clustering`] with its arrays as numpy arrays.
//! `smartigan.ClusterResult` is built from its attributes, field by field.

use super::arrays::Float;
use crate::clustering::Clustering;
use numpy::{IntoPyArray, PyArray1};
use pyo3::prelude::*;

/// A fit's result (the best restart); the fields of [`Clustering`], with
/// counts and labels as int64 and the centroids in the data's float type.
#[pyclass(module = "smartigan._core", name = "Clustering", frozen, get_all)]
pub(super) struct PyClustering {
    labels: Py<PyArray1<i64>>,
    centroids: Py<PyAny>,
    objective: f64,
    cluster_sizes: Py<PyArray1<i64>>,
    cluster_objectives: Py<PyArray1<f64>>,
    n_sweeps: usize,
    converged: bool,
    history: Py<PyArray1<f64>>,
    moves: Py<PyArray1<i64>>,
    initial_objective: f64,
    refinements: usize,
    schedule_start: Option<f64>,
    restart_objectives: Py<PyArray1<f64>>,
    best_restart: usize,
    seed: u64,
    metric: &'static str,
}

impl PyClustering {
    pub(super) fn new<T: Float>(py: Python<'_>, c: Clustering<T>) -> Self {
        PyClustering {
            labels: int64(py, c.labels),
            centroids: c.centroids.into_pyarray(py).into_any().unbind(),
            objective: c.objective,
            cluster_sizes: int64(py, c.cluster_sizes),
            cluster_objectives: c.cluster_objectives.into_pyarray(py).unbind(),
            n_sweeps: c.n_sweeps,
            converged: c.converged,
            history: c.history.into_pyarray(py).unbind(),
            moves: int64(py, c.moves),
            initial_objective: c.initial_objective,
            refinements: c.refinements,
            schedule_start: c.schedule_start,
            restart_objectives: c.restart_objectives.into_pyarray(py).unbind(),
            best_restart: c.best_restart,
            seed: c.seed,
            metric: c.metric.name(),
        }
    }
}

/// Labels, sizes and counts as numpy's int64 (what the Python API
/// documents), from the core's `usize`.
pub(super) fn int64(py: Python<'_>, values: impl IntoIterator<Item = usize>) -> Py<PyArray1<i64>> {
    let values: Vec<i64> = values.into_iter().map(|v| v as i64).collect();
    values.into_pyarray(py).unbind()
}
