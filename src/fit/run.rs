//! A fit advanced one step at a time ([`Run`]), on dense or sparse rows, by
//! either objective.

use crate::clustering::Clustering;
use crate::control::Control;
use crate::data::{Data, Scalar};
use crate::dataset::{Checked, Dataset, Setup};
use crate::dense::{Dense, DenseState};
use crate::engine::source::Source;
use crate::error::{Error, Result};
use crate::fit::multistart::{build_pool, start_batch};
use crate::fit::sample::seeded;
use crate::fit::search::{Search, Seeded, Started};
use crate::params::ValidParams;
use crate::rows::Rows;
use crate::sparse::{SparseData, SparseState};
use crate::spherical::{checked_spherical, SphericalInput, SphericalState};
use ndarray::ArrayView1;
use rayon::prelude::*;
use std::borrow::Cow;
use std::sync::atomic::AtomicBool;

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
    runs: Runs,
    pool: rayon::ThreadPool,
}

/// The search and its running batch, of the kind of the rows the run
/// started on.
#[derive(Debug)]
enum Runs {
    Dense(Stepwise<DenseState>),
    Sparse(Stepwise<SparseState>),
    /// `metric = Cosine`, on dense or sparse unit rows.
    Spherical(Stepwise<SphericalState>),
}

/// A search ([`crate::fit::search`]) advanced one step at a time: the restarts
/// of its current batch, each with the passes its start cost.
#[derive(Debug)]
struct Stepwise<St> {
    search: Search<St>,
    batch: Vec<Started<St>>,
}

impl<St: Clone + std::fmt::Debug + Send + Sync> Stepwise<St> {
    /// The search of `params` on `source` (with the candidate `seeded`), its
    /// first batch started.
    fn start<S: Source<State = St>>(
        source: &S,
        params: &ValidParams,
        seeded: Option<Seeded>,
        cancel: &AtomicBool,
    ) -> Result<Self> {
        let mut search = Search::new(params, source.n(), source.d(), seeded);
        let batch = match search.next_batch() {
            Some(batch) => start_batch(source, params, batch, cancel)?,
            None => Vec::new(),
        };
        Ok(Stepwise { search, batch })
    }

    /// One step of every unfinished restart of the batch; a batch whose
    /// restarts have all ended goes to the search, and the next one starts.
    fn step<S: Source<State = St>>(
        &mut self,
        source: &S,
        params: &ValidParams,
        cancel: &AtomicBool,
    ) -> Result<()> {
        self.batch
            .par_iter_mut()
            .for_each(|s| s.restart.step(source, params));
        if self.batch.iter().all(|s| s.restart.is_done()) {
            let done = self
                .batch
                .drain(..)
                .map(|s| {
                    let objective = source.finalize(&s.restart.part).1;
                    s.finished(objective, (source.n(), source.d(), params.k()))
                })
                .collect();
            self.search.accept(done);
            if let Some(batch) = self.search.next_batch() {
                self.batch = start_batch(source, params, batch, cancel)?;
            }
        }
        Ok(())
    }

    fn is_finished(&self) -> bool {
        self.batch.is_empty() && self.search.is_done()
    }

    /// The best candidate so far: among the finished ones and the running
    /// batch (at its current objective), every candidate's objective.
    fn best_so_far<S: Source<State = St>>(&self, source: &S, seed: u64) -> Clustering<S::Out> {
        let mut objectives = self.search.objectives().to_vec();
        for r in self.batch.iter().map(|s| &s.restart) {
            if objectives.len() <= r.index() {
                objectives.resize(r.index() + 1, f64::INFINITY);
            }
            objectives[r.index()] = r.current_objective();
        }
        let best = (0..objectives.len())
            .reduce(|a, b| if objectives[b] < objectives[a] { b } else { a })
            .unwrap_or(0);
        let running = self
            .batch
            .iter()
            .map(|s| &s.restart)
            .find(|r| r.index() == best);
        match running.or_else(|| self.search.best().map(|(r, _, _)| r)) {
            Some(restart) => restart.clustering(source, objectives, best, seed),
            None => unreachable_without_candidates(),
        }
    }
}

/// A run always has a candidate: its first batch holds one restart at
/// least, and a finished batch leaves its best among the members.
#[allow(clippy::panic)]
fn unreachable_without_candidates() -> ! {
    panic!("a step-wise run without candidates")
}

impl Run {
    /// Validates `data` for `params`, then starts the search's first batch.
    pub(crate) fn start<T: Scalar>(
        params: &ValidParams,
        data: Dataset<'_, T>,
        cancel: &AtomicBool,
    ) -> Result<Self> {
        let params = params.clone();
        let pool = build_pool(params.n_threads())?;
        let shape = data.shape();
        let (checked, weight_exponent) = data.checked(&params, params.k(), Setup::fit(cancel))?;
        // The candidate descended on a sample, as a fit draws it (the rows
        // are checked by now).
        let seeded = seeded(&params, data, &pool, cancel)?;
        // Each step rebuilds the representation from what the start kept:
        // the weights as the fit uses them (scaled: their scale then stays
        // put), and for dense rows the shift and the screens' scale.
        let (runs, weights, kept) = match checked {
            Checked::Dense(source) => {
                let kept = Kept::Dense {
                    shift: source.rows.shift.clone(),
                    max_abs: source.rows.max_abs_shifted(),
                };
                let weights = source.rows.weights().map(<[f64]>::to_vec);
                let run = pool.install(|| Stepwise::start(&source, &params, seeded, cancel))?;
                (Runs::Dense(run), weights, kept)
            }
            Checked::Sparse(source) => {
                let weights = source.weights().map(<[f64]>::to_vec);
                let run = pool.install(|| Stepwise::start(&source, &params, seeded, cancel))?;
                (Runs::Sparse(run), weights, Kept::Sparse)
            }
            Checked::UnitDense(source) => {
                let weights = source.weights().map(<[f64]>::to_vec);
                let run = pool.install(|| Stepwise::start(&source, &params, seeded, cancel))?;
                (Runs::Spherical(run), weights, Kept::UnitDense)
            }
            Checked::UnitSparse(source) => {
                let weights = source.weights().map(<[f64]>::to_vec);
                let run = pool.install(|| Stepwise::start(&source, &params, seeded, cancel))?;
                (Runs::Spherical(run), weights, Kept::UnitSparse)
            }
        };
        Ok(Run {
            input: StepInput {
                shape,
                weights,
                weight_exponent,
                kept,
            },
            params,
            runs,
            pool,
        })
    }

    /// Advances every unfinished restart of the current batch by one sweep
    /// (in parallel); a batch that has ended is taken into the search and
    /// the next one is started. Returns whether the run goes on.
    pub fn step<'a, T: Scalar>(&mut self, rows: impl Into<Rows<'a, T>>) -> Result<bool> {
        let never = Control::default();
        let cancel = never.cancel_flag();
        let (params, pool) = (&self.params, &self.pool);
        let rows = rows.into();
        let current = self.input.rows(rows.reborrow(), params, cancel)?;
        match (&mut self.runs, current) {
            (Runs::Dense(run), Checked::Dense(source)) => {
                pool.install(|| run.step(&source, params, cancel))?
            }
            (Runs::Sparse(run), Checked::Sparse(source)) => {
                pool.install(|| run.step(&source, params, cancel))?
            }
            (Runs::Spherical(run), Checked::UnitDense(source)) => {
                pool.install(|| run.step(&source, params, cancel))?
            }
            (Runs::Spherical(run), Checked::UnitSparse(source)) => {
                pool.install(|| run.step(&source, params, cancel))?
            }
            _ => return Err(self.input.kind_error()),
        }
        Ok(!self.is_finished())
    }

    /// Whether the search has ended.
    pub fn is_finished(&self) -> bool {
        match &self.runs {
            Runs::Dense(r) => r.is_finished(),
            Runs::Sparse(r) => r.is_finished(),
            Runs::Spherical(r) => r.is_finished(),
        }
    }

    /// The parameters, with the seed and thread count resolved.
    pub fn params(&self) -> &ValidParams {
        &self.params
    }

    /// The best candidate so far as a [`Clustering`]. Once the run is
    /// finished this is the final result; before, candidates still running
    /// are ranked by their current objective, which `restart_objectives`
    /// then holds for them.
    pub fn current<'a, T: Scalar>(&self, rows: impl Into<Rows<'a, T>>) -> Result<Clustering<T>> {
        let never = Control::default();
        let rows = rows.into();
        let current = self
            .input
            .rows(rows.reborrow(), &self.params, never.cancel_flag())?;
        let seed = self.params.seed();
        let mut result = match (&self.runs, current) {
            (Runs::Dense(run), Checked::Dense(source)) => run.best_so_far(&source, seed),
            (Runs::Sparse(run), Checked::Sparse(source)) => run.best_so_far(&source, seed),
            (Runs::Spherical(run), Checked::UnitDense(source)) => run.best_so_far(&source, seed),
            (Runs::Spherical(run), Checked::UnitSparse(source)) => run.best_so_far(&source, seed),
            _ => return Err(self.input.kind_error()),
        };
        result.rescale_to_caller_units(self.input.weight_exponent)?;
        Ok(result)
    }
}

/// What a run keeps of its rows between calls: each call passes them
/// again, and gets the weights (and, dense, the shift) of the first.
#[derive(Debug)]
struct StepInput {
    shape: (usize, usize),
    /// The sample weights as used: scaled by `2^weight_exponent`.
    weights: Option<Vec<f64>>,
    weight_exponent: i32,
    kept: Kept,
}

/// The kind of rows a run started on, and what it keeps of them.
#[derive(Debug)]
enum Kept {
    /// Dense rows: the shift, and the largest shifted entry (which sizes
    /// the screens' scale).
    Dense {
        shift: Vec<f64>,
        max_abs: f64,
    },
    Sparse,
    /// Dense rows with `metric = Cosine`, scaled to unit length again at
    /// every call.
    UnitDense,
    /// Sparse rows with `metric = Cosine`.
    UnitSparse,
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
    ) -> Result<Checked<'a, T>> {
        if rows.shape() != self.shape {
            return Err(Error::Shape {
                name: "x",
                expected: format!("{:?}, the shape the run was started with", self.shape),
                got: format!("{:?}", rows.shape()),
            });
        }
        let weights = self.weights.as_deref().map(Cow::Borrowed);
        Ok(match (rows, &self.kept) {
            (Rows::Dense(x), Kept::Dense { shift, max_abs }) => {
                let data = Data::with_shift_and_max(x, weights, shift.clone(), *max_abs);
                Checked::Dense(Dense::new(data, params, true))
            }
            (Rows::Sparse(x), Kept::Sparse) => Checked::Sparse(SparseData::new(x, weights, cancel)),
            (rows @ Rows::Dense(_), Kept::UnitDense)
            | (rows @ Rows::Sparse(_), Kept::UnitSparse) => {
                let weights = self.weights.as_deref().map(ArrayView1::from);
                // Weights already scaled by the start: their exponent is 0.
                match checked_spherical(rows, weights, params, params.k())?.0 {
                    SphericalInput::Dense(u) => Checked::UnitDense(u),
                    SphericalInput::Sparse(u) => Checked::UnitSparse(u),
                }
            }
            _ => return Err(self.kind_error()),
        })
    }

    fn kind_error(&self) -> Error {
        let (started, other) = match self.kept {
            Kept::Dense { .. } | Kept::UnitDense => ("dense", "sparse"),
            Kept::Sparse | Kept::UnitSparse => ("sparse", "dense"),
        };
        Error::invalid(
            "x",
            format!("{other} rows"),
            format!("the run was started on {started} rows; pass the same rows at every step"),
        )
    }
}
