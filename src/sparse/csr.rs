//! Borrowed rows in compressed sparse row form ([`CsrView`]), checked once.

use super::{cancelled, SparseCentroids, POLL_POINTS};
use crate::data::Scalar;
use crate::error::{Error, Result};
use rayon::prelude::*;
use std::sync::atomic::AtomicBool;

/// One sparse row: its column indices (sorted, distinct) and values.
pub(crate) type CsrRow<'r, T> = (&'r [usize], &'r [T]);

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

    /// The structure and values: `indptr`, `indices`, `data`.
    pub(crate) fn parts(&self) -> (&'a [usize], &'a [usize], &'a [T]) {
        (self.indptr, self.indices, self.data)
    }

    /// Row `i`.
    #[inline(always)]
    pub(crate) fn row(&self, i: usize) -> CsrRow<'a, T> {
        let (a, b) = (self.indptr[i], self.indptr[i + 1]);
        (&self.indices[a..b], &self.data[a..b])
    }

    /// `x_i · v` for a dense `v`.
    #[inline(always)]
    pub(super) fn dot_dense(&self, i: usize, v: &[f64]) -> f64 {
        let (cols, vals) = self.row(i);
        cols.iter().zip(vals).map(|(&c, x)| x.to_f64() * v[c]).sum()
    }

    /// The nearest of `centroids` to every row (ties to the lowest index),
    /// as exact distances decide it ([`SparseCentroids::nearest`]), in
    /// parallel over chunks of rows. Once `cancel` is set the remaining
    /// chunks are skipped (their labels are left at 0) and the caller must
    /// not use the result.
    pub(crate) fn nearest_rows(
        &self,
        centroids: &SparseCentroids,
        cancel: &AtomicBool,
    ) -> Vec<usize> {
        let mut labels = vec![0; self.n_rows()];
        labels
            .par_chunks_mut(POLL_POINTS)
            .enumerate()
            .for_each_init(
                || vec![0.0; centroids.k()],
                |scratch, (c, chunk)| {
                    for (o, l) in chunk.iter_mut().enumerate() {
                        // Polled before every row: a chunk of rows against
                        // thousands of centroids takes seconds.
                        if cancelled(cancel) {
                            return;
                        }
                        *l = centroids.nearest(self.row(c * POLL_POINTS + o), scratch);
                    }
                },
            );
        labels
    }
}
