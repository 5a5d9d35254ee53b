//! What the bounded descent reads of the rows, dense or sparse: what
//! refinement reads ([`Rows`]: weights, rows, distances to dense centres,
//! weighted sums), the number of rows, and the squared distance between two
//! rows, which a swap's exact gain needs.

use crate::data::{sq_dist, Data, Scalar};
use crate::engine::refine::Rows;

/// The rows as the bounded descent reads them, in the coordinates its
/// centroids are in (shifted for dense rows).
pub(crate) trait Points: Rows {
    /// Number of rows.
    fn len(&self) -> usize;
    /// `‖x_a − x_b‖²`.
    fn pair_sq_dist(&self, a: usize, b: usize) -> f64;
    /// The largest squared norm of a row in the coordinates distances are
    /// formed in: their rounding is relative to it (a centroid, a mean of
    /// rows, is no longer).
    fn sq_norm_bound(&self) -> f64;
    /// The squared distance of each row of `rows` to each of the `k`
    /// centres `centroids` (`k × dim`, with their squared norms `norms`):
    /// `out[r·k + j]` for row `rows[r]` and centre `j`, each exactly as
    /// [`Rows::sq_dist_to`] gives it (so a distance computed here and one
    /// computed alone agree to the bit).
    fn distances(&self, rows: &[usize], centroids: &[f64], norms: &[f64], out: &mut [f64]) {
        let (d, k) = (self.dim(), norms.len());
        let mut buf = vec![0.0; d];
        for (&i, dists) in rows.iter().zip(out.chunks_exact_mut(k)) {
            let row = self.row(i, &mut buf);
            for (j, v) in dists.iter_mut().enumerate() {
                *v = Self::sq_dist_to(&row, &centroids[j * d..(j + 1) * d], norms[j]);
            }
        }
    }
}

impl<T: Scalar> Points for Data<'_, T> {
    fn len(&self) -> usize {
        self.n
    }

    fn pair_sq_dist(&self, a: usize, b: usize) -> f64 {
        let mut rows = vec![0.0; 2 * self.d];
        let (x, y) = rows.split_at_mut(self.d);
        self.load_shifted(a, x);
        self.load_shifted(b, y);
        sq_dist(x, y)
    }

    fn sq_norm_bound(&self) -> f64 {
        self.max_sq_norm_shifted()
    }

    fn distances(&self, rows: &[usize], centroids: &[f64], _norms: &[f64], out: &mut [f64]) {
        dispatch_dense_distances(self, rows, centroids, out);
    }
}

/// [`Points::distances`] of dense rows: each row loaded once, its
/// distances to every centre in [`sq_dist`]'s fixed order. Compiled once
/// per vector extension ([`multiversion!`]); the same operations in the
/// same order in every copy, so the same bits.
#[inline(always)]
fn dense_distances<T: Scalar>(
    data: &Data<'_, T>,
    rows: &[usize],
    centroids: &[f64],
    out: &mut [f64],
) {
    let d = data.d;
    let k = centroids.len() / d.max(1);
    let mut buf = vec![0.0; d];
    for (&i, dists) in rows.iter().zip(out.chunks_exact_mut(k)) {
        data.load_shifted(i, &mut buf);
        for (v, centre) in dists.iter_mut().zip(centroids.chunks_exact(d)) {
            *v = sq_dist(&buf, centre);
        }
    }
}

multiversion!(dense_distances, dispatch_dense_distances, (data: &Data<'_, T>, rows: &[usize], centroids: &[f64], out: &mut [f64]) -> ());
