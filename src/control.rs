//! What a caller can do to a running operation from another thread: stop
//! it ([`Control::cancel`]) and watch it ([`Progress`]).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// A flag that is never set: the cancellation flag of an operation given
/// none.
static NEVER: AtomicBool = AtomicBool::new(false);

/// The controls of one call, for the `*_with` operations
/// ([`ValidParams::fit_with`](crate::ValidParams::fit_with) and the like):
/// a cancellation flag and a progress counter, both optional. The plain
/// operations run with `Control::default()`: not cancellable, no progress.
///
/// ```
/// use ndarray::array;
/// use smartigan::{Control, Error, Params};
/// use std::sync::atomic::AtomicBool;
/// let x = array![[0.0f64], [0.1], [5.0], [5.1]];
/// let stop = AtomicBool::new(true); // set by another thread, say on Ctrl-C
/// let p = Params::new(2).check().unwrap();
/// let e = p.fit_with(&x, Control::default().cancel(&stop)).unwrap_err();
/// assert_eq!(e, Error::Interrupted);
/// ```
#[derive(Debug, Default, Clone, Copy)]
pub struct Control<'a> {
    cancel: Option<&'a AtomicBool>,
    progress: Option<&'a Progress>,
}

impl<'a> Control<'a> {
    /// Stops the operation with [`Error::Interrupted`](crate::Error::Interrupted)
    /// soon after `flag` is set: restarts poll it between sweeps, k-means++
    /// between centres and within each pass over the data, predictions
    /// before every row.
    pub fn cancel(self, flag: &'a AtomicBool) -> Self {
        Control {
            cancel: Some(flag),
            ..self
        }
    }

    /// Counts the work done into `progress`, which another thread may read
    /// while the operation runs (paths over `k` report it; other
    /// operations leave it at `(0, 0)`).
    pub fn progress(self, progress: &'a Progress) -> Self {
        Control {
            progress: Some(progress),
            ..self
        }
    }

    /// The cancellation flag (one that is never set if none was given).
    pub(crate) fn cancel_flag(&self) -> &'a AtomicBool {
        self.cancel.unwrap_or(&NEVER)
    }

    /// Where progress is counted, if anywhere.
    pub(crate) fn progress_counter(&self) -> Option<&'a Progress> {
        self.progress
    }
}

/// How far a running operation has got, for a progress display: `done` of
/// `total` units of work, read with [`Progress::get`] from another thread.
/// A path over `k` counts one unit per `k` of each of its passes (growing;
/// with refinement, the fits, the merges from above and growing again from
/// below); a pass that skips a `k` counts it as done, so `done` reaches
/// `total` exactly when the path ends.
#[derive(Debug, Default)]
pub struct Progress {
    done: AtomicUsize,
    total: AtomicUsize,
}

impl Progress {
    /// `(done, total)`; `(0, 0)` before the work starts.
    pub fn get(&self) -> (usize, usize) {
        (
            self.done.load(Ordering::Relaxed),
            self.total.load(Ordering::Relaxed),
        )
    }

    pub(crate) fn start(&self, total: usize) {
        self.done.store(0, Ordering::Relaxed);
        self.total.store(total, Ordering::Relaxed);
    }

    pub(crate) fn advance(&self, units: usize) {
        self.done.fetch_add(units, Ordering::Relaxed);
    }
}
