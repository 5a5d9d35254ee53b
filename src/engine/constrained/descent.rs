//! The sweep of a bounded descent: every row visited once in the sweep's
//! order, moved by the best transfer the bounds allow, else, where a
//! transfer that would pay is blocked by a bound, exchanged with a row of
//! the target cluster that wanted its cluster.
//!
//! Each decision reads exact current distances. A block of rows has its
//! distances to every centroid computed side by side against the centroids
//! as they stand when the block begins; a row visited after a move in its
//! block recomputes its distances to the clusters that move changed (the
//! same computation, so the same bits as had the block begun just before
//! it). The decisions, and so the results, are the same for any thread
//! count and any block size.
//!
//! The partners of a swap: a row whose improving transfer to `B` is
//! blocked is recorded as wanting `A → B`; a later row of `B` blocked
//! towards `A` evaluates (exactly) the swap with a few of the rows recorded
//! as wanting `A → B`, and takes the best where it lowers the objective.
//! Swaps this pairing does not propose are found by the exhaustive check
//! ([`super::certify`]) once a sweep moves nothing.

use super::clusters::Clusters;
use super::gains::{floor, Change, Gains, SwapRow};
use crate::engine::points::Points;
use crate::params::SizeBounds;
use rayon::prelude::*;
use std::collections::HashMap;

/// Rows whose distances a block computes side by side.
const BLOCK: usize = 512;
/// Rows per parallel task within a block.
const TASK: usize = 32;
/// Blocked targets a row looks for a partner in (its best ones).
const TARGETS: usize = 4;
/// Recorded partners a row evaluates per target.
const PARTNERS: usize = 8;

/// Rows that wanted to move from one cluster to another, by (from, to).
type Wishes = HashMap<(usize, usize), Vec<usize>>;

/// One sweep at acceptance factor `factor` in `order`; the number of rows
/// moved (a swap moves two). The statistics are left as the incremental
/// updates made them.
pub(crate) fn sweep<P: Points, G: Gains>(
    c: &mut Clusters,
    points: &P,
    bounds: &SizeBounds,
    order: &[usize],
    factor: f64,
) -> usize {
    let k = c.k;
    let mut wishes = Wishes::new();
    let mut dists = vec![0.0; BLOCK * k];
    let mut changed: Vec<usize> = Vec::new();
    let mut is_changed = vec![false; k];
    let mut buf = vec![0.0; c.d];
    let mut moved = 0;
    let floor = floor(points.sq_norm_bound());
    for block in order.chunks(BLOCK) {
        {
            let (centroids, norms) = (&c.centroids, &c.norms);
            dists[..block.len() * k]
                .par_chunks_mut(TASK * k)
                .zip(block.par_chunks(TASK))
                .for_each(|(out, rows)| points.distances(rows, centroids, norms, out));
        }
        for &j in &changed {
            is_changed[j] = false;
        }
        changed.clear();
        for (b, &i) in block.iter().enumerate() {
            let dist = &mut dists[b * k..(b + 1) * k];
            for &j in &changed {
                dist[j] = c.distance(points, i, j, &mut buf);
            }
            let visit = Visit {
                c: &mut *c,
                points,
                bounds,
                factor,
                floor,
                buf: &mut buf,
            };
            let (rows, touched) = visit.decide::<G>(i, dist, &mut wishes);
            moved += rows;
            for j in touched.into_iter().flatten() {
                if !is_changed[j] {
                    is_changed[j] = true;
                    changed.push(j);
                }
            }
        }
    }
    moved
}

/// The decision for one row.
struct Visit<'v, P> {
    c: &'v mut Clusters,
    points: &'v P,
    bounds: &'v SizeBounds,
    factor: f64,
    /// The absolute part of the margin ([`floor`]).
    floor: f64,
    buf: &'v mut [f64],
}

impl<P: Points> Visit<'_, P> {
    /// Moves row `i` (its distances to every centroid `dist`) if the
    /// sweep's rule says so; the rows moved and the clusters changed.
    fn decide<G: Gains>(
        self,
        i: usize,
        dist: &[f64],
        wishes: &mut Wishes,
    ) -> (usize, [Option<usize>; 2]) {
        let c = &*self.c;
        let (a, w) = (c.stats.labels[i], self.points.weight(i));
        let gives = c.stats.counts[a] > self.bounds.min[a];
        let open = |j: usize| c.stats.counts[j] < self.bounds.max[j];
        if w == 0.0 {
            // A row without weight changes no objective: it joins its
            // nearest centroid where that is strictly nearer and the
            // bounds allow, and otherwise waits for a partner.
            let nearer = |j: usize| j != a && dist[j] < dist[a];
            let target = (0..c.k)
                .filter(|&j| nearer(j) && gives && open(j))
                .min_by(|&x, &y| dist[x].total_cmp(&dist[y]).then(x.cmp(&y)));
            if let Some(j) = target {
                self.c.move_point(self.points, i, j, self.buf);
                return (1, [Some(a), Some(j)]);
            }
            let mut blocked: Vec<(f64, usize)> = (0..c.k)
                .filter(|&j| nearer(j))
                .map(|j| (dist[j], j))
                .collect();
            record(wishes, a, i, &mut blocked);
            return (0, [None, None]);
        }
        if !c.may_leave(a, w) {
            return (0, [None, None]);
        }
        let from = c.side(a);
        let mut best: Option<(f64, usize)> = None;
        let mut blocked: Vec<(f64, usize)> = Vec::new();
        for j in (0..c.k).filter(|&j| j != a) {
            let change = G::transfer(w, from, c.side(j), dist[a], dist[j]);
            if !change.taken(self.factor, self.floor) {
                continue;
            }
            let excess = change.excess(self.factor);
            if gives && open(j) {
                if best.is_none_or(|(e, _)| excess < e) {
                    best = Some((excess, j));
                }
            } else {
                blocked.push((excess, j));
            }
        }
        if let Some((_, j)) = best {
            self.c.move_point(self.points, i, j, self.buf);
            return (1, [Some(a), Some(j)]);
        }
        if blocked.is_empty() {
            return (0, [None, None]);
        }
        blocked.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
        blocked.truncate(TARGETS);
        let mut swap: Option<(f64, usize, usize)> = None;
        for &(_, b) in &blocked {
            let Some(list) = wishes.get_mut(&(b, a)) else {
                continue;
            };
            let mut at = 0;
            let mut evaluated = 0;
            while at < list.len() && evaluated < PARTNERS {
                let y = list[at];
                if c.stats.labels[y] != b {
                    list.swap_remove(at);
                    continue;
                }
                evaluated += 1;
                at += 1;
                let change =
                    swap_change::<P, G>(c, self.points, i, y, (dist[a], dist[b]), self.buf);
                if let Some(change) = change.filter(|ch| ch.taken(self.factor, self.floor)) {
                    let excess = change.excess(self.factor);
                    if swap.is_none_or(|(e, _, _)| excess < e) {
                        swap = Some((excess, b, y));
                    }
                }
            }
        }
        match swap {
            Some((_, b, y)) => {
                self.c.move_point(self.points, i, b, self.buf);
                self.c.move_point(self.points, y, a, self.buf);
                (2, [Some(a), Some(b)])
            }
            None => {
                record(wishes, a, i, &mut blocked);
                (0, [None, None])
            }
        }
    }
}

/// Records row `i` of cluster `a` as wanting each of its `TARGETS` best
/// blocked targets (`(rank, cluster)`).
fn record(wishes: &mut Wishes, a: usize, i: usize, blocked: &mut [(f64, usize)]) {
    blocked.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
    for &(_, b) in blocked.iter().take(TARGETS) {
        wishes.entry((a, b)).or_default().push(i);
    }
}

/// The exact change of exchanging row `x` (in `A`, its distances to `A`
/// and `B` given) with row `y` (in `B`), from the current centroids; `None`
/// where a cluster would be left without weight.
pub(crate) fn swap_change<P: Points, G: Gains>(
    c: &Clusters,
    points: &P,
    x: usize,
    y: usize,
    x_dists: (f64, f64),
    buf: &mut [f64],
) -> Option<Change> {
    let (a, b) = (c.stats.labels[x], c.stats.labels[y]);
    let y_dists = (c.distance(points, y, a, buf), c.distance(points, y, b, buf));
    swap_change_at::<P, G>(c, points, x, y, x_dists, y_dists)
}

/// [`swap_change`] with `y`'s distances to `A` and `B` given too.
pub(crate) fn swap_change_at<P: Points, G: Gains>(
    c: &Clusters,
    points: &P,
    x: usize,
    y: usize,
    (xa, xb): (f64, f64),
    (ya, yb): (f64, f64),
) -> Option<Change> {
    let (a, b) = (c.stats.labels[x], c.stats.labels[y]);
    let pair = points.pair_sq_dist(x, y);
    let (sa, sb) = (c.side(a), c.side(b));
    let x = SwapRow {
        weight: points.weight(x),
        own: xa,
        other: xb,
    };
    let y = SwapRow {
        weight: points.weight(y),
        own: yb,
        other: ya,
    };
    G::swap(x, y, sa, sb, pair)
}
