//! Merge-split refinement of a converged restart ([`crate::engine::refine`]
//! proposes the moves): each candidate re-converged by the method's own
//! steps, kept where it ends lower.

use super::{Phase, Restart};
use crate::engine::move_rule::STALL_REL_MARGIN;
use crate::engine::refine::SplitCache;
use crate::engine::source::Source;
use crate::params::{defaults, Method, ValidParams};

/// Steps a merge-split candidate may take to re-converge (the cap on Lloyd
/// iterations and Hartigan sweeps).
pub(super) const MAX_TRIAL_STEPS: usize = defaults::MAX_ITER;
/// Refinement's step budget is the method's own step count, but at least
/// this: Lloyd converges in a handful of iterations on separated groups,
/// exactly where refinement pays most.
pub(super) const MIN_REFINE_STEPS: usize = 50;
/// Where a restart's merge-split refinement stands.
#[derive(Debug, Clone)]
pub(super) struct Refinement<St> {
    /// The candidate being re-converged, if any.
    pub(super) trial: Option<Trial<St>>,
    /// Candidates kept.
    pub(super) accepted: usize,
    /// Steps refinement has taken.
    pub(super) steps: usize,
    /// Whether proposals batch disjoint moves ([`crate::engine::refine::propose_labels`]):
    /// with a tolerance, until a batch of several is rejected.
    pub(super) batch: bool,
    /// Splits of earlier proposals (speed only).
    pub(super) cache: SplitCache,
    /// Proposals drawn: each split the clusters it needed, work that a
    /// search counts beside the steps ([`Restart::passes`]).
    pub(super) proposals: usize,
}

/// A merge-split candidate being re-converged by the method's own steps.
#[derive(Debug, Clone)]
pub(super) struct Trial<St> {
    state: St,
    /// Its objective after the last step.
    objective: f64,
    steps: usize,
    /// Merge-split moves it is made of (several when batched).
    moves: usize,
}

impl<St> Restart<St> {
    /// The splits its refinement computed, for later use on the same data
    /// (they stay valid: a split is reused only for the exact members and
    /// mean it was computed for).
    pub(crate) fn take_split_cache(&mut self) -> SplitCache {
        std::mem::take(&mut self.refinement.cache)
    }

    /// One step of the refinement: draws the next merge-split candidate if
    /// none is being re-converged, then gives the candidate one Lloyd
    /// iteration or Hartigan sweep (by method). A candidate that has settled
    /// replaces the partition if its objective is lower by more than
    /// rounding error, else it is dropped. `history` records the objective of
    /// the kept partition after every step, so it never rises.
    pub(super) fn refine_step<S: Source<State = St>>(&mut self, data: &S, params: &ValidParams) {
        let lloyd = params.method() == Method::Lloyd;
        // Budget: refinement takes at most as many steps as the method took
        // before it (or MIN_REFINE_STEPS), so on long runs it at most doubles
        // a restart's sweeps. Where it pays (separated groups) candidates
        // settle in a few sweeps; a candidate whose move raises the
        // objective (overlapping groups, tried only with `tol = 0`) ripples
        // for dozens of sweeps and gains hundredths of a percent.
        let method_steps = self.n_sweeps - self.refinement.steps;
        if self.refinement.steps >= method_steps.max(MIN_REFINE_STEPS) {
            self.refinement.trial = None;
            self.phase = Phase::Done;
            return;
        }
        let mut trial = match self.refinement.trial.take() {
            Some(trial) => trial,
            None => {
                let batch = self.refinement.batch;
                // With a tolerance, only a move that by itself lowers the
                // objective is tried: the structural repair refinement is
                // for (a group cut in two merges for less than a cluster
                // holding two groups gains by splitting). Where the data
                // have no groups at the scale of `k` (noise, heavily
                // overlapping clusters), the best move raises the objective
                // and its re-converging sweeps only walk to a nearby local
                // optimum, gaining per sweep what the tolerance already
                // gives up. Candidates are ranked by this change, so the
                // best one failing (no candidate below the current
                // objective) ends refinement. `tol = 0` asks for the
                // lowest objective the budget reaches, and tries it.
                let below = (self.tol > 0.0).then(|| self.current_objective());
                self.refinement.proposals += 1;
                let proposal =
                    data.merge_split(&self.part, &mut self.refinement.cache, batch, below);
                let Some((state, moves)) = proposal else {
                    self.phase = Phase::Done;
                    return;
                };
                let objective = data.objective(&state);
                Trial {
                    objective,
                    state,
                    steps: 0,
                    moves,
                }
            }
        };
        self.refinement.steps += 1;
        let moved = if lloyd {
            data.lloyd_iteration(&mut trial.state)
        } else {
            self.draw_order();
            data.sweep(&mut trial.state, &self.order, 1.0)
        };
        let objective = data.objective(&trial.state);
        // The same stopping rule as the method's own descent (see `step`).
        let stalled =
            moved > 0 && objective >= trial.objective && !data.can_improve(&trial.state, lloyd);
        let within_tol = self.within_tol(trial.objective, objective, moved);
        trial.objective = objective;
        trial.steps += 1;
        let settled = moved == 0 || stalled || within_tol;
        let base = self.current_objective();
        let mut kept = base;
        if !settled && trial.steps < MAX_TRIAL_STEPS {
            self.refinement.trial = Some(trial);
        } else if trial.objective < base * (1.0 - STALL_REL_MARGIN) {
            kept = trial.objective;
            self.part = trial.state;
            self.converged = settled;
            self.refinement.accepted += trial.moves;
        } else if trial.moves > 1 {
            // A rejected batch is retried one move at a time, the best
            // first, as without a tolerance.
            self.refinement.batch = false;
        } else {
            // Candidates are tried best-predicted first, and the moves worth
            // keeping come before the first rejection (see the journal's
            // constants page), so the first one ends refinement.
            self.phase = Phase::Done;
        }
        self.n_sweeps += 1;
        self.moves.push(moved);
        self.history.push(kept);
    }
}
