//! Fitted directions used on new rows: the nearest by cosine and the
//! cosine distances, computed as the fit computes them (from `‖u − μ‖²`
//! between unit vectors), so a fit's own rows get its labels back.

use super::{by_rows, distance_matrix, into_matrix};
use crate::data::Scalar;
use crate::engine::nearest::nearest_by;
use crate::error::{Error, Result};
use crate::rows::Rows;
use crate::spherical::{unit_centroids, unit_rows, UnitInput, UnitRows};
use ndarray::{Array1, Array2, ArrayView2};
use std::sync::atomic::AtomicBool;

/// The rows and centroids as unit vectors, after checking their shapes.
fn prepared<'a, T: Scalar>(
    rows: Rows<'a, T>,
    centroids: ArrayView2<'_, T>,
) -> Result<(UnitInput<'a>, Vec<f64>, Vec<f64>)> {
    let d = rows.shape().1;
    if centroids.nrows() == 0 || centroids.ncols() != d {
        return Err(Error::Shape {
            name: "centroids",
            expected: format!("(k >= 1, {d}) to match x's features"),
            got: format!("{:?}", centroids.dim()),
        });
    }
    let units = unit_centroids("centroids", centroids)?;
    let norms2 = units
        .chunks_exact(d.max(1))
        .map(|u| u.iter().map(|v| v * v).sum())
        .collect();
    Ok((unit_rows(rows)?, units, norms2))
}

/// The direction of largest cosine for each row (ties to the lowest
/// index); [`Error::Interrupted`] soon after `cancel` is set.
pub(crate) fn nearest<T: Scalar>(
    rows: Rows<'_, T>,
    centroids: ArrayView2<'_, T>,
    cancel: &AtomicBool,
) -> Result<Array1<usize>> {
    let (unit, units, norms2) = prepared(rows, centroids)?;
    let labels = match &unit {
        UnitInput::Dense(u) => nearest_units(u, &units, &norms2, cancel),
        UnitInput::Sparse(u) => nearest_units(u, &units, &norms2, cancel),
    }?;
    Ok(Array1::from(labels))
}

/// The cosine distance `1 − cos` from each row to each centroid (`n × k`,
/// in `[0, 2]`); [`Error::Interrupted`] soon after `cancel` is set.
pub(crate) fn distances<T: Scalar>(
    rows: Rows<'_, T>,
    centroids: ArrayView2<'_, T>,
    cancel: &AtomicBool,
) -> Result<Array2<T>> {
    let (n, d) = rows.shape();
    let (unit, units, norms2) = prepared(rows, centroids)?;
    let k = norms2.len();
    let mut flat = distance_matrix::<T>(n, k, (n, d))?;
    match &unit {
        UnitInput::Dense(u) => distances_units(u, &units, &norms2, &mut flat, cancel),
        UnitInput::Sparse(u) => distances_units(u, &units, &norms2, &mut flat, cancel),
    }?;
    into_matrix(flat, n, k)
}

fn nearest_units<U: UnitRows>(
    rows: &U,
    units: &[f64],
    norms2: &[f64],
    cancel: &AtomicBool,
) -> Result<Vec<usize>> {
    let d = rows.d();
    let mut labels = vec![0; rows.n()];
    by_rows(
        &mut labels,
        1,
        cancel,
        || (),
        |(), i, label| {
            label[0] = nearest_by(norms2.len(), None, |j| {
                rows.sq_dist(i, &units[j * d..(j + 1) * d], norms2[j])
            });
        },
    )?;
    Ok(labels)
}

fn distances_units<U: UnitRows, T: Scalar>(
    rows: &U,
    units: &[f64],
    norms2: &[f64],
    flat: &mut [T],
    cancel: &AtomicBool,
) -> Result<()> {
    let d = rows.d();
    by_rows(
        flat,
        norms2.len(),
        cancel,
        || (),
        |(), i, out| {
            for (j, o) in out.iter_mut().enumerate() {
                let sq = rows.sq_dist(i, &units[j * d..(j + 1) * d], norms2[j]);
                *o = T::from_f64((0.5 * sq).min(2.0));
            }
        },
    )
}
