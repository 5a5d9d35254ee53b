//! The clustering state one restart carries: labels, cluster sizes, centroid
//! sums and centroids. Sums and centroids are `f64` and in the shifted
//! coordinates of [`Data`], whatever the input type.

use crate::data::{sq_dist, sq_dist_shifted, Data, Scalar};
use crate::engine::nearest::nearest_by;
use crate::engine::stats::ClusterStats;
use rayon::prelude::*;

/// Labels plus the per-cluster statistics derived from them.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Partition {
    pub k: usize,
    pub d: usize,
    /// Labels, counts, weights and the row-major sums of each cluster's
    /// shifted points.
    pub stats: ClusterStats,
    /// `k × d`, row-major: `sums / weights`.
    pub centroids: Vec<f64>,
    /// Per cluster, `Σ w_i·‖x_i − μ_j‖²` over its members, as of the last
    /// recomputation, to rounding (see [`Partition::recompute_stale`]; the
    /// objective is their sum in cluster order).
    pub costs: Vec<f64>,
    /// Clusters a [`Partition::move_point`] touched since the last
    /// recomputation: only their sums, centroids and costs can differ from
    /// what a recomputation from the labels gives.
    pub stale: Vec<bool>,
}

impl Partition {
    /// The partition given by `labels`, with every empty cluster filled (see
    /// [`Partition::fill_empty_clusters`]). `spare_threads`: as for
    /// [`Partition::recompute_stale`].
    pub fn from_labels<T: Scalar>(
        data: &Data<'_, T>,
        k: usize,
        labels: Vec<usize>,
        spare_threads: bool,
    ) -> Self {
        let mut p = Partition {
            k,
            d: data.d,
            stats: ClusterStats::new(k, data.d, labels),
            centroids: vec![0.0; k * data.d],
            costs: vec![0.0; k],
            stale: vec![false; k],
        };
        p.recompute(data, spare_threads);
        p.fill_empty_clusters(data, spare_threads);
        p
    }

    /// Centroids only, no points: a probe for [`Partition::nearest`].
    pub fn with_centroids(k: usize, d: usize, centroids: Vec<f64>) -> Self {
        Partition {
            k,
            d,
            stats: ClusterStats::default(),
            centroids,
            costs: Vec::new(),
            stale: Vec::new(),
        }
    }

    /// Centroid `j` (shifted coordinates).
    #[inline(always)]
    pub fn centroid(&self, j: usize) -> &[f64] {
        &self.centroids[j * self.d..(j + 1) * self.d]
    }

    /// Recomputes counts, sums, centroids and costs from the labels. Called
    /// after every Lloyd iteration and refill, so that the incremental updates
    /// of [`Partition::move_point`] never accumulate rounding drift.
    pub fn recompute<T: Scalar>(&mut self, data: &Data<'_, T>, spare_threads: bool) {
        self.stale.iter_mut().for_each(|s| *s = true);
        self.recompute_stale(data, spare_threads);
    }

    /// [`Partition::recompute`] for the clusters moves touched since the
    /// last recomputation, called after every sweep. Counts, weights, sums
    /// and centroids get the full recomputation's bits: every cluster's
    /// numbers depend only on its members (see [`recompute_chunks`] for the
    /// order), and an untouched cluster has the members, sums and centroid
    /// of the last recomputation. Costs are read in the same pass as the
    /// sums, against each cluster's centroid before the recomputation, and
    /// corrected to the new one ([`cost_from_pivot`]): so they also depend
    /// on that centroid, in their last bits (an untouched cluster keeps the
    /// cost it had). Late sweeps move a few points, so this skips most of
    /// the `O(n·d)` work between sweeps. With `spare_threads` (the restarts
    /// leave threads of the pool idle) the chunks are summed side by side;
    /// the bits are the same either way.
    pub fn recompute_stale<T: Scalar>(&mut self, data: &Data<'_, T>, spare_threads: bool) {
        let (k, d) = (self.k, self.d);
        let chunks = recompute_chunks(data.n, k, d);
        let stale = &self.stale;
        let split = spare_threads && chunks > 1 && rayon::current_num_threads() > 1;
        // One pass over the points, per chunk: counts, weights and sums, and
        // each point's cost against its cluster's centroid as it stands (the
        // pivot), while the row is in cache.
        let mut parts: Vec<ChunkSums> = (0..chunks).map(|_| ChunkSums::new(k, d)).collect();
        let pivots = &self.centroids;
        let labels = &self.stats.labels;
        let sum_chunk = |c: usize, part: &mut ChunkSums| {
            let range = chunk_range(data.n, chunks, c);
            dispatch_sums(data, range, labels, stale, pivots, part);
        };
        for_each_chunk(&mut parts, split, sum_chunk);
        // The chunks' partial sums are added in chunk order (one chunk: the
        // sums over the members in index order, as they always were).
        // Clusters whose pivot lay too far from their new mean for the
        // shifted cost to be exact to about a unit in the last place.
        let mut far = vec![false; k];
        let mut pivot = vec![0.0; d];
        for j in (0..k).filter(|&j| stale[j]) {
            let sums = &mut self.stats.sums[j * d..(j + 1) * d];
            sums.copy_from_slice(&parts[0].sums[j * d..(j + 1) * d]);
            self.stats.counts[j] = parts[0].counts[j];
            self.stats.weights[j] = parts[0].weights[j];
            let mut pivot_cost = parts[0].costs[j];
            for part in &parts[1..] {
                for (s, v) in sums.iter_mut().zip(&part.sums[j * d..(j + 1) * d]) {
                    *s += v;
                }
                self.stats.counts[j] += part.counts[j];
                self.stats.weights[j] += part.weights[j];
                pivot_cost += part.costs[j];
            }
            let centroid = &mut self.centroids[j * d..(j + 1) * d];
            pivot.copy_from_slice(centroid);
            set_centroid(centroid, sums, self.stats.weights[j]);
            match cost_from_pivot(pivot_cost, &pivot, centroid, sums, self.stats.weights[j]) {
                Some(cost) => self.costs[j] = cost,
                None => far[j] = true,
            }
        }
        // Their costs take a second pass against the new centroids (after a
        // Lloyd step or a refill, rarely after a sweep).
        if far.iter().any(|&f| f) {
            let costs = chunked_costs(
                data,
                &self.stats.labels,
                &self.centroids,
                k,
                Some(&far),
                chunks,
                split,
            );
            for j in (0..k).filter(|&j| far[j]) {
                self.costs[j] = costs[j];
            }
        }
        self.stale.iter_mut().for_each(|s| *s = false);
    }

    #[inline(always)]
    fn update_centroid(&mut self, j: usize) {
        let d = self.d;
        let weight = self.stats.weights[j];
        let (sums, cents) = (
            &self.stats.sums[j * d..(j + 1) * d],
            &mut self.centroids[j * d..(j + 1) * d],
        );
        set_centroid(cents, sums, weight);
    }

    /// Moves point `i` (shifted coordinates `x`, weight `w`) to cluster `to`,
    /// updating both clusters' sums and centroids at once (Hartigan's rule:
    /// the objective change was computed against both updated means).
    /// Always inlined, so that in the sweeps it is compiled with their
    /// vector features: its `2·d` divisions then take four lanes at a time
    /// under AVX2 instead of SSE2's two (each point of a Smartigan
    /// schedule on overlapping data moves; same bits either way).
    #[inline(always)]
    pub fn move_point(&mut self, i: usize, x: &[f64], w: f64, to: usize) {
        let from = self.stats.labels[i];
        let d = self.d;
        self.stale[from] = true;
        self.stale[to] = true;
        self.stats.labels[i] = to;
        self.stats.counts[from] -= 1;
        self.stats.counts[to] += 1;
        self.stats.weights[from] -= w;
        self.stats.weights[to] += w;
        for (s, v) in self.stats.sums[from * d..(from + 1) * d].iter_mut().zip(x) {
            *s -= w * v;
        }
        for (s, v) in self.stats.sums[to * d..(to + 1) * d].iter_mut().zip(x) {
            *s += w * v;
        }
        self.update_centroid(from);
        self.update_centroid(to);
    }

    /// The (weighted) k-means objective of the current state: the clusters'
    /// costs summed in cluster order. Between a move and the next
    /// recomputation the stored costs are out of date, so they are then
    /// computed afresh against the current centroids (each summed over its
    /// members in the order of [`recompute_chunks`]).
    pub fn objective<T: Scalar>(&self, data: &Data<'_, T>) -> f64 {
        if !self.stale.iter().any(|&s| s) {
            return self.costs.iter().sum();
        }
        let chunks = recompute_chunks(data.n, self.k, self.d);
        chunked_costs(
            data,
            &self.stats.labels,
            &self.centroids,
            self.k,
            None,
            chunks,
            false,
        )
        .iter()
        .sum()
    }

    /// The nearest centroid to `x`, starting from `current` so that a tie
    /// keeps the current label (Lloyd stability); other ties go to the
    /// lowest index.
    #[inline]
    pub fn nearest(&self, x: &[f64], current: Option<usize>) -> usize {
        nearest_by(self.k, current, |j| sq_dist(x, self.centroid(j)))
    }

    /// Gives every empty cluster a point, deterministically: points are taken
    /// in order of decreasing distance to their own centroid (ties to the
    /// lowest index), skipping points whose cluster would become empty.
    /// Since `k ≤ n` there are always enough points to go round. With sample
    /// weights, "empty" means "no positive weight", only positive-weight
    /// points are taken, and a cluster must keep positive weight; at least
    /// `k` positive weights are required up front. Returns how many points
    /// were moved.
    pub fn fill_empty_clusters<T: Scalar>(
        &mut self,
        data: &Data<'_, T>,
        spare_threads: bool,
    ) -> usize {
        let empties = self.stats.empty_clusters();
        if empties.is_empty() {
            return 0;
        }
        let mut buf = vec![0.0; self.d];
        let own_dist: Vec<f64> = (0..data.n)
            .map(|i| {
                data.load_shifted(i, &mut buf);
                sq_dist(&buf, self.centroid(self.stats.labels[i]))
            })
            .collect();
        let moved = self.stats.refill(&empties, own_dist, |i| data.weight(i));
        self.recompute(data, spare_threads);
        moved
    }
}

/// Fewest points per chunk of [`Partition::recompute_stale`].
const RECOMPUTE_CHUNK_MIN: usize = 8192;
/// Most chunks of [`Partition::recompute_stale`].
const RECOMPUTE_CHUNKS_MAX: usize = 16;

/// Number of chunks the recomputation sums in: every cluster's sum, weight
/// and (pivot) cost is summed over its members in index order within each
/// chunk of consecutive points, and the chunks' partial sums are then added
/// in chunk order. The chunks depend on `n` (and `k·d`) only, never on the thread
/// count, so the bits do not either; with spare threads the chunks are
/// summed side by side, streaming the data on every core. (Splitting by
/// cluster instead kept the plain order but read each cluster's members
/// scattered over the data, which was slow after a schedule sweep that
/// touches every cluster.) Below `2·RECOMPUTE_CHUNK_MIN` points there is one
/// chunk: the plain order. The partial sums take at most `k·d` per chunk
/// and, in all, no more than a quarter of the data's size.
fn recompute_chunks(n: usize, k: usize, d: usize) -> usize {
    let by_size = (n * d / 4) / (k * d + 2 * k).max(1);
    (n / RECOMPUTE_CHUNK_MIN)
        .min(by_size)
        .clamp(1, RECOMPUTE_CHUNKS_MAX)
}

/// Points of chunk `c` of `chunks` over `0..n`.
fn chunk_range(n: usize, chunks: usize, c: usize) -> std::ops::Range<usize> {
    (c * n / chunks)..((c + 1) * n / chunks)
}

/// `work(c, &mut parts[c])` for every chunk `c`, side by side over the pool
/// if `split`, else in order on this thread (the same arithmetic either way).
fn for_each_chunk<P: Send>(parts: &mut [P], split: bool, work: impl Fn(usize, &mut P) + Sync) {
    if split {
        parts
            .par_iter_mut()
            .enumerate()
            .for_each(|(c, part)| work(c, part));
    } else {
        parts
            .iter_mut()
            .enumerate()
            .for_each(|(c, part)| work(c, part));
    }
}

/// Adds the points of `range` whose cluster is `stale` to `part`: their
/// counts, weights and weighted sums, and their costs against `pivots`, in
/// index order (one chunk of [`Partition::recompute_stale`]).
#[inline(always)]
fn sums_body<T: Scalar>(
    data: &Data<'_, T>,
    range: std::ops::Range<usize>,
    labels: &[usize],
    stale: &[bool],
    pivots: &[f64],
    part: &mut ChunkSums,
) {
    let d = data.d;
    let rows = data.rows(range.clone()).chunks_exact(d.max(1));
    for ((i, row), &l) in range.clone().zip(rows).zip(&labels[range]) {
        if !stale[l] {
            continue;
        }
        let w = data.weight(i);
        part.counts[l] += 1;
        part.weights[l] += w;
        // `w·v` for `v` of `load_shifted`'s row, without copying it.
        let sums = &mut part.sums[l * d..(l + 1) * d];
        for ((s, v), sh) in sums.iter_mut().zip(row).zip(&data.shift) {
            *s += w * (v.to_f64() - sh);
        }
        let pivot = &pivots[l * d..(l + 1) * d];
        part.costs[l] += w * sq_dist_shifted(row, &data.shift, pivot);
    }
}

multiversion!(sums_body, dispatch_sums, (data: &Data<'_, T>, range: std::ops::Range<usize>, labels: &[usize], stale: &[bool], pivots: &[f64], part: &mut ChunkSums) -> ());

/// One chunk's partial counts, weights, sums and pivot costs.
struct ChunkSums {
    counts: Vec<usize>,
    weights: Vec<f64>,
    sums: Vec<f64>,
    costs: Vec<f64>,
}

impl ChunkSums {
    fn new(k: usize, d: usize) -> Self {
        ChunkSums {
            counts: vec![0; k],
            weights: vec![0.0; k],
            sums: vec![0.0; k * d],
            costs: vec![0.0; k],
        }
    }
}

/// A cluster's cost `Σ w_i·‖v_i − μ‖²` from its cost against another point,
/// the pivot `p`: `Σ w_i·‖v_i − p‖² = Σ w_i·‖v_i − μ‖² + W·‖μ − p‖² +
/// 2·(μ − p)·(S − W·μ)`, exactly, for `S = Σ w_i·v_i` and `W = Σ w_i` (the
/// last term is zero but for the rounding of `μ = S / W`). The pivot is the
/// centroid before the recomputation: after a sweep it differs from the new
/// mean by the rounding of the incremental updates, so the correction is
/// far below the cost and the subtraction loses nothing; where the
/// correction is more than half the pivot cost (the pivot far from the
/// mean: after a Lloyd step or a refill) the subtraction could cancel
/// digits, and `None` asks for a pass against the new centroid instead.
/// A pivot equal to the mean gives the pivot cost itself.
fn cost_from_pivot(
    pivot_cost: f64,
    pivot: &[f64],
    mean: &[f64],
    sums: &[f64],
    weight: f64,
) -> Option<f64> {
    if weight <= 0.0 {
        // No weight, no cost (the members' weights are all zero).
        return Some(pivot_cost);
    }
    let (mut shift, mut cross) = (0.0, 0.0);
    for ((m, p), s) in mean.iter().zip(pivot).zip(sums) {
        let delta = m - p;
        shift += delta * delta;
        cross += delta * (s - weight * m);
    }
    let correction = weight * shift + 2.0 * cross;
    (correction <= 0.5 * pivot_cost).then(|| (pivot_cost - correction).max(0.0))
}

/// `centroid = sums / weight`, the mean of a cluster.
#[inline(always)]
fn set_centroid(centroid: &mut [f64], sums: &[f64], weight: f64) {
    if weight <= 0.0 {
        // An empty (or weightless) cluster has no mean; zero keeps it
        // finite until it is refilled.
        centroid.iter_mut().for_each(|v| *v = 0.0);
    } else {
        for (m, s) in centroid.iter_mut().zip(sums) {
            *m = s / weight;
        }
    }
}

/// Every cluster's cost `Σ w_i·sq_dist(x_i, μ_j)` (only those of `only`),
/// summed in the order of [`recompute_chunks`], the chunks side by side if
/// `split`.
fn chunked_costs<T: Scalar>(
    data: &Data<'_, T>,
    labels: &[usize],
    centroids: &[f64],
    k: usize,
    only: Option<&[bool]>,
    chunks: usize,
    split: bool,
) -> Vec<f64> {
    let mut parts: Vec<Vec<f64>> = vec![vec![0.0; k]; chunks];
    let cost_chunk = |c: usize, costs: &mut Vec<f64>| {
        let range = chunk_range(data.n, chunks, c);
        add_costs(data, range.start, &labels[range], centroids, only, costs);
    };
    for_each_chunk(&mut parts, split, cost_chunk);
    let mut parts = parts.into_iter();
    let mut total = parts.next().unwrap_or_default();
    for part in parts {
        for (t, v) in total.iter_mut().zip(&part) {
            *t += v;
        }
    }
    total
}

/// Adds `w_i·sq_dist(x_i, μ_{label_i})` to `costs[label_i]` for the points
/// `first..first + labels.len()` in index order (only points of the
/// clusters `only` marks, if given): one chunk of [`chunked_costs`].
fn add_costs<T: Scalar>(
    data: &Data<'_, T>,
    first: usize,
    labels: &[usize],
    centroids: &[f64],
    only: Option<&[bool]>,
    costs: &mut [f64],
) {
    let d = data.d;
    for (i, &l) in (first..).zip(labels) {
        if only.is_some_and(|o| !o[l]) {
            continue;
        }
        let centroid = &centroids[l * d..(l + 1) * d];
        costs[l] += data.weight(i) * sq_dist_shifted(data.row(i), &data.shift, centroid);
    }
}

#[cfg(test)]
mod drift_tests;
