//! The plain definitions the accelerated engine must equal bit for bit: the
//! Hartigan/Smartigan sweep one point at a time with every cost exact, and
//! Lloyd's iteration with every distance exact. They run where the
//! accelerated kernels do not apply (weights, small `k·d`, data the screens
//! cannot scale) and in the equivalence tests.

use crate::data::{sq_dist, Data, Scalar};
use crate::engine::move_rule::{choose_move, still_moves, KMeans};
use crate::engine::partition::Partition;
use crate::engine::rounds::RoundPlan;

/// [`choose_move`] for a dense point `x` (shifted, weight `w`, in cluster
/// `r`) against the partition's centroids.
#[inline]
pub(crate) fn best_move(p: &Partition, x: &[f64], w: f64, r: usize, factor: f64) -> Option<usize> {
    choose_move(
        &KMeans::new(&p.stats.counts, &p.stats.weights),
        r,
        w,
        factor,
        |j| sq_dist(x, p.centroid(j)),
    )
}

/// What one sweep over dense rows is given: the rows, the order in which
/// they are visited (a fresh permutation, or a path's candidates) and the
/// acceptance factor the schedule sets for this sweep (1 is Hartigan's rule,
/// Smartigan's falls from 3/2 to 1). Every sweep kernel, plain or
/// accelerated, sequential or in rounds, takes one.
#[derive(Clone, Copy)]
pub(crate) struct Sweep<'s, 'a, T: Scalar> {
    pub data: &'s Data<'a, T>,
    pub order: &'s [usize],
    pub factor: f64,
}

impl<'s, 'a, T: Scalar> Sweep<'s, 'a, T> {
    pub fn new(data: &'s Data<'a, T>, order: &'s [usize], factor: f64) -> Self {
        Sweep {
            data,
            order,
            factor,
        }
    }
}

/// The cluster the move rule sends point `i` to against `p` in sweep `s`
/// (`None`: it stays, or it may not leave its cluster); `buf` gets the
/// point's shifted row where the rule was asked.
#[inline(always)]
fn proposal<T: Scalar>(
    p: &Partition,
    s: Sweep<'_, '_, T>,
    i: usize,
    buf: &mut [f64],
) -> Option<usize> {
    let (r, w) = (p.stats.labels[i], s.data.weight(i));
    if !p.stats.may_leave(r, w) {
        return None;
    }
    s.data.load_shifted(i, buf);
    best_move(p, buf, w, r, s.factor)
}

/// One Hartigan sweep by the plain definition. Returns the number of moves.
pub(crate) fn sweep<T: Scalar>(p: &mut Partition, s: Sweep<'_, '_, T>) -> usize {
    let mut buf = vec![0.0; s.data.d];
    let mut moves = 0;
    for &i in s.order {
        if let Some(j) = proposal(p, s, i, &mut buf) {
            p.move_point(i, &buf, s.data.weight(i), j);
            moves += 1;
        }
    }
    moves
}

/// One sweep in rounds by the plain definition: every point of a round (cut
/// by a [`RoundPlan`]) decided against the partition as the round began,
/// then the proposed moves made in order where the move rule still accepts
/// them against the current centroids ([`still_moves`]). The accelerated rounds sweep
/// ([`crate::dense::accel::sweep::rounds`]) makes exactly these moves.
pub(crate) fn sweep_rounds<T: Scalar>(p: &mut Partition, s: Sweep<'_, '_, T>) -> usize {
    let Sweep {
        data,
        order,
        factor,
    } = s;
    let n = order.len();
    let mut buf = vec![0.0; data.d];
    let mut proposals = Vec::new();
    let mut moves = 0;
    RoundPlan::new(n, p.k, p.d).run(n, |start, end| {
        proposals.clear();
        for &i in &order[start..end] {
            if let Some(j) = proposal(p, s, i, &mut buf) {
                proposals.push((i, j));
            }
        }
        for &(i, j) in &proposals {
            let (r, w) = (p.stats.labels[i], data.weight(i));
            data.load_shifted(i, &mut buf);
            let dists = (sq_dist(&buf, p.centroid(r)), sq_dist(&buf, p.centroid(j)));
            if still_moves(
                &KMeans::new(&p.stats.counts, &p.stats.weights),
                (r, j),
                w,
                factor,
                dists,
            ) {
                p.move_point(i, &buf, w, j);
                moves += 1;
            }
        }
        proposals.len()
    });
    moves
}

/// Every point's nearest centroid of `probe` ([`Partition::nearest`]:
/// ties keep `current[i]` when given, else go to the lowest index).
pub(crate) fn assign_nearest<T: Scalar>(
    data: &Data<'_, T>,
    probe: &Partition,
    current: Option<&[usize]>,
) -> Vec<usize> {
    let mut buf = vec![0.0; data.d];
    (0..data.n)
        .map(|i| {
            data.load_shifted(i, &mut buf);
            probe.nearest(&buf, current.map(|c| c[i]))
        })
        .collect()
}

/// One Lloyd iteration: every point to its nearest centroid (ties keep the
/// current label), then all centroids recomputed; empty clusters are
/// refilled deterministically. Returns the number of labels that changed.
pub(crate) fn lloyd_iteration<T: Scalar>(
    p: &mut Partition,
    data: &Data<'_, T>,
    spare_threads: bool,
) -> usize {
    let new_labels = assign_nearest(data, p, Some(&p.stats.labels));
    let mut changed = 0;
    for (label, new) in p.stats.labels.iter_mut().zip(new_labels) {
        changed += usize::from(new != *label);
        *label = new;
    }
    p.recompute(data, spare_threads);
    changed + p.fill_empty_clusters(data, spare_threads)
}
