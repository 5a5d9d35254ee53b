//! The rows an operation reads: a dense array or a sparse matrix, one
//! point per row, behind one type so that every entry point takes either.

use crate::data::Scalar;
use crate::sparse::CsrView;
use ndarray::{Array2, ArrayView2};

/// The rows to cluster or to assign: a dense `n × d` array, or a matrix in
/// compressed sparse row form ([`CsrView`]), which is never densified.
///
/// ```
/// use ndarray::array;
/// use smartigan::{CsrView, Rows};
/// let x = array![[1.0, 0.0], [0.0, 2.0]];
/// let dense = Rows::from(&x);
/// let sparse = Rows::from(CsrView::new(2, &[0, 1, 2], &[0, 1], &[1.0, 2.0]).unwrap());
/// assert_eq!(dense.shape(), sparse.shape());
/// ```
#[derive(Debug, Clone, Copy)]
pub enum Rows<'a, T> {
    /// A dense array, one point per row.
    Dense(ArrayView2<'a, T>),
    /// A sparse matrix, one point per row.
    Sparse(CsrView<'a, T>),
}

impl<T: Scalar> Rows<'_, T> {
    /// The same rows, borrowed for a shorter time (an array view is
    /// invariant over its lifetime, so this is not a coercion).
    pub(crate) fn reborrow(&self) -> Rows<'_, T> {
        match self {
            Rows::Dense(x) => Rows::Dense(x.view()),
            Rows::Sparse(x) => Rows::Sparse(*x),
        }
    }

    /// `(n_rows, n_cols)`.
    pub fn shape(&self) -> (usize, usize) {
        match self {
            Rows::Dense(x) => x.dim(),
            Rows::Sparse(x) => (x.n_rows(), x.n_cols()),
        }
    }
}

impl<'a, T> From<ArrayView2<'a, T>> for Rows<'a, T> {
    fn from(x: ArrayView2<'a, T>) -> Self {
        Rows::Dense(x)
    }
}

impl<'a, T> From<&'a Array2<T>> for Rows<'a, T> {
    fn from(x: &'a Array2<T>) -> Self {
        Rows::Dense(x.view())
    }
}

impl<'a, T> From<CsrView<'a, T>> for Rows<'a, T> {
    fn from(x: CsrView<'a, T>) -> Self {
        Rows::Sparse(x)
    }
}
