//! Sparse (CSR) input, clustered without densifying `x`.
//!
//! Per cluster we keep the weighted sum `S_j` of its points and `‖S_j‖²`, so
//! that the squared distance to the mean `μ_j = S_j / W_j` is
//! `‖x‖² − 2·x·S_j/W_j + ‖S_j‖²/W_j²`: scoring a point against all `k`
//! clusters costs O(nnz(x)·k), and moving it costs O(nnz(x)). The sums are
//! stored column-major (`d × k`), so the `k` dot products of one nonzero run
//! over contiguous memory. As for dense data, the sums and norms are
//! recomputed exactly after every sweep.
//!
//! The expansion loses relative accuracy when a point is far closer to a
//! centroid than both are to the origin (its rounding error is about
//! ε·(‖x‖² + ‖μ‖²)): harmless for the data sparse input is made for (counts,
//! TF-IDF), fatal at a large offset. So what is reported never comes from
//! it: the objective, the clusters' objectives, the initial assignments and
//! (in [`centroids`]) `predict` and `transform` are computed in a form that
//! does not cancel where the expansion could be wrong. And the decisions of
//! the sweeps, which must stay O(nnz·k), are checked once a fit ends
//! ([`SparseData`]'s `check_precision`): if the decisions the expansion's
//! error leaves to chance carry more than [`PRECISION_TOLERANCE`] of the
//! objective (measured exactly), the fit is refused with an error naming
//! the remedy (centre the data, or pass it dense).

mod centroids;

pub(crate) use centroids::SparseCentroids;

use crate::data::{check_spread, checked_weights, weight_exponent, Scalar};
use crate::error::{Error, Result};
use crate::init::forgy_indices;
use crate::move_rule::{
    choose_move, improves_beyond_rounding, join_weight, leave_weight, may_leave, move_ratio,
};
use crate::nearest::nearest_by;
use crate::params::{Init, Method, ValidParams};
use crate::partition::refill;
use crate::plus_plus::kmeans_plus_plus_indices;
use crate::refine::{merge_labels, propose_labels, split_labels, Rows, SplitCache};
use crate::rng::Xoshiro256PlusPlus;
use crate::source::Source;
use centroids::{exact_rel_error, expansion_slack, log2_ceil, rows_sq_dist, sparse_sq_dist};
use ndarray::{Array2, ArrayView1};
use rayon::prelude::*;
use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, Ordering};

/// One sparse row: its column indices (sorted, distinct) and values.
pub(crate) type CsrRow<'r, T> = (&'r [usize], &'r [T]);

/// Share of the objective that the decisions a sparse fit's rounding left
/// to chance may carry before the fit is refused as having lost its
/// precision (see the module doc).
pub(crate) const PRECISION_TOLERANCE: f64 = 1e-6;

/// Relative accuracy of the squared distances sparse k-means++ samples
/// from: where the expansion's bound is wider, the exact form is used.
const PLUS_PLUS_REL: f64 = 1.0 / (1u64 << 20) as f64;

/// Points between two polls of the cancellation flag in the sparse passes
/// (and between two checks of their results' precision): a poll is one
/// relaxed load, and a chunk of points costs far more. The pass to the
/// nearest centroid, whose rows each scan every centroid, polls before
/// every row instead (a chunk of it can take seconds).
const POLL_POINTS: usize = 1024;

/// Whether `cancel` is set.
#[inline(always)]
fn cancelled(cancel: &AtomicBool) -> bool {
    cancel.load(Ordering::Relaxed)
}

/// A borrowed matrix in compressed sparse row form (as SciPy's `csr_matrix`):
/// row `i` holds the values `data[indptr[i]..indptr[i+1]]` in the columns
/// `indices[indptr[i]..indptr[i+1]]`.
#[derive(Debug, Clone, Copy)]
pub struct CsrView<'a, T> {
    n_cols: usize,
    indptr: &'a [usize],
    indices: &'a [usize],
    data: &'a [T],
}

impl<'a, T: Scalar> CsrView<'a, T> {
    /// Validates the structure: `indptr` starts at 0, never decreases and
    /// ends at `nnz`; column indices are below `n_cols` and strictly
    /// increasing within each row (canonical form: no duplicates); values are
    /// finite.
    ///
    /// ```
    /// use smartigan::CsrView;
    /// // [[1, 0, 2], [0, 0, 3]]
    /// let m = CsrView::new(3, &[0, 2, 3], &[0, 2, 2], &[1.0f64, 2.0, 3.0]).unwrap();
    /// assert_eq!((m.n_rows(), m.n_cols(), m.nnz()), (2, 3, 3));
    /// assert!(CsrView::new(3, &[0, 2, 3], &[2, 0, 2], &[1.0f64, 2.0, 3.0]).is_err());
    /// ```
    pub fn new(
        n_cols: usize,
        indptr: &'a [usize],
        indices: &'a [usize],
        data: &'a [T],
    ) -> Result<Self> {
        let bad = |what: String| Error::invalid("x", "a sparse matrix", what);
        if indptr.first() != Some(&0) {
            return Err(bad("indptr must start with 0".into()));
        }
        if indices.len() != data.len() || indptr.last() != Some(&data.len()) {
            return Err(bad(format!(
                "indptr must end at nnz: indptr[-1]={:?}, {} indices, {} values",
                indptr.last(),
                indices.len(),
                data.len()
            )));
        }
        for (row, w) in indptr.windows(2).enumerate() {
            if w[1] < w[0] || w[1] > data.len() {
                return Err(bad(format!("indptr decreases at row {row}")));
            }
            let cols = &indices[w[0]..w[1]];
            if let Some(&c) = cols.iter().find(|&&c| c >= n_cols) {
                return Err(bad(format!(
                    "column index {c} in row {row} is not below n_features={n_cols}"
                )));
            }
            if cols.windows(2).any(|p| p[1] <= p[0]) {
                return Err(bad(format!(
                    "column indices of row {row} are not strictly increasing (call sum_duplicates/sort_indices)"
                )));
            }
            for (&col, v) in cols.iter().zip(&data[w[0]..w[1]]) {
                let value = v.to_f64();
                if !value.is_finite() {
                    return Err(Error::NonFinite {
                        name: "x",
                        row,
                        col,
                        value,
                    });
                }
            }
        }
        Ok(CsrView {
            n_cols,
            indptr,
            indices,
            data,
        })
    }

    /// Number of rows.
    pub fn n_rows(&self) -> usize {
        self.indptr.len() - 1
    }

    /// Number of columns.
    pub fn n_cols(&self) -> usize {
        self.n_cols
    }

    /// Number of stored values.
    pub fn nnz(&self) -> usize {
        self.data.len()
    }

    /// Row `i`.
    #[inline(always)]
    pub(crate) fn row(&self, i: usize) -> CsrRow<'a, T> {
        let (a, b) = (self.indptr[i], self.indptr[i + 1]);
        (&self.indices[a..b], &self.data[a..b])
    }

    /// `x_i · v` for a dense `v`.
    #[inline(always)]
    fn dot_dense(&self, i: usize, v: &[f64]) -> f64 {
        let (cols, vals) = self.row(i);
        cols.iter().zip(vals).map(|(&c, x)| x.to_f64() * v[c]).sum()
    }

    /// The nearest of `centroids` to every row (ties to the lowest index),
    /// as exact distances decide it ([`SparseCentroids::nearest`]), in
    /// parallel over chunks of rows. Once `cancel` is set the remaining
    /// chunks are skipped (their labels are left at 0) and the caller must
    /// not use the result.
    pub(crate) fn nearest_rows(
        &self,
        centroids: &SparseCentroids,
        cancel: &AtomicBool,
    ) -> Vec<usize> {
        let mut labels = vec![0; self.n_rows()];
        labels
            .par_chunks_mut(POLL_POINTS)
            .enumerate()
            .for_each_init(
                || vec![0.0; centroids.k()],
                |scratch, (c, chunk)| {
                    for (o, l) in chunk.iter_mut().enumerate() {
                        // Polled before every row: a chunk of rows against
                        // thousands of centroids takes seconds.
                        if cancelled(cancel) {
                            return;
                        }
                        *l = centroids.nearest(self.row(c * POLL_POINTS + o), scratch);
                    }
                },
            );
        labels
    }
}

/// Sparse rows with their squared norms and optional weights.
pub(crate) struct SparseData<'a, T> {
    x: CsrView<'a, T>,
    /// `‖x_i‖²`.
    norms: Vec<f64>,
    /// `Σ_i w_i‖x_i‖²`, the objective of one cluster centred at the origin.
    total_norm: f64,
    weights: Option<Cow<'a, [f64]>>,
    /// The fit's cancellation flag, polled inside every long pass.
    cancel: &'a AtomicBool,
}

/// One restart's state on sparse data.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SparseState {
    k: usize,
    labels: Vec<usize>,
    counts: Vec<usize>,
    weights: Vec<f64>,
    /// `d × k`, column-major per cluster: `sums[c * k + j]` is cluster `j`'s
    /// weighted sum in column `c`.
    sums: Vec<f64>,
    /// `‖S_j‖²`.
    sum_norms: Vec<f64>,
}

impl<'a, T: Scalar> SparseData<'a, T> {
    /// The rows with their weights (already scaled, if scaled), polling
    /// `cancel` in their passes.
    pub(crate) fn new(x: CsrView<'a, T>, weights: Option<Cow<'a, [f64]>>, cancel: &'a AtomicBool) -> Self {
        let norms = (0..x.n_rows())
            .map(|i| x.row(i).1.iter().map(|v| v.to_f64() * v.to_f64()).sum())
            .collect();
        let mut data = SparseData {
            x,
            norms,
            total_norm: 0.0,
            weights,
            cancel,
        };
        data.set_total_norm();
        data
    }

    /// The weights as used (scaled by the fit's exponent).
    pub(crate) fn weights(&self) -> Option<&[f64]> {
        self.weights.as_deref()
    }

    fn set_total_norm(&mut self) {
        self.total_norm = (0..self.x.n_rows())
            .map(|i| self.weight(i) * self.norms[i])
            .sum();
    }

    /// Scales the weights by `2^e` (exactly), as [`weight_exponent`] asks.
    fn scale_weights(&mut self, e: i32) {
        if let (Some(w), true) = (self.weights.as_mut(), e != 0) {
            let scaled = crate::data::scaled_weights(w, e);
            *w = Cow::Owned(scaled);
            self.set_total_norm();
        }
    }

    /// The fast form's error bound factor for row `i` against a state's
    /// means ([`expansion_slack`]): `‖S_j‖²` is a running sum over the `d`
    /// columns, and the exact form it is compared with reads the rounded
    /// means `S_j/W_j` (4 more ε: the divisions and that rounding).
    fn state_slack(&self, i: usize) -> f64 {
        expansion_slack(self.x.row(i).0.len(), self.x.n_cols as f64 + 4.0)
    }

    #[inline(always)]
    fn weight(&self, i: usize) -> f64 {
        self.weights.as_deref().map_or(1.0, |w| w[i])
    }

    /// `dots[j] = x_i · S_j` for every cluster.
    #[inline(always)]
    fn dots(&self, i: usize, st: &SparseState, dots: &mut [f64]) {
        dots.iter_mut().for_each(|v| *v = 0.0);
        let k = st.k;
        let (cols, vals) = self.x.row(i);
        for (&c, v) in cols.iter().zip(vals) {
            let v = v.to_f64();
            for (d, s) in dots.iter_mut().zip(&st.sums[c * k..(c + 1) * k]) {
                *d += v * s;
            }
        }
    }

    /// Squared distance from point `i` to the mean of cluster `j`, given
    /// `dot = x_i · S_j`. Clamped at zero against rounding.
    #[inline(always)]
    fn dist(&self, i: usize, st: &SparseState, j: usize, dot: f64) -> f64 {
        let w = st.weights[j];
        if w <= 0.0 {
            return self.norms[i];
        }
        (self.norms[i] - 2.0 * dot / w + st.sum_norms[j] / (w * w)).max(0.0)
    }

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
            let (r, w) = (st.labels[i], self.weight(i));
            if !may_leave(&st.counts, &st.weights, r, w) {
                continue;
            }
            self.dots(i, st, &mut dots);
            let Some(j) = choose_move(&st.weights, r, w, factor, |j| self.dist(i, st, j, dots[j]))
            else {
                continue;
            };
            // ‖S ∓ w·x‖² = ‖S‖² ∓ 2w·x·S + w²‖x‖², from the dots before the move.
            let wx2 = w * w * self.norms[i];
            st.sum_norms[r] += wx2 - 2.0 * w * dots[r];
            st.sum_norms[j] += wx2 + 2.0 * w * dots[j];
            let (cols, vals) = self.x.row(i);
            for (&c, v) in cols.iter().zip(vals) {
                let wv = w * v.to_f64();
                st.sums[c * k + r] -= wv;
                st.sums[c * k + j] += wv;
            }
            st.labels[i] = j;
            st.counts[r] -= 1;
            st.counts[j] += 1;
            st.weights[r] -= w;
            st.weights[j] += w;
            moves += 1;
        }
        moves
    }

    fn recompute(&self, st: &mut SparseState) {
        let k = st.k;
        st.counts.iter_mut().for_each(|c| *c = 0);
        st.weights.iter_mut().for_each(|w| *w = 0.0);
        st.sums.iter_mut().for_each(|s| *s = 0.0);
        for (i, &l) in st.labels.iter().enumerate() {
            let w = self.weight(i);
            st.counts[l] += 1;
            st.weights[l] += w;
            let (cols, vals) = self.x.row(i);
            for (&c, v) in cols.iter().zip(vals) {
                st.sums[c * k + l] += w * v.to_f64();
            }
        }
        st.sum_norms.iter_mut().for_each(|s| *s = 0.0);
        for col in st.sums.chunks_exact(k) {
            for (n, s) in st.sum_norms.iter_mut().zip(col) {
                *n += s * s;
            }
        }
    }

    fn fill_empty_clusters(&self, st: &mut SparseState) -> usize {
        let empties: Vec<usize> = (0..st.k).filter(|&j| st.weights[j] <= 0.0).collect();
        if empties.is_empty() {
            return 0;
        }
        let own_dist: Vec<f64> = (0..self.x.n_rows())
            .map(|i| {
                let l = st.labels[i];
                let (cols, vals) = self.x.row(i);
                let dot: f64 = cols
                    .iter()
                    .zip(vals)
                    .map(|(&c, v)| v.to_f64() * st.sums[c * st.k + l])
                    .sum();
                self.dist(i, st, l, dot)
            })
            .collect();
        let moved = refill(
            &empties,
            own_dist,
            &mut st.labels,
            &mut st.counts,
            &mut st.weights,
            |i| self.weight(i),
        );
        self.recompute(st);
        moved
    }

    fn state_from_labels(&self, k: usize, labels: Vec<usize>) -> SparseState {
        let mut st = SparseState {
            k,
            labels,
            counts: vec![0; k],
            weights: vec![0.0; k],
            sums: vec![0.0; k * self.x.n_cols],
            sum_norms: vec![0.0; k],
        };
        self.recompute(&mut st);
        self.fill_empty_clusters(&mut st);
        st
    }

    /// The exact squared distances from every point to its own mean in
    /// `st`, in parallel over chunks of points (zero where `cancel` cut
    /// the pass short).
    fn own_distances(&self, st: &SparseState, means: &SparseCentroids) -> Vec<f64> {
        let mut own = vec![0.0; self.x.n_rows()];
        own.par_chunks_mut(POLL_POINTS)
            .enumerate()
            .for_each(|(c, chunk)| {
                if cancelled(self.cancel) {
                    return;
                }
                for (o, v) in chunk.iter_mut().enumerate() {
                    let i = c * POLL_POINTS + o;
                    *v = means.exact(self.x.row(i), st.labels[i]);
                }
            });
        own
    }

    /// `Σ_i w_i·own[i]`, in point order.
    fn weighted_sum(&self, own: &[f64]) -> f64 {
        own.iter()
            .enumerate()
            .map(|(i, v)| self.weight(i) * v)
            .sum()
    }

    /// Greedy k-means++ on the rows: the plain definition
    /// ([`kmeans_plus_plus_indices`]) with squared distances through the
    /// expansion `‖x_i‖² + ‖x_c‖² − 2·x_i·x_c` where its error bound allows
    /// a relative [`PLUS_PLUS_REL`], else merged exactly
    /// ([`rows_sq_dist`]: near duplicates, and every pair far from the
    /// origin). Polls `cancel` every [`POLL_POINTS`] points; a cancelled
    /// call returns fewer than `k` rows.
    fn plus_plus(&self, k: usize, rng: &mut Xoshiro256PlusPlus, cancel: &AtomicBool) -> Vec<usize> {
        let mut scratch = vec![0.0; self.x.n_cols];
        kmeans_plus_plus_indices(
            self.x.n_rows(),
            k,
            self.weights.is_some(),
            |i| self.weight(i),
            rng,
            cancel,
            |c, out| {
                let centre = self.x.row(c);
                for (&col, v) in centre.0.iter().zip(centre.1) {
                    scratch[col] = v.to_f64();
                }
                for (block, chunk) in out.chunks_mut(POLL_POINTS).enumerate() {
                    if cancelled(cancel) {
                        break;
                    }
                    for (o, out) in chunk.iter_mut().enumerate() {
                        let i = block * POLL_POINTS + o;
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

    /// How much of the objective rides on point `i`'s decision where
    /// rounding, not the data, takes it (see `check_precision`). Only a
    /// decision that the expansion's error bound leaves in doubt is looked
    /// at (Lloyd: own distance against the others'; Hartigan: leave gain
    /// against join costs): its exact gap, between the own cost and the
    /// cheapest other one, is set against what the expansion made of it.
    /// Where the expansion's actual error reaches half the gap (a wrong
    /// sign included), the gap is at stake: rounding of that size decides
    /// such a point either way as the sums change from sweep to sweep. 0
    /// for decisions beyond doubt, and for true ties (a gap within the
    /// exact form's rounding). `dots` holds `k` values.
    fn unresolved_stake(
        &self,
        st: &SparseState,
        means: &SparseCentroids,
        lloyd: bool,
        i: usize,
        dots: &mut [f64],
    ) -> f64 {
        let (r, w, k) = (st.labels[i], self.weight(i), st.k);
        // A weightless point changes no objective wherever it goes, and a
        // point that may not leave has no decision.
        if w == 0.0 || (!lloyd && !may_leave(&st.counts, &st.weights, r, w)) {
            return 0.0;
        }
        self.dots(i, st, dots);
        // Lloyd compares distances; Hartigan the leave gain with join costs.
        let factor = |j: usize| match (lloyd, j == r) {
            (true, _) => 1.0,
            (false, true) => leave_weight(w, st.weights[r]),
            (false, false) => join_weight(w, st.weights[j]),
        };
        let slack = self.state_slack(i);
        let fast = |j: usize| factor(j) * self.dist(i, st, j, dots[j]);
        let width = |j: usize| factor(j) * slack * (self.norms[i] + means.norm(j));
        let (own_fast, own_width) = (fast(r), width(r));
        let mut others = (0..k).filter(|&j| j != r);
        if others
            .clone()
            .any(|j| fast(j) + width(j) < own_fast - own_width)
        {
            // Some cluster is surely cheaper: the decision is a move.
            return 0.0;
        }
        let row = self.x.row(i);
        let Some((best, best_fast)) = others
            .by_ref()
            .filter(|&j| fast(j) - width(j) <= own_fast + own_width)
            .map(|j| (factor(j) * means.exact(row, j), fast(j)))
            .min_by(|a, b| a.0.total_cmp(&b.0))
        else {
            // Every other cluster is surely dearer: the point stays.
            return 0.0;
        };
        let own = factor(r) * means.exact(row, r);
        let gap = own - best;
        let rel = exact_rel_error(row.0.len(), log2_ceil(self.x.n_cols));
        if gap.abs() <= 2.0 * rel * (own + best) {
            return 0.0;
        }
        let rounding = ((own_fast - best_fast) - gap).abs();
        if 2.0 * rounding < gap.abs() {
            return 0.0;
        }
        // Lloyd's gap is in distance; the objective's is weighted.
        if lloyd {
            w * gap.abs()
        } else {
            gap.abs()
        }
    }

    /// The means `S_j / W_j` as a dense `k × d` matrix, row after row
    /// (zero for a weightless cluster).
    fn dense_centroids(&self, st: &SparseState) -> Vec<f64> {
        let (k, d) = (st.k, self.x.n_cols);
        let mut out = vec![0.0; k * d];
        for (c, col) in st.sums.chunks_exact(k).enumerate() {
            for (j, (&s, &w)) in col.iter().zip(&st.weights).enumerate() {
                out[j * d + c] = if w > 0.0 { s / w } else { 0.0 };
            }
        }
        out
    }

    /// Dense copies of rows `idx`.
    fn densify(&self, idx: &[usize]) -> Vec<f64> {
        let d = self.x.n_cols;
        let mut out = vec![0.0; idx.len() * d];
        for (row, &i) in out.chunks_exact_mut(d).zip(idx) {
            let (cols, vals) = self.x.row(i);
            for (&c, v) in cols.iter().zip(vals) {
                row[c] = v.to_f64();
            }
        }
        out
    }
}

impl<T: Scalar> Rows for SparseData<'_, T> {
    type Row<'r>
        = (&'r [usize], &'r [T])
    where
        Self: 'r;

    fn dim(&self) -> usize {
        self.x.n_cols
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
}

impl<T: Scalar> Source for SparseData<'_, T> {
    type State = SparseState;
    type Out = T;

    fn n(&self) -> usize {
        self.x.n_rows()
    }

    fn d(&self) -> usize {
        self.x.n_cols()
    }

    fn initial_state(
        &self,
        params: &ValidParams,
        rng: &mut Xoshiro256PlusPlus,
        _start: Option<Vec<f64>>,
        cancel: &AtomicBool,
    ) -> SparseState {
        // `joint_starts` is not implemented here: `_start` is always `None`.
        let (n, k) = (self.x.n_rows(), params.k());
        let centroids = match params.init() {
            Init::RandomPartition => {
                let labels = (0..n).map(|_| rng.below(k)).collect();
                return self.state_from_labels(k, labels);
            }
            Init::Forgy => self.densify(&forgy_indices(n, k, rng)),
            Init::KMeansPlusPlus => self.densify(&self.plus_plus(k, rng, cancel)),
            Init::Centroids(c) => c.iter().copied().collect(),
        };
        let centroids = SparseCentroids::new(centroids, self.x.n_cols);
        let labels = self.x.nearest_rows(&centroids, cancel);
        if cancelled(cancel) {
            // Never used: the restart sees the flag and stops.
            return self.state_from_labels(k, (0..n).map(|i| i % k).collect());
        }
        self.state_from_labels(k, labels)
    }

    fn plus_plus_rows(
        &self,
        k: usize,
        rng: &mut Xoshiro256PlusPlus,
        cancel: &AtomicBool,
    ) -> Vec<usize> {
        self.plus_plus(k, rng, cancel)
    }

    fn sweep(&self, st: &mut SparseState, order: &[usize], factor: f64) -> usize {
        let moves = self.sweep_moves(st, order, factor);
        self.recompute(st);
        moves
    }

    fn refresh(&self, st: &mut SparseState) {
        self.recompute(st);
    }

    fn candidate_sweep(&self, st: &mut SparseState, order: &[usize], _: f64) -> (usize, f64) {
        // The objective comes from the clusters' `‖S‖²`, which the moves
        // keep; the recomputation waits for the next full sweep.
        let moves = self.sweep_moves(st, order, 1.0);
        (moves, self.objective(st))
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
            let (r, w) = (st.labels[i], self.weight(i));
            improves_beyond_rounding(&st.counts, &st.weights, r, w, lloyd, abs_margin, |j| {
                self.dist(i, st, j, dots[j])
            })
        })
    }

    fn move_ratios(&self, st: &SparseState, sample: &[usize]) -> Vec<f64> {
        sample
            .par_iter()
            .map_init(
                || vec![0.0; st.k],
                |dots, &i| {
                    self.dots(i, st, dots);
                    let (r, w) = (st.labels[i], self.weight(i));
                    move_ratio(&st.counts, &st.weights, r, w, |j| {
                        self.dist(i, st, j, dots[j])
                    })
                },
            )
            .collect()
    }

    fn lloyd_iteration(&self, st: &mut SparseState) -> usize {
        let k = st.k;
        let snapshot = &*st;
        // Chunks of points, each polling the flag first; a skipped chunk
        // keeps its labels (the restart stops on the flag anyway).
        let mut new_labels = st.labels.clone();
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
                        *l = nearest_by(k, Some(snapshot.labels[i]), |j| {
                            self.dist(i, snapshot, j, dots[j])
                        });
                    }
                },
            );
        let changed = new_labels
            .iter()
            .zip(&st.labels)
            .filter(|(a, b)| a != b)
            .count();
        st.labels = new_labels;
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
            .zip(&st.weights)
            .filter(|(_, w)| **w > 0.0)
            .map(|(s, w)| s / w)
            .sum();
        let fast = total - explained;
        if fast > 1e-6 * total {
            return fast;
        }
        let means = SparseCentroids::new(self.dense_centroids(st), self.x.n_cols);
        self.weighted_sum(&self.own_distances(st, &means))
    }

    /// The dense merge-split move ([`crate::refine`]) with sparse rows; the
    /// new state's sums are recomputed from its labels.
    fn merge_split(
        &self,
        st: &SparseState,
        cache: &mut SplitCache,
        batch: bool,
        below: Option<f64>,
    ) -> Option<(SparseState, usize)> {
        let centroids = self.dense_centroids(st);
        let (labels, touched) =
            propose_labels(self, &st.labels, &st.weights, &centroids, cache, batch)?;
        let state = self.state_from_labels(st.k, labels);
        if below.is_some_and(|b| self.objective(&state) >= b) {
            return None;
        }
        Some((state, touched.len()))
    }

    fn labels(st: &SparseState) -> &[usize] {
        &st.labels
    }

    /// [`crate::refine::split_labels`] with sparse rows; the new state's
    /// sums are recomputed from its labels (an empty new cluster is filled).
    fn split(&self, st: &SparseState, cache: &mut SplitCache) -> (SparseState, Option<usize>) {
        let centroids = self.dense_centroids(st);
        let (labels, split) = split_labels(self, &st.labels, &centroids, st.k, cache);
        (self.state_from_labels(st.k + 1, labels), split)
    }

    fn merge(&self, st: &SparseState, rank: usize) -> Option<SparseState> {
        let centroids = self.dense_centroids(st);
        let labels = merge_labels(&st.labels, &st.weights, &centroids, rank)?;
        Some(self.state_from_labels(st.k - 1, labels))
    }

    fn labelled_state(&self, k: usize, labels: Vec<usize>) -> SparseState {
        self.state_from_labels(k, labels)
    }

    /// The objective from the returned centroids, as the dense finalize
    /// computes it: every point's distance summed in point order, each
    /// distance in the exact form (no cancellation however far the data
    /// lie from the origin).
    fn finalize(&self, st: &SparseState) -> (Array2<T>, f64, Vec<f64>) {
        let (k, d) = (st.k, self.x.n_cols);
        let means = self.dense_centroids(st);
        let centroids = Array2::from_shape_fn((k, d), |(j, c)| T::from_f64(means[j * d + c]));
        let wide = SparseCentroids::new(centroids.iter().map(|v| v.to_f64()).collect(), d);
        let own = self.own_distances(st, &wide);
        let mut objective = 0.0;
        let mut per_cluster = vec![0.0; k];
        for (i, (&l, v)) in st.labels.iter().zip(&own).enumerate() {
            let cost = self.weight(i) * v;
            objective += cost;
            per_cluster[l] += cost;
        }
        (centroids, objective, per_cluster)
    }

    /// Whether the fit's decisions, taken through the expansion, can be
    /// trusted. For the final state `st`, every point whose decision under
    /// the method's rule (Lloyd's nearest centroid, or Hartigan's transfer
    /// test with factor 1) the expansion's error bound leaves in doubt is
    /// decided again with exact distances, and the objective that rides on
    /// it where the expansion's actual rounding rivals the exact gap is
    /// added up ([`SparseData::unresolved_stake`]): what rounding, not the
    /// data, decided. More than [`PRECISION_TOLERANCE`] of the (exact)
    /// objective is an error naming the remedy: the sweeps took such
    /// decisions all along, so their result, though exactly reported, is
    /// what chance made it. A first bound (O(n)) on that sum skips the pass
    /// where rounding cannot matter, as for counts and TF-IDF.
    fn check_precision(&self, st: &SparseState, params: &ValidParams) -> Result<()> {
        let lloyd = params.method() == Method::Lloyd;
        let (n, k, d) = (self.x.n_rows(), st.k, self.x.n_cols);
        let means = SparseCentroids::new(self.dense_centroids(st), d);
        let own = self.own_distances(st, &means);
        let objective = self.weighted_sum(&own);
        let allowed = PRECISION_TOLERANCE * objective;
        let max_mean = (0..k).map(|j| means.norm(j)).fold(0.0f64, f64::max);
        // The most that can ride on a doubtful decision: the two cost
        // intervals overlap, so the exact gap is at most their widths.
        let at_most: f64 = (0..n)
            .map(|i| {
                let (r, w) = (st.labels[i], self.weight(i));
                let slack = self.state_slack(i);
                let own_err = slack * (self.norms[i] + means.norm(r));
                let other_err = slack * (self.norms[i] + max_mean);
                if lloyd || w == 0.0 {
                    2.0 * w * (own_err + other_err)
                } else if may_leave(&st.counts, &st.weights, r, w) {
                    2.0 * (leave_weight(w, st.weights[r]) * own_err + w * other_err)
                } else {
                    0.0
                }
            })
            .sum();
        if at_most <= allowed {
            return Ok(());
        }
        let chunks = n.div_ceil(POLL_POINTS);
        let exceeded = AtomicBool::new(false);
        let stakes: Vec<f64> = (0..chunks)
            .into_par_iter()
            .map_init(
                || vec![0.0; k],
                |dots, c| {
                    if cancelled(self.cancel) || exceeded.load(Ordering::Relaxed) {
                        return 0.0;
                    }
                    let points = c * POLL_POINTS..((c + 1) * POLL_POINTS).min(n);
                    let stake: f64 = points
                        .map(|i| self.unresolved_stake(st, &means, lloyd, i, dots))
                        .sum();
                    if stake > allowed {
                        exceeded.store(true, Ordering::Relaxed);
                    }
                    stake
                },
            )
            .collect();
        // Summed in chunk order; a chunk alone above the limit puts the
        // total above it too (non-negative terms), so the outcome does not
        // depend on which chunks the early exit skipped.
        let unresolved: f64 = stakes.iter().sum();
        if cancelled(self.cancel) || !(exceeded.load(Ordering::Relaxed) || unresolved > allowed) {
            return Ok(());
        }
        let max_norm = self.norms.iter().fold(0.0f64, |m, v| m.max(*v));
        Err(Error::invalid(
            "x",
            format!(
                "sparse rows with squared norms up to {max_norm:.3e}, in clusters of \
                 squared spread {:.3e} per point",
                objective / n as f64
            ),
            format!(
                "too far from the origin for sparse arithmetic: sparse rows are clustered \
                 through ‖x‖² − 2x·μ + ‖μ‖², whose rounding (about 2.2e-16 · ‖x‖²) leaves \
                 decisions worth more than {PRECISION_TOLERANCE:e} of the objective to chance; \
                 center the data (subtract the column means) or pass it dense"
            ),
        ))
    }
}

/// The sweeps keep `‖S_j‖²` of every cluster's sum, which reaches
/// `(n·R)²` (`R²` the largest squared row norm): unweighted, that must be
/// finite besides [`check_spread`]'s `4·n·R²` (weighted,
/// [`weight_exponent`] sees to it).
fn check_sum_norms(r2: f64, n: usize) -> Result<()> {
    if (r2 * n as f64 * n as f64).is_finite() {
        return Ok(());
    }
    Err(Error::invalid(
        "x",
        format!("a row at squared distance {r2:e} from the origin"),
        format!(
            "too spread out for sparse input: n_samples² * that must stay below {:e} so \
             that the squared norms of cluster sums do not overflow float64; rescale x",
            f64::MAX
        ),
    ))
}

/// `x` and its weights checked for `params` (shape, range) and for
/// clusterings of up to `k_most` clusters (positive weights), with the power
/// of two the weights were scaled by
/// ([`Clustering::rescale_to_caller_units`] undoes it).
pub(crate) fn checked_sparse<'a, T: Scalar>(
    x: CsrView<'a, T>,
    sample_weight: Option<ArrayView1<'a, f64>>,
    params: &ValidParams,
    k_most: usize,
    cancel: &'a AtomicBool,
) -> Result<(SparseData<'a, T>, i32)> {
    let (n, d) = (x.n_rows(), x.n_cols());
    params.check_data(n, d)?;
    let weights = checked_weights(sample_weight, n, k_most)?;
    let mut data = SparseData::new(x, weights, cancel);
    let r2 = data.norms.iter().fold(0.0f64, |m, v| m.max(*v));
    check_spread(r2, n, "the origin")?;
    let exponent = match data.weights.as_deref() {
        Some(w) => weight_exponent(w, r2, true)?,
        None => {
            check_sum_norms(r2, n)?;
            0
        }
    };
    data.scale_weights(exponent);
    Ok((data, exponent))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_candidate_sweep_gives_the_objective_its_moves_left() {
        // Overlapping blobs, about half the entries zeroed.
        let x = crate::testdata::blobs(1500, 12, 20, 12).mapv(|v| if v < 2.5 { 0.0 } else { v });
        let (mut indptr, mut indices, mut values) = (vec![0], Vec::new(), Vec::new());
        for row in x.rows() {
            for (j, &v) in row.iter().enumerate().filter(|(_, &v)| v != 0.0) {
                indices.push(j);
                values.push(v);
            }
            indptr.push(values.len());
        }
        let csr = CsrView::new(12, &indptr, &indices, &values).unwrap();
        let cancel = AtomicBool::new(false);
        let data = SparseData::new(csr, None, &cancel);
        let k = 6;
        let mut st = data.state_from_labels(k, (0..1500).map(|i| i % k).collect());
        let before = data.objective(&st);
        let order: Vec<usize> = (0..1500).step_by(3).collect();
        let (moved, objective) = data.candidate_sweep(&mut st, &order, before);
        assert!(moved > 50 && objective < before);
        data.recompute(&mut st);
        let exact = data.objective(&st);
        assert!(
            (objective - exact).abs() <= 1e-10 * exact,
            "{objective} {exact}"
        );
    }
}
