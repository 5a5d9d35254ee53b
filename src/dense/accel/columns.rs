//! The plain Hartigan sweep with each point's distances to every centroid
//! computed side by side.
//!
//! The centroids are kept transposed ([`Columns`]: feature-major, clusters
//! padded to [`LANES`]), so that one vector instruction advances `LANES`
//! clusters' sums at once. Each lane performs exactly the operations of
//! [`crate::data::sq_dist`] below [`WIDE_FROM`] features, in its order (four
//! accumulators over the coordinates `4g + l`, summed pairwise, then the
//! last `d mod 4` terms; no fused multiply-add), so every distance, every
//! decision and every centroid update is the plain sweep's
//! ([`crate::engine::reference::sweep`]), bit for bit.
//!
//! It pays where the blocked sweep's screen and bounds cannot: few clusters
//! in few dimensions, on data where most points must be evaluated every
//! sweep (structureless or heavily overlapping clusters). There the blocked
//! sweep spends more on selecting, gathering and screening a point than
//! this sweep spends on all of its exact distances.

use super::bounds::{Bounds, SkipTests};
use super::sweep::with_bounds;
use super::Cache;
use crate::data::{prefetch, sq_dist, Scalar, WIDE_FROM};
use crate::engine::move_rule::{choose_move, join_weight, leave_weight, KMeans};
use crate::engine::partition::Partition;
use crate::engine::reference::Sweep;

/// Clusters whose distances one pass of the kernel computes together (one
/// 512-bit vector of `f64`, or two 256-bit ones).
const LANES: usize = 8;

/// The centroids transposed in groups of [`LANES`] clusters: coordinate
/// `j` of centroid `c` at `at[(c / LANES)·d·LANES + j·LANES + c mod LANES]`,
/// with `k` padded to `kp`, a multiple of [`LANES`] (the padding lanes hold
/// zeros and are never read as distances). A group's `d × LANES` block is
/// contiguous, so the distance loop walks it in order with no index
/// arithmetic per coordinate.
#[derive(Debug, Clone, Default)]
struct Columns {
    at: Vec<f64>,
    kp: usize,
    d: usize,
}

impl Columns {
    fn of(p: &Partition) -> Self {
        let kp = p.k.div_ceil(LANES) * LANES;
        let mut columns = Columns {
            at: vec![0.0; kp * p.d],
            kp,
            d: p.d,
        };
        for c in 0..p.k {
            columns.set(p, c);
        }
        columns
    }

    /// Copies centroid `c` of `p`.
    #[inline(always)]
    fn set(&mut self, p: &Partition, c: usize) {
        let group = &mut self.at[c / LANES * self.d * LANES..][..self.d * LANES];
        for (lanes, &v) in group.chunks_exact_mut(LANES).zip(p.centroid(c)) {
            lanes[c % LANES] = v;
        }
    }

    /// `out[c] = sq_dist(x, centroid c)` for every cluster (and padding).
    #[inline(always)]
    fn distances(&self, x: &[f64], out: &mut [f64]) {
        let d = self.d;
        let quads = d / 4 * 4;
        let (x_quads, x_rest) = x[..d].split_at(quads);
        for (group, out) in self
            .at
            .chunks_exact(d * LANES)
            .zip(out.chunks_exact_mut(LANES))
        {
            let (quad_rows, rest_rows) = group.split_at(quads * LANES);
            let mut acc = [[0.0f64; LANES]; 4];
            for (rows, xq) in quad_rows
                .chunks_exact(4 * LANES)
                .zip(x_quads.chunks_exact(4))
            {
                for (m, acc) in acc.iter_mut().enumerate() {
                    let row = &rows[m * LANES..(m + 1) * LANES];
                    for (a, &c) in acc.iter_mut().zip(row) {
                        let u = xq[m] - c;
                        *a += u * u;
                    }
                }
            }
            let mut total = [0.0f64; LANES];
            for (l, t) in total.iter_mut().enumerate() {
                *t = (acc[0][l] + acc[1][l]) + (acc[2][l] + acc[3][l]);
            }
            for (row, &xj) in rest_rows.chunks_exact(LANES).zip(x_rest) {
                for (t, &c) in total.iter_mut().zip(row) {
                    let u = xj - c;
                    *t += u * u;
                }
            }
            out.copy_from_slice(&total);
        }
    }
}

/// The most clusters for which a sweep that keeps no bounds (most points
/// moved in the last one), or one of moderate `k·d`
/// (`accel::COLUMN_SWEEP_MAX_KD`), runs as a column sweep: scoring every
/// point exactly beats the blocked sweep's bookkeeping for few clusters,
/// and loses to it as `k` grows.
pub(crate) const MAX_K_UNBOUNDED: usize = 48;

/// Whether [`sweep_columns`] can take a partition of `k` clusters in `d`
/// features: its lanes follow `sq_dist`'s order below [`WIDE_FROM`] only.
pub(crate) fn applies(k: usize, d: usize) -> bool {
    k >= 2 && (1..WIDE_FROM).contains(&d)
}

/// One Hartigan sweep: the moves of [`crate::engine::reference::sweep`], bit for bit (requires
/// [`applies`]). After a sweep that moved few points the cache's per-point
/// bounds ([`super::bounds`], shared with the blocked sweep) skip every
/// point they prove stays, and the others are scored against every
/// cluster; skipping only such points leaves every decision as it was.
pub(crate) fn sweep_columns<T: Scalar>(
    p: &mut Partition,
    s: Sweep<'_, '_, T>,
    cache: &mut Cache,
) -> usize {
    let keep = cache.moved_share <= BOUNDS_MAX_MOVED_SHARE;
    with_bounds(cache, p, s, keep, |p, bounds| dispatch_sweep(p, s, bounds))
}

/// Share of all points that moved in the last sweep above which the next
/// column sweep keeps no bounds. Each move costs the bounds the two
/// centroids' displacements from every checkpoint, more than scoring a
/// point here, so they pay only once moves are rare (the polishing sweeps,
/// a path's descents); the blocked sweep, whose scoring costs more, keeps
/// them up to a higher share.
const BOUNDS_MAX_MOVED_SHARE: f64 = 0.05;

multiversion!(sweep_body, dispatch_sweep, (p: &mut Partition, s: Sweep<'_, '_, T>, bounds: &mut Bounds) -> (usize, usize));

/// The sweep: (moves, points evaluated).
#[inline(always)]
fn sweep_body<T: Scalar>(
    p: &mut Partition,
    s: Sweep<'_, '_, T>,
    bounds: &mut Bounds,
) -> (usize, usize) {
    let Sweep {
        data,
        order,
        factor,
    } = s;
    let mut columns = Columns::of(p);
    let mut x = vec![0.0; p.d];
    let (k, kp) = (p.k, columns.kp);
    let mut dist = vec![0.0; kp];
    let mut cost = vec![0.0; kp];
    // Without sample weights every point weighs 1, so a cluster's join
    // factor `join_weight(1, W_j)` changes only when a move changes `W_j`:
    // kept per cluster, it costs no division per point and cluster.
    let mut joins: Option<Vec<f64>> = (!data.is_weighted()).then(|| {
        p.stats
            .weights
            .iter()
            .map(|&big_w| join_weight(1.0, big_w))
            .collect()
    });
    let (mut moves, mut evaluated) = (0, 0);
    for (pos, &i) in order.iter().enumerate() {
        // The visiting order is random: start loading a row (and its label
        // and bounds) a few positions ahead, so that they are in cache when
        // its turn comes.
        if let Some(&ahead) = order.get(pos + LOOKAHEAD) {
            data.prefetch(ahead);
            prefetch(std::slice::from_ref(&p.stats.labels[ahead]));
            bounds.prefetch(ahead);
        }
        bounds.at_position(pos, &p.centroids);
        let (r, w) = (p.stats.labels[i], data.weight(i));
        if !p.stats.may_leave(r, w) || bounds.skip((i, r, w), p, s, &mut x, SkipTests::First) {
            continue;
        }
        evaluated += 1;
        data.load_shifted(i, &mut x);
        columns.distances(&x, &mut dist);
        let to = if w == 0.0 {
            choose_move(
                &KMeans::new(&p.stats.counts, &p.stats.weights),
                r,
                w,
                factor,
                |c| dist[c],
            )
        } else {
            let own = factor * leave_weight(w, p.stats.weights[r]) * dist[r];
            let cost = &mut cost[..k];
            match &joins {
                Some(joins) => {
                    for ((c, &join), &d) in cost.iter_mut().zip(joins).zip(&dist) {
                        *c = join * d;
                    }
                }
                None => {
                    for ((c, &big_w), &d) in cost.iter_mut().zip(&p.stats.weights).zip(&dist) {
                        *c = join_weight(w, big_w) * d;
                    }
                }
            }
            lowest_join(r, own, cost)
        };
        match to {
            None => {
                if !bounds.is_off() {
                    bounds.record(i, r, dist[r], nearest_other(&dist[..k], r));
                }
            }
            Some(j) => {
                p.move_point(i, &x, w, j);
                columns.set(p, r);
                columns.set(p, j);
                if let Some(joins) = joins.as_mut() {
                    joins[r] = join_weight(1.0, p.stats.weights[r]);
                    joins[j] = join_weight(1.0, p.stats.weights[j]);
                }
                if !bounds.is_off() {
                    bounds.after_move(&p.centroids, &p.stats.weights, r, j);
                    // The distance to the new centroid is known; the
                    // others are not.
                    bounds.record(i, j, sq_dist(&x, p.centroid(j)), 0.0);
                }
                moves += 1;
            }
        }
    }
    (moves, evaluated)
}

/// The smallest of `dist` other than `dist[r]`: every other cluster's
/// computed `sq_dist` is at least this (what [`Bounds::record`] takes).
#[inline(always)]
fn nearest_other(dist: &[f64], r: usize) -> f64 {
    dist.iter()
        .enumerate()
        .filter(|&(c, _)| c != r)
        .fold(f64::INFINITY, |m, (_, &v)| if v < m { v } else { m })
}

/// Positions ahead whose row is prefetched.
const LOOKAHEAD: usize = 8;

/// [`choose_move`] for a point of weight `w > 0`, from its join costs to
/// every cluster, computed by the same expressions (`join_weight·dist`),
/// and its own cost `own` (`(factor·leave_weight)·dist`): the lowest join
/// cost other than `r`'s, ties to the lowest index (the first cluster
/// attaining the minimum, which is what `choose_move`'s strict comparison
/// in index order keeps), and a move when it is strictly below the own
/// cost. Costs are finite, so the minimum is well defined.
#[inline(always)]
fn lowest_join(r: usize, own: f64, cost: &mut [f64]) -> Option<usize> {
    cost[r] = f64::INFINITY;
    // The minimum lane by lane, then over the lanes (the order of a
    // minimum of finite values does not change it).
    let mut lanes = [f64::INFINITY; LANES];
    let chunks = cost.chunks_exact(LANES);
    for &c in chunks.remainder() {
        lanes[0] = if c < lanes[0] { c } else { lanes[0] };
    }
    for chunk in chunks {
        for (m, &c) in lanes.iter_mut().zip(chunk) {
            *m = if c < *m { c } else { *m };
        }
    }
    let best = lanes
        .iter()
        .fold(f64::INFINITY, |m, &c| if c < m { c } else { m });
    if best < own {
        cost.iter().position(|&c| c == best)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{sq_dist, Data};
    use crate::rng::Xoshiro256PlusPlus;
    use crate::testing::testdata::blobs;
    use ndarray::Array2;
    use std::borrow::Cow;

    /// Every lane's distance has `sq_dist`'s bits, for every `d` the
    /// columns take and `k` around the lane width.
    #[test]
    fn distances_have_the_bits_of_sq_dist() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(4);
        for d in 1..WIDE_FROM {
            for k in [2, 7, 8, 9, 17] {
                let x = Array2::from_shape_fn((k + 1, d), |_| 1e3 * rng.unit_f64() - 500.0);
                let labels = (0..=k).map(|i| i.min(k - 1)).collect();
                let data = Data::new(x.view(), None);
                let p = Partition::from_labels(&data, k, labels, false);
                let columns = Columns::of(&p);
                let mut out = vec![0.0; columns.kp];
                let point: Vec<f64> = (0..d).map(|_| 3.0 * rng.unit_f64()).collect();
                columns.distances(&point, &mut out);
                for (c, &got) in out.iter().enumerate().take(k) {
                    let want = sq_dist(&point, p.centroid(c));
                    assert_eq!(got.to_bits(), want.to_bits(), "d = {d}, k = {k}, c = {c}");
                }
            }
        }
    }

    /// Twelve sweeps (four at a falling factor, then Hartigan's) from a
    /// random partition, each equal to the plain sweep; returns the points
    /// the bounds skipped over all sweeps.
    fn check_sweeps<T: Scalar>(
        x: ndarray::ArrayView2<'_, T>,
        w: Option<&[f64]>,
        k: usize,
    ) -> usize {
        let data = Data::new(x, w.map(Cow::Borrowed));
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
        let labels = (0..data.n).map(|_| rng.below(k)).collect();
        let mut a = Partition::from_labels(&data, k, labels, false);
        let mut b = a.clone();
        let mut cache = Cache::default();
        let mut skipped = 0;
        for s in 0..12 {
            let factor = if s < 4 { 1.4 - 0.1 * s as f64 } else { 1.0 };
            let mut order: Vec<usize> = (0..data.n).collect();
            rng.shuffle(&mut order);
            let ma = crate::engine::reference::sweep(&mut a, Sweep::new(&data, &order, factor));
            let mb = sweep_columns(&mut b, Sweep::new(&data, &order, factor), &mut cache);
            assert_eq!(ma, mb, "moves differ in sweep {s}");
            assert_eq!(a, b, "state differs after sweep {s}");
            let singletons = (0..data.n)
                .filter(|&i| b.stats.counts[b.stats.labels[i]] == 1)
                .count();
            if cache.bounds.is_some() {
                skipped += data.n - singletons - cache.evaluated;
            }
            a.recompute(&data, false);
            b.recompute(&data, false);
        }
        skipped
    }

    #[test]
    fn column_sweep_equals_plain_sweep() {
        for &(n, d, k) in &[(600, 3, 5), (800, 16, 20), (700, 33, 9), (500, 63, 12)] {
            let x = blobs(n, d, k / 2 + 1, (n + d) as u64);
            // Once moves are rare the bounds skip points, and the moves stay
            // the plain sweep's.
            assert!(
                check_sweeps(x.view(), None, k) > 0,
                "no point skipped: n = {n}, d = {d}"
            );
            check_sweeps(x.mapv(|v| v as f32).view(), None, k);
            let w = crate::testing::testdata::weights_with_zeros(n, 7);
            check_sweeps(x.view(), Some(&w), k);
        }
        // Exact duplicates: ties broken as the plain sweep breaks them.
        let x = Array2::from_shape_fn((400, 2), |(i, j)| ((i * (j + 3)) % 5) as f64);
        check_sweeps(x.view(), None, 6);
    }

    /// A first sweep told that most points will move keeps no bounds (each
    /// move would pay for them), one told nothing starts them; the moves
    /// are the plain sweep's either way.
    #[test]
    fn expected_share_decides_the_first_sweeps_bounds() {
        let x = blobs(600, 8, 1, 3);
        let data = Data::new(x.view(), None);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
        let labels: Vec<usize> = (0..data.n).map(|_| rng.below(6)).collect();
        let mut order: Vec<usize> = (0..data.n).collect();
        rng.shuffle(&mut order);
        let start = Partition::from_labels(&data, 6, labels, false);
        let mut plain = start.clone();
        let moves = crate::engine::reference::sweep(&mut plain, Sweep::new(&data, &order, 1.2));
        for (share, keeps) in [(None, true), (Some(0.75), false), (Some(0.01), true)] {
            let mut p = start.clone();
            let mut cache = Cache::default();
            if let Some(share) = share {
                cache.expect_moved_share(share);
            }
            assert_eq!(
                sweep_columns(&mut p, Sweep::new(&data, &order, 1.2), &mut cache),
                moves
            );
            assert_eq!(p, plain);
            assert_eq!(cache.bounds.is_some(), keeps, "expected share {share:?}");
        }
    }
}
