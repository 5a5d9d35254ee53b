//! The exact change of the objective under the two moves of a bounded
//! descent, a transfer and a swap, and the lower bound on a swap's change
//! that lets the exhaustive check skip most pairs. [`Gains`] is what the
//! move logic asks of an objective; [`SquaredEuclidean`] is the k-means
//! objective, [`crate::spherical::SphericalLoss`] the spherical one. The
//! quantities each move is computed from are a row's squared distances to
//! centroids (its *scores*), the clusters' weights (and the norms of their
//! sums) and, for a swap, the two rows' squared distance.

use crate::engine::move_rule::{join_weight, leave_weight};

/// Relative margin by which a move's falling part must beat its rising
/// part to be taken: `2^-40 ≈ 9·10⁻¹³` of the two, plus as much of the
/// largest squared norm of a row (`R²`, [`super::Points::sq_norm_bound`])
/// per unit of the weight factors the terms carry. Every term is a weight
/// factor times a squared distance, formed to within a few `d·ε` of its
/// value plus `d·ε·R²` (the distances of duplicates come out as rounding
/// noise, `10⁻³²` where they are 0); a move inside this margin would be a
/// rounding decision, and two such moves could undo each other for ever.
pub(crate) const MOVE_MARGIN: f64 = 1.0 / (1u64 << 40) as f64;

/// Relative slack of the swap screen ([`SquaredEuclidean::screen`]): each
/// part of the bound is lowered by this share of its terms, so that
/// rounding in the scores never lets the screen skip a pair whose exact
/// change is below the margin.
pub(crate) const SCREEN_SLACK: f64 = 1e-9;

/// A move's change of the objective, as what it adds (`rise`) and what it
/// removes (`fall`): the change is `rise − fall`. `size` is the sum of the
/// weight factors its squared distances are multiplied by (what an
/// absolute error in the distances is multiplied by).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Change {
    pub rise: f64,
    pub fall: f64,
    pub size: f64,
}

impl Change {
    /// The change of the objective (the tests compare it with brute force).
    #[cfg(test)]
    pub fn delta(self) -> f64 {
        self.rise - self.fall
    }

    /// Whether the move is taken at acceptance factor `factor` (1 for an
    /// exact descent; Smartigan's schedule relaxes it above 1 as it does
    /// for transfers): `rise < factor·fall` by more than [`MOVE_MARGIN`]
    /// of the two plus `size·floor`, `floor` the rows' [`floor`].
    pub fn taken(self, factor: f64, floor: f64) -> bool {
        let fall = factor * self.fall;
        fall - self.rise > MOVE_MARGIN * (self.rise + fall) + self.size * floor
    }

    /// How far the move gets below the bar of [`Change::taken`] (negative
    /// where it is taken): the moves are ranked by it.
    pub fn excess(self, factor: f64) -> f64 {
        self.rise - factor * self.fall
    }
}

/// The absolute part of the margin per unit of weight factor, for rows
/// whose largest squared norm (in the coordinates distances are formed
/// in) is `sq_norm_bound`.
pub(crate) fn floor(sq_norm_bound: f64) -> f64 {
    MOVE_MARGIN * sq_norm_bound
}

/// One cluster as the gains read it: its weight and the norm of its
/// weighted sum of rows (`‖s_j‖`, which the spherical loss reads).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Side {
    pub weight: f64,
    pub norm: f64,
}

/// What a cluster's centroid is, from its weighted sum `s` and weight `W`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Centre {
    /// The mean `s/W` (k-means).
    Mean,
    /// The direction `s/‖s‖` (spherical k-means; zero where `s` is).
    Direction,
}

/// The constants of the swap screen for the cluster pair `(A, B)`, from
/// their weights `W` and their heaviest rows' weights `α`:
/// `γ_A = min(1, α_B/(W_A − α_A))`, `γ_B = min(1, α_A/(W_B − α_B))`. Only
/// for clusters whose weight is not all in one row (`W > α`, see
/// [`SquaredEuclidean::degenerate`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Screen {
    pub gamma_a: f64,
    pub gamma_b: f64,
    pub alpha_a: f64,
    pub alpha_b: f64,
}

/// Whether `value` is not above 0 (also where it is NaN).
pub(crate) fn not_positive(value: f64) -> bool {
    value.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater)
}

/// A row of a swap: its weight and its scores in its own cluster and in
/// the other cluster of the pair. (For `x ∈ A`: `own` is `xa`, `other`
/// `xb`; for `y ∈ B`: `own` is `yb`, `other` `ya`.)
#[derive(Debug, Clone, Copy)]
pub(crate) struct SwapRow {
    pub weight: f64,
    pub own: f64,
    pub other: f64,
}

/// What the move logic asks of an objective: the exact change of a
/// transfer and of a swap from the rows' scores, and a lower bound on a
/// swap's change that is a sum of one part per row.
pub(crate) trait Gains {
    /// The constants of the swap screen for one pair of clusters.
    type Screen;

    /// What a cluster's centroid is, the point scores are distances to.
    const CENTRE: Centre;

    /// A row's share of the objective: weight `w`, score `score` in its
    /// own cluster `side`.
    fn loss(w: f64, score: f64, side: Side) -> f64;

    /// Whether the screen's bound does not hold for the pairs of a cluster
    /// `side` whose heaviest row weighs `alpha`: the exhaustive check then
    /// evaluates them one by one.
    fn degenerate(side: Side, alpha: f64) -> bool;

    /// Row `x` (weight `w`, score `own` in its cluster `from`, `to` in
    /// cluster `to`) moved to `to`. The caller has checked that `from`
    /// keeps positive weight.
    fn transfer(w: f64, from: Side, to: Side, own: f64, target: f64) -> Change;

    /// Rows `x ∈ A` and `y ∈ B` exchanged, from their weights and scores
    /// and the pair's score `pair`; `None` where `A` or `B` would be left
    /// without weight.
    fn swap(x: SwapRow, y: SwapRow, sa: Side, sb: Side, pair: f64) -> Option<Change>;

    /// The constants of the screen of pair `(A, B)` (heaviest rows'
    /// weights `alpha_a`, `alpha_b`), neither degenerate.
    fn screen(sa: Side, sb: Side, alpha_a: f64, alpha_b: f64) -> Self::Screen;

    /// `x ∈ A`'s part of the screen's lower bound on the change of a swap
    /// with a row of `B`, lowered for rounding by `floor` per unit of its
    /// weight factors.
    fn x_part(x: SwapRow, sa: Side, sb: Side, screen: &Self::Screen, floor: f64) -> f64;

    /// `y ∈ B`'s part of the same bound. For any `x ∈ A`, `y ∈ B`: the
    /// swap's change ≥ `x_part + y_part`.
    fn y_part(y: SwapRow, sa: Side, sb: Side, screen: &Self::Screen, floor: f64) -> f64;
}

/// The k-means objective `Σ w_i‖x_i − μ_{c(i)}‖²`; a row's score in a
/// cluster is its squared distance to the centroid.
pub(crate) struct SquaredEuclidean;

impl Gains for SquaredEuclidean {
    type Screen = Screen;

    const CENTRE: Centre = Centre::Mean;

    #[inline]
    fn loss(w: f64, score: f64, _side: Side) -> f64 {
        w * score
    }

    /// A cluster whose weight is all in one row (`W ≤ α`).
    fn degenerate(side: Side, alpha: f64) -> bool {
        not_positive(side.weight - alpha)
    }

    /// Hartigan's transfer test with weights ([`join_weight`],
    /// [`leave_weight`]): the change is `w·W_B/(W_B+w)·‖x−μ_B‖² −
    /// w·W_A/(W_A−w)·‖x−μ_A‖²`.
    #[inline]
    fn transfer(w: f64, from: Side, to: Side, own: f64, target: f64) -> Change {
        let (join, leave) = (join_weight(w, to.weight), leave_weight(w, from.weight));
        Change {
            rise: join * target,
            fall: leave * own,
            size: join + leave,
        }
    }

    /// Exchanging `x ∈ A` (weight `a`) and `y ∈ B` (weight `b`) changes
    /// `A`'s cost by `(W_A·(b·‖y−μ_A‖² − a·‖x−μ_A‖²) − a·b·‖x−y‖²)/W'_A`,
    /// with `W'_A = W_A − a + b`, and `B`'s likewise with the roles
    /// exchanged. (A cluster's cost about any point `c` is
    /// `Σ w‖z − c‖² − W‖μ − c‖²`; about the old mean `μ_A` the members'
    /// sum changes by `b·‖y−μ_A‖² − a·‖x−μ_A‖²` and the new mean lies
    /// `(b(y−μ_A) − a(x−μ_A))/W'_A` from it, whose squared norm expands
    /// through `2(x−μ_A)·(y−μ_A) = ‖x−μ_A‖² + ‖y−μ_A‖² − ‖x−y‖²`.) The
    /// rising part gathers the terms with `‖y−μ_A‖²` and `‖x−μ_B‖²`.
    #[inline]
    fn swap(x: SwapRow, y: SwapRow, sa: Side, sb: Side, pair: f64) -> Option<Change> {
        let (a, xa, xb) = (x.weight, x.own, x.other);
        let (b, ya, yb) = (y.weight, y.other, y.own);
        let (wa, wb) = ((sa.weight - a) + b, (sb.weight - b) + a);
        if !(wa > 0.0 && wb > 0.0) {
            return None;
        }
        let ab = a * b;
        let cross = ab * pair;
        Some(Change {
            rise: sa.weight * b * ya / wa + sb.weight * a * xb / wb,
            fall: sa.weight * a * xa / wa + sb.weight * b * yb / wb + (cross / wa + cross / wb),
            size: (sa.weight * (a + b) + ab) / wa + (sb.weight * (a + b) + ab) / wb,
        })
    }

    fn screen(sa: Side, sb: Side, alpha_a: f64, alpha_b: f64) -> Screen {
        Screen {
            gamma_a: (alpha_b / (sa.weight - alpha_a)).min(1.0),
            gamma_b: (alpha_a / (sb.weight - alpha_b)).min(1.0),
            alpha_a,
            alpha_b,
        }
    }

    /// The bound: the rising part is at least the two rows' join costs
    /// (`W'_A ≤ W_A + b`), the leave terms at most their leave gains
    /// (`W'_A ≥ W_A − a`), and `a·b/W'_A ≤ a·γ_A` (both `b ≤ W'_A` and
    /// `W'_A ≥ W_A − α_A`, `b ≤ α_B`), likewise for `B`, with
    /// `‖x−y‖² ≤ 2‖x−μ_A‖² + 2‖y−μ_A‖²`. So the change is at least
    /// `[τ_x(B) − 2(γ_A·a + γ_B·α_B)·‖x−μ_A‖²] + [τ_y(A) − 2(γ_A·α_A +
    /// γ_B·b)·‖y−μ_A‖²]`, `τ` the rows' transfer changes. Each part is
    /// lowered by [`SCREEN_SLACK`] of its terms and by `floor` per unit of
    /// their weight factors, for rounding.
    fn x_part(x: SwapRow, sa: Side, sb: Side, s: &Screen, floor: f64) -> f64 {
        let (a, xa, xb) = (x.weight, x.own, x.other);
        let (jw, lw) = (join_weight(a, sb.weight), leave_weight(a, sa.weight));
        let cw = 2.0 * (s.gamma_a * a + s.gamma_b * s.alpha_b);
        let (join, leave, cross) = (jw * xb, lw * xa, cw * xa);
        join - leave - cross - SCREEN_SLACK * (join + leave + cross) - (jw + lw + cw) * floor
    }

    fn y_part(y: SwapRow, sa: Side, sb: Side, s: &Screen, floor: f64) -> f64 {
        let (b, ya, yb) = (y.weight, y.other, y.own);
        let (jw, lw) = (join_weight(b, sa.weight), leave_weight(b, sb.weight));
        let cw = 2.0 * (s.gamma_a * s.alpha_a + s.gamma_b * b);
        let (join, leave, cross) = (jw * ya, lw * yb, cw * ya);
        join - leave - cross - SCREEN_SLACK * (join + leave + cross) - (jw + lw + cw) * floor
    }
}
