//! Dense centroids against sparse rows: squared distances without
//! cancellation where it matters.
//!
//! The fast form of `‖x − μ‖²` for a sparse row `x` and a dense centroid
//! `μ` is the expansion `‖μ‖² + Σ_{c ∈ nz(x)} (x_c² − 2·x_c·μ_c)`: O(nnz(x))
//! per centroid once `‖μ‖²` is known. It cancels: its rounding error is
//! about ε·(‖x‖² + ‖μ‖²), which dwarfs the distance when both are far from
//! the origin and close to each other (at an offset of 1e8 with unit spread
//! no digit is left). The exact form
//! `Σ_{c ∈ nz(x)} (x_c − μ_c)² + Σ_{c ∉ nz(x)} μ_c²` adds non-negative terms
//! only, so its relative error is a few ε·(nnz + log d), but its second sum
//! runs over the row's zero columns; [`SquareSums`] answers it in
//! O(nnz·log d) without subtracting anything. (Writing that sum as
//! `‖μ‖² − Σ_{c ∈ nz(x)} μ_c²` would cancel again.)
//!
//! [`SparseCentroids`] uses the fast form with a rigorous bound on its
//! error ([`expansion_slack`]), and the exact form wherever the bound leaves
//! the nearest centroid or a reported distance in doubt; values whose
//! squares overflow float64 are compared after an exact power-of-two
//! scaling.

use super::CsrRow;
use crate::data::{exponent_above, pow2, times_pow2, Scalar};
use std::sync::OnceLock;

/// Sums of `μ_c²` over ranges of columns, for one dense vector `μ`: a
/// segment tree with the squares as leaves (`nodes[d + c] = μ_c²`) and
/// `nodes[i] = nodes[2i] + nodes[2i + 1]` above them. Every node is a sum of
/// non-negative terms, and a range is the sum of the `O(log d)` nodes that
/// tile it, so a range sum has a relative error of at most about
/// `3·log₂(2d)·ε`, however large the squares outside it.
pub(crate) struct SquareSums {
    d: usize,
    nodes: Vec<f64>,
}

impl SquareSums {
    pub(crate) fn new(mu: &[f64]) -> Self {
        let d = mu.len();
        let mut nodes = vec![0.0; 2 * d];
        for (node, v) in nodes[d..].iter_mut().zip(mu) {
            *node = v * v;
        }
        for i in (1..d).rev() {
            nodes[i] = nodes[2 * i] + nodes[2 * i + 1];
        }
        SquareSums { d, nodes }
    }

    /// `Σ μ_c²` over `lo..hi`.
    fn range(&self, lo: usize, hi: usize) -> f64 {
        let (mut l, mut r) = (lo + self.d, hi + self.d);
        let mut total = 0.0;
        while l < r {
            if l & 1 == 1 {
                total += self.nodes[l];
                l += 1;
            }
            if r & 1 == 1 {
                r -= 1;
                total += self.nodes[r];
            }
            l >>= 1;
            r >>= 1;
        }
        total
    }

    /// `Σ μ_c²` over the columns not in `cols` (sorted, distinct, below
    /// `d`): the gaps between them, each read off the tree.
    pub(crate) fn outside(&self, cols: &[usize]) -> f64 {
        let mut total = 0.0;
        let mut from = 0;
        for &c in cols {
            if c > from {
                total += self.range(from, c);
            }
            from = c + 1;
        }
        if self.d > from {
            total += self.range(from, self.d);
        }
        total
    }
}

/// `Σ v²` summed pairwise (blocks of 16 in order, then halves): relative
/// error below `(16 + log₂ len)·ε`, where a plain running sum's grows
/// with the length.
pub(crate) fn pairwise_sq_norm(v: &[f64]) -> f64 {
    if v.len() <= 16 {
        return v.iter().map(|a| a * a).sum();
    }
    let (a, b) = v.split_at(v.len() / 2);
    pairwise_sq_norm(a) + pairwise_sq_norm(b)
}

/// `⌈log₂ d⌉` for the error bounds (0 for `d ≤ 1`).
pub(crate) fn log2_ceil(d: usize) -> f64 {
    f64::from(usize::BITS - d.saturating_sub(1).leading_zeros())
}

/// Factor `s` such that the fast form of `‖x − μ‖²` is within
/// `s·(‖x‖² + ‖μ‖²)` of the exact value, for a row with `nnz` non-zeros and
/// `‖μ‖²` summed with relative error `norm_terms·ε` (`16 + log₂ d`
/// pairwise, `d` in a running sum).
///
/// Each term `x_c² − 2·x_c·μ_c` is rounded three times, an error of at most
/// 2ε of its magnitude `x_c² + 2|x_c·μ_c|`; summing `nnz` of them adds
/// `nnz·ε` of their magnitudes, which total at most
/// `2‖x‖² + ‖μ‖² ≤ 2(‖x‖² + ‖μ‖²)` (as `2|x_c·μ_c| ≤ x_c² + μ_c²`); `‖μ‖²`
/// adds its own `norm_terms·ε`, and the last addition 3ε of the total.
/// Together `(2·nnz + norm_terms + 7)·ε·(‖x‖² + ‖μ‖²)` to first order; the
/// constant 12 used here covers the second-order terms with room to
/// spare. (The dot-product form `‖x‖² − 2x·μ + ‖μ‖²` and that of two rows
/// obey the same bound.)
pub(crate) fn expansion_slack(nnz: usize, norm_terms: f64) -> f64 {
    (2.0 * nnz as f64 + norm_terms + 12.0) * f64::EPSILON
}

/// Relative error bound of [`SparseCentroids::exact`] (and of any sum of
/// `nnz + 3·log₂(2d)` non-negative rounded terms): each square carries 3ε,
/// the sums one ε per addition in sequence.
pub(crate) fn exact_rel_error(nnz: usize, log_d: f64) -> f64 {
    (2.0 * nnz as f64 + 3.0 * (log_d + 1.0) + 8.0) * f64::EPSILON
}

/// `k` dense centroids (`k × d`, row-major, `f64`) prepared for sparse rows:
/// their squared norms (pairwise), and per centroid a [`SquareSums`] built
/// when a distance to it is first needed exactly (most never are).
pub(crate) struct SparseCentroids {
    k: usize,
    d: usize,
    means: Vec<f64>,
    norms: Vec<f64>,
    sums: Vec<OnceLock<SquareSums>>,
    log_d: f64,
    /// The largest `|μ_c|` (scales distances that overflow).
    max_abs: f64,
}

impl SparseCentroids {
    pub(crate) fn new(means: Vec<f64>, d: usize) -> Self {
        let k = means.len().checked_div(d).unwrap_or(0);
        let norms = means.chunks_exact(d.max(1)).map(pairwise_sq_norm).collect();
        let max_abs = means.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        SparseCentroids {
            k,
            d,
            means,
            norms,
            sums: (0..k).map(|_| OnceLock::new()).collect(),
            log_d: log2_ceil(d),
            max_abs,
        }
    }

    /// Number of centroids.
    pub(crate) fn k(&self) -> usize {
        self.k
    }

    /// Centroid `j`.
    pub(crate) fn mean(&self, j: usize) -> &[f64] {
        &self.means[j * self.d..(j + 1) * self.d]
    }

    /// `‖μ_j‖²` (pairwise).
    pub(crate) fn norm(&self, j: usize) -> f64 {
        self.norms[j]
    }

    /// The fast form of `‖x − μ_j‖²` (clamped at zero); within
    /// `self.slack(row)·(‖x‖² + ‖μ_j‖²)` of the exact value.
    #[inline]
    pub(crate) fn fast<T: Scalar>(&self, row: CsrRow<'_, T>, j: usize) -> f64 {
        sparse_sq_dist(row, self.mean(j), self.norms[j])
    }

    /// [`expansion_slack`] for a row of `nnz` non-zeros against these
    /// centroids.
    pub(crate) fn slack(&self, nnz: usize) -> f64 {
        expansion_slack(nnz, 16.0 + self.log_d)
    }

    /// `‖x − μ_j‖²` as a sum of non-negative terms (see the module doc);
    /// `inf` only where the distance exceeds float64.
    pub(crate) fn exact<T: Scalar>(&self, (cols, vals): CsrRow<'_, T>, j: usize) -> f64 {
        let mu = self.mean(j);
        let near: f64 = cols
            .iter()
            .zip(vals)
            .map(|(&c, v)| {
                let t = v.to_f64() - mu[c];
                t * t
            })
            .sum();
        let sums = self.sums[j].get_or_init(|| SquareSums::new(mu));
        near + sums.outside(cols)
    }

    /// `‖x − μ_j‖² · 2^-2e` over every column, with both scaled by `2^-e`
    /// first (exact), for distances that overflow unscaled.
    fn scaled<T: Scalar>(&self, (cols, vals): CsrRow<'_, T>, j: usize, e: i32) -> f64 {
        let s = pow2(-e);
        let mu = self.mean(j);
        let mut total = 0.0;
        let mut next = cols.iter().zip(vals).peekable();
        for (c, m) in mu.iter().enumerate() {
            let x = match next.peek() {
                Some((&col, v)) if col == c => {
                    let x = v.to_f64();
                    next.next();
                    x
                }
                _ => 0.0,
            };
            let t = x * s - m * s;
            total += t * t;
        }
        total
    }

    /// The exponent [`Self::scaled`] needs for row `x`.
    fn scale_for<T: Scalar>(&self, (_, vals): CsrRow<'_, T>) -> i32 {
        let m = vals
            .iter()
            .fold(self.max_abs, |m, v| m.max(v.to_f64().abs()));
        exponent_above(m)
    }

    /// The nearest centroid to row `x` (ties to the lowest index), as the
    /// exact distances decide it: the fast form where its bound settles the
    /// question, the exact form for the centroids it leaves in doubt.
    /// `scratch` holds `k` values.
    pub(crate) fn nearest<T: Scalar>(&self, row: CsrRow<'_, T>, scratch: &mut [f64]) -> usize {
        let x_norm: f64 = row.1.iter().map(|v| v.to_f64() * v.to_f64()).sum();
        let slack = self.slack(row.0.len());
        let bound = |j: usize| slack * (x_norm + self.norms[j]);
        let mut best_upper = f64::INFINITY;
        for (j, s) in scratch.iter_mut().enumerate().take(self.k) {
            *s = self.fast(row, j);
            let upper = *s + bound(j);
            if upper < best_upper {
                best_upper = upper;
            }
        }
        // Centroids whose exact distance may be the smallest: all others
        // are provably farther than one of them. NaN bounds (overflow)
        // leave a centroid in doubt.
        let in_doubt = |j: usize, fast: f64| {
            (fast - bound(j)).partial_cmp(&best_upper) != Some(std::cmp::Ordering::Greater)
        };
        let mut doubtful = (0..self.k).filter(|&j| in_doubt(j, scratch[j]));
        let first = doubtful.next().unwrap_or(0);
        if doubtful.next().is_none() {
            return first;
        }
        let candidates: Vec<usize> = (0..self.k).filter(|&j| in_doubt(j, scratch[j])).collect();
        let exact: Vec<f64> = candidates.iter().map(|&j| self.exact(row, j)).collect();
        let mut best = (f64::INFINITY, first);
        for (&j, &e) in candidates.iter().zip(&exact) {
            if e < best.0 {
                best = (e, j);
            }
        }
        if best.0.is_finite() {
            return best.1;
        }
        // Every candidate's distance overflows: compare them scaled.
        let e = self.scale_for(row);
        for &j in &candidates {
            let v = self.scaled(row, j, e);
            if v < best.0 {
                best = (v, j);
            }
        }
        best.1
    }

    /// `‖x − μ_j‖` to a relative [`TRANSFORM_REL`] or better, given the
    /// fast form `fast` of its square and `x_norm = ‖x‖²`: the fast form
    /// where its bound allows, else the exact one, scaled where the square
    /// overflows.
    pub(crate) fn distance<T: Scalar>(
        &self,
        row: CsrRow<'_, T>,
        j: usize,
        fast: f64,
        x_norm: f64,
    ) -> f64 {
        let bound = self.slack(row.0.len()) * (x_norm + self.norms[j]);
        if bound.is_finite() && bound <= TRANSFORM_REL * fast {
            return fast.sqrt();
        }
        let exact = self.exact(row, j);
        if exact.is_finite() {
            return exact.sqrt();
        }
        let e = self.scale_for(row);
        times_pow2(self.scaled(row, j, e).sqrt(), e)
    }
}

/// `‖x − μ‖²` for a sparse row `x = (columns, values)` and a dense `μ` with
/// `mu_norm = ‖μ‖²`, as `‖μ‖² + Σ_{nonzeros} (x_c² − 2·x_c·μ_c)`: exact
/// algebra, O(nnz(x)); the fast form of [`SparseCentroids`].
#[inline(always)]
pub(crate) fn sparse_sq_dist<T: Scalar>(
    (cols, vals): CsrRow<'_, T>,
    mu: &[f64],
    mu_norm: f64,
) -> f64 {
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

/// Relative accuracy of a squared distance that sparse `transform` takes
/// from the fast form (its distances are then within half of it,
/// `2^-41 ≈ 4.5e-13`); beyond it the exact form is used.
pub(crate) const TRANSFORM_REL: f64 = 1.0 / (1u64 << 40) as f64;

/// `‖a − b‖²` for two sparse rows, exactly in the sense of
/// [`SparseCentroids::exact`]: the sorted column lists are merged and every
/// term is a square.
pub(crate) fn rows_sq_dist<T: Scalar>((ca, va): CsrRow<'_, T>, (cb, vb): CsrRow<'_, T>) -> f64 {
    let (mut i, mut j) = (0, 0);
    let mut total = 0.0;
    while i < ca.len() || j < cb.len() {
        let t = match (ca.get(i), cb.get(j)) {
            (Some(&a), Some(&b)) if a == b => {
                let t = va[i].to_f64() - vb[j].to_f64();
                i += 1;
                j += 1;
                t
            }
            (Some(&a), Some(&b)) if a < b => {
                i += 1;
                va[i - 1].to_f64()
            }
            (Some(_), None) => {
                i += 1;
                va[i - 1].to_f64()
            }
            _ => {
                j += 1;
                vb[j - 1].to_f64()
            }
        };
        total += t * t;
    }
    total
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::rng::Xoshiro256PlusPlus;

    #[test]
    fn sums_outside_a_row_equal_the_plain_sum() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        for d in [1, 2, 3, 5, 7, 8, 13, 64, 100] {
            let mu: Vec<f64> = (0..d).map(|_| rng.unit_f64() * 8.0 - 4.0).collect();
            let sums = SquareSums::new(&mu);
            for _ in 0..50 {
                let cols: Vec<usize> = (0..d).filter(|_| rng.unit_f64() < 0.3).collect();
                let want: f64 = (0..d)
                    .filter(|c| !cols.contains(c))
                    .map(|c| mu[c] * mu[c])
                    .sum();
                let got = sums.outside(&cols);
                assert!((got - want).abs() <= 1e-13 * want.max(1e-300), "d={d}");
            }
        }
    }

    #[test]
    fn exact_distances_do_not_cancel_far_from_the_origin() {
        // A row and a centroid 1e8 from the origin and 1 apart, with a
        // small entry in a column where the row is zero.
        let means = vec![1e8 + 1.0, 1e8, 0.5];
        let c = SparseCentroids::new(means, 3);
        let (cols, vals) = (vec![0usize, 1], vec![1e8f64, 1e8]);
        assert_eq!(c.exact((&cols, &vals), 0), 1.25);
        let mut scratch = vec![0.0];
        assert_eq!(c.nearest((&cols, &vals), &mut scratch), 0);
        let other = (vec![0usize, 1, 2], vec![1e8 + 1.0, 1e8, 0.5]);
        assert_eq!(rows_sq_dist((&cols, &vals), (&other.0, &other.1)), 1.25);
    }

    #[test]
    fn ceiling_logarithms() {
        assert_eq!(log2_ceil(1), 0.0);
        assert_eq!(log2_ceil(2), 1.0);
        assert_eq!(log2_ceil(5), 3.0);
    }
}
