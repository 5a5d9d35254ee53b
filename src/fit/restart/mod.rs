//! One restart as a state machine: its phases (Lloyd, Hartigan, Smartigan's
//! schedule and polish, merge-split refinement), the stop rules of each
//! descent, and the transition to its result. It drives any [`Source`]
//! (dense or sparse rows) the same way.

use crate::clustering::Clustering;
use crate::engine::constrained::{Descent, Settings};
use crate::engine::refine::SplitCache;
use crate::engine::source::Source;
use crate::error::{Error, Result};
use crate::params::schedule;
use crate::params::{defaults, Method, ValidParams, MAX_POLISH_SWEEPS};
use crate::rng::{Stream, Xoshiro256PlusPlus};
use ndarray::Array1;
use std::sync::atomic::{AtomicBool, Ordering};

mod candidates;
mod refinement;

use candidates::Candidates;
pub(crate) use candidates::CANDIDATE_AFTER_SWEEPS;
use refinement::Refinement;

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
    /// Merge-split refinement after convergence ([`crate::engine::refine`]).
    Refine,
    /// The bounded descent of a fit with size bounds ([`crate::engine::constrained`]).
    Bounded,
    /// Finished.
    Done,
}

/// One restart: its clustering state, its private visiting-order stream,
/// and what it has done so far.
#[derive(Debug, Clone)]
pub(crate) struct Restart<St> {
    pub part: St,
    /// Its place among the candidates of its fit ([`crate::fit::search`]).
    index: usize,
    order_rng: Xoshiro256PlusPlus,
    order: Vec<usize>,
    phase: Phase,
    n_sweeps: usize,
    history: Vec<f64>,
    moves: Vec<usize>,
    initial_objective: f64,
    converged: bool,
    refinement: Refinement<St>,
    /// The relative tolerance of descents ([`ValidParams::tol`]); 0 for none.
    tol: f64,
    /// Smartigan's schedule length, or the Lloyd/Hartigan cap
    /// ([`ValidParams::n_iter_for`]); where the schedule adapts
    /// ([`ValidParams::adaptive_schedule`]) its first sweep sets it.
    n_iter: usize,
    /// The factor of the schedule's first sweep, once it ran: the
    /// parameters' start, or where the schedule adapts, the start
    /// [`crate::params::schedule::adapted_start`] chose. `None` before it, and for
    /// Lloyd and Hartigan.
    schedule_start: Option<f64>,
    /// Candidate sweeps of a Hartigan descent, if it has them.
    candidates: Option<Candidates>,
    /// The bounded descent of a fit with size bounds, until it ends (its
    /// labels then become `part`).
    bounded: Option<Box<Descent>>,
}

impl<St> Restart<St> {
    /// Restart `index` of the run seeded by `params.seed()`. Its start and its
    /// visiting orders come from streams that depend only on (seed, index),
    /// not on the method: Hartigan and Smartigan runs with the same seed are
    /// paired restart by restart, as in the paper's protocol.
    /// `start`: the centroids [`Starts::joint_starts`] computed for it.
    /// Stops with [`Error::Interrupted`] once `cancel` is set (the start,
    /// k-means++ above all, polls it).
    pub(crate) fn new<S: Source<State = St>>(
        data: &S,
        params: &ValidParams,
        index: usize,
        start: Option<Vec<f64>>,
        cancel: &AtomicBool,
    ) -> Result<Self> {
        let part = data.initial_state(params, &mut init_stream(params, index), start, cancel);
        if cancel.load(Ordering::Relaxed) {
            return Err(Error::Interrupted);
        }
        let phase = match params.method() {
            Method::Lloyd => Phase::Lloyd,
            Method::Hartigan => Phase::Hartigan,
            Method::Smartigan => Phase::Schedule(0),
        };
        let order_rng = Xoshiro256PlusPlus::stream(params.seed(), index as u64, Stream::Order);
        let tol = params.tol(data.n(), data.d());
        let (n, d) = (data.n(), data.d());
        // With bounds that bind, the start's centroids are the centres of a
        // feasible start, and the bounded descent replaces the method's
        // steps.
        let bounded = params.size_bounds(n).map(|bounds| {
            let centres = data.centroids(&part);
            let settings = Settings::of(params, n, d);
            Box::new(Descent::start::<_, S::Gains>(
                data.points(),
                &centres,
                bounds,
                settings,
            ))
        });
        let mut restart = Self::starting(
            data,
            index,
            part,
            phase,
            order_rng,
            tol,
            SplitCache::default(),
            params.n_iter_for(n, d),
        );
        if let Some(descent) = bounded {
            restart.initial_objective = descent.objective();
            restart.phase = if descent.is_done() {
                restart.part = data.labelled_state(params.k(), descent.labels().to_vec());
                Phase::Done
            } else {
                Phase::Bounded
            };
            restart.bounded = Some(descent);
        }
        Ok(restart)
    }

    /// A Hartigan descent from `state` (a step of a path, [`crate::fit::path`]):
    /// Hartigan sweeps in the visiting orders of `order_rng` until none
    /// moves or the relative tolerance `tol` ends it. It is stepped with
    /// [`ValidParams::descent`]'s parameters.
    pub(crate) fn descent<S: Source<State = St>>(
        data: &S,
        state: St,
        order_rng: Xoshiro256PlusPlus,
        tol: f64,
    ) -> Self {
        let cache = SplitCache::default();
        let n_iter = MAX_POLISH_SWEEPS;
        Self::starting(
            data,
            0,
            state,
            Phase::Hartigan,
            order_rng,
            tol,
            cache,
            n_iter,
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn starting<S: Source<State = St>>(
        data: &S,
        index: usize,
        part: St,
        phase: Phase,
        order_rng: Xoshiro256PlusPlus,
        tol: f64,
        cache: SplitCache,
        n_iter: usize,
    ) -> Self {
        let initial_objective = data.objective(&part);
        Restart {
            part,
            index,
            order_rng,
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
                batch: tol > 0.0,
                cache,
                proposals: 0,
            },
            tol,
            n_iter,
            schedule_start: None,
            candidates: None,
            bounded: None,
        }
    }

    /// Its place among the candidates of its fit.
    pub(crate) fn index(&self) -> usize {
        self.index
    }

    /// The passes its steps cost ([`crate::defaults::pass_work`]) on `n`
    /// rows of `d` features: a pass per step, and per merge-split proposal
    /// what its splits cost ([`crate::defaults::proposal_passes`]).
    pub(crate) fn passes(&self, n: usize, d: usize, k: usize) -> f64 {
        let proposals = self.refinement.proposals as f64;
        self.n_sweeps as f64 + proposals * crate::params::defaults::proposal_passes(n, d, k)
    }

    /// Whether its last step ended the method on its own terms (see
    /// [`Clustering::converged`]).
    pub(crate) fn converged(&self) -> bool {
        self.converged
    }

    pub(crate) fn is_done(&self) -> bool {
        self.phase == Phase::Done
    }

    /// The objective of the current state.
    pub(crate) fn current_objective(&self) -> f64 {
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

    /// Whether the adaptive schedule lowered this restart's start (a start
    /// that did not adapt is the parameters' own).
    fn start_lowered(&self, params: &ValidParams) -> bool {
        self.schedule_start
            .is_some_and(|start| start < params.schedule().0)
    }

    /// Whether a descent step that moved `moved` points and took the
    /// objective from `previous` to `objective` gained no more than the
    /// tolerance: a relative decrease of at most `tol`. Always false without
    /// a tolerance, so `tol = 0` descends until nothing moves.
    fn within_tol(&self, previous: f64, objective: f64, moved: usize) -> bool {
        self.tol > 0.0 && moved > 0 && previous - objective <= self.tol * objective
    }

    /// One transition: a Lloyd iteration or a (Smartigan) sweep.
    pub(crate) fn step<S: Source<State = St>>(&mut self, data: &S, params: &ValidParams) {
        let n_iter = self.n_iter;
        // The objective after a sweep of candidates only, which its moves
        // gave (the statistics are recomputed at the next full sweep). Such
        // a sweep does not show convergence by moving nothing, nor end a
        // descent by its gain or a stall.
        let mut candidate_objective: Option<f64> = None;
        let (moved, next) = match self.phase {
            Phase::Done => return,
            Phase::Refine => return self.refine_step(data, params),
            Phase::Bounded => return self.bounded_step(data, params),
            Phase::Lloyd => {
                let changed = data.lloyd_iteration(&mut self.part);
                let done = changed == 0 || self.n_sweeps + 1 == n_iter;
                (changed, if done { Phase::Done } else { Phase::Lloyd })
            }
            Phase::Hartigan => {
                let (moved, objective) = self.descent_sweep(data);
                candidate_objective = objective;
                let done = (moved == 0 && objective.is_none()) || self.n_sweeps + 1 == n_iter;
                (moved, if done { Phase::Done } else { Phase::Hartigan })
            }
            Phase::Schedule(t) => {
                let adaptive = params.adaptive_schedule(data.n(), data.d());
                let (start, end) = params.schedule();
                if t == 0 {
                    self.schedule_start = Some(if adaptive {
                        let sample = schedule::probe_sample(data.n());
                        let mut ratios = data.move_ratios(&self.part, &sample);
                        let start = schedule::adapted_start(
                            (start, end),
                            &mut ratios,
                            defaults::START_SHARE,
                        );
                        // No sweep has run yet: the share of points the
                        // first one will move is the share the probe saw
                        // move at its factor.
                        data.expect_moved_share(
                            &mut self.part,
                            schedule::share_moving(&ratios, start),
                        );
                        start
                    } else {
                        start
                    });
                }
                let start = self.schedule_start.unwrap_or(start);
                let factor = schedule::acceptance_factor((start, end), n_iter, t);
                let moved = self.hartigan_sweep(data, factor);
                // The first sweep's factor is the schedule's start whatever
                // its length, so the length may be chosen after it.
                if t == 0 && adaptive {
                    let share = moved as f64 / data.n().max(1) as f64;
                    self.n_iter = defaults::schedule_length(share);
                }
                let n_iter = self.n_iter;
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
        let partial = candidate_objective.is_some();
        let objective = candidate_objective.unwrap_or_else(|| data.objective(&self.part));
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
            && !partial
            && moved > 0
            && objective >= previous
            && !data.can_improve(&self.part, self.phase == Phase::Lloyd);
        // The tolerance ends descents only: Smartigan's schedule sweeps run
        // as scheduled (their early sweeps raise the objective on purpose).
        let within_tol = exact_descent && !partial && self.within_tol(previous, objective, moved);
        // A start lowered by the adaptive schedule makes it an anneal from a
        // factor near 1. Once one of its sweeps after the first no longer
        // lowers the objective beyond the tolerance, its relaxed moves only
        // swap near-ties back and forth (sparse TF-IDF rows: thousands of
        // points whose costs to several clusters differ by less than the
        // factor's excess, every sweep), so the polish takes over.
        let next = match (self.phase, next) {
            (Phase::Schedule(t), Phase::Schedule(_))
                if t >= 1
                    && self.start_lowered(params)
                    && previous - objective <= self.tol * objective =>
            {
                if params.polish() {
                    Phase::Polish(0)
                } else {
                    Phase::Done
                }
            }
            (_, next) => next,
        };
        self.n_sweeps += 1;
        self.moves.push(moved);
        self.history.push(objective);
        self.converged = (moved == 0 && !partial) || stalled || within_tol;
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

    /// One step of the bounded descent; where it ends, its labels become
    /// the restart's state (no refinement: see [`crate::engine::constrained`]).
    fn bounded_step<S: Source<State = St>>(&mut self, data: &S, params: &ValidParams) {
        if self.bounded.as_ref().is_some_and(|b| b.sweeps_next()) {
            self.draw_order();
        }
        let Some(descent) = self.bounded.as_mut() else {
            self.phase = Phase::Done;
            return;
        };
        let step = descent.step::<_, S::Gains>(data.points(), &self.order);
        self.n_sweeps += 1;
        self.moves.push(step.moved);
        self.history.push(step.objective);
        self.converged = descent.converged();
        if descent.is_done() {
            self.part = data.labelled_state(params.k(), descent.labels().to_vec());
            self.phase = Phase::Done;
        }
    }

    /// Runs to the end, checking the cancellation flag between sweeps.
    pub(crate) fn run_to_end<S: Source<State = St>>(
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

    /// Its result as a [`Clustering`], given every restart's objective and
    /// which one it is.
    pub(crate) fn clustering<S: Source<State = St>>(
        &self,
        data: &S,
        restart_objectives: Vec<f64>,
        best: usize,
        seed: u64,
    ) -> Clustering<S::Out> {
        // A bounded descent under way holds the current labels itself.
        let running = self
            .bounded
            .as_ref()
            .filter(|_| !self.is_done())
            .map(|b| data.labelled_state(b.k(), b.labels().to_vec()));
        let part = running.as_ref().unwrap_or(&self.part);
        let (centroids, objective, cluster_objectives) = data.finalize(part);
        let labels = S::labels(part);
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
            history: self.history.clone(),
            moves: self.moves.clone(),
            initial_objective: self.initial_objective,
            refinements: self.refinement.accepted,
            schedule_start: self.schedule_start,
            restart_objectives,
            best_restart: best,
            seed,
            metric: data.metric(),
        }
    }
}

/// The random stream restart `index` draws its start from.
pub(crate) fn init_stream(params: &ValidParams, index: usize) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::stream(params.seed(), index as u64, Stream::Init)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::data::Data;
    use crate::dense::Dense;
    use crate::engine::source::{Descent, Starts};
    use crate::params::Params;
    use ndarray::Array2;

    /// Hartigan's descent at `k` from labels `i mod k` on `x`, with
    /// candidate sweeps after `after` sweeps (`None`: without), in a pool of
    /// `threads`.
    fn descent(
        x: &Array2<f64>,
        k: usize,
        after: Option<usize>,
        threads: usize,
    ) -> Restart<crate::dense::DenseState> {
        let p = Params::new(k).seed(3).check().unwrap();
        let dense = Dense::new(Data::new(x.view(), None), &p, true);
        let labels = (0..x.nrows()).map(|i| i % k).collect();
        let order = Xoshiro256PlusPlus::stream(3, k as u64, Stream::PathOrder);
        let mut r = Restart::descent(&dense, dense.labelled_state(k, labels), order, 0.0);
        if let Some(after) = after {
            r = r.with_candidate_sweeps(after);
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| r.run_to_end(&dense, &p.descent(k), &AtomicBool::new(false)))
            .unwrap();
        // Converged, and no single point can still lower the objective.
        assert!(r.converged() && !dense.can_improve(&r.part, false));
        r
    }

    #[test]
    fn candidate_sweeps_end_at_a_hartigan_local_optimum() {
        // Heavily overlapping groups: the descent from arbitrary labels has
        // a long tail of sweeps that move few points.
        let x = crate::testing::testdata::blobs(3000, 12, 40, 8);
        for k in [5, 17] {
            let r = descent(&x, k, Some(3), 2);
            assert!(r.candidate_sweeps() > 0, "k {k}: no candidate sweep ran");
            // Rounds that lowered the objective start the next from a
            // screen of the ratios rather than a sweep of every point.
            assert!(r.screens() > 0, "k {k}: no screen ran");
            assert!(r.converged(), "k {k}");
            // The last sweep visited every point and moved none.
            assert_eq!(r.moves.last(), Some(&0), "k {k}");
            // Never rising beyond rounding: a candidate sweep's objective
            // is carried from the clusters' sums, and the recomputation
            // after the next sweep of every point may differ from it in
            // the last bits.
            let rounding = 1e-14;
            assert!(
                r.history
                    .windows(2)
                    .all(|h| h[1] <= h[0] * (1.0 + rounding)),
                "k {k}"
            );
        }
    }

    #[test]
    fn candidate_sweeps_are_the_same_for_any_thread_count() {
        let x = crate::testing::testdata::blobs(3000, 12, 40, 9);
        let one = descent(&x, 11, Some(3), 1);
        assert!(one.candidate_sweeps() > 0);
        for threads in [2, 3] {
            let other = descent(&x, 11, Some(3), threads);
            assert_eq!(
                one.part.partition.stats.labels,
                other.part.partition.stats.labels
            );
            assert_eq!(one.history, other.history, "{threads} threads");
            assert_eq!(one.moves, other.moves, "{threads} threads");
        }
    }

    #[test]
    fn a_candidate_sweep_gives_the_objective_its_moves_left() {
        let x = crate::testing::testdata::blobs(2000, 10, 30, 11);
        let k = 7;
        for accelerated in [true, false] {
            let p = Params::new(k).check().unwrap();
            let dense = Dense::new(Data::new(x.view(), None), &p, accelerated);
            let mut st = dense.labelled_state(k, (0..x.nrows()).map(|i| i % k).collect());
            let before = dense.objective(&st);
            // Every third point: most clusters are touched.
            let order: Vec<usize> = (0..x.nrows()).step_by(3).collect();
            let (moved, objective) = dense.candidate_sweep(&mut st, &order, before);
            assert!(moved > 100 && objective < before);
            let exact = dense.objective(&st);
            assert!(
                (objective - exact).abs() <= 1e-10 * exact,
                "{objective} {exact}"
            );
        }
    }

    #[test]
    fn descents_shorter_than_the_wait_make_the_plain_moves() {
        let x = crate::testing::testdata::blobs(1500, 6, 30, 10);
        let plain = descent(&x, 9, None, 2);
        let waiting = descent(&x, 9, Some(plain.n_sweeps), 2);
        assert_eq!(waiting.candidate_sweeps(), 0);
        assert_eq!(
            plain.part.partition.stats.labels,
            waiting.part.partition.stats.labels
        );
        assert_eq!(plain.history, waiting.history);
    }
}
