//! Every point's move ratio where it matters: below a limit. A descent's
//! candidate sweeps ([`crate::fit::restart`]) pick the points within a small
//! slack of a move from the ratios of all points; scoring each point
//! against every cluster exactly cost more than a sweep of every point.
//! The screen of Lloyd's assignment ([`super::lloyd`]) bounds each point's
//! distance to every centroid from below by blocked `f32` products, so
//! only the clusters whose bound does not rule out a ratio below the limit
//! are scored exactly.

use super::block::{max_block_rows, screen, Block};
use super::panel::Panel;
use crate::data::{sq_dist, Data, Scalar};
use crate::engine::move_rule::{join_weight, leave_weight, move_ratio, KMeans};
use crate::engine::partition::Partition;
use rayon::prelude::*;

/// Points per parallel task. Fixed, though nothing in the result depends
/// on it.
const RATIO_CHUNK: usize = 2048;

/// Relative margin on the screen's test, far above the few roundings
/// between the bounded join cost and the ratio's own division: a cluster
/// it keeps in is only scored, never wrongly left out.
const SCREEN_MARGIN: f64 = 1e-9;

/// Each point's [`move_ratio`] in `p`, bit for bit, where it is below
/// `limit`; elsewhere some value at least `limit` (`+∞` where the screen
/// alone showed it).
///
/// The ratio is `min_{j ≠ r} join_j·sq_dist(x, μ_j) / gain`, with the
/// point's own `gain` computed exactly. A cluster whose lower bound on
/// `join_j·sq_dist` is not below `limit·gain` cannot give a ratio below
/// `limit`; where the true ratio is below it, the lowest join cost is
/// among those scored, and the minimum over them is the minimum over all.
pub(crate) fn move_ratios_below<T: Scalar>(
    p: &Partition,
    data: &Data<'_, T>,
    limit: f64,
) -> Vec<f64> {
    let mut panel = Panel::default();
    panel.pack(&p.centroids, p.k, data.d, data.max_abs_shifted());
    // `join_weight(w, W_j) ≥ w·W_j/(W_j + w_max)` for every point weight
    // `w ≤ w_max`: one factor per cluster, at most 1, bounds every point's
    // join weights from below (for unit weights it is the join weight).
    let w_max = data
        .weights()
        .map_or(1.0, |w| w.iter().fold(0.0f64, |m, &v| m.max(v)));
    // Padding keeps factor 1, so that its screens stay at +∞ (`h` is).
    let mut factors = vec![1.0f32; panel.kp];
    for (f, &big_w) in factors.iter_mut().zip(&p.stats.weights) {
        *f = (big_w / (big_w + w_max)) as f32;
    }
    let mut out = vec![f64::INFINITY; data.n];
    out.par_chunks_mut(RATIO_CHUNK)
        .enumerate()
        .for_each(|(c, ratios)| {
            let start = c * RATIO_CHUNK;
            ratios_chunk(data, p, &panel, &factors, start, limit, ratios);
        });
    out
}

multiversion!(ratios_body, ratios_chunk, (data: &Data<'_, T>, p: &Partition, panel: &Panel, factors: &[f32], start: usize, limit: f64, out: &mut [f64]) -> ());

#[inline(always)]
fn ratios_body<T: Scalar>(
    data: &Data<'_, T>,
    p: &Partition,
    panel: &Panel,
    factors: &[f32],
    start: usize,
    limit: f64,
    out: &mut [f64],
) {
    let (d, k, kp) = (data.d, p.k, panel.kp);
    let mut block = Block {
        panel: panel.clone(),
        ..Block::default()
    };
    let idx: Vec<usize> = (start..start + out.len()).collect();
    let rows = max_block_rows(kp);
    let half = panel.half_scale2();
    let mut screens = vec![f32::INFINITY; kp];
    for (bi, chunk) in idx.chunks(rows).enumerate() {
        block.fill(data, chunk);
        for (q, &i) in chunk.iter().enumerate() {
            let x = &block.x64[q * d..(q + 1) * d];
            let (r, w) = (p.stats.labels[i], data.weight(i));
            let exact = |j: usize| sq_dist(x, p.centroid(j));
            let o = &mut out[bi * rows + q];
            if !block.usable {
                *o = move_ratio(&KMeans::new(&p.stats.counts, &p.stats.weights), r, w, exact);
                continue;
            }
            if w == 0.0 || !p.stats.may_leave(r, w) {
                continue;
            }
            let gain = leave_weight(w, p.stats.weights[r]) * exact(r);
            if gain <= 0.0 {
                continue;
            }
            // Screen units: a screen `c̃_j` of `f_j·sq_dist` errs by at most
            // `e` (`f_j ≤ 1`, [`Panel::error_bound`]), and `half` is a power
            // of two, so `w·(c̃_j − e)/half ≤ join_j·sq_dist_j`. A cluster
            // with `c̃_j ≥ threshold` cannot give a ratio below `limit`.
            let a = block.a[q];
            let threshold = limit * gain * (1.0 + SCREEN_MARGIN) * half / w + panel.error_bound(a);
            let g = &block.g[q * kp..(q + 1) * kp];
            let a32 = a as f32;
            for (((s, &f), &h), &gj) in screens.iter_mut().zip(factors).zip(&panel.h).zip(g) {
                *s = screen(f, h, gj, a32);
            }
            screens[r] = f32::INFINITY;
            if f64::from(lowest(&screens)) >= threshold {
                continue;
            }
            let mut best = f64::INFINITY;
            for (j, &s) in screens[..k].iter().enumerate() {
                if f64::from(s) < threshold {
                    best = best.min(join_weight(w, p.stats.weights[j]) * exact(j));
                }
            }
            *o = best / gain;
        }
    }
}

/// The smallest of `v` (length a multiple of 16), sixteen lanes wide.
#[inline(always)]
fn lowest(v: &[f32]) -> f32 {
    let mut acc = [f32::INFINITY; 16];
    for c in v.chunks_exact(16) {
        for l in 0..16 {
            acc[l] = if c[l] < acc[l] { c[l] } else { acc[l] };
        }
    }
    acc.iter()
        .fold(f32::INFINITY, |m, &c| if c < m { c } else { m })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dense::accel::sweep::tests::random_partition;
    use crate::engine::reference::Sweep;
    use crate::testing::testdata::blobs;
    use ndarray::Array2;

    /// Screened ratios against exact ones on a random partition of `x`,
    /// or (`converged`) on one that Hartigan sweeps took to a local
    /// optimum, where every ratio is at least 1 and many lie just above.
    fn check(
        x: ndarray::ArrayView2<'_, f64>,
        w: Option<&[f64]>,
        k: usize,
        seed: u64,
        converged: bool,
    ) {
        let data = Data::new(x, w.map(std::borrow::Cow::Borrowed));
        let mut p = random_partition(&data, k, seed);
        let order: Vec<usize> = (0..data.n).collect();
        while converged
            && crate::engine::reference::sweep(&mut p, Sweep::new(&data, &order, 1.0)) > 0
        {
            p.recompute_stale(&data, false);
        }
        let mut row = vec![0.0; data.d];
        let exact: Vec<f64> = (0..data.n)
            .map(|i| {
                data.load_shifted(i, &mut row);
                move_ratio(
                    &KMeans::new(&p.stats.counts, &p.stats.weights),
                    p.stats.labels[i],
                    data.weight(i),
                    |j| sq_dist(&row, p.centroid(j)),
                )
            })
            .collect();
        for limit in [0.9, 1.003, 1.5, f64::INFINITY] {
            let screened = move_ratios_below(&p, &data, limit);
            for (i, (&s, &e)) in screened.iter().zip(&exact).enumerate() {
                if e < limit {
                    assert_eq!(s.to_bits(), e.to_bits(), "point {i}, limit {limit}");
                } else {
                    assert!(s >= limit, "point {i}, limit {limit}: {s} for {e}");
                }
            }
        }
    }

    #[test]
    fn ratios_below_the_limit_are_exact() {
        for &(n, d, k) in &[(3000, 4, 12), (1500, 24, 30), (1200, 40, 3)] {
            let x = blobs(n, d, k, (n + d) as u64);
            let w: Vec<f64> = (0..n).map(|i| 0.25 + (i % 7) as f64).collect();
            for converged in [false, true] {
                check(x.view(), None, k, 1, converged);
                check(x.view(), Some(&w), k, 2, converged);
            }
        }
        // Duplicates (ties everywhere) and a large offset.
        let x = Array2::from_shape_fn((900, 2), |(i, j)| ((i * (j + 3)) % 7) as f64);
        check(x.view(), None, 5, 3, true);
        check(x.mapv(|v| v * 1e-3 + 1e6).view(), None, 5, 4, true);
    }
}
