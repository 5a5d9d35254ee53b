//! Accelerated sweeps that make exactly the decisions of the plain ones.
//!
//! # The blocked Hartigan sweep
//!
//! The points are taken in visiting order, a block at a time. For each block
//! the products of its points with a *snapshot* of all centroids are computed
//! at once in `f32` ([`Panel::product`]); they give a screened cost
//! `c̃_j = w_j·((‖x‖² + ‖μ_j‖²) − 2·x·μ_j)` for every cluster with
//! `|c̃_j − c_j| ≤ E` where `c_j` is the reference's exact cost
//! ([`Panel::error_bound`]). The points are then processed one by one, in
//! order, against the live partition:
//!
//! * a cluster changed since the snapshot (by a move earlier in this block)
//!   is *dirty*: its cost is evaluated exactly;
//! * if `min(min c̃ − E, min dirty cost) ≥ own cost` no alternative can be
//!   strictly cheaper and the point stays (the common case: O(k) work);
//! * otherwise every clean cluster whose screen could reach the best
//!   (`c̃_j − E ≤ min(min c̃ + E, min dirty cost)`) is evaluated exactly, and
//!   the move is decided on exact costs with the reference's tie rule.
//!
//! The own cost and every cost that decides anything are computed by the
//! same expressions as [`crate::engine::reference::best_move`], so the moves, their
//! order, and every centroid update are bit-identical to the plain sweep,
//! whatever the CPU, kernel, block size or thread count.
//!
//! With sample weights a point of weight `w` screens with its own factors
//! `W_j/(W_j + w)` in place of the clusters' join weights (see
//! [`decide::Weighting`]); the bounds take the clusters' weights and the
//! point's ([`super::bounds`]).

use super::block::{max_block_rows, Block, MIN_BLOCK};
use super::bounds::{Bounds, SkipTests};
use super::panel::scale_for;
use super::Cache;
use crate::data::{sq_dist, Scalar};
use crate::engine::move_rule::join_weight;
use crate::engine::partition::Partition;
use crate::engine::reference::Sweep;

mod decide;
mod fill;
pub(crate) mod rounds;

use decide::{decide, decide_exactly, decide_prepared, Decision, Weighting, UNIT};

/// Positions ahead of selection and processing whose bounds and label are
/// prefetched.
pub(super) const LOOKAHEAD: usize = 12;

/// Starts loading the bounds and the label of the point [`LOOKAHEAD`]
/// positions after `pos` in `order`: the visiting order is random, so that
/// they are in cache when its turn comes (it matters once these arrays
/// outgrow the L2 cache).
#[inline(always)]
pub(super) fn prefetch_ahead(order: &[usize], pos: usize, bounds: &Bounds, labels: &[usize]) {
    if let Some(&ahead) = order.get(pos + LOOKAHEAD) {
        bounds.prefetch(ahead);
        crate::data::prefetch(std::slice::from_ref(&labels[ahead]));
    }
}

/// Per-cluster bookkeeping of a blocked sweep.
pub(super) struct Live {
    /// `join_weight(counts[j])` as `f32`, kept current, padded with 1 to `kp`.
    w: Vec<f32>,
    /// With sample weights, the current point's `W_j/(W_j + w)` as `f32`
    /// (its join weights over its own weight), padded with 1 to `kp`.
    point_w: Vec<f32>,
    /// The block snapshot's `h_j`, `+∞` for dirty clusters (and padding).
    h: Vec<f32>,
    /// Epoch of each cluster's last change.
    stamp: Vec<u64>,
    /// Dirty clusters of the current block.
    dirty: Vec<usize>,
    /// The current epoch (bumped at every snapshot).
    epoch: u64,
    /// Clean candidates that need an exact evaluation.
    cand: Vec<usize>,
    /// Clusters changed at the current epoch, each once.
    touched: Vec<usize>,
    /// Whether the current block started with no dirty cluster.
    clean_start: bool,
}

/// The screen's join weight of a cluster of `count` points, as `f32`.
#[inline(always)]
pub(super) fn join_weight32(count: usize) -> f32 {
    join_weight(1.0, count as f64) as f32
}

/// [`join_weight32`] of every cluster, padded with 1 to whole panels.
pub(super) fn join_weights32(counts: &[usize]) -> Vec<f32> {
    let mut w: Vec<f32> = counts.iter().map(|&c| join_weight32(c)).collect();
    w.resize(
        counts.len().div_ceil(super::panel::W) * super::panel::W,
        1.0,
    );
    w
}

impl Live {
    fn new(counts: &[usize]) -> Self {
        let k = counts.len();
        let w = join_weights32(counts);
        Live {
            point_w: vec![1.0; w.len()],
            w,
            h: Vec::with_capacity(k),
            stamp: vec![0; k],
            dirty: Vec::with_capacity(k),
            epoch: 1,
            cand: Vec::with_capacity(k),
            touched: Vec::with_capacity(k),
            clean_start: false,
        }
    }

    /// Makes `h` the block's snapshot with its dirty clusters at `+∞`.
    fn start_block(&mut self, block: &Block) {
        // In the usual order (a block processed, the next one snapshotted
        // from its panel, then processed) `h` is the previous panel except
        // at the previous block's dirty clusters, which are exactly the
        // clusters the new panel re-packed, and nothing changed since the
        // snapshot: O(dirty) instead of O(k) per block (`k` may be in the
        // thousands).
        if block.follows
            && self.clean_start
            && block.epoch == self.epoch
            && self.touched.is_empty()
            && self.h.len() == block.panel.h.len()
        {
            for &j in &self.dirty {
                self.h[j] = block.panel.h[j];
            }
            self.dirty.clear();
            return;
        }
        self.dirty.clear();
        self.h.clear();
        self.h.extend_from_slice(&block.panel.h);
        for (j, &s) in self.stamp.iter().enumerate() {
            if s >= block.epoch {
                self.h[j] = f32::INFINITY;
                self.dirty.push(j);
            }
        }
        // With clusters already dirty at the start, the dirty list is more
        // than what the next panel re-packs: the next block starts afresh.
        self.clean_start = self.dirty.is_empty();
    }

    /// Starts a new epoch: clusters changed from now on are dirty for a
    /// snapshot taken now.
    fn next_epoch(&mut self) {
        self.epoch += 1;
        self.touched.clear();
    }

    fn touch(&mut self, j: usize, counts: &[usize]) {
        self.w[j] = join_weight32(counts[j]);
        if self.h[j] != f32::INFINITY {
            self.h[j] = f32::INFINITY;
            self.dirty.push(j);
        }
        if self.stamp[j] < self.epoch {
            self.touched.push(j);
        }
        self.stamp[j] = self.epoch;
    }
}

/// Block size for the observed fraction of points that move: small blocks
/// while many points move (each move makes two clusters dirty for the rest of
/// the block, and every later point of the block evaluates a dirty cluster
/// exactly), large ones once the partition settles. The block is sized so
/// that about `k·d/2048` clusters (at least 2, at most `k/8`) are dirty by
/// its end: a dirty cluster costs an exact evaluation per later point, which
/// weighs more the more features there are, so few dirty clusters pay at
/// small `d` and `k/8` at large `d`. At most [`max_block_rows`] rows. Only
/// speed depends on it.
fn block_size(k: usize, d: usize, rate: f64) -> usize {
    let target_dirty = (k as f64 * d as f64 / 2048.0).min(k as f64 / 8.0).max(2.0);
    let b = target_dirty / (2.0 * rate.max(1e-9));
    (b as usize).clamp(MIN_BLOCK, max_block_rows(k))
}

/// What every block of one sweep reads: the sweep, and a row of scratch for
/// the points decided outside a block.
pub(super) struct Pass<'s, 'a, T: Scalar> {
    sweep: Sweep<'s, 'a, T>,
    scratch: Vec<f64>,
    /// Whether blocks may be filled over the pool ([`Block::fill_for`]).
    spare_threads: bool,
}

/// One Hartigan sweep: the same moves as [`crate::engine::reference::sweep`],
/// bit for bit. Points whose bounds prove they stay are skipped
/// ([`super::bounds`]). The moves are decided in order on the calling
/// thread; with `spare_threads` the blocks' products and their rows' work
/// against the snapshot are computed over the pool first
/// ([`Block::fill_for`]), which changes no bit.
pub(crate) fn sweep_blocked<T: Scalar>(
    p: &mut Partition,
    s: Sweep<'_, '_, T>,
    cache: &mut Cache,
    spare_threads: bool,
) -> usize {
    if p.k <= 1 || scale_for(s.data.max_abs_shifted()).is_none() {
        return crate::engine::reference::sweep(p, s);
    }
    // Bounds pay only where they skip points. While most points move (a
    // Smartigan schedule on heavily overlapping clusters), every centroid
    // drifts far within a sweep, the next sweep's bounds skip
    // almost nothing, and keeping them costs each move a displacement from
    // every checkpoint: such sweeps run without them, and the first sweep
    // after starts them afresh. (Only speed depends on this.)
    let Some(mut bounds) = sweep_bounds(cache, p, s.data.n, keeps_bounds(cache)) else {
        return crate::engine::reference::sweep(p, s);
    };
    bounds.begin_sweep(&p.centroids, &p.stats.weights);
    let moves = dispatch_sweep(p, s, cache, &mut bounds, spare_threads);
    bounds.end_sweep(&p.centroids);
    cache.bounds = (!bounds.is_off()).then_some(bounds);
    moves
}

/// The bounds a sweep of `n` points starts from: the cache's, when they
/// belong to this shape, fresh ones otherwise, and [`Bounds::off`] when
/// `keep` is false. `None` when the partition's labels do not fit the
/// bounds' compact layout.
pub(super) fn sweep_bounds(
    cache: &mut Cache,
    p: &Partition,
    n: usize,
    keep: bool,
) -> Option<Bounds> {
    if !keep {
        return Some(Bounds::off());
    }
    match cache.bounds.take() {
        Some(b) if b.fits(n, p.k, p.d) => Some(b),
        _ => Bounds::new(n, p.k, p.d),
    }
}

/// The sweep `s` under the bounds a sweep of its rows starts from
/// ([`sweep_bounds`], off where the labels do not fit them): the bounds
/// brought to the sweep's start, `body` run with them (it returns the moves
/// and the points it evaluated), the bounds brought to the sweep's end and
/// kept in the cache with the sweep's counts over its visits. Returns the
/// moves.
pub(super) fn with_bounds<T: Scalar>(
    cache: &mut Cache,
    p: &mut Partition,
    s: Sweep<'_, '_, T>,
    keep: bool,
    body: impl FnOnce(&mut Partition, &mut Bounds) -> (usize, usize),
) -> usize {
    let mut bounds = sweep_bounds(cache, p, s.data.n, keep).unwrap_or_else(Bounds::off);
    bounds.begin_sweep(&p.centroids, &p.stats.weights);
    let (moves, evaluated) = body(p, &mut bounds);
    bounds.end_sweep(&p.centroids);
    cache.bounds = (!bounds.is_off()).then_some(bounds);
    cache.count_sweep(moves, evaluated, s.order.len());
    moves
}

/// Whether the next blocked sweep keeps per-point bounds: not after a sweep
/// that moved more than [`BOUNDS_MAX_MOVED_SHARE`] of all points.
pub(super) fn keeps_bounds(cache: &Cache) -> bool {
    cache.moved_share <= BOUNDS_MAX_MOVED_SHARE
}

/// Share of all points that moved in the last sweep above which the next
/// sweep keeps no bounds: a sweep that moves most points invalidates most
/// bounds, and keeping them then costs more than it saves.
const BOUNDS_MAX_MOVED_SHARE: f64 = 0.5;

multiversion!(sweep_body, dispatch_sweep, (p: &mut Partition, s: Sweep<'_, '_, T>, cache: &mut Cache, bounds: &mut Bounds, spare_threads: bool) -> usize);

#[inline(always)]
fn sweep_body<T: Scalar>(
    p: &mut Partition,
    s: Sweep<'_, '_, T>,
    cache: &mut Cache,
    bounds: &mut Bounds,
    spare_threads: bool,
) -> usize {
    let (k, d, order) = (p.k, p.d, s.order);
    let max_abs = s.data.max_abs_shifted();
    let mut live = Live::new(&p.stats.counts);
    let mut cur = Block::default();
    let mut next = Block::default();
    let mut pass = Pass {
        sweep: s,
        scratch: vec![0.0; d],
        spare_threads,
    };
    let (mut moves, mut evaluated) = (0, 0);
    let mut rate = cache.rate;

    // First block: snapshot at epoch 1.
    cur.panel.pack(&p.centroids, k, d, max_abs);
    cur.epoch = live.epoch;
    cur.select(bounds, p, &mut pass, 0, block_size(k, d, rate));
    cur.fill_for(&pass, p, &live);

    while cur.start < order.len() {
        let next_start = cur.end;
        let cap = block_size(k, d, rate);
        let (moved, seen) = process_block(p, &mut pass, &cur, &mut live, bounds);
        // The next block is chosen and snapshotted after this one, so the
        // bounds and the snapshot already include this block's moves.
        // (Overlapping the next block's product with this block's
        // processing lost: its choice could not see this block's moves, so
        // it predicted worse.)
        // The next snapshot starts from this block's, the latest: only the
        // clusters this block's moves touched are re-packed (the other
        // block's panel is a block older and would re-pack two blocks'
        // worth).
        std::mem::swap(&mut next.panel, &mut cur.panel);
        next.epoch = cur.epoch;
        next.open(&mut live, bounds, p, &mut pass, next_start, cap);
        next.fill_for(&pass, p, &live);
        moves += moved;
        evaluated += seen;
        if seen > 0 {
            let observed = moved as f64 / seen as f64;
            rate = 0.5 * rate + 0.5 * observed;
        }
        std::mem::swap(&mut cur, &mut next);
    }
    cache.count_sweep(moves, evaluated, order.len());
    moves
}

/// Positions of the visiting order one block may span when almost every
/// point is skipped: bounds the work between a point's selection and its
/// processing. Its bounds and label lines (up to 512 KB for a whole span,
/// in random order) stay in a 1–2 MB L2 cache for that time; with a smaller
/// one the processing loads them ahead again.
pub(super) const MAX_SPAN: usize = 4096;

/// Processes the positions of `block` in order against the live partition:
/// points the bounds rule out are skipped, members are decided through the
/// screen, and any other point (predicted to stay, but an earlier move of
/// this block changed that) exactly. Returns (moves, points evaluated).
#[inline(always)]
fn process_block<T: Scalar>(
    p: &mut Partition,
    pass: &mut Pass<'_, '_, T>,
    block: &Block,
    live: &mut Live,
    bounds: &mut Bounds,
) -> (usize, usize) {
    let s = pass.sweep;
    let Sweep {
        data,
        order,
        factor,
    } = s;
    let scratch = &mut pass.scratch;
    let d = p.d;
    live.start_block(block);
    let (mut moves, mut evaluated) = (0, 0);
    let mut member = 0;
    for (pos, &i) in order.iter().enumerate().take(block.end).skip(block.start) {
        // Selection loaded these bounds and labels, but a long span touches
        // two lines per position in random order (see `MAX_SPAN`), more than
        // a 512 KB L2 cache keeps until processing comes back: load them
        // ahead again.
        prefetch_ahead(&order[..block.end], pos, bounds, &p.stats.labels);
        bounds.at_position(pos, &p.centroids);
        let t = member;
        let is_member = block.members.get(member) == Some(&pos);
        member += usize::from(is_member);
        let (r, w) = (p.stats.labels[i], data.weight(i));
        // A member failed the bounds at selection; since then displacements
        // have only grown and the size bound only fallen (up to a centroid
        // drifting back), so checking again almost never skips it and it goes
        // straight to the exact decision. Other points were predicted to stay and are re-checked,
        // because moves earlier in the block may have changed that.
        if !p.stats.may_leave(r, w)
            || (!is_member && bounds.skip((i, r, w), p, s, scratch, SkipTests::Both))
        {
            continue;
        }
        evaluated += 1;
        // A zero-weight point follows the nearest centroid whatever the
        // factor: decided exactly below.
        let moved = if is_member && block.usable && w != 0.0 {
            let weighted = Weighting::<true> { w };
            let decision = if data.is_weighted() && block.has_prepared {
                decide_prepared(p, live, block, (t, r), weighted, factor)
            } else if data.is_weighted() {
                decide(p, live, block, (t, r), weighted, factor)
            } else if block.has_prepared {
                decide_prepared(p, live, block, (t, r), UNIT, factor)
            } else {
                decide(p, live, block, (t, r), UNIT, factor)
            };
            settle(p, live, bounds, i, (block.row(t, d).x, w), r, decision)
        } else {
            let x = if is_member {
                block.row(t, d).x
            } else {
                data.load_shifted(i, scratch);
                &*scratch
            };
            // Distances bound every other cluster's cost over `w` (its
            // join weight over `w` is below 1).
            let decision = decide_exactly(p, x, r, w, factor);
            settle(p, live, bounds, i, (x, w), r, decision)
        };
        moves += usize::from(moved);
    }
    (moves, evaluated)
}

/// Applies the decision for point `i` (row `x`, in cluster `r`) and keeps
/// the bounds current. Returns whether it moved.
#[inline(always)]
fn settle(
    p: &mut Partition,
    live: &mut Live,
    bounds: &mut Bounds,
    i: usize,
    (x, w): (&[f64], f64),
    r: usize,
    decision: Decision,
) -> bool {
    let Some(j) = decision.to else {
        bounds.record(i, r, decision.own_dist, decision.lower);
        return false;
    };
    p.move_point(i, x, w, j);
    bounds.after_move(&p.centroids, &p.stats.weights, r, j);
    live.touch(r, &p.stats.counts);
    live.touch(j, &p.stats.counts);
    // The distance to the new centroid is known; the others are not.
    bounds.record(i, j, sq_dist(x, p.centroid(j)), 0.0);
    true
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::data::Data;
    use crate::rng::Xoshiro256PlusPlus;
    use crate::testing::testdata::blobs;
    use ndarray::Array2;
    use std::cell::Cell;

    thread_local! {
        /// Decisions on this thread taken from prepared work, and those
        /// `decide_prepared` handed to `decide` because a cluster changed.
        pub(super) static PREPARED: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
    }

    /// Counts one decision of `decide_prepared` or `decide_weighted_prepared`.
    pub(super) fn count_prepared(changed: bool) {
        PREPARED.with(|c| {
            let (taken, redone) = c.get();
            c.set((taken + usize::from(!changed), redone + usize::from(changed)));
        });
    }

    pub(crate) fn random_partition<T: Scalar>(
        data: &Data<'_, T>,
        k: usize,
        seed: u64,
    ) -> Partition {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let labels = (0..data.n).map(|_| rng.below(k)).collect();
        Partition::from_labels(data, k, labels, false)
    }

    fn check_sweeps<T: Scalar>(x: ndarray::ArrayView2<'_, T>, k: usize, factor: f64) {
        check_weighted_sweeps(x, None, k, factor);
    }

    fn check_weighted_sweeps<T: Scalar>(
        x: ndarray::ArrayView2<'_, T>,
        w: Option<&[f64]>,
        k: usize,
        factor: f64,
    ) {
        let data = Data::new(x, w.map(std::borrow::Cow::Borrowed));
        let mut a = random_partition(&data, k, 7);
        // Decided in order only, and with the rows prepared over the pool.
        let mut b = [a.clone(), a.clone()];
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
        let mut cache = [Cache::default(), Cache::default()];
        for s in 0..6 {
            let mut order: Vec<usize> = (0..data.n).collect();
            rng.shuffle(&mut order);
            let ma = crate::engine::reference::sweep(&mut a, Sweep::new(&data, &order, factor));
            for (spare, (b, cache)) in b.iter_mut().zip(&mut cache).enumerate() {
                let mb = sweep_blocked(b, Sweep::new(&data, &order, factor), cache, spare == 1);
                assert_eq!(ma, mb, "moves differ in sweep {s} (spare threads: {spare})");
                assert_eq!(
                    &a, b,
                    "state differs after sweep {s} (spare threads: {spare})"
                );
                b.recompute(&data, false);
            }
            a.recompute(&data, false);
        }
    }

    #[test]
    fn blocked_sweep_equals_plain_sweep() {
        for &(n, d, k) in &[
            (500, 3, 7),
            (900, 16, 20),
            (700, 33, 40),
            (300, 1, 5),
            (400, 9, 130),
        ] {
            let x = blobs(n, d, k.max(2) / 2 + 1, n as u64 + d as u64);
            for factor in [1.0, 1.3] {
                check_sweeps(x.view(), k, factor);
                let x32 = x.mapv(|v| v as f32);
                check_sweeps(x32.view(), k, factor);
            }
        }
        // Both ways of `decide_prepared` were taken (and checked above).
        let (taken, redone) = PREPARED.with(Cell::get);
        assert!(
            taken > 1000 && redone > 100,
            "{taken} taken, {redone} redone"
        );
    }

    #[test]
    fn blocked_weighted_sweep_equals_plain_sweep() {
        PREPARED.with(|c| c.set((0, 0)));
        for &(n, d, k) in &[(900, 16, 20), (700, 33, 40), (400, 9, 130)] {
            let x = blobs(n, d, k / 2 + 1, n as u64 + d as u64);
            for w in &crate::testing::testdata::weight_kinds(n) {
                for factor in [1.0, 1.3] {
                    check_weighted_sweeps(x.view(), Some(w), k, factor);
                    check_weighted_sweeps(x.mapv(|v| v as f32).view(), Some(w), k, factor);
                }
            }
        }
        // Both ways of `decide_weighted_prepared` were taken.
        let (taken, redone) = PREPARED.with(Cell::get);
        assert!(
            taken > 1000 && redone > 100,
            "{taken} taken, {redone} redone"
        );
    }

    /// Sweeps to convergence under a Smartigan schedule, then Hartigan,
    /// with the bounds carried from sweep to sweep (and across a Lloyd
    /// iteration that moves every centroid), or left off while most points
    /// move: every sweep must equal the plain one, and the late sweeps must
    /// actually skip points.
    fn check_to_convergence<T: Scalar>(x: ndarray::ArrayView2<'_, T>, k: usize) {
        check_to_convergence_with(x, k, false);
        check_to_convergence_with(x, k, true);
    }

    fn check_to_convergence_with<T: Scalar>(x: ndarray::ArrayView2<'_, T>, k: usize, spare: bool) {
        let data = Data::new(x, None);
        let mut a = random_partition(&data, k, 5);
        let mut b = a.clone();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let mut cache = Cache::default();
        let (mut skipped_somewhere, mut off_somewhere) = (false, false);
        for s in 0..80 {
            let factor = if s < 10 { 1.5 - 0.05 * s as f64 } else { 1.0 };
            if s == 30 {
                // Something other than a sweep changes the partition.
                crate::dense::accel::lloyd::lloyd_iteration(
                    &mut a,
                    &data,
                    &mut Cache::default(),
                    false,
                );
                crate::dense::accel::lloyd::lloyd_iteration(
                    &mut b,
                    &data,
                    &mut Cache::default(),
                    false,
                );
            }
            let mut order: Vec<usize> = (0..data.n).collect();
            rng.shuffle(&mut order);
            off_somewhere |= cache.moved_share > BOUNDS_MAX_MOVED_SHARE;
            let ma = crate::engine::reference::sweep(&mut a, Sweep::new(&data, &order, factor));
            let mb = sweep_blocked(&mut b, Sweep::new(&data, &order, factor), &mut cache, spare);
            assert_eq!(ma, mb, "moves differ in sweep {s} (spare threads: {spare})");
            assert_eq!(
                a, b,
                "state differs after sweep {s} (spare threads: {spare})"
            );
            skipped_somewhere |= cache.evaluated < data.n / 2;
            a.recompute(&data, false);
            b.recompute(&data, false);
        }
        assert!(skipped_somewhere, "the bounds never skipped a point");
        // From a random partition most points move at first: those sweeps
        // ran without bounds, and the later ones started them afresh.
        assert!(off_somewhere, "every sweep kept bounds");
    }

    #[test]
    fn bounded_sweeps_equal_plain_sweeps_to_convergence() {
        // k = 300: MAX_BLOCK_PRODUCTS shortens the late sweeps' blocks.
        for &(n, d, k) in &[(2000, 4, 12), (1500, 24, 30), (1200, 2, 60), (3000, 3, 300)] {
            let x = blobs(n, d, k, (n + d) as u64);
            check_to_convergence(x.view(), k);
            check_to_convergence(x.mapv(|v| v as f32).view(), k);
        }
        // Exact duplicates (ties everywhere) and a large offset (cancellation).
        let x = Array2::from_shape_fn((900, 2), |(i, j)| ((i * (j + 3)) % 7) as f64);
        check_to_convergence(x.view(), 5);
        check_to_convergence(x.mapv(|v| v * 1e-3 + 1e6).view(), 5);
    }

    #[test]
    fn blocked_sweep_handles_duplicates_and_ties() {
        // Integer grid data with many exact duplicates: exact ties between
        // clusters are common and must be broken exactly as the reference does.
        let x = Array2::from_shape_fn((600, 2), |(i, j)| ((i * (j + 3)) % 5) as f64);
        check_sweeps(x.view(), 6, 1.0);
        check_sweeps(x.view(), 6, 1.5);
        let far = x.mapv(|v| v * 1e-3 + 1e6);
        check_sweeps(far.view(), 4, 1.0);
    }
}
