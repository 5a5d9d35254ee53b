//! The exhaustive swap check: every pair of rows in different clusters,
//! in `O(n·k)` distances plus the pairs the screen cannot rule out.
//!
//! For clusters `A < B` the change of exchanging `x ∈ A` and `y ∈ B` is at
//! least `x_part(x) + y_part(y)` ([`Gains::x_part`], [`Gains::y_part`]),
//! one part per row. One pass over the rows gives, for every ordered pair
//! of clusters, the lowest part of a row of the first towards the second;
//! a pair of clusters whose two lowest parts add up to 0 or more holds no
//! swap that lowers the objective. For the other pairs a second pass keeps
//! the rows whose part, with the other cluster's lowest, stays below 0, and
//! their pairs whose parts add up to less than 0 are evaluated exactly and
//! taken where they lower the objective (beyond the margin of
//! [`super::gains::Change::taken`]). Clusters the objective's bound does
//! not cover ([`Gains::degenerate`]: for k-means, those whose weight is all
//! in one row) have their pairs all evaluated.
//!
//! A check that takes no swap proves that none lowers the objective: the
//! bound holds for every pair, and every pair it does not rule out was
//! evaluated against the same centroids.

use super::clusters::Clusters;
use super::descent::swap_change_at;
use super::gains::{floor, Gains, SwapRow};
use crate::engine::points::Points;
use rayon::prelude::*;

/// Rows per parallel task of the passes.
const TASK: usize = 256;

/// One row's part of the bound for the pair of clusters it is in and
/// `other`, from its distances to both.
struct Part {
    row: usize,
    value: f64,
}

/// The swaps the exhaustive check finds, taken; the rows moved (two per
/// swap). The statistics are left as the incremental updates made them.
pub(crate) fn certify<P: Points, G: Gains>(c: &mut Clusters, points: &P) -> usize {
    let (n, k) = (points.len(), c.k);
    let alpha = c.heaviest(points);
    let flat: Vec<bool> = (0..k).map(|j| G::degenerate(c.side(j), alpha[j])).collect();
    let screens = Screens {
        alpha,
        floor: floor(points.sq_norm_bound()),
    };
    // Pass 1: the lowest part of each cluster's rows towards each other
    // cluster (+∞ where there is none). The minimum does not depend on
    // the order the rows are taken in.
    let lowest = {
        let c = &*c;
        (0..n.div_ceil(TASK))
            .into_par_iter()
            .fold(
                || vec![f64::INFINITY; k * k],
                |mut low, t| {
                    let rows: Vec<usize> = (t * TASK..((t + 1) * TASK).min(n)).collect();
                    let mut dists = vec![0.0; rows.len() * k];
                    points.distances(&rows, &c.centroids, &c.norms, &mut dists);
                    for (&i, dist) in rows.iter().zip(dists.chunks_exact(k)) {
                        let own = c.stats.labels[i];
                        for j in (0..k).filter(|&j| j != own && !flat[j] && !flat[own]) {
                            let v =
                                screens.part::<G>(c, points.weight(i), own, j, dist[own], dist[j]);
                            let slot = &mut low[own * k + j];
                            *slot = slot.min(v);
                        }
                    }
                    low
                },
            )
            .reduce(
                || vec![f64::INFINITY; k * k],
                |mut a, b| {
                    a.iter_mut().zip(&b).for_each(|(x, y)| *x = x.min(*y));
                    a
                },
            )
    };
    // The pairs of clusters the bound leaves open, and with which clusters
    // each cluster's rows must be looked at again.
    let open =
        |a: usize, b: usize| flat[a] || flat[b] || lowest[a * k + b] + lowest[b * k + a] < 0.0;
    let partners: Vec<Vec<usize>> = (0..k)
        .map(|a| (0..k).filter(|&b| b != a && open(a, b)).collect())
        .collect();
    if partners.iter().all(Vec::is_empty) {
        return 0;
    }
    // Pass 2: per open pair, the rows whose part with the other side's
    // lowest stays below 0 (every row, where a side is flat).
    let kept: Vec<Vec<(usize, Part)>> = {
        let c = &*c;
        (0..n.div_ceil(TASK))
            .into_par_iter()
            .map(|t| {
                let mut buf = vec![0.0; c.d];
                let mut out = Vec::new();
                for i in t * TASK..((t + 1) * TASK).min(n) {
                    let own = c.stats.labels[i];
                    if partners[own].is_empty() {
                        continue;
                    }
                    let d_own = c.distance(points, i, own, &mut buf);
                    for &j in &partners[own] {
                        let value = if flat[own] || flat[j] {
                            f64::NEG_INFINITY
                        } else {
                            let d_j = c.distance(points, i, j, &mut buf);
                            screens.part::<G>(c, points.weight(i), own, j, d_own, d_j)
                        };
                        if value + lowest[j * k + own] < 0.0 || value == f64::NEG_INFINITY {
                            out.push((own * k + j, Part { row: i, value }));
                        }
                    }
                }
                out
            })
            .collect()
    };
    let mut sides: Vec<Vec<Part>> = (0..k * k).map(|_| Vec::new()).collect();
    for (slot, part) in kept.into_iter().flatten() {
        sides[slot].push(part);
    }
    // The pairs of every open pair of clusters, cheapest bound first, each
    // evaluated against the centroids as they stand.
    let mut buf = vec![0.0; c.d];
    let mut moved = 0;
    for a in 0..k {
        for b in (a + 1)..k {
            if !open(a, b) {
                continue;
            }
            let mut xs = std::mem::take(&mut sides[a * k + b]);
            let mut ys = std::mem::take(&mut sides[b * k + a]);
            let by_value = |p: &Part, q: &Part| p.value.total_cmp(&q.value).then(p.row.cmp(&q.row));
            xs.sort_by(by_value);
            ys.sort_by(by_value);
            // The rows of `B`'s distances to `A` and `B`, computed when
            // first asked and kept until a swap moves the two centroids.
            let mut y_dists: Vec<Option<(f64, f64)>> = vec![None; ys.len()];
            for x in &xs {
                if c.stats.labels[x.row] != a {
                    continue;
                }
                let xa = c.distance(points, x.row, a, &mut buf);
                let xb = c.distance(points, x.row, b, &mut buf);
                let mut best: Option<(f64, usize)> = None;
                for (y, cached) in ys
                    .iter()
                    .zip(y_dists.iter_mut())
                    .take_while(|(y, _)| x.value + y.value < 0.0 || x.value == f64::NEG_INFINITY)
                {
                    if c.stats.labels[y.row] != b {
                        continue;
                    }
                    let yd = *cached.get_or_insert_with(|| {
                        (
                            c.distance(points, y.row, a, &mut buf),
                            c.distance(points, y.row, b, &mut buf),
                        )
                    });
                    let change = swap_change_at::<P, G>(c, points, x.row, y.row, (xa, xb), yd);
                    if let Some(change) = change.filter(|ch| ch.taken(1.0, screens.floor)) {
                        let excess = change.excess(1.0);
                        if best.is_none_or(|(e, _)| excess < e) {
                            best = Some((excess, y.row));
                        }
                    }
                }
                if let Some((_, y)) = best {
                    c.move_point(points, x.row, b, &mut buf);
                    c.move_point(points, y, a, &mut buf);
                    y_dists.iter_mut().for_each(|v| *v = None);
                    moved += 2;
                }
            }
        }
    }
    moved
}

/// The screens of every pair of clusters, computed when asked from the
/// clusters' weights and their heaviest rows' weights `alpha`.
struct Screens {
    alpha: Vec<f64>,
    /// The absolute part of the margin ([`floor`]).
    floor: f64,
}

impl Screens {
    /// The part of a row of weight `w` in cluster `own` towards cluster
    /// `other` (its squared distances `d_own`, `d_other`): as `x` of the
    /// pair where `own < other`, else as `y`.
    fn part<G: Gains>(
        &self,
        c: &Clusters,
        w: f64,
        own: usize,
        other: usize,
        d_own: f64,
        d_other: f64,
    ) -> f64 {
        let (lo, hi) = (own.min(other), own.max(other));
        let (sa, sb) = (c.side(lo), c.side(hi));
        let screen = G::screen(sa, sb, self.alpha[lo], self.alpha[hi]);
        let row = SwapRow {
            weight: w,
            own: d_own,
            other: d_other,
        };
        if own < other {
            G::x_part(row, sa, sb, &screen, self.floor)
        } else {
            G::y_part(row, sa, sb, &screen, self.floor)
        }
    }
}
