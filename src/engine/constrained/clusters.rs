//! The state of a bounded descent: labels and, per cluster, its size,
//! weight, weighted sum and its norm, centroid (the mean, or the direction
//! for the spherical loss: [`Centre`]) and the centroid's squared norm, for
//! any representation of the rows ([`Points`]).

use super::gains::{Centre, Gains, Side};
use crate::data::direction_of_sum;
use crate::engine::points::Points;
use crate::engine::stats::ClusterStats;

/// Labels and the per-cluster statistics the gains are computed from.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Clusters {
    pub k: usize,
    pub d: usize,
    /// Labels, counts (what the bounds count), weights and `k × d`
    /// row-major sums.
    pub stats: ClusterStats,
    /// `‖s_j‖` (the spherical gains read it).
    pub sum_norms: Vec<f64>,
    /// What a centroid is.
    pub centre: Centre,
    /// `k × d`: `sums / weights` ([`Centre::Mean`]) or `sums / ‖sums‖`
    /// ([`Centre::Direction`]).
    pub centroids: Vec<f64>,
    /// `‖μ_j‖²` (sparse rows' distances use it).
    pub norms: Vec<f64>,
}

impl Clusters {
    /// The clusters `labels` give (every cluster non-empty, with positive
    /// weight: the start guarantees it and every move keeps it), with the
    /// centroids of the objective `G`.
    pub fn from_labels<P: Points, G: Gains>(points: &P, k: usize, labels: Vec<usize>) -> Self {
        let d = points.dim();
        let mut c = Clusters {
            k,
            d,
            stats: ClusterStats::new(k, d, labels),
            sum_norms: vec![0.0; k],
            centre: G::CENTRE,
            centroids: vec![0.0; k * d],
            norms: vec![0.0; k],
        };
        c.recompute(points);
        c
    }

    /// Centroid `j`.
    #[inline(always)]
    pub fn centroid(&self, j: usize) -> &[f64] {
        &self.centroids[j * self.d..(j + 1) * self.d]
    }

    /// Counts, weights, sums and centroids afresh from the labels, summed
    /// over the rows in index order (so the bits depend on the labels
    /// alone): the incremental updates of [`Clusters::move_point`] never
    /// drift beyond one step.
    pub fn recompute<P: Points>(&mut self, points: &P) {
        let d = self.d;
        self.stats.clear();
        let mut buf = vec![0.0; d];
        for (i, &l) in self.stats.labels.iter().enumerate() {
            let w = points.weight(i);
            self.stats.counts[l] += 1;
            self.stats.weights[l] += w;
            let row = points.row(i, &mut buf);
            P::add_to(&row, w, &mut self.stats.sums[l * d..(l + 1) * d]);
        }
        for j in 0..self.k {
            self.update_centroid(j);
        }
    }

    fn update_centroid(&mut self, j: usize) {
        let d = self.d;
        let (sums, centroid) = (
            &self.stats.sums[j * d..(j + 1) * d],
            &mut self.centroids[j * d..(j + 1) * d],
        );
        // A cluster without weight has no mean (the centroid is then 0; no
        // cluster is left without weight); a sum of length 0 has no
        // direction and points along the first axis, as in the spherical
        // engine ([`direction_of_sum`]).
        let norm = match self.centre {
            Centre::Mean => {
                let divisor = self.stats.weights[j];
                self.sum_norms[j] = sums.iter().map(|v| v * v).sum::<f64>().sqrt();
                let mut norm = 0.0;
                for (c, s) in centroid.iter_mut().zip(sums) {
                    *c = if divisor > 0.0 { s / divisor } else { 0.0 };
                    norm += *c * *c;
                }
                norm
            }
            Centre::Direction => {
                self.sum_norms[j] = direction_of_sum(sums, centroid);
                centroid.iter().map(|c| c * c).sum()
            }
        };
        self.norms[j] = norm;
    }

    /// Cluster `j` as the gains read it.
    #[inline(always)]
    pub fn side(&self, j: usize) -> Side {
        Side {
            weight: self.stats.weights[j],
            norm: self.sum_norms[j],
        }
    }

    /// Moves row `i` to cluster `to`, updating both clusters' statistics.
    pub fn move_point<P: Points>(&mut self, points: &P, i: usize, to: usize, buf: &mut [f64]) {
        let from = self.stats.labels[i];
        let (d, w) = (self.d, points.weight(i));
        self.stats.labels[i] = to;
        self.stats.counts[from] -= 1;
        self.stats.counts[to] += 1;
        self.stats.weights[from] -= w;
        self.stats.weights[to] += w;
        let row = points.row(i, buf);
        P::add_to(&row, -w, &mut self.stats.sums[from * d..(from + 1) * d]);
        P::add_to(&row, w, &mut self.stats.sums[to * d..(to + 1) * d]);
        self.update_centroid(from);
        self.update_centroid(to);
    }

    /// Whether row `i` (weight `w`) may leave its cluster `r` by a
    /// transfer as far as weights go ([`may_leave`]).
    pub fn may_leave(&self, r: usize, w: f64) -> bool {
        self.stats.may_leave(r, w)
    }

    /// The squared distance of row `i` to centroid `j`.
    pub fn distance<P: Points>(&self, points: &P, i: usize, j: usize, buf: &mut [f64]) -> f64 {
        let row = points.row(i, buf);
        P::sq_dist_to(&row, self.centroid(j), self.norms[j])
    }

    /// The objective `G`: every row's share ([`Gains::loss`]) from its
    /// squared distance to its centroid, summed in index order.
    pub fn objective<P: Points, G: Gains>(&self, points: &P) -> f64 {
        let mut buf = vec![0.0; self.d];
        (0..self.stats.labels.len())
            .map(|i| {
                let l = self.stats.labels[i];
                let score = self.distance(points, i, l, &mut buf);
                G::loss(points.weight(i), score, self.side(l))
            })
            .sum()
    }

    /// The largest weight of a row of each cluster.
    pub fn heaviest<P: Points>(&self, points: &P) -> Vec<f64> {
        let mut most = vec![0.0f64; self.k];
        for (i, &l) in self.stats.labels.iter().enumerate() {
            most[l] = most[l].max(points.weight(i));
        }
        most
    }
}
