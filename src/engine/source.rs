//! What a restart needs from its data. Dense rows ([`crate::dense::Dense`])
//! and sparse rows ([`crate::sparse::SparseData`]) carry different state (centroids in
//! shifted coordinates, or centroid sums with cached norms), but one restart
//! state machine ([`crate::fit::restart`]) drives both, so the methods' logic exists once.

use crate::data::Scalar;
use crate::engine::constrained::Gains;
use crate::engine::init::{self, Start};
use crate::engine::plus_plus::{on_sample, Draw};
use crate::engine::points::Points;
use crate::engine::refine::{propose_labels, split_labels, SplitCache};
use crate::engine::stats::ClusterStats;
use crate::error::Result;
use crate::params::Metric;
use crate::params::ValidParams;
use crate::rng::Xoshiro256PlusPlus;
use ndarray::Array2;
use std::sync::atomic::AtomicBool;

/// A data representation together with its per-restart clustering state:
/// the types, the sizes, and the result of a state.
pub(crate) trait Representation: Sync {
    /// Labels plus whatever statistics the transitions need.
    type State: Clone + std::fmt::Debug + Send + Sync;
    /// Element type of the returned centroids.
    type Out: Scalar;
    /// The rows as the bounded descent reads them ([`crate::engine::constrained`]),
    /// in the coordinates of [`Starts::centroids`].
    type Points: Points;
    /// The bounded descent's transfer and swap gains for this source's
    /// objective.
    type Gains: Gains;
    /// The rows, for the bounded descent.
    fn points(&self) -> &Self::Points;
    /// How points are compared: the objective this source's states
    /// minimise.
    fn metric(&self) -> Metric {
        Metric::Euclidean
    }
    /// Number of points.
    fn n(&self) -> usize {
        self.points().len()
    }
    /// Number of features.
    fn d(&self) -> usize {
        self.points().dim()
    }
    /// The labels and cluster statistics of the state.
    fn stats(st: &Self::State) -> &ClusterStats;
    /// The labels of the state.
    fn labels(st: &Self::State) -> &[usize] {
        &Self::stats(st).labels
    }
    /// Centroids in the caller's coordinates and type, and the objective
    /// recomputed from exactly those centroids, so that the reported number
    /// is what a user gets from `((x - centroids[labels])**2).sum()` (times
    /// the sample weights, if any), and the same sum per cluster (R's
    /// `withinss`; the objective itself is summed in point order).
    fn finalize(&self, st: &Self::State) -> (Array2<Self::Out>, f64, Vec<f64>);
    /// Whether the decisions that led to `st` (the final state of the
    /// restart a fit returns) can be trusted in exact arithmetic: an error
    /// naming the remedy where this representation's arithmetic lost the
    /// precision to take them. Representations whose distances do not
    /// cancel (dense rows, in shifted coordinates) need no check.
    fn check_precision(&self, _st: &Self::State, _params: &ValidParams) -> Result<()> {
        Ok(())
    }
}

/// How a restart of a representation begins: its initial state, the
/// k-means++ rows, and centroids in the coordinates starts are given in.
pub(crate) trait Starts: Representation {
    /// The initial state of one restart, drawn from its init stream, or
    /// built from `start`, the centroids [`Starts::joint_starts`] gave it:
    /// the labels [`init::start`] gives, or those of the centroids it gives
    /// ([`Starts::nearest_labels`]). Once `cancel` is set it may return
    /// early with an unusable state (the caller checks).
    fn initial_state(
        &self,
        params: &ValidParams,
        rng: &mut Xoshiro256PlusPlus,
        start: Option<Vec<f64>>,
        cancel: &AtomicBool,
    ) -> Self::State {
        let (k, points) = (params.k(), self.points());
        let plus_plus = |rng: &mut Xoshiro256PlusPlus| {
            let shape = (self.n(), k, self.d());
            on_sample(
                shape,
                |i| points.weight(i),
                rng,
                cancel,
                |draw| self.plus_plus_rows(draw),
            )
        };
        let labels = match init::start(params, self.n(), start, rng, plus_plus, |rows| {
            self.rows_as_centroids(rows)
        }) {
            Start::Labels(labels) => labels,
            Start::Centroids(centroids) => self.nearest_labels(centroids, k, cancel),
        };
        self.labelled_state(k, labels)
    }
    /// The label of each row's nearest of the `k` `centroids` (in the
    /// coordinates of [`Starts::centroids`]; ties to the lowest index).
    /// Once `cancel` is set it may return early with labels that are valid
    /// indices but not the nearest (the caller checks).
    fn nearest_labels(&self, centroids: Vec<f64>, k: usize, cancel: &AtomicBool) -> Vec<usize>;
    /// The state of the partition `labels` into `k` clusters (an empty
    /// cluster is filled as an initial partition's is).
    fn labelled_state(&self, k: usize, labels: Vec<usize>) -> Self::State;
    /// The starting centroids of several restarts (one init stream each,
    /// `rngs`) computed together, where that shares work, or `None` where
    /// every restart starts on its own. Either way the restarts start from
    /// the same states. Once `cancel` is set it may return early with
    /// unusable centroids (the caller checks).
    fn joint_starts(
        &self,
        _params: &ValidParams,
        _rngs: &mut [Xoshiro256PlusPlus],
        _cancel: &AtomicBool,
    ) -> Option<Vec<Vec<f64>>> {
        None
    }
    /// The rows greedy k-means++ chooses in `draw`: the centres
    /// [`Starts::initial_state`] starts from with `init = "k-means++"`, on
    /// a sample of the rows for large problems ([`on_sample`]).
    fn plus_plus_rows(&self, draw: Draw<'_>) -> Vec<usize>;
    /// The centroids of `st`, `k × d`, row after row, in the coordinates
    /// [`Starts::initial_state`] takes its `start` in.
    fn centroids(&self, st: &Self::State) -> Vec<f64>;
    /// Each point's share of the objective of `st`: its weight times its
    /// squared distance to its cluster's mean (in point order).
    fn point_costs(&self, st: &Self::State) -> Vec<f64>;
    /// Rows `rows` as centroids, in the coordinates of [`Starts::centroids`].
    fn rows_as_centroids(&self, rows: &[usize]) -> Vec<f64>;
}

/// The steps of a descent: sweeps, Lloyd iterations, the objective, and
/// the tests a restart's stop rules and schedule ask.
pub(crate) trait Descent: Representation {
    /// One Hartigan sweep with acceptance factor `factor` in the given
    /// order, each move keeping the statistics up to date incrementally
    /// (the representation's sweep kernel; the fresh recomputation is
    /// [`Descent::refresh`]). Returns the number of moves.
    fn sweep_moves(&self, st: &mut Self::State, order: &[usize], factor: f64) -> usize;
    /// [`Descent::sweep_moves`] followed by a fresh recomputation of the
    /// statistics (so incremental updates never drift beyond one sweep).
    /// Returns the number of moves.
    fn sweep(&self, st: &mut Self::State, order: &[usize], factor: f64) -> usize {
        let moves = self.sweep_moves(st, order, factor);
        self.refresh(st);
        moves
    }
    /// A Hartigan sweep (factor 1) over the candidates `order`, a few of
    /// many points, that may leave the recomputation of the statistics to
    /// the next [`Descent::sweep`] (which streams every member of each
    /// cluster touched, however few points moved). Returns the moves and
    /// the objective after them, given the one before. (Recomputing after
    /// each candidate sweep would cost more than the candidates save.)
    /// By default the objective is recomputed from the state
    /// ([`Descent::objective`]; representations whose objective follows
    /// from the statistics the moves keep read it there).
    fn candidate_sweep(
        &self,
        st: &mut Self::State,
        order: &[usize],
        _objective: f64,
    ) -> (usize, f64) {
        let moves = self.sweep_moves(st, order, 1.0);
        (moves, self.objective(st))
    }
    /// Recomputes the statistics that [`Descent::candidate_sweep`]s left to
    /// the next [`Descent::sweep`], as that sweep ends by doing.
    fn refresh(&self, st: &mut Self::State);
    /// Tells the state that its next sweep is expected to move about
    /// `share` of the points (a probe's estimate, before any sweep ran), so
    /// that the sweep can choose its bookkeeping as if it had seen one.
    /// Speed only: no decision depends on it.
    fn expect_moved_share(&self, _st: &mut Self::State, _share: f64) {}
    /// One Lloyd iteration; returns the number of labels changed.
    fn lloyd_iteration(&self, st: &mut Self::State) -> usize;
    /// The (weighted) objective of the state.
    fn objective(&self, st: &Self::State) -> f64;
    /// Whether some point still has a move (a Lloyd reassignment if `lloyd`,
    /// else a Hartigan move) that lowers the objective by more than rounding
    /// error can explain ([`crate::engine::move_rule::improves_beyond_rounding`]). Asked only when a
    /// descent step moved points without lowering the recomputed objective;
    /// one O(n·k·d) pass.
    fn can_improve(&self, st: &Self::State, lloyd: bool) -> bool;
    /// [`crate::engine::move_rule::move_ratio`] of each point of `sample` in the
    /// state, in the sample's order (exact distances; the same for any
    /// thread count).
    fn move_ratios(&self, st: &Self::State, sample: &[usize]) -> Vec<f64>;
    /// Every point's move ratio, exactly as [`Descent::move_ratios`] gives
    /// it where it is below `limit`, elsewhere some value at least `limit`
    /// (a representation that can rule points out cheaply skips them).
    fn move_ratios_below(&self, st: &Self::State, _limit: f64) -> Vec<f64> {
        let all: Vec<usize> = (0..self.n()).collect();
        self.move_ratios(st, &all)
    }
}

/// The moves that change a state's clusters as a whole: merges and splits
/// (merge-split refinement, a path's steps over k). Splits and merge-split
/// moves are written once, over the labels they give
/// ([`crate::engine::refine`]) and the state built from those labels; a
/// representation that carries more than its labels' statistics (the
/// dense rows' bounds) overrides them.
pub(crate) trait Reshape: Starts + Descent {
    /// The state with one cluster fewer: the `rank`-th cheapest merge of
    /// two clusters ([`crate::engine::refine::merge_labels`]), not yet
    /// re-converged; `None` when there is no such merge.
    fn merge(&self, st: &Self::State, rank: usize) -> Option<Self::State>;
    /// The state the best merge-split move on `st` gives (with `batch`,
    /// together with the disjoint moves batched with it,
    /// [`crate::engine::refine::propose_labels`]), not yet re-converged, and the
    /// number of moves; `None` when there is no candidate, or, with
    /// `below`, when the candidate's objective is not below it (dropped
    /// before the rest of its state is built). `cache` holds the restart's
    /// splits from earlier proposals.
    fn merge_split(
        &self,
        st: &Self::State,
        cache: &mut SplitCache,
        batch: bool,
        below: Option<f64>,
    ) -> Option<(Self::State, usize)> {
        let stats = Self::stats(st);
        let centroids = self.split_centroids(st);
        let (labels, touched) = propose_labels(
            self.points(),
            &stats.labels,
            &stats.weights,
            &centroids,
            cache,
            batch,
        )?;
        let state = self.labelled_state(stats.weights.len(), labels);
        if below.is_some_and(|b| self.objective(&state) >= b) {
            return None;
        }
        Some((state, touched.len()))
    }
    /// The state with one more cluster (a step of a path, [`crate::fit::path`]):
    /// the cluster whose split lowers the objective most split in two, the
    /// second half taking the new label ([`crate::engine::refine::split_labels`]),
    /// not yet re-converged; and which cluster was split (`None` when none
    /// could be: the new cluster then takes the point farthest from its
    /// centroid, as an empty cluster is filled). `cache` as for
    /// [`Reshape::merge_split`].
    fn split(&self, st: &Self::State, cache: &mut SplitCache) -> (Self::State, Option<usize>) {
        let stats = Self::stats(st);
        let k = stats.weights.len();
        let centroids = self.split_centroids(st);
        let (labels, split) = split_labels(self.points(), &stats.labels, &centroids, k, cache);
        (self.labelled_state(k + 1, labels), split)
    }
    /// The clusters' means, `k × d`, in the coordinates of the points:
    /// what splits and merge-split moves are measured against (by default
    /// [`Starts::centroids`], the means of the squared Euclidean
    /// objective).
    fn split_centroids(&self, st: &Self::State) -> Vec<f64> {
        self.centroids(st)
    }
}

/// What a restart needs from its data: a representation with its starts,
/// its descent and its reshaping moves (every representation is one).
pub(crate) trait Source: Starts + Descent + Reshape {}

impl<S: Starts + Descent + Reshape> Source for S {}

/// The objective of `labels` (`k` clusters) and its share per cluster, from
/// each point's cost (`cost(i, l)` for point `i` of cluster `l`: its weight
/// times its dissimilarity to its centroid), summed in point order: how every representation's
/// [`Representation::finalize`] reports what a user recomputes.
pub(crate) fn objective_by_cluster(
    labels: &[usize],
    k: usize,
    mut cost: impl FnMut(usize, usize) -> f64,
) -> (f64, Vec<f64>) {
    let mut objective = 0.0;
    let mut per_cluster = vec![0.0; k];
    for (i, &l) in labels.iter().enumerate() {
        let c = cost(i, l);
        objective += c;
        per_cluster[l] += c;
    }
    (objective, per_cluster)
}
