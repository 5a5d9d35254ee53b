//! The clustering state one restart carries: labels, cluster sizes, centroid
//! sums and centroids. Sums and centroids are `f64` and in the shifted
//! coordinates of [`Data`], whatever the input type.

use crate::data::{sq_dist, Data, Scalar};

/// Labels plus the per-cluster statistics derived from them.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Partition {
    pub k: usize,
    pub d: usize,
    pub labels: Vec<usize>,
    pub counts: Vec<usize>,
    /// `k × d`, row-major: the sum of each cluster's shifted points.
    pub sums: Vec<f64>,
    /// `k × d`, row-major: `sums / counts`.
    pub centroids: Vec<f64>,
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
            sums: vec![0.0; k * data.d],
            centroids: vec![0.0; k * data.d],
        };
        p.recompute(data);
        p.fill_empty_clusters(data);
        p
    }

    /// Centroid `j` (shifted coordinates).
    #[inline(always)]
    pub fn centroid(&self, j: usize) -> &[f64] {
        &self.centroids[j * self.d..(j + 1) * self.d]
    }

    /// Recomputes counts, sums and centroids from the labels. Called after
    /// every sweep so that the incremental updates of [`Partition::move_point`]
    /// never accumulate rounding drift beyond one sweep.
    pub fn recompute<T: Scalar>(&mut self, data: &Data<'_, T>) {
        let d = self.d;
        self.counts.iter_mut().for_each(|c| *c = 0);
        self.sums.iter_mut().for_each(|s| *s = 0.0);
        let mut buf = vec![0.0; d];
        for (i, &l) in self.labels.iter().enumerate() {
            data.load_shifted(i, &mut buf);
            self.counts[l] += 1;
            for (s, v) in self.sums[l * d..(l + 1) * d].iter_mut().zip(&buf) {
                *s += v;
            }
        }
        for j in 0..self.k {
            self.update_centroid(j);
        }
    }

    #[inline(always)]
    fn update_centroid(&mut self, j: usize) {
        let d = self.d;
        let c = self.counts[j];
        let (sums, cents) = (
            &self.sums[j * d..(j + 1) * d],
            &mut self.centroids[j * d..(j + 1) * d],
        );
        if c == 0 {
            // An empty cluster has no mean; zero keeps it finite until refilled.
            cents.iter_mut().for_each(|v| *v = 0.0);
        } else {
            let count = c as f64;
            for (m, s) in cents.iter_mut().zip(sums) {
                *m = s / count;
            }
        }
    }

    /// Moves point `i` (whose shifted coordinates are `x`) to cluster `to`,
    /// updating both clusters' sums and centroids at once (Hartigan's rule:
    /// the objective change was computed against both updated means).
    #[inline]
    pub fn move_point(&mut self, i: usize, x: &[f64], to: usize) {
        let from = self.labels[i];
        let d = self.d;
        self.labels[i] = to;
        self.counts[from] -= 1;
        self.counts[to] += 1;
        for (s, v) in self.sums[from * d..(from + 1) * d].iter_mut().zip(x) {
            *s -= v;
        }
        for (s, v) in self.sums[to * d..(to + 1) * d].iter_mut().zip(x) {
            *s += v;
        }
        self.update_centroid(from);
        self.update_centroid(to);
    }

    /// The k-means objective of the current state (shifted coordinates).
    pub fn objective<T: Scalar>(&self, data: &Data<'_, T>) -> f64 {
        let mut buf = vec![0.0; self.d];
        let mut total = 0.0;
        for (i, &l) in self.labels.iter().enumerate() {
            data.load_shifted(i, &mut buf);
            total += sq_dist(&buf, self.centroid(l));
        }
        total
    }

    /// The nearest centroid to `x`, starting from `current` so that a tie
    /// keeps the current label (Lloyd stability); other ties go to the
    /// lowest index.
    #[inline]
    pub fn nearest(&self, x: &[f64], current: Option<usize>) -> usize {
        let (mut best_j, mut best) = match current {
            Some(r) => (r, sq_dist(x, self.centroid(r))),
            None => (0, f64::INFINITY),
        };
        for j in 0..self.k {
            let dist = sq_dist(x, self.centroid(j));
            if dist < best {
                best = dist;
                best_j = j;
            }
        }
        best_j
    }

    /// Gives every empty cluster a point, deterministically: points are taken
    /// in order of decreasing distance to their own centroid (ties to the
    /// lowest index), skipping points whose cluster would become empty.
    /// Since `k ≤ n` there are always enough points to go round. Returns how
    /// many points were moved.
    pub fn fill_empty_clusters<T: Scalar>(&mut self, data: &Data<'_, T>) -> usize {
        let empties: Vec<usize> = (0..self.k).filter(|&j| self.counts[j] == 0).collect();
        if empties.is_empty() {
            return 0;
        }
        let mut buf = vec![0.0; self.d];
        let mut far: Vec<(f64, usize)> = (0..data.n)
            .map(|i| {
                data.load_shifted(i, &mut buf);
                (sq_dist(&buf, self.centroid(self.labels[i])), i)
            })
            .collect();
        far.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let mut candidates = far.into_iter().map(|(_, i)| i);
        let mut moved = 0;
        for e in empties {
            for i in candidates.by_ref() {
                let r = self.labels[i];
                if self.counts[r] >= 2 {
                    self.counts[r] -= 1;
                    self.counts[e] += 1;
                    self.labels[i] = e;
                    moved += 1;
                    break;
                }
            }
        }
        self.recompute(data);
        moved
    }
}

#[cfg(test)]
#[path = "state_drift_tests.rs"]
mod drift_tests;
