//! The two transitions of the state machine: one Hartigan sweep (with an
//! acceptance factor, which makes it a Smartigan sweep) and one Lloyd
//! iteration.

use crate::data::{sq_dist, Data, Scalar};
use crate::state::Partition;

/// Transfer cost weight `n/(n+1)` for joining a cluster of size `n`
/// (the objective rises by `n/(n+1)·‖x−μ‖²` when x joins).
#[inline(always)]
pub(crate) fn join_weight(n: usize) -> f64 {
    let n = n as f64;
    n / (n + 1.0)
}

/// Removal gain weight `n/(n−1)` for leaving a cluster of size `n ≥ 2`
/// (the objective falls by `n/(n−1)·‖x−μ‖²` when x leaves).
#[inline(always)]
pub(crate) fn leave_weight(n: usize) -> f64 {
    let n = n as f64;
    n / (n - 1.0)
}

/// The decision for one point: `Some(j)` if x (in cluster `r`) moves to `j`.
///
/// Follows the paper's pseudocode: skip singletons; find the `j ≠ r`
/// minimising `n_j/(n_j+1)·‖x−μ_j‖²` (ties to the lowest `j`); move when that
/// is strictly below `factor·n_r/(n_r−1)·‖x−μ_r‖²`. Strictness matters: with
/// `factor = 1` every move strictly lowers the objective, so Hartigan cannot
/// cycle. The products are evaluated exactly in this order
/// (`(factor·leave_weight)·dist` and `join_weight·dist`); faster kernels must
/// reproduce the same decisions.
#[inline]
pub(crate) fn best_move(p: &Partition, x: &[f64], r: usize, factor: f64) -> Option<usize> {
    let n_r = p.counts[r];
    if n_r <= 1 {
        return None;
    }
    let own = factor * leave_weight(n_r) * sq_dist(x, p.centroid(r));
    let mut best = f64::INFINITY;
    let mut best_j = r;
    for j in 0..p.k {
        if j == r {
            continue;
        }
        let cost = join_weight(p.counts[j]) * sq_dist(x, p.centroid(j));
        if cost < best {
            best = cost;
            best_j = j;
        }
    }
    (best < own).then_some(best_j)
}

/// One Hartigan sweep with acceptance factor `factor`, visiting the points in
/// `order`. Returns the number of moves.
pub(crate) fn sweep<T: Scalar>(
    p: &mut Partition,
    data: &Data<'_, T>,
    order: &[usize],
    factor: f64,
) -> usize {
    let mut buf = vec![0.0; data.d];
    let mut moves = 0;
    for &i in order {
        let r = p.labels[i];
        if p.counts[r] <= 1 {
            continue;
        }
        data.load_shifted(i, &mut buf);
        if let Some(j) = best_move(p, &buf, r, factor) {
            p.move_point(i, &buf, j);
            moves += 1;
        }
    }
    moves
}

/// One Lloyd iteration: every point to its nearest centroid (ties keep the
/// current label), then all centroids recomputed; empty clusters are refilled
/// deterministically. Returns the number of labels that changed. The
/// assignment is screened by blocked products and decided exactly
/// ([`crate::fast::assign_nearest`]), so it equals the plain one.
pub(crate) fn lloyd_iteration<T: Scalar>(p: &mut Partition, data: &Data<'_, T>) -> usize {
    let new_labels = crate::fast::assign_nearest(data, &p.centroids, p.k, Some(&p.labels));
    let mut changed = 0;
    for (label, new) in p.labels.iter_mut().zip(new_labels) {
        changed += usize::from(new != *label);
        *label = new;
    }
    p.recompute(data);
    changed + p.fill_empty_clusters(data)
}

/// The plain Lloyd iteration (every distance exact), kept as the reference
/// the accelerated one is tested against.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn lloyd_iteration_reference<T: Scalar>(p: &mut Partition, data: &Data<'_, T>) -> usize {
    let mut buf = vec![0.0; data.d];
    let new_labels: Vec<usize> = (0..data.n)
        .map(|i| {
            data.load_shifted(i, &mut buf);
            p.nearest(&buf, Some(p.labels[i]))
        })
        .collect();
    let mut changed = 0;
    for (label, new) in p.labels.iter_mut().zip(new_labels) {
        changed += usize::from(new != *label);
        *label = new;
    }
    p.recompute(data);
    changed + p.fill_empty_clusters(data)
}
