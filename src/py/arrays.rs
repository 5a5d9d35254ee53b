//! The data Python hands over, and the one place where its float type is
//! matched.
//!
//! Points arrive as a [`Matrix`]: a dense 2-d numpy array or a
//! [`PyCsrMatrix`] (SciPy's CSR arrays), of float32 or float64, read without
//! a copy. Every operation is a [`RowsJob`], generic over the float type;
//! [`Matrix::with_rows`] reads the type once and runs the job's `f32` or
//! `f64` instance on [`Rows`], dense or sparse. Other arrays that go with the
//! points (centroids) are read as the same type by [`same_float`].

use super::errors::BindingError;
use crate::{data::Scalar, rows::Rows, sparse::CsrView};
use numpy::{
    dtype, Element, PyArray1, PyArray2, PyArrayDescrMethods, PyArrayMethods, PyReadonlyArray2,
    PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::prelude::*;

/// A float type that both the core and numpy handle: `f32` or `f64`.
pub(super) trait Float: Scalar + Element {}
impl Float for f32 {}
impl Float for f64 {}

/// Work on points of either float type: [`RowsJob::run`] is instantiated
/// for `f32` and `f64`, and [`Matrix::with_rows`] calls the one that matches
/// the data.
pub(super) trait RowsJob {
    type Output;
    fn run<T: Float>(self, rows: Rows<'_, T>) -> PyResult<Self::Output>;
}

/// A SciPy CSR matrix taken apart (`smartigan._arrays.as_csr` builds it):
/// `indptr` and `indices` as uintp, `data` as float32 or float64, all
/// contiguous. The arrays are only referenced; the structure is checked by
/// the core each time the matrix is read.
#[pyclass(module = "smartigan._core", name = "CsrMatrix", frozen)]
pub(super) struct PyCsrMatrix {
    n_cols: usize,
    indptr: Py<PyArray1<usize>>,
    indices: Py<PyArray1<usize>>,
    data: Py<PyAny>,
}

#[pymethods]
impl PyCsrMatrix {
    #[new]
    fn new(
        n_cols: usize,
        indptr: Bound<'_, PyArray1<usize>>,
        indices: Bound<'_, PyArray1<usize>>,
        data: Bound<'_, PyAny>,
    ) -> Self {
        PyCsrMatrix {
            n_cols,
            indptr: indptr.unbind(),
            indices: indices.unbind(),
            data: data.unbind(),
        }
    }

    /// Number of columns (features).
    #[getter]
    fn n_cols(&self) -> usize {
        self.n_cols
    }
}

/// The points argument of `fit`, `predict`, `transform` and `Run`.
#[derive(FromPyObject)]
pub(super) enum Matrix<'py> {
    Sparse(Bound<'py, PyCsrMatrix>),
    Dense(Bound<'py, PyAny>),
}

/// The float type of a numpy array, if it is one the core reads.
#[derive(Clone, Copy)]
enum FloatType {
    F32,
    F64,
}

fn float_type(array: &Bound<'_, PyAny>) -> Option<FloatType> {
    let found = array.cast::<PyUntypedArray>().ok()?.dtype();
    let py = array.py();
    if found.is_equiv_to(&dtype::<f64>(py)) {
        Some(FloatType::F64)
    } else if found.is_equiv_to(&dtype::<f32>(py)) {
        Some(FloatType::F32)
    } else {
        None
    }
}

impl<'py> Matrix<'py> {
    /// The float type of the points' values.
    fn float_type(&self) -> PyResult<FloatType> {
        let (values, name, what) = match self {
            Matrix::Dense(x) => (x.clone(), "x", "2-d"),
            Matrix::Sparse(csr) => (
                csr.get().data.bind(csr.py()).clone(),
                "x.data",
                "contiguous 1-d",
            ),
        };
        float_type(&values).ok_or_else(|| not_float(name, what).into())
    }

    /// The Python object itself (kept by a step-wise run).
    pub(super) fn object(&self) -> Bound<'py, PyAny> {
        match self {
            Matrix::Dense(x) => x.clone(),
            Matrix::Sparse(csr) => csr.clone().into_any(),
        }
    }

    /// Runs `job` on these points, instantiated for their float type.
    pub(super) fn with_rows<J: RowsJob>(&self, job: J) -> PyResult<J::Output> {
        match self.float_type()? {
            FloatType::F64 => self.rows_as::<f64, J>(job),
            FloatType::F32 => self.rows_as::<f32, J>(job),
        }
    }

    fn rows_as<T: Float, J: RowsJob>(&self, job: J) -> PyResult<J::Output> {
        match self {
            Matrix::Dense(x) => {
                let x = readonly2::<T>("x", "2-d", x)?;
                job.run(Rows::Dense(x.as_array()))
            }
            Matrix::Sparse(csr) => {
                let py = csr.py();
                let csr = csr.get();
                let indptr = readonly1(py, "x.indptr", &csr.indptr)?;
                let indices = readonly1(py, "x.indices", &csr.indices)?;
                let data = csr
                    .data
                    .bind(py)
                    .cast::<PyArray1<T>>()
                    .map_err(|_| not_float("x.data", "contiguous 1-d"))?
                    .try_readonly()
                    .map_err(|_| BindingError::Busy { name: "x.data" })?;
                let view = CsrView::new(
                    csr.n_cols,
                    indptr.as_slice()?,
                    indices.as_slice()?,
                    data.as_slice()?,
                )?;
                job.run(Rows::Sparse(view))
            }
        }
    }
}

fn not_float(name: &'static str, what: &'static str) -> BindingError {
    BindingError::NotFloat { name, what }
}

fn readonly2<'py, T: Float>(
    name: &'static str,
    what: &'static str,
    array: &Bound<'py, PyAny>,
) -> PyResult<PyReadonlyArray2<'py, T>> {
    let typed = array
        .cast::<PyArray2<T>>()
        .map_err(|_| not_float(name, what))?;
    Ok(typed
        .try_readonly()
        .map_err(|_| BindingError::Busy { name })?)
}

fn readonly1<'py>(
    py: Python<'py>,
    name: &'static str,
    array: &Py<PyArray1<usize>>,
) -> PyResult<numpy::PyReadonlyArray1<'py, usize>> {
    Ok(array
        .bind(py)
        .try_readonly()
        .map_err(|_| BindingError::Busy { name })?)
}

/// `array` (named `name`) as a read-only 2-d array of the points' float
/// type `T`.
pub(super) fn same_float<'py, T: Float>(
    name: &'static str,
    array: &Bound<'py, PyAny>,
) -> PyResult<PyReadonlyArray2<'py, T>> {
    match array.cast::<PyArray2<T>>() {
        Ok(typed) => Ok(typed
            .try_readonly()
            .map_err(|_| BindingError::Busy { name })?),
        // A 2-d array of the other float type.
        Err(_) if is_2d(array) && float_type(array).is_some() => {
            Err(BindingError::DtypeMismatch.into())
        }
        Err(_) => Err(not_float(name, "2-d").into()),
    }
}

fn is_2d(array: &Bound<'_, PyAny>) -> bool {
    array.cast::<PyUntypedArray>().is_ok_and(|a| a.ndim() == 2)
}
