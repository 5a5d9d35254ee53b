//! `_core.Run`: a fit advanced one sweep at a time (the state machine
//! behind `Clusterer.start/step/finish`), on dense or sparse points.

use super::arrays::{Float, Matrix, RowsJob};
use super::fit::{FitInputs, Weights};
use super::interrupt::{detached, interruptible};
use super::params::PyParams;
use super::result::PyClustering;
use crate::{control::Control, error::Error, fit::run::Run, rows::Rows};
use pyo3::prelude::*;
use std::sync::atomic::Ordering;

/// A step-wise fit. Keeps a reference to `x`, which every step reads again
/// (the core's [`Run`] owns no copy of the data).
#[pyclass(module = "smartigan._core", name = "Run")]
pub(super) struct PyRun {
    run: Run,
    x: Py<PyAny>,
}

impl PyRun {
    /// The points the run started on, as the matrix they were.
    fn points<'py>(&self, py: Python<'py>) -> PyResult<Matrix<'py>> {
        self.x.bind(py).extract()
    }
}

#[pymethods]
impl PyRun {
    /// Checks the parameters and data and draws every restart's start
    /// (interruptible: drawing many restarts' starts can take a while).
    #[new]
    #[pyo3(signature = (x, params, sample_weight=None))]
    fn new(
        py: Python<'_>,
        x: Matrix<'_>,
        params: PyRef<'_, PyParams>,
        sample_weight: Weights<'_>,
    ) -> PyResult<Self> {
        let run = x.with_rows(Start(FitInputs::new(py, &params, &sample_weight)))?;
        Ok(PyRun {
            run,
            x: x.object().unbind(),
        })
    }

    /// Advances every unfinished restart by one sweep; returns whether any
    /// restart is still running.
    fn step(&mut self, py: Python<'_>) -> PyResult<bool> {
        self.points(py)?.with_rows(Advance {
            py,
            run: &mut self.run,
            to_end: false,
        })
    }

    /// Steps until every restart has finished (interruptible).
    fn finish(&mut self, py: Python<'_>) -> PyResult<()> {
        self.points(py)?.with_rows(Advance {
            py,
            run: &mut self.run,
            to_end: true,
        })?;
        Ok(())
    }

    /// Whether every restart has finished.
    #[getter]
    fn finished(&self) -> bool {
        self.run.is_finished()
    }

    /// The best restart so far (the final result once finished).
    fn current(&self, py: Python<'_>) -> PyResult<PyClustering> {
        self.points(py)?.with_rows(Current { py, run: &self.run })
    }
}

struct Start<'a, 'py>(FitInputs<'a, 'py>);

impl RowsJob for Start<'_, '_> {
    type Output = Run;

    fn run<T: Float>(self, rows: Rows<'_, T>) -> PyResult<Run> {
        let (py, data, params) = self.0.parts(rows.reborrow());
        interruptible(py, |cancel| {
            params
                .check()?
                .run_with(data, Control::default().cancel(cancel))
        })
    }
}

/// One sweep, or (`to_end`) sweeps until the run has finished.
struct Advance<'r, 'py> {
    py: Python<'py>,
    run: &'r mut Run,
    to_end: bool,
}

impl RowsJob for Advance<'_, '_> {
    type Output = bool;

    fn run<T: Float>(self, rows: Rows<'_, T>) -> PyResult<bool> {
        let run = self.run;
        if !self.to_end {
            return detached(self.py, || run.step(rows));
        }
        interruptible(self.py, |cancel| {
            while run.step(rows.reborrow())? {
                if cancel.load(Ordering::Relaxed) {
                    return Err(Error::Interrupted);
                }
            }
            Ok(false)
        })
    }
}

struct Current<'r, 'py> {
    py: Python<'py>,
    run: &'r Run,
}

impl RowsJob for Current<'_, '_> {
    type Output = PyClustering;

    fn run<T: Float>(self, rows: Rows<'_, T>) -> PyResult<PyClustering> {
        Ok(PyClustering::new(self.py, self.run.current(rows)?))
    }
}
