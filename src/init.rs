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
            // Partial Fisher–Yates: the first k entries are k distinct indices.
            let mut idx: Vec<usize> = (0..data.n).collect();
            for i in 0..k {
                let j = i + rng.below(data.n - i);
                idx.swap(i, j);
            }
            let centroids = gather_shifted(data, &idx[..k]);
            assign_to_centroids(data, k, centroids, engine)
        }
        Init::KMeansPlusPlus => {
            let centroids = match engine {
                Engine::Fast => kmeans_plus_plus(data, k, rng),
                Engine::Reference => kmeans_plus_plus_reference(data, k, rng),
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
            let probe = Partition {
                k,
                d: data.d,
                labels: Vec::new(),
                counts: Vec::new(),
                sums: Vec::new(),
                centroids,
            };
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

/// Greedy k-means++ with exactly the numbers of
/// [`kmeans_plus_plus_reference`], computed faster:
///
/// * the trial indices of a centre depend only on the random stream and on
///   the potential before that centre, so they are drawn first, as before;
/// * a point's distance to a candidate `y` is needed only when it can be
///   below the point's current `closest` (the min keeps `closest` otherwise).
///   With `a` the centre that gave `closest`, the triangle inequality gives
///   `‖x − y‖ ≥ ‖c_a − y‖ − ‖x − c_a‖`, so when `sq_dist(c_a, y) ≥
///   4(1 + 10⁻⁶)·closest` the exact distance is certainly not below
///   `closest` (the 10⁻⁶ margin dwarfs the kernel's relative rounding,
///   at most `(d+2)·2⁻⁵³`) and is not computed;
/// * the per-point minima are computed in parallel (each is the same exact
///   value whoever computes it) and summed sequentially in index order, so
///   every potential has the reference's bits.
fn kmeans_plus_plus<T: Scalar>(
    data: &Data<'_, T>,
    k: usize,
    rng: &mut Xoshiro256PlusPlus,
) -> Vec<f64> {
    let (n, d) = (data.n, data.d);
    if k > u32::MAX as usize || data.max_abs_shifted() > 1e100 {
        // Potentials could overflow; keep the plain definition's exact
        // behaviour rather than reason about infinities.
        return kmeans_plus_plus_reference(data, k, rng);
    }
    let trials = 2 + (k as f64).ln().floor() as usize;
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
    // The centre each point's `closest` was measured to.
    let mut near = vec![0u32; n];
    let mut candidate_d2 = vec![0.0; n];
    let mut best_d2 = vec![0.0; n];
    let mut cumulative = vec![0.0; n];
    let mut cands = vec![0.0; trials * d];
    let mut idxs = vec![0usize; trials];
    let mut to_cand = vec![0.0; k];
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
        }
        let mut best_pot = f64::INFINITY;
        let mut best_t = usize::MAX;
        for t in 0..trials {
            let cand = &cands[t * d..(t + 1) * d];
            for (a, tc) in to_cand.iter_mut().enumerate().take(c) {
                *tc = sq_dist(&centroids[a * d..(a + 1) * d], cand);
            }
            let to_cand = &to_cand[..c];
            candidate_d2
                .par_chunks_mut(PP_CHUNK)
                .zip(closest.par_chunks(PP_CHUNK))
                .zip(near.par_chunks(PP_CHUNK))
                .enumerate()
                .for_each(|(ch, ((out, cl), nr))| {
                    let mut buf = vec![0.0; d];
                    for (o, ((cd, &cl), &a)) in out.iter_mut().zip(cl).zip(nr).enumerate() {
                        let far =
                            cl == 0.0 || (cl >= 1e-280 && to_cand[a as usize] >= 4.000_004 * cl);
                        *cd = if far {
                            cl
                        } else {
                            data.load_shifted(ch * PP_CHUNK + o, &mut buf);
                            sq_dist(&buf, cand).min(cl)
                        };
                    }
                });
            let mut cand_pot = 0.0;
            for cd in &candidate_d2 {
                cand_pot += *cd;
            }
            if cand_pot < best_pot {
                best_pot = cand_pot;
                best_t = t;
                std::mem::swap(&mut best_d2, &mut candidate_d2);
            }
        }
        let best_t = best_t.min(trials - 1);
        centroids[c * d..(c + 1) * d].copy_from_slice(&cands[best_t * d..(best_t + 1) * d]);
        for ((a, &new), &old) in near.iter_mut().zip(&best_d2).zip(&closest) {
            if new < old {
                *a = c as u32;
            }
        }
        std::mem::swap(&mut closest, &mut best_d2);
    }
    centroids
}

/// Greedy k-means++ (Arthur & Vassilvitskii, with the `2 + ⌊ln k⌋` local
/// trials scikit-learn uses): each new centre is the best of several
/// D²-sampled candidates by the potential it leaves. The plain definition;
/// [`kmeans_plus_plus`] computes the same numbers faster.
fn kmeans_plus_plus_reference<T: Scalar>(
    data: &Data<'_, T>,
    k: usize,
    rng: &mut Xoshiro256PlusPlus,
) -> Vec<f64> {
    let (n, d) = (data.n, data.d);
    let trials = 2 + (k as f64).ln().floor() as usize;
    let mut centroids = vec![0.0; k * d];
    let mut buf = vec![0.0; d];
    let first = rng.below(n);
    data.load_shifted(first, &mut centroids[..d]);
    let mut closest: Vec<f64> = (0..n)
        .map(|i| {
            data.load_shifted(i, &mut buf);
            sq_dist(&buf, &centroids[..d])
        })
        .collect();
    let mut candidate_d2 = vec![0.0; n];
    let mut best_d2 = vec![0.0; n];
    let mut cumulative = vec![0.0; n];
    let mut cand = vec![0.0; d];
    for c in 1..k {
        let mut pot = 0.0;
        for (cum, v) in cumulative.iter_mut().zip(&closest) {
            pot += v;
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
            data.load_shifted(idx, &mut cand);
            let mut cand_pot = 0.0;
            for (i, (cd, cl)) in candidate_d2.iter_mut().zip(&closest).enumerate() {
                data.load_shifted(i, &mut buf);
                *cd = sq_dist(&buf, &cand).min(*cl);
                cand_pot += *cd;
            }
            if cand_pot < best_pot {
                best_pot = cand_pot;
                best_idx = idx;
                std::mem::swap(&mut best_d2, &mut candidate_d2);
            }
        }
        data.load_shifted(best_idx, &mut centroids[c * d..(c + 1) * d]);
        std::mem::swap(&mut closest, &mut best_d2);
    }
    centroids
}
