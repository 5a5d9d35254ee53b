//! The public entry points: [`fit`] and its variants, the k-means++ start on
//! its own, and [`Run`], a fit advanced one step at a time.

use crate::clustering::Clustering;
use crate::data::{check_finite, checked_weights, Data, Scalar};
use crate::dense::{Dense, DenseState};
use crate::error::{Error, Result};
use crate::multistart::{build_pool, fit_source, joint_starts};
use crate::params::{Params, ValidParams};
use crate::restart::{init_stream, Restart};
use crate::source::Source;
use ndarray::{Array1, ArrayView1, ArrayView2};
use rayon::prelude::*;
use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, Ordering};

/// The validated parameters and data, and the exponent `e` by which the
/// sample weights were scaled ([`Data::scale_weights`]; 0 for all but
/// extreme weights): objectives computed from the data are `2^e` times the
/// caller's.
fn checked<'a, T: Scalar>(
    x: ArrayView2<'a, T>,
    sample_weight: Option<ArrayView1<'a, f64>>,
    params: Params,
) -> Result<(ValidParams, Data<'a, T>, i32)> {
    let params = params.check()?;
    let (data, exponent) = checked_data(x, sample_weight, &params, params.k())?;
    Ok((params, data, exponent))
}

/// `x` and its weights checked for `params` (shape, finite entries, range)
/// and for clusterings of up to `k_most` clusters (positive weights), with
/// the power of two the weights were scaled by
/// ([`Clustering::rescale_to_caller_units`] undoes it).
pub(crate) fn checked_data<'a, T: Scalar>(
    x: ArrayView2<'a, T>,
    sample_weight: Option<ArrayView1<'a, f64>>,
    params: &ValidParams,
    k_most: usize,
) -> Result<(Data<'a, T>, i32)> {
    let (n, d) = x.dim();
    params.check_data(n, d)?;
    check_finite("x", x)?;
    let weights = checked_weights(sample_weight, n, k_most)?;
    let mut data = Data::new(x, weights);
    data.check_range()?;
    let exponent = data.scale_weights()?;
    Ok((data, exponent))
}

/// Clusters the rows of `x` with every restart run in parallel on a per-call
/// thread pool. Same seed and input give bit-identical results for any
/// number of threads.
///
/// ```
/// use ndarray::array;
/// use smartigan::{fit, Method, Params};
/// let x = array![[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 5.0]];
/// let c = fit(x.view(), Params::new(2).method(Method::Hartigan).seed(1)).unwrap();
/// assert_eq!(c.labels[0], c.labels[1]);
/// assert_ne!(c.labels[0], c.labels[2]);
/// assert!((c.objective - 0.01).abs() < 1e-12);
/// ```
pub fn fit<T: Scalar>(x: ArrayView2<'_, T>, params: Params) -> Result<Clustering<T>> {
    fit_cancellable(x, None, params, &AtomicBool::new(false))
}

/// [`fit`] with a non-negative weight per row: the objective becomes
/// `Σ w_i‖x_i − μ‖²`, centroids are weighted means, Hartigan's transfer test
/// uses cluster weights (`w·W_j/(W_j+w)·‖x−μ_j‖²` against
/// `w·W_r/(W_r−w)·‖x−μ_r‖²`) and k-means++ samples by `w·D²`. An integer
/// weight acts like repeating the row. Zero weights are allowed; at least `k`
/// weights must be positive.
///
/// ```
/// use ndarray::array;
/// use smartigan::{fit_weighted, Method, Params};
/// let x = array![[0.0f64], [1.0], [10.0]];
/// let w = array![3.0, 1.0, 1.0];
/// let c = fit_weighted(x.view(), w.view(), Params::new(2).method(Method::Hartigan).seed(0)).unwrap();
/// assert!((c.centroids[[c.labels[0], 0]] - 0.25).abs() < 1e-12);
/// assert!((c.objective - 0.75).abs() < 1e-12);
/// ```
pub fn fit_weighted<T: Scalar>(
    x: ArrayView2<'_, T>,
    sample_weight: ArrayView1<'_, f64>,
    params: Params,
) -> Result<Clustering<T>> {
    fit_cancellable(x, Some(sample_weight), params, &AtomicBool::new(false))
}

/// The greedy k-means++ start on its own (what scikit-learn's
/// `kmeans_plusplus` offers): the indices of the `k` rows chosen as centres,
/// in the order chosen. They are the centres that restart 0 of [`fit`] (or
/// [`fit_weighted`], with the same weights) starts from for the same `x` and
/// `params` when `init` is k-means++ (the default): passing those rows as
/// [`Init::Centroids`](crate::Init::Centroids) with `n_init(1)` reproduces
/// that restart. Only `k`, `seed` and `n_threads` of `params` are used; the
/// data and weights are checked as [`fit`] checks them.
///
/// ```
/// use ndarray::{array, Axis};
/// use smartigan::{fit, kmeans_plus_plus, Init, Params};
/// let x = array![[0.0f64, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 5.0]];
/// let rows = kmeans_plus_plus(x.view(), None, Params::new(2).seed(3)).unwrap();
/// assert_eq!(rows.len(), 2);
/// let from_rows = Params::new(2).seed(3).n_init(1).init(Init::Centroids(x.select(Axis(0), rows.as_slice().unwrap())));
/// let a = fit(x.view(), from_rows).unwrap();
/// let b = fit(x.view(), Params::new(2).seed(3).n_init(1)).unwrap();
/// assert_eq!(a.labels, b.labels);
/// ```
pub fn kmeans_plus_plus<T: Scalar>(
    x: ArrayView2<'_, T>,
    sample_weight: Option<ArrayView1<'_, f64>>,
    params: Params,
) -> Result<Array1<usize>> {
    kmeans_plus_plus_cancellable(x, sample_weight, params, &AtomicBool::new(false))
}

/// [`kmeans_plus_plus`] that stops with [`Error::Interrupted`] soon after
/// `cancel` is set (it is polled between centres and within each pass over
/// the data, every few thousand points); the same rows otherwise.
///
/// ```
/// use ndarray::array;
/// use smartigan::{kmeans_plus_plus_cancellable, Error, Params};
/// use std::sync::atomic::AtomicBool;
/// let x = array![[0.0f64], [0.1], [5.0], [5.1]];
/// let set = AtomicBool::new(true);
/// let e = kmeans_plus_plus_cancellable(x.view(), None, Params::new(2), &set).unwrap_err();
/// assert_eq!(e, Error::Interrupted);
/// ```
pub fn kmeans_plus_plus_cancellable<T: Scalar>(
    x: ArrayView2<'_, T>,
    sample_weight: Option<ArrayView1<'_, f64>>,
    params: Params,
    cancel: &AtomicBool,
) -> Result<Array1<usize>> {
    let (params, data, _) = checked(x, sample_weight, params)?;
    let pool = build_pool(params.n_threads())?;
    let mut rng = init_stream(&params, 0);
    let rows = pool
        .install(|| crate::plus_plus::kmeans_plus_plus_rows(&data, params.k(), &mut rng, cancel));
    if cancel.load(Ordering::Relaxed) {
        return Err(Error::Interrupted);
    }
    Ok(Array1::from(rows))
}

/// [`fit`] (or [`fit_weighted`]) that stops with [`Error::Interrupted`] soon
/// after `cancel` is set (each restart checks it between sweeps, and its
/// k-means++ start between centres and within each pass over the data).
pub fn fit_cancellable<T: Scalar>(
    x: ArrayView2<'_, T>,
    sample_weight: Option<ArrayView1<'_, f64>>,
    params: Params,
    cancel: &AtomicBool,
) -> Result<Clustering<T>> {
    fit_with(x, sample_weight, params, cancel, true)
}

/// [`fit_cancellable`] through the accelerated kernels or the plain
/// definitions (`accelerated`; the equivalence tests run both).
pub(crate) fn fit_with<T: Scalar>(
    x: ArrayView2<'_, T>,
    sample_weight: Option<ArrayView1<'_, f64>>,
    params: Params,
    cancel: &AtomicBool,
    accelerated: bool,
) -> Result<Clustering<T>> {
    let (params, data, exponent) = checked(x, sample_weight, params)?;
    let mut result = fit_source(&Dense::new(data, &params, accelerated), &params, cancel)?;
    result.rescale_to_caller_units(exponent)?;
    Ok(result)
}

/// A fit advanced one sweep at a time: the state machine behind Python's
/// `Clusterer.start/step/finish`. Every call must pass the same `x`; a run
/// stepped to its end equals [`fit`] with the same parameters, bit for bit.
///
/// ```
/// use ndarray::array;
/// use smartigan::{fit, Params, Run};
/// let x = array![[0.0f64], [0.2], [0.9], [4.0], [4.4], [5.0]];
/// let p = Params::new(2).seed(3).n_init(2);
/// let mut run = Run::new(x.view(), None, p.clone()).unwrap();
/// while run.step(x.view()).unwrap() {
///     let now = run.current(x.view()).unwrap();
///     assert!(now.objective >= 0.0);
/// }
/// assert_eq!(run.current(x.view()).unwrap(), fit(x.view(), p).unwrap());
/// ```
#[derive(Debug)]
pub struct Run {
    params: ValidParams,
    input: StepInput,
    restarts: Vec<Restart<DenseState>>,
    pool: rayon::ThreadPool,
}

impl Run {
    /// Validates, then draws every restart's initial partition. Sample
    /// weights, if given, are copied into the run.
    pub fn new<T: Scalar>(
        x: ArrayView2<'_, T>,
        sample_weight: Option<ArrayView1<'_, f64>>,
        params: Params,
    ) -> Result<Self> {
        Self::new_cancellable(x, sample_weight, params, &AtomicBool::new(false))
    }

    /// [`Run::new`] that stops with [`Error::Interrupted`] soon after
    /// `cancel` is set: every restart checks it before its initialisation
    /// (k-means++ of many restarts on large data can take a while).
    pub fn new_cancellable<T: Scalar>(
        x: ArrayView2<'_, T>,
        sample_weight: Option<ArrayView1<'_, f64>>,
        params: Params,
        cancel: &AtomicBool,
    ) -> Result<Self> {
        let (params, data, weight_exponent) = checked(x, sample_weight, params)?;
        let pool = build_pool(params.n_threads())?;
        let weights = data.weights().map(<[f64]>::to_vec);
        let data = Dense::new(data, &params, true);
        let restarts = pool.install(|| {
            joint_starts(
                &data,
                &params,
                params.n_init(data.rows.n, data.rows.d),
                cancel,
            )?
            .into_par_iter()
            .enumerate()
            .map(|(i, start)| {
                if cancel.load(Ordering::Relaxed) {
                    return Err(Error::Interrupted);
                }
                Restart::new(&data, &params, i, start, cancel)
            })
            .collect::<Result<Vec<_>>>()
        })?;
        Ok(Run {
            input: StepInput {
                shape: (data.rows.n, data.rows.d),
                weights,
                weight_exponent,
                max_abs: data.rows.max_abs_shifted(),
                shift: data.rows.shift,
            },
            params,
            restarts,
            pool,
        })
    }

    /// Advances every unfinished restart by one sweep (in parallel). Returns
    /// whether any restart is still running.
    pub fn step<T: Scalar>(&mut self, x: ArrayView2<'_, T>) -> Result<bool> {
        let data = self.input.dense(x, &self.params)?;
        let params = &self.params;
        self.pool.install(|| {
            self.restarts
                .par_iter_mut()
                .for_each(|r| r.step(&data, params))
        });
        Ok(!self.is_finished())
    }

    /// Whether every restart has finished.
    pub fn is_finished(&self) -> bool {
        self.restarts.iter().all(Restart::is_done)
    }

    /// The parameters, with the seed and thread count resolved.
    pub fn params(&self) -> &ValidParams {
        &self.params
    }

    /// The best restart so far as a [`Clustering`]. Once the run is finished
    /// this is the final result; before, restarts are ranked by their current
    /// objective and `restart_objectives` holds current objectives.
    pub fn current<T: Scalar>(&self, x: ArrayView2<'_, T>) -> Result<Clustering<T>> {
        let data = self.input.dense(x, &self.params)?;
        let objectives: Vec<f64> = if self.is_finished() {
            self.restarts
                .iter()
                .map(|r| data.finalize(&r.part).1)
                .collect()
        } else {
            self.restarts
                .iter()
                .map(Restart::current_objective)
                .collect()
        };
        let best = (0..objectives.len())
            .reduce(|a, b| if objectives[b] < objectives[a] { b } else { a })
            .unwrap_or(0);
        let mut result =
            self.restarts[best].clustering(&data, objectives, best, self.params.seed());
        result.rescale_to_caller_units(self.input.weight_exponent)?;
        Ok(result)
    }
}

/// What a step-wise run keeps of its data between calls: every call passes
/// `x` again, and gets the shift and weights of the first.
#[derive(Debug)]
struct StepInput {
    shape: (usize, usize),
    shift: Vec<f64>,
    /// The data's largest shifted entry (sizes the screens' scale).
    max_abs: f64,
    /// The sample weights as used: scaled by `2^weight_exponent`.
    weights: Option<Vec<f64>>,
    weight_exponent: i32,
}

impl StepInput {
    /// The run's data for this call, checking that `x` has the run's shape.
    fn dense<'a, T: Scalar>(
        &'a self,
        x: ArrayView2<'a, T>,
        params: &ValidParams,
    ) -> Result<Dense<'a, T>> {
        if x.dim() != self.shape {
            return Err(Error::Shape {
                name: "x",
                expected: format!("{:?}, the shape the run was started with", self.shape),
                got: format!("{:?}", x.dim()),
            });
        }
        let weights = self.weights.as_deref().map(Cow::Borrowed);
        let data = Data::with_shift_and_max(x, weights, self.shift.clone(), self.max_abs);
        Ok(Dense::new(data, params, true))
    }
}
