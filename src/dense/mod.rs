//! Dense rows as a [`Source`]: the data, which implementation computes the
//! steps ([`Engine`]), and per restart a [`Partition`] with the accelerated
//! kernels' [`Cache`].

pub(crate) mod accel;
pub(crate) mod init;
mod points;

use crate::data::{sq_dist, Data, Scalar};
use crate::dense::accel::lloyd::lloyd_iteration;
use crate::dense::accel::sweep::rounds::sweep_rounds;
use crate::dense::accel::{hartigan_sweep, Cache, Engine};
use crate::engine::constrained::SquaredEuclidean;
use crate::engine::move_rule::{improves_beyond_rounding, move_ratio, KMeans};
use crate::engine::partition::Partition;
use crate::engine::plus_plus::{kmeans_plus_plus_joint, plus_plus_among, sample_len, Draw};
use crate::engine::reference::Sweep;
use crate::engine::refine::{propose, SplitCache};
use crate::engine::rounds::decides_in_rounds;
use crate::engine::source::{objective_by_cluster, Descent, Representation, Reshape, Starts};
use crate::engine::stats::ClusterStats;
use crate::params::{Init, ValidParams};
use crate::rng::Xoshiro256PlusPlus;
use init::{initial_partition, nearest_labels};
use ndarray::Array2;
use rayon::prelude::*;
use std::sync::atomic::AtomicBool;

/// Dense rows and how their restarts are computed.
pub(crate) struct Dense<'a, T: Scalar> {
    /// The rows, in shifted coordinates.
    pub rows: Data<'a, T>,
    pub engine: Engine,
}

impl<'a, T: Scalar> Dense<'a, T> {
    /// `rows` fitted with `params`: the accelerated kernels where they apply
    /// (`accelerated`), spare threads inside a step when the restarts
    /// leave some idle, and sweeps in rounds where the problem is large
    /// enough for one restart to run alone.
    pub fn new(rows: Data<'a, T>, params: &ValidParams, accelerated: bool) -> Self {
        let spare_threads = crate::params::defaults::spare_threads(params);
        let rounds = decides_in_rounds(rows.n, params.k(), rows.d);
        Dense {
            rows,
            engine: Engine {
                accelerated,
                spare_threads,
                rounds,
            },
        }
    }
}

/// Points per parallel task of [`Starts::point_costs`] (fixed: each point's
/// cost is computed on its own, so the split changes no bit).
const COST_CHUNK: usize = 4096;

/// One restart's state on dense rows.
#[derive(Debug, Clone)]
pub(crate) struct DenseState {
    pub partition: Partition,
    pub cache: Cache,
}

impl DenseState {
    fn new(partition: Partition) -> Self {
        DenseState {
            partition,
            cache: Cache::default(),
        }
    }
}

impl<'a, T: Scalar> Representation for Dense<'a, T> {
    type State = DenseState;
    type Out = T;
    type Points = Data<'a, T>;
    type Gains = SquaredEuclidean;

    fn points(&self) -> &Data<'a, T> {
        &self.rows
    }

    fn stats(st: &DenseState) -> &ClusterStats {
        &st.partition.stats
    }

    fn finalize(&self, st: &DenseState) -> (Array2<T>, f64, Vec<f64>) {
        let (rows, p) = (&self.rows, &st.partition);
        let (k, d) = (p.k, rows.d);
        let centroids = Array2::from_shape_fn((k, d), |(j, c)| {
            T::from_f64(p.centroid(j)[c] + rows.shift[c])
        });
        let wide: Vec<f64> = centroids.iter().map(|v| v.to_f64()).collect();
        let mut row = vec![0.0; d];
        let (objective, per_cluster) = objective_by_cluster(&p.stats.labels, k, |i, l| {
            for (r, v) in row.iter_mut().zip(rows.row(i)) {
                *r = v.to_f64();
            }
            rows.weight(i) * sq_dist(&row, &wide[l * d..(l + 1) * d])
        });
        (centroids, objective, per_cluster)
    }
}

impl<'a, T: Scalar> Starts for Dense<'a, T> {
    fn initial_state(
        &self,
        params: &ValidParams,
        rng: &mut Xoshiro256PlusPlus,
        start: Option<Vec<f64>>,
        cancel: &AtomicBool,
    ) -> DenseState {
        // Every init but given centroids goes through the accelerated
        // k-means++ and partition of the dense engine.
        match start {
            Some(centroids) => {
                let labels = self.nearest_labels(centroids, params.k(), cancel);
                self.labelled_state(params.k(), labels)
            }
            None => DenseState::new(initial_partition(
                &self.rows,
                params,
                rng,
                self.engine,
                cancel,
            )),
        }
    }

    fn labelled_state(&self, k: usize, labels: Vec<usize>) -> DenseState {
        let spare = self.engine.spare_threads;
        DenseState::new(Partition::from_labels(&self.rows, k, labels, spare))
    }

    fn nearest_labels(&self, centroids: Vec<f64>, k: usize, cancel: &AtomicBool) -> Vec<usize> {
        nearest_labels(&self.rows, k, centroids, self.engine, cancel)
    }

    fn joint_starts(
        &self,
        params: &ValidParams,
        rngs: &mut [Xoshiro256PlusPlus],
        cancel: &AtomicBool,
    ) -> Option<Vec<Vec<f64>>> {
        // Every k-means++ pass reads every row; restarts share those reads
        // (a start on a sample reads its own rows).
        let (n, d) = (self.rows.n, self.rows.d);
        let shares = self.engine.accelerated
            && rngs.len() > 1
            && matches!(params.init(), Init::KMeansPlusPlus)
            && sample_len(n, params.k(), d).is_none();
        shares.then(|| kmeans_plus_plus_joint(&self.rows, params.k(), rngs, cancel))
    }

    fn plus_plus_rows(&self, draw: Draw<'_>) -> Vec<usize> {
        plus_plus_among(&self.rows, draw, true)
    }

    fn centroids(&self, st: &DenseState) -> Vec<f64> {
        st.partition.centroids.clone()
    }

    fn point_costs(&self, st: &DenseState) -> Vec<f64> {
        let (rows, p) = (&self.rows, &st.partition);
        let mut costs = vec![0.0; rows.n];
        costs.par_chunks_mut(COST_CHUNK).enumerate().for_each_init(
            || vec![0.0; rows.d],
            |row, (c, chunk)| {
                for (o, cost) in chunk.iter_mut().enumerate() {
                    let i = c * COST_CHUNK + o;
                    rows.load_shifted(i, row);
                    *cost = rows.weight(i) * sq_dist(row, p.centroid(p.stats.labels[i]));
                }
            },
        );
        costs
    }

    fn rows_as_centroids(&self, rows: &[usize]) -> Vec<f64> {
        self.rows.gather_shifted(rows)
    }
}

impl<'a, T: Scalar> Descent for Dense<'a, T> {
    /// The moves of one Hartigan sweep with acceptance factor `factor` in
    /// `order`, the statistics of the clusters touched left stale (the
    /// recomputation is [`Descent::refresh`]). Every accelerated kernel makes
    /// exactly the plain sweep's moves, with or without sample weights.
    fn sweep_moves(&self, st: &mut DenseState, order: &[usize], factor: f64) -> usize {
        let (rows, p) = (&self.rows, &mut st.partition);
        if self.engine.rounds {
            if self.engine.accelerated {
                sweep_rounds(p, Sweep::new(rows, order, factor), &mut st.cache)
            } else {
                crate::engine::reference::sweep_rounds(p, Sweep::new(rows, order, factor))
            }
        } else if self.engine.accelerated {
            let spare = self.engine.spare_threads;
            hartigan_sweep(p, Sweep::new(rows, order, factor), &mut st.cache, spare)
        } else {
            crate::engine::reference::sweep(p, Sweep::new(rows, order, factor))
        }
    }

    fn refresh(&self, st: &mut DenseState) {
        st.partition
            .recompute_stale(&self.rows, self.engine.spare_threads);
    }

    fn candidate_sweep(
        &self,
        st: &mut DenseState,
        order: &[usize],
        objective: f64,
    ) -> (usize, f64) {
        // Without the recomputation the clusters' costs are not at hand. A
        // cluster's cost is `Σ w·‖x‖² − ‖S‖²/W` over its members (`S` the
        // weighted sum of its rows, `W` its weight), and moves leave the
        // total of `w·‖x‖²` as it was: the objective falls by the rise of
        // `Σ ‖S‖²/W`, from the sums the moves kept.
        let explained = |p: &Partition| -> f64 {
            p.stats
                .sums
                .chunks_exact(p.d)
                .zip(&p.stats.weights)
                .filter(|(_, &w)| w > 0.0)
                .map(|(s, w)| s.iter().map(|v| v * v).sum::<f64>() / w)
                .sum()
        };
        let before = explained(&st.partition);
        let moved = self.sweep_moves(st, order, 1.0);
        (moved, objective - (explained(&st.partition) - before))
    }

    fn lloyd_iteration(&self, st: &mut DenseState) -> usize {
        let (rows, spare) = (&self.rows, self.engine.spare_threads);
        if self.engine.accelerated {
            lloyd_iteration(&mut st.partition, rows, &mut st.cache, spare)
        } else {
            crate::engine::reference::lloyd_iteration(&mut st.partition, rows, spare)
        }
    }

    fn objective(&self, st: &DenseState) -> f64 {
        st.partition.objective(&self.rows)
    }

    fn can_improve(&self, st: &DenseState, lloyd: bool) -> bool {
        // Distances are formed in shifted coordinates, where their rounding
        // error is at most a few ε·R² (R² the largest squared shifted row
        // norm) beyond the relative margin.
        let (rows, p) = (&self.rows, &st.partition);
        let abs_margin = 1e-16 * rows.max_sq_norm_shifted();
        let mut row = vec![0.0; rows.d];
        (0..rows.n).any(|i| {
            rows.load_shifted(i, &mut row);
            let (r, w) = (p.stats.labels[i], rows.weight(i));
            improves_beyond_rounding(
                &KMeans::new(&p.stats.counts, &p.stats.weights),
                r,
                w,
                lloyd,
                abs_margin,
                |j| sq_dist(&row, p.centroid(j)),
            )
        })
    }

    fn expect_moved_share(&self, st: &mut DenseState, share: f64) {
        st.cache.expect_moved_share(share);
    }

    fn move_ratios(&self, st: &DenseState, sample: &[usize]) -> Vec<f64> {
        let (rows, p) = (&self.rows, &st.partition);
        sample
            .par_iter()
            .map_init(
                || vec![0.0; rows.d],
                |row, &i| {
                    rows.load_shifted(i, row);
                    let (r, w) = (p.stats.labels[i], rows.weight(i));
                    move_ratio(&KMeans::new(&p.stats.counts, &p.stats.weights), r, w, |j| {
                        sq_dist(row, p.centroid(j))
                    })
                },
            )
            .collect()
    }

    fn move_ratios_below(&self, st: &DenseState, limit: f64) -> Vec<f64> {
        if !self.engine.accelerated {
            let all: Vec<usize> = (0..self.rows.n).collect();
            return self.move_ratios(st, &all);
        }
        crate::dense::accel::ratios::move_ratios_below(&st.partition, &self.rows, limit)
    }
}

impl<'a, T: Scalar> Reshape for Dense<'a, T> {
    fn merge_split(
        &self,
        st: &DenseState,
        splits: &mut SplitCache,
        batch: bool,
        below: Option<f64>,
    ) -> Option<(DenseState, usize)> {
        let spare = self.engine.spare_threads;
        let (partition, moves) = propose(&st.partition, &self.rows, splits, batch, spare)?;
        // A rejected candidate needs no copy of the accelerated kernels'
        // cache (bounds of every point) nor their re-anchoring.
        if below.is_some_and(|b| partition.objective(&self.rows) >= b) {
            return None;
        }
        let mut cache = st.cache.clone();
        cache.relabelled(&partition.stats.labels, &partition.centroids, &self.rows);
        Some((DenseState { partition, cache }, moves))
    }

    fn split(&self, st: &DenseState, splits: &mut SplitCache) -> (DenseState, Option<usize>) {
        // The split changes `k`: the accelerated kernels' cache starts afresh.
        let spare = self.engine.spare_threads;
        let (partition, split) =
            crate::engine::refine::split(&st.partition, &self.rows, splits, spare);
        (DenseState::new(partition), split)
    }

    fn merge(&self, st: &DenseState, rank: usize) -> Option<DenseState> {
        let p = &st.partition;
        let labels = crate::engine::refine::merge_labels(
            &p.stats.labels,
            &p.stats.weights,
            &p.centroids,
            rank,
        )?;
        Some(self.labelled_state(p.k - 1, labels))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::params::Params;

    /// With `below`, a merge-split candidate whose objective is not below it
    /// is dropped; a bar above the candidate keeps it.
    #[test]
    fn merge_split_drops_a_candidate_not_below_the_bar() {
        let x = crate::testing::testdata::blobs(600, 3, 6, 2);
        let p = Params::new(6).check().unwrap();
        let dense = Dense::new(Data::new(x.view(), None), &p, true);
        // One blob per cluster: every merge-split move raises the objective.
        let fit = Params::new(6).seed(1).check().unwrap().fit(&x).unwrap();
        let st = dense.labelled_state(6, fit.labels.to_vec());
        let current = dense.objective(&st);
        let propose = |below| dense.merge_split(&st, &mut SplitCache::default(), false, below);
        let (candidate, moves) = propose(None).unwrap();
        assert_eq!(moves, 1);
        let raised = dense.objective(&candidate);
        assert!(raised > current, "{raised} <= {current}");
        assert!(propose(Some(current)).is_none());
        let (kept, _) = propose(Some(raised * 1.01)).unwrap();
        assert_eq!(
            Dense::<f64>::labels(&kept),
            Dense::<f64>::labels(&candidate)
        );
    }
}
