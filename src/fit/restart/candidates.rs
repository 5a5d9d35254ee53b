//! Candidate sweeps: the tail of a Hartigan descent on heavily overlapping
//! data, where hundreds of sweeps each move a few points out of thousands,
//! swept over the points near a boundary instead of over every point.

use super::Restart;
use crate::engine::move_rule::STALL_REL_MARGIN;
use crate::engine::source::Source;

/// A descent with candidate sweeps ([`Restart::with_candidate_sweeps`])
/// starts narrowing after this many sweeps of every point: descents that
/// end sooner (separated groups) make exactly the moves of a plain descent.
/// Narrowing early pays because a round of candidate sweeps starts from a
/// screened pass over the ratios, not from a sweep of every point.
pub(crate) const CANDIDATE_AFTER_SWEEPS: usize = 10;
/// A point is a candidate while its move ratio
/// ([`crate::engine::move_rule::move_ratio`]) is below `1 + CANDIDATE_SLACK`: its
/// best alternative costs at most 0.3 % more than staying. In a long tail a
/// sweep moves a few points out of many thousands, so centroids drift by
/// little between full sweeps, and the points that move next are those
/// already within a small margin of a boundary.
pub(super) const CANDIDATE_SLACK: f64 = 3e-3;

/// A Hartigan descent's candidate sweeps. After its first `after` sweeps,
/// each sweep of every point that moves something is followed by sweeps
/// over the points then within [`CANDIDATE_SLACK`] of a move, until one of
/// these moves nothing or no longer lowers the objective beyond rounding.
/// A round of candidate sweeps that lowered the objective is followed by a
/// screen of every point's move ratio: where some point can move, the
/// points within the slack start the next round at once; only where none
/// can is every point swept again. Only a sweep of every point that moves
/// nothing ends the descent, so it still ends at a Hartigan local optimum;
/// the candidate sweeps make the tail of heavily overlapping data cheap,
/// where hundreds of sweeps each move a few points out of thousands, and
/// the screens spare the sweep of every point that each round would
/// otherwise start with: picking the next candidates needs every point's
/// ratio anyway, and the ratios show whether any point can move (where
/// none can, the sweep of every point that follows moves nothing and ends
/// the descent).
#[derive(Debug, Clone)]
pub(super) struct Candidates {
    /// Sweeps of every point before narrowing.
    after: usize,
    /// The points of the current candidate sweeps, in increasing index.
    members: Vec<usize>,
    /// Their visiting order in the current candidate sweep.
    order: Vec<usize>,
    /// What the next sweep starts from.
    next: Due,
    /// Whether the current round of candidate sweeps has lowered the
    /// objective beyond rounding.
    round_lowered: bool,
    /// Candidate sweeps run so far.
    sweeps: usize,
    /// Screens run so far.
    screens: usize,
}

/// What a descent with candidate sweeps does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Due {
    /// A sweep of the current candidates (the round goes on).
    Candidates,
    /// A screen of every point's ratio, then the next round at once where
    /// some point can move: after a round that lowered the objective. A
    /// round started by a screen that lowers nothing is followed by a sweep
    /// of every point, so screens cannot repeat without progress.
    Screen,
    /// A sweep of every point.
    Every,
}

impl Candidates {
    /// The points of `ratios` (one per point, in index order) within
    /// [`CANDIDATE_SLACK`] of a move, as the next round's members; whether
    /// one of them can move now (ratio below 1).
    fn select(&mut self, ratios: &[f64]) -> bool {
        self.members.clear();
        self.members.extend(
            ratios
                .iter()
                .enumerate()
                .filter(|&(_, &r)| r < 1.0 + CANDIDATE_SLACK)
                .map(|(i, _)| i),
        );
        self.round_lowered = false;
        self.members.iter().any(|&i| ratios[i] < 1.0)
    }
}

impl<St> Restart<St> {
    /// The descent with candidate sweeps ([`Candidates`]) after its first
    /// `after` sweeps.
    pub(crate) fn with_candidate_sweeps(mut self, after: usize) -> Self {
        self.candidates = Some(Candidates {
            after,
            members: Vec::new(),
            order: Vec::new(),
            next: Due::Every,
            round_lowered: false,
            sweeps: 0,
            screens: 0,
        });
        self
    }

    /// How many of its sweeps visited candidates only.
    #[cfg(test)]
    pub(crate) fn candidate_sweeps(&self) -> usize {
        self.candidates.as_ref().map_or(0, |c| c.sweeps)
    }

    /// How many rounds of candidate sweeps started from a screen.
    #[cfg(test)]
    pub(crate) fn screens(&self) -> usize {
        self.candidates.as_ref().map_or(0, |c| c.screens)
    }

    /// One sweep of a Hartigan descent at factor 1: of every point, or of
    /// the candidates where the descent has candidate sweeps and they are
    /// due. Returns the points moved and, for a sweep of candidates, the
    /// objective its moves left ([`Descent::candidate_sweep`]).
    pub(super) fn descent_sweep<S: Source<State = St>>(
        &mut self,
        data: &S,
    ) -> (usize, Option<f64>) {
        let mut previous = self.current_objective();
        let Some(c) = self.candidates.as_mut() else {
            return (self.hartigan_sweep(data, 1.0), None);
        };
        if c.next == Due::Screen {
            // The statistics are recomputed first, as a sweep of every
            // point would have: the candidate sweeps' incremental updates
            // then never drift beyond one round, and the next round's
            // objective starts from a recomputed one.
            c.screens += 1;
            data.refresh(&mut self.part);
            previous = data.objective(&self.part);
            let movable = c.select(&data.move_ratios_below(&self.part, 1.0 + CANDIDATE_SLACK));
            c.next = if movable { Due::Candidates } else { Due::Every };
        }
        if c.next == Due::Candidates {
            // A fresh random order of the candidates, from the restart's
            // own stream (the same for any thread count).
            c.order.clear();
            c.order.extend_from_slice(&c.members);
            self.order_rng.shuffle(&mut c.order);
            let (moved, objective) = data.candidate_sweep(&mut self.part, &c.order, previous);
            // A round ends when its candidates settle, or when its moves
            // no longer lower the objective beyond rounding (moves between
            // near-identical points could otherwise cycle).
            let lowered = moved > 0 && objective < previous * (1.0 - STALL_REL_MARGIN);
            c.round_lowered |= lowered;
            c.next = match (lowered, c.round_lowered) {
                (true, _) => Due::Candidates,
                (false, true) => Due::Screen,
                (false, false) => Due::Every,
            };
            c.sweeps += 1;
            return (moved, Some(objective));
        }
        let moved = self.hartigan_sweep(data, 1.0);
        if let Some(c) = self.candidates.as_mut() {
            if moved > 0 && self.n_sweeps + 1 >= c.after {
                c.select(&data.move_ratios_below(&self.part, 1.0 + CANDIDATE_SLACK));
                if !c.members.is_empty() {
                    c.next = Due::Candidates;
                }
            }
        }
        (moved, None)
    }
}
