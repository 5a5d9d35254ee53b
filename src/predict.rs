//! Using fitted centroids on new data, dense or sparse.

use crate::data::{check_finite, sq_dist, Scalar};
use crate::error::{Error, Result};
use crate::nearest::nearest_by;
use crate::sparse::{row_sq_norms, CsrView};
use ndarray::{Array1, Array2, ArrayView2};
use rayon::prelude::*;

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

/// Squared distances from every row of `x` to every centroid, in `f64`.
fn for_each_row<T: Scalar, R: Send>(
    x: ArrayView2<'_, T>,
    centroids: ArrayView2<'_, T>,
    f: impl Fn(&[f64]) -> R + Sync,
) -> Vec<R> {
    let wide: Vec<Vec<f64>> = centroids
        .rows()
        .into_iter()
        .map(|r| r.iter().map(|v| v.to_f64()).collect())
        .collect();
    (0..x.nrows())
        .into_par_iter()
        .map_init(
            || (vec![0.0; x.ncols()], vec![0.0; wide.len()]),
            |(row, dist), i| {
                for (r, v) in row.iter_mut().zip(x.row(i).iter()) {
                    *r = v.to_f64();
                }
                for (dj, c) in dist.iter_mut().zip(&wide) {
                    *dj = sq_dist(row, c);
                }
                f(dist)
            },
        )
        .collect()
}

/// Index of the nearest centroid for each row of `x` (ties to the lowest index).
///
/// ```
/// use ndarray::array;
/// let c = array![[0.0, 0.0], [10.0, 10.0]];
/// let x = array![[1.0, 1.0], [9.0, 8.0]];
/// assert_eq!(smartigan::predict(x.view(), c.view()).unwrap().to_vec(), vec![0, 1]);
/// ```
pub fn predict<T: Scalar>(
    x: ArrayView2<'_, T>,
    centroids: ArrayView2<'_, T>,
) -> Result<Array1<usize>> {
    check(x, centroids)?;
    let labels = for_each_row(x, centroids, |dist| {
        nearest_by(dist.len(), None, |j| dist[j])
    });
    Ok(Array1::from(labels))
}

/// Euclidean distance from each row of `x` to each centroid (`n × k`).
///
/// ```
/// use ndarray::array;
/// let c = array![[0.0, 0.0], [3.0, 4.0]];
/// let x = array![[0.0, 0.0]];
/// assert_eq!(smartigan::transform(x.view(), c.view()).unwrap()[[0, 1]], 5.0);
/// ```
pub fn transform<T: Scalar>(
    x: ArrayView2<'_, T>,
    centroids: ArrayView2<'_, T>,
) -> Result<Array2<T>> {
    check(x, centroids)?;
    let (n, k) = (x.nrows(), centroids.nrows());
    // The n × k output can be far larger than both inputs: ask for it up
    // front, so that a matrix that cannot fit is an error, not an abort.
    let too_large = || Error::Shape {
        name: "x",
        expected: format!("few enough rows for an n × {k} distance matrix to fit in memory"),
        got: format!("{:?}", x.dim()),
    };
    let len = n.checked_mul(k).ok_or_else(too_large)?;
    let mut flat: Vec<T> = Vec::new();
    flat.try_reserve_exact(len).map_err(|_| too_large())?;
    flat.resize(len, T::from_f64(0.0));
    let wide: Vec<Vec<f64>> = centroids
        .rows()
        .into_iter()
        .map(|r| r.iter().map(|v| v.to_f64()).collect())
        .collect();
    flat.par_chunks_mut(k).enumerate().for_each_init(
        || vec![0.0; x.ncols()],
        |row, (i, out)| {
            for (r, v) in row.iter_mut().zip(x.row(i).iter()) {
                *r = v.to_f64();
            }
            for (o, c) in out.iter_mut().zip(&wide) {
                *o = T::from_f64(sq_dist(row, c).sqrt());
            }
        },
    );
    Array2::from_shape_vec((n, k), flat).map_err(|e| Error::Shape {
        name: "x",
        expected: "a matrix".into(),
        got: e.to_string(),
    })
}

/// Squared distances from every sparse row to every dense centroid.
fn sparse_sq_dists<T: Scalar>(
    x: CsrView<'_, T>,
    centroids: ArrayView2<'_, T>,
) -> Result<Vec<Vec<f64>>> {
    if centroids.nrows() == 0 || centroids.ncols() != x.n_cols() {
        return Err(Error::Shape {
            name: "centroids",
            expected: format!("(k >= 1, {}) to match x's features", x.n_cols()),
            got: format!("{:?}", centroids.dim()),
        });
    }
    check_finite("centroids", centroids)?;
    let d = x.n_cols();
    let wide: Vec<f64> = centroids.iter().map(|v| v.to_f64()).collect();
    let cnorms = row_sq_norms(&wide, d);
    Ok((0..x.n_rows())
        .into_par_iter()
        .map(|i| {
            let row = |(j, cn): (usize, &f64)| x.sq_dist_dense(i, &wide[j * d..(j + 1) * d], *cn);
            cnorms.iter().enumerate().map(row).collect()
        })
        .collect())
}

/// [`predict`] for sparse rows.
///
/// ```
/// use ndarray::array;
/// use smartigan::{predict_sparse, transform_sparse, CsrView};
/// let x = CsrView::new(2, &[0, 1, 2], &[0, 1], &[1.0f64, 9.0]).unwrap(); // [[1, 0], [0, 9]]
/// let c = array![[0.0, 0.0], [0.0, 10.0]];
/// assert_eq!(predict_sparse(x, c.view()).unwrap().to_vec(), vec![0, 1]);
/// assert_eq!(transform_sparse(x, c.view()).unwrap()[[1, 1]], 1.0);
/// ```
pub fn predict_sparse<T: Scalar>(
    x: CsrView<'_, T>,
    centroids: ArrayView2<'_, T>,
) -> Result<Array1<usize>> {
    let dists = sparse_sq_dists(x, centroids)?;
    Ok(dists
        .iter()
        .map(|row| nearest_by(row.len(), None, |j| row[j]))
        .collect())
}

/// [`transform`] for sparse rows: Euclidean distances, `n × k`.
pub fn transform_sparse<T: Scalar>(
    x: CsrView<'_, T>,
    centroids: ArrayView2<'_, T>,
) -> Result<Array2<T>> {
    let dists = sparse_sq_dists(x, centroids)?;
    let k = centroids.nrows();
    Ok(Array2::from_shape_fn((x.n_rows(), k), |(i, j)| {
        T::from_f64(dists[i][j].sqrt())
    }))
}
