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
//! Cycles are found by Bellman–Ford from every node at once, stopped at the
//! first round whose predecessors close cycles (`O(k²)` a round; the
//! cycles of one search share no cluster and are taken together). Every
//! row's cost in every cluster is kept (`n × k` numbers), and the arcs are
//! kept current as rows move: a row leaving `a` sends only the arcs out of
//! `a` that it held to a search of `a`'s rows, a row joining `b` is offered to the
//! arcs out of `b`, ties going to the lowest row index, so the arcs are
//! those a full recomputation would give.

use super::clusters::Clusters;
use super::gains::{floor, not_positive, Gains, MOVE_MARGIN};
use crate::engine::points::Points;
use crate::params::SizeBounds;
use rayon::prelude::*;

/// Rows per parallel task of the cost pass.
const TASK: usize = 256;

/// The cheapest move out of one cluster into another: its cost (margins
/// included) and its row.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Arc {
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
    let mut labels = c.stats.labels.clone();
    let mut counts = c.stats.counts.clone();
    let mut graph = Graph::new(points, &costs, k, floor, &labels, c.stats.weights.clone());
    let mut moved = 0;
    // Each search's cycles lower the fixed-centroid objective; the cap only
    // guards against rounding beyond the margins.
    for _ in 0..n {
        let cycles = negative_cycles(&graph.arcs, &counts, bounds, k);
        if cycles.is_empty() {
            break;
        }
        // The cycles share no cluster, so their rows are distinct and each
        // cluster's count changes by at most one: they are taken together,
        // every row read before any moves (a move changes its clusters'
        // arcs). The slack node's arcs move no row; they change the counts
        // of the clusters at the ends of a path, which the moves record.
        let moves: Vec<(usize, usize, usize)> = cycles
            .into_iter()
            .flatten()
            .filter(|&(a, b)| a < k && b < k)
            .filter_map(|(a, b)| graph.arcs[a * k + b].map(|arc| (arc.row, a, b)))
            .collect();
        for (i, a, b) in moves {
            labels[i] = b;
            counts[a] -= 1;
            counts[b] += 1;
            graph.move_row(i, a, b);
            moved += 1;
        }
    }
    if moved > 0 {
        c.stats.labels = labels;
        c.recompute(points);
    }
    moved
}

/// The arcs between the clusters at fixed centroids, kept current as rows
/// move: the arc `a → b` is the cheapest move of a row of `a` to `b`, its
/// cost raised by the margins, ties to the lowest row index (so the arcs do
/// not depend on the order rows moved in), `None` where `a` has no row that
/// may leave.
pub(super) struct Graph<'g, P> {
    points: &'g P,
    /// Every row's cost in every cluster (`n × k`).
    costs: &'g [f64],
    k: usize,
    /// The absolute part of each row's margin ([`floor`] times its weight).
    weight_floor: Vec<f64>,
    /// Each cluster's rows, in no particular order, and each row's place
    /// in its cluster's list.
    members: Vec<Vec<usize>>,
    place: Vec<usize>,
    pub(super) weights: Vec<f64>,
    pub(super) arcs: Vec<Option<Arc>>,
}

impl<'g, P: Points> Graph<'g, P> {
    pub(super) fn new(
        points: &'g P,
        costs: &'g [f64],
        k: usize,
        floor: f64,
        labels: &[usize],
        weights: Vec<f64>,
    ) -> Self {
        let n = labels.len();
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); k];
        let mut place = vec![0; n];
        for (i, &l) in labels.iter().enumerate() {
            place[i] = members[l].len();
            members[l].push(i);
        }
        let mut graph = Graph {
            points,
            costs,
            k,
            weight_floor: (0..n).map(|i| points.weight(i) * floor).collect(),
            members,
            place,
            weights,
            arcs: vec![None; k * k],
        };
        for a in 0..k {
            graph.scan(a, None);
        }
        graph
    }

    /// The cost, margins included, of moving row `i` from `a` to `b`.
    fn cost(&self, i: usize, a: usize, b: usize) -> f64 {
        let row = &self.costs[i * self.k..(i + 1) * self.k];
        row[b] - row[a] + MOVE_MARGIN * (row[b] + row[a]) + self.weight_floor[i]
    }

    /// Whether row `i` of cluster `a` may leave it: not where it holds all
    /// of the cluster's weight (module documentation).
    fn may_leave(&self, i: usize, a: usize) -> bool {
        !not_positive(self.weights[a] - self.points.weight(i))
    }

    /// Whether some row of `a` may not leave it.
    fn holds_back(&self, a: usize) -> bool {
        self.members[a].iter().any(|&i| !self.may_leave(i, a))
    }

    /// Row `i` of `a` offered as the arc `a → b`.
    fn offer(&mut self, i: usize, a: usize, b: usize) {
        let cost = self.cost(i, a, b);
        let slot = &mut self.arcs[a * self.k + b];
        if slot.is_none_or(|s| cost < s.cost || (cost == s.cost && i < s.row)) {
            *slot = Some(Arc { cost, row: i });
        }
    }

    /// The arcs out of `a` from its rows: towards `only`, or every other
    /// cluster.
    fn scan(&mut self, a: usize, only: Option<usize>) {
        let targets = match only {
            Some(b) => b..b + 1,
            None => 0..self.k,
        };
        for b in targets.clone().filter(|&b| b != a) {
            self.arcs[a * self.k + b] = None;
        }
        for at in 0..self.members[a].len() {
            let i = self.members[a][at];
            if self.may_leave(i, a) {
                for b in targets.clone().filter(|&b| b != a) {
                    self.offer(i, a, b);
                }
            }
        }
    }

    /// Row `i` moved from `a` to `b`; the arcs out of both made current.
    /// Only the arcs `i` held are searched again in `a`, and `b`'s are
    /// offered `i`, unless a row's right to leave changed with the weights
    /// (then the cluster's arcs are all recomputed).
    pub(super) fn move_row(&mut self, i: usize, a: usize, b: usize) {
        let w = self.points.weight(i);
        let b_held_back = self.holds_back(b);
        let at = self.place[i];
        self.members[a].swap_remove(at);
        if let Some(&last) = self.members[a].get(at) {
            self.place[last] = at;
        }
        self.place[i] = self.members[b].len();
        self.members[b].push(i);
        self.weights[a] -= w;
        self.weights[b] += w;
        if self.holds_back(a) {
            self.scan(a, None);
        } else {
            for t in (0..self.k).filter(|&t| t != a) {
                if self.arcs[a * self.k + t].is_some_and(|arc| arc.row == i) {
                    self.scan(a, Some(t));
                }
            }
        }
        if b_held_back || self.holds_back(b) {
            self.scan(b, None);
        } else {
            for t in (0..self.k).filter(|&t| t != b) {
                self.offer(i, b, t);
            }
        }
    }
}

/// Cycles of negative total cost in the graph of the clusters and the
/// slack node `k` (module documentation), each as its arcs `(from, to)`;
/// none where the graph has none. Bellman–Ford from every node at once, in
/// a fixed order (the same cycles for the same arcs); after each round the
/// graph of the latest predecessors is searched for cycles, which appear
/// there long before the `k + 1` rounds that prove one exists. A cycle of
/// predecessors has negative total cost in exact arithmetic; each is summed
/// afresh and kept only where that sum is below 0. The cycles of a graph
/// with one predecessor per node share no node.
fn negative_cycles(
    arcs: &[Option<Arc>],
    counts: &[usize],
    bounds: &SizeBounds,
    k: usize,
) -> Vec<Vec<(usize, usize)>> {
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
    for _ in 0..nodes {
        let mut relaxed = false;
        for u in 0..nodes {
            for v in (0..nodes).filter(|&v| v != u) {
                if let Some(w) = weight(u, v) {
                    if dist[u] + w < dist[v] {
                        dist[v] = dist[u] + w;
                        pred[v] = Some(u);
                        relaxed = true;
                    }
                }
            }
        }
        if !relaxed {
            return Vec::new();
        }
        let cycles: Vec<_> = predecessor_cycles(&pred)
            .into_iter()
            .filter(|cycle| {
                let total: f64 = cycle
                    .iter()
                    .map(|&(u, v)| weight(u, v).unwrap_or(f64::INFINITY))
                    .sum();
                total < 0.0
            })
            .collect();
        if !cycles.is_empty() {
            return cycles;
        }
    }
    Vec::new()
}

/// The cycles of the graph whose arcs are `pred[v] → v`, each as its arcs
/// in order along the cycle, found by walking back from every node once.
fn predecessor_cycles(pred: &[Option<usize>]) -> Vec<Vec<(usize, usize)>> {
    let nodes = pred.len();
    // The walk that first reached each node (`usize::MAX`: none yet).
    let mut walk = vec![usize::MAX; nodes];
    let mut cycles = Vec::new();
    for start in 0..nodes {
        let mut v = start;
        while walk[v] == usize::MAX {
            walk[v] = start;
            match pred[v] {
                Some(u) => v = u,
                None => break,
            }
        }
        // Back on a node of this walk: it closes a cycle through `v`.
        if walk[v] == start && pred[v].is_some() {
            let mut cycle = Vec::new();
            let mut at = v;
            loop {
                let u = pred[at].unwrap_or(at);
                cycle.push((u, at));
                at = u;
                if at == v {
                    break;
                }
            }
            cycle.reverse();
            cycles.push(cycle);
        }
    }
    cycles
}
