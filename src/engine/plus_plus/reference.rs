//! Greedy k-means++, the plain definition: for any representation and
//! with weights ([`kmeans_plus_plus_indices`]), and on dense rows.

use super::PP_CHUNK;
use crate::data::{sq_dist, Data, Scalar};
use crate::rng::Xoshiro256PlusPlus;
use std::sync::atomic::{AtomicBool, Ordering};

/// The first centre: uniformly, or with weights proportionally to weight
/// (the plain definition's draw and use of the random stream; it serves
/// both computations).
pub(super) fn first_centre(
    n: usize,
    weighted: bool,
    weight: impl Fn(usize) -> f64,
    rng: &mut Xoshiro256PlusPlus,
) -> usize {
    if !weighted {
        return rng.below(n);
    }
    let mut total = 0.0;
    let cumulative: Vec<f64> = (0..n)
        .map(|i| {
            total += weight(i);
            total
        })
        .collect();
    let target = rng.unit_f64() * total;
    cumulative.partition_point(|&cw| cw <= target).min(n - 1)
}

/// Greedy k-means++ on dense rows, the plain definition (weights allowed):
/// the rows chosen, in the order chosen. [`super::plus_plus_among`]
/// computes the same numbers faster.
pub(super) fn kmeans_plus_plus_reference_rows<T: Scalar>(
    data: &Data<'_, T>,
    k: usize,
    rng: &mut Xoshiro256PlusPlus,
    cancel: &AtomicBool,
) -> Vec<usize> {
    let mut cand = vec![0.0; data.d];
    let mut buf = vec![0.0; data.d];
    kmeans_plus_plus_indices(
        data.n,
        k,
        data.is_weighted(),
        |i| data.weight(i),
        rng,
        cancel,
        |c, out| {
            data.load_shifted(c, &mut cand);
            for (block, chunk) in out.chunks_mut(PP_CHUNK).enumerate() {
                if cancel.load(Ordering::Relaxed) {
                    return;
                }
                for (o, v) in chunk.iter_mut().enumerate() {
                    data.load_shifted(block * PP_CHUNK + o, &mut buf);
                    *v = sq_dist(&buf, &cand);
                }
            }
        },
    )
}

/// Greedy k-means++ (Arthur & Vassilvitskii, with the `2 + ⌊ln k⌋` local
/// trials scikit-learn uses): each new centre is the best of several
/// D²-sampled candidates by the potential it leaves. With sample weights the
/// first centre is drawn proportionally to weight and the rest to `w·D²`.
/// `dists_to(c, out)` writes the squared distance from every point to point
/// `c`; the representation (dense or sparse) only enters there. Once
/// `cancel` is set (`dists_to` may poll it too and leave `out` unfinished)
/// it returns early, with fewer than `k` indices.
pub(crate) fn kmeans_plus_plus_indices(
    n: usize,
    k: usize,
    weighted: bool,
    weight: impl Fn(usize) -> f64,
    rng: &mut Xoshiro256PlusPlus,
    cancel: &AtomicBool,
    mut dists_to: impl FnMut(usize, &mut [f64]),
) -> Vec<usize> {
    let trials = 2 + (k as f64).ln().floor() as usize;
    let first = first_centre(n, weighted, &weight, rng);
    let mut chosen = Vec::with_capacity(k);
    chosen.push(first);
    let mut closest = vec![0.0; n];
    dists_to(first, &mut closest);
    let mut candidate_d2 = vec![0.0; n];
    let mut best_d2 = vec![0.0; n];
    let mut cumulative = vec![0.0; n];
    for _ in 1..k {
        if cancel.load(Ordering::Relaxed) {
            return chosen;
        }
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
            if cancel.load(Ordering::Relaxed) {
                return chosen;
            }
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
