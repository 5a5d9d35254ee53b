//! The spherical loss's gains for the bounded descent of
//! [`crate::engine::constrained`] (size bounds with [`crate::Metric::Cosine`]): a
//! row's score in a cluster is the squared
//! distance `D = ‖u − μ_j‖² = 2·(1 − cos)` between its unit vector and the
//! cluster's direction `μ_j = s_j/‖s_j‖`; a row's share of the loss
//! `Σ_j (W_j − ‖s_j‖)` is `w·D/2` (see [`crate::spherical`]).
//!
//! **A swap.** Exchanging `x ∈ A` (weight `a`) and `y ∈ B` (weight `b`)
//! makes `A`'s sum `s_A − a·x + b·y`, of squared norm
//! `Q² + a·S·D_x − b·S·D_y + a·b·‖x − y‖²` with `S = ‖s_A‖` and
//! `Q = S − a + b` (from `x·s_A = S·(1 − D_x/2)`, likewise for `y`, and
//! `x·y = 1 − ‖x − y‖²/2`). `A`'s loss changes by `Q − ‖s'_A‖`, which is
//! `(b·S·D_y − a·S·D_x − a·b·‖x − y‖²)/(Q + ‖s'_A‖)` wherever the
//! denominator is positive: the rising and falling parts are sums of
//! non-negative terms, nothing cancels. `B` likewise, roles exchanged.
//!
//! **The screen.** For `Q > 0`, `‖s'_A‖ ≤ Q + Δ/(2Q)` (the tangent of the
//! concave square root lies above it), so `A`'s change is at least
//! `−Δ/(2Q)`, `Δ` the three terms above. With `‖x − y‖² ≤ 2D_x + 2D_y`
//! (both measured from `μ_A`), `a ≤ α_A`, `b ≤ α_B` (the clusters'
//! heaviest rows) and `S > 2α_A`, so that `S − α_A ≤ Q ≤ S + b`:
//! `A`'s change ≥ `b·(S − 2α_A)/(2(S + b))·D_y − a·(S + 2α_B)/(2(S − a))·D_x`,
//! one part per row; `B`'s likewise. A cluster with `‖s‖ ≤ 2α` has no such
//! bound ([`SphericalLoss::degenerate`]); its pairs are all evaluated.

use super::costs::{join_cost, leave_gain};
use crate::engine::constrained::gains::{
    not_positive, Centre, Change, Gains, Side, SwapRow, SCREEN_SLACK,
};

/// The spherical loss `Σ w·(1 − cos(x, μ_{c(x)}))` (module documentation).
pub(crate) struct SphericalLoss;

/// The constants of the spherical swap screen for the cluster pair
/// `(A, B)`: their heaviest rows' weights.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SphericalScreen {
    pub alpha_a: f64,
    pub alpha_b: f64,
}

/// What a value `v` that is `coefficient·d` carries per unit of `d` (the
/// weight factor an error in `d` is multiplied by); `w` where `d` is 0.
fn per_unit(v: f64, d: f64, w: f64) -> f64 {
    if d > 0.0 {
        v / d
    } else {
        w
    }
}

/// One cluster's part of a swap: its sum of norm `s` loses a row of weight
/// `out` (score `d_out`) and gains one of weight `inn` (score `d_in`), the
/// two rows `pair` apart; `(rise, fall, size)` (module documentation).
fn swap_side(s: f64, out: f64, inn: f64, d_out: f64, d_in: f64, pair: f64) -> (f64, f64, f64) {
    let q = s - out + inn;
    let cross = out * inn * pair;
    let new = (q * q + out * s * d_out + cross - inn * s * d_in)
        .max(0.0)
        .sqrt();
    let den = q + new;
    if den > 0.0 {
        (
            inn * s * d_in / den,
            (out * s * d_out + cross) / den,
            (s * (out + inn) + out * inn) / den,
        )
    } else {
        // `q ≤ 0` and `‖s'‖ ≤ −q`: the change `q − ‖s'‖` is a fall, two
        // non-negative terms.
        (0.0, new - q, out + inn)
    }
}

impl Gains for SphericalLoss {
    type Screen = SphericalScreen;

    const CENTRE: Centre = Centre::Direction;

    /// `w·(1 − cos) = w·D/2`; a cluster whose sum vanishes has no
    /// direction of its own (its centroid is the fixed first axis) and its
    /// loss is `W − 0`: all of `w` for each of its rows.
    #[inline]
    fn loss(w: f64, score: f64, side: Side) -> f64 {
        if side.norm > 0.0 {
            0.5 * w * score
        } else {
            w
        }
    }

    /// A cluster whose sum is no longer than twice its heaviest row's
    /// weight (`‖s‖ ≤ 2α`).
    fn degenerate(side: Side, alpha: f64) -> bool {
        not_positive(side.norm - 2.0 * alpha)
    }

    /// The spherical costs of [`crate::spherical`]: the join cost in `to`
    /// against the leave gain from `from`.
    #[inline]
    fn transfer(w: f64, from: Side, to: Side, own: f64, target: f64) -> Change {
        let (rise, fall) = (join_cost(w, to.norm, target), leave_gain(w, from.norm, own));
        Change {
            rise,
            fall,
            size: per_unit(rise, target, w) + per_unit(fall, own, w),
        }
    }

    fn swap(x: SwapRow, y: SwapRow, sa: Side, sb: Side, pair: f64) -> Option<Change> {
        let (a, xa, xb) = (x.weight, x.own, x.other);
        let (b, ya, yb) = (y.weight, y.other, y.own);
        if !((sa.weight - a) + b > 0.0 && (sb.weight - b) + a > 0.0) {
            return None;
        }
        let (rise_a, fall_a, size_a) = swap_side(sa.norm, a, b, xa, ya, pair);
        let (rise_b, fall_b, size_b) = swap_side(sb.norm, b, a, yb, xb, pair);
        Some(Change {
            rise: rise_a + rise_b,
            fall: fall_a + fall_b,
            size: size_a + size_b,
        })
    }

    fn screen(_sa: Side, _sb: Side, alpha_a: f64, alpha_b: f64) -> SphericalScreen {
        SphericalScreen { alpha_a, alpha_b }
    }

    /// `a·(S_B − 2α_B)/(2(S_B + a))·D_xB − a·(S_A + 2α_B)/(2(S_A − a))·D_xA`
    /// (module documentation), lowered for rounding as the k-means parts
    /// are.
    fn x_part(x: SwapRow, sa: Side, sb: Side, s: &SphericalScreen, floor: f64) -> f64 {
        let (a, xa, xb) = (x.weight, x.own, x.other);
        let jw = a * (sb.norm - 2.0 * s.alpha_b) / (2.0 * (sb.norm + a));
        let lw = a * (sa.norm + 2.0 * s.alpha_b) / (2.0 * (sa.norm - a));
        part(jw, lw, xb, xa, floor)
    }

    /// `b·(S_A − 2α_A)/(2(S_A + b))·D_yA − b·(S_B + 2α_A)/(2(S_B − b))·D_yB`.
    fn y_part(y: SwapRow, sa: Side, sb: Side, s: &SphericalScreen, floor: f64) -> f64 {
        let (b, ya, yb) = (y.weight, y.other, y.own);
        let jw = b * (sa.norm - 2.0 * s.alpha_a) / (2.0 * (sa.norm + b));
        let lw = b * (sb.norm + 2.0 * s.alpha_a) / (2.0 * (sb.norm - b));
        part(jw, lw, ya, yb, floor)
    }
}

/// `jw·join − lw·leave`, lowered by [`SCREEN_SLACK`] of its terms and by
/// `floor` per unit of their weight factors.
fn part(jw: f64, lw: f64, join: f64, leave: f64, floor: f64) -> f64 {
    let (join, leave) = (jw * join, lw * leave);
    join - leave - SCREEN_SLACK * (join + leave) - (jw + lw) * floor
}
