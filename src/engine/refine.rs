//! Merge-split refinement: leaving a local optimum that no single-point move
//! can leave.
//!
//! Hartigan's and Lloyd's local optima on well-separated data typically get
//! a few clusters wrong as a whole: one centroid sits between two true
//! groups, while another true group is cut in two. Moving any one point
//! raises the objective, so no sweep repairs this; restarts only help by
//! luck, and more restarts help ever less as `k` grows. A merge-split move
//! repairs it directly: merge the two clusters whose merge costs least
//! (Ward's increase `W_a·W_b/(W_a+W_b)·‖μ_a − μ_b‖²`), give the freed label
//! to one half of the cluster that a split helps most (a 2-means split of its
//! points), and re-converge with the method's own steps. The run keeps the
//! result only if its objective is lower than before (by more than rounding),
//! so refinement never makes a result worse, and a refined result is still a
//! local optimum of the method.
//!
//! Candidates `(split c, merge a+b)` are ranked by their predicted change
//! `gain(c) − cost(a, b)`, computed exactly from the current partition, and
//! the best is tried. After an accepted move everything is recomputed;
//! refinement ends at the first rejected candidate (the moves worth keeping
//! come first), or when it has taken as many steps as the method did before
//! it ([`crate::fit::restart`]). This is our extension, not part of the paper (its tables
//! use `refine=False`); breathing k-means (Fritzke) and the split/merge
//! steps of ISODATA follow the same idea.

use crate::data::{sq_dist, Data, Scalar};
use crate::engine::partition::Partition;
use crate::engine::points::{Points, Split};
use crate::params::defaults::SPLIT_ITERS;
use rayon::prelude::*;

/// Members ahead whose row a split's pass prefetches.
const SPLIT_LOOKAHEAD: usize = 8;
/// Clusters with the largest split gains that are considered for splitting,
/// and cheapest merges considered for each.
const SHORTLIST: usize = 4;

fn sq_norm(c: &[f64]) -> f64 {
    c.iter().map(|v| v * v).sum()
}

/// Starts loading the row of the member [`SPLIT_LOOKAHEAD`] places after
/// member `m`: a cluster's members lie scattered over the data, and every
/// pass of a split walks them all, so without it each row's load waits on
/// memory.
#[inline(always)]
fn prefetch_member<R: Points>(rows: &R, members: &[usize], m: usize) {
    if let Some(&ahead) = members.get(m + SPLIT_LOOKAHEAD) {
        rows.prefetch(ahead);
    }
}

/// A 2-means split of `members` (all of one cluster with centroid `mean`):
/// the halves start from the member farthest from the mean (ties to the
/// lowest index) and its mirror image through the mean, then Lloyd
/// iterations refine them. `None` when one half ends up without weight.
#[inline(always)]
pub(crate) fn split_cluster<R: Points>(rows: &R, members: &[usize], mean: &[f64]) -> Option<Split> {
    let d = rows.dim();
    let mut buf = vec![0.0; d];
    let mean_norm = sq_norm(mean);
    let (mut far, mut far_dist, mut cost) = (usize::MAX, -1.0, 0.0);
    for (m, &i) in members.iter().enumerate() {
        prefetch_member(rows, members, m);
        let x = rows.row(i, &mut buf);
        let dist = R::sq_dist_to(&x, mean, mean_norm);
        cost += rows.weight(i) * dist;
        if rows.weight(i) > 0.0 && dist > far_dist {
            (far, far_dist) = (i, dist);
        }
    }
    if far == usize::MAX {
        return None;
    }
    let mut first = vec![0.0; d];
    R::add_to(&rows.row(far, &mut buf), 1.0, &mut first);
    let mut second: Vec<f64> = mean.iter().zip(&first).map(|(m, a)| 2.0 * m - a).collect();
    let mut in_second = vec![false; members.len()];
    let mut sums = vec![0.0; 2 * d];
    for iter in 0..=SPLIT_ITERS {
        let mut changed = false;
        let mut weights = [0.0; 2];
        sums.iter_mut().for_each(|s| *s = 0.0);
        let (first_norm, second_norm) = (sq_norm(&first), sq_norm(&second));
        for (m, (slot, &i)) in in_second.iter_mut().zip(members).enumerate() {
            prefetch_member(rows, members, m);
            let x = rows.row(i, &mut buf);
            let to_second =
                R::sq_dist_to(&x, &second, second_norm) < R::sq_dist_to(&x, &first, first_norm);
            changed |= to_second != *slot;
            *slot = to_second;
            let (w, half) = (rows.weight(i), usize::from(to_second));
            weights[half] += w;
            R::add_to(&x, w, &mut sums[half * d..(half + 1) * d]);
        }
        if weights[0] <= 0.0 || weights[1] <= 0.0 {
            return None;
        }
        for (c, s) in first.iter_mut().zip(&sums[..d]) {
            *c = s / weights[0];
        }
        for (c, s) in second.iter_mut().zip(&sums[d..]) {
            *c = s / weights[1];
        }
        if !changed && iter > 0 {
            break;
        }
    }
    // The halves' costs about their own means (the centroids they get).
    let (first_norm, second_norm) = (sq_norm(&first), sq_norm(&second));
    let mut halves = 0.0;
    for (m, (&s, &i)) in in_second.iter().zip(members).enumerate() {
        prefetch_member(rows, members, m);
        let x = rows.row(i, &mut buf);
        let dist = if s {
            R::sq_dist_to(&x, &second, second_norm)
        } else {
            R::sq_dist_to(&x, &first, first_norm)
        };
        halves += rows.weight(i) * dist;
    }
    Some(Split {
        gain: cost - halves,
        second: members
            .iter()
            .zip(&in_second)
            .filter(|(_, &s)| s)
            .map(|(&i, _)| i)
            .collect(),
    })
}

/// Splits computed by earlier proposals of one restart. A split depends only
/// on the cluster's members and its mean, so it is reused while both are
/// exactly (bit for bit) what they were: after a kept move the method's
/// re-converging steps usually change a few clusters, and the 2-means
/// splits of all `k` clusters were most of a proposal's cost. Speed only:
/// a reused split is the split that would be computed.
#[derive(Debug, Clone, Default)]
pub(crate) struct SplitCache {
    entries: Vec<Option<CachedSplit>>,
    /// Splits computed (not reused) so far.
    #[cfg(test)]
    computed: usize,
}

#[derive(Debug, Clone)]
struct CachedSplit {
    members: Vec<usize>,
    mean: Vec<u64>,
    split: Option<Split>,
}

impl CachedSplit {
    fn holds(&self, members: &[usize], mean: &[f64]) -> bool {
        self.members == members && self.mean.iter().zip(mean).all(|(&a, b)| a == b.to_bits())
    }
}

/// For every cluster, its cheapest merge partner: `(cost, a, b)` with
/// `a < b`, each pair once, cheapest first (ties by index). `centroids` is
/// `k × d`, row after row.
fn cheapest_merges(weights: &[f64], centroids: &[f64]) -> Vec<(f64, usize, usize)> {
    let k = weights.len();
    let d = centroids.len() / k.max(1);
    let centroid = |j: usize| &centroids[j * d..(j + 1) * d];
    cheapest_merges_by(k, |a, b| {
        let (wa, wb) = (weights[a], weights[b]);
        wa * wb / (wa + wb) * sq_dist(centroid(a), centroid(b))
    })
}

/// Each cluster's cheapest partner by `cost(a, b)` (symmetric), the pairs
/// sorted by cost (ties to the lower pair) without repeats.
fn cheapest_merges_by(k: usize, cost: impl Fn(usize, usize) -> f64) -> Vec<(f64, usize, usize)> {
    let mut pairs: Vec<(f64, usize, usize)> = (0..k)
        .filter_map(|a| {
            (0..k)
                .filter(|&b| b != a)
                .map(|b| (cost(a, b), a.min(b), a.max(b)))
                .min_by(|x, y| x.0.total_cmp(&y.0).then((x.1, x.2).cmp(&(y.1, y.2))))
        })
        .collect();
    pairs.sort_by(|x, y| x.0.total_cmp(&y.0).then((x.1, x.2).cmp(&(y.1, y.2))));
    pairs.dedup_by_key(|e| (e.1, e.2));
    pairs
}

/// Brings `cache` up to date with the partition `labels` (`k` clusters,
/// dense `k × d` `centroids`): every cluster of at least two members gets
/// its split, computed unless the cache holds it for exactly these members
/// and mean.
fn refresh_splits<R: Points>(
    rows: &R,
    labels: &[usize],
    centroids: &[f64],
    k: usize,
    cache: &mut SplitCache,
) {
    let d = rows.dim();
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); k];
    for (i, &l) in labels.iter().enumerate() {
        members[l].push(i);
    }
    cache.entries.resize_with(k, || None);
    let mean = |c: usize| &centroids[c * d..(c + 1) * d];
    // Clusters are split independently (in parallel when threads are free)
    // and collected in cluster order, so the result is the same for any
    // thread count.
    let fresh: Vec<Option<Option<Split>>> = (0..k)
        .into_par_iter()
        .map(|c| {
            let cached = cache.entries[c]
                .as_ref()
                .is_some_and(|e| e.holds(&members[c], mean(c)));
            (!cached && members[c].len() >= 2).then(|| rows.split(&members[c], mean(c)))
        })
        .collect();
    #[cfg(test)]
    {
        cache.computed += fresh.iter().filter(|f| f.is_some()).count();
    }
    for (c, (split, own)) in fresh.into_iter().zip(members).enumerate() {
        if let Some(split) = split {
            cache.entries[c] = Some(CachedSplit {
                members: own,
                mean: mean(c).iter().map(|v| v.to_bits()).collect(),
                split,
            });
        } else if own.len() < 2 {
            cache.entries[c] = None;
        }
    }
}

/// The clusters' splits held in `cache`, the largest gain first (ties to
/// the lowest cluster).
fn ranked_splits(cache: &SplitCache) -> Vec<(usize, &Split)> {
    let mut splits: Vec<(usize, &Split)> = cache
        .entries
        .iter()
        .enumerate()
        .filter_map(|(c, e)| Some((c, e.as_ref()?.split.as_ref()?)))
        .collect();
    splits.sort_by(|x, y| y.1.gain.total_cmp(&x.1.gain).then(x.0.cmp(&y.0)));
    splits
}

/// The labels after the best merge-split move on the partition `labels`
/// (cluster `weights`, dense `k × d` `centroids`), and the clusters each
/// move changes (split, kept, absorbed); `None` when there is no
/// candidate. `cache` keeps this restart's splits between proposals.
///
/// With `batch`, further moves join the best one while each lowers the
/// objective by itself and touches none of the clusters taken so far: the
/// next splits by gain, each with the cheapest merge of two untouched
/// clusters. Moves on disjoint clusters change disjoint terms of the
/// objective, so their predicted changes add, and one re-convergence
/// serves them all.
pub(crate) fn propose_labels<R: Points>(
    rows: &R,
    labels: &[usize],
    weights: &[f64],
    centroids: &[f64],
    cache: &mut SplitCache,
    batch: bool,
) -> Option<(Vec<usize>, Vec<[usize; 3]>)> {
    let k = weights.len();
    if k < 3 {
        return None;
    }
    refresh_splits(rows, labels, centroids, k, cache);
    let splits = ranked_splits(cache);
    let merges = cheapest_merges(weights, centroids);
    // (predicted change, split rank, kept, absorbed): the first best wins.
    let mut best: Option<(f64, usize, usize, usize)> = None;
    for (rank, (c, split)) in splits.iter().enumerate().take(SHORTLIST) {
        let usable = merges.iter().filter(|m| m.1 != *c && m.2 != *c);
        for &(cost, a, b) in usable.take(SHORTLIST) {
            let change = split.gain - cost;
            if best.is_none_or(|e| e.0 < change) {
                best = Some((change, rank, a, b));
            }
        }
    }
    let (_, rank, kept, absorbed) = best?;
    let mut moves = vec![(rank, kept, absorbed)];
    if batch {
        let mut used = vec![false; k];
        for c in [splits[rank].0, kept, absorbed] {
            used[c] = true;
        }
        for (rank, (c, split)) in splits.iter().enumerate() {
            if used[*c] {
                continue;
            }
            let free = merges
                .iter()
                .find(|m| m.1 != *c && m.2 != *c && !used[m.1] && !used[m.2]);
            if let Some(&(_, a, b)) = free.filter(|m| split.gain > m.0) {
                moves.push((rank, a, b));
                for j in [*c, a, b] {
                    used[j] = true;
                }
            }
        }
    }
    // Merge `absorbed` into `kept`; the freed label goes to the split's
    // second half.
    let mut out = labels.to_vec();
    let mut relabel: Vec<usize> = (0..k).collect();
    for &(_, kept, absorbed) in &moves {
        relabel[absorbed] = kept;
    }
    for l in out.iter_mut() {
        *l = relabel[*l];
    }
    let mut touched = Vec::with_capacity(moves.len());
    for &(rank, kept, absorbed) in &moves {
        for &i in &splits[rank].1.second {
            out[i] = absorbed;
        }
        touched.push([splits[rank].0, kept, absorbed]);
    }
    Some((out, touched))
}

/// The labels of the partition `labels` (`k` clusters with dense `k × d`
/// `centroids`) with one more cluster: the cluster whose split lowers the
/// objective most is split, its split's second half taking the new label
/// `k` (a step of a path, [`crate::fit::path`]). Also which cluster was split:
/// `None` when no cluster has a split (every cluster holds copies of one
/// point, or one positive weight), and then the labels are unchanged and
/// the new cluster is left empty for the caller to fill.
pub(crate) fn split_labels<R: Points>(
    rows: &R,
    labels: &[usize],
    centroids: &[f64],
    k: usize,
    cache: &mut SplitCache,
) -> (Vec<usize>, Option<usize>) {
    refresh_splits(rows, labels, centroids, k, cache);
    let mut out = labels.to_vec();
    let Some(&(c, split)) = ranked_splits(cache).first() else {
        return (out, None);
    };
    for &i in &split.second {
        out[i] = k;
    }
    (out, Some(c))
}

/// The partition of [`split_labels`] on `p`, with `k + 1` clusters
/// (recomputed, not yet re-converged; a new cluster left empty takes the
/// point farthest from its centroid, as [`Partition::from_labels`] fills
/// any empty cluster), and the cluster split.
/// `spare_threads`: as for [`Partition::recompute_stale`].
pub(crate) fn split<T: Scalar>(
    p: &Partition,
    data: &Data<'_, T>,
    cache: &mut SplitCache,
    spare_threads: bool,
) -> (Partition, Option<usize>) {
    let (labels, split) = split_labels(data, &p.stats.labels, &p.centroids, p.k, cache);
    (
        Partition::from_labels(data, p.k + 1, labels, spare_threads),
        split,
    )
}

/// The labels of the partition `labels` (cluster `weights`, dense `k × d`
/// `centroids`) with one cluster fewer: the `rank`-th cheapest merge (0:
/// the cheapest, by Ward's increase) joins `b` into `a < b`, and the last
/// label `k − 1` takes `b`'s place, so labels stay in `0..k − 1` (a path's
/// step down, [`crate::fit::path`]). `None` with fewer than two clusters or
/// `rank + 1` merges.
pub(crate) fn merge_labels(
    labels: &[usize],
    weights: &[f64],
    centroids: &[f64],
    rank: usize,
) -> Option<Vec<usize>> {
    let &(_, a, b) = cheapest_merges(weights, centroids).get(rank)?;
    Some(merged(labels, weights.len(), a, b))
}

/// [`merge_labels`] with another cost of merging two of the `k` clusters
/// (`cost(a, b)`, symmetric): the `rank`-th cheapest merge.
pub(crate) fn merge_labels_by(
    labels: &[usize],
    k: usize,
    rank: usize,
    cost: impl Fn(usize, usize) -> f64,
) -> Option<Vec<usize>> {
    let &(_, a, b) = cheapest_merges_by(k, cost).get(rank)?;
    Some(merged(labels, k, a, b))
}

/// `labels` with cluster `b` joined into `a < b`, and the last label `k − 1`
/// in `b`'s place.
fn merged(labels: &[usize], k: usize, a: usize, b: usize) -> Vec<usize> {
    labels
        .iter()
        .map(|&l| match l {
            l if l == b => a,
            l if l == k - 1 => b,
            l => l,
        })
        .collect()
}

/// The partition the best merge-split move on `p` gives (with `batch`, the
/// moves [`propose_labels`] batches with it), recomputed, not yet
/// re-converged, and the number of moves; `None` when there is no
/// candidate. `spare_threads`: as for [`Partition::recompute_stale`].
pub(crate) fn propose<T: Scalar>(
    p: &Partition,
    data: &Data<'_, T>,
    cache: &mut SplitCache,
    batch: bool,
    spare_threads: bool,
) -> Option<(Partition, usize)> {
    let (labels, touched) = propose_labels(
        data,
        &p.stats.labels,
        &p.stats.weights,
        &p.centroids,
        cache,
        batch,
    )?;
    let mut q = p.clone();
    q.stats.labels = labels;
    for &j in touched.iter().flatten() {
        q.stale[j] = true;
    }
    q.recompute_stale(data, spare_threads);
    Some((q, touched.len()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::engine::reference::Sweep;
    use crate::rng::Xoshiro256PlusPlus;

    /// A cache carried along a run's successive partitions gives, at every
    /// stage, the proposal a fresh cache gives, and it is actually reused.
    #[test]
    fn cached_splits_give_the_fresh_proposal() {
        let k = 8;
        let x = crate::testing::testdata::blobs(800, 5, 6, 4);
        let data = Data::new(x.view(), None);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
        let labels = (0..data.n).map(|_| rng.below(k)).collect();
        let mut p = Partition::from_labels(&data, k, labels, false);
        let mut warm = SplitCache::default();
        let mut order: Vec<usize> = (0..data.n).collect();
        let mut stages = 0;
        loop {
            let fresh = propose(&p, &data, &mut SplitCache::default(), false, false);
            assert_eq!(
                propose(&p, &data, &mut warm, false, false),
                fresh,
                "stage {stages}"
            );
            stages += 1;
            rng.shuffle(&mut order);
            if crate::engine::reference::sweep(&mut p, Sweep::new(&data, &order, 1.0)) == 0 {
                break;
            }
            p.recompute_stale(&data, false);
        }
        assert!(stages >= 3, "{stages}");
        // Proposing twice on the final partition computes nothing new.
        let before = warm.computed;
        assert_eq!(
            propose(&p, &data, &mut warm, false, false),
            propose(&p, &data, &mut SplitCache::default(), false, false)
        );
        assert_eq!(warm.computed, before);
        assert!(
            warm.computed < stages * k,
            "{} of {}",
            warm.computed,
            stages * k
        );
    }

    /// A batch starts with the single proposal's move and adds moves on
    /// untouched clusters only; on blobs with four planted errors (two
    /// blobs under one label, another blob cut in two) it repairs all four
    /// at once.
    #[test]
    fn a_batch_repairs_disjoint_errors_at_once() {
        let (groups, per, k) = (16, 40, 16);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        // Blob b around (20·b, 0, 0), noise in [−1, 1]³: far apart.
        let x = ndarray::Array2::from_shape_fn((groups * per, 3), |(i, j)| {
            let centre = if j == 0 { 20.0 * (i / per) as f64 } else { 0.0 };
            centre + 2.0 * rng.unit_f64() - 1.0
        });
        let data = Data::new(x.view(), None);
        let blob = |i: usize| i / per;
        let right: Vec<usize> = (0..data.n).map(blob).collect();
        let wrong: Vec<usize> = (0..data.n)
            .map(|i| match blob(i) {
                b if b % 4 == 1 && b < 16 => b - 1,
                b if b % 4 == 2 && i % 2 == 1 => b - 1,
                b => b,
            })
            .collect();
        let objective = |labels: &[usize]| {
            Partition::from_labels(&data, k, labels.to_vec(), false).objective(&data)
        };
        let p = Partition::from_labels(&data, k, wrong.clone(), false);
        let propose = |batch| {
            let mut cache = SplitCache::default();
            propose_labels(
                &data,
                &wrong,
                &p.stats.weights,
                &p.centroids,
                &mut cache,
                batch,
            )
            .unwrap()
        };
        let ((one, one_touched), (all, all_touched)) = (propose(false), propose(true));
        assert_eq!(one_touched.len(), 1);
        assert_eq!(all_touched.len(), 4, "{all_touched:?}");
        assert_eq!(all_touched[0], one_touched[0]);
        let mut distinct: Vec<usize> = all_touched.concat();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), 3 * all_touched.len(), "{all_touched:?}");
        let (before, optimum) = (objective(&wrong), objective(&right));
        assert!(objective(&one) < before);
        assert!((objective(&all) - optimum).abs() <= 1e-9 * optimum);
    }
}
