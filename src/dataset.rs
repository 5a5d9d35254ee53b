//! The input of every operation: rows, dense or sparse, of `f32` or `f64`,
//! with optional sample weights ([`Dataset`]); and the one place where
//! dense, sparse and unit (cosine) rows part ways on their way to the
//! engine ([`Dataset::checked`]).

use crate::data::{check_finite, checked_weights, Data, Scalar};
use crate::dense::Dense;
use crate::engine::source::Source;
use crate::error::Result;
use crate::params::Metric;
use crate::params::ValidParams;
use crate::rows::Rows;
use crate::sparse::{checked_sparse, CsrView, SparseData};
use crate::spherical::{checked_spherical, Spherical, SphericalInput, UnitDense, UnitSparse};
use ndarray::{Array2, ArrayView1, ArrayView2};
use std::sync::atomic::AtomicBool;

/// Rows and, optionally, a non-negative weight per row: what a fit, a path
/// over `k` or a step-wise run is given.
///
/// With weights the objective becomes `Σ w_i‖x_i − μ‖²`, centroids are
/// weighted means, Hartigan's transfer test uses cluster weights
/// (`w·W_j/(W_j+w)·‖x−μ_j‖²` against `w·W_r/(W_r−w)·‖x−μ_r‖²`) and
/// k-means++ samples by `w·D²`. An integer weight acts like repeating the
/// row. Zero weights are allowed; at least `k` weights must be positive.
///
/// Anything that converts into [`Rows`] converts into an unweighted
/// `Dataset`, so operations take `&x`, `x.view()` or a [`CsrView`] as they
/// are.
///
/// ```
/// use ndarray::array;
/// use smartigan::{Dataset, Method, Params};
/// let x = array![[0.0f64], [1.0], [10.0]];
/// let w = array![3.0, 1.0, 1.0];
/// let p = Params::new(2).method(Method::Hartigan).seed(0).check().unwrap();
/// let c = p.fit(Dataset::new(&x).weights(w.view())).unwrap();
/// assert!((c.centroids[[c.labels[0], 0]] - 0.25).abs() < 1e-12);
/// assert!((c.objective - 0.75).abs() < 1e-12);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Dataset<'a, T> {
    rows: Rows<'a, T>,
    weights: Option<ArrayView1<'a, f64>>,
}

impl<'a, T: Scalar> Dataset<'a, T> {
    /// The rows, unweighted.
    pub fn new(rows: impl Into<Rows<'a, T>>) -> Self {
        Dataset {
            rows: rows.into(),
            weights: None,
        }
    }

    /// The same rows with a weight per row (`sample_weight`).
    pub fn weights(self, sample_weight: ArrayView1<'a, f64>) -> Self {
        Dataset {
            weights: Some(sample_weight),
            ..self
        }
    }

    /// The same rows, weighted by `sample_weight` if it is given.
    pub fn maybe_weights(self, sample_weight: Option<ArrayView1<'a, f64>>) -> Self {
        Dataset {
            weights: sample_weight,
            ..self
        }
    }

    /// The rows.
    pub fn rows(&self) -> Rows<'a, T> {
        self.rows
    }

    /// The weights, if any.
    pub fn sample_weight(&self) -> Option<ArrayView1<'a, f64>> {
        self.weights
    }

    /// `(n_rows, n_cols)`.
    pub fn shape(&self) -> (usize, usize) {
        self.rows.shape()
    }

    /// Checks the rows and weights for `params` and for clusterings of up
    /// to `k_most` clusters (shape, finite entries, range, positive
    /// weights) and builds their representation: the one place where
    /// dense, sparse and unit (cosine) rows part ways on their way to the
    /// engine. Returned with the power of two the weights were scaled by
    /// ([`crate::clustering::Clustering`]'s objectives are rescaled by it).
    pub(crate) fn checked<'s>(
        self,
        params: &ValidParams,
        k_most: usize,
        setup: Setup<'s>,
    ) -> Result<(Checked<'s, T>, i32)>
    where
        'a: 's,
    {
        if params.metric() == Metric::Cosine {
            let (input, exponent) = checked_spherical(self.rows, self.weights, params, k_most)?;
            let checked = match input {
                SphericalInput::Dense(rows) => Checked::UnitDense(rows),
                SphericalInput::Sparse(rows) => Checked::UnitSparse(rows),
            };
            return Ok((checked, exponent));
        }
        match self.rows {
            Rows::Dense(x) => {
                let (n, d) = x.dim();
                params.check_data(n, d)?;
                check_finite("x", x)?;
                let weights = checked_weights(self.weights, n, k_most)?;
                let mut data = Data::new(x, weights);
                data.check_range()?;
                let exponent = data.scale_weights()?;
                let mut dense = Dense::new(data, params, setup.accelerated);
                if setup.one_at_a_time {
                    dense.engine.spare_threads = params.n_threads() > 1;
                }
                Ok((Checked::Dense(dense), exponent))
            }
            Rows::Sparse(x) => {
                let (data, exponent) =
                    checked_sparse(x, self.weights, params, k_most, setup.cancel)?;
                Ok((Checked::Sparse(data), exponent))
            }
        }
    }

    /// [`Dataset::checked`], its representation handed to `job` with the
    /// power of two the weights were scaled by.
    pub(crate) fn with_source<J: SourceJob<T>>(
        self,
        params: &ValidParams,
        k_most: usize,
        setup: Setup<'_>,
        job: J,
    ) -> Result<J::Output> {
        let (checked, exponent) = self.checked(params, k_most, setup)?;
        match checked {
            Checked::Dense(rows) => job.run(rows, exponent),
            Checked::Sparse(rows) => job.run(rows, exponent),
            Checked::UnitDense(rows) => job.run(rows, exponent),
            Checked::UnitSparse(rows) => job.run(rows, exponent),
        }
    }
}

/// Checked rows as the engine reads them, one variant per kind of input
/// and objective ([`Dataset::checked`]).
pub(crate) enum Checked<'a, T: Scalar> {
    Dense(Dense<'a, T>),
    Sparse(SparseData<'a, T>),
    UnitDense(Spherical<'a, UnitDense, T>),
    UnitSparse(Spherical<'a, UnitSparse<'a>, T>),
}

impl<'a, T: Scalar> From<Rows<'a, T>> for Dataset<'a, T> {
    fn from(rows: Rows<'a, T>) -> Self {
        Dataset::new(rows)
    }
}

impl<'a, T: Scalar> From<ArrayView2<'a, T>> for Dataset<'a, T> {
    fn from(x: ArrayView2<'a, T>) -> Self {
        Dataset::new(x)
    }
}

impl<'a, T: Scalar> From<&'a Array2<T>> for Dataset<'a, T> {
    fn from(x: &'a Array2<T>) -> Self {
        Dataset::new(x)
    }
}

impl<'a, T: Scalar> From<CsrView<'a, T>> for Dataset<'a, T> {
    fn from(x: CsrView<'a, T>) -> Self {
        Dataset::new(x)
    }
}

/// How [`Dataset::with_source`] builds the representation.
#[derive(Clone, Copy)]
pub(crate) struct Setup<'a> {
    /// The accelerated kernels (the equivalence tests turn them off).
    pub accelerated: bool,
    /// The work is mostly one restart at a time (a path's descents): dense
    /// steps may then use every thread inside a step.
    pub one_at_a_time: bool,
    /// The cancellation flag that sparse rows poll inside their passes.
    pub cancel: &'a AtomicBool,
}

impl<'a> Setup<'a> {
    /// A fit's setup: accelerated, restarts side by side.
    pub fn fit(cancel: &'a AtomicBool) -> Self {
        Setup {
            accelerated: true,
            one_at_a_time: false,
            cancel,
        }
    }
}

/// Work on a checked representation of either kind: [`SourceJob::run`] is
/// instantiated for dense and for sparse rows.
pub(crate) trait SourceJob<T: Scalar> {
    type Output;
    /// The work on `source`, whose weights were scaled by `2^exponent`.
    fn run<S: Source<Out = T>>(self, source: S, exponent: i32) -> Result<Self::Output>;
}
