//! The decision of one point of a block, exactly the plain sweep's: the
//! screen rules most clusters out, the rest are costed exactly. Four
//! variants: unweighted or weighted, from the row's prepared work or not.

use super::super::block::{screen, screened_candidates, screened_min, Block, Prepared};
use super::super::panel::Panel;
use super::Live;
use crate::data::sq_dist;
use crate::move_rule::{join_weight, leave_weight};
use crate::partition::Partition;

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

/// The [`Prepared`] work of one row in cluster `r` against the snapshot
/// `panel` with join weights `w` and `h` (its `h_j`; `h[r]` is masked while
/// screening and restored): the expressions of [`decide`] with no cluster
/// dirty.
#[inline(always)]
pub(super) fn prepare(
    p: &Partition,
    panel: &Panel,
    (w, h): (&[f32], &mut [f32]),
    cand: &mut Vec<usize>,
    row: Row<'_>,
    r: usize,
    factor: f64,
) -> Prepared {
    let own_dist = sq_dist(row.x, p.centroid(r));
    let half = panel.half_scale2();
    let saved = h[r];
    h[r] = f32::INFINITY;
    let a32 = row.a as f32;
    let m = f64::from(screened_min(w, h, row.g, a32));
    let e = panel.error_bound(row.a);
    let own = factor * leave_weight(1.0, p.counts[r] as f64) * own_dist;
    // Where the screen alone shows the point stays, the candidates are
    // left out (a dirty cluster beating the own cost makes `decide` list
    // them then).
    let best = (m - e < own * half).then(|| {
        cand.clear();
        screened_candidates(w, h, row.g, a32, m + e + e, p.k, cand);
        lowest_cost(p, row.x, 1.0, r, cand, (f64::INFINITY, usize::MAX))
    });
    h[r] = saved;
    Prepared { own_dist, m, best }
}

/// [`prepare`] for a point of weight `w > 0` in cluster `r` with sample
/// weights, whose factors `W_j/(W_j + w)` are `point_w`: the expressions of
/// [`decide_weighted`] with no cluster dirty.
#[inline(always)]
pub(super) fn prepare_weighted(
    p: &Partition,
    panel: &Panel,
    (point_w, h): (&[f32], &mut [f32]),
    cand: &mut Vec<usize>,
    row: Row<'_>,
    (r, w): (usize, f64),
    factor: f64,
) -> Prepared {
    let own_dist = sq_dist(row.x, p.centroid(r));
    let own = factor * leave_weight(w, p.weights[r]) * own_dist;
    let half = panel.half_scale2();
    let saved = h[r];
    h[r] = f32::INFINITY;
    let a32 = row.a as f32;
    let m = f64::from(screened_min(point_w, h, row.g, a32));
    let e = 2.0 * panel.error_bound(row.a);
    let best = (m - e < (own / w * WEIGHTED_ROOM) * half).then(|| {
        cand.clear();
        screened_candidates(point_w, h, row.g, a32, m + e + e, p.k, cand);
        lowest_cost(p, row.x, w, r, cand, (f64::INFINITY, usize::MAX))
    });
    h[r] = saved;
    Prepared { own_dist, m, best }
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
        let cost = join_weight(w, p.weights[j]) * sq_dist(x, p.centroid(j));
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

/// The decision of [`crate::reference::best_move`] for member `t` of
/// `block` (in cluster `r`), via the screen.
#[inline(always)]
pub(super) fn decide(
    p: &Partition,
    live: &mut Live,
    block: &Block,
    t: usize,
    r: usize,
    factor: f64,
) -> Decision {
    let (Row { x, a, g }, panel) = (block.row(t, p.d), &block.panel);
    let n_r = p.counts[r];
    let own_dist = sq_dist(x, p.centroid(r));
    if n_r <= 1 {
        return Decision {
            to: None,
            own_dist,
            lower: 0.0,
        };
    }
    // Exactly the reference's expressions.
    let own = factor * leave_weight(1.0, n_r as f64) * own_dist;
    let (mut best, mut best_j) =
        lowest_cost(p, x, 1.0, r, &live.dirty, (f64::INFINITY, usize::MAX));
    let half = panel.half_scale2();
    let saved = live.h[r];
    live.h[r] = f32::INFINITY;
    let a32 = a as f32;
    let m = f64::from(screened_min(&live.w, &live.h, g, a32));
    let e = panel.error_bound(a);
    // Every clean cost is at least `(m − e)/half`, every dirty one at least
    // `best` (`half` is a power of two: the division is exact).
    let lower = ((m - e) / half).min(best);
    if m - e >= own * half && best >= own {
        live.h[r] = saved;
        return Decision {
            to: None,
            own_dist,
            lower,
        };
    }
    let limit = (m + e).min(best * half) + e;
    live.cand.clear();
    screened_candidates(&live.w, &live.h, g, a32, limit, p.k, &mut live.cand);
    live.h[r] = saved;
    (best, best_j) = lowest_cost(p, x, 1.0, r, &live.cand, (best, best_j));
    Decision {
        to: (best < own).then_some(best_j),
        own_dist,
        lower: lower.min(best),
    }
}

/// [`decide`] from the row's [`Prepared`] work, where it still holds: the
/// row's own cluster is clean, and no dirty cluster is one its snapshot
/// screen listed (every cluster screened within `m + 2E`, among them the one
/// screened at `m`). Then the clean clusters' screens, their minimum `m`
/// and their exact costs are what `decide` reads now, and `decide` lists a
/// subset of the prepared candidates (its limit is at most `m + 2E`); the
/// clean clusters it leaves out cost strictly more than its best (that is
/// what makes `decide` exact), so the lowest over the prepared ones and the
/// dirty ones is its lowest, ties included. Otherwise it is `decide`.
#[inline(always)]
pub(super) fn decide_prepared(
    p: &Partition,
    live: &mut Live,
    block: &Block,
    t: usize,
    r: usize,
    factor: f64,
) -> Decision {
    let (Row { x, a, g }, panel) = (block.row(t, p.d), &block.panel);
    let prepared = block.prepared[t];
    let (a32, e, m) = (a as f32, panel.error_bound(a), prepared.m);
    // The bound `screened_candidates` compares with, for `decide`'s widest
    // limit.
    let listed = ((m + e + e) as f32).min(f32::MAX);
    let changed = live.stamp[r] >= block.epoch
        || live
            .dirty
            .iter()
            .any(|&j| screen(block.w0[j], panel.h[j], g[j], a32) <= listed);
    #[cfg(test)]
    super::tests::count_prepared(changed);
    if changed {
        return decide(p, live, block, t, r, factor);
    }
    let (n_r, own_dist) = (p.counts[r], prepared.own_dist);
    if n_r <= 1 {
        return Decision {
            to: None,
            own_dist,
            lower: 0.0,
        };
    }
    let own = factor * leave_weight(1.0, n_r as f64) * own_dist;
    let (best, best_j) = lowest_cost(p, x, 1.0, r, &live.dirty, (f64::INFINITY, usize::MAX));
    let half = panel.half_scale2();
    let lower = ((m - e) / half).min(best);
    if m - e >= own * half && best >= own {
        return Decision {
            to: None,
            own_dist,
            lower,
        };
    }
    let Some((clean, clean_j)) = prepared.best else {
        return decide(p, live, block, t, r, factor);
    };
    let (best, best_j) = lower_of((clean, clean_j), (best, best_j));
    Decision {
        to: (best < own).then_some(best_j),
        own_dist,
        lower: lower.min(best),
    }
}

/// [`decide`] for a point of weight `w > 0` with sample weights. The
/// reference's costs are `w·(W_j/(W_j + w))·‖x − μ_j‖²`; the screen works
/// over `w` (per-point factors `W_j/(W_j + w) ≤ 1`, which the panel's error
/// bound covers as it covers unit join weights), and every threshold taken
/// from a computed full cost is divided by `w` with room for the rounding
/// of that division and of the reference's product by `w`, on the safe
/// side: a point stays on the screen's word only if every clean cost is
/// provably at least its own, and every clean cluster that could beat the
/// best cost found is evaluated exactly. Costs that decide are computed
/// by the reference's expressions, so the decision is the reference's.
#[inline(always)]
pub(super) fn decide_weighted(
    p: &Partition,
    live: &mut Live,
    block: &Block,
    t: usize,
    r: usize,
    w: f64,
    factor: f64,
) -> Decision {
    const ROOM: f64 = WEIGHTED_ROOM;
    let (Row { x, a, g }, panel) = (block.row(t, p.d), &block.panel);
    let own_dist = sq_dist(x, p.centroid(r));
    // Exactly the reference's expressions.
    let own = factor * leave_weight(w, p.weights[r]) * own_dist;
    let (mut best, mut best_j) = lowest_cost(p, x, w, r, &live.dirty, (f64::INFINITY, usize::MAX));
    point_factors(&mut live.point_w, &p.weights, w);
    let half = panel.half_scale2();
    let saved = live.h[r];
    live.h[r] = f32::INFINITY;
    let a32 = a as f32;
    let m = f64::from(screened_min(&live.point_w, &live.h, g, a32));
    // Twice the panel's bound: room for the reference's product by `w` on
    // top of what the bound covers, so that candidates left out are
    // strictly above the best, as with unit weights.
    let e = 2.0 * panel.error_bound(a);
    // Over `w`: every clean cost is at least `(m − e)/half`, every dirty
    // one at least `best/w` (rounded down), and neither exceeds the
    // distance itself.
    let lower = ((m - e) / half).min(best / w / ROOM);
    if m - e >= (own / w * ROOM) * half && best >= own {
        live.h[r] = saved;
        return Decision {
            to: None,
            own_dist,
            lower,
        };
    }
    let limit = (m + e).min(best / w * ROOM * half) + e;
    live.cand.clear();
    screened_candidates(&live.point_w, &live.h, g, a32, limit, p.k, &mut live.cand);
    live.h[r] = saved;
    (best, best_j) = lowest_cost(p, x, w, r, &live.cand, (best, best_j));
    Decision {
        to: (best < own).then_some(best_j),
        own_dist,
        lower: lower.min(best / w / ROOM),
    }
}

/// Relative room, in the weighted decisions, for the divisions by `w` and
/// the reference's products by `w` (a few roundings of `ε` each).
pub(super) const WEIGHTED_ROOM: f64 = 1.0 + 8.0 * f64::EPSILON;

/// [`decide_weighted`] from the row's [`Prepared`] work, where it still
/// holds; the argument of [`decide_prepared`], with the point's factors
/// `W_j/(W_j + w)` in place of the join weights: a clean cluster's factor
/// and screen are the snapshot's, so the clean clusters' minimum is the
/// prepared `m` while no dirty cluster screened within `m + 2E` at the
/// snapshot (`E` the weighted decision's doubled bound), and the
/// candidates `decide_weighted` lists are a subset of the prepared ones.
#[inline(always)]
pub(super) fn decide_weighted_prepared(
    p: &Partition,
    live: &mut Live,
    block: &Block,
    t: usize,
    r: usize,
    w: f64,
    factor: f64,
) -> Decision {
    let (Row { x, a, g }, panel) = (block.row(t, p.d), &block.panel);
    let prepared = block.prepared[t];
    let (a32, e, m) = (a as f32, 2.0 * panel.error_bound(a), prepared.m);
    let listed = ((m + e + e) as f32).min(f32::MAX);
    let changed = live.stamp[r] >= block.epoch
        || live.dirty.iter().any(|&j| {
            let f = point_factor(block.weights0[j], w);
            screen(f, panel.h[j], g[j], a32) <= listed
        });
    #[cfg(test)]
    super::tests::count_prepared(changed);
    if changed {
        return decide_weighted(p, live, block, t, r, w, factor);
    }
    let own_dist = prepared.own_dist;
    // Exactly the reference's expressions (`W_r` is the snapshot's).
    let own = factor * leave_weight(w, p.weights[r]) * own_dist;
    let (best, best_j) = lowest_cost(p, x, w, r, &live.dirty, (f64::INFINITY, usize::MAX));
    let half = panel.half_scale2();
    let lower = ((m - e) / half).min(best / w / WEIGHTED_ROOM);
    if m - e >= (own / w * WEIGHTED_ROOM) * half && best >= own {
        return Decision {
            to: None,
            own_dist,
            lower,
        };
    }
    let Some((clean, clean_j)) = prepared.best else {
        return decide_weighted(p, live, block, t, r, w, factor);
    };
    let (best, best_j) = lower_of((clean, clean_j), (best, best_j));
    Decision {
        to: (best < own).then_some(best_j),
        own_dist,
        lower: lower.min(best / w / WEIGHTED_ROOM),
    }
}
