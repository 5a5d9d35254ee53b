//! The entry points of 0.1 as thin wrappers of the one API shape
//! (`Params::check()` → methods of [`ValidParams`] on a [`Dataset`],
//! `predict`/`transform` on the [`Clustering`]). Deprecated; they go in the
//! next release. CHANGELOG.md has the migration table.
#![allow(deprecated)]

use crate::clustering::Clustering;
use crate::control::{Control, Progress};
use crate::data::Scalar;
use crate::dataset::Dataset;
use crate::error::Result;
use crate::params::{Metric, Params};
use crate::path::{Path, PathKeep};
use crate::predict::{distances, nearest};
use crate::rows::Rows;
use crate::run::Run;
use crate::sparse::CsrView;
use ndarray::{Array1, Array2, ArrayView1, ArrayView2};
use std::ops::RangeInclusive;
use std::sync::atomic::AtomicBool;

/// The progress counter of a path, now [`Progress`].
#[deprecated(since = "0.2.0", note = "renamed `Progress`")]
pub type PathProgress = Progress;

/// Rows of either kind with optional weights.
fn data<'a, T: Scalar>(
    x: impl Into<Rows<'a, T>>,
    w: Option<ArrayView1<'a, f64>>,
) -> Dataset<'a, T> {
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
    params.check()?.fit(data(x, Some(sample_weight)))
}

/// A deprecated fit and path of rows of one kind (`$rows`), cancellable.
macro_rules! fit_and_path {
    ($fit:ident, $path:ident, $rows:ty, $what:literal, $fit_note:literal, $path_note:literal) => {
        #[doc = concat!("A fit of ", $what, " that stops soon after `cancel` is set.")]
        #[deprecated(since = "0.2.0", note = $fit_note)]
        pub fn $fit<T: Scalar>(
            x: $rows,
            sample_weight: Option<ArrayView1<'_, f64>>,
            params: Params,
            cancel: &AtomicBool,
        ) -> Result<Clustering<T>> {
            let control = Control::default().cancel(cancel);
            params.check()?.fit_with(data(x, sample_weight), control)
        }

        #[doc = concat!("The path of solutions over `ks` on ", $what, ".")]
        #[deprecated(since = "0.2.0", note = $path_note)]
        pub fn $path<T: Scalar>(
            x: $rows,
            sample_weight: Option<ArrayView1<'_, f64>>,
            ks: RangeInclusive<usize>,
            params: Params,
            keep: PathKeep,
            cancel: &AtomicBool,
            progress: &Progress,
        ) -> Result<Path<T>> {
            let control = Control::default().cancel(cancel).progress(progress);
            path_of(data(x, sample_weight), ks, params, keep, control)
        }
    };
}

fit_and_path!(
    fit_cancellable,
    fit_path,
    ArrayView2<'_, T>,
    "dense rows",
    "use `params.check()?.fit_with(data, Control::default().cancel(&flag))`",
    "use `params.check()?.path_with(data, ks, keep, control)`"
);
fit_and_path!(
    fit_sparse,
    fit_path_sparse,
    CsrView<'_, T>,
    "sparse rows",
    "use `params.check()?.fit_with(csr, Control::default().cancel(&flag))`",
    "use `params.check()?.path_with(csr, ks, keep, control)`"
);

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
    params.check()?.plus_plus(data(x, sample_weight))
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
        .plus_plus_with(data(x, sample_weight), control)
}

/// A deprecated query of fitted centroids (`$query`: [`nearest`] or
/// [`distances`]) on rows of one kind, plain and cancellable.
macro_rules! centroid_queries {
    ($(#[doc = $doc:literal])* $plain:ident, $cancellable:ident, $kind:ident, $rows:ty, $out:ty,
     $query:ident, $note:literal, $note_with:literal) => {
        $(#[doc = $doc])*
        #[deprecated(since = "0.2.0", note = $note)]
        pub fn $plain<T: Scalar>(x: $rows, centroids: ArrayView2<'_, T>) -> Result<$out> {
            $query(Rows::$kind(x), centroids, Metric::Euclidean, Control::default().cancel_flag())
        }

        $(#[doc = $doc])*
        /// Stops soon after `cancel` is set.
        #[deprecated(since = "0.2.0", note = $note_with)]
        pub fn $cancellable<T: Scalar>(
            x: $rows,
            centroids: ArrayView2<'_, T>,
            cancel: &AtomicBool,
        ) -> Result<$out> {
            $query(Rows::$kind(x), centroids, Metric::Euclidean, cancel)
        }
    };
}

centroid_queries!(
    /// The nearest of `centroids` to each row of `x`.
    predict, predict_cancellable, Dense, ArrayView2<'_, T>, Array1<usize>, nearest,
    "use `clustering.predict(rows)`", "use `clustering.predict_with(rows, control)`"
);
centroid_queries!(
    /// The nearest of `centroids` to each sparse row of `x`.
    predict_sparse, predict_sparse_cancellable, Sparse, CsrView<'_, T>, Array1<usize>, nearest,
    "use `clustering.predict(rows)`", "use `clustering.predict_with(rows, control)`"
);
centroid_queries!(
    /// The distance from each row of `x` to each of `centroids`.
    transform, transform_cancellable, Dense, ArrayView2<'_, T>, Array2<T>, distances,
    "use `clustering.transform(rows)`", "use `clustering.transform_with(rows, control)`"
);
centroid_queries!(
    /// The distance from each sparse row of `x` to each of `centroids`.
    transform_sparse, transform_sparse_cancellable, Sparse, CsrView<'_, T>, Array2<T>, distances,
    "use `clustering.transform(rows)`", "use `clustering.transform_with(rows, control)`"
);

impl Run {
    /// Validates, then draws every restart's start.
    #[deprecated(since = "0.2.0", note = "use `params.check()?.run(data)`")]
    pub fn new<T: Scalar>(
        x: ArrayView2<'_, T>,
        sample_weight: Option<ArrayView1<'_, f64>>,
        params: Params,
    ) -> Result<Self> {
        params.check()?.run(data(x, sample_weight))
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
        params.check()?.run_with(data(x, sample_weight), control)
    }
}
