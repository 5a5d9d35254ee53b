//! Using fitted centroids on new data, dense or sparse.
//!
//! Distances whose squares overflow float64 (values far beyond the
//! centroids' range, which `fit` would refuse as too spread out) are not
//! left at `inf`: the rows concerned are compared, and their distances
//! computed, after an exact power-of-two scaling, so the nearest centroid
//! and the distances are right for any finite input.

mod cosine;

use crate::clustering::Clustering;
use crate::control::Control;
use crate::data::{check_finite, exponent_above, pow2, sq_dist, times_pow2, Scalar};
use crate::engine::nearest::nearest_by;
use crate::error::{Error, Result};
use crate::params::Metric;
use crate::rows::Rows;
use crate::sparse::{CsrView, SparseCentroids};
use ndarray::{Array1, Array2, ArrayView2};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

/// Rows handed to a thread at a time. The cancellation flag is polled
/// before every row: a poll is one relaxed load and a row at least one
/// distance to each of the `k` centroids, while a whole block of rows
/// against thousands of centroids in thousands of features can take
/// seconds, and a cancelled call waits for the rows begun.
const POLL_ROWS: usize = 1024;

fn check<T: Scalar>(x: ArrayView2<'_, T>, centroids: ArrayView2<'_, T>) -> Result<()> {
    if centroids.nrows() == 0 || centroids.ncols() == 0 {
        return Err(Error::Shape {
            name: "centroids",
            expected: "at least one row and one column".into(),
            got: format!("{:?}", centroids.dim()),
        });
    }
    if x.ncols() != centroids.ncols() {
        return Err(Error::Shape {
            name: "x",
            expected: format!(
                "(n, {}) to match the centroids' {} features",
                centroids.ncols(),
                centroids.ncols()
            ),
            got: format!("{:?}", x.dim()),
        });
    }
    check_finite("x", x)?;
    check_finite("centroids", centroids)
}

/// The centroids widened to `f64`, row after row.
fn widen<T: Scalar>(centroids: ArrayView2<'_, T>) -> Vec<Vec<f64>> {
    centroids
        .rows()
        .into_iter()
        .map(|r| r.iter().map(|v| v.to_f64()).collect())
        .collect()
}

/// The exponent by which `row` and the centroids (entries at most
/// `max_abs`) are scaled where their squared distances overflow
/// ([`exponent_above`]).
fn overflow_exponent(row: &[f64], max_abs: f64) -> i32 {
    exponent_above(row.iter().fold(max_abs, |m, v| m.max(v.abs())))
}

/// `‖a − b‖²·2^-2e`, with `a` and `b` scaled by `2^-e` (exactly) first.
fn scaled_sq_dist(a: &[f64], b: &[f64], e: i32) -> f64 {
    let s = pow2(-e);
    a.iter()
        .zip(b)
        .map(|(x, y)| {
            let t = x * s - y * s;
            t * t
        })
        .sum()
}

/// Largest absolute entry of the centroids.
fn max_abs(wide: &[Vec<f64>]) -> f64 {
    wide.iter().flatten().fold(0.0f64, |m, v| m.max(v.abs()))
}

/// The index of the nearest of `centroids` for each row of `rows` by
/// `metric` (ties to the lowest index); [`Error::Interrupted`] soon after `cancel` is set
/// (it is polled before every row).
fn nearest<T: Scalar>(
    rows: Rows<'_, T>,
    centroids: ArrayView2<'_, T>,
    metric: Metric,
    cancel: &AtomicBool,
) -> Result<Array1<usize>> {
    if metric == Metric::Cosine {
        return cosine::nearest(rows, centroids, cancel);
    }
    match rows {
        Rows::Dense(x) => nearest_dense(x, centroids, cancel),
        Rows::Sparse(x) => nearest_sparse(x, centroids, cancel),
    }
}

/// The distance by `metric` (Euclidean, or `1 − cos`) from each row of
/// `rows` to each of `centroids` (`n × k`); [`Error::Interrupted`] soon after `cancel` is set (it is
/// polled before every row).
fn distances<T: Scalar>(
    rows: Rows<'_, T>,
    centroids: ArrayView2<'_, T>,
    metric: Metric,
    cancel: &AtomicBool,
) -> Result<Array2<T>> {
    if metric == Metric::Cosine {
        return cosine::distances(rows, centroids, cancel);
    }
    match rows {
        Rows::Dense(x) => distances_dense(x, centroids, cancel),
        Rows::Sparse(x) => distances_sparse(x, centroids, cancel),
    }
}

/// Centroids given by the caller, to label rows and measure distances
/// against without a fit: [`Clustering::predict`] and
/// [`Clustering::transform`] are these on a fit's own centroids and metric.
///
/// ```
/// use ndarray::array;
/// use smartigan::{Centroids, Metric};
/// let c = array![[0.0, 0.0], [10.0, 10.0]];
/// let fixed = Centroids::new(c.view(), Metric::Euclidean);
/// let labels = fixed.predict(&array![[1.0, 1.0], [9.0, 8.0]]).unwrap();
/// assert_eq!((labels[0], labels[1]), (0, 1));
/// let d = fixed.transform(&array![[0.0, 0.0]]).unwrap();
/// assert_eq!(d[[0, 1]], 200.0f64.sqrt());
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Centroids<'c, T> {
    centroids: ArrayView2<'c, T>,
    metric: Metric,
}

impl<'c, T: Scalar> Centroids<'c, T> {
    /// `centroids` (`k × d`, finite; with [`Metric::Cosine`] each of
    /// positive length, read as a direction), compared by `metric`. They are
    /// checked when used.
    pub fn new(centroids: ArrayView2<'c, T>, metric: Metric) -> Self {
        Centroids { centroids, metric }
    }

    /// The nearest centroid of each row of `rows`, dense or sparse, by the
    /// metric (ties to the lowest index): the cluster a new point falls in.
    pub fn predict<'a>(&self, rows: impl Into<Rows<'a, T>>) -> Result<Array1<usize>> {
        self.predict_with(rows, Control::default())
    }

    /// [`Centroids::predict`] that stops with [`Error::Interrupted`] soon
    /// after the control's flag is set (it is polled before every row).
    pub fn predict_with<'a>(
        &self,
        rows: impl Into<Rows<'a, T>>,
        control: Control<'_>,
    ) -> Result<Array1<usize>> {
        nearest(
            rows.into(),
            self.centroids,
            self.metric,
            control.cancel_flag(),
        )
    }

    /// The distance from each row of `rows`, dense or sparse, to each
    /// centroid (`n × k`, in the centroids' float type): the Euclidean
    /// distance, or with [`Metric::Cosine`] the cosine distance `1 − cos`.
    pub fn transform<'a>(&self, rows: impl Into<Rows<'a, T>>) -> Result<Array2<T>> {
        self.transform_with(rows, Control::default())
    }

    /// [`Centroids::transform`] that stops with [`Error::Interrupted`]
    /// soon after the control's flag is set (it is polled before every row).
    pub fn transform_with<'a>(
        &self,
        rows: impl Into<Rows<'a, T>>,
        control: Control<'_>,
    ) -> Result<Array2<T>> {
        distances(
            rows.into(),
            self.centroids,
            self.metric,
            control.cancel_flag(),
        )
    }
}

impl<T: Scalar> Clustering<T> {
    /// The nearest centroid of each row of `rows`, dense or sparse, by the
    /// fit's [`metric`](Clustering::metric) (ties to the lowest index): the
    /// cluster a new point falls in.
    ///
    /// ```
    /// use ndarray::array;
    /// use smartigan::Params;
    /// let x = array![[0.0, 0.0], [0.2, 0.0], [10.0, 10.0], [10.2, 10.0]];
    /// let c = Params::new(2).seed(0).check().unwrap().fit(&x).unwrap();
    /// let new = array![[1.0, 1.0], [9.0, 8.0]];
    /// let labels = c.predict(&new).unwrap();
    /// assert_eq!((labels[0], labels[1]), (c.labels[0], c.labels[2]));
    /// ```
    pub fn predict<'a>(&self, rows: impl Into<Rows<'a, T>>) -> Result<Array1<usize>> {
        self.model().predict(rows)
    }

    /// The Euclidean distance from each row of `rows`, dense or sparse, to
    /// each centroid (`n × k`), in the rows' type; an `n × k` output that
    /// cannot be allocated is an error, not an abort.
    ///
    /// ```
    /// use ndarray::array;
    /// use smartigan::Params;
    /// let x = array![[0.0, 0.0], [0.0, 0.5], [3.0, 4.0], [3.0, 4.5]];
    /// let c = Params::new(2).seed(0).check().unwrap().fit(&x).unwrap();
    /// let d = c.transform(&array![[0.0, 0.25], [3.0, 0.25]]).unwrap();
    /// assert_eq!(d[[0, c.labels[0]]], 0.0);
    /// assert_eq!(d[[1, c.labels[0]]], 3.0);
    /// ```
    pub fn transform<'a>(&self, rows: impl Into<Rows<'a, T>>) -> Result<Array2<T>> {
        self.model().transform(rows)
    }

    /// The fit's centroids compared by its metric: what
    /// [`Clustering::predict`] and [`Clustering::transform`] use, and where
    /// the interruptible [`Centroids::predict_with`] and
    /// [`Centroids::transform_with`] are.
    pub fn model(&self) -> Centroids<'_, T> {
        Centroids::new(self.centroids.view(), self.metric)
    }
}

/// [`nearest`] for dense rows.
fn nearest_dense<T: Scalar>(
    x: ArrayView2<'_, T>,
    centroids: ArrayView2<'_, T>,
    cancel: &AtomicBool,
) -> Result<Array1<usize>> {
    check(x, centroids)?;
    let wide = widen(centroids);
    let largest = max_abs(&wide);
    let mut labels = vec![0; x.nrows()];
    by_rows(
        &mut labels,
        1,
        cancel,
        || (vec![0.0; x.ncols()], vec![0.0; wide.len()]),
        |(row, dist), i, label| {
            for (r, v) in row.iter_mut().zip(x.row(i).iter()) {
                *r = v.to_f64();
            }
            for (dj, c) in dist.iter_mut().zip(&wide) {
                *dj = sq_dist(row, c);
            }
            let j = nearest_by(dist.len(), None, |j| dist[j]);
            label[0] = if dist[j].is_finite() {
                j
            } else {
                // Every distance overflows: compare them scaled.
                let e = overflow_exponent(row, largest);
                nearest_by(wide.len(), None, |j| scaled_sq_dist(row, &wide[j], e))
            };
        },
    )?;
    Ok(Array1::from(labels))
}

/// Fills `out`, `width` entries per row of the input, by calling
/// `fill(scratch, i, row_i_of_out)` for every row in parallel, in blocks of
/// [`POLL_ROWS`] rows. Rows not yet begun when `cancel` is set are skipped,
/// and the answer is then [`Error::Interrupted`]: `out` is never returned
/// half filled.
pub(crate) fn by_rows<O: Send, S>(
    out: &mut [O],
    width: usize,
    cancel: &AtomicBool,
    scratch: impl Fn() -> S + Send + Sync,
    fill: impl Fn(&mut S, usize, &mut [O]) + Send + Sync,
) -> Result<()> {
    out.par_chunks_mut(POLL_ROWS * width)
        .enumerate()
        .for_each_init(scratch, |s, (block, rows)| {
            for (o, row) in rows.chunks_mut(width).enumerate() {
                if cancel.load(Ordering::Relaxed) {
                    return;
                }
                fill(s, block * POLL_ROWS + o, row);
            }
        });
    if cancel.load(Ordering::Relaxed) {
        return Err(Error::Interrupted);
    }
    Ok(())
}

/// An `n × k` output as one flat vector of zeros, or an error if it cannot
/// be allocated: the output can be far larger than both inputs, and a
/// failed allocation would abort the process.
pub(crate) fn distance_matrix<T: Scalar>(
    n: usize,
    k: usize,
    x_dim: (usize, usize),
) -> Result<Vec<T>> {
    let too_large = || Error::Shape {
        name: "x",
        expected: format!("few enough rows for an n × {k} distance matrix to fit in memory"),
        got: format!("{x_dim:?}"),
    };
    let len = n.checked_mul(k).ok_or_else(too_large)?;
    let mut flat: Vec<T> = Vec::new();
    flat.try_reserve_exact(len).map_err(|_| too_large())?;
    flat.resize(len, T::from_f64(0.0));
    Ok(flat)
}

pub(crate) fn into_matrix<T>(flat: Vec<T>, n: usize, k: usize) -> Result<Array2<T>> {
    Array2::from_shape_vec((n, k), flat).map_err(|e| Error::Shape {
        name: "x",
        expected: "a matrix".into(),
        got: e.to_string(),
    })
}

/// [`distances`] for dense rows.
fn distances_dense<T: Scalar>(
    x: ArrayView2<'_, T>,
    centroids: ArrayView2<'_, T>,
    cancel: &AtomicBool,
) -> Result<Array2<T>> {
    check(x, centroids)?;
    let (n, k) = (x.nrows(), centroids.nrows());
    let mut flat = distance_matrix::<T>(n, k, x.dim())?;
    let wide = widen(centroids);
    let largest = max_abs(&wide);
    by_rows(
        &mut flat,
        k,
        cancel,
        || vec![0.0; x.ncols()],
        |row, i, out| {
            for (r, v) in row.iter_mut().zip(x.row(i).iter()) {
                *r = v.to_f64();
            }
            for (o, c) in out.iter_mut().zip(&wide) {
                let sq = sq_dist(row, c);
                let dist = if sq.is_finite() {
                    sq.sqrt()
                } else {
                    let e = overflow_exponent(row, largest);
                    times_pow2(scaled_sq_dist(row, c, e).sqrt(), e)
                };
                *o = T::from_f64(dist);
            }
        },
    )?;
    into_matrix(flat, n, k)
}

/// The centroids checked against sparse `x` and prepared for it.
fn sparse_centroids<T: Scalar>(
    x: CsrView<'_, T>,
    centroids: ArrayView2<'_, T>,
) -> Result<SparseCentroids> {
    if centroids.nrows() == 0 || centroids.ncols() != x.n_cols() {
        return Err(Error::Shape {
            name: "centroids",
            expected: format!("(k >= 1, {}) to match x's features", x.n_cols()),
            got: format!("{:?}", centroids.dim()),
        });
    }
    check_finite("centroids", centroids)?;
    let wide: Vec<f64> = centroids.iter().map(|v| v.to_f64()).collect();
    Ok(SparseCentroids::new(wide, x.n_cols()))
}

/// [`nearest`] for sparse rows: the nearest centroid as exact distances
/// decide it, though computed in O(nnz) per centroid where the fast form's
/// error bound allows (see `SparseCentroids`), and row by row: no `n × k`
/// matrix is held.
fn nearest_sparse<T: Scalar>(
    x: CsrView<'_, T>,
    centroids: ArrayView2<'_, T>,
    cancel: &AtomicBool,
) -> Result<Array1<usize>> {
    let prepared = sparse_centroids(x, centroids)?;
    let labels = x.nearest_rows(&prepared, cancel);
    if cancel.load(Ordering::Relaxed) {
        return Err(Error::Interrupted);
    }
    Ok(Array1::from(labels))
}

/// [`distances`] for sparse rows: each to a relative 4.5e-13 or better
/// however far the data lie from the origin.
fn distances_sparse<T: Scalar>(
    x: CsrView<'_, T>,
    centroids: ArrayView2<'_, T>,
    cancel: &AtomicBool,
) -> Result<Array2<T>> {
    let prepared = sparse_centroids(x, centroids)?;
    let (n, k) = (x.n_rows(), prepared.k());
    let mut flat = distance_matrix::<T>(n, k, (n, x.n_cols()))?;
    by_rows(
        &mut flat,
        k,
        cancel,
        || (),
        |(), i, out| {
            let row = x.row(i);
            let x_norm: f64 = row.1.iter().map(|v| v.to_f64() * v.to_f64()).sum();
            for (j, o) in out.iter_mut().enumerate() {
                let fast = prepared.fast(row, j);
                *o = T::from_f64(prepared.distance(row, j, fast, x_norm));
            }
        },
    )?;
    into_matrix(flat, n, k)
}
