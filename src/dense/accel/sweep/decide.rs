//! The decision of one point of a block, exactly the plain sweep's: the
//! screen rules most clusters out, the rest are costed exactly. One
//! definition for unit and for sample weights ([`Weighting`]), taken from
//! scratch ([`decide`]) or from the row's work prepared against the
//! block's snapshot ([`prepare`], [`decide_prepared`]).

use super::super::block::{screen, screened_candidates, screened_min, Block, Prepared};
use super::super::panel::Panel;
use super::Live;
use crate::data::sq_dist;
use crate::engine::move_rule::{choose_move, join_weight, leave_weight, KMeans};
use crate::engine::partition::Partition;

/// One gathered row of a block: shifted `f64` entries, screen-unit
/// `‖x‖²·scale²/2`, and products with the panel.
pub(super) struct Row<'b> {
    pub(super) x: &'b [f64],
    pub(super) a: f64,
    pub(super) g: &'b [f32],
}

impl<'b> Row<'b> {
    /// Row `t` of a block's buffers (`d` features, `kp` products a row).
    #[inline(always)]
    pub(super) fn at(
        x64: &'b [f64],
        a: &[f64],
        g: &'b [f32],
        t: usize,
        d: usize,
        kp: usize,
    ) -> Self {
        Row {
            x: &x64[t * d..(t + 1) * d],
            a: a[t],
            g: &g[t * kp..(t + 1) * kp],
        }
    }
}

/// How a point's costs are screened. With unit sample weights
/// (`WEIGHTED = false`) the screen uses the clusters' join weights and the
/// panel's error bound, and costs compare as computed. A point of weight
/// `w > 0` among sample weights (`WEIGHTED = true`) screens over `w`, with
/// its own factors `W_j/(W_j + w) ≤ 1` (which the panel's error bound
/// covers as it covers unit join weights), twice the bound (room for the
/// reference's product by `w` on top of what the bound covers, so that
/// candidates left out are strictly above the best, as with unit weights),
/// and every threshold taken from a computed full cost divided by `w` with
/// room for the rounding of that division and of the reference's product
/// by `w`, on the safe side: a point stays on the screen's word only if
/// every clean cost is provably at least its own, and every clean cluster
/// that could beat the best cost found is evaluated exactly. The costs that
/// decide are the reference's expressions either way, so the decision is
/// the reference's. A const parameter, so that each sweep compiles to the
/// one arithmetic its data needs.
#[derive(Clone, Copy)]
pub(super) struct Weighting<const WEIGHTED: bool> {
    /// The point's weight (1 with unit weights).
    pub(super) w: f64,
}

/// Unit sample weights.
pub(super) const UNIT: Weighting<false> = Weighting { w: 1.0 };

impl<const WEIGHTED: bool> Weighting<WEIGHTED> {
    /// The reference's cost of staying: `factor·leave_weight·‖x − μ_r‖²`
    /// (with unit weights the cluster's size is its count, exactly).
    #[inline(always)]
    fn own(self, p: &Partition, r: usize, own_dist: f64, factor: f64) -> f64 {
        if WEIGHTED {
            factor * leave_weight(self.w, p.stats.weights[r]) * own_dist
        } else {
            factor * leave_weight(1.0, p.stats.counts[r] as f64) * own_dist
        }
    }

    /// The screen's error bound for a row of screen-unit norm `a`.
    #[inline(always)]
    fn bound(self, panel: &Panel, a: f64) -> f64 {
        if WEIGHTED {
            2.0 * panel.error_bound(a)
        } else {
            panel.error_bound(a)
        }
    }

    /// A full cost as a lower bound in the screen's units (over `w`,
    /// rounded down).
    #[inline(always)]
    fn down(self, cost: f64) -> f64 {
        if WEIGHTED {
            cost / self.w / WEIGHTED_ROOM
        } else {
            cost
        }
    }

    /// A full cost as a threshold in the screen's units (over `w`, rounded
    /// up).
    #[inline(always)]
    fn up(self, cost: f64) -> f64 {
        if WEIGHTED {
            cost / self.w * WEIGHTED_ROOM
        } else {
            cost
        }
    }

    /// Whether the point may leave at all: with unit weights, not the last
    /// of its cluster (with sample weights the caller has checked).
    #[inline(always)]
    fn may_leave(self, p: &Partition, r: usize) -> bool {
        WEIGHTED || p.stats.counts[r] > 1
    }

    /// The screen's factor of clean cluster `j` at the block's snapshot.
    #[inline(always)]
    fn snapshot_factor(self, block: &Block, j: usize) -> f32 {
        if WEIGHTED {
            point_factor(block.weights0[j], self.w)
        } else {
            block.w0[j]
        }
    }
}

/// Relative room, in the weighted decisions, for the divisions by `w` and
/// the reference's products by `w` (a few roundings of `ε` each).
const WEIGHTED_ROOM: f64 = 1.0 + 8.0 * f64::EPSILON;

/// The [`Prepared`] work of one row in cluster `r` against the snapshot
/// `panel` with screen factors `w` (the join weights, or the point's own
/// factors) and `h` (its `h_j`; `h[r]` is masked while screening and
/// restored): the expressions of [`decide`] with no cluster dirty.
#[inline(always)]
pub(super) fn prepare<const WEIGHTED: bool>(
    p: &Partition,
    panel: &Panel,
    (w, h): (&[f32], &mut [f32]),
    cand: &mut Vec<usize>,
    row: Row<'_>,
    (r, weighting): (usize, Weighting<WEIGHTED>),
    factor: f64,
) -> Prepared {
    let own_dist = sq_dist(row.x, p.centroid(r));
    let half = panel.half_scale2();
    let saved = h[r];
    h[r] = f32::INFINITY;
    let a32 = row.a as f32;
    let m = f64::from(screened_min(w, h, row.g, a32));
    let e = weighting.bound(panel, row.a);
    let own = weighting.own(p, r, own_dist, factor);
    // Where the screen alone shows the point stays, the candidates are
    // left out (a dirty cluster beating the own cost makes `decide` list
    // them then).
    let best = (m - e < weighting.up(own) * half).then(|| {
        cand.clear();
        screened_candidates(w, h, row.g, a32, m + e + e, p.k, cand);
        lowest_cost(p, row.x, weighting.w, r, cand, (f64::INFINITY, usize::MAX))
    });
    h[r] = saved;
    Prepared { own_dist, m, best }
}

/// The decision of a row against the snapshot alone, from its
/// [`Prepared`] work (what [`decide`] gives when no cluster is dirty):
/// the rounds sweep decides every point of a round this way.
#[inline(always)]
pub(super) fn decide_at_snapshot<const WEIGHTED: bool>(
    p: &Partition,
    panel: &Panel,
    prepared: Prepared,
    row_a: f64,
    (r, weighting): (usize, Weighting<WEIGHTED>),
    factor: f64,
) -> Decision {
    let Prepared { own_dist, m, best } = prepared;
    let own = weighting.own(p, r, own_dist, factor);
    let (e, half) = (weighting.bound(panel, row_a), panel.half_scale2());
    let lower = (m - e) / half;
    // `prepare` costs candidates exactly where the screen cannot show the
    // point stays (`m − e` below its own cost), and only there.
    match best {
        Some((cost, j)) => Decision {
            to: (cost < own).then_some(j),
            own_dist,
            lower: lower.min(weighting.down(cost)),
        },
        _ => Decision::stay(own_dist, lower),
    }
}

/// A point of weight `w`'s factors `W_j/(W_j + w)` (its join weights over
/// `w`) for the cluster weights `weights`, as `f32`; `out` keeps its
/// padding.
#[inline(always)]
pub(super) fn point_factors(out: &mut [f32], weights: &[f64], w: f64) {
    for (f, &big_w) in out.iter_mut().zip(weights) {
        *f = point_factor(big_w, w);
    }
}

/// One factor of [`point_factors`].
#[inline(always)]
pub(super) fn point_factor(big_w: f64, w: f64) -> f32 {
    (big_w / (big_w + w)) as f32
}

/// The decision for one point and what was learnt on the way: the
/// computed `sq_dist` to the own centroid and a lower bound on every other
/// cluster's computed cost (used by [`Bounds::record`]).
pub(super) struct Decision {
    /// The cluster the point moves to, if any.
    pub(super) to: Option<usize>,
    pub(super) own_dist: f64,
    pub(super) lower: f64,
}

impl Decision {
    /// The point stays, every other cost at least `lower`.
    #[inline(always)]
    fn stay(own_dist: f64, lower: f64) -> Self {
        Decision {
            to: None,
            own_dist,
            lower,
        }
    }
}

/// The lowest of `best` (a cost and its cluster) and the reference's join
/// costs `join_weight(w, W_j)·sq_dist` of the clusters `js` other than `r`,
/// ties to the lower index (so the order of `js` does not matter). Without
/// sample weights `W_j` is the cluster's size, exactly.
#[inline(always)]
pub(super) fn lowest_cost(
    p: &Partition,
    x: &[f64],
    w: f64,
    r: usize,
    js: &[usize],
    (mut best, mut best_j): (f64, usize),
) -> (f64, usize) {
    for &j in js {
        if j == r {
            continue;
        }
        let cost = join_weight(w, p.stats.weights[j]) * sq_dist(x, p.centroid(j));
        (best, best_j) = lower_of((cost, j), (best, best_j));
    }
    (best, best_j)
}

/// The lower of two (cost, cluster) pairs, ties to the lower index.
#[inline(always)]
pub(super) fn lower_of(a: (f64, usize), b: (f64, usize)) -> (f64, usize) {
    if a.0 < b.0 || (a.0 == b.0 && a.1 < b.1) {
        a
    } else {
        b
    }
}

/// The decision of [`crate::engine::reference::best_move`] for member `t` of
/// `block` (in cluster `r`), via the screen.
#[inline(always)]
pub(super) fn decide<const WEIGHTED: bool>(
    p: &Partition,
    live: &mut Live,
    block: &Block,
    (t, r): (usize, usize),
    weighting: Weighting<WEIGHTED>,
    factor: f64,
) -> Decision {
    let (Row { x, a, g }, panel) = (block.row(t, p.d), &block.panel);
    let own_dist = sq_dist(x, p.centroid(r));
    if !weighting.may_leave(p, r) {
        return Decision::stay(own_dist, 0.0);
    }
    // Exactly the reference's expressions.
    let own = weighting.own(p, r, own_dist, factor);
    let unit = weighting.w;
    let (mut best, mut best_j) =
        lowest_cost(p, x, unit, r, &live.dirty, (f64::INFINITY, usize::MAX));
    if WEIGHTED {
        point_factors(&mut live.point_w, &p.stats.weights, unit);
    }
    let screen_w = if WEIGHTED { &live.point_w } else { &live.w };
    let half = panel.half_scale2();
    let saved = live.h[r];
    live.h[r] = f32::INFINITY;
    let a32 = a as f32;
    let m = f64::from(screened_min(screen_w, &live.h, g, a32));
    let e = weighting.bound(panel, a);
    // Every clean cost is at least `(m − e)/half`, every dirty one at least
    // `best` (`half` is a power of two: the division is exact).
    let lower = ((m - e) / half).min(weighting.down(best));
    if m - e >= weighting.up(own) * half && best >= own {
        live.h[r] = saved;
        return Decision::stay(own_dist, lower);
    }
    let limit = (m + e).min(weighting.up(best) * half) + e;
    live.cand.clear();
    screened_candidates(screen_w, &live.h, g, a32, limit, p.k, &mut live.cand);
    live.h[r] = saved;
    (best, best_j) = lowest_cost(p, x, unit, r, &live.cand, (best, best_j));
    Decision {
        to: (best < own).then_some(best_j),
        own_dist,
        lower: lower.min(weighting.down(best)),
    }
}

/// [`decide`] from the row's [`Prepared`] work, where it still holds: the
/// row's own cluster is clean, and no dirty cluster is one its snapshot
/// screen listed (every cluster screened within `m + 2E`, among them the one
/// screened at `m`). Then the clean clusters' screens (a clean cluster's
/// factor and screen are the snapshot's), their minimum `m` and their exact
/// costs are what `decide` reads now, and `decide` lists a subset of the
/// prepared candidates (its limit is at most `m + 2E`); the clean clusters
/// it leaves out cost strictly more than its best (that is what makes
/// `decide` exact), so the lowest over the prepared ones and the dirty ones
/// is its lowest, ties included. Otherwise it is `decide`.
#[inline(always)]
pub(super) fn decide_prepared<const WEIGHTED: bool>(
    p: &Partition,
    live: &mut Live,
    block: &Block,
    (t, r): (usize, usize),
    weighting: Weighting<WEIGHTED>,
    factor: f64,
) -> Decision {
    let (Row { x, a, g }, panel) = (block.row(t, p.d), &block.panel);
    let prepared = block.prepared[t];
    let (a32, e, m) = (a as f32, weighting.bound(panel, a), prepared.m);
    // The bound `screened_candidates` compares with, for `decide`'s widest
    // limit.
    let listed = ((m + e + e) as f32).min(f32::MAX);
    let changed = live.stamp[r] >= block.epoch
        || live.dirty.iter().any(|&j| {
            let f = weighting.snapshot_factor(block, j);
            screen(f, panel.h[j], g[j], a32) <= listed
        });
    #[cfg(test)]
    super::tests::count_prepared(changed);
    if changed {
        return decide(p, live, block, (t, r), weighting, factor);
    }
    let own_dist = prepared.own_dist;
    if !weighting.may_leave(p, r) {
        return Decision::stay(own_dist, 0.0);
    }
    // Exactly the reference's expressions (`W_r` is the snapshot's).
    let own = weighting.own(p, r, own_dist, factor);
    let (best, best_j) = lowest_cost(
        p,
        x,
        weighting.w,
        r,
        &live.dirty,
        (f64::INFINITY, usize::MAX),
    );
    let half = panel.half_scale2();
    let lower = ((m - e) / half).min(weighting.down(best));
    if m - e >= weighting.up(own) * half && best >= own {
        return Decision::stay(own_dist, lower);
    }
    let Some((clean, clean_j)) = prepared.best else {
        return decide(p, live, block, (t, r), weighting, factor);
    };
    let (best, best_j) = lower_of((clean, clean_j), (best, best_j));
    Decision {
        to: (best < own).then_some(best_j),
        own_dist,
        lower: lower.min(weighting.down(best)),
    }
}

/// The move rule against every centroid, exactly (distances bound every
/// other cluster's cost from below: join weights are below 1).
#[inline(always)]
pub(super) fn decide_exactly(p: &Partition, x: &[f64], r: usize, w: f64, factor: f64) -> Decision {
    let (mut own_dist, mut lower) = (0.0, f64::INFINITY);
    let to = choose_move(
        &KMeans::new(&p.stats.counts, &p.stats.weights),
        r,
        w,
        factor,
        |j| {
            let dist = sq_dist(x, p.centroid(j));
            if j == r {
                own_dist = dist;
            } else if dist < lower {
                lower = dist;
            }
            dist
        },
    );
    Decision {
        to,
        own_dist,
        lower,
    }
}
