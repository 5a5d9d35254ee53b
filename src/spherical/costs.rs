//! The spherical move's two costs, in forms that do not cancel (module
//! documentation of [`crate::spherical`]), and the rule that decides by
//! them.

use crate::move_rule::STALL_REL_MARGIN;

/// The loss added by a row of weight `w` joining a cluster whose sum has
/// norm `s` and whose direction lies at squared distance `d` from the
/// row's (unit vectors): `w + s − ‖s_j + w·u‖`.
#[inline(always)]
pub(crate) fn join_cost(w: f64, s: f64, d: f64) -> f64 {
    let joined = ((s + w) * (s + w) - w * s * d).max(0.0).sqrt();
    let sum = s + w + joined;
    if sum > 0.0 {
        w * s * d / sum
    } else {
        0.0
    }
}

/// The loss removed by a row of weight `w` leaving its cluster, whose sum
/// (the row included) has norm `s` and whose direction lies at squared
/// distance `d` from the row's: `w + ‖s_r − w·u‖ − s`.
#[inline(always)]
pub(crate) fn leave_gain(w: f64, s: f64, d: f64) -> f64 {
    let rest = ((s - w) * (s - w) + w * s * d).max(0.0).sqrt();
    if s < w {
        return w + rest - s;
    }
    let sum = rest + s - w;
    if sum > 0.0 {
        w * s * d / sum
    } else {
        0.0
    }
}

/// The decision for one row (weight `w`, in cluster `r`, allowed to leave
/// it): `Some(j)` if it moves to `j`, by Hartigan's rule with acceptance
/// factor `factor` (module documentation). `norms` are the clusters' sum
/// norms, `dist(j)` the squared distance between the row's unit vector and
/// direction `j`. A row of weight zero moves to the nearest direction if
/// that is strictly nearer.
///
/// The plain definition: the sweep decides by
/// [`super::screen::choose_screened`], which the tests hold to this.
#[cfg(test)]
pub(crate) fn choose(
    norms: &[f64],
    r: usize,
    w: f64,
    factor: f64,
    mut dist: impl FnMut(usize) -> f64,
) -> Option<usize> {
    if w == 0.0 {
        let j = crate::nearest::nearest_by(norms.len(), Some(r), dist);
        return (j != r).then_some(j);
    }
    let own = factor * leave_gain(w, norms[r], dist(r));
    let (best, best_j) = cheapest_join(norms, r, w, dist);
    (best < own).then_some(best_j)
}

/// Whether the rule still moves a row (weight `w`, in cluster `r`) to `j`,
/// given its squared distances to both directions as they are now: the
/// test of `choose` restricted to those two clusters, with its
/// expressions (a row of weight zero: `j` strictly nearer). The sweep in
/// rounds proposes a target per row against a round's start and makes the
/// move only if this still holds at its turn.
#[inline(always)]
pub(crate) fn still_moves(
    (counts, weights, norms): (&[usize], &[f64], &[f64]),
    (r, j): (usize, usize),
    w: f64,
    factor: f64,
    (own_d, d): (f64, f64),
) -> bool {
    if w == 0.0 {
        return d < own_d;
    }
    crate::move_rule::may_leave(counts, weights, r, w)
        && join_cost(w, norms[j], d) < factor * leave_gain(w, norms[r], own_d)
}

/// The lowest join cost over the clusters other than `r`, and its cluster
/// (ties to the lowest index; `(+∞, r)` with one cluster).
#[inline(always)]
pub(crate) fn cheapest_join(
    norms: &[f64],
    r: usize,
    w: f64,
    mut dist: impl FnMut(usize) -> f64,
) -> (f64, usize) {
    let mut best = (f64::INFINITY, r);
    for (j, &s) in norms.iter().enumerate() {
        if j == r {
            continue;
        }
        let cost = join_cost(w, s, dist(j));
        if cost < best.0 {
            best = (cost, j);
        }
    }
    best
}

/// The acceptance factor from which the row would move: its cheapest join
/// over its leave gain (`+∞` where it has no gain, or no weight).
#[inline]
pub(crate) fn ratio(norms: &[f64], r: usize, w: f64, mut dist: impl FnMut(usize) -> f64) -> f64 {
    if w == 0.0 {
        return f64::INFINITY;
    }
    let gain = leave_gain(w, norms[r], dist(r));
    let (best, _) = cheapest_join(norms, r, w, dist);
    if gain > 0.0 {
        best / gain
    } else {
        f64::INFINITY
    }
}

/// Whether the row has a move that lowers the loss by more than rounding
/// can explain (the spherical twin of
/// [`crate::move_rule::improves_beyond_rounding`]): Lloyd, or a row of
/// weight zero, a direction nearer by a relative [`STALL_REL_MARGIN`] plus
/// `abs_margin`; Hartigan, a join cheaper than the leave gain by as much.
#[inline]
pub(crate) fn improves(
    norms: &[f64],
    r: usize,
    w: f64,
    lloyd: bool,
    abs_margin: f64,
    mut dist: impl FnMut(usize) -> f64,
) -> bool {
    let beats = |cost: f64, current: f64| cost < current * (1.0 - STALL_REL_MARGIN) - abs_margin;
    if lloyd || w == 0.0 {
        let own = dist(r);
        return (0..norms.len()).any(|j| j != r && beats(dist(j), own));
    }
    let gain = leave_gain(w, norms[r], dist(r));
    let (best, _) = cheapest_join(norms, r, w, dist);
    beats(best, gain)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The costs against the loss `Σ (W − ‖s‖)` computed from the sums, in
    /// a case where nothing cancels.
    #[test]
    fn the_costs_are_the_changes_of_the_loss() {
        let norm = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
        let u = [0.6, 0.8, 0.0];
        for (s, w) in [
            ([3.0, 1.0, 2.0], 1.0),
            ([0.2, 0.1, 0.0], 2.5),
            ([1.0, 2.0, -1.0], 0.3),
        ] {
            let sn = norm(&s);
            let mu: Vec<f64> = s.iter().map(|v| v / sn).collect();
            let d: f64 = u.iter().zip(&mu).map(|(a, b)| (a - b) * (a - b)).sum();
            let plus: Vec<f64> = s.iter().zip(&u).map(|(a, b)| a + w * b).collect();
            let want = w + sn - norm(&plus);
            assert!(
                (join_cost(w, sn, d) - want).abs() <= 1e-12 * (1.0 + want),
                "{s:?}"
            );
            // The same cluster with the row in: its sum is `plus`.
            let pn = norm(&plus);
            let mu_in: Vec<f64> = plus.iter().map(|v| v / pn).collect();
            let d_in: f64 = u.iter().zip(&mu_in).map(|(a, b)| (a - b) * (a - b)).sum();
            let want = w + sn - pn;
            assert!(
                (leave_gain(w, pn, d_in) - want).abs() <= 1e-12 * (1.0 + want),
                "{s:?}"
            );
        }
    }

    /// Near a centroid the stable forms keep their digits: the loss a row
    /// at cosine `1 − e` adds to a large cluster is about `w·e`.
    #[test]
    fn the_costs_keep_their_digits_near_a_centroid() {
        let (w, s) = (1.0, 1e6);
        for e in [1e-6, 1e-10, 1e-14] {
            let d = 2.0 * e;
            let c = join_cost(w, s, d);
            assert!((c / (w * e) - 1.0).abs() < 1e-5, "{e}: {c}");
            let g = leave_gain(w, s, d);
            assert!((g / (w * e) - 1.0).abs() < 1e-5, "{e}: {g}");
        }
        assert_eq!(join_cost(w, s, 0.0), 0.0);
        assert_eq!(leave_gain(w, s, 0.0), 0.0);
    }
}
