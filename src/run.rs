//! A fit advanced one step at a time ([`Run`]), on dense or sparse rows.

use crate::clustering::Clustering;
use crate::control::Control;
use crate::data::{check_finite, checked_weights, Data, Scalar};
use crate::dataset::{Dataset, Rows};
use crate::dense::{Dense, DenseState};
use crate::error::{Error, Result};
use crate::multistart::{build_pool, joint_starts};
use crate::params::ValidParams;
use crate::restart::Restart;
use crate::source::Source;
use crate::sparse::{checked_sparse, SparseData, SparseState};
use rayon::prelude::*;
use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, Ordering};

/// A fit advanced one sweep at a time: the state machine behind Python's
/// `Clusterer.start/step/finish`, started by
/// [`ValidParams::run`](crate::ValidParams::run). It owns no copy of the
/// rows: every call passes the same rows again (their shape and kind are
/// checked). A run stepped to its end equals
/// [`ValidParams::fit`](crate::ValidParams::fit) with the same parameters,
/// bit for bit, on dense and sparse rows alike.
///
/// ```
/// use ndarray::array;
/// use smartigan::Params;
/// let x = array![[0.0f64], [0.2], [0.9], [4.0], [4.4], [5.0]];
/// let p = Params::new(2).seed(3).n_init(2).check().unwrap();
/// let mut run = p.run(&x).unwrap();
/// while run.step(&x).unwrap() {
///     let now = run.current(&x).unwrap();
///     assert!(now.objective >= 0.0);
/// }
/// assert_eq!(run.current(&x).unwrap(), p.fit(&x).unwrap());
/// ```
#[derive(Debug)]
pub struct Run {
    params: ValidParams,
    input: StepInput,
    restarts: Restarts,
    pool: rayon::ThreadPool,
}

/// Every restart's state, of the kind of the rows the run started on.
#[derive(Debug)]
enum Restarts {
    Dense(Vec<Restart<DenseState>>),
    Sparse(Vec<Restart<SparseState>>),
}

/// What a run keeps of its rows between calls: each call passes them
/// again, and gets the weights (and, dense, the shift) of the first.
#[derive(Debug)]
struct StepInput {
    shape: (usize, usize),
    /// The sample weights as used: scaled by `2^weight_exponent`.
    weights: Option<Vec<f64>>,
    weight_exponent: i32,
    /// Dense rows: the shift, and the largest shifted entry (which sizes
    /// the screens' scale).
    dense: Option<(Vec<f64>, f64)>,
}

impl Run {
    /// Validates `data` for `params`, then draws every restart's start.
    pub(crate) fn start<T: Scalar>(
        params: &ValidParams,
        data: Dataset<'_, T>,
        cancel: &AtomicBool,
    ) -> Result<Self> {
        let params = params.clone();
        let pool = build_pool(params.n_threads())?;
        let shape = data.shape();
        let (restarts, weights, weight_exponent, dense) = match data.rows() {
            Rows::Dense(x) => {
                let (n, d) = x.dim();
                params.check_data(n, d)?;
                check_finite("x", x)?;
                let w = checked_weights(data.sample_weight(), n, params.k())?;
                let mut rows = Data::new(x, w);
                rows.check_range()?;
                let exponent = rows.scale_weights()?;
                let weights = rows.weights().map(<[f64]>::to_vec);
                let kept = (rows.shift.clone(), rows.max_abs_shifted());
                let source = Dense::new(rows, &params, true);
                let restarts = pool.install(|| starts(&source, &params, cancel))?;
                (Restarts::Dense(restarts), weights, exponent, Some(kept))
            }
            Rows::Sparse(x) => {
                let k = params.k();
                let (source, exponent) =
                    checked_sparse(x, data.sample_weight(), &params, k, cancel)?;
                let weights = source.weights().map(<[f64]>::to_vec);
                let restarts = pool.install(|| starts(&source, &params, cancel))?;
                (Restarts::Sparse(restarts), weights, exponent, None)
            }
        };
        Ok(Run {
            input: StepInput {
                shape,
                weights,
                weight_exponent,
                dense,
            },
            params,
            restarts,
            pool,
        })
    }

    /// Advances every unfinished restart by one sweep (in parallel). Returns
    /// whether any restart is still running.
    pub fn step<'a, T: Scalar>(&mut self, rows: impl Into<Rows<'a, T>>) -> Result<bool> {
        let never = Control::default();
        let (params, pool) = (&self.params, &self.pool);
        let rows = rows.into();
        let current = self
            .input
            .rows(rows.reborrow(), params, never.cancel_flag())?;
        match (&mut self.restarts, current) {
            (Restarts::Dense(restarts), Representation::Dense(source)) => pool.install(|| {
                restarts
                    .par_iter_mut()
                    .for_each(|r| r.step(&source, params))
            }),
            (Restarts::Sparse(restarts), Representation::Sparse(source)) => pool.install(|| {
                restarts
                    .par_iter_mut()
                    .for_each(|r| r.step(&source, params))
            }),
            _ => return Err(self.input.kind_error()),
        }
        Ok(!self.is_finished())
    }

    /// Whether every restart has finished.
    pub fn is_finished(&self) -> bool {
        match &self.restarts {
            Restarts::Dense(r) => r.iter().all(Restart::is_done),
            Restarts::Sparse(r) => r.iter().all(Restart::is_done),
        }
    }

    /// The parameters, with the seed and thread count resolved.
    pub fn params(&self) -> &ValidParams {
        &self.params
    }

    /// The best restart so far as a [`Clustering`]. Once the run is finished
    /// this is the final result; before, restarts are ranked by their current
    /// objective and `restart_objectives` holds current objectives.
    pub fn current<'a, T: Scalar>(&self, rows: impl Into<Rows<'a, T>>) -> Result<Clustering<T>> {
        let never = Control::default();
        let rows = rows.into();
        let current = self
            .input
            .rows(rows.reborrow(), &self.params, never.cancel_flag())?;
        let mut result = match (&self.restarts, current) {
            (Restarts::Dense(restarts), Representation::Dense(source)) => {
                self.best_so_far(&source, restarts)
            }
            (Restarts::Sparse(restarts), Representation::Sparse(source)) => {
                self.best_so_far(&source, restarts)
            }
            _ => return Err(self.input.kind_error()),
        };
        result.rescale_to_caller_units(self.input.weight_exponent)?;
        Ok(result)
    }

    fn best_so_far<S: Source>(
        &self,
        source: &S,
        restarts: &[Restart<S::State>],
    ) -> Clustering<S::Out> {
        let objectives: Vec<f64> = if self.is_finished() {
            restarts
                .iter()
                .map(|r| source.finalize(&r.part).1)
                .collect()
        } else {
            restarts.iter().map(Restart::current_objective).collect()
        };
        let best = (0..objectives.len())
            .reduce(|a, b| if objectives[b] < objectives[a] { b } else { a })
            .unwrap_or(0);
        restarts[best].clustering(source, objectives, best, self.params.seed())
    }
}

/// Every restart of `params` on `source`, started (in parallel).
fn starts<S: Source>(
    source: &S,
    params: &ValidParams,
    cancel: &AtomicBool,
) -> Result<Vec<Restart<S::State>>> {
    joint_starts(
        source,
        params,
        params.n_init(source.n(), source.d()),
        cancel,
    )?
    .into_par_iter()
    .enumerate()
    .map(|(i, start)| {
        if cancel.load(Ordering::Relaxed) {
            return Err(Error::Interrupted);
        }
        Restart::new(source, params, i, start, cancel)
    })
    .collect()
}

/// The rows of one call, as the representation the run started with.
enum Representation<'a, T: Scalar> {
    Dense(Dense<'a, T>),
    Sparse(SparseData<'a, T>),
}

impl StepInput {
    /// `rows` as the run's representation, checking that they have the
    /// run's shape (their kind is checked against the restarts' by the
    /// caller).
    fn rows<'a, T: Scalar>(
        &'a self,
        rows: Rows<'a, T>,
        params: &ValidParams,
        cancel: &'a AtomicBool,
    ) -> Result<Representation<'a, T>> {
        if rows.shape() != self.shape {
            return Err(Error::Shape {
                name: "x",
                expected: format!("{:?}, the shape the run was started with", self.shape),
                got: format!("{:?}", rows.shape()),
            });
        }
        let weights = self.weights.as_deref().map(Cow::Borrowed);
        Ok(match (rows, &self.dense) {
            (Rows::Dense(x), Some((shift, max_abs))) => {
                let data = Data::with_shift_and_max(x, weights, shift.clone(), *max_abs);
                Representation::Dense(Dense::new(data, params, true))
            }
            (Rows::Sparse(x), None) => Representation::Sparse(SparseData::new(x, weights, cancel)),
            _ => return Err(self.kind_error()),
        })
    }

    fn kind_error(&self) -> Error {
        let (started, other) = match self.dense {
            Some(_) => ("dense", "sparse"),
            None => ("sparse", "dense"),
        };
        Error::invalid(
            "x",
            format!("{other} rows"),
            format!("the run was started on {started} rows; pass the same rows at every step"),
        )
    }
}
