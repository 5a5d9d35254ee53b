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
//! same expressions as [`crate::sweep::best_move`], so the moves, their
//! order, and every centroid update are bit-identical to the plain sweep,
//! whatever the CPU, kernel, block size or thread count.

use crate::bounds::{rounding_gamma, Bounds, DOWN, UP};
use crate::data::{sq_dist, Data, Scalar};
use crate::kernel::{scale_for, Panel};
use crate::state::Partition;
use crate::sweep::{join_weight, leave_weight};
use rayon::prelude::*;

/// Largest block of points screened at once.
const MAX_BLOCK: usize = 256;
/// Smallest block.
const MIN_BLOCK: usize = 8;
/// Most products (rows × clusters) of one block: 256 KB of `f32`, so that
/// a block's products stay in the core's cache between the product, which
/// writes them, and the processing, which reads them. Without this cap a
/// block at k = 1000 wrote up to 1 MB, and the product kernel spent most of
/// its time on those stores: Hartigan sweeps on W4 (k = 1000, d = 8) went
/// from 94 to 72 ms (60 sweeps from a k-means++ start, one thread), and
/// 17–20 % faster at k = 500 (d = 16) and k = 1000 (d = 32); caps of 128 KB
/// and 512 KB were slower. Up to k = 256 it never binds.
const MAX_BLOCK_PRODUCTS: usize = 1 << 16;
/// Positions ahead of selection whose bounds and label are prefetched.
const LOOKAHEAD: usize = 12;

/// Scratch for one block: a run of positions of the visiting order, the
/// points among them that need an evaluation, and their screened products.
#[derive(Debug, Default)]
struct Block {
    /// The block covers positions `start..end` of the visiting order.
    start: usize,
    end: usize,
    /// Positions (increasing) whose points were predicted to need an
    /// evaluation, and those points: the rows gathered below.
    members: Vec<usize>,
    points: Vec<usize>,
    /// Number of gathered rows (`members.len()`).
    len: usize,
    /// Shifted rows in `f64` (`len × d`).
    x64: Vec<f64>,
    /// `‖x‖²·scale²/2` of each row (screen units).
    a: Vec<f64>,
    /// Scaled rows in `f32` (`len × d`).
    x32: Vec<f32>,
    /// Products with the panel (`len × kp`).
    g: Vec<f32>,
    /// The centroid snapshot the products were computed with.
    panel: Panel,
    /// Epoch of that snapshot: clusters changed at or after it are dirty.
    epoch: u64,
    /// Whether the screen holds for this block: the panel is usable and every
    /// gathered entry fits the panel's scale (the data's maximum is only a
    /// hint, so this is checked here, where it matters).
    usable: bool,
    /// Whether the panel is the previous block's with exactly the clusters
    /// that block's moves touched re-packed (see [`Live::start_block`]).
    follows: bool,
}

impl Block {
    /// Brings the panel up to the current centroids: only the clusters
    /// changed since its last snapshot are re-packed.
    fn snapshot(&mut self, p: &Partition, live: &Live, max_abs: f64) {
        // When the panel was taken at the current epoch, the clusters
        // changed since are exactly `live.touched` (no scan over all k).
        let refreshable = self.panel.k == p.k && self.epoch > 0;
        self.follows = refreshable && self.epoch == live.epoch;
        let fresh = refreshable
            && if self.follows {
                let touched = live.touched.iter().copied();
                self.panel.refresh_clusters(&p.centroids, touched)
            } else {
                self.panel.refresh(&p.centroids, &live.stamp, self.epoch)
            };
        if !fresh {
            self.follows = false;
            self.panel.pack(&p.centroids, p.k, p.d, max_abs);
        }
    }

    /// Chooses the block's positions: from `start`, every point the bounds
    /// cannot rule out becomes a member, until `cap` members (or `MAX_SPAN`
    /// positions, or the end of the sweep). The choice is only a
    /// prediction, made before earlier moves of the sweep are known; the
    /// processing re-checks every point.
    #[allow(clippy::too_many_arguments)]
    fn select<T: Scalar>(
        &mut self,
        bounds: &Bounds,
        p: &Partition,
        data: &Data<'_, T>,
        order: &[usize],
        start: usize,
        cap: usize,
        factor: f64,
        row: &mut [f64],
    ) {
        self.start = start;
        self.members.clear();
        self.points.clear();
        let limit = (start + MAX_SPAN).min(order.len());
        let mut pos = start;
        while pos < limit && self.members.len() < cap {
            // The visiting order is random: start loading the bounds and the
            // label of a point a few positions ahead, so that they are in
            // cache when its turn comes (measured: about 10 % off a sweep on
            // 100,000 points, where these arrays outgrow the L2 cache).
            if let Some(&ahead) = order.get(pos + LOOKAHEAD) {
                bounds.prefetch(ahead);
                crate::data::prefetch(std::slice::from_ref(&p.labels[ahead]));
            }
            let i = order[pos];
            let r = p.labels[i];
            let n_r = p.counts[r];
            if n_r > 1 && !bounds.predicts_stay(i, r, p, factor, data, row) {
                self.members.push(pos);
                self.points.push(i);
                data.prefetch(i);
            }
            pos += 1;
        }
        self.end = pos;
    }

    /// Chooses the block starting at position `start` and takes its
    /// centroid snapshot at a new epoch of `live`.
    #[allow(clippy::too_many_arguments)]
    fn open<T: Scalar>(
        &mut self,
        live: &mut Live,
        bounds: &Bounds,
        p: &Partition,
        data: &Data<'_, T>,
        order: &[usize],
        start: usize,
        cap: usize,
        factor: f64,
        row: &mut [f64],
    ) {
        self.select(bounds, p, data, order, start, cap, factor, row);
        self.snapshot(p, live, data.max_abs_shifted());
        live.next_epoch();
        self.epoch = live.epoch;
    }

    /// [`Block::fill`] with the block's own chosen points.
    fn fill_members<T: Scalar>(&mut self, data: &Data<'_, T>) {
        let points = std::mem::take(&mut self.points);
        self.fill(data, &points);
        self.points = points;
    }

    /// Gathers the rows of `idx` (the block's points) and computes their
    /// products with `panel`, on the calling thread: a block is at most
    /// [`MAX_BLOCK`] rows, and splitting its product over the pool cost
    /// more than it saved (measured on 2 cores, one restart: Hartigan sweeps
    /// 20 % slower on W2, 11 % on W3, 25 % on W4, Smartigan's schedule
    /// sweeps 15 % slower on W2; the product is about a tenth of a sweep,
    /// so no thread count could win much back).
    fn fill<T: Scalar>(&mut self, data: &Data<'_, T>, idx: &[usize]) {
        let d = data.d;
        let len = idx.len();
        self.len = len;
        self.x64.resize(len * d, 0.0);
        self.x32.resize(len * d, 0.0);
        self.a.resize(len, 0.0);
        let scale = self.panel.scale;
        let half = self.panel.half_scale2();
        let mut max_abs: f64 = 0.0;
        for (t, &i) in idx.iter().enumerate() {
            let row = &mut self.x64[t * d..(t + 1) * d];
            data.load_shifted(i, row);
            let (s, m) = scale_row(row, scale, &mut self.x32[t * d..(t + 1) * d]);
            max_abs = max_abs.max(m);
            self.a[t] = s * half;
        }
        self.usable = self.panel.usable && max_abs * scale <= 2.0;
        let kp = self.panel.kp;
        self.g.resize(len * kp, 0.0);
        if !self.panel.usable {
            return;
        }
        self.panel.product(&self.x32, len, &mut self.g);
    }
}

/// Writes `row·scale` rounded to `f32` into `out` and returns `(‖row‖², max
/// |row|)`. The sum is taken in eight independent partial sums (any order
/// serves the screen that reads it): with one running sum every addition
/// waited for the previous one (measured: about 8 % of a Smartigan sweep on
/// W3, d = 256; within noise at d = 32).
#[inline(always)]
fn scale_row(row: &[f64], scale: f64, out: &mut [f32]) -> (f64, f64) {
    const C: usize = 8;
    for (o, v) in out.iter_mut().zip(row) {
        *o = (v * scale) as f32;
    }
    let (mut sum, mut max) = ([0.0f64; C], [0.0f64; C]);
    let chunks = row.chunks_exact(C);
    let rest = chunks.remainder();
    for v in chunks {
        let v: &[f64; C] = v.try_into().unwrap_or(&[0.0; C]);
        for l in 0..C {
            sum[l] += v[l] * v[l];
            let a = v[l].abs();
            max[l] = if a > max[l] { a } else { max[l] };
        }
    }
    for (l, v) in rest.iter().enumerate() {
        sum[l] += v * v;
        let a = v.abs();
        max[l] = if a > max[l] { a } else { max[l] };
    }
    let s = sum.iter().sum();
    let m = max.iter().fold(0.0f64, |m, &v| if v > m { v } else { m });
    (s, m)
}

/// Per-cluster bookkeeping of a blocked sweep.
struct Live {
    /// `join_weight(counts[j])` as `f32`, kept current, padded with 1 to `kp`.
    w: Vec<f32>,
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

impl Live {
    fn new(counts: &[usize]) -> Self {
        let k = counts.len();
        let mut w: Vec<f32> = counts
            .iter()
            .map(|&c| join_weight(1.0, c as f64) as f32)
            .collect();
        w.resize(k.div_ceil(crate::kernel::W) * crate::kernel::W, 1.0);
        Live {
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
        // snapshot: O(dirty) instead of O(k) per block (W4 has k = 1,000).
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
        self.w[j] = join_weight(1.0, counts[j] as f64) as f32;
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

/// One screened cost in screen units.
#[inline(always)]
fn screen(w: f32, h: f32, g: f32, a: f32) -> f32 {
    w * ((a + h) - g)
}

/// `min_j w_j·((a + h_j) − g_j)` over the padded arrays (length a multiple
/// of 16), sixteen lanes wide.
#[inline(always)]
fn screened_min(w: &[f32], h: &[f32], g: &[f32], a: f32) -> f32 {
    let mut acc = [f32::INFINITY; 16];
    for ((w, h), g) in w
        .chunks_exact(16)
        .zip(h.chunks_exact(16))
        .zip(g.chunks_exact(16))
    {
        for l in 0..16 {
            let c = screen(w[l], h[l], g[l], a);
            acc[l] = if c < acc[l] { c } else { acc[l] };
        }
    }
    acc.iter()
        .fold(f32::INFINITY, |m, &c| if c < m { c } else { m })
}

/// Every cluster `j < k` whose screened cost `w_j·((a + h_j) − g_j)` is
/// finite and at most `limit` goes to `out`, in increasing order; returns
/// the smallest screened cost of the clusters left out (`+∞` if none).
/// Sixteen lanes at a time, compared in `f32` with `limit` rounded to the
/// nearest `f32` (at most `f32::MAX`): no `f32` lies strictly between
/// `limit` and that, so the list never misses such a cluster, and may hold
/// a few whose screen exceeds `limit` by half an `f32` ulp at most, which
/// the callers evaluate exactly like any other candidate (always safe).
/// Clusters screened at `+∞` are never listed, whatever `limit`: the own
/// cluster, dirty ones (evaluated on their own) and padding. A scalar loop
/// converting every screen to `f64` took a quarter of a sweep's decisions
/// at k = 1000.
#[inline(always)]
fn screened_candidates(
    w: &[f32],
    h: &[f32],
    g: &[f32],
    a: f32,
    limit: f64,
    k: usize,
    out: &mut Vec<usize>,
) -> f64 {
    let bound = (limit as f32).min(f32::MAX);
    let mut outside = [f32::INFINITY; 16];
    for (q, ((w, h), g)) in w
        .chunks_exact(16)
        .zip(h.chunks_exact(16))
        .zip(g.chunks_exact(16))
        .enumerate()
    {
        let mut mask = 0u32;
        for l in 0..16 {
            let c = screen(w[l], h[l], g[l], a);
            let inside = c <= bound;
            mask |= u32::from(inside) << l;
            let off = if inside { f32::INFINITY } else { c };
            outside[l] = if off < outside[l] { off } else { outside[l] };
        }
        while mask != 0 {
            let j = q * 16 + mask.trailing_zeros() as usize;
            mask &= mask - 1;
            // Padding (`j ≥ k`) screens at +∞ and never gets here.
            if j < k {
                out.push(j);
            }
        }
    }
    f64::from(
        outside
            .iter()
            .fold(f32::INFINITY, |m, &c| if c < m { c } else { m }),
    )
}

/// The decision of [`crate::sweep::best_move`] for one point, via the
/// screen, with what was learnt on the way: the computed `sq_dist` to the own
/// centroid and a lower bound on every other cluster's computed cost
/// (used by [`Bounds::record`]).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn decide(
    p: &Partition,
    live: &mut Live,
    panel: &Panel,
    x: &[f64],
    a: f64,
    g: &[f32],
    r: usize,
    factor: f64,
) -> (Option<usize>, f64, f64) {
    let n_r = p.counts[r];
    let own_dist = sq_dist(x, p.centroid(r));
    if n_r <= 1 {
        return (None, own_dist, 0.0);
    }
    // Exactly the reference's expressions.
    let own = factor * leave_weight(1.0, n_r as f64) * own_dist;
    let (mut best, mut best_j) = (f64::INFINITY, usize::MAX);
    for &j in &live.dirty {
        if j == r {
            continue;
        }
        let cost = join_weight(1.0, p.counts[j] as f64) * sq_dist(x, p.centroid(j));
        if cost < best || (cost == best && j < best_j) {
            best = cost;
            best_j = j;
        }
    }
    let half = panel.half_scale2();
    let saved = live.h[r];
    live.h[r] = f32::INFINITY;
    let a32 = a as f32;
    let m = f64::from(screened_min(&live.w, &live.h, g, a32));
    let e = panel.error_bound(a);
    // Every clean cost is at least `(m − e)/half`, every dirty one at least
    // `best` (`half` is a power of two: the division is exact).
    let lower = ((m - e) / half).min(best);
    if m - e >= own * half && best >= own {
        live.h[r] = saved;
        return (None, own_dist, lower);
    }
    let limit = (m + e).min(best * half) + e;
    live.cand.clear();
    screened_candidates(&live.w, &live.h, g, a32, limit, p.k, &mut live.cand);
    live.h[r] = saved;
    for &j in &live.cand {
        let cost = join_weight(1.0, p.counts[j] as f64) * sq_dist(x, p.centroid(j));
        if cost < best || (cost == best && j < best_j) {
            best = cost;
            best_j = j;
        }
    }
    ((best < own).then_some(best_j), own_dist, lower.min(best))
}

/// Block size for the observed fraction of points that move: small blocks
/// while many points move (each move makes two clusters dirty for the rest of
/// the block, and every later point of the block evaluates a dirty cluster
/// exactly), large ones once the partition settles. The block is sized so
/// that about `k·d/2048` clusters (at least 2, at most `k/8`) are dirty by
/// its end: in A/B runs of Smartigan's schedule sweeps this was about 12 %
/// faster than `k/8` on W2 (k=100, d=32) and 6 % on W4 (k=1000, d=8), and
/// neutral on W1 (k=20, d=16); on W3 (k=50, d=256) smaller targets were
/// slower, and there `k/8` is kept. At most [`max_block_rows`]
/// rows. Only speed depends on it.
fn block_size(k: usize, d: usize, rate: f64) -> usize {
    let target_dirty = (k as f64 * d as f64 / 2048.0).min(k as f64 / 8.0).max(2.0);
    let b = target_dirty / (2.0 * rate.max(1e-9));
    (b as usize).clamp(MIN_BLOCK, max_block_rows(k))
}

/// Most rows of a block against `clusters` centroids: [`MAX_BLOCK`], fewer
/// where their products would exceed [`MAX_BLOCK_PRODUCTS`].
fn max_block_rows(clusters: usize) -> usize {
    (MAX_BLOCK_PRODUCTS / clusters.max(1)).clamp(MIN_BLOCK, MAX_BLOCK)
}

/// State a restart keeps between blocked sweeps (performance only: nothing
/// in it changes a decision).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SweepHint {
    /// Smoothed fraction of evaluated points that moved.
    pub rate: f64,
    /// Per-point bounds from earlier sweeps.
    pub bounds: Option<Bounds>,
    /// Points the last sweep had to evaluate (the others were skipped by
    /// their bounds or are alone in their cluster).
    pub evaluated: usize,
    /// Per-point bounds from the last Lloyd iteration.
    pub lloyd: Option<LloydBounds>,
}

impl Default for SweepHint {
    fn default() -> Self {
        SweepHint {
            rate: 0.1,
            bounds: None,
            evaluated: 0,
            lloyd: None,
        }
    }
}

/// One Hartigan sweep with acceptance factor `factor`, visiting `order`:
/// the same moves as [`crate::sweep::sweep`], bit for bit. Points whose
/// bounds prove they stay are skipped ([`crate::bounds`]). One thread: the
/// moves are sequential, and a block is too small to split (see
/// [`Block::fill`]).
pub(crate) fn sweep_blocked<T: Scalar>(
    p: &mut Partition,
    data: &Data<'_, T>,
    order: &[usize],
    factor: f64,
    hint: &mut SweepHint,
) -> usize {
    if p.k <= 1 || scale_for(data.max_abs_shifted()).is_none() {
        return crate::sweep::sweep(p, data, order, factor);
    }
    let mut bounds = match hint.bounds.take() {
        Some(b) if b.fits(data.n, p.k, p.d) => b,
        _ => match Bounds::new(data.n, p.k, p.d) {
            Some(b) => b,
            None => return crate::sweep::sweep(p, data, order, factor),
        },
    };
    bounds.begin_sweep(&p.centroids, &p.counts);
    let moves = dispatch_sweep(p, data, order, factor, hint, &mut bounds);
    bounds.end_sweep(&p.centroids);
    hint.bounds = Some(bounds);
    moves
}

/// Whether [`multiversion!`] runs the AVX-512 copy of its kernels here.
#[cfg(target_arch = "x86_64")]
fn avx512_kernels() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("fma")
}

macro_rules! multiversion {
    ($generic:ident, $dispatch:ident, ($($arg:ident : $ty:ty),*) -> $ret:ty) => {
        fn $dispatch<T: Scalar>($($arg: $ty),*) -> $ret {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f,avx2,fma")]
                unsafe fn v512<T: Scalar>($($arg: $ty),*) -> $ret {
                    $generic($($arg),*)
                }
                #[target_feature(enable = "avx2,fma")]
                unsafe fn v256<T: Scalar>($($arg: $ty),*) -> $ret {
                    $generic($($arg),*)
                }
                if avx512_kernels() {
                    // SAFETY: the features were detected on this CPU.
                    return unsafe { v512::<T>($($arg),*) };
                }
                if std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("fma")
                {
                    // SAFETY: the features were detected on this CPU.
                    return unsafe { v256::<T>($($arg),*) };
                }
            }
            $generic($($arg),*)
        }
    };
}

multiversion!(sweep_body, dispatch_sweep, (p: &mut Partition, data: &Data<'_, T>, order: &[usize], factor: f64, hint: &mut SweepHint, bounds: &mut Bounds) -> usize);

#[inline(always)]
fn sweep_body<T: Scalar>(
    p: &mut Partition,
    data: &Data<'_, T>,
    order: &[usize],
    factor: f64,
    hint: &mut SweepHint,
    bounds: &mut Bounds,
) -> usize {
    let (k, d) = (p.k, p.d);
    let max_abs = data.max_abs_shifted();
    let mut live = Live::new(&p.counts);
    let mut cur = Block::default();
    let mut next = Block::default();
    let mut scratch = vec![0.0; d];
    let (mut moves, mut evaluated) = (0, 0);
    let mut rate = hint.rate;

    // First block: snapshot at epoch 1.
    cur.panel.pack(&p.centroids, k, d, max_abs);
    cur.epoch = live.epoch;
    cur.select(
        bounds,
        p,
        data,
        order,
        0,
        block_size(k, d, rate),
        factor,
        &mut scratch,
    );
    cur.fill_members(data);

    while cur.start < order.len() {
        let next_start = cur.end;
        let cap = block_size(k, d, rate);
        let (moved, seen) = process_block(
            p,
            data,
            order,
            &cur,
            &mut live,
            bounds,
            factor,
            &mut scratch,
        );
        // The next block is chosen and snapshotted after this one, so the
        // bounds and the snapshot already include this block's moves.
        // (Overlapping the next block's product with this block's
        // processing was measured slower: its choice could not see this
        // block's moves, so it predicted worse.)
        // The next snapshot starts from this block's, the latest: only the
        // clusters this block's moves touched are re-packed (the other
        // block's panel is a block older and would re-pack two blocks'
        // worth).
        std::mem::swap(&mut next.panel, &mut cur.panel);
        next.epoch = cur.epoch;
        next.open(
            &mut live,
            bounds,
            p,
            data,
            order,
            next_start,
            cap,
            factor,
            &mut scratch,
        );
        next.fill_members(data);
        moves += moved;
        evaluated += seen;
        if seen > 0 {
            let observed = moved as f64 / seen as f64;
            rate = 0.5 * rate + 0.5 * observed;
        }
        std::mem::swap(&mut cur, &mut next);
    }
    hint.rate = (moves as f64 / evaluated.max(1) as f64).max(1e-6);
    hint.evaluated = evaluated;
    moves
}

/// Positions of the visiting order one block may span: keeps the bounds of
/// a block's points in cache between its selection and its processing when
/// almost every point is skipped.
const MAX_SPAN: usize = 4096;

/// Processes the positions of `block` in order against the live partition:
/// points the bounds rule out are skipped, members are decided through the
/// screen, and any other point (predicted to stay, but an earlier move of
/// this block changed that) exactly. Returns (moves, points evaluated).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn process_block<T: Scalar>(
    p: &mut Partition,
    data: &Data<'_, T>,
    order: &[usize],
    block: &Block,
    live: &mut Live,
    bounds: &mut Bounds,
    factor: f64,
    scratch: &mut [f64],
) -> (usize, usize) {
    let d = p.d;
    let kp = block.panel.kp;
    live.start_block(block);
    let (mut moves, mut evaluated) = (0, 0);
    let mut member = 0;
    for (pos, &i) in order.iter().enumerate().take(block.end).skip(block.start) {
        bounds.at_position(pos, &p.centroids);
        let t = member;
        let is_member = block.members.get(member) == Some(&pos);
        member += usize::from(is_member);
        let r = p.labels[i];
        let n_r = p.counts[r];
        // A member failed the bounds at selection; since then displacements
        // have only grown and the size bound only fallen (up to a centroid
        // drifting back), so checking again almost never skips it (measured
        // on W2: once in about 10⁵ members) and it goes straight to the exact
        // decision. Other points were predicted to stay and are re-checked,
        // because moves earlier in the block may have changed that.
        if n_r <= 1 || (!is_member && bounds.skip(i, r, p, factor, data, scratch)) {
            continue;
        }
        evaluated += 1;
        let moved = if is_member && block.usable {
            let x = &block.x64[t * d..(t + 1) * d];
            let g = &block.g[t * kp..(t + 1) * kp];
            let (to, own_dist, lower) = decide(p, live, &block.panel, x, block.a[t], g, r, factor);
            settle(p, live, bounds, i, x, r, to, own_dist, lower)
        } else {
            let x = if is_member {
                &block.x64[t * d..(t + 1) * d]
            } else {
                data.load_shifted(i, scratch);
                &*scratch
            };
            let (mut own_dist, mut lower) = (0.0, f64::INFINITY);
            let to = crate::sweep::choose_move(&p.weights, r, 1.0, factor, |j| {
                let dist = sq_dist(x, p.centroid(j));
                if j == r {
                    own_dist = dist;
                } else if dist < lower {
                    lower = dist;
                }
                dist
            });
            settle(p, live, bounds, i, x, r, to, own_dist, lower)
        };
        moves += usize::from(moved);
    }
    (moves, evaluated)
}

/// Applies the decision for point `i` (row `x`, in cluster `r`) and keeps
/// the bounds current. Returns whether it moved.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn settle(
    p: &mut Partition,
    live: &mut Live,
    bounds: &mut Bounds,
    i: usize,
    x: &[f64],
    r: usize,
    to: Option<usize>,
    own_dist: f64,
    lower: f64,
) -> bool {
    let Some(j) = to else {
        bounds.record(i, r, own_dist, lower);
        return false;
    };
    p.move_point(i, x, 1.0, j);
    bounds.after_move(&p.centroids, &p.counts, r, j);
    live.touch(r, &p.counts);
    live.touch(j, &p.counts);
    // The distance to the new centroid is known; the others are not.
    bounds.record(i, j, sq_dist(x, p.centroid(j)), 0.0);
    true
}

/// Nearest centroid for every point, with exactly the reference's answers
/// (`Partition::nearest`: ties keep `current[i]` when given, else go to the
/// lowest index). Parallel over fixed chunks of points.
pub(crate) fn assign_nearest<T: Scalar>(
    data: &Data<'_, T>,
    centroids: &[f64],
    k: usize,
    current: Option<&[usize]>,
) -> Vec<usize> {
    let probe = Partition::with_centroids(k, data.d, centroids.to_vec());
    let mut panel = Panel::default();
    panel.pack(centroids, k, data.d, data.max_abs_shifted());
    let mut out = vec![0usize; data.n];
    out.par_chunks_mut(ASSIGN_CHUNK)
        .enumerate()
        .for_each(|(c, labels)| {
            let start = c * ASSIGN_CHUNK;
            let idx: Vec<usize> = (start..start + labels.len()).collect();
            let mut found = vec![Nearest::default(); idx.len()];
            assign_chunk(data, &probe, &panel, &idx, current, &mut found);
            for (l, f) in labels.iter_mut().zip(&found) {
                *l = f.label;
            }
        });
    out
}

/// Hamerly-style bounds of the accelerated Lloyd iteration, valid for the
/// centroids of the last assignment: `upper[i]` is at least the exact
/// distance (not squared) from point `i` to its centroid `label[i]`,
/// `lower[i]` at most its exact distance to every other centroid.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LloydBounds {
    upper: Vec<f64>,
    lower: Vec<f64>,
    label: Vec<u32>,
    /// The centroids the bounds refer to (`k × d`).
    centroids: Vec<f64>,
    /// Points the last assignment had to evaluate (tests).
    pub evaluated: usize,
}

/// [`assign_nearest`] for a Lloyd iteration, with the same answers, that
/// skips points whose bounds prove their current label is kept.
///
/// After the centroids move by `δ_j` (rounded up), a point of cluster `a`
/// has exact distances `‖x − μ_a‖ ≤ u + δ_a` and `‖x − μ_j‖ ≥ l − max_{j≠a} δ_j`.
/// The reference keeps `a` unless some computed `sq_dist` is strictly below
/// the computed `sq_dist` to `a`; each computed value is within a factor
/// `1 ± γ` of the exact one ([`rounding_gamma`]),
/// so `u²(1 + γ) ≤ l²(1 − γ)` proves it keeps `a`; the test uses `4γ` on
/// both sides to cover its own rounding, and bounds are stored with `2γ`
/// and rounded outwards.
pub(crate) fn assign_nearest_bounded<T: Scalar>(
    data: &Data<'_, T>,
    centroids: &[f64],
    k: usize,
    current: &[usize],
    state: &mut Option<LloydBounds>,
) -> Vec<usize> {
    let (n, d) = (data.n, data.d);
    let gamma = rounding_gamma(d);
    let previous = state
        .take()
        .filter(|b| b.upper.len() == n && b.centroids.len() == k * d && k <= u32::MAX as usize);
    // Per cluster: an upper bound on how far its centroid moved, and the
    // largest such bound over the other clusters.
    let (drift, other_drift) = match &previous {
        Some(b) => {
            let drift: Vec<f64> = (0..k)
                .map(|j| {
                    let (now, then) = (
                        &centroids[j * d..(j + 1) * d],
                        &b.centroids[j * d..(j + 1) * d],
                    );
                    (sq_dist(now, then) * (1.0 + gamma)).sqrt() * UP
                })
                .collect();
            let (mut first, mut second) = ((0.0f64, usize::MAX), 0.0f64);
            for (j, &v) in drift.iter().enumerate() {
                if v > first.0 {
                    second = first.0;
                    first = (v, j);
                } else if v > second {
                    second = v;
                }
            }
            let other = (0..k)
                .map(|j| if j == first.1 { second } else { first.0 })
                .collect();
            (drift, other)
        }
        None => (Vec::new(), Vec::new()),
    };
    let probe = Partition::with_centroids(k, d, centroids.to_vec());
    let mut panel = Panel::default();
    panel.pack(centroids, k, d, data.max_abs_shifted());
    let mut next = LloydBounds {
        upper: vec![0.0; n],
        lower: vec![0.0; n],
        label: vec![0; n],
        centroids: centroids.to_vec(),
        evaluated: 0,
    };
    let mut out = vec![0usize; n];
    let evaluated: usize = out
        .par_chunks_mut(ASSIGN_CHUNK)
        .zip(next.upper.par_chunks_mut(ASSIGN_CHUNK))
        .zip(next.lower.par_chunks_mut(ASSIGN_CHUNK))
        .zip(next.label.par_chunks_mut(ASSIGN_CHUNK))
        .enumerate()
        .map(|(c, (((labels, upper), lower), label))| {
            let start = c * ASSIGN_CHUNK;
            let mut todo = Vec::new();
            for (o, i) in (start..start + labels.len()).enumerate() {
                let a = current[i];
                if let Some(b) = &previous {
                    if b.label[i] as usize == a {
                        let u = (b.upper[i] + drift[a]) * UP;
                        let l = (b.lower[i] - other_drift[a]) * DOWN;
                        if l > 0.0 && u * u * (1.0 + 4.0 * gamma) <= l * l * (1.0 - 4.0 * gamma) {
                            (labels[o], upper[o], lower[o], label[o]) = (a, u, l, a as u32);
                            continue;
                        }
                    }
                }
                todo.push(i);
            }
            let mut found = vec![Nearest::default(); todo.len()];
            assign_chunk(data, &probe, &panel, &todo, Some(current), &mut found);
            for (&i, f) in todo.iter().zip(&found) {
                let o = i - start;
                labels[o] = f.label;
                label[o] = f.label as u32;
                upper[o] = (f.dist * (1.0 + 2.0 * gamma)).sqrt() * UP;
                lower[o] = (f.other * (1.0 - 2.0 * gamma)).max(0.0).sqrt() * DOWN;
            }
            todo.len()
        })
        .sum();
    next.evaluated = evaluated;
    *state = Some(next);
    out
}

/// What the assignment found for one point: the reference's nearest label,
/// its computed `sq_dist`, and a lower bound on the computed `sq_dist` to
/// every other centroid (`+∞` if there is none).
#[derive(Debug, Clone, Copy, Default)]
struct Nearest {
    label: usize,
    dist: f64,
    other: f64,
}

/// Points per parallel task of [`assign_nearest`]. Fixed, though nothing in
/// the result depends on it.
const ASSIGN_CHUNK: usize = 2048;

multiversion!(assign_body, assign_chunk, (data: &Data<'_, T>, probe: &Partition, panel: &Panel, idx: &[usize], current: Option<&[usize]>, found: &mut [Nearest]) -> ());

#[inline(always)]
fn assign_body<T: Scalar>(
    data: &Data<'_, T>,
    probe: &Partition,
    panel: &Panel,
    idx: &[usize],
    current: Option<&[usize]>,
    found: &mut [Nearest],
) {
    let d = data.d;
    let k = probe.k;
    let ones = vec![1.0f32; panel.kp];
    let mut block = Block {
        panel: panel.clone(),
        ..Block::default()
    };
    let mut cand = Vec::with_capacity(k);
    let rows = max_block_rows(panel.kp);
    for (bi, chunk) in idx.chunks(rows).enumerate() {
        block.fill(data, chunk);
        let kp = panel.kp;
        for (q, &i) in chunk.iter().enumerate() {
            let o = bi * rows + q;
            let x = &block.x64[q * d..(q + 1) * d];
            let cur = current.map(|c| c[i]);
            if !block.usable {
                found[o] = nearest_exactly(probe, x, cur);
                continue;
            }
            let a = block.a[q];
            let a32 = a as f32;
            let g = &block.g[q * kp..(q + 1) * kp];
            let m = f64::from(screened_min(&ones, &panel.h, g, a32));
            let e = panel.error_bound(a);
            let limit = m + 2.0 * e;
            cand.clear();
            // The smallest screen of a centroid off the candidate list.
            let outside = screened_candidates(&ones, &panel.h, g, a32, limit, k, &mut cand);
            let (mut best_j, mut best) = match cur {
                Some(r) if cand.contains(&r) => (r, sq_dist(x, probe.centroid(r))),
                _ => (cur.unwrap_or(0), f64::INFINITY),
            };
            // A screen `c` bounds the computed `sq_dist` from below by
            // `(c − e)/half` (`half` is a power of two: exact); candidates
            // are computed below.
            let mut other = (outside - e) / panel.half_scale2();
            for &j in &cand {
                if Some(j) == cur && j == best_j {
                    continue;
                }
                let dist = sq_dist(x, probe.centroid(j));
                if dist < best {
                    // The displaced best is now an other (`+∞` changes nothing).
                    other = other.min(best);
                    best = dist;
                    best_j = j;
                } else {
                    other = other.min(dist);
                }
            }
            found[o] = Nearest {
                label: best_j,
                dist: best,
                other,
            };
        }
    }
}

/// [`Partition::nearest`] with its distance and the smallest other one
/// (every distance exact; for blocks the screen cannot take).
fn nearest_exactly(probe: &Partition, x: &[f64], current: Option<usize>) -> Nearest {
    let label = probe.nearest(x, current);
    let other = (0..probe.k)
        .filter(|&j| j != label)
        .map(|j| sq_dist(x, probe.centroid(j)))
        .fold(f64::INFINITY, f64::min);
    Nearest {
        label,
        dist: sq_dist(x, probe.centroid(label)),
        other,
    }
}

/// Most lanes of the batched exact distance kernel (one per k-means++ trial).
pub(crate) const PP_LANES: usize = 16;

/// Lanes of the k-means++ pass for `trials` trials: 4, 8 or [`PP_LANES`].
/// Spare lanes cost as much as used ones (`k ≤ 20` has at most 4 trials,
/// `k < e⁷ ≈ 1097` at most 8).
pub(crate) fn plus_plus_lanes_for(trials: usize) -> usize {
    match trials {
        0..=4 => 4,
        5..=8 => 8,
        _ => PP_LANES,
    }
}

/// One k-means++ centre's trial candidates, and what each point knows.
pub(crate) struct PlusPlusTrials<'a> {
    /// Candidates transposed: `ct[c·lanes + t]` is coordinate `c` of
    /// candidate `t`; lanes past `trials` repeat candidate 0.
    pub ct: &'a [f64],
    /// [`plus_plus_lanes_for`] the trials: 4, 8 or 16.
    pub lanes: usize,
    /// Number of candidates (at most [`PP_LANES`]).
    pub trials: usize,
    /// The candidates, row after row (`trials × d`).
    pub cands: &'a [f64],
    /// `‖y_t‖²` of every lane's candidate (any summation order), as `ct`.
    pub cand_norms: &'a [f64],
    /// Each point's squared distance to its closest centre so far.
    pub closest: &'a [f64],
    /// `‖x_i‖²` of every shifted point (any summation order).
    pub norms: &'a [f64],
    /// Each point's centre: `closest[i]` was computed against centre
    /// `assign[i]`.
    pub assign: &'a [u32],
    /// Per centre `a`: a point with `assign[i] == a` and
    /// `floor ≤ closest[i] ≤ limits[a]` provably has no trial strictly
    /// closer than `closest[i]` (triangle inequality, see
    /// `init::prune_limits`).
    pub limits: &'a [f64],
    /// Below it, `closest[i]` is not trusted by the triangle test
    /// (underflow).
    pub floor: f64,
    /// Whether `f64::mul_add` is a single instruction here (else the screen
    /// multiplies and adds separately; either is covered by its bound).
    pub fused: bool,
    /// Where to count what the pass skipped (tests only).
    pub stats: Option<&'a PlusPlusStats>,
}

/// How many points the k-means++ pass skipped, and how: for tests, which
/// must know that the pruning they check actually happens.
#[derive(Debug, Default)]
pub(crate) struct PlusPlusStats {
    /// Points visited (those with `closest > 0`).
    pub visited: std::sync::atomic::AtomicUsize,
    /// Skipped by the triangle test, without reading the row.
    pub triangle: std::sync::atomic::AtomicUsize,
    /// Skipped by the screen.
    pub screened: std::sync::atomic::AtomicUsize,
}

/// `sq_dist(x, y_t)` for every lane `t` at once, with exactly the summation
/// order of [`sq_dist`] in each lane, so every lane is bit-identical to the
/// scalar kernel: below [`crate::data::WIDE_FROM`] features four
/// accumulators over groups of four; from there on the sixteen of
/// [`crate::data::sum_of_squares_wide`], taken four at a time (coordinates
/// `16g + 4q .. + 4` of every chunk `g`, then, for `q = 0`, the remaining
/// groups of four), so that only four per lane are live either way. No
/// operation is fused or reassociated (Rust guarantees both), whatever
/// vector width the compiler picks.
#[inline(always)]
fn sq_dist_lanes<const L: usize>(x: &[f64], ct: &[f64], out: &mut [f64; L]) {
    let d = x.len();
    let quads = d / 4 * 4;
    // Below WIDE_FROM no chunk of sixteen: one pass of four accumulators
    // over every group of four, and no fold.
    let full = if d >= crate::data::WIDE_FROM {
        d / 16 * 16
    } else {
        0
    };
    let mut acc = [[0.0f64; L]; 16];
    let passes = if full == 0 { 1 } else { 4 };
    for q in 0..passes {
        let mut a = [[0.0f64; L]; 4];
        let mut add = |c: usize| {
            for (j, a) in a.iter_mut().enumerate() {
                let xv = x[c + j];
                let y = &ct[(c + j) * L..(c + j + 1) * L];
                for t in 0..L {
                    let diff = xv - y[t];
                    a[t] += diff * diff;
                }
            }
        };
        for g in (0..full).step_by(16) {
            add(g + 4 * q);
        }
        if q == 0 {
            for c in (full..quads).step_by(4) {
                add(c);
            }
        }
        acc[4 * q..4 * q + 4].copy_from_slice(&a);
    }
    // The fold of `sum_of_squares_wide`, lane by lane.
    let mut width = if full == 0 { 4 } else { 16 };
    while width > 4 {
        width /= 2;
        for l in 0..width {
            let upper = acc[l + width];
            for (a, u) in acc[l].iter_mut().zip(upper) {
                *a += u;
            }
        }
    }
    for t in 0..L {
        out[t] = (acc[0][t] + acc[1][t]) + (acc[2][t] + acc[3][t]);
    }
    for c in quads..d {
        let xv = x[c];
        for t in 0..L {
            let diff = xv - ct[c * L + t];
            out[t] += diff * diff;
        }
    }
}

/// For the points `start..start + len` and every restart `r` of `trs`:
/// every `(i, sq_dist(x_i, y_t))` with the exact distance strictly below
/// that restart's `closest[i]`, per trial `t`, in index order (`[r][t]`).
/// Points that provably have no such distance are skipped on the way (see
/// [`plus_plus_lanes`]). The restarts share one read of each row: their
/// passes are independent, so each restart's lists are exactly those of a
/// pass of its own.
pub(crate) fn plus_plus_changes<T: Scalar>(
    data: &Data<'_, T>,
    trs: &[PlusPlusTrials<'_>],
    start: usize,
    len: usize,
) -> Vec<TrialChanges> {
    let mut out: Vec<TrialChanges> = trs.iter().map(|tr| vec![Vec::new(); tr.trials]).collect();
    if let Some(first) = trs.first() {
        plus_plus_dispatch(data, trs, first.lanes, first.fused, start, len, &mut out);
    }
    out
}

/// One restart's changes in a k-means++ pass over some points: per trial,
/// the `(point, distance)` pairs below the point's `closest`, in index order.
pub(crate) type TrialChanges = Vec<Vec<(u32, f64)>>;

/// Most restarts one k-means++ pass serves (one bit each per point).
pub(crate) const PP_MAX_RESTARTS: usize = 64;

/// Whether `f64::mul_add` compiles to one instruction in the kernels that
/// [`multiversion!`] selects on this CPU.
pub(crate) fn fused_multiply_add() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(target_arch = "aarch64")]
    {
        true
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        false
    }
}

multiversion!(plus_plus_body, plus_plus_dispatch, (data: &Data<'_, T>, trs: &[PlusPlusTrials<'_>], lanes: usize, fused: bool, start: usize, len: usize, out: &mut [TrialChanges]) -> ());

#[inline(always)]
fn plus_plus_body<T: Scalar>(
    data: &Data<'_, T>,
    trs: &[PlusPlusTrials<'_>],
    lanes: usize,
    fused: bool,
    start: usize,
    len: usize,
    out: &mut [TrialChanges],
) {
    match (lanes, fused) {
        (4, true) => plus_plus_lanes::<T, 4, true>(data, trs, start, len, out),
        (4, false) => plus_plus_lanes::<T, 4, false>(data, trs, start, len, out),
        (8, true) => plus_plus_lanes::<T, 8, true>(data, trs, start, len, out),
        (8, false) => plus_plus_lanes::<T, 8, false>(data, trs, start, len, out),
        (_, true) => plus_plus_lanes::<T, PP_LANES, true>(data, trs, start, len, out),
        (_, false) => plus_plus_lanes::<T, PP_LANES, false>(data, trs, start, len, out),
    }
}

/// Points screened together (a multiple of [`PP_TILE`]).
const PP_BLOCK: usize = 64;
/// Most rows of a register tile of the screen's products.
const PP_TILE: usize = 8;
/// Lanes of one register tile (rows × trial lanes): 8 vectors of four `f64`
/// accumulators, half the AVX2 register file, so that the candidate loads and
/// row broadcasts fit beside them without spilling, while eight independent
/// multiply-add chains cover the instruction's latency (two issued a cycle,
/// four or five cycles each). A tile of two rows with four partial sums
/// per row (16 vectors of accumulators) spilled to the stack on every step.
const TILE_LANES: usize = 32;
/// [`TILE_LANES`] where the AVX-512 kernels run: 8 vectors of eight `f64`
/// accumulators out of 32 registers. With 32 lanes an 8-trial tile had 4
/// rows, so 4 multiply-add chains, half the rate the latency allows: ten
/// k-means++ starts drawn together took 8 % longer on W2 (2.04 against
/// 1.88 s, 2 threads), 4 % on W3 and 9 % on W1.
const TILE_LANES_AVX512: usize = 64;

/// Lanes of one register tile on this CPU: [`TILE_LANES_AVX512`] where the
/// kernels run their AVX-512 copy ([`avx512_kernels`]), else [`TILE_LANES`].
/// Only speed depends on it: the tile's products feed the screen, whose
/// bound holds for any summation order.
fn tile_lanes() -> usize {
    #[cfg(target_arch = "x86_64")]
    if avx512_kernels() {
        return TILE_LANES_AVX512;
    }
    TILE_LANES
}
/// Up to this many lanes passing the screen, they are computed one by one
/// rather than all lanes at once.
const SCALAR_LANES: u32 = 3;

/// `out[r][t] = x_r · y_t` for the `R` rows of `rows` (`d` values each) and
/// the lanes of `ct`, in any rounding (it only feeds the screen): one
/// multiply-add chain per row and lane.
#[inline(always)]
fn dot_tile<const L: usize, const R: usize, const FMA: bool>(
    rows: [&[f64]; R],
    d: usize,
    ct: &[f64],
    out: &mut [[f64; L]; PP_TILE],
) {
    let rows = rows.map(|r| &r[..d]);
    let mut acc = [[0.0f64; L]; R];
    for (c, y) in ct[..d * L].chunks_exact(L).enumerate() {
        for (a, x) in acc.iter_mut().zip(&rows) {
            let xv = x[c];
            for (a, &yv) in a.iter_mut().zip(y) {
                *a = if FMA {
                    xv.mul_add(yv, *a)
                } else {
                    *a + xv * yv
                };
            }
        }
    }
    out[..R].copy_from_slice(&acc);
}

/// The pass over the points `start..start + len` behind
/// [`plus_plus_changes`]. For each restart, a point is skipped when it
/// provably records nothing: `closest[i] == 0`, or the triangle test of
/// `tr.limits` (no row read), or the screen below. A row is read once for
/// all the restarts that did not skip it by then. The others get the exact distances of the
/// lanes the screen left open ([`sq_dist`] one by one for a few lanes,
/// [`sq_dist_lanes`] for all at once otherwise: the same bits), and the
/// changes are recorded exactly as the reference would make them.
///
/// The screen: with `A = ‖x‖²`, `B_t = ‖y_t‖²` and `G_t = x·y_t` computed in
/// any order (fused or not), `q_t = (A + B_t) − 2·G_t` estimates
/// `s_t = ‖x − y_t‖²`. With `N = ‖x‖² + ‖y_t‖²`, `u = 2⁻⁵³` and `γ_n = n·u`
/// (to first order; `d·u` is tiny): `A + B_t` errs by at most `γ_d·N`,
/// `2·G_t` by `2γ_d·Σ|x_c·y_c| ≤ γ_d·N`, their addition and subtraction by
/// `u·N` and `u·2N` (`|2·G_t| ≤ N`), so `|q_t − s_t| ≤ (2d + 3)·u·N`; and the
/// distance the kernel computes, `ŝ_t`, is within `γ_{d+6}·s_t ≤ 2γ_{d+6}·N`
/// of `s_t` (see `init::prune_limits`). So `|q_t − ŝ_t| ≤ (4d + 15)·u·N`.
/// The screen uses `E = (8d + 32)·u·(A + max_t B_t)` (the computed norms are
/// within `1 ± γ_d` of the real ones), which also covers the rounding of
/// `closest[i] + E` (at most `u·(closest[i] + E)`, and `closest[i] ≤ q_t ≤
/// 2N·(1 + tiny)` where it matters), plus `(4d + 16)·2⁻¹⁰⁷⁴` for gradual
/// underflow (each of the `8d + 10` operations involved then errs by at
/// most 2⁻¹⁰⁷⁵ more). If `q_t ≥ closest[i] + E`, the computed distance is
/// at least `closest[i]`: lane `t` records nothing. A point with no lane
/// left is skipped; for the others only the lanes left are computed
/// exactly. The data are at most 10¹⁰⁰ in magnitude here (the caller
/// checks), so nothing overflows.
#[inline(always)]
fn plus_plus_lanes<T: Scalar, const L: usize, const FMA: bool>(
    data: &Data<'_, T>,
    trs: &[PlusPlusTrials<'_>],
    start: usize,
    len: usize,
    out: &mut [TrialChanges],
) {
    let d = data.d;
    let end = start + len;
    // The triangle test first, branch-free (its outcome is unpredictable):
    // per point, one bit for each restart that still needs its row.
    let mut need = vec![0u64; len];
    let mut open = vec![0usize; trs.len()];
    for ((r, tr), open) in trs.iter().enumerate().zip(&mut open) {
        for ((&cl, &a), need) in tr.closest[start..end]
            .iter()
            .zip(&tr.assign[start..end])
            .zip(&mut need)
        {
            let limit = tr
                .limits
                .get(a as usize)
                .copied()
                .unwrap_or(f64::NEG_INFINITY);
            let pruned = (cl == 0.0) | ((cl >= tr.floor) & (cl <= limit));
            *need |= u64::from(!pruned) << r;
            *open += usize::from(!pruned);
        }
    }
    // The points some restart needs, in order.
    let mut todo = vec![0usize; len];
    let mut m = 0;
    for (i, &bits) in need.iter().enumerate() {
        todo[m] = start + i;
        m += usize::from(bits != 0);
    }
    let todo = &todo[..m];
    let mut xs = vec![0.0; PP_BLOCK * d];
    let mut screens: Vec<Screen<L>> = trs.iter().map(|tr| Screen::new(tr, d)).collect();
    let mut rows = Vec::with_capacity(PP_BLOCK);
    let mut exact = vec![0usize; trs.len()];
    for who in todo.chunks(PP_BLOCK) {
        for (r, &i) in who.iter().enumerate() {
            data.load_shifted(i, &mut xs[r * d..(r + 1) * d]);
        }
        for (r, ((tr, screen), out)) in trs.iter().zip(&mut screens).zip(out.iter_mut()).enumerate()
        {
            rows.clear();
            rows.extend((0..who.len()).filter(|&t| (need[who[t] - start] >> r) & 1 == 1));
            exact[r] += screen.block::<FMA>(tr, &xs, &rows, who, out);
        }
    }
    for ((tr, &open), &exact) in trs.iter().zip(&open).zip(&exact) {
        if let Some(stats) = tr.stats {
            use std::sync::atomic::Ordering::Relaxed;
            let zero = tr.closest[start..end].iter().filter(|&&c| c == 0.0).count();
            stats.visited.fetch_add(len - zero, Relaxed);
            stats.triangle.fetch_add(len - zero - open, Relaxed);
            stats.screened.fetch_add(open - exact, Relaxed);
        }
    }
}

/// The screen of [`plus_plus_lanes`] and its scratch.
struct Screen<const L: usize> {
    d: usize,
    /// `‖y_t‖²` per lane.
    cand_norms: [f64; L],
    /// `max_t ‖y_t‖²`.
    b_max: f64,
    /// `(8d + 32)·u`.
    rel: f64,
    /// `(4d + 16)·2⁻¹⁰⁷⁴`.
    underflow: f64,
    /// One bit per trial lane.
    live: u32,
    /// Rows of a register tile ([`tile_lanes`] / `L`, 1 to [`PP_TILE`]).
    tile_rows: usize,
    dots: [[f64; L]; PP_TILE],
    dist: [f64; L],
}

impl<const L: usize> Screen<L> {
    #[inline(always)]
    fn new(tr: &PlusPlusTrials<'_>, d: usize) -> Self {
        let mut cand_norms = [0.0f64; L];
        for (c, &b) in cand_norms.iter_mut().zip(tr.cand_norms) {
            *c = b;
        }
        Screen {
            d,
            cand_norms,
            b_max: cand_norms.iter().fold(0.0f64, |a, &b| a.max(b)),
            rel: (8.0 * d as f64 + 32.0) * (f64::EPSILON / 2.0),
            underflow: (4.0 * d as f64 + 16.0) * f64::from_bits(1),
            live: if tr.trials >= 32 {
                u32::MAX
            } else {
                (1u32 << tr.trials) - 1
            },
            tile_rows: (tile_lanes() / L).clamp(1, PP_TILE),
            dots: [[0.0; L]; PP_TILE],
            dist: [0.0; L],
        }
    }

    /// Screens the points `who[p]` for the positions `p` of `rows` (their
    /// rows are `xs[p·d..]`) and records the changes of those that pass.
    /// Returns how many passed.
    #[inline(always)]
    fn block<const FMA: bool>(
        &mut self,
        tr: &PlusPlusTrials<'_>,
        xs: &[f64],
        rows: &[usize],
        who: &[usize],
        out: &mut [Vec<(u32, f64)>],
    ) -> usize {
        let d = self.d;
        let row = |p: usize| &xs[p * d..(p + 1) * d];
        let mut passed = 0;
        let tile_rows = self.tile_rows;
        for tile in rows.chunks(tile_rows) {
            // A short last tile repeats its last row (those results are
            // not read).
            let at = |r: usize| row(tile[r.min(tile.len() - 1)]);
            match tile_rows {
                8 => dot_tile::<L, 8, FMA>(
                    [at(0), at(1), at(2), at(3), at(4), at(5), at(6), at(7)],
                    d,
                    tr.ct,
                    &mut self.dots,
                ),
                4 => dot_tile::<L, 4, FMA>([at(0), at(1), at(2), at(3)], d, tr.ct, &mut self.dots),
                2 => dot_tile::<L, 2, FMA>([at(0), at(1)], d, tr.ct, &mut self.dots),
                _ => dot_tile::<L, 1, FMA>([at(0)], d, tr.ct, &mut self.dots),
            }
            for (&p, g) in tile.iter().zip(&self.dots) {
                let (i, x) = (who[p], row(p));
                let cl = tr.closest[i];
                let a = tr.norms[i];
                let limit = cl + (self.rel * (a + self.b_max) + self.underflow);
                let mut q = [0.0f64; L];
                for ((q, &b), &gt) in q.iter_mut().zip(&self.cand_norms).zip(g) {
                    *q = (a + b) - 2.0 * gt;
                }
                let mut open: u32 = 0;
                for (t, &q) in q.iter().enumerate() {
                    open |= u32::from(q < limit) << t;
                }
                // Lanes past `trials` repeat trial 0 and record nothing.
                open &= self.live;
                if open == 0 {
                    continue;
                }
                passed += 1;
                if open.count_ones() <= SCALAR_LANES {
                    // Few lanes pass: their exact distances one by one
                    // (`sq_dist` has the lanes' bits); the others provably
                    // record nothing.
                    let mut bits = open;
                    while bits != 0 {
                        let t = bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        let dv = sq_dist(x, &tr.cands[t * d..(t + 1) * d]);
                        if dv < cl {
                            out[t].push((i as u32, dv));
                        }
                    }
                    continue;
                }
                sq_dist_lanes::<L>(x, tr.ct, &mut self.dist);
                let mut below: u32 = 0;
                for (t, &dv) in self.dist.iter().enumerate() {
                    below |= u32::from(dv < cl) << t;
                }
                below &= self.live;
                if below != 0 {
                    for (t, list) in out.iter_mut().enumerate() {
                        if below & (1 << t) != 0 {
                            list.push((i as u32, self.dist[t]));
                        }
                    }
                }
            }
        }
        passed
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::rng::Xoshiro256PlusPlus;
    use ndarray::Array2;

    /// Overlapping Gaussian-ish blobs (sums of uniforms), deterministic.
    pub(crate) fn blobs(n: usize, d: usize, centres: usize, seed: u64) -> Array2<f64> {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let c: Vec<f64> = (0..centres * d).map(|_| rng.unit_f64() * 5.0).collect();
        Array2::from_shape_fn((n, d), |(i, j)| {
            let z: f64 = (0..4).map(|_| rng.unit_f64()).sum::<f64>() - 2.0;
            c[(i % centres) * d + j] + z * 1.7
        })
    }

    fn random_partition<T: Scalar>(data: &Data<'_, T>, k: usize, seed: u64) -> Partition {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let labels = (0..data.n).map(|_| rng.below(k)).collect();
        Partition::from_labels(data, k, labels)
    }

    fn check_sweeps<T: Scalar>(x: ndarray::ArrayView2<'_, T>, k: usize, factor: f64) {
        let data = Data::new(x, None);
        let mut a = random_partition(&data, k, 7);
        let mut b = a.clone();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
        let mut hint = SweepHint::default();
        for s in 0..6 {
            let mut order: Vec<usize> = (0..data.n).collect();
            rng.shuffle(&mut order);
            let ma = crate::sweep::sweep(&mut a, &data, &order, factor);
            let mb = sweep_blocked(&mut b, &data, &order, factor, &mut hint);
            assert_eq!(ma, mb, "moves differ in sweep {s}");
            assert_eq!(a, b, "state differs after sweep {s}");
            a.recompute(&data);
            b.recompute(&data);
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
    }

    /// Sweeps to convergence under a Smartigan schedule, then Hartigan,
    /// with the bounds carried from sweep to sweep (and across a Lloyd
    /// iteration that moves every centroid): every sweep must equal the
    /// plain one, and the late sweeps must actually skip points.
    fn check_to_convergence<T: Scalar>(x: ndarray::ArrayView2<'_, T>, k: usize) {
        let data = Data::new(x, None);
        let mut a = random_partition(&data, k, 5);
        let mut b = a.clone();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let mut hint = SweepHint::default();
        let mut skipped_somewhere = false;
        for s in 0..80 {
            let factor = if s < 10 { 1.5 - 0.05 * s as f64 } else { 1.0 };
            if s == 30 {
                // Something other than a sweep changes the partition.
                crate::sweep::lloyd_iteration(&mut a, &data);
                crate::sweep::lloyd_iteration(&mut b, &data);
            }
            let mut order: Vec<usize> = (0..data.n).collect();
            rng.shuffle(&mut order);
            let ma = crate::sweep::sweep(&mut a, &data, &order, factor);
            let mb = sweep_blocked(&mut b, &data, &order, factor, &mut hint);
            assert_eq!(ma, mb, "moves differ in sweep {s}");
            assert_eq!(a, b, "state differs after sweep {s}");
            skipped_somewhere |= hint.evaluated < data.n / 2;
            a.recompute(&data);
            b.recompute(&data);
        }
        assert!(skipped_somewhere, "the bounds never skipped a point");
    }

    /// Accelerated Lloyd iterations (bounds, screen, threads) against the
    /// plain ones, iteration by iteration until nothing changes; returns
    /// whether the bounds skipped points at some iteration.
    #[allow(clippy::unwrap_used)]
    fn check_lloyd_to_convergence<T: Scalar>(x: ndarray::ArrayView2<'_, T>, k: usize) -> bool {
        let data = Data::new(x, None);
        let mut skipped = false;
        for threads in [1, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let mut a = random_partition(&data, k, 5);
            let mut b = a.clone();
            for it in 0..200 {
                let changed_a = pool.install(|| crate::sweep::lloyd_iteration(&mut a, &data));
                let changed_b = crate::sweep::lloyd_iteration_reference(&mut b, &data);
                assert_eq!(a.labels, b.labels, "labels differ after iteration {it}");
                assert_eq!(
                    a.centroids, b.centroids,
                    "centroids differ after iteration {it}"
                );
                assert_eq!(changed_a, changed_b);
                let evaluated = a.hint.lloyd.as_ref().map_or(data.n, |l| l.evaluated);
                skipped |= evaluated < data.n / 2;
                if changed_a == 0 {
                    break;
                }
            }
        }
        skipped
    }

    #[test]
    fn bounded_lloyd_equals_plain_lloyd_to_convergence() {
        for &(n, d, k) in &[(3000, 4, 12), (1500, 24, 30), (1200, 2, 60)] {
            let x = blobs(n, d, k, (n * d) as u64);
            assert!(
                check_lloyd_to_convergence(x.view(), k),
                "{n}×{d}: nothing skipped"
            );
            assert!(check_lloyd_to_convergence(x.mapv(|v| v as f32).view(), k));
        }
        // Exact duplicates (ties everywhere) and a large offset.
        let x = Array2::from_shape_fn((900, 2), |(i, j)| ((i * (j + 3)) % 7) as f64);
        check_lloyd_to_convergence(x.view(), 5);
        check_lloyd_to_convergence(x.mapv(|v| v * 1e-3 + 1e6).view(), 5);
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
    fn screened_candidates_never_miss_one_at_most_the_limit() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        for case in 0..400 {
            let k = 1 + rng.below(70);
            let kp = k.div_ceil(16) * 16;
            let mut w: Vec<f32> = (0..kp).map(|_| 0.5 + rng.unit_f64() as f32).collect();
            let mut h: Vec<f32> = (0..kp).map(|_| rng.unit_f64() as f32).collect();
            let g: Vec<f32> = (0..kp).map(|_| rng.unit_f64() as f32).collect();
            for j in k..kp {
                (w[j], h[j]) = (1.0, f32::INFINITY);
            }
            if case % 3 == 0 {
                h[rng.below(k)] = f32::INFINITY; // a dirty cluster
            }
            let a = rng.unit_f64() as f32;
            let screens: Vec<f64> = (0..k)
                .map(|j| f64::from(screen(w[j], h[j], g[j], a)))
                .collect();
            // Limits between, on and next to the screens (in f64, most of
            // them between two f32 values), and the extremes.
            let pick = screens[rng.below(k)];
            let limit = match case % 5 {
                0 => pick,
                1 => pick * (1.0 - 1e-12),
                2 => pick * (1.0 + 1e-12),
                3 => f64::INFINITY,
                _ => -1.0,
            };
            let mut out = Vec::new();
            let outside = screened_candidates(&w, &h, &g, a, limit, k, &mut out);
            assert!(out.windows(2).all(|p| p[0] < p[1]) && out.iter().all(|&j| j < k));
            for (j, &c) in screens.iter().enumerate() {
                if c == f64::INFINITY {
                    assert!(!out.contains(&j), "case {case}: {j} screened at +∞ listed");
                } else if c <= limit {
                    assert!(out.contains(&j), "case {case}: {j} missed");
                } else if !out.contains(&j) {
                    assert!(outside <= c, "case {case}: {outside} above {c}");
                }
                // Anything extra lies within an f32 ulp of the limit.
                if out.contains(&j) && c > limit {
                    assert!(
                        c - limit <= limit.abs() * 1e-6,
                        "case {case}: {c} vs {limit}"
                    );
                }
            }
        }
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

    #[test]
    fn lane_kernel_is_bit_identical_to_sq_dist() {
        for d in [
            1, 3, 4, 7, 8, 13, 15, 16, 17, 20, 31, 32, 36, 47, 64, 256, 259,
        ] {
            let x: Vec<f64> = (0..d).map(|c| (c as f64 * 0.37).sin() * 3.0).collect();
            let ys: Vec<Vec<f64>> = (0..PP_LANES)
                .map(|t| {
                    (0..d)
                        .map(|c| ((c * 7 + t) as f64 * 0.11).cos() * 2.5)
                        .collect()
                })
                .collect();
            let mut ct = vec![0.0; d * PP_LANES];
            for (t, y) in ys.iter().enumerate() {
                for c in 0..d {
                    ct[c * PP_LANES + t] = y[c];
                }
            }
            let mut out = [0.0; PP_LANES];
            sq_dist_lanes::<PP_LANES>(&x, &ct, &mut out);
            for (t, y) in ys.iter().enumerate() {
                assert_eq!(out[t].to_bits(), sq_dist(&x, y).to_bits());
            }
        }
    }

    #[test]
    fn assign_equals_reference() {
        // k = 600: blocks shorter than MAX_BLOCK (MAX_BLOCK_PRODUCTS binds).
        for (k, centres) in [(9, 9), (600, 40)] {
            let x = blobs(3000, 12, centres, 5);
            let data = Data::new(x.view(), None);
            let p = random_partition(&data, k, 3);
            let mut buf = vec![0.0; data.d];
            let fast = assign_nearest(&data, &p.centroids, k, Some(&p.labels));
            let fresh = assign_nearest(&data, &p.centroids, k, None);
            for i in 0..data.n {
                data.load_shifted(i, &mut buf);
                assert_eq!(fast[i], p.nearest(&buf, Some(p.labels[i])));
                assert_eq!(fresh[i], p.nearest(&buf, None));
            }
        }
    }
}
