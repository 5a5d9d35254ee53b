//! Labels and the per-cluster statistics every descent state is built on
//! (the partition of dense rows, the sparse, the spherical and the bounded
//! states): rows, sample weight and weighted sum of rows per cluster.
//! Centroids, costs and norms are the owners' own: they are what the
//! objectives and representations differ in.

use crate::engine::move_rule::may_leave;

/// Labels and, per cluster, its rows, weight and weighted sum.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct ClusterStats {
    pub labels: Vec<usize>,
    /// Rows per cluster (the singleton rule and size bounds count them).
    pub counts: Vec<usize>,
    /// Total sample weight per cluster (equals `counts` without weights).
    pub weights: Vec<f64>,
    /// `k·d` weighted sums of each cluster's rows, in the owner's
    /// coordinates and layout: row-major per cluster (`sums[j·d + c]`),
    /// except the sparse state's, column-major (`sums[c·k + j]`), which
    /// its dot products read a column at a time.
    pub sums: Vec<f64>,
}

impl ClusterStats {
    /// `labels` with zero statistics for `k` clusters in `d` dimensions
    /// (the owner then sums them).
    pub fn new(k: usize, d: usize, labels: Vec<usize>) -> Self {
        ClusterStats {
            labels,
            counts: vec![0; k],
            weights: vec![0.0; k],
            sums: vec![0.0; k * d],
        }
    }

    /// Counts, weights and sums set to zero, before a recomputation.
    pub fn clear(&mut self) {
        self.counts.iter_mut().for_each(|c| *c = 0);
        self.weights.iter_mut().for_each(|w| *w = 0.0);
        self.sums.iter_mut().for_each(|s| *s = 0.0);
    }

    /// Takes `labels` (a Lloyd assignment) and returns how many differ from
    /// the old ones; the caller recomputes the statistics.
    pub fn relabel(&mut self, labels: Vec<usize>) -> usize {
        let changed = labels
            .iter()
            .zip(&self.labels)
            .filter(|(a, b)| a != b)
            .count();
        self.labels = labels;
        changed
    }

    /// Clusters left without weight, in index order.
    pub fn empty_clusters(&self) -> Vec<usize> {
        (0..self.weights.len())
            .filter(|&j| self.weights[j] <= 0.0)
            .collect()
    }

    /// Whether a row of weight `w` may leave its cluster `r` as far as
    /// counts and weights go ([`may_leave`]).
    #[inline(always)]
    pub fn may_leave(&self, r: usize, w: f64) -> bool {
        may_leave(&self.counts, &self.weights, r, w)
    }

    /// Fills the `empties` (shared by every representation's
    /// `fill_empty_clusters`): moves rows, in order of decreasing
    /// `own_dist` (ties to the lowest index), into the `empties`, one each,
    /// taking only a row that leaves its cluster non-empty with positive
    /// weight; updates labels, counts and weights and returns the rows
    /// moved. The caller recomputes its sums.
    pub fn refill(
        &mut self,
        empties: &[usize],
        own_dist: Vec<f64>,
        weight: impl Fn(usize) -> f64,
    ) -> usize {
        let mut far: Vec<(f64, usize)> = own_dist.into_iter().zip(0..).collect();
        far.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let mut candidates = far.into_iter().map(|(_, i)| i);
        let mut moved = 0;
        for &e in empties {
            for i in candidates.by_ref() {
                let (r, w) = (self.labels[i], weight(i));
                if self.counts[r] >= 2 && w > 0.0 && self.weights[r] - w > 0.0 {
                    self.counts[r] -= 1;
                    self.counts[e] += 1;
                    self.weights[r] -= w;
                    self.weights[e] += w;
                    self.labels[i] = e;
                    moved += 1;
                    break;
                }
            }
        }
        moved
    }
}
