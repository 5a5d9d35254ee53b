//! Whether a sparse fit's decisions can be trusted: the sweeps score points
//! through an expansion whose rounding grows with the rows' norms, so the
//! final state's decisions are checked against exact distances (module
//! documentation of [`crate::sparse`]).

use super::centroids::{exact_rel_error, log2_ceil};
use super::{cancelled, SparseCentroids, SparseData, SparseState, POLL_POINTS};
use crate::data::Scalar;
use crate::engine::move_rule::{join_weight, leave_weight};
use crate::error::{Error, Result};
use crate::params::{Method, ValidParams};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

/// Share of the objective that the decisions a sparse fit's rounding left
/// to chance may carry before the fit is refused as having lost its
/// precision (see the module doc).
pub(crate) const PRECISION_TOLERANCE: f64 = 1e-6;

impl<T: Scalar> SparseData<'_, T> {
    /// How much of the objective rides on point `i`'s decision where
    /// rounding, not the data, takes it (see `check_precision`). Only a
    /// decision that the expansion's error bound leaves in doubt is looked
    /// at (Lloyd: own distance against the others'; Hartigan: leave gain
    /// against join costs): its exact gap, between the own cost and the
    /// cheapest other one, is set against what the expansion made of it.
    /// Where the expansion's actual error reaches half the gap (a wrong
    /// sign included), the gap is at stake: rounding of that size decides
    /// such a point either way as the sums change from sweep to sweep. 0
    /// for decisions beyond doubt, and for true ties (a gap within the
    /// exact form's rounding). `dots` holds `k` values.
    fn unresolved_stake(
        &self,
        st: &SparseState,
        means: &SparseCentroids,
        lloyd: bool,
        i: usize,
        dots: &mut [f64],
    ) -> f64 {
        let (r, w, k) = (st.stats.labels[i], self.weight(i), st.k);
        // A weightless point changes no objective wherever it goes, and a
        // point that may not leave has no decision.
        if w == 0.0 || (!lloyd && !st.stats.may_leave(r, w)) {
            return 0.0;
        }
        self.dots(i, st, dots);
        // Lloyd compares distances; Hartigan the leave gain with join costs.
        let factor = |j: usize| match (lloyd, j == r) {
            (true, _) => 1.0,
            (false, true) => leave_weight(w, st.stats.weights[r]),
            (false, false) => join_weight(w, st.stats.weights[j]),
        };
        let slack = self.state_slack(i);
        let fast = |j: usize| factor(j) * self.dist(i, st, j, dots[j]);
        let width = |j: usize| factor(j) * slack * (self.norms[i] + means.norm(j));
        let (own_fast, own_width) = (fast(r), width(r));
        let mut others = (0..k).filter(|&j| j != r);
        if others
            .clone()
            .any(|j| fast(j) + width(j) < own_fast - own_width)
        {
            // Some cluster is surely cheaper: the decision is a move.
            return 0.0;
        }
        let row = self.x.row(i);
        let Some((best, best_fast)) = others
            .by_ref()
            .filter(|&j| fast(j) - width(j) <= own_fast + own_width)
            .map(|j| (factor(j) * means.exact(row, j), fast(j)))
            .min_by(|a, b| a.0.total_cmp(&b.0))
        else {
            // Every other cluster is surely dearer: the point stays.
            return 0.0;
        };
        let own = factor(r) * means.exact(row, r);
        let gap = own - best;
        let rel = exact_rel_error(row.0.len(), log2_ceil(self.x.n_cols()));
        if gap.abs() <= 2.0 * rel * (own + best) {
            return 0.0;
        }
        let rounding = ((own_fast - best_fast) - gap).abs();
        if 2.0 * rounding < gap.abs() {
            return 0.0;
        }
        // Lloyd's gap is in distance; the objective's is weighted.
        if lloyd {
            w * gap.abs()
        } else {
            gap.abs()
        }
    }

    /// Whether the fit's decisions, taken through the expansion, can be
    /// trusted. For the final state `st`, every point whose decision under
    /// the method's rule (Lloyd's nearest centroid, or Hartigan's transfer
    /// test with factor 1) the expansion's error bound leaves in doubt is
    /// decided again with exact distances, and the objective that rides on
    /// it where the expansion's actual rounding rivals the exact gap is
    /// added up ([`SparseData::unresolved_stake`]): what rounding, not the
    /// data, decided. More than [`PRECISION_TOLERANCE`] of the (exact)
    /// objective is an error naming the remedy: the sweeps took such
    /// decisions all along, so their result, though exactly reported, is
    /// what chance made it. A first bound (O(n)) on that sum skips the pass
    /// where rounding cannot matter, as for counts and TF-IDF.
    pub(super) fn decisions_are_sound(&self, st: &SparseState, params: &ValidParams) -> Result<()> {
        let lloyd = params.method() == Method::Lloyd;
        let (n, k, d) = (self.x.n_rows(), st.k, self.x.n_cols());
        let means = SparseCentroids::new(self.dense_centroids(st), d);
        let own = self.own_distances(st, &means);
        let objective = self.weighted_sum(&own);
        let allowed = PRECISION_TOLERANCE * objective;
        let max_mean = (0..k).map(|j| means.norm(j)).fold(0.0f64, f64::max);
        // The most that can ride on a doubtful decision: the two cost
        // intervals overlap, so the exact gap is at most their widths.
        let at_most: f64 = (0..n)
            .map(|i| {
                let (r, w) = (st.stats.labels[i], self.weight(i));
                let slack = self.state_slack(i);
                let own_err = slack * (self.norms[i] + means.norm(r));
                let other_err = slack * (self.norms[i] + max_mean);
                if lloyd || w == 0.0 {
                    2.0 * w * (own_err + other_err)
                } else if st.stats.may_leave(r, w) {
                    2.0 * (leave_weight(w, st.stats.weights[r]) * own_err + w * other_err)
                } else {
                    0.0
                }
            })
            .sum();
        if at_most <= allowed {
            return Ok(());
        }
        let chunks = n.div_ceil(POLL_POINTS);
        let exceeded = AtomicBool::new(false);
        let stakes: Vec<f64> = (0..chunks)
            .into_par_iter()
            .map_init(
                || vec![0.0; k],
                |dots, c| {
                    if cancelled(self.cancel) || exceeded.load(Ordering::Relaxed) {
                        return 0.0;
                    }
                    let points = c * POLL_POINTS..((c + 1) * POLL_POINTS).min(n);
                    let stake: f64 = points
                        .map(|i| self.unresolved_stake(st, &means, lloyd, i, dots))
                        .sum();
                    if stake > allowed {
                        exceeded.store(true, Ordering::Relaxed);
                    }
                    stake
                },
            )
            .collect();
        // Summed in chunk order; a chunk alone above the limit puts the
        // total above it too (non-negative terms), so the outcome does not
        // depend on which chunks the early exit skipped.
        let unresolved: f64 = stakes.iter().sum();
        if cancelled(self.cancel) || !(exceeded.load(Ordering::Relaxed) || unresolved > allowed) {
            return Ok(());
        }
        let max_norm = self.norms.iter().fold(0.0f64, |m, v| m.max(*v));
        Err(Error::invalid(
            "x",
            format!(
                "sparse rows with squared norms up to {max_norm:.3e}, in clusters of \
                 squared spread {:.3e} per point",
                objective / n as f64
            ),
            format!(
                "too far from the origin for sparse arithmetic: sparse rows are clustered \
                 through ‖x‖² − 2x·μ + ‖μ‖², whose rounding (about 2.2e-16 · ‖x‖²) leaves \
                 decisions worth more than {PRECISION_TOLERANCE:e} of the objective to chance; \
                 center the data (subtract the column means) or pass it dense"
            ),
        ))
    }
}
