//! Hartigan's transfer test, with sample weights and Smartigan's acceptance
//! factor: the rule every sweep (plain, accelerated, sparse, bounded by
//! rounds, for every objective) decides by, written once over what it asks
//! of an objective ([`MoveCosts`]). The k-means objective's costs are here
//! ([`KMeans`]); the cosine objective's are in `spherical/costs.rs`.

use crate::engine::nearest::nearest_by;

/// Cost factor for point weight `w` joining a cluster of weight `big_w`:
/// the objective rises by `w·W/(W+w)·‖x−μ‖²` (`n/(n+1)·‖x−μ‖²` unweighted).
#[inline(always)]
pub(crate) fn join_weight(w: f64, big_w: f64) -> f64 {
    w * (big_w / (big_w + w))
}

/// Gain factor for point weight `w` leaving a cluster of weight `big_w > w`:
/// the objective falls by `w·W/(W−w)·‖x−μ‖²` (`n/(n−1)·‖x−μ‖²` unweighted).
/// With `w = 1` both factors are bit-for-bit the unweighted ones.
#[inline(always)]
pub(crate) fn leave_weight(w: f64, big_w: f64) -> f64 {
    w * (big_w / (big_w - w))
}

/// Whether point `i` (weight `w`) may leave cluster `r` at all: never
/// empty a cluster (the paper's singleton rule) and never leave one with
/// points but no weight, which would have no mean.
#[inline(always)]
pub(crate) fn may_leave(counts: &[usize], cluster_weights: &[f64], r: usize, w: f64) -> bool {
    counts[r] > 1 && cluster_weights[r] - w > 0.0
}

/// What Hartigan's rule asks of an objective, for one clustering: which
/// points may leave their cluster, and the rise and fall of the objective
/// when a point joins or leaves a cluster, from its squared distance `d` to
/// that cluster's centre. An objective is one implementation of this trait
/// (its statistics: weights for k-means, sum norms for cosine); the rule
/// and every sweep follow.
pub(crate) trait MoveCosts {
    /// Number of clusters.
    fn k(&self) -> usize;
    /// Whether a point of weight `w` may leave cluster `r` at all.
    fn may_leave(&self, r: usize, w: f64) -> bool;
    /// The objective's rise when a point of weight `w > 0` joins cluster
    /// `j` (not its own) at squared distance `d` from its centre.
    fn join(&self, w: f64, j: usize, d: f64) -> f64;
    /// The objective's fall when a point of weight `w > 0` leaves its
    /// cluster `r`, at squared distance `d` from its centre (the point in).
    fn leave(&self, w: f64, r: usize, d: f64) -> f64;
    /// `factor` times [`MoveCosts::leave`], in the order of operations the
    /// objective decides by (its decisions are pinned bit for bit).
    #[inline(always)]
    fn scaled_leave(&self, factor: f64, w: f64, r: usize, d: f64) -> f64 {
        factor * self.leave(w, r, d)
    }
}

/// The k-means objective's costs: a point's weight against its cluster's
/// weight times its squared distance (the paper's `n/(n±1)·‖x−μ‖²`).
#[derive(Clone, Copy)]
pub(crate) struct KMeans<'a> {
    counts: &'a [usize],
    weights: &'a [f64],
}

impl<'a> KMeans<'a> {
    /// The costs of clusters with these point counts and weights.
    #[inline(always)]
    pub(crate) fn new(counts: &'a [usize], weights: &'a [f64]) -> Self {
        KMeans { counts, weights }
    }
}

impl MoveCosts for KMeans<'_> {
    #[inline(always)]
    fn k(&self) -> usize {
        self.weights.len()
    }
    #[inline(always)]
    fn may_leave(&self, r: usize, w: f64) -> bool {
        may_leave(self.counts, self.weights, r, w)
    }
    #[inline(always)]
    fn join(&self, w: f64, j: usize, d: f64) -> f64 {
        join_weight(w, self.weights[j]) * d
    }
    #[inline(always)]
    fn leave(&self, w: f64, r: usize, d: f64) -> f64 {
        leave_weight(w, self.weights[r]) * d
    }
    /// `(factor·leave_weight)·d`: the factor meets the weight factor first.
    #[inline(always)]
    fn scaled_leave(&self, factor: f64, w: f64, r: usize, d: f64) -> f64 {
        factor * leave_weight(w, self.weights[r]) * d
    }
}

/// The decision for one point: `Some(j)` if it (weight `w`, in cluster `r`,
/// allowed to leave it) moves to `j`.
///
/// Follows the paper's pseudocode: find the `j ≠ r` of lowest join cost
/// (k-means: `n_j/(n_j+1)·‖x−μ_j‖²`; ties to the lowest `j`); move when that
/// is strictly below `factor` times the leave gain (`n_r/(n_r−1)·‖x−μ_r‖²`).
/// Strictness matters: with `factor = 1` every move strictly lowers the
/// objective, so Hartigan cannot cycle. The costs are evaluated exactly as
/// [`MoveCosts`] states them; faster kernels must reproduce the same
/// decisions.
///
/// A zero-weight point changes neither objective nor centroids wherever it
/// goes; it moves to its nearest centroid if that is strictly nearer, so that
/// its label is meaningful.
///
/// `dist(j)` is the squared distance from the point to centroid `j`.
#[inline(always)]
pub(crate) fn choose_move<C: MoveCosts>(
    costs: &C,
    r: usize,
    w: f64,
    factor: f64,
    mut dist: impl FnMut(usize) -> f64,
) -> Option<usize> {
    if w == 0.0 {
        let j = nearest_by(costs.k(), Some(r), dist);
        return (j != r).then_some(j);
    }
    let own = costs.scaled_leave(factor, w, r, dist(r));
    let mut best = f64::INFINITY;
    let mut best_j = r;
    for j in 0..costs.k() {
        if j == r {
            continue;
        }
        let cost = costs.join(w, j, dist(j));
        if cost < best {
            best = cost;
            best_j = j;
        }
    }
    (best < own).then_some(best_j)
}

/// Whether the move rule still moves a point (weight `w`, in cluster `r`)
/// to `j`, given its squared distances to both centroids as they are now:
/// [`choose_move`]'s test restricted to those two clusters, with its
/// expressions (a zero-weight point: `j` strictly nearer). The rounds
/// sweep proposes a target per point against a round's start and makes
/// the move only if this still holds at its turn.
#[inline(always)]
pub(crate) fn still_moves<C: MoveCosts>(
    costs: &C,
    (r, j): (usize, usize),
    w: f64,
    factor: f64,
    (own_dist, dist): (f64, f64),
) -> bool {
    if w == 0.0 {
        return dist < own_dist;
    }
    costs.may_leave(r, w) && costs.join(w, j, dist) < costs.scaled_leave(factor, w, r, own_dist)
}

/// The acceptance factor from which point `i` (weight `w`, in cluster `r`)
/// would move under [`choose_move`]: its lowest join cost over its leave
/// gain. `+∞` for a point that may not leave (or has no weight, or sits on
/// its centroid): no factor moves it. Smartigan's adaptive schedule starts
/// from a quantile of these ratios ([`crate::params::schedule::adapted_start`]).
#[inline]
pub(crate) fn move_ratio<C: MoveCosts>(
    costs: &C,
    r: usize,
    w: f64,
    mut dist: impl FnMut(usize) -> f64,
) -> f64 {
    if w == 0.0 || !costs.may_leave(r, w) {
        return f64::INFINITY;
    }
    let gain = costs.leave(w, r, dist(r));
    let best = (0..costs.k())
        .filter(|&j| j != r)
        .map(|j| costs.join(w, j, dist(j)))
        .fold(f64::INFINITY, f64::min);
    if gain > 0.0 {
        best / gain
    } else {
        f64::INFINITY
    }
}

/// Relative margin by which a move must beat the current cost before a
/// stalled run (see `restart.rs`) counts it as a real improvement rather than
/// rounding noise. Recomputed objectives of large sums carry relative errors
/// around `n·ε ≈ 1e-11`; genuine moves that a stalled sweep left behind (one
/// move opening another) clear this by many orders of magnitude.
pub(crate) const STALL_REL_MARGIN: f64 = 1e-10;

/// Whether point `i` (weight `w`, in cluster `r`) has a move that lowers the
/// objective by more than rounding can explain: for Hartigan (`lloyd =
/// false`) a cluster whose join cost is below the leave gain by a relative
/// [`STALL_REL_MARGIN`] plus `abs_margin`; for Lloyd (and for zero-weight
/// points, which move to their nearest centroid) a centroid nearer than the
/// own one by the same margins. `dist(j)` is the squared distance to
/// centroid `j`.
#[inline]
pub(crate) fn improves_beyond_rounding<C: MoveCosts>(
    costs: &C,
    r: usize,
    w: f64,
    lloyd: bool,
    abs_margin: f64,
    mut dist: impl FnMut(usize) -> f64,
) -> bool {
    let k = costs.k();
    let beats = |cost: f64, current: f64| cost < current * (1.0 - STALL_REL_MARGIN) - abs_margin;
    if lloyd || w == 0.0 {
        let own = dist(r);
        return (0..k).any(|j| j != r && beats(dist(j), own));
    }
    if !costs.may_leave(r, w) {
        return false;
    }
    let gain = costs.leave(w, r, dist(r));
    (0..k).any(|j| j != r && beats(costs.join(w, j, dist(j)), gain))
}
