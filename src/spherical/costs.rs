//! The spherical move's two costs, in forms that do not cancel (module
//! documentation of [`crate::spherical`]), as Hartigan's rule
//! ([`crate::engine::move_rule`]) reads them.

use crate::engine::move_rule::{may_leave, MoveCosts};

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

/// `w·S/(2·(S + w))`: the slope of a line under [`join_cost`] in `d` for a
/// row of weight `w > 0` and a sum of norm `s` (the root in the join cost
/// is at most `S + w`, so its denominator at most `2·(S + w)`). For large
/// clusters the line is within a factor `1 + w/S` of the cost for every
/// `d ≤ 4`, so it rules out nearly as much as the cost itself, without a
/// root or a quotient per direction.
#[inline(always)]
pub(crate) fn join_slope(w: f64, s: f64) -> f64 {
    w * s / (2.0 * (s + w))
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

/// The cosine objective's costs for Hartigan's rule ([`MoveCosts`]): its
/// clusters' counts, weights and sum norms, the join cost and leave gain
/// above.
#[derive(Clone, Copy)]
pub(crate) struct Cosine<'a> {
    counts: &'a [usize],
    weights: &'a [f64],
    norms: &'a [f64],
}

impl<'a> Cosine<'a> {
    /// The costs of clusters with these row counts, weights and sum norms.
    #[inline(always)]
    pub(crate) fn new(counts: &'a [usize], weights: &'a [f64], norms: &'a [f64]) -> Self {
        Cosine {
            counts,
            weights,
            norms,
        }
    }
}

impl MoveCosts for Cosine<'_> {
    #[inline(always)]
    fn k(&self) -> usize {
        self.norms.len()
    }
    #[inline(always)]
    fn may_leave(&self, r: usize, w: f64) -> bool {
        may_leave(self.counts, self.weights, r, w)
    }
    #[inline(always)]
    fn join(&self, w: f64, j: usize, d: f64) -> f64 {
        join_cost(w, self.norms[j], d)
    }
    #[inline(always)]
    fn leave(&self, w: f64, r: usize, d: f64) -> f64 {
        leave_gain(w, self.norms[r], d)
    }
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
