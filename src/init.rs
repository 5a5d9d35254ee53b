//! Initial partitions: the one place [`Init`] is matched. Every
//! initialisation ends as a [`Partition`] with no empty cluster;
//! centroid-based ones (Forgy, k-means++, given centroids) are turned into a
//! partition by one nearest-centroid assignment.

use crate::accel::Engine;
use crate::data::{Data, Scalar};
use crate::params::{Init, ValidParams};
use crate::partition::Partition;
use crate::plus_plus;
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
    let labels = if engine.accelerated {
        crate::accel::lloyd::assign_nearest(data, &centroids, k, None, cancel)
    } else {
        let probe = Partition::with_centroids(k, data.d, centroids);
        crate::reference::assign_nearest(data, &probe, None)
    };
    Partition::from_labels(data, k, labels, engine.spare_threads)
}

/// How a restart of sparse or unit rows begins: labels, or centroids that
/// each row is then assigned to the nearest of.
pub(crate) enum Start {
    /// A random partition, or a placeholder once `cancel` cut k-means++
    /// short (never used: the restart sees the flag and stops).
    Labels(Vec<usize>),
    /// `k × d` centroids, row-major.
    Centroids(Vec<f64>),
}

/// The start of one restart for a representation other than dense rows,
/// drawing from `rng` exactly as [`initial_partition`] does: a child's
/// `given` centroids, else `params.init()`; `plus_plus` gives the greedy
/// k-means++ rows (fewer than `k` once cancelled), `rows_as_centroids`
/// turns rows into centroids in the representation's coordinates.
pub(crate) fn start(
    params: &ValidParams,
    n: usize,
    given: Option<Vec<f64>>,
    rng: &mut Xoshiro256PlusPlus,
    plus_plus: impl FnOnce(&mut Xoshiro256PlusPlus) -> Vec<usize>,
    rows_as_centroids: impl FnOnce(&[usize]) -> Vec<f64>,
) -> Start {
    let k = params.k();
    if let Some(centroids) = given {
        return Start::Centroids(centroids);
    }
    match params.init() {
        Init::RandomPartition => Start::Labels((0..n).map(|_| rng.below(k)).collect()),
        Init::Forgy => Start::Centroids(rows_as_centroids(&forgy_indices(n, k, rng))),
        Init::KMeansPlusPlus => {
            let rows = plus_plus(rng);
            if rows.len() < k {
                Start::Labels((0..n).map(|i| i % k).collect())
            } else {
                Start::Centroids(rows_as_centroids(&rows))
            }
        }
        Init::Centroids(c) => Start::Centroids(c.iter().copied().collect()),
    }
}

/// Forgy: `k` distinct random indices (partial Fisher–Yates).
pub(crate) fn forgy_indices(n: usize, k: usize, rng: &mut Xoshiro256PlusPlus) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..n).collect();
    for i in 0..k {
        let j = i + rng.below(n - i);
        idx.swap(i, j);
    }
    idx.truncate(k);
    idx
}
