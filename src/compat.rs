//! The entry points of 0.1 as thin wrappers of the one API shape
//! (`Params::check()` → methods of [`ValidParams`] on a [`Dataset`],
//! `predict`/`transform` on the [`Clustering`]). Deprecated; they go in the
//! next release. CHANGELOG.md has the migration table.
#![allow(deprecated)]

use crate::clustering::Clustering;
use crate::control::{Control, Progress};
use crate::data::Scalar;
use crate::dataset::{Dataset, Rows};
use crate::error::Result;
use crate::params::Params;
use crate::path::{Path, PathKeep};
use crate::predict::{distances, nearest};
use crate::run::Run;
use crate::sparse::CsrView;
use ndarray::{Array1, Array2, ArrayView1, ArrayView2};
use std::ops::RangeInclusive;
use std::sync::atomic::AtomicBool;

/// The progress counter of a path, now [`Progress`].
#[deprecated(since = "0.2.0", note = "renamed `Progress`")]
pub type PathProgress = Progress;

/// Dense rows with optional weights.
fn dense<'a, T: Scalar>(x: ArrayView2<'a, T>, w: Option<ArrayView1<'a, f64>>) -> Dataset<'a, T> {
    Dataset::new(x).maybe_weights(w)
}

/// Sparse rows with optional weights.
fn sparse<'a, T: Scalar>(x: CsrView<'a, T>, w: Option<ArrayView1<'a, f64>>) -> Dataset<'a, T> {
    Dataset::new(x).maybe_weights(w)
}

/// Clusters the rows of `x`.
#[deprecated(since = "0.2.0", note = "use `params.check()?.fit(&x)`")]
pub fn fit<T: Scalar>(x: ArrayView2<'_, T>, params: Params) -> Result<Clustering<T>> {
    params.check()?.fit(x)
}

/// Clusters the rows of `x` with a weight per row.
#[deprecated(
    since = "0.2.0",
    note = "use `params.check()?.fit(Dataset::new(&x).weights(w))`"
)]
pub fn fit_weighted<T: Scalar>(
    x: ArrayView2<'_, T>,
    sample_weight: ArrayView1<'_, f64>,
    params: Params,
) -> Result<Clustering<T>> {
    params.check()?.fit(dense(x, Some(sample_weight)))
}

/// A fit that stops soon after `cancel` is set.
#[deprecated(
    since = "0.2.0",
    note = "use `params.check()?.fit_with(data, Control::default().cancel(&flag))`"
)]
pub fn fit_cancellable<T: Scalar>(
    x: ArrayView2<'_, T>,
    sample_weight: Option<ArrayView1<'_, f64>>,
    params: Params,
    cancel: &AtomicBool,
) -> Result<Clustering<T>> {
    let control = Control::default().cancel(cancel);
    params.check()?.fit_with(dense(x, sample_weight), control)
}

/// A fit of sparse rows that stops soon after `cancel` is set.
#[deprecated(
    since = "0.2.0",
    note = "use `params.check()?.fit_with(csr, Control::default().cancel(&flag))`"
)]
pub fn fit_sparse<T: Scalar>(
    x: CsrView<'_, T>,
    sample_weight: Option<ArrayView1<'_, f64>>,
    params: Params,
    cancel: &AtomicBool,
) -> Result<Clustering<T>> {
    let control = Control::default().cancel(cancel);
    params.check()?.fit_with(sparse(x, sample_weight), control)
}

/// The path of solutions over `ks` on dense rows.
#[deprecated(
    since = "0.2.0",
    note = "use `params.check()?.path_with(data, ks, keep, control)`"
)]
pub fn fit_path<T: Scalar>(
    x: ArrayView2<'_, T>,
    sample_weight: Option<ArrayView1<'_, f64>>,
    ks: RangeInclusive<usize>,
    params: Params,
    keep: PathKeep,
    cancel: &AtomicBool,
    progress: &Progress,
) -> Result<Path<T>> {
    let control = Control::default().cancel(cancel).progress(progress);
    path_of(dense(x, sample_weight), ks, params, keep, control)
}

/// The path of solutions over `ks` on sparse rows.
#[deprecated(
    since = "0.2.0",
    note = "use `params.check()?.path_with(csr, ks, keep, control)`"
)]
pub fn fit_path_sparse<T: Scalar>(
    x: CsrView<'_, T>,
    sample_weight: Option<ArrayView1<'_, f64>>,
    ks: RangeInclusive<usize>,
    params: Params,
    keep: PathKeep,
    cancel: &AtomicBool,
    progress: &Progress,
) -> Result<Path<T>> {
    let control = Control::default().cancel(cancel).progress(progress);
    path_of(sparse(x, sample_weight), ks, params, keep, control)
}

/// A path checked as 0.1 checked it: the parameters' `k` replaced by
/// `k_min` before they are validated.
fn path_of<T: Scalar>(
    data: Dataset<'_, T>,
    ks: RangeInclusive<usize>,
    params: Params,
    keep: PathKeep,
    control: Control<'_>,
) -> Result<Path<T>> {
    let k = (*ks.start()).max(1);
    Params { k, ..params }
        .check()?
        .path_with(data, ks, keep, control)
}

/// The k-means++ rows restart 0 starts from.
#[deprecated(since = "0.2.0", note = "use `params.check()?.plus_plus(data)`")]
pub fn kmeans_plus_plus<T: Scalar>(
    x: ArrayView2<'_, T>,
    sample_weight: Option<ArrayView1<'_, f64>>,
    params: Params,
) -> Result<Array1<usize>> {
    params.check()?.plus_plus(dense(x, sample_weight))
}

/// The k-means++ rows restart 0 starts from, stopping soon after `cancel`
/// is set.
#[deprecated(
    since = "0.2.0",
    note = "use `params.check()?.plus_plus_with(data, Control::default().cancel(&flag))`"
)]
pub fn kmeans_plus_plus_cancellable<T: Scalar>(
    x: ArrayView2<'_, T>,
    sample_weight: Option<ArrayView1<'_, f64>>,
    params: Params,
    cancel: &AtomicBool,
) -> Result<Array1<usize>> {
    let control = Control::default().cancel(cancel);
    params
        .check()?
        .plus_plus_with(dense(x, sample_weight), control)
}

/// The nearest of `centroids` to each row of `x`.
#[deprecated(since = "0.2.0", note = "use `clustering.predict(&x)`")]
pub fn predict<T: Scalar>(
    x: ArrayView2<'_, T>,
    centroids: ArrayView2<'_, T>,
) -> Result<Array1<usize>> {
    nearest(Rows::Dense(x), centroids, Control::default().cancel_flag())
}

/// [`predict`], stopping soon after `cancel` is set.
#[deprecated(since = "0.2.0", note = "use `clustering.predict_with(&x, control)`")]
pub fn predict_cancellable<T: Scalar>(
    x: ArrayView2<'_, T>,
    centroids: ArrayView2<'_, T>,
    cancel: &AtomicBool,
) -> Result<Array1<usize>> {
    nearest(Rows::Dense(x), centroids, cancel)
}

/// The nearest of `centroids` to each sparse row of `x`.
#[deprecated(since = "0.2.0", note = "use `clustering.predict(csr)`")]
pub fn predict_sparse<T: Scalar>(
    x: CsrView<'_, T>,
    centroids: ArrayView2<'_, T>,
) -> Result<Array1<usize>> {
    nearest(Rows::Sparse(x), centroids, Control::default().cancel_flag())
}

/// [`predict_sparse`], stopping soon after `cancel` is set.
#[deprecated(since = "0.2.0", note = "use `clustering.predict_with(csr, control)`")]
pub fn predict_sparse_cancellable<T: Scalar>(
    x: CsrView<'_, T>,
    centroids: ArrayView2<'_, T>,
    cancel: &AtomicBool,
) -> Result<Array1<usize>> {
    nearest(Rows::Sparse(x), centroids, cancel)
}

/// The distance from each row of `x` to each of `centroids`.
#[deprecated(since = "0.2.0", note = "use `clustering.transform(&x)`")]
pub fn transform<T: Scalar>(
    x: ArrayView2<'_, T>,
    centroids: ArrayView2<'_, T>,
) -> Result<Array2<T>> {
    distances(Rows::Dense(x), centroids, Control::default().cancel_flag())
}

/// [`transform`], stopping soon after `cancel` is set.
#[deprecated(since = "0.2.0", note = "use `clustering.transform_with(&x, control)`")]
pub fn transform_cancellable<T: Scalar>(
    x: ArrayView2<'_, T>,
    centroids: ArrayView2<'_, T>,
    cancel: &AtomicBool,
) -> Result<Array2<T>> {
    distances(Rows::Dense(x), centroids, cancel)
}

/// The distance from each sparse row of `x` to each of `centroids`.
#[deprecated(since = "0.2.0", note = "use `clustering.transform(csr)`")]
pub fn transform_sparse<T: Scalar>(
    x: CsrView<'_, T>,
    centroids: ArrayView2<'_, T>,
) -> Result<Array2<T>> {
    distances(Rows::Sparse(x), centroids, Control::default().cancel_flag())
}

/// [`transform_sparse`], stopping soon after `cancel` is set.
#[deprecated(
    since = "0.2.0",
    note = "use `clustering.transform_with(csr, control)`"
)]
pub fn transform_sparse_cancellable<T: Scalar>(
    x: CsrView<'_, T>,
    centroids: ArrayView2<'_, T>,
    cancel: &AtomicBool,
) -> Result<Array2<T>> {
    distances(Rows::Sparse(x), centroids, cancel)
}

impl Run {
    /// Validates, then draws every restart's start.
    #[deprecated(since = "0.2.0", note = "use `params.check()?.run(data)`")]
    pub fn new<T: Scalar>(
        x: ArrayView2<'_, T>,
        sample_weight: Option<ArrayView1<'_, f64>>,
        params: Params,
    ) -> Result<Self> {
        params.check()?.run(dense(x, sample_weight))
    }

    /// [`Run::new`], stopping soon after `cancel` is set.
    #[deprecated(
        since = "0.2.0",
        note = "use `params.check()?.run_with(data, Control::default().cancel(&flag))`"
    )]
    pub fn new_cancellable<T: Scalar>(
        x: ArrayView2<'_, T>,
        sample_weight: Option<ArrayView1<'_, f64>>,
        params: Params,
        cancel: &AtomicBool,
    ) -> Result<Self> {
        let control = Control::default().cancel(cancel);
        params.check()?.run_with(dense(x, sample_weight), control)
    }
}
