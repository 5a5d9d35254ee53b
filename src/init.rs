//! Initial partitions. Every initialisation ends as a [`Partition`] with no
//! empty cluster; centroid-based ones (Forgy, k-means++, given centroids) are
//! turned into a partition by one nearest-centroid assignment.

use crate::data::{sq_dist, Data, Scalar};
use crate::params::{Init, ValidParams};
use crate::rng::Xoshiro256PlusPlus;
use crate::state::Partition;

/// The starting partition of one restart, drawn from its own init stream.
pub(crate) fn initial_partition<T: Scalar>(
    data: &Data<'_, T>,
    params: &ValidParams,
    rng: &mut Xoshiro256PlusPlus,
) -> Partition {
    let k = params.k();
    match params.init() {
        Init::RandomPartition => {
            let labels = (0..data.n).map(|_| rng.below(k)).collect();
            Partition::from_labels(data, k, labels)
        }
        Init::Forgy => {
            let centroids = gather_shifted(data, &forgy_indices(data.n, k, rng));
            assign_to_centroids(data, k, centroids)
        }
        Init::KMeansPlusPlus => {
            let centroids = kmeans_plus_plus(data, k, rng);
            assign_to_centroids(data, k, centroids)
        }
        Init::Centroids(c) => {
            let mut centroids = Vec::with_capacity(k * data.d);
            for row in c.rows() {
                centroids.extend(row.iter().zip(&data.shift).map(|(v, s)| v - s));
            }
            assign_to_centroids(data, k, centroids)
        }
    }
}

fn gather_shifted<T: Scalar>(data: &Data<'_, T>, idx: &[usize]) -> Vec<f64> {
    let mut out = vec![0.0; idx.len() * data.d];
    for (chunk, &i) in out.chunks_exact_mut(data.d).zip(idx) {
        data.load_shifted(i, chunk);
    }
    out
}

/// Nearest-centroid labels (ties to the lowest index), then the partition.
fn assign_to_centroids<T: Scalar>(data: &Data<'_, T>, k: usize, centroids: Vec<f64>) -> Partition {
    let probe = Partition {
        k,
        d: data.d,
        labels: Vec::new(),
        counts: Vec::new(),
        weights: Vec::new(),
        sums: Vec::new(),
        centroids,
    };
    let mut buf = vec![0.0; data.d];
    let labels = (0..data.n)
        .map(|i| {
            data.load_shifted(i, &mut buf);
            probe.nearest(&buf, None)
        })
        .collect();
    Partition::from_labels(data, k, labels)
}

/// Greedy k-means++ on dense rows: the chosen points, shifted.
fn kmeans_plus_plus<T: Scalar>(
    data: &Data<'_, T>,
    k: usize,
    rng: &mut Xoshiro256PlusPlus,
) -> Vec<f64> {
    let mut cand = vec![0.0; data.d];
    let mut buf = vec![0.0; data.d];
    let chosen = kmeans_plus_plus_indices(
        data.n,
        k,
        data.is_weighted(),
        |i| data.weight(i),
        rng,
        |c, out| {
            data.load_shifted(c, &mut cand);
            for (i, o) in out.iter_mut().enumerate() {
                data.load_shifted(i, &mut buf);
                *o = sq_dist(&buf, &cand);
            }
        },
    );
    gather_shifted(data, &chosen)
}

/// Greedy k-means++ (Arthur & Vassilvitskii, with the `2 + ⌊ln k⌋` local
/// trials scikit-learn uses): each new centre is the best of several
/// D²-sampled candidates by the potential it leaves. With sample weights the
/// first centre is drawn proportionally to weight and the rest to `w·D²`.
/// `dists_to(c, out)` writes the squared distance from every point to point
/// `c`; the representation (dense or sparse) only enters there.
pub(crate) fn kmeans_plus_plus_indices(
    n: usize,
    k: usize,
    weighted: bool,
    weight: impl Fn(usize) -> f64,
    rng: &mut Xoshiro256PlusPlus,
    mut dists_to: impl FnMut(usize, &mut [f64]),
) -> Vec<usize> {
    let trials = 2 + (k as f64).ln().floor() as usize;
    let first = if weighted {
        let mut total = 0.0;
        let cumulative: Vec<f64> = (0..n)
            .map(|i| {
                total += weight(i);
                total
            })
            .collect();
        let target = rng.unit_f64() * total;
        cumulative.partition_point(|&cw| cw <= target).min(n - 1)
    } else {
        rng.below(n)
    };
    let mut chosen = Vec::with_capacity(k);
    chosen.push(first);
    let mut closest = vec![0.0; n];
    dists_to(first, &mut closest);
    let mut candidate_d2 = vec![0.0; n];
    let mut best_d2 = vec![0.0; n];
    let mut cumulative = vec![0.0; n];
    for _ in 1..k {
        let mut pot = 0.0;
        for (i, (cum, v)) in cumulative.iter_mut().zip(&closest).enumerate() {
            pot += weight(i) * v;
            *cum = pot;
        }
        let mut best_pot = f64::INFINITY;
        let mut best_idx = 0;
        for _ in 0..trials {
            let idx = if pot > 0.0 {
                let target = rng.unit_f64() * pot;
                // First index whose cumulative weight exceeds the target;
                // points with zero weight can never be picked.
                cumulative.partition_point(|&cw| cw <= target).min(n - 1)
            } else {
                // Fewer distinct points than k: any point will do.
                rng.below(n)
            };
            dists_to(idx, &mut candidate_d2);
            let mut cand_pot = 0.0;
            for (i, (cd, cl)) in candidate_d2.iter_mut().zip(&closest).enumerate() {
                *cd = cd.min(*cl);
                cand_pot += weight(i) * *cd;
            }
            if cand_pot < best_pot {
                best_pot = cand_pot;
                best_idx = idx;
                std::mem::swap(&mut best_d2, &mut candidate_d2);
            }
        }
        chosen.push(best_idx);
        std::mem::swap(&mut closest, &mut best_d2);
    }
    chosen
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
