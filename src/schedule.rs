//! Smartigan's schedule (Clément & Steinerberger): in schedule sweep `t` of
//! `n_iter`, a point moves when its best join cost is strictly below the
//! acceptance factor times its leave gain, and the factor falls linearly
//! from `start` to `end`. The paper's schedule is `(3/2, 1)`: early sweeps
//! accept moves that raise the objective a little (exploration), the last
//! ones are almost Hartigan's. The restart state machine
//! ([`crate::restart`]) runs the schedule and, with `polish`, Hartigan
//! sweeps after it.

/// The acceptance factor of schedule sweep `t` (0-based) of `n_iter`:
/// `start − (start − end)·t/n_iter`, the paper's `3/2 − t/(2·n_iter)` for
/// `(3/2, 1)`. It reaches `end` only in the limit `t = n_iter`.
pub(crate) fn acceptance_factor((start, end): (f64, f64), n_iter: usize, t: usize) -> f64 {
    start - (start - end) * (t as f64) / (n_iter as f64)
}
