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
//! centroid than both are to the origin; for the data sparse input is made
//! for (counts, TF-IDF) this is harmless, and the reported objective is
//! recomputed from the returned centroids.

use crate::clustering::Clustering;
use crate::data::{check_spread, checked_weights, Scalar};
use crate::error::{Error, Result};
use crate::init::forgy_indices;
use crate::move_rule::{choose_move, improves_beyond_rounding, may_leave};
use crate::multistart::fit_source;
use crate::nearest::nearest_by;
use crate::params::{Init, Params, ValidParams};
use crate::partition::refill;
use crate::plus_plus::kmeans_plus_plus_indices;
use crate::refine::{propose_labels, Rows, SplitCache};
use crate::rng::Xoshiro256PlusPlus;
use crate::source::Source;
use ndarray::{Array2, ArrayView1};
use rayon::prelude::*;
use std::borrow::Cow;
use std::sync::atomic::AtomicBool;

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

    #[inline(always)]
    fn row(&self, i: usize) -> (&'a [usize], &'a [T]) {
        let (a, b) = (self.indptr[i], self.indptr[i + 1]);
        (&self.indices[a..b], &self.data[a..b])
    }

    /// `x_i · v` for a dense `v`.
    #[inline(always)]
    fn dot_dense(&self, i: usize, v: &[f64]) -> f64 {
        let (cols, vals) = self.row(i);
        cols.iter().zip(vals).map(|(&c, x)| x.to_f64() * v[c]).sum()
    }

    /// `‖x_i − μ‖²` for a dense `μ` with `mu_norm = ‖μ‖²` ([`sparse_sq_dist`]).
    #[inline(always)]
    pub(crate) fn sq_dist_dense(&self, i: usize, mu: &[f64], mu_norm: f64) -> f64 {
        sparse_sq_dist(self.row(i), mu, mu_norm)
    }
}

/// `‖x − μ‖²` for a sparse row `x = (columns, values)` and a dense `μ` with
/// `mu_norm = ‖μ‖²`, as `‖μ‖² + Σ_{nonzeros} (x_c² − 2·x_c·μ_c)`: exact
/// algebra, O(nnz(x)).
#[inline(always)]
fn sparse_sq_dist<T: Scalar>((cols, vals): (&[usize], &[T]), mu: &[f64], mu_norm: f64) -> f64 {
    let cross: f64 = cols
        .iter()
        .zip(vals)
        .map(|(&c, v)| {
            let v = v.to_f64();
            v * v - 2.0 * v * mu[c]
        })
        .sum();
    (mu_norm + cross).max(0.0)
}

/// Squared norms of the rows of a row-major matrix with `d` columns.
pub(crate) fn row_sq_norms(m: &[f64], d: usize) -> Vec<f64> {
    m.chunks_exact(d)
        .map(|r| r.iter().map(|v| v * v).sum())
        .collect()
}

/// Sparse rows with their squared norms and optional weights.
pub(crate) struct SparseData<'a, T> {
    x: CsrView<'a, T>,
    /// `‖x_i‖²`.
    norms: Vec<f64>,
    /// `Σ_i w_i‖x_i‖²`, the objective of one cluster centred at the origin.
    total_norm: f64,
    weights: Option<Cow<'a, [f64]>>,
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
    fn new(x: CsrView<'a, T>, weights: Option<Cow<'a, [f64]>>) -> Self {
        let norms = (0..x.n_rows())
            .map(|i| x.row(i).1.iter().map(|v| v.to_f64() * v.to_f64()).sum())
            .collect();
        let mut data = SparseData {
            x,
            norms,
            total_norm: 0.0,
            weights,
        };
        data.total_norm = (0..data.x.n_rows())
            .map(|i| data.weight(i) * data.norms[i])
            .sum();
        data
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

    /// Nearest of the dense `k × d` centroids `c` for each point.
    fn assign_to_dense(&self, k: usize, c: &[f64]) -> Vec<usize> {
        let d = self.x.n_cols;
        let cnorms = row_sq_norms(c, d);
        (0..self.x.n_rows())
            .map(|i| {
                nearest_by(k, None, |j| {
                    (self.norms[i] - 2.0 * self.x.dot_dense(i, &c[j * d..(j + 1) * d]) + cnorms[j])
                        .max(0.0)
                })
            })
            .collect()
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
        let (n, k, d) = (self.x.n_rows(), params.k(), self.x.n_cols);
        let centroids = match params.init() {
            Init::RandomPartition => {
                let labels = (0..n).map(|_| rng.below(k)).collect();
                return self.state_from_labels(k, labels);
            }
            Init::Forgy => self.densify(&forgy_indices(n, k, rng)),
            Init::KMeansPlusPlus => {
                let mut scratch = vec![0.0; d];
                let chosen = kmeans_plus_plus_indices(
                    n,
                    k,
                    self.weights.is_some(),
                    |i| self.weight(i),
                    rng,
                    cancel,
                    |c, out| {
                        let (cols, vals) = self.x.row(c);
                        for (&col, v) in cols.iter().zip(vals) {
                            scratch[col] = v.to_f64();
                        }
                        for (i, o) in out.iter_mut().enumerate() {
                            *o = (self.norms[i] + self.norms[c]
                                - 2.0 * self.x.dot_dense(i, &scratch))
                            .max(0.0);
                        }
                        for &col in cols {
                            scratch[col] = 0.0;
                        }
                    },
                );
                self.densify(&chosen)
            }
            Init::Centroids(c) => c.iter().copied().collect(),
        };
        let labels = self.assign_to_dense(k, &centroids);
        self.state_from_labels(k, labels)
    }

    fn sweep(&self, st: &mut SparseState, order: &[usize], factor: f64) -> usize {
        let k = st.k;
        let mut dots = vec![0.0; k];
        let mut moves = 0;
        for &i in order {
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
        self.recompute(st);
        moves
    }

    fn can_improve(&self, st: &SparseState, lloyd: bool) -> bool {
        // Distances through dot products in unshifted coordinates round to
        // within a few ε·(‖x‖² + ‖μ‖²), hence a margin on the largest norm.
        let abs_margin = 1e-14 * self.norms.iter().fold(0.0f64, |m, &v| m.max(v));
        let mut dots = vec![0.0; st.k];
        (0..self.x.n_rows()).any(|i| {
            self.dots(i, st, &mut dots);
            let (r, w) = (st.labels[i], self.weight(i));
            improves_beyond_rounding(&st.counts, &st.weights, r, w, lloyd, abs_margin, |j| {
                self.dist(i, st, j, dots[j])
            })
        })
    }

    fn lloyd_iteration(&self, st: &mut SparseState) -> usize {
        let k = st.k;
        let snapshot = &*st;
        let new_labels: Vec<usize> = (0..self.x.n_rows())
            .into_par_iter()
            .map_init(
                || vec![0.0; k],
                |dots, i| {
                    self.dots(i, snapshot, dots);
                    nearest_by(k, Some(snapshot.labels[i]), |j| {
                        self.dist(i, snapshot, j, dots[j])
                    })
                },
            )
            .collect();
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
    /// the origin, tight clusters) the per-point sum is used instead.
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
        let mut dots = vec![0.0; st.k];
        (0..self.x.n_rows())
            .map(|i| {
                let l = st.labels[i];
                self.dots(i, st, &mut dots);
                self.weight(i) * self.dist(i, st, l, dots[l])
            })
            .sum()
    }

    /// The dense merge-split move ([`crate::refine`]) with sparse rows; the
    /// new state's sums are recomputed from its labels.
    fn merge_split(&self, st: &SparseState, cache: &mut SplitCache) -> Option<SparseState> {
        let centroids = self.dense_centroids(st);
        let (labels, _) = propose_labels(self, &st.labels, &st.weights, &centroids, cache)?;
        Some(self.state_from_labels(st.k, labels))
    }

    fn labels(st: &SparseState) -> &[usize] {
        &st.labels
    }

    fn centroids(&self, st: &SparseState) -> Vec<f64> {
        self.dense_centroids(st)
    }

    fn mean_variance(&self) -> f64 {
        // Σ_c var_c = Σ_i ‖x_i‖²/n − ‖mean‖², from the column sums.
        let (n, d) = (self.x.n_rows(), self.x.n_cols);
        let mut col_sums = vec![0.0; d];
        for i in 0..n {
            let (cols, vals) = self.x.row(i);
            for (&c, v) in cols.iter().zip(vals) {
                col_sums[c] += v.to_f64();
            }
        }
        let n = n as f64;
        let mean_sq: f64 = col_sums.iter().map(|s| (s / n) * (s / n)).sum();
        let total = self.norms.iter().sum::<f64>() / n - mean_sq;
        total.max(0.0) / d as f64
    }

    fn finalize(&self, st: &SparseState) -> (Array2<T>, f64, Vec<f64>) {
        let (k, d) = (st.k, self.x.n_cols);
        let means = self.dense_centroids(st);
        let centroids = Array2::from_shape_fn((k, d), |(j, c)| T::from_f64(means[j * d + c]));
        let wide: Vec<f64> = centroids.iter().map(|v| v.to_f64()).collect();
        let cnorms = row_sq_norms(&wide, d);
        let mut objective = 0.0;
        let mut per_cluster = vec![0.0; k];
        for (i, &l) in st.labels.iter().enumerate() {
            let cost = self.weight(i)
                * self
                    .x
                    .sq_dist_dense(i, &wide[l * d..(l + 1) * d], cnorms[l]);
            objective += cost;
            per_cluster[l] += cost;
        }
        (centroids, objective, per_cluster)
    }
}

/// [`crate::fit_cancellable`] for sparse rows: the same methods, parameters,
/// seeds and guarantees, without densifying `x` (centroids come back dense).
/// With the same seed the restarts draw the same starts and visiting orders
/// as on the dense copy of `x`, so results agree up to floating-point ties.
///
/// ```
/// use smartigan::{fit_sparse, CsrView, Params};
/// // rows: [1, 0, 0], [1, 0, 0.1], [0, 5, 0], [0, 5, 0.1]
/// let x = CsrView::new(3, &[0, 1, 3, 4, 6], &[0, 0, 2, 1, 1, 2], &[1.0f64, 1.0, 0.1, 5.0, 5.0, 0.1]).unwrap();
/// let r = fit_sparse(x, None, Params::new(2).seed(0), &Default::default()).unwrap();
/// assert_eq!(r.labels[0], r.labels[1]);
/// assert_ne!(r.labels[0], r.labels[2]);
/// assert!((r.objective - 0.01).abs() < 1e-12);
/// ```
pub fn fit_sparse<T: Scalar>(
    x: CsrView<'_, T>,
    sample_weight: Option<ArrayView1<'_, f64>>,
    params: Params,
    cancel: &AtomicBool,
) -> Result<Clustering<T>> {
    let params = params.check()?;
    let (n, d) = (x.n_rows(), x.n_cols());
    params.check_data(n, d)?;
    let weights = checked_weights(sample_weight, n, params.k())?;
    let data = SparseData::new(x, weights);
    check_spread(
        data.norms.iter().fold(0.0, |m, v| m.max(*v)),
        n,
        "the origin",
    )?;
    fit_source(&data, &params, cancel)
}
