//! Sparse rows with their norms and weights ([`SparseData`]), one
//! restart's state on them ([`SparseState`]), the sweep and the statistics
//! it keeps, and the checks of the input.

use super::centroids::expansion_slack;
use super::{cancelled, CsrView, SparseCentroids, POLL_POINTS};
use crate::data::{check_spread, checked_weights, weight_exponent, Scalar};
use crate::engine::stats::ClusterStats;
use crate::error::{Error, Result};
use crate::params::ValidParams;
use ndarray::ArrayView1;
use rayon::prelude::*;
use std::borrow::Cow;
use std::sync::atomic::AtomicBool;

/// Sparse rows with their squared norms and optional weights.
pub(crate) struct SparseData<'a, T> {
    pub(super) x: CsrView<'a, T>,
    /// `‖x_i‖²`.
    pub(super) norms: Vec<f64>,
    /// `Σ_i w_i‖x_i‖²`, the objective of one cluster centred at the origin.
    pub(super) total_norm: f64,
    pub(super) weights: Option<Cow<'a, [f64]>>,
    /// The fit's cancellation flag, polled inside every long pass.
    pub(super) cancel: &'a AtomicBool,
}

/// One restart's state on sparse data.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SparseState {
    pub(super) k: usize,
    /// Labels, counts, weights and the sums, `d × k` column-major per
    /// cluster: `sums[c * k + j]` is cluster `j`'s weighted sum in column `c`.
    pub(super) stats: ClusterStats,
    /// `‖S_j‖²`.
    pub(super) sum_norms: Vec<f64>,
}

impl<'a, T: Scalar> SparseData<'a, T> {
    /// The rows with their weights (already scaled, if scaled), polling
    /// `cancel` in their passes.
    pub(crate) fn new(
        x: CsrView<'a, T>,
        weights: Option<Cow<'a, [f64]>>,
        cancel: &'a AtomicBool,
    ) -> Self {
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

    pub(super) fn set_total_norm(&mut self) {
        self.total_norm = (0..self.x.n_rows())
            .map(|i| self.weight(i) * self.norms[i])
            .sum();
    }

    /// Scales the weights by `2^e` (exactly), as [`weight_exponent`] asks.
    pub(super) fn scale_weights(&mut self, e: i32) {
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
    pub(super) fn state_slack(&self, i: usize) -> f64 {
        expansion_slack(self.x.row(i).0.len(), self.x.n_cols() as f64 + 4.0)
    }

    #[inline(always)]
    pub(super) fn weight(&self, i: usize) -> f64 {
        self.weights.as_deref().map_or(1.0, |w| w[i])
    }

    /// `dots[j] = x_i · S_j` for every cluster.
    #[inline(always)]
    pub(super) fn dots(&self, i: usize, st: &SparseState, dots: &mut [f64]) {
        dots.iter_mut().for_each(|v| *v = 0.0);
        let k = st.k;
        let (cols, vals) = self.x.row(i);
        for (&c, v) in cols.iter().zip(vals) {
            let v = v.to_f64();
            for (d, s) in dots.iter_mut().zip(&st.stats.sums[c * k..(c + 1) * k]) {
                *d += v * s;
            }
        }
    }

    /// Squared distance from point `i` to the mean of cluster `j`, given
    /// `dot = x_i · S_j`. Clamped at zero against rounding.
    #[inline(always)]
    pub(super) fn dist(&self, i: usize, st: &SparseState, j: usize, dot: f64) -> f64 {
        let w = st.stats.weights[j];
        if w <= 0.0 {
            return self.norms[i];
        }
        (self.norms[i] - 2.0 * dot / w + st.sum_norms[j] / (w * w)).max(0.0)
    }

    pub(super) fn recompute(&self, st: &mut SparseState) {
        let k = st.k;
        st.stats.clear();
        for (i, &l) in st.stats.labels.iter().enumerate() {
            let w = self.weight(i);
            st.stats.counts[l] += 1;
            st.stats.weights[l] += w;
            let (cols, vals) = self.x.row(i);
            for (&c, v) in cols.iter().zip(vals) {
                st.stats.sums[c * k + l] += w * v.to_f64();
            }
        }
        st.sum_norms.iter_mut().for_each(|s| *s = 0.0);
        for col in st.stats.sums.chunks_exact(k) {
            for (n, s) in st.sum_norms.iter_mut().zip(col) {
                *n += s * s;
            }
        }
    }

    pub(super) fn fill_empty_clusters(&self, st: &mut SparseState) -> usize {
        let empties = st.stats.empty_clusters();
        if empties.is_empty() {
            return 0;
        }
        let own_dist: Vec<f64> = (0..self.x.n_rows())
            .map(|i| {
                let l = st.stats.labels[i];
                let (cols, vals) = self.x.row(i);
                let dot: f64 = cols
                    .iter()
                    .zip(vals)
                    .map(|(&c, v)| v.to_f64() * st.stats.sums[c * st.k + l])
                    .sum();
                self.dist(i, st, l, dot)
            })
            .collect();
        let moved = st.stats.refill(&empties, own_dist, |i| self.weight(i));
        self.recompute(st);
        moved
    }

    pub(super) fn state_from_labels(&self, k: usize, labels: Vec<usize>) -> SparseState {
        let mut st = SparseState {
            k,
            stats: ClusterStats::new(k, self.x.n_cols(), labels),
            sum_norms: vec![0.0; k],
        };
        self.recompute(&mut st);
        self.fill_empty_clusters(&mut st);
        st
    }

    /// The exact squared distances from every point to its own mean in
    /// `st`, in parallel over chunks of points (zero where `cancel` cut
    /// the pass short).
    pub(super) fn own_distances(&self, st: &SparseState, means: &SparseCentroids) -> Vec<f64> {
        let mut own = vec![0.0; self.x.n_rows()];
        own.par_chunks_mut(POLL_POINTS)
            .enumerate()
            .for_each(|(c, chunk)| {
                if cancelled(self.cancel) {
                    return;
                }
                for (o, v) in chunk.iter_mut().enumerate() {
                    let i = c * POLL_POINTS + o;
                    *v = means.exact(self.x.row(i), st.stats.labels[i]);
                }
            });
        own
    }

    /// `Σ_i w_i·own[i]`, in point order.
    pub(super) fn weighted_sum(&self, own: &[f64]) -> f64 {
        own.iter()
            .enumerate()
            .map(|(i, v)| self.weight(i) * v)
            .sum()
    }

    /// The means `S_j / W_j` as a dense `k × d` matrix, row after row
    /// (zero for a weightless cluster).
    pub(super) fn dense_centroids(&self, st: &SparseState) -> Vec<f64> {
        let (k, d) = (st.k, self.x.n_cols());
        let mut out = vec![0.0; k * d];
        for (c, col) in st.stats.sums.chunks_exact(k).enumerate() {
            for (j, (&s, &w)) in col.iter().zip(&st.stats.weights).enumerate() {
                out[j * d + c] = if w > 0.0 { s / w } else { 0.0 };
            }
        }
        out
    }

    /// Dense copies of rows `idx`.
    pub(super) fn densify(&self, idx: &[usize]) -> Vec<f64> {
        let d = self.x.n_cols();
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
