//! What a restart needs from its data. Dense rows ([`Data`]) and sparse
//! rows ([`crate::sparse::SparseData`]) carry different state (centroids in
//! shifted coordinates, or centroid sums with cached norms), but one restart
//! state machine (`run.rs`) drives both, so the methods' logic exists once.

use crate::data::{sq_dist, Data, Scalar};
use crate::fast::sweep_blocked;
use crate::init::{assign_to_centroids, initial_partition, kmeans_plus_plus_joint, Engine};
use crate::params::{Init, ValidParams};
use crate::refine::{propose, SplitCache};
use crate::rng::Xoshiro256PlusPlus;
use crate::state::Partition;
use crate::sweep::{improves_beyond_rounding, lloyd_iteration, lloyd_iteration_reference, sweep};
use ndarray::Array2;
use std::sync::atomic::AtomicBool;

/// A data representation together with its per-restart clustering state.
pub(crate) trait Source: Sync {
    /// Labels plus whatever statistics the transitions need.
    type State: Clone + std::fmt::Debug + Send + Sync;
    /// Element type of the returned centroids.
    type Out: Scalar;
    /// Number of points.
    fn n(&self) -> usize;
    /// Number of features.
    fn d(&self) -> usize;
    /// The initial state of one restart, drawn from its init stream, or
    /// built from `start`, the centroids [`Source::joint_starts`] gave it.
    fn initial_state(
        &self,
        params: &ValidParams,
        rng: &mut Xoshiro256PlusPlus,
        start: Option<Vec<f64>>,
    ) -> Self::State;
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
    /// One Hartigan sweep with acceptance factor `factor` in the given order,
    /// followed by a fresh recomputation of the statistics (so incremental
    /// updates never drift beyond one sweep). Returns the number of moves.
    fn sweep(&self, st: &mut Self::State, order: &[usize], factor: f64) -> usize;
    /// One Lloyd iteration; returns the number of labels changed.
    fn lloyd_iteration(&self, st: &mut Self::State) -> usize;
    /// The (weighted) objective of the state.
    fn objective(&self, st: &Self::State) -> f64;
    /// Whether some point still has a move (a Lloyd reassignment if `lloyd`,
    /// else a Hartigan move) that lowers the objective by more than rounding
    /// error can explain ([`improves_beyond_rounding`]). Asked only when a
    /// descent step moved points without lowering the recomputed objective;
    /// one O(n·k·d) pass.
    fn can_improve(&self, st: &Self::State, lloyd: bool) -> bool;
    /// The labels of the state.
    fn labels(st: &Self::State) -> &[usize];
    /// The state's centroids, `k × d` row-major, in this source's own
    /// coordinates (only differences between two states' centroids are
    /// read: the tolerance's centroid shift).
    fn centroids(&self, st: &Self::State) -> Vec<f64>;
    /// The mean over features of each feature's (unweighted) variance, the
    /// scale of scikit-learn's `tol`. One O(n·d) (or O(nnz)) pass, made
    /// only when a tolerance is set.
    fn mean_variance(&self) -> f64;
    /// The state the best merge-split move on `st` gives (not yet
    /// re-converged); `None` when there is no candidate. `cache` holds the
    /// restart's splits from earlier proposals.
    fn merge_split(&self, st: &Self::State, cache: &mut SplitCache) -> Option<Self::State>;
    /// Centroids in the caller's coordinates and type, and the objective
    /// recomputed from exactly those centroids, so that the reported number
    /// is what a user gets from `((x - centroids[labels])**2).sum()` (times
    /// the sample weights, if any), and the same sum per cluster (R's
    /// `withinss`; the objective itself is summed in point order).
    fn finalize(&self, st: &Self::State) -> (Array2<Self::Out>, f64, Vec<f64>);
}

/// Up to this `k·d` the plain sweep runs: in single-thread A/B runs it took
/// about half the time of the blocked one on Iris and the cats data
/// (`k·d` ≤ 80, 150 points) and on 2,000 blobs with `k·d` = 80; at
/// `k·d` = 600 (breast cancer, k = 20) the two were even, and from 320 on
/// (W1) the blocked sweep is faster. The moves are the same either way.
const PLAIN_SWEEP_MAX_KD: usize = 128;

impl<T: Scalar> Source for Data<'_, T> {
    type State = Partition;
    type Out = T;

    fn n(&self) -> usize {
        self.n
    }

    fn d(&self) -> usize {
        self.d
    }

    fn initial_state(
        &self,
        params: &ValidParams,
        rng: &mut Xoshiro256PlusPlus,
        start: Option<Vec<f64>>,
    ) -> Partition {
        match start {
            Some(centroids) => assign_to_centroids(self, params.k(), centroids, self.engine),
            None => initial_partition(self, params, rng, self.engine),
        }
    }

    fn joint_starts(
        &self,
        params: &ValidParams,
        rngs: &mut [Xoshiro256PlusPlus],
        cancel: &AtomicBool,
    ) -> Option<Vec<Vec<f64>>> {
        // Every k-means++ pass reads every row; restarts share those reads
        // (the accelerated k-means++ covers unit weights only).
        let shares = self.engine == Engine::Fast
            && !self.is_weighted()
            && rngs.len() > 1
            && matches!(params.init(), Init::KMeansPlusPlus);
        shares.then(|| kmeans_plus_plus_joint(self, params.k(), rngs, cancel))
    }

    fn sweep(&self, st: &mut Partition, order: &[usize], factor: f64) -> usize {
        // The blocked, screened sweep makes exactly the plain sweep's moves;
        // it covers unit weights only, and pays off only once scoring a
        // point against every cluster costs more than its bookkeeping.
        let moved = match self.engine {
            Engine::Fast if !self.is_weighted() && st.k * self.d > PLAIN_SWEEP_MAX_KD => {
                let mut hint = std::mem::take(&mut st.hint);
                let moved = sweep_blocked(st, self, order, factor, &mut hint);
                st.hint = hint;
                moved
            }
            _ => sweep(st, self, order, factor),
        };
        st.recompute_stale(self);
        moved
    }

    fn lloyd_iteration(&self, st: &mut Partition) -> usize {
        match self.engine {
            Engine::Fast => lloyd_iteration(st, self),
            Engine::Reference => lloyd_iteration_reference(st, self),
        }
    }

    fn objective(&self, st: &Partition) -> f64 {
        st.objective(self)
    }

    fn can_improve(&self, st: &Partition, lloyd: bool) -> bool {
        // Distances are formed in shifted coordinates, where their rounding
        // error is at most a few ε·R² (R² the largest squared shifted row
        // norm) beyond the relative margin.
        let abs_margin = 1e-16 * self.max_sq_norm_shifted();
        let mut row = vec![0.0; self.d];
        (0..self.n).any(|i| {
            self.load_shifted(i, &mut row);
            let (r, w) = (st.labels[i], self.weight(i));
            improves_beyond_rounding(&st.counts, &st.weights, r, w, lloyd, abs_margin, |j| {
                sq_dist(&row, st.centroid(j))
            })
        })
    }

    fn merge_split(&self, st: &Partition, cache: &mut SplitCache) -> Option<Partition> {
        propose(st, self, cache)
    }

    fn labels(st: &Partition) -> &[usize] {
        &st.labels
    }

    fn centroids(&self, st: &Partition) -> Vec<f64> {
        st.centroids.clone()
    }

    fn mean_variance(&self) -> f64 {
        // `shift` is the column means, so this is Σ_c var_c / d.
        let zero = vec![0.0; self.d];
        let total: f64 = (0..self.n)
            .map(|i| crate::data::sq_dist_shifted(self.row(i), &self.shift, &zero))
            .sum();
        total / (self.n as f64 * self.d as f64)
    }

    fn finalize(&self, st: &Partition) -> (Array2<T>, f64, Vec<f64>) {
        let (k, d) = (st.k, self.d);
        let centroids = Array2::from_shape_fn((k, d), |(j, c)| {
            T::from_f64(st.centroid(j)[c] + self.shift[c])
        });
        let wide: Vec<f64> = centroids.iter().map(|v| v.to_f64()).collect();
        let mut row = vec![0.0; d];
        let mut objective = 0.0;
        let mut per_cluster = vec![0.0; k];
        for (i, &l) in st.labels.iter().enumerate() {
            for (r, v) in row.iter_mut().zip(self.row(i)) {
                *r = v.to_f64();
            }
            let cost = self.weight(i) * sq_dist(&row, &wide[l * d..(l + 1) * d]);
            objective += cost;
            per_cluster[l] += cost;
        }
        (centroids, objective, per_cluster)
    }
}
