//! A feasible start: labels that meet the size bounds, from any `k`
//! centres (a restart's start, or a child's moved centroids).
//!
//! Greedy by regret, then two repairs, each proved to end:
//!
//! 1. **Fill up to the maxima.** Rows are taken in order of decreasing
//!    regret, `w·(d₂ − d₁)` (what a row loses if it misses its nearest
//!    centre, `d₁`, `d₂` its two smallest squared distances; ties to the
//!    lower index), each to its nearest centre whose cluster is not full
//!    (ties to the lower index). A cluster that is not full always exists:
//!    before the `t`-th row, `t − 1 < n ≤ Σ max` rows are placed. Each
//!    row is placed once.
//! 2. **Raise the minima.** For each cluster `j` below its minimum, in
//!    index order: rows of clusters above their minimum are ranked by what
//!    moving them to `j` costs, `w·(‖x−c_j‖² − ‖x−c_own‖²)`, and taken
//!    cheapest first (skipping those whose cluster has come down to its
//!    minimum meanwhile) until `j` has its minimum. While `j` lacks rows,
//!    some other cluster `r` is above its minimum (`Σ_{r≠j} n_r = n − n_j
//!    > n − min_j ≥ Σ_{r≠j} min_r`); no cluster rises above its minimum
//!    during the repair, so `r`'s rows were ranked and one is still there.
//!    Each move lowers the total shortfall `Σ max(0, min_r − n_r)` by one,
//!    never puts a cluster below its minimum or `j` above `min_j ≤ max_j`:
//!    at most `Σ min` moves.
//! 3. **Give every cluster weight.** With zero sample weights a cluster
//!    may hold only rows of weight 0, and so have no mean. Each such
//!    cluster exchanges one of its rows for a row of positive weight from
//!    a cluster with at least two (one exists: at least `k` rows have
//!    positive weight, none of them in this cluster), the one nearest to
//!    its centre. Sizes do not change, and the number of clusters with
//!    weight rises by one each time: at most `k` exchanges.

use crate::engine::points::Points;
use crate::params::SizeBounds;
use rayon::prelude::*;

/// Nearest centres a row remembers for step 1; a row whose remembered
/// centres are all full when its turn comes computes its distances again.
const REMEMBERED: usize = 8;

/// Rows per parallel task of the distance pass (fixed: each row's
/// distances are computed on their own, so the split changes no bit).
const CHUNK: usize = 256;

/// Labels meeting `bounds` (module documentation), from the `k` centres
/// `centres` (`k × d`, in the rows' coordinates).
pub(crate) fn feasible_labels<P: Points>(
    points: &P,
    centres: &[f64],
    bounds: &SizeBounds,
) -> Vec<usize> {
    let (n, k, d) = (points.len(), bounds.k(), points.dim());
    let norms: Vec<f64> = centres
        .chunks_exact(d)
        .map(|c| c.iter().map(|v| v * v).sum())
        .collect();
    let nearest = remembered(points, centres, &norms);
    let width = REMEMBERED.min(k);
    // Step 1: by regret.
    let regret = |i: usize| {
        let near = &nearest[i * width..(i + 1) * width];
        let spread = if width > 1 {
            near[1].1 - near[0].1
        } else {
            0.0
        };
        points.weight(i) * spread
    };
    let mut order: Vec<(f64, usize)> = (0..n).map(|i| (regret(i), i)).collect();
    order.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut labels = vec![usize::MAX; n];
    let mut counts = vec![0usize; k];
    let mut dists = vec![0.0; k];
    for &(_, i) in &order {
        let near = &nearest[i * width..(i + 1) * width];
        let j = match near.iter().find(|&&(j, _)| counts[j] < bounds.max[j]) {
            Some(&(j, _)) => j,
            None => {
                points.distances(&[i], centres, &norms, &mut dists);
                (0..k)
                    .filter(|&j| counts[j] < bounds.max[j])
                    .min_by(|&a, &b| dists[a].total_cmp(&dists[b]).then(a.cmp(&b)))
                    .unwrap_or(0)
            }
        };
        labels[i] = j;
        counts[j] += 1;
    }
    raise_minima(points, centres, &norms, bounds, &mut labels, &mut counts);
    give_weight(points, centres, &norms, &mut labels);
    labels
}

/// Every row's `REMEMBERED` nearest centres with their squared distances,
/// nearest first (ties to the lower index), `min(k, REMEMBERED)` per row.
fn remembered<P: Points>(points: &P, centres: &[f64], norms: &[f64]) -> Vec<(usize, f64)> {
    let (n, k) = (points.len(), norms.len());
    let width = REMEMBERED.min(k);
    let mut nearest = vec![(0usize, 0.0f64); n * width];
    nearest
        .par_chunks_mut(CHUNK * width)
        .enumerate()
        .for_each_init(
            || (vec![0.0; CHUNK * k], Vec::with_capacity(k)),
            |(dists, ranked), (c, out)| {
                let rows: Vec<usize> = (c * CHUNK..(c * CHUNK + out.len() / width)).collect();
                points.distances(&rows, centres, norms, &mut dists[..rows.len() * k]);
                for (r, slot) in out.chunks_exact_mut(width).enumerate() {
                    let row = &dists[r * k..(r + 1) * k];
                    ranked.clear();
                    ranked.extend(row.iter().copied().enumerate());
                    let by_distance = |a: &(usize, f64), b: &(usize, f64)| {
                        a.1.total_cmp(&b.1).then(a.0.cmp(&b.0))
                    };
                    if width < k {
                        ranked.select_nth_unstable_by(width - 1, by_distance);
                        ranked.truncate(width);
                    }
                    ranked.sort_by(by_distance);
                    slot.copy_from_slice(ranked);
                }
            },
        );
    nearest
}

/// Step 2 of the module documentation.
fn raise_minima<P: Points>(
    points: &P,
    centres: &[f64],
    norms: &[f64],
    bounds: &SizeBounds,
    labels: &mut [usize],
    counts: &mut [usize],
) {
    let (k, d) = (norms.len(), points.dim());
    let mut buf = vec![0.0; d];
    for j in 0..k {
        if counts[j] >= bounds.min[j] {
            continue;
        }
        let centre = &centres[j * d..(j + 1) * d];
        let mut ranked: Vec<(f64, usize)> = (0..labels.len())
            .filter(|&i| counts[labels[i]] > bounds.min[labels[i]])
            .map(|i| {
                let own = labels[i];
                let row = points.row(i, &mut buf);
                let to = P::sq_dist_to(&row, centre, norms[j]);
                let from = P::sq_dist_to(&row, &centres[own * d..(own + 1) * d], norms[own]);
                (points.weight(i) * (to - from), i)
            })
            .collect();
        ranked.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        for &(_, i) in &ranked {
            if counts[j] >= bounds.min[j] {
                break;
            }
            let own = labels[i];
            if counts[own] > bounds.min[own] {
                counts[own] -= 1;
                counts[j] += 1;
                labels[i] = j;
            }
        }
    }
}

/// Step 3 of the module documentation.
fn give_weight<P: Points>(points: &P, centres: &[f64], norms: &[f64], labels: &mut [usize]) {
    let (k, d) = (norms.len(), points.dim());
    let mut positive = vec![0usize; k];
    for (i, &l) in labels.iter().enumerate() {
        positive[l] += usize::from(points.weight(i) > 0.0);
    }
    let mut buf = vec![0.0; d];
    let dist = |i: usize, j: usize, buf: &mut [f64]| {
        let row = points.row(i, buf);
        P::sq_dist_to(&row, &centres[j * d..(j + 1) * d], norms[j])
    };
    for j in 0..k {
        if positive[j] > 0 {
            continue;
        }
        // The row of positive weight nearest to centre j, from a cluster
        // that keeps one.
        let giver = (0..labels.len())
            .filter(|&i| points.weight(i) > 0.0 && positive[labels[i]] >= 2)
            .map(|i| (dist(i, j, &mut buf), i))
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let Some((_, giver)) = giver else { continue };
        let from = labels[giver];
        // Any row of j has weight 0; the one nearest to the giver's centre.
        let taker = (0..labels.len())
            .filter(|&i| labels[i] == j)
            .map(|i| (dist(i, from, &mut buf), i))
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let Some((_, taker)) = taker else { continue };
        labels[giver] = j;
        labels[taker] = from;
        positive[from] -= 1;
        positive[j] += 1;
    }
}
