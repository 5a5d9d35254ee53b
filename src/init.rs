//! Initial partitions. Every initialisation ends as a [`Partition`] with no
//! empty cluster; centroid-based ones (Forgy, k-means++, given centroids) are
//! turned into a partition by one nearest-centroid assignment.

use crate::data::{sq_dist, Data, Scalar};
use crate::params::{Init, ValidParams};
use crate::rng::Xoshiro256PlusPlus;
use crate::state::Partition;
use rayon::prelude::*;

/// Which implementation runs: the accelerated one, or the plain reference
/// it must equal bit for bit (kept for the equivalence tests).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Engine {
    /// Screened, blocked, parallel where it cannot change a result.
    Fast,
    /// The plain definitions.
    #[cfg_attr(not(test), allow(dead_code))]
    Reference,
}

/// The starting partition of one restart, drawn from its own init stream.
pub(crate) fn initial_partition<T: Scalar>(
    data: &Data<'_, T>,
    params: &ValidParams,
    rng: &mut Xoshiro256PlusPlus,
    engine: Engine,
) -> Partition {
    let k = params.k();
    match params.init() {
        Init::RandomPartition => {
            let labels = (0..data.n).map(|_| rng.below(k)).collect();
            Partition::from_labels(data, k, labels)
        }
        Init::Forgy => {
            let centroids = gather_shifted(data, &forgy_indices(data.n, k, rng));
            assign_to_centroids(data, k, centroids, engine)
        }
        Init::KMeansPlusPlus => {
            // The accelerated k-means++ covers unit weights only.
            let centroids = match engine {
                Engine::Fast if !data.is_weighted() => kmeans_plus_plus(data, k, rng),
                _ => kmeans_plus_plus_reference(data, k, rng),
            };
            assign_to_centroids(data, k, centroids, engine)
        }
        Init::Centroids(c) => {
            let mut centroids = Vec::with_capacity(k * data.d);
            for row in c.rows() {
                centroids.extend(row.iter().zip(&data.shift).map(|(v, s)| v - s));
            }
            assign_to_centroids(data, k, centroids, engine)
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
fn assign_to_centroids<T: Scalar>(
    data: &Data<'_, T>,
    k: usize,
    centroids: Vec<f64>,
    engine: Engine,
) -> Partition {
    let labels = match engine {
        Engine::Fast => crate::fast::assign_nearest(data, &centroids, k, None),
        Engine::Reference => {
            let probe = Partition::with_centroids(k, data.d, centroids);
            let mut buf = vec![0.0; data.d];
            (0..data.n)
                .map(|i| {
                    data.load_shifted(i, &mut buf);
                    probe.nearest(&buf, None)
                })
                .collect()
        }
    };
    Partition::from_labels(data, k, labels)
}

/// Points per parallel task in k-means++. Fixed; nothing depends on it.
const PP_CHUNK: usize = 4096;

/// Trials evaluated together (k up to about 2.4·10⁵; beyond, the plain
/// definition runs).
const LANES: usize = crate::fast::PP_LANES;

/// Greedy k-means++ with exactly the numbers of
/// [`kmeans_plus_plus_reference`], computed faster:
///
/// * the trial indices of a centre depend only on the random stream and on
///   the potential before that centre, so they are drawn first, as before,
///   and all trials are evaluated in one pass over the data, side by side in
///   the lanes of a kernel with exactly [`sq_dist`]'s summation order;
/// * that pass runs in parallel over chunks of points and keeps only the
///   distances strictly below a point's `closest` (the others leave the
///   min unchanged);
/// * every potential is then summed sequentially in index order, so it has
///   the reference's bits, and the best trial wins as before.
fn kmeans_plus_plus<T: Scalar>(
    data: &Data<'_, T>,
    k: usize,
    rng: &mut Xoshiro256PlusPlus,
) -> Vec<f64> {
    let (n, d) = (data.n, data.d);
    let max_abs = data.max_abs_shifted();
    let trials = 2 + (k as f64).ln().floor() as usize;
    if trials > LANES || n > u32::MAX as usize || max_abs > 1e100 {
        // More trials than lanes (k above about 2.4·10⁵), or potentials
        // that could overflow: the plain definition.
        return kmeans_plus_plus_reference(data, k, rng);
    }
    let mut centroids = vec![0.0; k * d];
    let first = rng.below(n);
    data.load_shifted(first, &mut centroids[..d]);
    let mut closest = vec![0.0; n];
    closest
        .par_chunks_mut(PP_CHUNK)
        .enumerate()
        .for_each(|(c, out)| {
            let mut buf = vec![0.0; d];
            for (o, v) in out.iter_mut().enumerate() {
                data.load_shifted(c * PP_CHUNK + o, &mut buf);
                *v = sq_dist(&buf, &centroids[..d]);
            }
        });
    let mut cumulative = vec![0.0; n];
    let mut cands = vec![0.0; trials * d];
    let mut idxs = vec![0usize; trials];
    let lanes = if trials <= 8 { 8 } else { LANES };
    let mut ct = vec![0.0; d * lanes];
    let mut rows = vec![0.0f64; lanes * PP_CHUNK];
    for c in 1..k {
        let mut pot = 0.0;
        for (cum, v) in cumulative.iter_mut().zip(&closest) {
            pot += v;
            *cum = pot;
        }
        for idx in idxs.iter_mut() {
            *idx = if pot > 0.0 {
                let target = rng.unit_f64() * pot;
                cumulative.partition_point(|&cw| cw <= target).min(n - 1)
            } else {
                rng.below(n)
            };
        }
        for (t, &idx) in idxs.iter().enumerate() {
            data.load_shifted(idx, &mut cands[t * d..(t + 1) * d]);
            for (cc, &v) in cands[t * d..(t + 1) * d].iter().enumerate() {
                ct[cc * lanes + t] = v;
            }
        }
        let tr = crate::fast::PlusPlusTrials {
            ct: &ct,
            lanes,
            trials,
            closest: &closest,
        };
        let chunks: Vec<Vec<Vec<(u32, f64)>>> = (0..n.div_ceil(PP_CHUNK))
            .into_par_iter()
            .map(|ch| {
                let start = ch * PP_CHUNK;
                crate::fast::plus_plus_changes(data, &tr, start, PP_CHUNK.min(n - start))
            })
            .collect();
        // The reference's potentials, Σ_i min(dist, closest) in index order,
        // one independent running sum per trial (lane), a chunk at a time.
        let sums = if lanes == 8 {
            potentials::<8>(&closest, &chunks, &mut rows, trials)
        } else {
            potentials::<LANES>(&closest, &chunks, &mut rows, trials)
        };
        let mut best_pot = f64::INFINITY;
        let mut best_t = usize::MAX;
        for (t, &cand_pot) in sums.iter().enumerate() {
            if cand_pot < best_pot {
                best_pot = cand_pot;
                best_t = t;
            }
        }
        let best_t = best_t.min(trials - 1);
        centroids[c * d..(c + 1) * d].copy_from_slice(&cands[best_t * d..(best_t + 1) * d]);
        for &(i, v) in chunks.iter().flat_map(|ch| ch[best_t].iter()) {
            closest[i as usize] = v;
        }
    }
    centroids
}

/// Every trial's potential `Σ_i min(dist_t(i), closest_i)`, summed in index
/// order exactly as the reference does, the trials side by side in `L` lanes.
fn potentials<const L: usize>(
    closest: &[f64],
    chunks: &[Vec<Vec<(u32, f64)>>],
    rows: &mut [f64],
    trials: usize,
) -> Vec<f64> {
    let n = closest.len();
    let mut sums = [0.0f64; L];
    for (ch, changes) in chunks.iter().enumerate() {
        let start = ch * PP_CHUNK;
        let cl = &closest[start..(start + PP_CHUNK).min(n)];
        let m = cl.len();
        for (row, &v) in rows.chunks_exact_mut(L).zip(cl) {
            row.iter_mut().for_each(|r| *r = v);
        }
        for (t, list) in changes.iter().enumerate().take(L) {
            for &(i, v) in list {
                rows[(i as usize - start) * L + t] = v;
            }
        }
        for row in rows.chunks_exact(L).take(m) {
            for (acc, &v) in sums.iter_mut().zip(row) {
                *acc += v;
            }
        }
    }
    sums[..trials.min(L)].to_vec()
}

/// Greedy k-means++ on dense rows, the plain definition (weights allowed):
/// the chosen points, shifted. [`kmeans_plus_plus`] computes the same
/// numbers faster for unweighted data.
fn kmeans_plus_plus_reference<T: Scalar>(
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
