//! The bounded assignment step: with the centroids held fixed, rows moved
//! around cycles of clusters (and along paths from a cluster above its
//! minimum to one below its maximum) until no such exchange lowers the
//! objective, which makes the labels an optimal assignment under the bounds
//! for those centroids (the assignment step of Lloyd's algorithm with
//! bounds, as a min-cost flow solver would give it).
//!
//! **Why cycles of clusters suffice.** With fixed centroids the objective is
//! `Σ cost(i, c(i))`, a transportation problem with one unit of supply per
//! row and the bounds as the clusters' capacities. An assignment is optimal
//! exactly when its residual graph has no negative cycle. A cycle of that
//! graph moves each row it passes to the next cluster; contracted to the
//! clusters, it is a closed walk whose arc `a → b` costs at least the
//! cheapest move of a row of `a` to `b`, and a negative closed walk holds a
//! negative simple cycle. So the graph on the `k` clusters, with the arc
//! `a → b` weighing the cheapest move `cost(i, b) − cost(i, a)` over the
//! rows `i` of `a`, plus a node for the slack of the bounds (arcs into it
//! from clusters below their maximum, out of it to clusters above their
//! minimum), has a negative cycle exactly when the full one does; a simple
//! cycle passes each cluster once, so its rows are distinct.
//!
//! **Each move is exact and ends.** A row's cost in a cluster is its share
//! of the objective ([`Gains::loss`]) at the fixed centroids; each arc is
//! raised by [`MOVE_MARGIN`] of its two costs plus the rounding floor per
//! unit of weight, so a cycle found negative lowers the fixed-centroid
//! objective beyond rounding, and the costs do not change during a step:
//! the step ends. Moving the centroids to the new means (or directions)
//! afterwards only lowers the objective further (the mean is the best
//! centre of its rows, the direction of the sum the best unit centre). A
//! row whose weight is all its cluster's is never moved, so no cluster is
//! left without weight.
//!
//! Cycles are found by Bellman–Ford from every node at once (`O(k³)` each);
//! the costs of every row in every cluster are kept (`n × k` numbers), so
//! that after a cycle only the arcs out of its clusters are recomputed.

use super::clusters::Clusters;
use super::gains::{floor, not_positive, Gains, MOVE_MARGIN};
use super::points::Points;
use crate::params::SizeBounds;
use rayon::prelude::*;

/// Rows per parallel task of the cost pass.
const TASK: usize = 256;

/// The cheapest move out of one cluster into another: its cost (margins
/// included) and its row.
#[derive(Debug, Clone, Copy)]
struct Arc {
    cost: f64,
    row: usize,
}

/// One bounded assignment step at the current centroids; the rows moved.
/// The statistics are recomputed from the new labels where rows moved.
pub(crate) fn exchange<P: Points, G: Gains>(
    c: &mut Clusters,
    points: &P,
    bounds: &SizeBounds,
) -> usize {
    let (n, k) = (points.len(), c.k);
    if k < 2 {
        return 0;
    }
    let floor = floor(points.sq_norm_bound());
    let sides: Vec<_> = (0..k).map(|j| c.side(j)).collect();
    // Every row's cost in every cluster, at the fixed centroids.
    let mut costs = vec![0.0; n * k];
    costs
        .par_chunks_mut(TASK * k)
        .enumerate()
        .for_each(|(t, out)| {
            let rows: Vec<usize> = (t * TASK..(t * TASK + out.len() / k)).collect();
            points.distances(&rows, &c.centroids, &c.norms, out);
            for (&i, row) in rows.iter().zip(out.chunks_exact_mut(k)) {
                let w = points.weight(i);
                for (j, v) in row.iter_mut().enumerate() {
                    *v = G::loss(w, *v, sides[j]);
                }
            }
        });
    let mut labels = c.labels.clone();
    let mut counts = c.counts.clone();
    let mut weights = c.weights.clone();
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); k];
    for (i, &l) in labels.iter().enumerate() {
        members[l].push(i);
    }
    let weight_floor: Vec<f64> = (0..n).map(|i| points.weight(i) * floor).collect();
    let arcs_from = |a: usize, members: &[usize], weight: f64, out: &mut [Option<Arc>]| {
        out.iter_mut().for_each(|v| *v = None);
        for &i in members {
            let w = points.weight(i);
            // Its cluster's only weight: it stays (module documentation).
            if not_positive(weight - w) {
                continue;
            }
            let row = &costs[i * k..(i + 1) * k];
            for (b, slot) in out.iter_mut().enumerate() {
                if b == a {
                    continue;
                }
                let cost = row[b] - row[a] + MOVE_MARGIN * (row[b] + row[a]) + weight_floor[i];
                if slot.is_none_or(|s| cost < s.cost) {
                    *slot = Some(Arc { cost, row: i });
                }
            }
        }
    };
    let mut arcs: Vec<Option<Arc>> = vec![None; k * k];
    for a in 0..k {
        arcs_from(a, &members[a], weights[a], &mut arcs[a * k..(a + 1) * k]);
    }
    let mut moved = 0;
    // Each cycle lowers the fixed-centroid objective; the cap only guards
    // against rounding beyond the margins.
    for _ in 0..n {
        let Some(cycle) = negative_cycle(&arcs, &counts, bounds, k) else {
            break;
        };
        let mut touched = Vec::with_capacity(cycle.len());
        // The slack node's arcs move no row; they change the counts of the
        // clusters at the ends of a path, which the moves record.
        for &(a, b) in cycle.iter().filter(|&&(a, b)| a < k && b < k) {
            let Some(arc) = arcs[a * k + b] else {
                continue;
            };
            let (i, w) = (arc.row, points.weight(arc.row));
            labels[i] = b;
            counts[a] -= 1;
            counts[b] += 1;
            weights[a] -= w;
            weights[b] += w;
            members[a].retain(|&r| r != i);
            members[b].push(i);
            moved += 1;
            touched.push(a);
            touched.push(b);
        }
        touched.sort_unstable();
        touched.dedup();
        for &a in &touched {
            members[a].sort_unstable();
            arcs_from(a, &members[a], weights[a], &mut arcs[a * k..(a + 1) * k]);
        }
    }
    if moved > 0 {
        c.labels = labels;
        c.recompute(points);
    }
    moved
}

/// A cycle of negative total cost in the graph of the clusters and the
/// slack node `k` (module documentation), as its arcs `(from, to)`; `None`
/// where there is none. Bellman–Ford from every node at once, in a fixed
/// order (the same cycle for the same arcs).
fn negative_cycle(
    arcs: &[Option<Arc>],
    counts: &[usize],
    bounds: &SizeBounds,
    k: usize,
) -> Option<Vec<(usize, usize)>> {
    let slack = k;
    let nodes = k + 1;
    let weight = |u: usize, v: usize| -> Option<f64> {
        match (u == slack, v == slack) {
            (false, false) => arcs[u * k + v].map(|a| a.cost),
            // Into the slack: `u` may take one more row.
            (false, true) => (counts[u] < bounds.max[u]).then_some(0.0),
            // Out of the slack: `v` may give one row.
            (true, false) => (counts[v] > bounds.min[v]).then_some(0.0),
            (true, true) => None,
        }
    };
    let mut dist = vec![0.0f64; nodes];
    let mut pred: Vec<Option<usize>> = vec![None; nodes];
    let mut last = None;
    for _ in 0..nodes {
        last = None;
        for u in 0..nodes {
            for v in (0..nodes).filter(|&v| v != u) {
                if let Some(w) = weight(u, v) {
                    if dist[u] + w < dist[v] {
                        dist[v] = dist[u] + w;
                        pred[v] = Some(u);
                        last = Some(v);
                    }
                }
            }
        }
        last?;
    }
    // Still relaxing after `nodes` rounds: walking back `nodes` steps from
    // the last node relaxed lands on a cycle.
    let mut v = last?;
    for _ in 0..nodes {
        v = pred[v]?;
    }
    let start = v;
    let mut cycle = Vec::new();
    let mut at = start;
    loop {
        let u = pred[at]?;
        cycle.push((u, at));
        at = u;
        if at == start {
            break;
        }
    }
    cycle.reverse();
    // Its cost summed afresh: taken only where it is below 0.
    let total: f64 = cycle
        .iter()
        .map(|&(u, v)| weight(u, v).unwrap_or(f64::INFINITY))
        .sum();
    (total < 0.0).then_some(cycle)
}
