//! Smartigan's schedule (Clément & Steinerberger): in schedule sweep `t` of
//! `n_iter`, a point moves when its best join cost is strictly below the
//! acceptance factor times its leave gain, and the factor falls linearly
//! from `start` to `end`. The paper's schedule is `(3/2, 1)`: early sweeps
//! accept moves that raise the objective a little (exploration), the last
//! ones are almost Hartigan's. The restart state machine
//! ([`crate::fit::restart`]) runs the schedule and, with `polish`, Hartigan
//! sweeps after it.
//!
//! Where the schedule adapts (larger problems, no `n_iter` given), its start
//! is lowered to what the data can use ([`adapted_start`]): on overlapping
//! clusters in many dimensions nearly every point passes the test at 3/2,
//! and the relaxed sweeps are a random walk rather than an exploration.

/// The acceptance factor of schedule sweep `t` (0-based) of `n_iter`:
/// `start − (start − end)·t/n_iter`, the paper's `3/2 − t/(2·n_iter)` for
/// `(3/2, 1)`. It reaches `end` only in the limit `t = n_iter`.
pub(crate) fn acceptance_factor((start, end): (f64, f64), n_iter: usize, t: usize) -> f64 {
    start - (start - end) * (t as f64) / (n_iter as f64)
}

/// Points whose move ratios set an adaptive schedule's start: at most this
/// many, evenly spaced over the rows (a quantile from 2,048 points is within
/// about 1 % of the share it aims at; computing it costs a fraction of a sweep).
pub(crate) const PROBE_POINTS: usize = 2048;

/// The rows [`adapted_start`] looks at: `min(n, PROBE_POINTS)` of them,
/// evenly spaced (no random draw, so the visiting orders are untouched).
pub(crate) fn probe_sample(n: usize) -> Vec<usize> {
    let m = n.min(PROBE_POINTS);
    (0..m).map(|j| j * n / m).collect()
}

/// The start of the schedule `(start, end)` for a partition whose sampled
/// points have the move ratios `ratios` ([`crate::engine::move_rule::move_ratio`]:
/// a point moves at factor `c` when its ratio is below `c`): the ratio
/// below which the share `share` of them lie, kept within `[end, start]`.
/// Reorders `ratios` (a selection), which leaves [`share_moving`]'s count.
/// So at most about that share of the points passes the first sweep's
/// relaxed test: the schedule explores instead of walking at random. On
/// separated clusters the quantile lies above `start` and the schedule is
/// unchanged.
pub(crate) fn adapted_start((start, end): (f64, f64), ratios: &mut [f64], share: f64) -> f64 {
    if ratios.is_empty() || start <= end {
        return start;
    }
    let at = ((share * ratios.len() as f64).ceil() as usize).clamp(1, ratios.len()) - 1;
    let (_, &mut q, _) = ratios.select_nth_unstable_by(at, f64::total_cmp);
    if q.is_nan() {
        start
    } else {
        q.clamp(end, start)
    }
}

/// The share of `ratios` strictly below `factor`: of the sampled points,
/// those that would move in a sweep at that factor on the current
/// partition (before any of them moved).
pub(crate) fn share_moving(ratios: &[f64], factor: f64) -> f64 {
    let moving = ratios.iter().filter(|&&r| r < factor).count();
    moving as f64 / ratios.len().max(1) as f64
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn adapted_start_is_the_quantile_within_the_schedule() {
        let ratios: Vec<f64> = (1..=100).map(|i| 1.0 + f64::from(i) / 1000.0).collect();
        // Three quarters of the ratios lie below 1.075 (ratio 75 is 1.075).
        assert_eq!(adapted_start((1.5, 1.0), &mut ratios.clone(), 0.75), 1.075);
        // Separated data: the quantile is above the start, which stays.
        let mut far: Vec<f64> = ratios.iter().map(|r| r + 2.0).collect();
        assert_eq!(adapted_start((1.5, 1.0), &mut far, 0.75), 1.5);
        // Most points would move even at the end factor: the start is the end.
        let mut low: Vec<f64> = ratios.iter().map(|r| r - 0.5).collect();
        assert_eq!(adapted_start((1.5, 1.0), &mut low, 0.75), 1.0);
        // Points that cannot move count as never moving.
        let mut stuck = vec![f64::INFINITY; 100];
        stuck[0] = 1.01;
        assert_eq!(adapted_start((1.5, 1.0), &mut stuck, 0.75), 1.5);
        assert_eq!(adapted_start((1.5, 1.0), &mut [], 0.75), 1.5);
        // A rising or flat schedule is left alone.
        assert_eq!(adapted_start((1.0, 1.2), &mut ratios.clone(), 0.75), 1.0);
    }

    #[test]
    fn share_moving_counts_ratios_strictly_below_the_factor() {
        let ratios: Vec<f64> = (1..=100).map(|i| 1.0 + f64::from(i) / 1000.0).collect();
        // At the adapted start, the ratio on the quantile itself does not
        // move (a move needs a strictly lower cost): 74 of 100.
        let start = adapted_start((1.5, 1.0), &mut ratios.clone(), 0.75);
        assert_eq!(share_moving(&ratios, start), 0.74);
        assert_eq!(share_moving(&ratios, 1.5), 1.0);
        assert_eq!(share_moving(&ratios, 1.0), 0.0);
        assert_eq!(share_moving(&[f64::INFINITY, 0.5], 1.0), 0.5);
        assert_eq!(share_moving(&[], 1.5), 0.0);
    }

    #[test]
    fn probe_sample_spans_the_rows() {
        assert_eq!(probe_sample(5), vec![0, 1, 2, 3, 4]);
        let s = probe_sample(1_000_000);
        assert_eq!(s.len(), PROBE_POINTS);
        assert_eq!(s[0], 0);
        assert!(s.windows(2).all(|w| w[0] < w[1]));
        // The last sampled row lies within one spacing of the end.
        assert!(*s.last().unwrap() + 1_000_000 / PROBE_POINTS + 1 >= 1_000_000);
    }
}
