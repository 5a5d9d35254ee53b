//! A restart's start as labels (a random partition) or centroids (Forgy,
//! k-means++, given centroids) that the representation then assigns its
//! rows to: where [`Init`] is matched for sparse and unit rows, and the Forgy
//! draw every representation shares. Dense rows match it in `dense/init.rs`,
//! where the start becomes a partition through the accelerated assignment.

use crate::params::{Init, ValidParams};
use crate::rng::Xoshiro256PlusPlus;

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
