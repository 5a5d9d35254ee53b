//! Restarts as state machines, their parallel execution, and the result.

use crate::data::{check_finite, checked_weights, Data, Scalar};
use crate::error::{Error, Result};
use crate::init::Engine;
use crate::params::{defaults, Method, Params, ValidParams, MAX_POLISH_SWEEPS};
use crate::refine::SplitCache;
use crate::rng::{Stream, Xoshiro256PlusPlus};
use crate::source::Source;
use crate::state::Partition;
use crate::sweep::STALL_REL_MARGIN;
use ndarray::{Array1, Array2, ArrayView1, ArrayView2};
use rayon::prelude::*;
use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Steps a merge-split candidate may take to re-converge (the cap on Lloyd
/// iterations and Hartigan sweeps).
const MAX_TRIAL_STEPS: usize = defaults::MAX_ITER;
/// Refinement's step budget is the method's own step count, but at least
/// this: Lloyd converges in a handful of iterations on separated groups,
/// exactly where refinement pays most.
const MIN_REFINE_STEPS: usize = 50;

/// Where a restart is in its method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Lloyd iterations.
    Lloyd,
    /// Hartigan sweeps with factor 1.
    Hartigan,
    /// Smartigan's schedule; the field is the 0-based sweep `t`.
    Schedule(usize),
    /// Hartigan sweeps after the schedule; the field counts them.
    Polish(usize),
    /// Merge-split refinement after convergence (`refine.rs`).
    Refine,
    /// Finished.
    Done,
}

/// One restart: its clustering state, its private visiting-order stream,
/// and what it has done so far.
#[derive(Debug, Clone)]
pub(crate) struct Restart<St> {
    part: St,
    order_rng: Xoshiro256PlusPlus,
    order: Vec<usize>,
    phase: Phase,
    n_sweeps: usize,
    history: Vec<f64>,
    moves: Vec<usize>,
    initial_objective: f64,
    converged: bool,
    refinement: Refinement<St>,
    /// `tol` in the data's units ([`tolerance`]); 0 without a tolerance.
    tol_abs: f64,
}

/// Where a restart's merge-split refinement stands.
#[derive(Debug, Clone)]
struct Refinement<St> {
    /// The candidate being re-converged, if any.
    trial: Option<Trial<St>>,
    /// Candidates kept.
    accepted: usize,
    /// Steps refinement has taken.
    steps: usize,
    /// Splits of earlier proposals (speed only).
    cache: SplitCache,
}

/// A merge-split candidate being re-converged by the method's own steps.
#[derive(Debug, Clone)]
struct Trial<St> {
    state: St,
    /// Its objective after the last step.
    objective: f64,
    steps: usize,
}

impl<St> Restart<St> {
    /// Restart `index` of the run seeded by `params.seed()`. Its start and its
    /// visiting orders come from streams that depend only on (seed, index),
    /// not on the method: Hartigan and Smartigan runs with the same seed are
    /// paired restart by restart, as in the paper's protocol.
    /// `start`: the centroids [`Source::joint_starts`] computed for it;
    /// `tol_abs`: the run's [`tolerance`].
    fn new<S: Source<State = St>>(
        data: &S,
        params: &ValidParams,
        index: usize,
        start: Option<Vec<f64>>,
        tol_abs: f64,
    ) -> Self {
        let part = data.initial_state(params, &mut init_stream(params, index), start);
        let initial_objective = data.objective(&part);
        let phase = match params.method() {
            Method::Lloyd => Phase::Lloyd,
            Method::Hartigan => Phase::Hartigan,
            Method::Smartigan => Phase::Schedule(0),
        };
        Restart {
            part,
            order_rng: Xoshiro256PlusPlus::stream(params.seed(), index as u64, Stream::Order),
            order: (0..data.n()).collect(),
            phase,
            n_sweeps: 0,
            history: Vec::new(),
            moves: Vec::new(),
            initial_objective,
            converged: false,
            refinement: Refinement {
                trial: None,
                accepted: 0,
                steps: 0,
                cache: SplitCache::default(),
            },
            tol_abs,
        }
    }

    fn is_done(&self) -> bool {
        self.phase == Phase::Done
    }

    /// The objective of the current state.
    fn current_objective(&self) -> f64 {
        self.history
            .last()
            .copied()
            .unwrap_or(self.initial_objective)
    }

    /// A fresh uniformly random visiting order for the next sweep.
    fn draw_order(&mut self) {
        for (i, o) in self.order.iter_mut().enumerate() {
            *o = i;
        }
        self.order_rng.shuffle(&mut self.order);
    }

    fn hartigan_sweep<S: Source<State = St>>(&mut self, data: &S, factor: f64) -> usize {
        self.draw_order();
        data.sweep(&mut self.part, &self.order, factor)
    }

    /// The centroids of `state` before a descent step, when a tolerance
    /// is set (the step then compares them with the centroids after it).
    fn tol_snapshot<S: Source<State = St>>(&self, data: &S, state: &St) -> Option<Vec<f64>> {
        (self.tol_abs > 0.0).then(|| data.centroids(state))
    }

    /// Whether a step that moved `moved` points took `state`'s centroids
    /// from `before` by at most the tolerance (summed squared shifts, as
    /// scikit-learn's `tol`). Always false without a tolerance.
    fn within_tol<S: Source<State = St>>(
        &self,
        data: &S,
        before: Option<Vec<f64>>,
        state: &St,
        moved: usize,
    ) -> bool {
        moved > 0
            && before.is_some_and(|before| {
                let after = data.centroids(state);
                let shift: f64 = before
                    .iter()
                    .zip(&after)
                    .map(|(a, b)| (a - b) * (a - b))
                    .sum();
                shift <= self.tol_abs
            })
    }

    /// One transition: a Lloyd iteration or a (Smartigan) sweep.
    fn step<S: Source<State = St>>(&mut self, data: &S, params: &ValidParams) {
        let n_iter = params.n_iter();
        // The tolerance ends descents only: Smartigan's schedule sweeps run
        // as scheduled (their early sweeps move centroids on purpose).
        let before = match self.phase {
            Phase::Lloyd | Phase::Hartigan | Phase::Polish(_) => {
                self.tol_snapshot(data, &self.part)
            }
            _ => None,
        };
        let (moved, next) = match self.phase {
            Phase::Done => return,
            Phase::Refine => return self.refine_step(data, params),
            Phase::Lloyd => {
                let changed = data.lloyd_iteration(&mut self.part);
                let done = changed == 0 || self.n_sweeps + 1 == n_iter;
                (changed, if done { Phase::Done } else { Phase::Lloyd })
            }
            Phase::Hartigan => {
                let moved = self.hartigan_sweep(data, 1.0);
                let done = moved == 0 || self.n_sweeps + 1 == n_iter;
                (moved, if done { Phase::Done } else { Phase::Hartigan })
            }
            Phase::Schedule(t) => {
                let factor = params.acceptance_factor(t);
                let moved = self.hartigan_sweep(data, factor);
                // A sweep without moves at factor c ≥ 1 is already a Hartigan
                // local optimum: the factor only falls, so nothing moves later.
                let stable_for_hartigan = moved == 0 && factor >= 1.0;
                let schedule_over = moved == 0 || t + 1 == n_iter;
                let next = if stable_for_hartigan || (schedule_over && !params.polish()) {
                    Phase::Done
                } else if schedule_over {
                    Phase::Polish(0)
                } else {
                    Phase::Schedule(t + 1)
                };
                (moved, next)
            }
            Phase::Polish(s) => {
                let moved = self.hartigan_sweep(data, 1.0);
                let done = moved == 0 || s + 1 == MAX_POLISH_SWEEPS;
                (
                    moved,
                    if done {
                        Phase::Done
                    } else {
                        Phase::Polish(s + 1)
                    },
                )
            }
        };
        let previous = self.current_objective();
        let objective = data.objective(&self.part);
        // In exact arithmetic every Lloyd or Hartigan move lowers the
        // objective strictly. Moves that leave the (freshly recomputed)
        // objective no lower are rounding noise: between clusters of
        // identical points, centroids off by an ulp make distances of 1e-26
        // look like improvements, and the moves would cycle for ever. Such a
        // sweep ends the run as converged, unless some point still has a
        // move that beats rounding error: a noise move late in a sweep can
        // open a real improvement for a point visited earlier, which the
        // next sweep then takes.
        let exact_descent = matches!(
            self.phase,
            Phase::Lloyd | Phase::Hartigan | Phase::Polish(_)
        );
        let stalled = exact_descent
            && moved > 0
            && objective >= previous
            && !data.can_improve(&self.part, self.phase == Phase::Lloyd);
        let within_tol = self.within_tol(data, before, &self.part, moved);
        self.n_sweeps += 1;
        self.moves.push(moved);
        self.history.push(objective);
        self.converged = moved == 0 || stalled || within_tol;
        // Refinement follows a method that ended on its own terms (converged,
        // or Smartigan's schedule over without polish); a run stopped by the
        // `n_iter` cap stops there, as the cap asks.
        let ended_naturally = self.converged || matches!(self.phase, Phase::Schedule(_));
        self.phase = match (
            stalled || within_tol || next == Phase::Done,
            params.refine() && ended_naturally,
        ) {
            (false, _) => next,
            (true, true) => Phase::Refine,
            (true, false) => Phase::Done,
        };
    }

    /// One step of the refinement: draws the next merge-split candidate if
    /// none is being re-converged, then gives the candidate one Lloyd
    /// iteration or Hartigan sweep (by method). A candidate that has settled
    /// replaces the partition if its objective is lower by more than
    /// rounding error, else it is dropped. `history` records the objective of
    /// the kept partition after every step, so it never rises.
    fn refine_step<S: Source<State = St>>(&mut self, data: &S, params: &ValidParams) {
        let lloyd = params.method() == Method::Lloyd;
        // Budget: refinement takes at most as many steps as the method took
        // before it (or MIN_REFINE_STEPS), so on long runs it at most doubles
        // a restart's sweeps. Where it pays (separated groups) candidates
        // settle in a few sweeps; where groups overlap (W4: k = 1,000 in 8
        // dimensions) each candidate ripples for dozens of sweeps and gains
        // hundredths of a percent.
        let method_steps = self.n_sweeps - self.refinement.steps;
        if self.refinement.steps >= method_steps.max(MIN_REFINE_STEPS) {
            self.refinement.trial = None;
            self.phase = Phase::Done;
            return;
        }
        let mut trial = match self.refinement.trial.take() {
            Some(trial) => trial,
            None => {
                let Some(state) = data.merge_split(&self.part, &mut self.refinement.cache) else {
                    self.phase = Phase::Done;
                    return;
                };
                Trial {
                    objective: data.objective(&state),
                    state,
                    steps: 0,
                }
            }
        };
        self.refinement.steps += 1;
        let before = self.tol_snapshot(data, &trial.state);
        let moved = if lloyd {
            data.lloyd_iteration(&mut trial.state)
        } else {
            self.draw_order();
            data.sweep(&mut trial.state, &self.order, 1.0)
        };
        let objective = data.objective(&trial.state);
        // The same stopping rule as the method's own descent (see `step`).
        let stalled =
            moved > 0 && objective >= trial.objective && !data.can_improve(&trial.state, lloyd);
        let within_tol = self.within_tol(data, before, &trial.state, moved);
        trial.objective = objective;
        trial.steps += 1;
        let settled = moved == 0 || stalled || within_tol;
        let base = self.current_objective();
        let mut kept = base;
        if !settled && trial.steps < MAX_TRIAL_STEPS {
            self.refinement.trial = Some(trial);
        } else if trial.objective < base * (1.0 - STALL_REL_MARGIN) {
            kept = trial.objective;
            self.part = trial.state;
            self.converged = settled;
            self.refinement.accepted += 1;
        } else {
            // Candidates are tried best-predicted first; on the benchmark's
            // blobs and the paper's data sets every kept move came before
            // the first rejection, so the first one ends refinement.
            self.phase = Phase::Done;
        }
        self.n_sweeps += 1;
        self.moves.push(moved);
        self.history.push(kept);
    }

    /// Runs to the end, checking the cancellation flag between sweeps.
    fn run_to_end<S: Source<State = St>>(
        &mut self,
        data: &S,
        params: &ValidParams,
        cancel: &AtomicBool,
    ) -> Result<()> {
        while !self.is_done() {
            if cancel.load(Ordering::Relaxed) {
                return Err(Error::Interrupted);
            }
            self.step(data, params);
        }
        Ok(())
    }

    fn into_clustering<S: Source<State = St>>(
        self,
        data: &S,
        restart_objectives: Vec<f64>,
        best: usize,
        seed: u64,
    ) -> Clustering<S::Out> {
        let (centroids, objective, cluster_objectives) = data.finalize(&self.part);
        let labels = S::labels(&self.part);
        let mut cluster_sizes = vec![0; centroids.nrows()];
        for &l in labels {
            cluster_sizes[l] += 1;
        }
        Clustering {
            labels: Array1::from(labels.to_vec()),
            centroids,
            objective,
            cluster_sizes,
            cluster_objectives,
            n_sweeps: self.n_sweeps,
            converged: self.converged,
            history: self.history,
            moves: self.moves,
            initial_objective: self.initial_objective,
            refinements: self.refinement.accepted,
            restart_objectives,
            best_restart: best,
            seed,
        }
    }
}

/// The result of a fit: the best restart's clustering plus every restart's
/// objective.
///
/// ```
/// use ndarray::array;
/// use smartigan::{fit, Method, Params};
/// let x = array![[0.0], [0.5], [4.0], [4.5], [9.0]];
/// let r = fit(x.view(), Params::new(2).method(Method::Hartigan).n_init(4).seed(3)).unwrap();
/// assert_eq!(r.restart_objectives.len(), 4);
/// assert_eq!(r.objective, r.restart_objectives[r.best_restart]);
/// assert_eq!(r.history.len(), r.n_sweeps);
/// assert!(r.converged && *r.moves.last().unwrap() == 0);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Clustering<T> {
    /// Cluster of each point, in `0..k`; no cluster is empty.
    pub labels: Array1<usize>,
    /// `k × d` centroids (the means of their clusters), in the input type.
    pub centroids: Array2<T>,
    /// Sum of squared distances of the points to their centroids, recomputed
    /// in `f64` from `labels` and `centroids` as returned.
    pub objective: f64,
    /// Points in each cluster (R's `size`); all positive.
    pub cluster_sizes: Vec<usize>,
    /// The objective's share of each cluster, from the same distances (R's
    /// `withinss`); they add up to `objective` up to rounding (it is summed
    /// in point order).
    pub cluster_objectives: Vec<f64>,
    /// Lloyd iterations or sweeps done by the best restart (Smartigan: the
    /// schedule's sweeps plus the polishing ones).
    pub n_sweeps: usize,
    /// Whether the best restart's last sweep moved nothing, or moved points
    /// without lowering the recomputed objective (rounding noise, which would
    /// otherwise cycle) while no point had a move beating rounding error, or
    /// (with [`Params::tol`](crate::Params#structfield.tol) above 0) moved the
    /// centroids by less than the tolerance. For Hartigan and polished
    /// Smartigan without a tolerance this means no single-point move lowers
    /// the objective by more than rounding error.
    pub converged: bool,
    /// Objective after each sweep of the best restart.
    pub history: Vec<f64>,
    /// Points moved in each sweep of the best restart (Lloyd: labels changed).
    pub moves: Vec<usize>,
    /// Objective of the best restart's initial partition.
    pub initial_objective: f64,
    /// Merge-split moves the best restart's refinement kept (0 without
    /// `refine`).
    pub refinements: usize,
    /// Final objective of every restart, by restart index.
    pub restart_objectives: Vec<f64>,
    /// Index of the restart returned (lowest objective, ties to the lowest index).
    pub best_restart: usize,
    /// The seed used (drawn from the OS when none was given).
    pub seed: u64,
}

fn build_pool(n_threads: usize) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(n_threads)
        .thread_name(|i| format!("smartigan-{i}"))
        .build()
        .map_err(|e| Error::ThreadPool {
            n_threads,
            reason: e.to_string(),
        })
}

fn checked<'a, T: Scalar>(
    x: ArrayView2<'a, T>,
    sample_weight: Option<ArrayView1<'a, f64>>,
    params: Params,
) -> Result<(ValidParams, Data<'a, T>)> {
    let params = params.check()?;
    let (n, d) = x.dim();
    params.check_data(n, d)?;
    check_finite("x", x)?;
    let weights = checked_weights(sample_weight, n, params.k())?;
    let mut data = Data::new(x, weights);
    data.check_range()?;
    data.parallel = spare_threads(&params, n, d);
    Ok((params, data))
}

/// `params.tol` in the units of `data`: times its mean per-feature
/// variance, as scikit-learn scales `tol`; 0 without a tolerance, without
/// reading the data.
fn tolerance<S: Source>(data: &S, params: &ValidParams) -> f64 {
    if params.tol() > 0.0 {
        params.tol() * data.mean_variance()
    } else {
        0.0
    }
}

/// The random stream restart `index` draws its start from.
fn init_stream(params: &ValidParams, index: usize) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::stream(params.seed(), index as u64, Stream::Init)
}

/// Every restart's start, where restarts share the work of their starts
/// ([`Source::joint_starts`]: k-means++ on dense rows), else `None` (each
/// restart draws its own as it begins).
fn joint_starts<S: Source>(
    data: &S,
    params: &ValidParams,
    n_init: usize,
    cancel: &AtomicBool,
) -> Result<Vec<Option<Vec<f64>>>> {
    let mut rngs: Vec<_> = (0..n_init).map(|i| init_stream(params, i)).collect();
    let starts = data.joint_starts(params, &mut rngs, cancel);
    // A start cut short by `cancel` is never used.
    if cancel.load(Ordering::Relaxed) {
        return Err(Error::Interrupted);
    }
    Ok(match starts {
        Some(centroids) => centroids.into_iter().map(Some).collect(),
        None => vec![None; n_init],
    })
}

/// Whether there are more threads than restarts: then a restart's blocked
/// sweep splits each block's product over threads (the result is the same
/// either way).
fn spare_threads(params: &ValidParams, n: usize, d: usize) -> bool {
    params.n_init(n, d) < params.n_threads()
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
    let (params, data) = checked(x, sample_weight, params)?;
    let pool = build_pool(params.n_threads())?;
    let mut rng = init_stream(&params, 0);
    let rows = pool.install(|| crate::init::kmeans_plus_plus_rows(&data, params.k(), &mut rng));
    Ok(Array1::from(rows))
}

/// [`fit`] (or [`fit_weighted`]) that stops with [`Error::Interrupted`] soon
/// after `cancel` is set (each restart checks it between sweeps).
pub fn fit_cancellable<T: Scalar>(
    x: ArrayView2<'_, T>,
    sample_weight: Option<ArrayView1<'_, f64>>,
    params: Params,
    cancel: &AtomicBool,
) -> Result<Clustering<T>> {
    fit_with(x, sample_weight, params, cancel, Engine::Fast)
}

/// [`fit_cancellable`] with a choice of implementation (the equivalence
/// tests run both).
pub(crate) fn fit_with<T: Scalar>(
    x: ArrayView2<'_, T>,
    sample_weight: Option<ArrayView1<'_, f64>>,
    params: Params,
    cancel: &AtomicBool,
    engine: Engine,
) -> Result<Clustering<T>> {
    let (params, mut data) = checked(x, sample_weight, params)?;
    data.engine = engine;
    fit_source(&data, &params, cancel)
}

/// Runs every restart of `params` on `data` in parallel and keeps the best.
pub(crate) fn fit_source<S: Source>(
    data: &S,
    params: &ValidParams,
    cancel: &AtomicBool,
) -> Result<Clustering<S::Out>>
where
    S::State: Send,
{
    let pool = build_pool(params.n_threads())?;
    let n_init = params.n_init(data.n(), data.d());
    let objectives = Mutex::new(vec![f64::NAN; n_init]);
    // Only the best restart so far is kept (O(n + k·d) per running restart);
    // "best" is (objective, index)-lexicographic, so the reduction's result
    // does not depend on how rayon groups the restarts.
    let starts = pool.install(|| joint_starts(data, params, n_init, cancel))?;
    let tol_abs = tolerance(data, params);
    let best = pool.install(|| {
        starts
            .into_par_iter()
            .enumerate()
            .map(|(i, start)| {
                let mut r = Restart::new(data, params, i, start, tol_abs);
                r.run_to_end(data, params, cancel)?;
                let (_, obj, _) = data.finalize(&r.part);
                if let Ok(mut o) = objectives.lock() {
                    o[i] = obj;
                }
                Ok((obj, i, r))
            })
            .try_reduce_with(|a, b| {
                Ok(if b.0 < a.0 || (b.0 == a.0 && b.1 < a.1) {
                    b
                } else {
                    a
                })
            })
    });
    let (_, index, restart) = best.ok_or(Error::invalid("n_init", 0, "must be at least 1"))??;
    let objectives = objectives.into_inner().unwrap_or_default();
    Ok(restart.into_clustering(data, objectives, index, params.seed()))
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
    shift: Vec<f64>,
    /// The data's largest shifted entry (sizes the screens' scale).
    max_abs: f64,
    weights: Option<Vec<f64>>,
    shape: (usize, usize),
    restarts: Vec<Restart<Partition>>,
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
        let (params, data) = checked(x, sample_weight, params)?;
        let pool = build_pool(params.n_threads())?;
        let tol_abs = tolerance(&data, &params);
        let restarts = pool.install(|| {
            joint_starts(&data, &params, params.n_init(data.n, data.d), cancel)?
                .into_par_iter()
                .enumerate()
                .map(|(i, start)| {
                    if cancel.load(Ordering::Relaxed) {
                        return Err(Error::Interrupted);
                    }
                    Ok(Restart::new(&data, &params, i, start, tol_abs))
                })
                .collect::<Result<Vec<_>>>()
        })?;
        Ok(Run {
            shape: (data.n, data.d),
            weights: sample_weight.map(|w| w.to_vec()),
            max_abs: data.max_abs_shifted(),
            shift: data.shift,
            params,
            restarts,
            pool,
        })
    }

    /// Advances every unfinished restart by one sweep (in parallel). Returns
    /// whether any restart is still running.
    pub fn step<T: Scalar>(&mut self, x: ArrayView2<'_, T>) -> Result<bool> {
        let data = run_data(
            &self.shape,
            &self.shift,
            self.weights.as_deref(),
            self.max_abs,
            &self.params,
            x,
        )?;
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
        let data = run_data(
            &self.shape,
            &self.shift,
            self.weights.as_deref(),
            self.max_abs,
            &self.params,
            x,
        )?;
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
        Ok(self.restarts[best]
            .clone()
            .into_clustering(&data, objectives, best, self.params.seed()))
    }
}

/// The data of a step-wise run, checking that `x` has the run's shape.
fn run_data<'a, T: Scalar>(
    shape: &(usize, usize),
    shift: &[f64],
    weights: Option<&'a [f64]>,
    max_abs: f64,
    params: &ValidParams,
    x: ArrayView2<'a, T>,
) -> Result<Data<'a, T>> {
    if x.dim() != *shape {
        return Err(Error::Shape {
            name: "x",
            expected: format!("{shape:?}, the shape the run was started with"),
            got: format!("{:?}", x.dim()),
        });
    }
    let mut data = Data::with_shift_and_max(x, weights.map(Cow::Borrowed), shift.to_vec(), max_abs);
    data.parallel = spare_threads(params, shape.0, shape.1);
    Ok(data)
}
