//! Running core work with the GIL released, stoppable by Ctrl-C.
//!
//! Work that can be long (fits, k-means++ seeding, drawing many restarts'
//! starts, predict and transform on many rows) runs on a worker thread
//! while the calling thread polls for signals, so Ctrl-C stops it within
//! about one sweep or one block of rows, and other Python threads keep
//! running. Work bounded by one sweep (a `Clusterer` step) only releases
//! the GIL ([`detached`]).

use super::errors::BindingError;
use pyo3::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

/// How often the waiting thread checks for Ctrl-C.
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// Runs `job` on a worker thread with the GIL released. The calling thread
/// waits, checking for pending signals every [`SIGNAL_POLL`]; on a signal it
/// raises the cancellation flag, waits for the worker to notice (the core
/// checks it between sweeps) and re-raises the signal's exception.
pub(super) fn interruptible<R: Send>(
    py: Python<'_>,
    job: impl FnOnce(&AtomicBool) -> crate::error::Result<R> + Send,
) -> PyResult<R> {
    interruptible_reporting(py, job, |_| Ok(()))
}

/// [`interruptible`], also calling `report` (with the GIL) at every check
/// and once when the job has ended, for a progress display. An exception
/// from `report` stops the job as Ctrl-C does, and is raised.
pub(super) fn interruptible_reporting<R: Send>(
    py: Python<'_>,
    job: impl FnOnce(&AtomicBool) -> crate::error::Result<R> + Send,
    mut report: impl FnMut(Python<'_>) -> PyResult<()> + Send,
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
                            None => {
                                let result = result.map_err(PyErr::from)?;
                                Python::attach(&mut report)?;
                                Ok(result)
                            }
                        };
                    }
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        if signal.is_none() {
                            let checked =
                                Python::attach(|py| py.check_signals().and_then(|()| report(py)));
                            if let Err(err) = checked {
                                cancel.store(true, Ordering::Relaxed);
                                signal = Some(err);
                            }
                        }
                    }
                    Err(mpsc::RecvTimeoutError::Disconnected) => {
                        return Err(BindingError::WorkerLost.into());
                    }
                }
            }
        })
    })
}

/// Runs `job` with the GIL released, on this thread.
pub(super) fn detached<R: Send>(
    py: Python<'_>,
    job: impl FnOnce() -> crate::error::Result<R> + Send,
) -> PyResult<R> {
    Ok(py.detach(job)?)
}
