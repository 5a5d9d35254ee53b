//! The one-shot calls: `fit`, `kmeans_plusplus`, `predict` and `transform`,
//! each a [`RowsJob`] run on dense or sparse points of either float type.

use super::arrays::{same_float, Float, Matrix, RowsJob};
use super::interrupt::interruptible;
use super::params::PyParams;
use super::result::{int64, PyClustering};
use crate::{
    control::Control,
    dataset::Dataset,
    params::{Metric, Params},
    predict::Centroids,
    rows::Rows,
};
use ndarray::ArrayView1;
use numpy::{IntoPyArray, PyReadonlyArray1};
use pyo3::prelude::*;

/// The optional sample weights, as every call takes them.
pub(super) type Weights<'py> = Option<PyReadonlyArray1<'py, f64>>;

/// Clusters `x` (a 2-d array or a `CsrMatrix`); see `smartigan.cluster`
/// for the documented front end.
#[pyfunction]
#[pyo3(signature = (x, params, sample_weight=None))]
pub(super) fn fit(
    py: Python<'_>,
    x: Matrix<'_>,
    params: PyRef<'_, PyParams>,
    sample_weight: Weights<'_>,
) -> PyResult<PyClustering> {
    x.with_rows(Fit(FitInputs::new(py, &params, &sample_weight)))
}

/// The rows greedy k-means++ chooses as centres; see
/// `smartigan.kmeans_plusplus`.
#[pyfunction]
#[pyo3(signature = (x, params, sample_weight=None))]
pub(super) fn kmeans_plusplus(
    py: Python<'_>,
    x: Matrix<'_>,
    params: PyRef<'_, PyParams>,
    sample_weight: Weights<'_>,
) -> PyResult<Py<PyAny>> {
    x.with_rows(KMeansPlusPlus(FitInputs::new(py, &params, &sample_weight)))
}

/// Nearest centroid of each row of `x` (dense or sparse, of the centroids'
/// float type) by `metric`.
#[pyfunction]
#[pyo3(signature = (x, centroids, metric="euclidean"))]
pub(super) fn predict(
    py: Python<'_>,
    x: Matrix<'_>,
    centroids: &Bound<'_, PyAny>,
    metric: &str,
) -> PyResult<Py<PyAny>> {
    x.with_rows(ToCentroids::new(
        py,
        centroids,
        metric.parse()?,
        Output::Nearest,
    ))
}

/// Distances by `metric` (Euclidean, or `1 - cos`) from each row of `x` to
/// each centroid.
#[pyfunction]
#[pyo3(signature = (x, centroids, metric="euclidean"))]
pub(super) fn transform(
    py: Python<'_>,
    x: Matrix<'_>,
    centroids: &Bound<'_, PyAny>,
    metric: &str,
) -> PyResult<Py<PyAny>> {
    x.with_rows(ToCentroids::new(
        py,
        centroids,
        metric.parse()?,
        Output::Distances,
    ))
}

/// What a fit reads besides the points.
pub(super) struct FitInputs<'a, 'py> {
    py: Python<'py>,
    params: &'a PyParams,
    weights: &'a Weights<'py>,
}

impl<'a, 'py> FitInputs<'a, 'py> {
    pub(super) fn new(py: Python<'py>, params: &'a PyParams, weights: &'a Weights<'py>) -> Self {
        FitInputs {
            py,
            params,
            weights,
        }
    }

    /// What the core's calls take: the Python token, the rows with their
    /// weights, and the parameters as a copy of their own.
    pub(super) fn parts<'r, T: Float>(
        &'r self,
        rows: Rows<'r, T>,
    ) -> (Python<'py>, Dataset<'r, T>, Params) {
        let weights: Option<ArrayView1<'r, f64>> = self.weights.as_ref().map(|w| w.as_array());
        let data = Dataset::new(rows).maybe_weights(weights);
        (self.py, data, self.params.core())
    }
}

struct Fit<'a, 'py>(FitInputs<'a, 'py>);

impl RowsJob for Fit<'_, '_> {
    type Output = PyClustering;

    fn run<T: Float>(self, rows: Rows<'_, T>) -> PyResult<PyClustering> {
        let (py, data, params) = self.0.parts(rows.reborrow());
        let c = interruptible(py, |cancel| {
            params
                .check()?
                .fit_with(data, Control::default().cancel(cancel))
        })?;
        Ok(PyClustering::new(py, c))
    }
}

struct KMeansPlusPlus<'a, 'py>(FitInputs<'a, 'py>);

impl RowsJob for KMeansPlusPlus<'_, '_> {
    type Output = Py<PyAny>;

    fn run<T: Float>(self, rows: Rows<'_, T>) -> PyResult<Py<PyAny>> {
        let (py, data, params) = self.0.parts(rows.reborrow());
        let chosen = interruptible(py, |cancel| {
            params
                .check()?
                .plus_plus_with(data, Control::default().cancel(cancel))
        })?;
        Ok(int64(py, chosen).into_any())
    }
}

/// Which answer about the centroids.
enum Output {
    /// The index of the nearest one (`predict`).
    Nearest,
    /// The distance to each (`transform`).
    Distances,
}

struct ToCentroids<'a, 'py> {
    py: Python<'py>,
    centroids: &'a Bound<'py, PyAny>,
    metric: Metric,
    output: Output,
}

impl<'a, 'py> ToCentroids<'a, 'py> {
    fn new(
        py: Python<'py>,
        centroids: &'a Bound<'py, PyAny>,
        metric: Metric,
        output: Output,
    ) -> Self {
        ToCentroids {
            py,
            centroids,
            metric,
            output,
        }
    }
}

impl RowsJob for ToCentroids<'_, '_> {
    type Output = Py<PyAny>;

    fn run<T: Float>(self, rows: Rows<'_, T>) -> PyResult<Py<PyAny>> {
        let py = self.py;
        let centroids = same_float::<T>("centroids", self.centroids)?;
        let c = centroids.as_array();
        Ok(match self.output {
            Output::Nearest => {
                let fixed = Centroids::new(c, self.metric);
                let labels = interruptible(py, |cancel| {
                    fixed.predict_with(rows, Control::default().cancel(cancel))
                })?;
                int64(py, labels).into_any()
            }
            Output::Distances => {
                let fixed = Centroids::new(c, self.metric);
                let d = interruptible(py, |cancel| {
                    fixed.transform_with(rows, Control::default().cancel(cancel))
                })?;
                d.into_pyarray(py).into_any().unbind()
            }
        })
    }
}
