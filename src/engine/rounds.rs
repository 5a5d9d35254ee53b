//! The sweep in rounds, as a definition: which problems take it and how a
//! sweep is cut into rounds. The plain sweep in rounds is
//! [`crate::engine::reference::sweep_rounds`], the accelerated one
//! [`crate::dense::accel::sweep::rounds`] (whose documentation says what a round
//! is); the cosine objective's is in [`crate::spherical`]. All are driven
//! by [`RoundPlan::run`], which cuts the rounds; what differs is how a
//! round's points are scored.

/// Multiply-adds of scoring a round should hold at least (`positions·k·d`
/// while every point is scored; about a millisecond of one core), so that
/// handing the round to the pool and back, and bringing the snapshot up to
/// date after it, weigh little against it.
const ROUND_WORK: usize = 1 << 26;
/// Bounds on the shortest round (positions), whatever `k·d`.
const MIN_ROUND: (usize, usize) = (64, 1024);
/// Bounds on the proposed moves a round aims for: each is decided against
/// centroids up to a round old and validated before it is made, so the
/// fewer the closer a sweep stays to the sequential one.
const ROUND_PROPOSALS: (usize, usize) = (32, 256);
/// A round spans at most `1/MAX_ROUND_PARTS` of the points: at most one
/// of the bounds' checkpoint intervals (a sweep has up to eight), so that
/// the points of later rounds are still checked against fresh snapshots.
const MAX_ROUND_PARTS: usize = 8;

/// Fewest points for which the sweeps run in rounds ([`decides_in_rounds`]).
pub(crate) const ROUNDS_MIN_ROWS: usize = 1 << 14;
/// Fewest multiply-adds in a pass (`n·k·d`) for which the sweeps run in
/// rounds: below it the budget runs several restarts side by side, which
/// keep the cores busy on their own, and the sequential sweep is the
/// paper's definition.
pub(crate) const ROUNDS_MIN_WORK: usize = 1 << 24;

/// Whether a fit of `n` points in `d` dimensions with `k` clusters sweeps in
/// rounds (a property of the problem, never of the thread count, so that
/// results do not depend on it).
pub(crate) fn decides_in_rounds(n: usize, k: usize, d: usize) -> bool {
    n >= ROUNDS_MIN_ROWS && n.saturating_mul(k).saturating_mul(d) >= ROUNDS_MIN_WORK
}

/// How the sweeps of a problem are cut into rounds: as short as the
/// scoring work allows (a round of `k·d`-costly points needs fewer of them
/// to keep the cores busy), and longer once few points propose a move.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct RoundPlan {
    /// Fewest and most positions of a round.
    shortest: usize,
    longest: usize,
    /// Proposed moves a round aims for.
    proposals: f64,
}

impl RoundPlan {
    /// The plan for sweeps over `n` positions with `k` clusters in `d`
    /// dimensions.
    pub(crate) fn new(n: usize, k: usize, d: usize) -> Self {
        let per_point = k.saturating_mul(d).max(1);
        let enough = ROUND_WORK.div_ceil(per_point);
        let shortest = enough.clamp(MIN_ROUND.0, MIN_ROUND.1);
        RoundPlan {
            shortest,
            longest: (n / MAX_ROUND_PARTS).max(shortest),
            proposals: enough.clamp(ROUND_PROPOSALS.0, ROUND_PROPOSALS.1) as f64,
        }
    }

    /// Positions of the next round when a share `share` of the positions
    /// proposed a move in the rounds before.
    pub(crate) fn len(&self, share: f64) -> usize {
        let len = self.proposals / share.max(1e-9);
        (len.min(self.longest as f64) as usize).clamp(self.shortest, self.longest)
    }

    /// The driver of every sweep in rounds: cuts `n` positions into
    /// consecutive rounds and calls `round(start, end)` on each in order,
    /// which decides the positions `start..end` against the state as the
    /// round began, makes the moves the rule still accepts, and returns how
    /// many positions proposed a move. The share of proposals, smoothed
    /// over rounds, sets the next round's length; a sweep starts as if
    /// every point proposed (short rounds until it knows better).
    pub(crate) fn run(&self, n: usize, mut round: impl FnMut(usize, usize) -> usize) {
        let (mut share, mut start) = (1.0, 0);
        while start < n {
            let end = (start + self.len(share)).min(n);
            let proposed = round(start, end);
            share = 0.5 * share + 0.5 * proposed as f64 / (end - start) as f64;
            start = end;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_lengths_follow_the_work_and_the_share_of_proposals() {
        // Few costly points (W5's 256 × 384) or many cheap ones (W2's
        // 100 × 32) make a round's work; short rounds while many points
        // propose, long ones once few do, never past an eighth of the points.
        let wide = RoundPlan::new(100_000, 256, 384);
        assert_eq!((wide.shortest, wide.proposals), (683, 256.0));
        assert_eq!(wide.len(1.0), 683);
        assert_eq!(wide.len(0.01), 12_500);
        let widest = RoundPlan::new(100_000, 4096, 1024);
        assert_eq!((widest.shortest, widest.proposals), (64, 32.0));
        let narrow = RoundPlan::new(100_000, 100, 32);
        assert_eq!((narrow.shortest, narrow.proposals), (1024, 256.0));
        assert_eq!(narrow.len(1.0), 1024);
        assert_eq!(narrow.len(0.1), 2560);
        assert_eq!(narrow.len(0.0), 100_000 / MAX_ROUND_PARTS);
        assert_eq!(RoundPlan::new(5000, 100, 32).len(0.0), 1024);
    }

    #[test]
    fn problem_size_alone_chooses_rounds() {
        assert!(!decides_in_rounds(ROUNDS_MIN_ROWS - 1, 1 << 12, 1 << 12));
        assert!(!decides_in_rounds(ROUNDS_MIN_ROWS, 8, 8));
        assert!(decides_in_rounds(ROUNDS_MIN_ROWS, 64, 16));
        assert!(decides_in_rounds(usize::MAX, usize::MAX, 2));
    }
}
