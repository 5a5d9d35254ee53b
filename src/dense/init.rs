//! Initial partitions of dense rows: every initialisation ends as a
//! [`Partition`] with no empty cluster; centroid-based ones (Forgy,
//! k-means++, given centroids) are turned into a partition by one
//! nearest-centroid assignment.

use super::accel::Engine;
use crate::data::{Data, Scalar};
use crate::engine::init::forgy_indices;
use crate::engine::partition::Partition;
use crate::engine::plus_plus;
use crate::params::{Init, ValidParams};
use crate::rng::Xoshiro256PlusPlus;
use std::sync::atomic::{AtomicBool, Ordering};

/// The starting partition of one restart, drawn from its own init stream.
/// Once `cancel` is set, a k-means++ start stops early and the partition
/// returned is a placeholder (the caller checks the flag).
pub(crate) fn initial_partition<T: Scalar>(
    data: &Data<'_, T>,
    params: &ValidParams,
    rng: &mut Xoshiro256PlusPlus,
    engine: Engine,
    cancel: &AtomicBool,
) -> Partition {
    let k = params.k();
    match params.init() {
        Init::RandomPartition => {
            let labels = (0..data.n).map(|_| rng.below(k)).collect();
            Partition::from_labels(data, k, labels, engine.spare_threads)
        }
        Init::Forgy => {
            let centroids = data.gather_shifted(&forgy_indices(data.n, k, rng));
            assign_to_centroids(data, k, centroids, engine, cancel)
        }
        Init::KMeansPlusPlus => {
            let centroids = plus_plus::start(data, k, rng, engine.accelerated, cancel);
            if cancel.load(Ordering::Relaxed) {
                // Fewer than k centres: never assigned, never used.
                let labels = (0..data.n).map(|i| i % k).collect();
                return Partition::from_labels(data, k, labels, engine.spare_threads);
            }
            assign_to_centroids(data, k, centroids, engine, cancel)
        }
        Init::Centroids(c) => {
            let mut centroids = Vec::with_capacity(k * data.d);
            for row in c.rows() {
                centroids.extend(row.iter().zip(&data.shift).map(|(v, s)| v - s));
            }
            assign_to_centroids(data, k, centroids, engine, cancel)
        }
    }
}

/// Nearest-centroid labels (ties to the lowest index), then the partition.
/// This one pass over `n × k` distances is as long as a sweep, so the
/// accelerated pass polls `cancel`; once it is set, the labels are left
/// unfinished (still valid indices) and the restart, which checks the flag
/// before its first sweep, ends as interrupted without using them.
pub(crate) fn assign_to_centroids<T: Scalar>(
    data: &Data<'_, T>,
    k: usize,
    centroids: Vec<f64>,
    engine: Engine,
    cancel: &AtomicBool,
) -> Partition {
    let labels = nearest_labels(data, k, centroids, engine, cancel);
    Partition::from_labels(data, k, labels, engine.spare_threads)
}

/// The label of each row's nearest of the `k` shifted `centroids` (ties to
/// the lowest index), by the engine's pass; polls `cancel` as
/// [`assign_to_centroids`] says.
pub(crate) fn nearest_labels<T: Scalar>(
    data: &Data<'_, T>,
    k: usize,
    centroids: Vec<f64>,
    engine: Engine,
    cancel: &AtomicBool,
) -> Vec<usize> {
    if engine.accelerated {
        crate::dense::accel::lloyd::assign_nearest(data, &centroids, k, None, cancel)
    } else {
        let probe = Partition::with_centroids(k, data.d, centroids);
        crate::engine::reference::assign_nearest(data, &probe, None)
    }
}
