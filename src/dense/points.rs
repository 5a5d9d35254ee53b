//! Dense rows as the engine's [`Points`]: rows loaded in shifted
//! coordinates, and the distance and split kernels compiled once per vector
//! extension.

use crate::data::{sq_dist, Data, Scalar};
use crate::engine::points::{Points, Split};
use crate::engine::refine::split_cluster;

impl<T: Scalar> Points for Data<'_, T> {
    type Row<'r>
        = &'r [f64]
    where
        Self: 'r;

    #[inline(always)]
    fn dim(&self) -> usize {
        self.d
    }

    #[inline(always)]
    fn weight(&self, i: usize) -> f64 {
        Data::weight(self, i)
    }

    #[inline(always)]
    fn row<'r>(&'r self, i: usize, buf: &'r mut [f64]) -> &'r [f64] {
        self.load_shifted(i, buf);
        buf
    }

    #[inline(always)]
    fn sq_dist_to(x: &&[f64], c: &[f64], _c_norm: f64) -> f64 {
        sq_dist(x, c)
    }

    #[inline(always)]
    fn add_to(x: &&[f64], w: f64, sum: &mut [f64]) {
        for (s, v) in sum.iter_mut().zip(x.iter()) {
            *s += w * v;
        }
    }

    #[inline(always)]
    fn prefetch(&self, i: usize) {
        Data::prefetch(self, i);
    }

    fn split(&self, members: &[usize], mean: &[f64]) -> Option<Split> {
        dispatch_split_dense(self, members, mean)
    }

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

/// [`split_cluster`] on dense rows, compiled once per vector extension: a
/// proposal splits every changed cluster, up to eleven passes over its
/// members, and in the baseline build its distances, row loads and sums run
/// two lanes wide. The same operations in the same order in every copy (no
/// fused multiply-add), so the same bits.
#[inline(always)]
fn split_dense<T: Scalar>(rows: &Data<'_, T>, members: &[usize], mean: &[f64]) -> Option<Split> {
    split_cluster(rows, members, mean)
}

multiversion!(split_dense, dispatch_split_dense, (rows: &Data<'_, T>, members: &[usize], mean: &[f64]) -> Option<Split>);

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
