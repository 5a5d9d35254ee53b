//! Lower bounds on the squared distances between dense unit rows and the
//! directions, from `f32` products ([`Screen`]), and the decisions taken
//! from them: Hartigan's rule ([`choose_screened`]) and the nearest
//! direction ([`nearest_screened`]), each computing exactly only the
//! distances that the bounds cannot rule out.
//!
//! # Why the screen never changes a decision
//!
//! A bound `L_j ≤ D_j` holds for the `f64` distance `D_j` the exact kernel
//! computes ([`crate::dense::accel::panel::Panel::error_bound`] bounds the gap
//! between the `f32` screen value and that `f64` value, rounding of both
//! included). Every decision below is a comparison of numbers that are
//! non-decreasing in `D_j` as *computed*: the join cost
//! `w·S·D / (S + w + √((S + w)² − w·S·D))` is, in exact arithmetic,
//! increasing in `D` (the numerator grows, the root falls), and each of its
//! floating-point steps is a correctly rounded monotone operation on the
//! previous ones (`(w·S)·D`, a subtraction from a constant, `max`, `√`, an
//! addition to a constant, a quotient of a non-decreasing numerator by a
//! non-increasing positive denominator), so `L ≤ D` gives
//! `join_cost(L) ≤ join_cost(D)` in floating point too. A candidate is
//! therefore skipped only when its exact cost could neither be below the
//! threshold nor win a tie; every candidate that could is computed exactly,
//! by the same fixed-order kernel as the plain definition, so the same bits
//! decide.
//!
//! Before any join cost is computed, the lines under them
//! ([`super::costs::join_slope`]) are checked against the threshold
//! ([`no_join_undercuts`]); where every line at its bound reaches it, so
//! does every cost, and the row stays.

use super::costs::join_cost;
use crate::dense::accel::panel::Panel;
use crate::dense::accel::scale_row;

/// Room over the threshold that a line under the join costs must clear:
/// `64·ε` covers the rounding of the slope, of its product with the bound
/// and of the computed join cost against the real one (a few `ε` each;
/// the computed root is at most `(S + w)·(1 + 2ε)` however the radicand
/// cancels, so the computed cost is at least the line's value times
/// `1 − 8ε`).
const SLOPE_ROOM: f64 = 1.0 + 64.0 * f64::EPSILON;

/// Least threshold the lines are checked against: below it the products in
/// the join cost may be subnormal, where relative rounding bounds fail.
const SLOPE_FLOOR: f64 = 1e-250;

/// Whether no join cost of a row can be below `own`, its leave gain times
/// the acceptance factor: `bounds[j]` is a lower bound on its distance to
/// direction `j` (or that distance), `slopes[j]` the slope of the line
/// under cluster `j`'s join cost for the row's weight, and every `j ≠ r`
/// must clear `own` with [`SLOPE_ROOM`] (never where `own` is below
/// [`SLOPE_FLOOR`]). The computed join cost is
/// non-decreasing in the computed distance (module documentation), so a
/// line that clears at the bound clears the exact cost too. A bound or
/// slope that is not a number never clears. Branch-free over each side of
/// `r`, so that it vectorises.
#[inline]
pub(crate) fn no_join_undercuts(bounds: &[f64], slopes: &[f64], r: usize, own: f64) -> bool {
    let threshold = own * SLOPE_ROOM;
    if threshold.is_nan() || threshold < SLOPE_FLOOR {
        return false;
    }
    let clears = |bounds: &[f64], slopes: &[f64]| {
        bounds
            .iter()
            .zip(slopes)
            .fold(true, |all, (&b, &a)| all & (b * a >= threshold))
    };
    clears(&bounds[..r], &slopes[..r]) && clears(&bounds[r + 1..], &slopes[r + 1..])
}

/// Whether every bound but `bounds[r]` is at least `least` (branch-free,
/// so that it vectorises; a bound that is not a number never is).
#[inline]
pub(crate) fn others_reach(bounds: &[f64], r: usize, least: f64) -> bool {
    let reach = |b: &[f64]| b.iter().fold(true, |all, &l| all & (l >= least));
    reach(&bounds[..r]) && reach(&bounds[r + 1..])
}

/// The directions of one snapshot packed for `f32` products with dense
/// unit rows.
pub(crate) struct Screen {
    panel: Panel,
    /// `2/scale²`: from the panel's units into squared distances (a power
    /// of two, so multiplying by it is exact).
    inv_half: f64,
}

/// Scratch buffers of one task measuring rows against a [`Screen`].
#[derive(Default)]
pub(crate) struct ScreenScratch {
    x32: Vec<f32>,
    a: Vec<f64>,
    g: Vec<f32>,
}

impl Screen {
    /// The `k × d` directions `units` packed for rows whose entries are at
    /// most `rows_max_abs` in magnitude; `None` where the numbers are too
    /// extreme for the `f32` screen (then every distance is computed
    /// exactly).
    pub(crate) fn new(units: &[f64], k: usize, d: usize, rows_max_abs: f64) -> Option<Self> {
        let mut panel = Panel::default();
        panel.pack(units, k, d, rows_max_abs);
        if !panel.usable {
            return None;
        }
        let inv_half = 1.0 / panel.half_scale2();
        Some(Screen { panel, inv_half })
    }

    /// Lower bounds `lower[t·k + j] ≤ D(rows[t], μ_j)` on the `f64` squared
    /// distances the exact kernel computes, for the `rows` (each a dense
    /// unit row of `d` entries).
    ///
    /// The screen value `c̃ = (a ⊕ h_j) ⊖ g_j` in `f32` (`a = ‖u‖²·scale²/2`,
    /// `h_j = ‖μ_j‖²·scale²/2`, `g_j` the `f32` product of the scaled
    /// vectors) lies within [`Panel::error_bound`] of `D·scale²/2`. That
    /// bound is twice the worst-case error it derives, so the rounding of
    /// the `f64` subtraction below (relative `2⁻⁵³` of numbers below 4) is
    /// covered many times over; `scale` is a power of two, so the scaling
    /// back by `2/scale²` is exact.
    pub(crate) fn lower_bounds<'r>(
        &self,
        rows: impl ExactSizeIterator<Item = &'r [f64]>,
        scratch: &mut ScreenScratch,
        lower: &mut [f64],
    ) {
        let (d, kp) = (self.panel.d, self.panel.kp);
        let len = rows.len();
        scratch.x32.resize(len * d, 0.0);
        scratch.a.resize(len, 0.0);
        scratch.g.resize(len * kp, 0.0);
        let (scale, half) = (self.panel.scale, self.panel.half_scale2());
        for (t, row) in rows.enumerate() {
            let (s, _) = scale_row(row, scale, &mut scratch.x32[t * d..(t + 1) * d]);
            scratch.a[t] = s * half;
        }
        self.panel.product(&scratch.x32, len, &mut scratch.g);
        bounds_dispatch(&self.panel, &scratch.a, &scratch.g, self.inv_half, lower);
    }
}

/// Lower bounds from the products `g` (row after row, `kp` each) of rows
/// with screen-unit squared norms `a`, into `lower` (`k` each): the body of
/// [`Screen::lower_bounds`], compiled for each vector width (only IEEE
/// additions, subtractions, products and conversions: the same bits in
/// every copy).
#[inline(always)]
fn bounds_from_products(panel: &Panel, a: &[f64], g: &[f32], inv_half: f64, lower: &mut [f64]) {
    let (k, kp) = (panel.k, panel.kp);
    for (t, &a) in a.iter().enumerate() {
        let e = panel.error_bound(a);
        let a32 = a as f32;
        let g = &g[t * kp..t * kp + k];
        for ((l, &gj), &hj) in lower[t * k..(t + 1) * k].iter_mut().zip(g).zip(&panel.h) {
            let screen = f64::from((a32 + hj) - gj);
            let low = (screen - e) * inv_half;
            *l = if low > 0.0 { low } else { 0.0 };
        }
    }
}

multiversion!(bounds_from_products, bounds_dispatch, plain (panel: &Panel, a: &[f64], g: &[f32], inv_half: f64, lower: &mut [f64]) -> ());

/// Hartigan's decision for a row of positive weight `w` in cluster `r`
/// (the rule of [`crate::engine::move_rule::choose_move`] with the cosine costs, the same result bit for bit):
/// `own` is its leave gain times the acceptance factor, as the definition
/// computes it, and
/// `dist(j, exact)` gives for `j ≠ r` a lower bound on the exact distance
/// to direction `j` (`exact = false`) or that exact distance itself
/// (`exact = true`). `lows` is scratch.
///
/// The candidates are first costed from their bounds; the one of lowest
/// bound is computed exactly, and then, in index order, every other whose
/// bound leaves it a chance of being cheaper than `own` and than the best
/// so far, or of equalling the best at a lower
/// index (the definition's tie rule). Module documentation: why this is
/// the definition's decision.
#[inline]
pub(crate) fn choose_screened(
    norms: &[f64],
    r: usize,
    w: f64,
    own: f64,
    mut dist: impl FnMut(usize, bool) -> f64,
    lows: &mut Vec<f64>,
) -> Option<usize> {
    let k = norms.len();
    lows.clear();
    lows.resize(k, f64::INFINITY);
    let mut first = (f64::INFINITY, r);
    for (j, (low, &s)) in lows.iter_mut().zip(norms).enumerate() {
        if j == r {
            continue;
        }
        *low = join_cost(w, s, dist(j, false));
        if *low < first.0 {
            first = (*low, j);
        }
    }
    // No candidate can cost less than the gain: the exact cheapest join
    // (at least its bound) cannot either, so the row stays.
    if first.0.partial_cmp(&own) != Some(std::cmp::Ordering::Less) {
        return None;
    }
    let j0 = first.1;
    let mut best = (join_cost(w, norms[j0], dist(j0, true)), j0);
    for (j, &low) in lows.iter().enumerate() {
        // `low ≥ own`: the exact cost is at least the gain. `low > best`:
        // it cannot be the cheapest. `low = best` at a higher index: it
        // could at most tie, and a tie goes to the lower index.
        if j == r || j == j0 || low >= own || low > best.0 || (low == best.0 && j > best.1) {
            continue;
        }
        let cost = join_cost(w, norms[j], dist(j, true));
        if cost < best.0 || (cost == best.0 && j < best.1) {
            best = (cost, j);
        }
    }
    (best.0 < own).then_some(best.1)
}

/// The nearest direction of a row (the rule of
/// [`crate::engine::nearest::nearest_by`]: a tie keeps `current`, other ties go to
/// the lowest index): `bounds[j]` is a lower bound on its distance to
/// direction `j` (or that distance), `exact(j)` the distance itself.
///
/// With a `current` direction whose distance no bound undercuts, the row
/// keeps it at once (every other distance is at least as large, and a tie
/// keeps it; branch-free, so that it vectorises). Otherwise the bounds
/// skip only a direction whose bound exceeds the best exact distance found
/// so far: every direction at the least distance has its bound at most
/// that distance, so each is computed, and the tie rule is applied among
/// them.
#[inline]
pub(crate) fn nearest_screened(
    bounds: &[f64],
    current: Option<usize>,
    mut exact: impl FnMut(usize) -> f64,
) -> usize {
    let k = bounds.len();
    let mut best = match current {
        Some(r) => {
            let own = exact(r);
            if others_reach(bounds, r, own) {
                return r;
            }
            (own, r)
        }
        None => (f64::INFINITY, k),
    };
    let first =
        bounds.iter().enumerate().fold(
            (f64::INFINITY, 0),
            |m, (j, &l)| if l < m.0 { (l, j) } else { m },
        );
    let mut consider = |j: usize, best: &mut (f64, usize)| {
        if Some(j) == current || j == best.1 || bounds[j] > best.0 {
            return;
        }
        let d = exact(j);
        // `current` keeps a tie; between others the lower index wins.
        if d < best.0 || (d == best.0 && Some(best.1) != current && j < best.1) {
            *best = (d, j);
        }
    };
    consider(first.1, &mut best);
    for j in 0..k {
        consider(j, &mut best);
    }
    if best.1 == k {
        // Every distance infinite (not reached by unit vectors): the
        // definition keeps index 0.
        return 0;
    }
    best.1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Xoshiro256PlusPlus;
    use crate::spherical::costs::join_slope;

    /// Wherever the lines under the join costs clear a threshold, every
    /// computed join cost does, at thresholds a few `ε` either side of the
    /// lines and where the lines are tightest (sums far larger than the
    /// row's weight, distances near zero) as well as at the edges
    /// (distance 4, empty and tiny sums, weights far from 1).
    #[test]
    fn a_row_stays_by_the_lines_only_where_every_join_cost_clears() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(70);
        let weights = [1.0, 0.5, 3.0, 1e-3, 1e3, 1e-9];
        let norms = [
            0.0, 1e-300, 1e-9, 0.3, 1.0, 2.5, 40.0, 1e6, 1e12, 1e15, 1e16, 1e20,
        ];
        let (mut cleared, mut refused) = (0usize, 0usize);
        for _ in 0..40_000 {
            let w = weights[rng.below(weights.len())];
            let s = norms[rng.below(norms.len())] * (0.5 + rng.unit_f64());
            let d = match rng.below(4) {
                0 => 4.0,
                1 => 4.0 * rng.unit_f64() * 1e-12,
                _ => 4.0 * rng.unit_f64(),
            };
            // A bound at or below the distance.
            let bound = if rng.below(2) == 0 {
                d
            } else {
                d * rng.unit_f64()
            };
            let line = bound * join_slope(w, s);
            let step = (rng.below(401) as f64 - 200.0) * f64::EPSILON;
            let own = line * (1.0 + step);
            // Row in cluster 1 of 3; the other two are the candidate and a
            // far one that never undercuts.
            let bounds = [bound, 0.0, 4.0];
            let slopes = [join_slope(w, s), 0.0, f64::MAX];
            if no_join_undercuts(&bounds, &slopes, 1, own) {
                cleared += 1;
                let cost = join_cost(w, s, d);
                assert!(
                    cost >= own,
                    "w {w} s {s} d {d} bound {bound}: {cost} < {own}"
                );
            } else {
                refused += 1;
            }
        }
        assert!(cleared > 5_000 && refused > 5_000, "{cleared} {refused}");
        // The own cluster is never read; a bound that is not a number never
        // clears.
        assert!(no_join_undercuts(&[0.0, 1.0], &[0.0, 1.0], 0, 0.5));
        assert!(!no_join_undercuts(&[0.0, 1.0], &[0.0, 1.0], 0, 1e-300));
        assert!(!no_join_undercuts(&[f64::NAN, 1.0], &[1.0, 0.0], 1, 0.5));
        assert!(!no_join_undercuts(&[1.0, 0.2], &[1.0, 1.0], 0, 0.5));
    }
}
