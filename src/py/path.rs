//! `_core.fit_path`: the path of solutions over a range of `k`
//! ([`crate::ValidParams::path_with`]) as a [`RowsJob`] on
//! dense or sparse points of either float type, returned as `_core.Path`.
//! `smartigan.cluster_path` (python/smartigan/_path.py) is the documented
//! front end.

use super::arrays::{Float, Matrix, RowsJob};
use super::fit::{FitInputs, Weights};
use super::interrupt::interruptible_reporting;
use super::params::{count, PyParams};
use super::result::{int64, PyClustering};
use crate::{
    control::{Control, Progress},
    fit::path::{Path, PathKeep, PathOrigin, PathStep},
    params::Params,
    rows::Rows,
};
use numpy::{IntoPyArray, PyArray1};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use std::ops::RangeInclusive;

/// One `k` of a path: the fields of [`PathStep`], its origin as a name
/// (`"fit"`, `"split"`, `"filled"`, `"merge"`) and an index (the cluster
/// split, the merge's rank; else None), and its whole solution where the
/// path kept it.
#[pyclass(module = "smartigan._core", name = "PathStep", frozen, get_all)]
pub(super) struct PyPathStep {
    k: usize,
    objective: f64,
    cluster_sizes: Py<PyArray1<i64>>,
    cluster_objectives: Py<PyArray1<f64>>,
    origin: &'static str,
    origin_index: Option<usize>,
    n_sweeps: usize,
    converged: bool,
    clustering: Option<Py<PyClustering>>,
}

impl PyPathStep {
    fn new<T: Float>(py: Python<'_>, s: PathStep<T>) -> PyResult<Self> {
        let (origin, origin_index) = match s.origin {
            PathOrigin::Fit => ("fit", None),
            PathOrigin::Split(c) => ("split", Some(c)),
            PathOrigin::Filled => ("filled", None),
            PathOrigin::Merge(rank) => ("merge", Some(rank)),
        };
        let clustering = match s.clustering {
            Some(c) => Some(Py::new(py, PyClustering::new(py, c))?),
            None => None,
        };
        Ok(PyPathStep {
            k: s.k,
            objective: s.objective,
            cluster_sizes: int64(py, s.cluster_sizes),
            cluster_objectives: s.cluster_objectives.into_pyarray(py).unbind(),
            origin,
            origin_index,
            n_sweeps: s.n_sweeps,
            converged: s.converged,
            clustering,
        })
    }
}

/// A path: its steps in increasing `k` (a tuple of `PathStep`) and the
/// seed used.
#[pyclass(module = "smartigan._core", name = "Path", frozen, get_all)]
pub(super) struct PyPath {
    steps: Py<PyTuple>,
    seed: u64,
}

impl PyPath {
    fn new<T: Float>(py: Python<'_>, path: Path<T>) -> PyResult<Self> {
        let steps = path
            .steps
            .into_iter()
            .map(|s| Py::new(py, PyPathStep::new(py, s)?))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(PyPath {
            steps: PyTuple::new(py, steps)?.unbind(),
            seed: path.seed,
        })
    }
}

/// The path of solutions for `k_min..=k_max` on `x` (a 2-d array or a
/// `CsrMatrix`); `keep_clusterings=False` keeps summaries only.
/// `progress(done, total)`, if given, is called from this thread while the
/// path runs and once at its end (see [`Progress`]); an exception it
/// raises stops the path.
#[pyfunction]
#[pyo3(signature = (x, k_min, k_max, params, keep_clusterings=true, sample_weight=None, progress=None))]
#[allow(clippy::too_many_arguments)]
pub(super) fn fit_path(
    py: Python<'_>,
    x: Matrix<'_>,
    k_min: i64,
    k_max: i64,
    params: PyRef<'_, PyParams>,
    keep_clusterings: bool,
    sample_weight: Weights<'_>,
    progress: Option<Py<PyAny>>,
) -> PyResult<PyPath> {
    let positive = "must be a positive integer";
    let ks = count("ks", k_min, positive)?..=count("ks", k_max, positive)?;
    let keep = if keep_clusterings {
        PathKeep::Clusterings
    } else {
        PathKeep::Summaries
    };
    x.with_rows(FitPath {
        inputs: FitInputs::new(py, &params, &sample_weight),
        ks,
        keep,
        progress,
    })
}

struct FitPath<'a, 'py> {
    inputs: FitInputs<'a, 'py>,
    ks: RangeInclusive<usize>,
    keep: PathKeep,
    progress: Option<Py<PyAny>>,
}

impl RowsJob for FitPath<'_, '_> {
    type Output = PyPath;

    fn run<T: Float>(self, rows: Rows<'_, T>) -> PyResult<PyPath> {
        let (py, data, params) = self.inputs.parts(rows.reborrow());
        let (ks, keep) = (self.ks, self.keep);
        let counter = Progress::default();
        let callback = self.progress;
        // Calls the callback only when the count moved.
        let mut shown = None;
        let report = |py: Python<'_>| -> PyResult<()> {
            let now = counter.get();
            match &callback {
                Some(f) if shown != Some(now) && now.1 > 0 => {
                    shown = Some(now);
                    f.call1(py, now).map(drop)
                }
                _ => Ok(()),
            }
        };
        let path = interruptible_reporting(
            py,
            |cancel| {
                // The first fit is at `k_min`, whatever `k` Python passed.
                let control = Control::default().cancel(cancel).progress(&counter);
                Params {
                    k: (*ks.start()).max(1),
                    ..params
                }
                .check()?
                .path_with(data, ks, keep, control)
            },
            report,
        )?;
        PyPath::new(py, path)
    }
}
