//! Sparse rows as a [`Source`] (what a restart needs) and as [`Rows`]
//! (what merge-split refinement reads).

use super::centroids::{expansion_slack, rows_sq_dist, sparse_sq_dist};
use super::{cancelled, SparseCentroids, SparseData, SparseState, POLL_POINTS};
use crate::data::Scalar;
use crate::engine::constrained::SquaredEuclidean;
use crate::engine::move_rule::{choose_move, improves_beyond_rounding, move_ratio, KMeans};
use crate::engine::nearest::nearest_by;
use crate::engine::plus_plus::Draw;
use crate::engine::points::{Points, Split};
use crate::engine::refine::{merge_labels, split_cluster};
use crate::engine::source::{objective_by_cluster, Descent, Representation, Reshape, Starts};
use crate::engine::stats::ClusterStats;
use crate::error::Result;
use crate::params::ValidParams;
use ndarray::Array2;
use rayon::prelude::*;
use std::sync::atomic::AtomicBool;

/// Relative accuracy of the squared distances sparse k-means++ samples
/// from: where the expansion's bound is wider, the exact form is used.
const PLUS_PLUS_REL: f64 = 1.0 / (1u64 << 20) as f64;

/// The bounded descent's distances are the fast form of
/// [`sparse_sq_dist`], as the sweeps' scores are; pairs of rows merge their
/// column lists ([`rows_sq_dist`]).
impl<T: Scalar> Points for SparseData<'_, T> {
    type Row<'r>
        = (&'r [usize], &'r [T])
    where
        Self: 'r;

    fn dim(&self) -> usize {
        self.x.n_cols()
    }

    fn weight(&self, i: usize) -> f64 {
        SparseData::weight(self, i)
    }

    fn row<'r>(&'r self, i: usize, _buf: &'r mut [f64]) -> Self::Row<'r> {
        self.x.row(i)
    }

    fn sq_dist_to(x: &(&[usize], &[T]), c: &[f64], c_norm: f64) -> f64 {
        sparse_sq_dist(*x, c, c_norm)
    }

    fn add_to(x: &(&[usize], &[T]), w: f64, sum: &mut [f64]) {
        for (&col, v) in x.0.iter().zip(x.1) {
            sum[col] += w * v.to_f64();
        }
    }

    fn split(&self, members: &[usize], mean: &[f64]) -> Option<Split> {
        split_cluster(self, members, mean)
    }

    fn len(&self) -> usize {
        self.x.n_rows()
    }

    fn pair_sq_dist(&self, a: usize, b: usize) -> f64 {
        rows_sq_dist(self.x.row(a), self.x.row(b))
    }

    /// The expansion rounds to within a few ε of `‖x‖² + ‖μ‖²` (unshifted).
    fn sq_norm_bound(&self) -> f64 {
        self.norms.iter().fold(0.0f64, |m, &v| m.max(v))
    }
}

impl<'a, T: Scalar> Representation for SparseData<'a, T> {
    type State = SparseState;
    type Out = T;
    type Points = SparseData<'a, T>;
    type Gains = SquaredEuclidean;

    fn points(&self) -> &SparseData<'a, T> {
        self
    }

    fn stats(st: &SparseState) -> &ClusterStats {
        &st.stats
    }

    /// The objective from the returned centroids, as the dense finalize
    /// computes it: every point's distance summed in point order, each
    /// distance in the exact form (no cancellation however far the data
    /// lie from the origin).
    fn finalize(&self, st: &SparseState) -> (Array2<T>, f64, Vec<f64>) {
        let (k, d) = (st.k, self.x.n_cols());
        let means = self.dense_centroids(st);
        let centroids = Array2::from_shape_fn((k, d), |(j, c)| T::from_f64(means[j * d + c]));
        let wide = SparseCentroids::new(centroids.iter().map(|v| v.to_f64()).collect(), d);
        let own = self.own_distances(st, &wide);
        let (objective, per_cluster) =
            objective_by_cluster(&st.stats.labels, k, |i, _| self.weight(i) * own[i]);
        (centroids, objective, per_cluster)
    }

    fn check_precision(&self, st: &SparseState, params: &ValidParams) -> Result<()> {
        self.decisions_are_sound(st, params)
    }
}

impl<'a, T: Scalar> Starts for SparseData<'a, T> {
    // `joint_starts` is not implemented here: a start is a child's.
    fn labelled_state(&self, k: usize, labels: Vec<usize>) -> SparseState {
        self.state_from_labels(k, labels)
    }

    fn nearest_labels(&self, centroids: Vec<f64>, k: usize, cancel: &AtomicBool) -> Vec<usize> {
        let centroids = SparseCentroids::new(centroids, self.x.n_cols());
        let labels = self.x.nearest_rows(&centroids, cancel);
        if cancelled(cancel) {
            // Never used: the restart sees the flag and stops. (Rows the
            // pass left at 0 could leave clusters empty.)
            return (0..self.x.n_rows()).map(|i| i % k).collect();
        }
        labels
    }

    /// Greedy k-means++ on the rows: the plain definition
    /// ([`Draw::plain`]) with squared distances through the
    /// expansion `‖x_i‖² + ‖x_c‖² − 2·x_i·x_c` where its error bound allows
    /// a relative [`PLUS_PLUS_REL`], else merged exactly
    /// ([`rows_sq_dist`]: near duplicates, and every pair far from the
    /// origin). Polls `cancel` every [`POLL_POINTS`] points; a cancelled
    /// call returns fewer than `k` rows.
    fn plus_plus_rows(&self, draw: Draw<'_>) -> Vec<usize> {
        let mut scratch = vec![0.0; self.x.n_cols()];
        let cancel = draw.cancel;
        draw.plain(
            self.x.n_rows(),
            self.weights.is_some(),
            |i| self.weight(i),
            |c, among, out| {
                let centre = self.x.row(c);
                for (&col, v) in centre.0.iter().zip(centre.1) {
                    scratch[col] = v.to_f64();
                }
                for (block, chunk) in out.chunks_mut(POLL_POINTS).enumerate() {
                    if cancelled(cancel) {
                        break;
                    }
                    for (o, out) in chunk.iter_mut().enumerate() {
                        let i = among.row(block * POLL_POINTS + o);
                        let fast = (self.norms[i] + self.norms[c]
                            - 2.0 * self.x.dot_dense(i, &scratch))
                        .max(0.0);
                        let nnz = self.x.row(i).0.len() + centre.0.len();
                        let bound = expansion_slack(nnz, 0.0) * (self.norms[i] + self.norms[c]);
                        *out = if bound <= PLUS_PLUS_REL * fast {
                            fast
                        } else {
                            rows_sq_dist(self.x.row(i), centre)
                        };
                    }
                }
                for &col in centre.0 {
                    scratch[col] = 0.0;
                }
            },
        )
    }

    fn centroids(&self, st: &SparseState) -> Vec<f64> {
        self.dense_centroids(st)
    }

    fn point_costs(&self, st: &SparseState) -> Vec<f64> {
        let means = SparseCentroids::new(self.dense_centroids(st), self.x.n_cols());
        let mut costs = self.own_distances(st, &means);
        for (i, c) in costs.iter_mut().enumerate() {
            *c *= self.weight(i);
        }
        costs
    }

    fn rows_as_centroids(&self, rows: &[usize]) -> Vec<f64> {
        self.densify(rows)
    }
}

impl<'a, T: Scalar> Descent for SparseData<'a, T> {
    /// The moves of one Hartigan sweep with acceptance factor `factor` in
    /// `order`, the statistics kept by each move (the recomputation is the
    /// caller's). Returns the number of moves.
    fn sweep_moves(&self, st: &mut SparseState, order: &[usize], factor: f64) -> usize {
        let k = st.k;
        let mut dots = vec![0.0; k];
        let mut moves = 0;
        for (visit, &i) in order.iter().enumerate() {
            if visit % POLL_POINTS == 0 && cancelled(self.cancel) {
                // The moves so far are whole; the restart stops on the flag.
                break;
            }
            let (r, w) = (st.stats.labels[i], self.weight(i));
            if !st.stats.may_leave(r, w) {
                continue;
            }
            self.dots(i, st, &mut dots);
            let Some(j) = choose_move(
                &KMeans::new(&st.stats.counts, &st.stats.weights),
                r,
                w,
                factor,
                |j| self.dist(i, st, j, dots[j]),
            ) else {
                continue;
            };
            // ‖S ∓ w·x‖² = ‖S‖² ∓ 2w·x·S + w²‖x‖², from the dots before the move.
            let wx2 = w * w * self.norms[i];
            st.sum_norms[r] += wx2 - 2.0 * w * dots[r];
            st.sum_norms[j] += wx2 + 2.0 * w * dots[j];
            let (cols, vals) = self.x.row(i);
            for (&c, v) in cols.iter().zip(vals) {
                let wv = w * v.to_f64();
                st.stats.sums[c * k + r] -= wv;
                st.stats.sums[c * k + j] += wv;
            }
            st.stats.labels[i] = j;
            st.stats.counts[r] -= 1;
            st.stats.counts[j] += 1;
            st.stats.weights[r] -= w;
            st.stats.weights[j] += w;
            moves += 1;
        }
        moves
    }

    fn refresh(&self, st: &mut SparseState) {
        self.recompute(st);
    }

    fn can_improve(&self, st: &SparseState, lloyd: bool) -> bool {
        // Distances through dot products in unshifted coordinates round to
        // within a few ε·(‖x‖² + ‖μ‖²), hence a margin on the largest norm.
        let abs_margin = 1e-14 * self.norms.iter().fold(0.0f64, |m, &v| m.max(v));
        let mut dots = vec![0.0; st.k];
        (0..self.x.n_rows()).any(|i| {
            if i % POLL_POINTS == 0 && cancelled(self.cancel) {
                // Ends the run; the restart then stops on the flag.
                return true;
            }
            self.dots(i, st, &mut dots);
            let (r, w) = (st.stats.labels[i], self.weight(i));
            improves_beyond_rounding(
                &KMeans::new(&st.stats.counts, &st.stats.weights),
                r,
                w,
                lloyd,
                abs_margin,
                |j| self.dist(i, st, j, dots[j]),
            )
        })
    }

    fn move_ratios(&self, st: &SparseState, sample: &[usize]) -> Vec<f64> {
        sample
            .par_iter()
            .map_init(
                || vec![0.0; st.k],
                |dots, &i| {
                    self.dots(i, st, dots);
                    let (r, w) = (st.stats.labels[i], self.weight(i));
                    move_ratio(
                        &KMeans::new(&st.stats.counts, &st.stats.weights),
                        r,
                        w,
                        |j| self.dist(i, st, j, dots[j]),
                    )
                },
            )
            .collect()
    }

    fn lloyd_iteration(&self, st: &mut SparseState) -> usize {
        let k = st.k;
        let snapshot = &*st;
        // Chunks of points, each polling the flag first; a skipped chunk
        // keeps its labels (the restart stops on the flag anyway).
        let mut new_labels = st.stats.labels.clone();
        new_labels
            .par_chunks_mut(POLL_POINTS)
            .enumerate()
            .for_each_init(
                || vec![0.0; k],
                |dots, (c, chunk)| {
                    if cancelled(self.cancel) {
                        return;
                    }
                    for (o, l) in chunk.iter_mut().enumerate() {
                        let i = c * POLL_POINTS + o;
                        self.dots(i, snapshot, dots);
                        *l = nearest_by(k, Some(snapshot.stats.labels[i]), |j| {
                            self.dist(i, snapshot, j, dots[j])
                        });
                    }
                },
            );
        let changed = st.stats.relabel(new_labels);
        self.recompute(st);
        changed + self.fill_empty_clusters(st)
    }

    /// Since `Σ_{i∈j} w_i·x_i = S_j`, the objective is
    /// `Σ_i w_i‖x_i‖² − Σ_j ‖S_j‖²/W_j`: O(k) instead of a second O(nnz·k)
    /// pass per sweep. When that difference cancels badly (data far from
    /// the origin, tight clusters) the per-point exact distances to the
    /// means are summed instead (O(k·d + nnz·log d)).
    fn objective(&self, st: &SparseState) -> f64 {
        let total = self.total_norm;
        let explained: f64 = st
            .sum_norms
            .iter()
            .zip(&st.stats.weights)
            .filter(|(_, w)| **w > 0.0)
            .map(|(s, w)| s / w)
            .sum();
        let fast = total - explained;
        if fast > 1e-6 * total {
            return fast;
        }
        let means = SparseCentroids::new(self.dense_centroids(st), self.x.n_cols());
        self.weighted_sum(&self.own_distances(st, &means))
    }
}

impl<'a, T: Scalar> Reshape for SparseData<'a, T> {
    fn merge(&self, st: &SparseState, rank: usize) -> Option<SparseState> {
        let centroids = self.dense_centroids(st);
        let labels = merge_labels(&st.stats.labels, &st.stats.weights, &centroids, rank)?;
        Some(self.state_from_labels(st.k - 1, labels))
    }
}
