//! Python bindings (`smartigan._core`), compiled only with the `python`
//! feature. The Python package `python/smartigan` wraps these functions with
//! type coercion and docstrings; every value check happens in the Rust core.
//!
//! All computation runs with the GIL released on a worker thread while the
//! calling thread polls for signals, so Ctrl-C stops a fit within about one
//! sweep and other Python threads keep running.

use crate::{Clustering, CsrView, Error, Init, Method, Params, Run, Scalar};
use ndarray::Array2;
use numpy::{
    Element, IntoPyArray, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2,
};
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

impl From<Error> for PyErr {
    fn from(e: Error) -> PyErr {
        match e {
            Error::InvalidParameter { .. } | Error::Shape { .. } | Error::NonFinite { .. } => {
                PyValueError::new_err(e.to_string())
            }
            Error::Interrupted => PyKeyboardInterrupt::new_err(e.to_string()),
            Error::ThreadPool { .. } => PyRuntimeError::new_err(e.to_string()),
        }
    }
}

/// How often the waiting thread checks for Ctrl-C.
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// Runs `job` on a worker thread with the GIL released. The calling thread
/// waits, checking for pending signals every [`SIGNAL_POLL`]; on a signal it
/// raises the cancellation flag, waits for the worker to notice (it checks
/// between sweeps) and re-raises the signal's exception.
fn interruptible<R: Send>(
    py: Python<'_>,
    job: impl FnOnce(&AtomicBool) -> crate::Result<R> + Send,
) -> PyResult<R> {
    let cancel = AtomicBool::new(false);
    py.detach(|| {
        std::thread::scope(|scope| {
            let (tx, rx) = mpsc::channel();
            let cancel = &cancel;
            scope.spawn(move || {
                // The receiver outlives the scope's threads; a failed send
                // can only mean the waiting side is gone, and then nobody
                // needs the result.
                let _ = tx.send(job(cancel));
            });
            let mut signal: Option<PyErr> = None;
            loop {
                match rx.recv_timeout(SIGNAL_POLL) {
                    Ok(result) => {
                        return match signal {
                            Some(err) => Err(err),
                            None => result.map_err(PyErr::from),
                        };
                    }
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        if signal.is_none() {
                            if let Err(err) = Python::attach(|py| py.check_signals()) {
                                cancel.store(true, Ordering::Relaxed);
                                signal = Some(err);
                            }
                        }
                    }
                    Err(mpsc::RecvTimeoutError::Disconnected) => {
                        return Err(PyRuntimeError::new_err(
                            "smartigan worker thread stopped without a result",
                        ));
                    }
                }
            }
        })
    })
}

fn non_negative(name: &'static str, v: i64, expected: &str) -> crate::Result<usize> {
    usize::try_from(v).map_err(|_| Error::invalid(name, v, expected))
}

#[allow(clippy::too_many_arguments)]
fn build_params(
    k: i64,
    method: &str,
    n_iter: Option<i64>,
    seed: Option<u64>,
    init: &str,
    init_centroids: Option<PyReadonlyArray2<'_, f64>>,
    n_init: Option<i64>,
    schedule: (f64, f64),
    polish: bool,
    refine: bool,
    n_threads: Option<i64>,
    tol: f64,
) -> crate::Result<Params> {
    let k = non_negative("k", k, "must be at least 1")?;
    let init = match init_centroids {
        Some(c) => Init::Centroids(c.as_array().to_owned()),
        None => Init::from_name(init)?,
    };
    let mut p = Params::new(k)
        .method(method.parse::<Method>()?)
        .init(init)
        .schedule(schedule.0, schedule.1)
        .polish(polish)
        .refine(refine)
        .tol(tol);
    // Negative counts fail here (they do not fit `usize`); the core checks
    // the ranges.
    let count = |name, v: Option<i64>, expected: &str| {
        v.map(|v| non_negative(name, v, expected)).transpose()
    };
    p.seed = seed;
    p.n_iter = count(
        "n_iter",
        n_iter,
        &format!("must be between 1 and {}, or None", crate::MAX_N_ITER),
    )?;
    p.n_init = count(
        "n_init",
        n_init,
        &format!("must be between 1 and {}", crate::MAX_N_INIT),
    )?;
    p.n_threads = count(
        "n_threads",
        n_threads,
        "must be at least 1, or None for all cores",
    )?;
    Ok(p)
}

fn clustering_to_dict<'py, T: Scalar + Element>(
    py: Python<'py>,
    c: Clustering<T>,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let labels: Vec<i64> = c.labels.iter().map(|&l| l as i64).collect();
    d.set_item("labels", labels.into_pyarray(py))?;
    d.set_item("centroids", c.centroids.into_pyarray(py))?;
    d.set_item("objective", c.objective)?;
    let sizes: Vec<i64> = c.cluster_sizes.iter().map(|&s| s as i64).collect();
    d.set_item("cluster_sizes", sizes.into_pyarray(py))?;
    d.set_item("cluster_objectives", c.cluster_objectives.into_pyarray(py))?;
    d.set_item("n_sweeps", c.n_sweeps)?;
    d.set_item("converged", c.converged)?;
    d.set_item("history", c.history.into_pyarray(py))?;
    let moves: Vec<i64> = c.moves.iter().map(|&m| m as i64).collect();
    d.set_item("moves", moves.into_pyarray(py))?;
    d.set_item("initial_objective", c.initial_objective)?;
    d.set_item("refinements", c.refinements)?;
    d.set_item("restart_objectives", c.restart_objectives.into_pyarray(py))?;
    d.set_item("best_restart", c.best_restart)?;
    d.set_item("seed", c.seed)?;
    Ok(d)
}

/// Unchecked parameters, built once on the Python side and handed to `fit`,
/// `fit_sparse` and `Run`; the core checks them when it runs.
#[pyclass(module = "smartigan._core", name = "Params", frozen)]
struct PyParams {
    inner: Params,
}

#[pymethods]
impl PyParams {
    #[new]
    #[pyo3(signature = (k, method, n_iter, seed, init, init_centroids, n_init, schedule, polish, refine, n_threads, tol=0.0))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        k: i64,
        method: &str,
        n_iter: Option<i64>,
        seed: Option<u64>,
        init: &str,
        init_centroids: Option<PyReadonlyArray2<'_, f64>>,
        n_init: Option<i64>,
        schedule: (f64, f64),
        polish: bool,
        refine: bool,
        n_threads: Option<i64>,
        tol: f64,
    ) -> PyResult<Self> {
        let inner = build_params(
            k,
            method,
            n_iter,
            seed,
            init,
            init_centroids,
            n_init,
            schedule,
            polish,
            refine,
            n_threads,
            tol,
        )?;
        Ok(PyParams { inner })
    }
}

/// The two dtypes the core reads without copying.
enum Floats<'py> {
    F32(PyReadonlyArray2<'py, f32>),
    F64(PyReadonlyArray2<'py, f64>),
}

fn floats<'py>(name: &str, x: &Bound<'py, PyAny>) -> PyResult<Floats<'py>> {
    let busy = |_| PyRuntimeError::new_err(format!("{name} is being written by another thread"));
    if let Ok(a) = x.cast::<PyArray2<f64>>() {
        return a.try_readonly().map(Floats::F64).map_err(busy);
    }
    if let Ok(a) = x.cast::<PyArray2<f32>>() {
        return a.try_readonly().map(Floats::F32).map_err(busy);
    }
    Err(PyTypeError::new_err(format!(
        "{name} must be a 2-d float32 or float64 numpy array"
    )))
}

/// Evaluates `$body` with `$view` bound to the `ArrayView2` of `$floats`
/// (a [`Floats`]), once per dtype: the body is generic code that the two
/// arms instantiate for `f64` and `f32`.
macro_rules! with_dense {
    ($floats:expr, |$view:ident| $body:expr) => {
        match $floats {
            Floats::F64(a) => {
                let $view = a.as_array();
                $body
            }
            Floats::F32(a) => {
                let $view = a.as_array();
                $body
            }
        }
    };
}

/// The restarts `n_init="auto"` runs for data of this shape (the core's
/// rule, so that Python never restates it).
#[pyfunction]
fn auto_n_init(n_samples: usize, n_features: usize, k: usize) -> usize {
    crate::defaults::n_init(n_samples, n_features, k)
}

/// Clusters `x`; see `smartigan.cluster` for the documented front end.
#[pyfunction]
#[pyo3(signature = (x, params, sample_weight=None))]
fn fit<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    params: PyRef<'_, PyParams>,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
) -> PyResult<Bound<'py, PyDict>> {
    let weights = sample_weight.as_ref().map(|w| w.as_array());
    let params = params.inner.clone();
    with_dense!(floats("x", x)?, |view| {
        let c = interruptible(py, |cancel| {
            crate::fit_cancellable(view, weights, params, cancel)
        })?;
        clustering_to_dict(py, c)
    })
}

/// The rows greedy k-means++ chooses as centres; see
/// `smartigan.kmeans_plusplus`.
#[pyfunction]
#[pyo3(signature = (x, params, sample_weight=None))]
fn kmeans_plusplus<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    params: PyRef<'_, PyParams>,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
) -> PyResult<Bound<'py, PyAny>> {
    let weights = sample_weight.as_ref().map(|w| w.as_array());
    let params = params.inner.clone();
    let rows = with_dense!(floats("x", x)?, |view| py
        .detach(|| crate::kmeans_plus_plus(view, weights, params))?);
    Ok(labels_to_py(py, rows))
}

/// A CSR matrix handed over from SciPy: `indptr` and `indices` as uintp,
/// `data` as float32/float64 (read without a copy).
struct PyCsr<'py> {
    n_cols: usize,
    indptr: PyReadonlyArray1<'py, usize>,
    indices: PyReadonlyArray1<'py, usize>,
    data: Bound<'py, PyAny>,
}

impl<'py> PyCsr<'py> {
    /// Runs `f64_job` or `f32_job` on the validated view, by dtype.
    fn with_view<R>(
        &self,
        f64_job: impl FnOnce(CsrView<'_, f64>) -> PyResult<R>,
        f32_job: impl FnOnce(CsrView<'_, f32>) -> PyResult<R>,
    ) -> PyResult<R> {
        let (indptr, indices) = (self.indptr.as_slice()?, self.indices.as_slice()?);
        if let Ok(a) = self.data.cast::<PyArray1<f64>>() {
            let data = a
                .try_readonly()
                .map_err(|_| PyRuntimeError::new_err("x.data is being written"))?;
            return f64_job(CsrView::new(
                self.n_cols,
                indptr,
                indices,
                data.as_slice()?,
            )?);
        }
        if let Ok(a) = self.data.cast::<PyArray1<f32>>() {
            let data = a
                .try_readonly()
                .map_err(|_| PyRuntimeError::new_err("x.data is being written"))?;
            return f32_job(CsrView::new(
                self.n_cols,
                indptr,
                indices,
                data.as_slice()?,
            )?);
        }
        Err(PyTypeError::new_err(
            "x.data must be a contiguous float32 or float64 array",
        ))
    }
}

/// Clusters a sparse CSR matrix; see `smartigan.cluster`.
#[pyfunction]
#[pyo3(signature = (n_cols, indptr, indices, data, params, sample_weight=None))]
fn fit_sparse<'py>(
    py: Python<'py>,
    n_cols: usize,
    indptr: PyReadonlyArray1<'py, usize>,
    indices: PyReadonlyArray1<'py, usize>,
    data: Bound<'py, PyAny>,
    params: PyRef<'_, PyParams>,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
) -> PyResult<Bound<'py, PyDict>> {
    let weights = sample_weight.as_ref().map(|w| w.as_array());
    let params = params.inner.clone();
    let csr = PyCsr {
        n_cols,
        indptr,
        indices,
        data,
    };
    csr.with_view(
        |x| {
            let c = interruptible(py, |cancel| {
                crate::fit_sparse(x, weights, params.clone(), cancel)
            })?;
            clustering_to_dict(py, c)
        },
        |x| {
            let c = interruptible(py, |cancel| {
                crate::fit_sparse(x, weights, params.clone(), cancel)
            })?;
            clustering_to_dict(py, c)
        },
    )
}

/// Nearest centroid of each sparse row.
#[pyfunction]
fn predict_sparse<'py>(
    py: Python<'py>,
    n_cols: usize,
    indptr: PyReadonlyArray1<'py, usize>,
    indices: PyReadonlyArray1<'py, usize>,
    data: Bound<'py, PyAny>,
    centroids: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let csr = PyCsr {
        n_cols,
        indptr,
        indices,
        data,
    };
    let cents = floats("centroids", centroids)?;
    csr.with_view(
        |x| match &cents {
            Floats::F64(c) => {
                let c = c.as_array();
                Ok(labels_to_py(py, py.detach(|| crate::predict_sparse(x, c))?))
            }
            Floats::F32(_) => Err(PyTypeError::new_err(
                "x and centroids must have the same dtype",
            )),
        },
        |x| match &cents {
            Floats::F32(c) => {
                let c = c.as_array();
                Ok(labels_to_py(py, py.detach(|| crate::predict_sparse(x, c))?))
            }
            Floats::F64(_) => Err(PyTypeError::new_err(
                "x and centroids must have the same dtype",
            )),
        },
    )
}

/// Euclidean distances from each sparse row to each centroid.
#[pyfunction]
fn transform_sparse<'py>(
    py: Python<'py>,
    n_cols: usize,
    indptr: PyReadonlyArray1<'py, usize>,
    indices: PyReadonlyArray1<'py, usize>,
    data: Bound<'py, PyAny>,
    centroids: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let csr = PyCsr {
        n_cols,
        indptr,
        indices,
        data,
    };
    let cents = floats("centroids", centroids)?;
    csr.with_view(
        |x| match &cents {
            Floats::F64(c) => {
                let c = c.as_array();
                Ok(py
                    .detach(|| crate::transform_sparse(x, c))?
                    .into_pyarray(py)
                    .into_any())
            }
            Floats::F32(_) => Err(PyTypeError::new_err(
                "x and centroids must have the same dtype",
            )),
        },
        |x| match &cents {
            Floats::F32(c) => {
                let c = c.as_array();
                Ok(py
                    .detach(|| crate::transform_sparse(x, c))?
                    .into_pyarray(py)
                    .into_any())
            }
            Floats::F64(_) => Err(PyTypeError::new_err(
                "x and centroids must have the same dtype",
            )),
        },
    )
}

fn labels_to_py<'py>(py: Python<'py>, labels: ndarray::Array1<usize>) -> Bound<'py, PyAny> {
    labels.mapv(|l| l as i64).into_pyarray(py).into_any()
}

/// Nearest centroid of each row (`x` and `centroids` of one float dtype).
#[pyfunction]
fn predict<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    centroids: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    match (floats("x", x)?, floats("centroids", centroids)?) {
        (Floats::F64(a), Floats::F64(c)) => {
            let (a, c) = (a.as_array(), c.as_array());
            Ok(labels_to_py(py, py.detach(|| crate::predict(a, c))?))
        }
        (Floats::F32(a), Floats::F32(c)) => {
            let (a, c) = (a.as_array(), c.as_array());
            Ok(labels_to_py(py, py.detach(|| crate::predict(a, c))?))
        }
        _ => Err(PyTypeError::new_err(
            "x and centroids must have the same dtype",
        )),
    }
}

/// Euclidean distances from each row to each centroid.
#[pyfunction]
fn transform<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    centroids: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    match (floats("x", x)?, floats("centroids", centroids)?) {
        (Floats::F64(a), Floats::F64(c)) => {
            let (a, c) = (a.as_array(), c.as_array());
            let out: Array2<f64> = py.detach(|| crate::transform(a, c))?;
            Ok(out.into_pyarray(py).into_any())
        }
        (Floats::F32(a), Floats::F32(c)) => {
            let (a, c) = (a.as_array(), c.as_array());
            let out: Array2<f32> = py.detach(|| crate::transform(a, c))?;
            Ok(out.into_pyarray(py).into_any())
        }
        _ => Err(PyTypeError::new_err(
            "x and centroids must have the same dtype",
        )),
    }
}

/// A fit advanced one sweep at a time (the state machine behind
/// `Clusterer.start/step/finish`). Keeps a reference to `x`.
#[pyclass(module = "smartigan._core", name = "Run")]
struct PyRun {
    run: Run,
    x: Py<PyAny>,
}

impl PyRun {
    fn with_view<R>(
        &self,
        py: Python<'_>,
        f64_job: impl FnOnce(ndarray::ArrayView2<'_, f64>) -> PyResult<R>,
        f32_job: impl FnOnce(ndarray::ArrayView2<'_, f32>) -> PyResult<R>,
    ) -> PyResult<R> {
        match floats("x", self.x.bind(py))? {
            Floats::F64(a) => f64_job(a.as_array()),
            Floats::F32(a) => f32_job(a.as_array()),
        }
    }
}

#[pymethods]
impl PyRun {
    #[new]
    #[pyo3(signature = (x, params, sample_weight=None))]
    fn new(
        py: Python<'_>,
        x: &Bound<'_, PyAny>,
        params: PyRef<'_, PyParams>,
        sample_weight: Option<PyReadonlyArray1<'_, f64>>,
    ) -> PyResult<Self> {
        let weights = sample_weight.as_ref().map(|w| w.as_array());
        let params = params.inner.clone();
        // Interruptible: drawing many restarts' starts can take a while.
        let run = with_dense!(floats("x", x)?, |v| interruptible(py, |cancel| {
            Run::new_cancellable(v, weights, params, cancel)
        })?);
        Ok(PyRun {
            run,
            x: x.clone().unbind(),
        })
    }

    /// Advances every unfinished restart by one sweep; returns whether any
    /// restart is still running.
    fn step(&mut self, py: Python<'_>) -> PyResult<bool> {
        let x = self.x.clone_ref(py);
        let run = &mut self.run;
        with_dense!(floats("x", x.bind(py))?, |v| Ok(py.detach(|| run.step(v))?))
    }

    /// Steps until every restart has finished (interruptible).
    fn finish(&mut self, py: Python<'_>) -> PyResult<()> {
        let x = self.x.clone_ref(py);
        let run = &mut self.run;
        let job = |view_step: &dyn Fn(&mut Run) -> crate::Result<bool>,
                   cancel: &AtomicBool,
                   run: &mut Run| {
            while view_step(run)? {
                if cancel.load(Ordering::Relaxed) {
                    return Err(Error::Interrupted);
                }
            }
            Ok(())
        };
        with_dense!(floats("x", x.bind(py))?, |v| interruptible(py, |cancel| {
            job(&|r: &mut Run| r.step(v), cancel, run)
        }))
    }

    /// Whether every restart has finished.
    #[getter]
    fn finished(&self) -> bool {
        self.run.is_finished()
    }

    /// The best restart so far, as the same dict `fit` returns.
    fn current<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.with_view(
            py,
            |v| clustering_to_dict(py, self.run.current(v)?),
            |v| clustering_to_dict(py, self.run.current(v)?),
        )
    }
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(fit, m)?)?;
    m.add_function(wrap_pyfunction!(auto_n_init, m)?)?;
    m.add_function(wrap_pyfunction!(kmeans_plusplus, m)?)?;
    m.add_function(wrap_pyfunction!(predict, m)?)?;
    m.add_function(wrap_pyfunction!(transform, m)?)?;
    m.add_function(wrap_pyfunction!(fit_sparse, m)?)?;
    m.add_function(wrap_pyfunction!(predict_sparse, m)?)?;
    m.add_function(wrap_pyfunction!(transform_sparse, m)?)?;
    m.add_class::<PyRun>()?;
    m.add_class::<PyParams>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("MAX_N_ITER", crate::MAX_N_ITER)?;
    m.add("DEFAULT_METHOD", crate::defaults::METHOD.name())?;
    m.add("DEFAULT_N_ITER", crate::defaults::N_ITER)?;
    m.add("DEFAULT_MAX_ITER", crate::defaults::MAX_ITER)?;
    m.add("AUTO_N_INIT_SMALL", crate::defaults::N_INIT_SMALL)?;
    m.add("AUTO_N_INIT_LARGE", crate::defaults::N_INIT_LARGE)?;
    m.add("AUTO_SMALL_PROBLEM", crate::defaults::SMALL_PROBLEM)?;
    m.add("DEFAULT_INIT", crate::defaults::init().name())?;
    m.add("DEFAULT_SCHEDULE", crate::defaults::SCHEDULE)?;
    m.add("DEFAULT_POLISH", crate::defaults::POLISH)?;
    m.add("DEFAULT_REFINE", crate::defaults::REFINE)?;
    m.add("DEFAULT_TOL", crate::defaults::TOL)?;
    Ok(())
}
