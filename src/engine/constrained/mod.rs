//! Clusters of bounded size (`size_min`, `size_max`): the descent a
//! restart runs instead of its method's steps where the bounds bind
//! ([`crate::params::SizeBounds::bind`]; bounds that every clustering
//! meets leave the fit unconstrained, bit for bit).
//!
//! A bounded restart starts from its method's start (k-means++ centres,
//! Forgy, given centroids, a random partition; a child's moved
//! centroids), turned into a first partition as usual; that partition's
//! centroids are then the centres of a feasible start ([`start`]: greedy
//! by regret, then repairs that provably end, so that every start meets the
//! bounds). From there:
//!
//! 1. **Lloyd's algorithm with bounds**: the **assignment step**
//!    ([`exchange`]) holds the centroids fixed and moves rows around cycles
//!    of clusters until the labels are an optimal assignment within the
//!    bounds for those centroids (what a min-cost-flow assignment gives),
//!    then the centroids move to the new means; repeated until a step moves
//!    nothing or gains less than the tolerance. From a greedy start one
//!    such step moves many rows at once, which a descent by single moves
//!    would take many sweeps to do.
//! 2. **Sweeps** of two moves, each decided from exact current distances
//!    ([`gains`]): a **transfer** of one row to another cluster, Hartigan's
//!    test with weights, allowed only where its cluster stays at or above
//!    its minimum and the target at or below its maximum; a **swap** of two
//!    rows between two clusters (sizes unchanged), where a row's improving
//!    transfer is blocked by a bound ([`descent`]). Smartigan's schedule
//!    relaxes both tests by its factor; exact sweeps (factor 1) follow.
//! 3. Once an exact sweep moves nothing, the assignment step again; where
//!    it moves rows, the sweeps resume.
//! 4. Without a tolerance (`tol = 0`, the default where one pass costs at
//!    most `2^20` multiply-adds), once the assignment step moves nothing an
//!    exhaustive check ([`certify`]) looks at every pair of rows in
//!    different clusters; the swaps it finds are taken and the sweeps
//!    resume, and a check that takes nothing ends the descent. With a
//!    tolerance the descent ends at the quiet assignment step: the check's
//!    pairs that its screen cannot rule out grow with the square of the
//!    clusters' sizes (on unit embeddings, whose distances are all alike,
//!    it rules out few), so that on larger problems one check costs more
//!    than the rest of the descent; there the swaps the sweeps propose are
//!    the only ones taken.
//!
//! The descent also ends at the cap on steps.
//!
//! **What a result is.** Every clustering a bounded restart holds meets the
//! bounds exactly (each move keeps them). A restart that ends converged
//! holds labels that are a fixed point of Lloyd's algorithm with bounds:
//! an optimal assignment within the bounds for its own centroids (up to the
//! margin of [`gains::MOVE_MARGIN`] against rounding, and among the
//! assignments that move no row holding all of its cluster's weight), where
//! no transfer the bounds allow lowers the objective (beyond the same
//! margin, or with a tolerance beyond what the last sweep's rule let pass).
//! With `tol = 0` it is also a local optimum under swaps: no exchange of
//! two rows between clusters lowers the objective by more than a relative
//! `2^-40` of the terms it is computed from. The tests check all of these
//! by brute force on small inputs.
//!
//! **Other objectives.** The move logic (which moves the bounds allow, the
//! sweeps, the partners, the exhaustive check) asks an objective only for
//! what [`gains::Gains`] names: the change of a transfer and of a swap
//! from the rows' scores in the clusters, and a lower bound on a swap's
//! change with one part per row. [`gains::SquaredEuclidean`] is the
//! k-means objective, [`crate::spherical::SphericalLoss`] the spherical
//! one (`metric="cosine"`: scores are squared distances between unit rows
//! and the clusters' directions); each source names its objective's gains
//! ([`crate::engine::source::Representation::Gains`]).
//!
//! Merge-split refinement does not run on bounded restarts (a merge empties
//! a cluster, a split fills one: neither keeps the bounds); restarts and
//! the children of `n_init="auto"`/`"best"` do.

mod certify;
mod clusters;
mod descent;
mod exchange;
pub(crate) mod gains;
mod start;
#[cfg(test)]
mod tests;

pub(crate) use clusters::Clusters;
pub(crate) use gains::{Gains, SquaredEuclidean};

use crate::engine::points::Points;
use crate::params::{Method, SizeBounds, ValidParams, MAX_POLISH_SWEEPS};

/// How a bounded descent runs, from the fit's parameters.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Settings {
    /// The acceptance factors of the relaxed sweeps, in order (Smartigan's
    /// schedule); none for Hartigan.
    pub factors: Vec<f64>,
    /// Whether exact sweeps and checks follow the relaxed sweeps (always
    /// for Hartigan; Smartigan's `polish`).
    pub descend: bool,
    /// The most exact steps (sweeps and checks).
    pub cap: usize,
    /// The relative tolerance ([`ValidParams::tol`]).
    pub tol: f64,
}

impl Settings {
    /// The settings of `params` for `n` rows of `d` features: Smartigan's
    /// schedule of [`ValidParams::n_iter_for`] sweeps from the schedule's
    /// start (the adaptive start is the unconstrained schedule's), then at
    /// most [`MAX_POLISH_SWEEPS`] exact steps; Hartigan: `n_iter` exact
    /// steps.
    pub fn of(params: &ValidParams, n: usize, d: usize) -> Settings {
        let n_iter = params.n_iter_for(n, d);
        let tol = params.tol(n, d);
        match params.method() {
            Method::Smartigan => Settings {
                factors: (0..n_iter)
                    .map(|t| params.acceptance_factor(n_iter, t))
                    .collect(),
                descend: params.polish(),
                cap: MAX_POLISH_SWEEPS,
                tol,
            },
            Method::Hartigan | Method::Lloyd => Settings {
                factors: Vec::new(),
                descend: true,
                cap: n_iter,
                tol,
            },
        }
    }
}

/// Where a descent is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// Relaxed sweep `t` of the schedule.
    Relaxed(usize),
    /// Exact sweeps; the field counts exact steps so far.
    Exact(usize),
    /// The exhaustive swap check; the field counts exact steps so far.
    Check(usize),
    /// The bounded assignment step ([`exchange`]); the field counts exact
    /// steps so far.
    Exchange(usize),
    /// Lloyd's algorithm with bounds, before the sweeps: the assignment
    /// step, then the centroids moved to the new means; the field counts
    /// its steps.
    Lloyd(usize),
    Done,
}

/// One bounded descent (module documentation).
#[derive(Debug, Clone)]
pub(crate) struct Descent {
    clusters: Clusters,
    bounds: SizeBounds,
    settings: Settings,
    stage: Stage,
    objective: f64,
    converged: bool,
}

/// What one step did: rows moved and the objective after it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Step {
    pub moved: usize,
    pub objective: f64,
}

impl Descent {
    /// A descent of the objective `G` from the feasible start for the
    /// centres `centres` (`k × d`, in the rows' coordinates). Every step
    /// must name the same `G` (the source's, [`crate::engine::source::Representation::Gains`]).
    pub fn start<P: Points, G: Gains>(
        points: &P,
        centres: &[f64],
        bounds: SizeBounds,
        settings: Settings,
    ) -> Self {
        let labels = start::feasible_labels(points, centres, &bounds);
        let clusters = Clusters::from_labels::<P, G>(points, bounds.k(), labels);
        let objective = clusters.objective::<P, G>(points);
        let stage = if settings.factors.is_empty() && !settings.descend {
            Stage::Done
        } else {
            Stage::Lloyd(0)
        };
        Descent {
            clusters,
            bounds,
            settings,
            stage,
            objective,
            converged: false,
        }
    }

    /// Number of clusters.
    pub fn k(&self) -> usize {
        self.clusters.k
    }

    /// The labels.
    pub fn labels(&self) -> &[usize] {
        &self.clusters.stats.labels
    }

    /// The objective of the current labels.
    pub fn objective(&self) -> f64 {
        self.objective
    }

    pub fn is_done(&self) -> bool {
        self.stage == Stage::Done
    }

    /// Whether the descent ended on its own terms (a check that took
    /// nothing, a step within the tolerance, a step that moved rows without
    /// lowering the objective: rounding) rather than at the cap.
    pub fn converged(&self) -> bool {
        self.converged
    }

    /// Whether the next step is a sweep (it then needs a visiting order).
    pub fn sweeps_next(&self) -> bool {
        matches!(self.stage, Stage::Relaxed(_) | Stage::Exact(_))
    }

    /// One step: a sweep in `order`, or the exhaustive check.
    pub fn step<P: Points, G: Gains>(&mut self, points: &P, order: &[usize]) -> Step {
        let previous = self.objective;
        let (moved, exact) = match self.stage {
            Stage::Done => {
                return Step {
                    moved: 0,
                    objective: previous,
                }
            }
            Stage::Relaxed(t) => {
                let factor = self.settings.factors[t];
                (self.sweep::<P, G>(points, order, factor), None)
            }
            Stage::Exact(s) => (self.sweep::<P, G>(points, order, 1.0), Some(s)),
            Stage::Check(s) => (
                certify::certify::<P, G>(&mut self.clusters, points),
                Some(s),
            ),
            Stage::Exchange(s) => (self.exchange::<P, G>(points), Some(s)),
            Stage::Lloyd(_) => (self.exchange::<P, G>(points), None),
        };
        self.clusters.recompute(points);
        let objective = self.clusters.objective::<P, G>(points);
        self.objective = objective;
        let settled = |moved: usize| {
            // Rows moved without lowering the recomputed objective: the
            // moves were rounding (each is taken only beyond a margin, so
            // this is a safeguard); a gain within the tolerance.
            moved > 0
                && (objective >= previous
                    || (self.settings.tol > 0.0
                        && previous - objective <= self.settings.tol * objective))
        };
        self.stage = match (self.stage, exact) {
            // Lloyd's steps until one moves nothing (or settles), at most
            // `cap` of them; then the schedule's sweeps.
            (Stage::Lloyd(t), _) => {
                if moved > 0 && !settled(moved) && t + 1 < self.settings.cap {
                    Stage::Lloyd(t + 1)
                } else if !self.settings.factors.is_empty() {
                    Stage::Relaxed(0)
                } else {
                    Stage::Exact(0)
                }
            }
            (Stage::Relaxed(t), _) => {
                if t + 1 < self.settings.factors.len() && moved > 0 {
                    Stage::Relaxed(t + 1)
                } else if self.settings.descend {
                    Stage::Exact(0)
                } else {
                    self.converged = moved == 0;
                    Stage::Done
                }
            }
            // An exact step: sweeps until one is quiet (or settled), then
            // the assignment step, then the check; a step that moves rows
            // sends the descent back to the sweeps, and the check ends it
            // where it takes nothing (the labels have not changed since the
            // quiet sweep and the quiet assignment step).
            (stage, Some(s)) => {
                let quiet = moved == 0 || settled(moved);
                if s + 1 >= self.settings.cap && !(quiet && matches!(stage, Stage::Check(_))) {
                    self.converged = false;
                    Stage::Done
                } else if !quiet {
                    Stage::Exact(s + 1)
                } else {
                    match stage {
                        Stage::Exact(_) => Stage::Exchange(s + 1),
                        // With a tolerance the descent ends here (module
                        // documentation).
                        Stage::Exchange(_) if self.settings.tol > 0.0 => {
                            self.converged = true;
                            Stage::Done
                        }
                        Stage::Exchange(_) => Stage::Check(s + 1),
                        _ => {
                            self.converged = true;
                            Stage::Done
                        }
                    }
                }
            }
            (stage, None) => stage,
        };
        Step { moved, objective }
    }

    fn exchange<P: Points, G: Gains>(&mut self, points: &P) -> usize {
        exchange::exchange::<P, G>(&mut self.clusters, points, &self.bounds)
    }

    fn sweep<P: Points, G: Gains>(&mut self, points: &P, order: &[usize], factor: f64) -> usize {
        descent::sweep::<P, G>(&mut self.clusters, points, &self.bounds, order, factor)
    }
}
