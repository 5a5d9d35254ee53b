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

use super::costs::{join_cost, leave_gain};
use crate::dense::accel::panel::Panel;

/// The directions of one snapshot packed for `f32` products with dense
/// unit rows.
pub(crate) struct Screen {
    panel: Panel,
    /// `scale²/2`: from squared distances into the panel's units.
    half: f64,
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
        let half = panel.half_scale2();
        Some(Screen { panel, half })
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
    /// covered many times over; `scale` is a power of two, so the division
    /// by `scale²/2` is exact.
    pub(crate) fn lower_bounds<'r>(
        &self,
        rows: impl ExactSizeIterator<Item = &'r [f64]>,
        scratch: &mut ScreenScratch,
        lower: &mut [f64],
    ) {
        let (k, d, kp) = (self.panel.k, self.panel.d, self.panel.kp);
        let len = rows.len();
        scratch.x32.resize(len * d, 0.0);
        scratch.a.resize(len, 0.0);
        scratch.g.resize(len * kp, 0.0);
        let scale = self.panel.scale;
        for (t, row) in rows.enumerate() {
            let mut s = 0.0;
            for (o, &v) in scratch.x32[t * d..(t + 1) * d].iter_mut().zip(row) {
                s += v * v;
                *o = (v * scale) as f32;
            }
            scratch.a[t] = s * self.half;
        }
        self.panel.product(&scratch.x32, len, &mut scratch.g);
        for t in 0..len {
            let a = scratch.a[t];
            let e = self.panel.error_bound(a);
            let a32 = a as f32;
            let g = &scratch.g[t * kp..t * kp + k];
            for ((l, &gj), &hj) in lower[t * k..(t + 1) * k]
                .iter_mut()
                .zip(g)
                .zip(&self.panel.h)
            {
                let screen = f64::from((a32 + hj) - gj);
                *l = ((screen - e) / self.half).max(0.0);
            }
        }
    }
}

/// Hartigan's decision for a row of positive weight `w` in cluster `r`
/// (the rule of [`crate::engine::move_rule::choose_move`] with the cosine costs, the same result bit for bit):
/// `own_d` is the row's exact distance to its own direction, and
/// `dist(j, exact)` gives for `j ≠ r` a lower bound on the exact distance
/// to direction `j` (`exact = false`) or that exact distance itself
/// (`exact = true`). `lows` is scratch.
///
/// The candidates are first costed from their bounds; the one of lowest
/// bound is computed exactly, and then, in index order, every other whose
/// bound leaves it a chance of being cheaper than the leave gain times
/// `factor` and than the best so far, or of equalling the best at a lower
/// index (the definition's tie rule). Module documentation: why this is
/// the definition's decision.
#[inline]
pub(crate) fn choose_screened(
    norms: &[f64],
    r: usize,
    w: f64,
    factor: f64,
    own_d: f64,
    mut dist: impl FnMut(usize, bool) -> f64,
    lows: &mut Vec<f64>,
) -> Option<usize> {
    let k = norms.len();
    let own = factor * leave_gain(w, norms[r], own_d);
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
/// the lowest index), with `dist(j, exact)` as for [`choose_screened`]
/// over every `j` (`current` included). `lows` is scratch.
///
/// The bounds skip only a direction whose bound exceeds the best exact
/// distance found so far: every direction at the least distance has its
/// bound at most that distance, so each is computed, and the tie rule is
/// applied among them.
#[inline]
pub(crate) fn nearest_screened(
    k: usize,
    current: Option<usize>,
    mut dist: impl FnMut(usize, bool) -> f64,
    lows: &mut Vec<f64>,
) -> usize {
    lows.clear();
    let mut first = (f64::INFINITY, 0);
    for j in 0..k {
        let low = dist(j, false);
        lows.push(low);
        if low < first.0 {
            first = (low, j);
        }
    }
    let mut best = match current {
        Some(r) => (dist(r, true), r),
        None => (f64::INFINITY, k),
    };
    let mut consider = |j: usize, best: &mut (f64, usize)| {
        if Some(j) == current || j == best.1 || lows[j] > best.0 {
            return;
        }
        let d = dist(j, true);
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
