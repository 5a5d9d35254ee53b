//! The clustering state one restart carries: labels, cluster sizes, centroid
//! sums and centroids. Sums and centroids are `f64` and in the shifted
//! coordinates of [`Data`], whatever the input type.

use crate::data::{sq_dist, sq_dist_shifted, Data, Scalar};
use crate::fast::SweepHint;
use rayon::prelude::*;

/// Labels plus the per-cluster statistics derived from them.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Partition {
    pub k: usize,
    pub d: usize,
    pub labels: Vec<usize>,
    /// Points per cluster (decides the singleton rule).
    pub counts: Vec<usize>,
    /// Total sample weight per cluster (equals `counts` without weights).
    pub weights: Vec<f64>,
    /// `k × d`, row-major: the weighted sum of each cluster's shifted points.
    pub sums: Vec<f64>,
    /// `k × d`, row-major: `sums / weights`.
    pub centroids: Vec<f64>,
    /// Per cluster, `Σ w_i·‖x_i − μ_j‖²` over its members in index order, as
    /// of the last recomputation (the objective is their sum in cluster
    /// order).
    pub costs: Vec<f64>,
    /// Clusters a [`Partition::move_point`] touched since the last
    /// recomputation: only their sums, centroids and costs can differ from
    /// what a recomputation from the labels gives.
    pub stale: Vec<bool>,
    /// Block-size hint of the accelerated sweep (performance only).
    pub hint: SweepHint,
}

impl Partition {
    /// The partition given by `labels`, with every empty cluster filled (see
    /// [`Partition::fill_empty_clusters`]).
    pub fn from_labels<T: Scalar>(data: &Data<'_, T>, k: usize, labels: Vec<usize>) -> Self {
        let mut p = Partition {
            k,
            d: data.d,
            labels,
            counts: vec![0; k],
            weights: vec![0.0; k],
            sums: vec![0.0; k * data.d],
            centroids: vec![0.0; k * data.d],
            costs: vec![0.0; k],
            stale: vec![false; k],
            hint: SweepHint::default(),
        };
        p.recompute(data);
        p.fill_empty_clusters(data);
        p
    }

    /// Centroids only, no points: a probe for [`Partition::nearest`].
    pub fn with_centroids(k: usize, d: usize, centroids: Vec<f64>) -> Self {
        Partition {
            k,
            d,
            labels: Vec::new(),
            counts: Vec::new(),
            weights: Vec::new(),
            sums: Vec::new(),
            centroids,
            costs: Vec::new(),
            stale: Vec::new(),
            hint: SweepHint::default(),
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
    pub fn recompute<T: Scalar>(&mut self, data: &Data<'_, T>) {
        self.stale.iter_mut().for_each(|s| *s = true);
        self.recompute_stale(data);
    }

    /// [`Partition::recompute`] for the clusters moves touched since the
    /// last recomputation, called after every sweep. It gives the same bits
    /// as the full one: every cluster's numbers are sums over its members in
    /// index order, and an untouched cluster has the members, sums,
    /// centroid and cost of the last recomputation. Late sweeps move a few
    /// points, so this skips most of the `O(n·d)` work between sweeps.
    pub fn recompute_stale<T: Scalar>(&mut self, data: &Data<'_, T>) {
        let (k, d) = (self.k, self.d);
        if data.parallel && data.n * d >= PARALLEL_RECOMPUTE_MIN && rayon::current_num_threads() > 1
        {
            self.recompute_stale_by_cluster(data);
            return;
        }
        for j in 0..k {
            if !self.stale[j] {
                continue;
            }
            self.counts[j] = 0;
            self.weights[j] = 0.0;
            self.sums[j * d..(j + 1) * d]
                .iter_mut()
                .for_each(|s| *s = 0.0);
            self.costs[j] = 0.0;
        }
        for (i, &l) in self.labels.iter().enumerate() {
            if !self.stale[l] {
                continue;
            }
            let w = data.weight(i);
            self.counts[l] += 1;
            self.weights[l] += w;
            // `w·v` for `v` of `load_shifted`'s row, without copying it.
            let sums = &mut self.sums[l * d..(l + 1) * d];
            for ((s, v), sh) in sums.iter_mut().zip(data.row(i)).zip(&data.shift) {
                *s += w * (v.to_f64() - sh);
            }
        }
        for j in 0..k {
            if self.stale[j] {
                self.update_centroid(j);
            }
        }
        add_costs(
            data,
            &self.labels,
            &self.centroids,
            Some(&self.stale),
            &mut self.costs,
        );
        self.stale.iter_mut().for_each(|s| *s = false);
    }

    /// [`Partition::recompute_stale`] with the clusters split over the
    /// pool: the stale clusters' members are listed in index order (one
    /// counting sort), then each cluster sums its members and their costs in
    /// that order. Every number is the same sum, in the same order, as the
    /// sequential version's, so the bits do not depend on the thread count.
    fn recompute_stale_by_cluster<T: Scalar>(&mut self, data: &Data<'_, T>) {
        let (k, d) = (self.k, self.d);
        let stale = &self.stale;
        // offsets[j]..offsets[j + 1]: cluster j's slice of `members`.
        let mut offsets = vec![0usize; k + 1];
        for &l in &self.labels {
            if stale[l] {
                offsets[l + 1] += 1;
            }
        }
        for j in 0..k {
            offsets[j + 1] += offsets[j];
        }
        let mut fill = offsets[..k].to_vec();
        let mut members = vec![0usize; offsets[k]];
        for (i, &l) in self.labels.iter().enumerate() {
            if stale[l] {
                members[fill[l]] = i;
                fill[l] += 1;
            }
        }
        self.sums
            .par_chunks_mut(d)
            .zip(self.centroids.par_chunks_mut(d))
            .zip(self.counts.par_iter_mut())
            .zip(self.weights.par_iter_mut())
            .zip(self.costs.par_iter_mut())
            .enumerate()
            .filter(|(j, _)| stale[*j])
            .for_each(|(j, ((((sums, centroid), count), weight), cost))| {
                let mine = &members[offsets[j]..offsets[j + 1]];
                sums.iter_mut().for_each(|s| *s = 0.0);
                *count = mine.len();
                *weight = 0.0;
                for &i in mine {
                    let w = data.weight(i);
                    *weight += w;
                    for ((s, v), sh) in sums.iter_mut().zip(data.row(i)).zip(&data.shift) {
                        *s += w * (v.to_f64() - sh);
                    }
                }
                set_centroid(centroid, sums, *weight);
                *cost = 0.0;
                for &i in mine {
                    *cost += data.weight(i) * sq_dist_shifted(data.row(i), &data.shift, centroid);
                }
            });
        self.stale.iter_mut().for_each(|s| *s = false);
    }

    #[inline(always)]
    fn update_centroid(&mut self, j: usize) {
        let d = self.d;
        let weight = self.weights[j];
        let (sums, cents) = (
            &self.sums[j * d..(j + 1) * d],
            &mut self.centroids[j * d..(j + 1) * d],
        );
        set_centroid(cents, sums, weight);
    }

    /// Moves point `i` (shifted coordinates `x`, weight `w`) to cluster `to`,
    /// updating both clusters' sums and centroids at once (Hartigan's rule:
    /// the objective change was computed against both updated means).
    #[inline]
    pub fn move_point(&mut self, i: usize, x: &[f64], w: f64, to: usize) {
        let from = self.labels[i];
        let d = self.d;
        self.stale[from] = true;
        self.stale[to] = true;
        self.labels[i] = to;
        self.counts[from] -= 1;
        self.counts[to] += 1;
        self.weights[from] -= w;
        self.weights[to] += w;
        for (s, v) in self.sums[from * d..(from + 1) * d].iter_mut().zip(x) {
            *s -= w * v;
        }
        for (s, v) in self.sums[to * d..(to + 1) * d].iter_mut().zip(x) {
            *s += w * v;
        }
        self.update_centroid(from);
        self.update_centroid(to);
    }

    /// The (weighted) k-means objective of the current state: the clusters'
    /// costs summed in cluster order (each cost summed over its members in
    /// index order). Between a move and the next recomputation the stored
    /// costs are out of date, so they are then computed afresh, the same way.
    pub fn objective<T: Scalar>(&self, data: &Data<'_, T>) -> f64 {
        if !self.stale.iter().any(|&s| s) {
            return self.costs.iter().sum();
        }
        let mut costs = vec![0.0; self.k];
        add_costs(data, &self.labels, &self.centroids, None, &mut costs);
        costs.iter().sum()
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
    pub fn fill_empty_clusters<T: Scalar>(&mut self, data: &Data<'_, T>) -> usize {
        let empties: Vec<usize> = (0..self.k).filter(|&j| self.weights[j] <= 0.0).collect();
        if empties.is_empty() {
            return 0;
        }
        let mut buf = vec![0.0; self.d];
        let own_dist: Vec<f64> = (0..data.n)
            .map(|i| {
                data.load_shifted(i, &mut buf);
                sq_dist(&buf, self.centroid(self.labels[i]))
            })
            .collect();
        let moved = refill(
            &empties,
            own_dist,
            &mut self.labels,
            &mut self.counts,
            &mut self.weights,
            |i| data.weight(i),
        );
        self.recompute(data);
        moved
    }
}

/// Smallest `n·d` for which [`Partition::recompute_stale`] splits the
/// clusters over the pool (below it the work is a few microseconds).
const PARALLEL_RECOMPUTE_MIN: usize = 1 << 17;

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

/// Adds `w_i·sq_dist(x_i, μ_{label_i})` to `costs[label_i]` for every point
/// in index order (only points of the clusters `only` marks, if given): the
/// one summation order every cluster cost is computed in.
fn add_costs<T: Scalar>(
    data: &Data<'_, T>,
    labels: &[usize],
    centroids: &[f64],
    only: Option<&[bool]>,
    costs: &mut [f64],
) {
    let d = data.d;
    for (i, &l) in labels.iter().enumerate() {
        if only.is_some_and(|o| !o[l]) {
            continue;
        }
        let centroid = &centroids[l * d..(l + 1) * d];
        costs[l] += data.weight(i) * sq_dist_shifted(data.row(i), &data.shift, centroid);
    }
}

/// Index of the smallest `dist(j)` over `0..k`, starting from `current` so
/// that a tie keeps the current label; other ties go to the lowest index.
#[inline]
pub(crate) fn nearest_by(
    k: usize,
    current: Option<usize>,
    mut dist: impl FnMut(usize) -> f64,
) -> usize {
    let (mut best_j, mut best) = match current {
        Some(r) => (r, dist(r)),
        None => (0, f64::INFINITY),
    };
    for j in 0..k {
        let d = dist(j);
        if d < best {
            best = d;
            best_j = j;
        }
    }
    best_j
}

/// The refill rule shared by dense and sparse states (see
/// [`Partition::fill_empty_clusters`]): moves points, in order of decreasing
/// `own_dist` (ties to the lowest index), into the `empties`, updating
/// labels, counts and cluster weights. The caller recomputes its sums.
pub(crate) fn refill(
    empties: &[usize],
    own_dist: Vec<f64>,
    labels: &mut [usize],
    counts: &mut [usize],
    weights: &mut [f64],
    weight: impl Fn(usize) -> f64,
) -> usize {
    let mut far: Vec<(f64, usize)> = own_dist.into_iter().zip(0..).collect();
    far.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut candidates = far.into_iter().map(|(_, i)| i);
    let mut moved = 0;
    for &e in empties {
        for i in candidates.by_ref() {
            let (r, w) = (labels[i], weight(i));
            if counts[r] >= 2 && w > 0.0 && weights[r] - w > 0.0 {
                counts[r] -= 1;
                counts[e] += 1;
                weights[r] -= w;
                weights[e] += w;
                labels[i] = e;
                moved += 1;
                break;
            }
        }
    }
    moved
}

#[cfg(test)]
#[path = "state_drift_tests.rs"]
mod drift_tests;
