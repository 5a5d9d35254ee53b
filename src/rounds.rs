//! The sweep in rounds, as a definition: which problems take it and how a
//! sweep is cut into rounds. The plain sweep in rounds is
//! [`crate::reference::sweep_rounds`], the accelerated one
//! [`crate::accel::sweep::rounds`] (whose documentation says what a round
//! is); the cosine objective's is in [`crate::spherical`]. All cut their
//! rounds by [`round_len`].

/// Fewest positions in a round (four tasks' worth): shorter rounds spend
/// more on handing the round to the pool than on scoring it.
const MIN_ROUND: usize = 1024;
/// Proposed moves a round aims for: each is decided against centroids up
/// to a round old, and validated before it is made.
const ROUND_PROPOSALS: f64 = 256.0;
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

/// Positions of the next round when a share `share` of the positions
/// proposed a move in the rounds before.
pub(crate) fn round_len(n: usize, share: f64) -> usize {
    let most = (n / MAX_ROUND_PARTS).max(MIN_ROUND);
    let len = ROUND_PROPOSALS / share.max(1e-9);
    (len.min(most as f64) as usize).clamp(MIN_ROUND, most)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_lengths_follow_the_share_of_proposals() {
        // Short rounds while many points propose, long ones once few do, never
        // past an eighth of the points (or below the shortest round).
        assert_eq!(round_len(100_000, 1.0), MIN_ROUND);
        assert_eq!(round_len(100_000, 0.1), 2560);
        assert_eq!(round_len(100_000, 0.0), 100_000 / MAX_ROUND_PARTS);
        assert_eq!(round_len(5000, 0.0), MIN_ROUND);
    }

    #[test]
    fn problem_size_alone_chooses_rounds() {
        assert!(!decides_in_rounds(ROUNDS_MIN_ROWS - 1, 1 << 12, 1 << 12));
        assert!(!decides_in_rounds(ROUNDS_MIN_ROWS, 8, 8));
        assert!(decides_in_rounds(ROUNDS_MIN_ROWS, 64, 16));
        assert!(decides_in_rounds(usize::MAX, usize::MAX, 2));
    }
}
