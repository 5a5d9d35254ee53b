//! Per-point distance bounds that let the blocked sweep skip points that
//! provably stay where they are (Hamerly's idea, adapted to Hartigan's
//! count-weighted costs and to centroids that move after every single move).
//!
//! # What is kept
//!
//! For every point, from the last time a sweep looked at it: its cluster
//! `r`, an upper bound `u ≥ ‖x − μ_r‖`, a lower bound
//! `l ≤ min_{j≠r} ‖x − μ_j‖`, and the checkpoint it was seen in. Distances
//! are between the vectors as stored (the shifted `f64` row and the `f64`
//! centroids), in real arithmetic.
//!
//! The sweep is cut into checkpoints (a few per sweep). Each checkpoint
//! keeps a snapshot `C` of the centroids as it began, and, as centroids move
//! (two per move, and all of them a little when they are recomputed between
//! sweeps), each cluster's current displacement `δ_j = ‖μ_j − C_j‖` and the
//! few largest running maxima of `δ` over clusters. A point's bounds are
//! stored against the snapshot of the checkpoint it was last seen in
//! (`u ≥ ‖x − C_r‖`, `l ≤ min_{j≠r} ‖x − C_j‖`), so by the triangle inequality,
//! at any later time:
//!
//! ```text
//! ‖x − μ_r‖          ≤ u + δ_r
//! min_{j≠r} ‖x − μ_j‖ ≥ l − max_{j≠r} δ_j
//! ```
//!
//! Displacements are net (a centroid that moves back and forth does not
//! accumulate), and "max over `j ≠ r`" is one lookup.
//!
//! A handful of clusters often move far more than the rest (points
//! oscillating between two clusters under Smartigan's exploring factor, or a
//! small cluster that absorbs a few points), and with Hamerly's single bound
//! they would force every point to be evaluated. So when the first test
//! fails, a second one evaluates the exact costs of the [`TOP`] most-moved
//! clusters (O(TOP·d)) and uses the bound only for the rest, whose
//! displacement is at most the next-largest.
//!
//! # The test
//!
//! The reference moves a point when `min_{j≠r} n_j/(n_j+1)·‖x−μ_j‖²` is
//! strictly below `c·n_r/(n_r−1)·‖x−μ_r‖²` (`c` the acceptance factor). With
//! `n_min` a lower bound on every cluster's size, it cannot move when
//!
//! ```text
//! n_min/(n_min+1) · l_now²  ≥  c · n_r/(n_r−1) · u_now²
//! ```
//!
//! evaluated with a relative margin that covers every rounding of the
//! reference's own floating-point costs (their error relative to the real
//! values is below `(d + 8)·ε`, all terms being non-negative). Displacements
//! and upper bounds are rounded up and lower bounds down, so every stored
//! number errs on the safe side. A skipped point
//! is exactly a point the reference leaves alone; all others are decided by
//! the reference's expressions, so the sweep's moves do not change.

use crate::data::{sq_dist, Data, Scalar};
use crate::engine::partition::Partition;
use crate::engine::reference::Sweep;
use rayon::prelude::*;

/// Rounds a non-negative quantity up (covers the one or two roundings of the
/// operation that produced it, with room to spare).
pub(crate) const UP: f64 = 1.0 + 4.0 * f64::EPSILON;
/// Rounds a non-negative quantity down.
pub(crate) const DOWN: f64 = 1.0 - 4.0 * f64::EPSILON;

/// `γ` for `d` features: every `sq_dist` the references compute is within a
/// factor `1 ± γ` of the exact squared distance.
pub(crate) fn rounding_gamma(d: usize) -> f64 {
    (d as f64 + 16.0) * f64::EPSILON
}
/// Snapshot memory allowed per restart, in `f64`s (32 MB): the number of
/// checkpoints per sweep shrinks for very large `k·d`.
const SNAPSHOT_BUDGET: usize = 1 << 22;
/// Most checkpoints per sweep.
const MAX_CHECKS: usize = 8;
/// Marks a point never examined.
const NO_LABEL: u32 = u32::MAX;
/// Most-drifted clusters whose costs the second test evaluates exactly.
const TOP: usize = 4;
/// Least work (clusters × checkpoints × features) for which
/// [`Bounds::after_moves`] splits its displacements over the pool.
const PARALLEL_DRIFT_WORK: usize = 1 << 15;

/// Which tests may prove that a point stays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SkipTests {
    /// The bounds alone: nothing loaded, nothing computed (for sweeps whose
    /// exact scoring of a point costs little more than the second test).
    First,
    /// Then, where the bounds fall short only because of a few drifted
    /// clusters, the point's exact distances to those clusters.
    Both,
}

/// Bounds of one point (a cache line holds several).
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C)]
struct PointBound {
    /// Upper bound on the distance to the own cluster's snapshot centroid.
    upper: f64,
    /// Lower bound on the distance to every other snapshot centroid
    /// (0: unknown).
    lower: f64,
    /// The cluster the bounds refer to.
    label: u32,
    /// The checkpoint they were taken in.
    stamp: u32,
}

/// One checkpoint's largest displacements (the centroids it began with and
/// each one's current displacement are kept in [`Bounds`], cluster-major).
#[derive(Debug, Clone, PartialEq)]
struct Checkpoint {
    /// The `TOP + 1` largest running maxima of the displacements and their
    /// clusters, largest first; unused entries are `(0, usize::MAX)`.
    top: [(f64, usize); TOP + 1],
}

impl Checkpoint {
    fn new() -> Self {
        Checkpoint {
            top: [(0.0, usize::MAX); TOP + 1],
        }
    }

    fn reset(&mut self) {
        self.top = [(0.0, usize::MAX); TOP + 1];
    }

    /// Cluster `j` is now `v` from its snapshot. The top list holds running
    /// maxima: each only grows, so keeping the largest few stays exact, and
    /// every cluster outside the list has never moved further than the last
    /// entry.
    #[inline(always)]
    fn raise(&mut self, j: usize, v: f64) {
        let last = TOP;
        // The common case, without searching the list: `j` cannot enter it,
        // and if it is in it, its running maximum is already at least `v`.
        if v <= self.top[last].0 {
            return;
        }
        let mut pos = match self.top.iter().position(|e| e.1 == j) {
            Some(pos) if self.top[pos].0 >= v => return,
            Some(pos) => pos,
            None if v > self.top[last].0 => last,
            None => return,
        };
        self.top[pos] = (v, j);
        while pos > 0 && self.top[pos - 1].0 < v {
            self.top.swap(pos - 1, pos);
            pos -= 1;
        }
    }

    /// Largest displacement (so far) of a cluster other than `r`.
    #[inline(always)]
    fn max_other(&self, r: usize) -> f64 {
        if r == self.top[0].1 {
            self.top[1].0
        } else {
            self.top[0].0
        }
    }
}

/// The bounds of one restart, carried from sweep to sweep.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Bounds {
    k: usize,
    d: usize,
    points: Vec<PointBound>,
    ring: Vec<Checkpoint>,
    /// The centroids each checkpoint began with, cluster-major: cluster
    /// `j`'s snapshot in slot `s` is at `(j·ring.len() + s)·d`, so that the
    /// displacements of one centroid from every snapshot, computed after
    /// each move, read one contiguous run.
    snapshots: Vec<f64>,
    /// Each cluster's current displacement from each snapshot (rounded up),
    /// at `j·ring.len() + s`.
    drift: Vec<f64>,
    /// The current checkpoint's number (its slot is `checkpoint % ring.len()`).
    checkpoint: u32,
    /// Positions per checkpoint.
    interval: usize,
    /// The centroids at the end of the last sweep (empty before the first):
    /// anything that moved them between sweeps is applied at the next start.
    centroids: Vec<f64>,
    /// A lower bound on every cluster's weight (its size, without sample
    /// weights) during the current sweep.
    min_weight: f64,
    /// Relative margin covering the reference's rounding, `(d + 16)·ε`.
    gamma: f64,
    /// Bounds that are not kept ([`Bounds::off`]): nothing is recorded and
    /// no point is skipped.
    off: bool,
}

impl Bounds {
    /// Empty bounds (every point unknown) for `n` points, `k` clusters in `d`
    /// dimensions, or `None` when labels do not fit the compact layout.
    pub fn new(n: usize, k: usize, d: usize) -> Option<Self> {
        if k >= NO_LABEL as usize || d == 0 {
            return None;
        }
        // Two visits of a point are at independent random positions of
        // consecutive sweeps, so up to two sweeps apart: the ring keeps
        // `2·checks + 2` checkpoints. Finer checkpoints give tighter bounds.
        let mut checks = MAX_CHECKS;
        while checks > 1 && (2 * checks + 2) * k * d > SNAPSHOT_BUDGET {
            checks /= 2;
        }
        let unknown = PointBound {
            upper: f64::INFINITY,
            lower: 0.0,
            label: NO_LABEL,
            stamp: 0,
        };
        Some(Bounds {
            k,
            d,
            points: vec![unknown; n],
            ring: vec![Checkpoint::new(); 2 * checks + 2],
            snapshots: vec![0.0; (2 * checks + 2) * k * d],
            drift: vec![0.0; (2 * checks + 2) * k],
            checkpoint: 0,
            interval: n.div_ceil(checks).max(1),
            centroids: Vec::new(),
            min_weight: 0.0,
            gamma: rounding_gamma(d),
            off: false,
        })
    }

    /// Bounds that are not kept: every point is evaluated, and nothing is
    /// spent on keeping them (for sweeps where they would skip nothing).
    pub fn off() -> Self {
        Bounds {
            k: 0,
            d: 0,
            points: Vec::new(),
            ring: Vec::new(),
            snapshots: Vec::new(),
            drift: Vec::new(),
            checkpoint: 0,
            interval: 1,
            centroids: Vec::new(),
            min_weight: 0.0,
            gamma: 0.0,
            off: true,
        }
    }

    /// Whether these bounds are [`Bounds::off`].
    pub fn is_off(&self) -> bool {
        self.off
    }

    /// Whether these bounds belong to data and partitions of this shape.
    pub fn fits(&self, n: usize, k: usize, d: usize) -> bool {
        self.points.len() == n && self.k == k && self.d == d
    }

    /// Starts a sweep: whatever moved the centroids since the last sweep
    /// ended (the recomputation from the labels, or anything else) updates
    /// the displacements, and the size bound is refreshed.
    pub fn begin_sweep(&mut self, centroids: &[f64], cluster_weights: &[f64]) {
        if self.off {
            return;
        }
        let d = self.d;
        if self.centroids.len() == centroids.len() {
            for j in 0..self.k {
                if self.centroids[j * d..(j + 1) * d] != centroids[j * d..(j + 1) * d] {
                    self.moved(centroids, j);
                }
            }
        } else {
            // No record of the previous centroids: nothing known is usable.
            for b in &mut self.points {
                b.label = NO_LABEL;
            }
        }
        self.min_weight = cluster_weights
            .iter()
            .copied()
            .fold(f64::INFINITY, f64::min);
    }

    /// Re-anchors every point's bounds at the current centroids after a few
    /// clusters jumped between sweeps (a merge-split proposal replaces
    /// three): the jumped clusters' exact distances are computed for every
    /// point in one pass in index order, and the bounds stored against a
    /// new checkpoint. Otherwise every point of the next sweep fails the
    /// first test on the jumped displacements and takes the second one,
    /// loading its row at a random position, which makes the first sweep of
    /// a merge-split candidate many times as dear as a converged one.
    /// Does nothing when no cluster or more than [`TOP`] clusters changed
    /// (the next sweep's own tests then apply). Only speed depends on it:
    /// the bounds stay valid.
    pub fn reanchor<T: Scalar>(&mut self, labels: &[usize], centroids: &[f64], data: &Data<'_, T>) {
        let (k, d) = (self.k, self.d);
        if self.centroids.len() != centroids.len()
            || centroids.len() != k * d
            || labels.len() != self.points.len()
            || data.n != labels.len()
        {
            return;
        }
        let jumped: Vec<usize> = (0..k)
            .filter(|&j| self.centroids[j * d..(j + 1) * d] != centroids[j * d..(j + 1) * d])
            .collect();
        if jumped.is_empty() || jumped.len() > TOP {
            return;
        }
        for &j in &jumped {
            self.moved(centroids, j);
        }
        self.end_sweep(centroids);
        // For each slot, the two largest displacements of clusters that did
        // not jump (with the first one's cluster), to bound the distances
        // the pass does not compute.
        let slots = self.ring.len();
        let mut rest = vec![(0.0f64, usize::MAX, 0.0f64); slots];
        for j in (0..k).filter(|j| !jumped.contains(j)) {
            for (s, e) in rest.iter_mut().enumerate() {
                let v = self.drift[j * slots + s];
                if v > e.0 {
                    *e = (v, j, e.0);
                } else if v > e.2 {
                    e.2 = v;
                }
            }
        }
        // A new checkpoint at the current centroids holds the new bounds.
        let (before, g) = (self.checkpoint, self.gamma);
        self.checkpoint = before.wrapping_add(1);
        let now = self.checkpoint as usize % slots;
        self.ring[now].reset();
        for (j, c) in centroids.chunks_exact(d).take(k).enumerate() {
            let at = (j * slots + now) * d;
            self.snapshots[at..at + d].copy_from_slice(c);
            self.drift[j * slots + now] = 0.0;
        }
        let mut row = vec![0.0; d];
        for (i, &r) in labels.iter().enumerate() {
            let b = self.points[i];
            // Counted from the checkpoint before the new one: bounds that
            // have just expired must not come back to life.
            let age = before.wrapping_sub(b.stamp) as usize;
            if b.label as usize != r || age + 1 >= slots || b.lower <= 0.0 {
                continue;
            }
            let s = b.stamp as usize % slots;
            let (top, top_j, second) = rest[s];
            let others = if top_j == r { second } else { top };
            let mut lower = (b.lower - others) * DOWN;
            data.load_shifted(i, &mut row);
            let mut upper = (b.upper + self.drift[r * slots + s]) * UP;
            for &j in &jumped {
                let dist = sq_dist(&row, &centroids[j * d..(j + 1) * d]);
                if j == r {
                    upper = (dist * (1.0 + 2.0 * g)).sqrt() * UP;
                } else {
                    lower = lower.min((dist * (1.0 - 2.0 * g)).sqrt() * DOWN);
                }
            }
            self.points[i] = PointBound {
                upper,
                lower,
                label: r as u32,
                stamp: self.checkpoint,
            };
        }
    }

    /// Ends a sweep, remembering the centroids it leaves.
    pub fn end_sweep(&mut self, centroids: &[f64]) {
        if self.off {
            return;
        }
        self.centroids.clear();
        self.centroids.extend_from_slice(centroids);
    }

    /// Called before position `pos` of the sweep is processed: opens a new
    /// checkpoint every `interval` positions.
    #[inline(always)]
    pub fn at_position(&mut self, pos: usize, centroids: &[f64]) {
        if !self.off && pos.is_multiple_of(self.interval) {
            self.checkpoint = self.checkpoint.wrapping_add(1);
            let slots = self.ring.len();
            let slot = self.checkpoint as usize % slots;
            self.ring[slot].reset();
            let d = self.d;
            for (j, now) in centroids.chunks_exact(d).take(self.k).enumerate() {
                let at = (j * slots + slot) * d;
                self.snapshots[at..at + d].copy_from_slice(now);
                self.drift[j * slots + slot] = 0.0;
            }
        }
    }

    /// Centroid `j` changed: its displacement from every snapshot. All
    /// squared distances first (from one contiguous run of snapshots), then
    /// their roots, then the top lists: the roots vectorise and none waits
    /// on a comparison. Done slot by slot from snapshots far apart in
    /// memory, this was a large part of a Smartigan schedule sweep (it runs
    /// twice per move).
    #[inline(always)]
    fn moved(&mut self, centroids: &[f64], j: usize) {
        let (d, slots) = (self.d, self.ring.len());
        let now = &centroids[j * d..(j + 1) * d];
        let then = &self.snapshots[j * slots * d..(j + 1) * slots * d];
        let drift = &mut self.drift[j * slots..(j + 1) * slots];
        displacements(now, then, self.gamma, drift);
        for (slot, &v) in self.ring.iter_mut().zip(drift.iter()) {
            slot.raise(j, v);
        }
    }

    /// Bounds `(u, l)` valid now that prove point `i` (of weight `w`, in
    /// cluster `r` that it may leave: `W_r − w > 0`) stays in a sweep with
    /// acceptance factor `factor`, or `None` if they cannot. The second
    /// test (`SkipTests::Both` only) loads the point's row into `row`.
    ///
    /// The reference's costs are `w·(W_j/(W_j + w))·‖x − μ_j‖²` against
    /// `factor·w·(W_r/(W_r − w))·‖x − μ_r‖²`: the common factor `w` is left
    /// out here, and with sample weights (`w ≠ 1`) the own cost gets room
    /// for its rounding in both products. A zero-weight point follows the
    /// nearest centroid whatever `factor` is, so it is never skipped.
    ///
    /// Without storing them: the blocked sweep's selection predicts from
    /// them which points need products; the rounds sweep finds them for a
    /// round's points in parallel and stores them with [`Bounds::keep`]
    /// before the round's moves are applied; [`Bounds::skip`] stores them
    /// at once.
    #[inline(always)]
    pub fn proves_stay<T: Scalar>(
        &self,
        (i, r, w): (usize, usize, f64),
        p: &Partition,
        Sweep { data, factor, .. }: Sweep<'_, '_, T>,
        row: &mut [f64],
        tests: SkipTests,
    ) -> Option<(f64, f64)> {
        if self.off {
            return None;
        }
        let b = &self.points[i];
        let age = self.checkpoint.wrapping_sub(b.stamp) as usize;
        if b.label as usize != r || age >= self.ring.len() || b.lower <= 0.0 || w == 0.0 {
            return None;
        }
        let s = b.stamp as usize % self.ring.len();
        let slot = &self.ring[s];
        let upper = (b.upper + self.drift[r * self.ring.len() + s]) * UP;
        let w_r = p.stats.weights[r];
        let weighted_rounding = if w == 1.0 {
            1.0
        } else {
            1.0 + 8.0 * f64::EPSILON
        };
        // At least the reference's own cost (over `w`), whatever its rounding.
        let own = (1.0 + 4.0 * self.gamma)
            * weighted_rounding
            * (factor * (w_r / (w_r - w)) * upper * upper);
        let m = self.min_weight;
        let join_min = m / (m + w);
        let lower = (b.lower - slot.max_other(r)) * DOWN;
        if lower > 0.0 && join_min * lower * lower >= own {
            return Some((upper, lower));
        }
        // Second test: the most-drifted clusters exactly, the rest by bound.
        let rest = (b.lower - slot.top[TOP].0) * DOWN;
        if tests == SkipTests::First || rest <= 0.0 || join_min * rest * rest < own {
            return None;
        }
        data.load_shifted(i, row);
        let mut nearest = f64::INFINITY;
        for &(_, j) in &slot.top[..TOP] {
            if j == r || j >= p.k {
                continue;
            }
            let dist = sq_dist(row, p.centroid(j));
            // The reference's cost (over `w`: exactly it for unit weights),
            // compared with an upper bound on its own.
            if (p.stats.weights[j] / (p.stats.weights[j] + w)) * dist < own {
                return None;
            }
            nearest = nearest.min(dist);
        }
        let exact = (nearest * (1.0 - 2.0 * self.gamma)).sqrt() * DOWN;
        Some((upper, rest.min(exact)))
    }

    /// Hints the CPU to start loading point `i`'s bounds.
    #[inline(always)]
    pub fn prefetch(&self, i: usize) {
        if self.off {
            return;
        }
        crate::data::prefetch(std::slice::from_ref(&self.points[i]));
    }

    /// Whether point `i` (of weight `w`) provably stays, by `tests`; if so
    /// its bounds are brought up to date (so they never grow older than one
    /// sweep).
    #[inline(always)]
    pub fn skip<T: Scalar>(
        &mut self,
        point: (usize, usize, f64),
        p: &Partition,
        s: Sweep<'_, '_, T>,
        row: &mut [f64],
        tests: SkipTests,
    ) -> bool {
        let Some(found) = self.proves_stay(point, p, s, row, tests) else {
            return false;
        };
        self.keep(point.0, point.1, found);
        true
    }

    /// Stores what [`Bounds::proves_stay`] found for point `i` (cluster
    /// `r`), while the centroids are still those it was found against.
    #[inline(always)]
    pub fn keep(&mut self, i: usize, r: usize, (upper, lower): (f64, f64)) {
        if !self.off {
            self.store(i, r, upper, lower);
        }
    }

    /// Opens one new checkpoint if one falls due at any position in
    /// `start..end` (a round of the rounds sweep, processed against one
    /// state of the centroids).
    pub fn at_positions(&mut self, start: usize, end: usize, centroids: &[f64]) {
        let due = start.div_ceil(self.interval) * self.interval;
        if due < end {
            self.at_position(due, centroids);
        }
    }

    /// Stores bounds on the current distances of point `i` (cluster `r`)
    /// against the current checkpoint's snapshot.
    #[inline(always)]
    fn store(&mut self, i: usize, r: usize, upper: f64, lower: f64) {
        let s = self.checkpoint as usize % self.ring.len();
        let slot = &self.ring[s];
        self.points[i] = PointBound {
            upper: (upper + self.drift[r * self.ring.len() + s]) * UP,
            lower: (lower - slot.max_other(r)) * DOWN,
            label: r as u32,
            stamp: self.checkpoint,
        };
    }

    /// Records exact knowledge of point `i` in cluster `r`: `own_dist` is the
    /// computed `sq_dist` to its centroid, `other_cost` a computed lower
    /// bound on every other cluster's `join_weight·sq_dist` (or on its
    /// `sq_dist`; join weights are below 1). Zero or less means unknown.
    #[inline(always)]
    pub fn record(&mut self, i: usize, r: usize, own_dist: f64, other_cost: f64) {
        if self.off {
            return;
        }
        let (upper, lower) = self.measured(own_dist, other_cost);
        self.store(i, r, upper, lower);
    }

    /// The bounds [`Bounds::record`] stores for `own_dist` and `other_cost`
    /// (distances, rounded outwards), to be stored with [`Bounds::keep`].
    #[inline(always)]
    pub fn measured(&self, own_dist: f64, other_cost: f64) -> (f64, f64) {
        let g = self.gamma;
        let lower = if other_cost > 0.0 {
            (other_cost * (1.0 - 2.0 * g)).sqrt() * DOWN
        } else {
            0.0
        };
        ((own_dist * (1.0 + 2.0 * g)).sqrt() * UP, lower)
    }

    /// After a round of moves that changed the clusters `touched` (each
    /// once; cluster weights now `cluster_weights`): their displacements,
    /// computed side by side over the pool when there are many (each
    /// cluster's on its own, so the split changes nothing), and the weight
    /// bound. Points moved in the round keep no bounds (their stored label
    /// is their old cluster), so nothing needed the displacements sooner.
    pub fn after_moves(&mut self, centroids: &[f64], cluster_weights: &[f64], touched: &[usize]) {
        if self.off || touched.is_empty() {
            return;
        }
        let (d, slots) = (self.d, self.ring.len());
        let (snapshots, gamma) = (&self.snapshots, self.gamma);
        let displacement = |&j: &usize| -> Vec<f64> {
            let mut drift = vec![0.0; slots];
            let then = &snapshots[j * slots * d..(j + 1) * slots * d];
            displacements(&centroids[j * d..(j + 1) * d], then, gamma, &mut drift);
            drift
        };
        let fresh: Vec<Vec<f64>> = if touched.len() * slots * d >= PARALLEL_DRIFT_WORK {
            touched.par_iter().map(displacement).collect()
        } else {
            touched.iter().map(displacement).collect()
        };
        for (&j, drift) in touched.iter().zip(&fresh) {
            self.drift[j * slots..(j + 1) * slots].copy_from_slice(drift);
            for (slot, &v) in self.ring.iter_mut().zip(drift) {
                slot.raise(j, v);
            }
            self.min_weight = self.min_weight.min(cluster_weights[j]);
        }
    }

    /// After a move from `r` to `j` (cluster weights now
    /// `cluster_weights`): both centroids moved, and the weight bound may
    /// fall.
    #[inline(always)]
    pub fn after_move(&mut self, centroids: &[f64], cluster_weights: &[f64], r: usize, j: usize) {
        if self.off {
            return;
        }
        self.moved(centroids, r);
        self.moved(centroids, j);
        self.min_weight = self.min_weight.min(cluster_weights[r]);
    }
}

/// Upper bounds on the real distances from centroid `now` to each of the
/// snapshots `then` (one after another, `now.len()` long), into `out`: all
/// squared distances first (one contiguous run), then their roots, so that
/// the roots vectorise (`1 + gamma` covers `sq_dist`'s rounding, `UP` the
/// root's).
#[inline(always)]
fn displacements(now: &[f64], then: &[f64], gamma: f64, out: &mut [f64]) {
    let grow = 1.0 + gamma;
    for (v, then) in out.iter_mut().zip(then.chunks_exact(now.len())) {
        *v = sq_dist(now, then) * grow;
    }
    for v in out.iter_mut() {
        *v = v.sqrt() * UP;
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn checkpoint_tracks_the_largest_displacements() {
        let mut c = Checkpoint::new();
        for (j, v) in [
            (2, 1.0),
            (1, 0.5),
            (5, 0.25),
            (6, 0.1),
            (7, 0.05),
            (0, 0.01),
        ] {
            c.raise(j, v);
        }
        let order: Vec<usize> = c.top.iter().map(|e| e.1).collect();
        assert_eq!(order, vec![2, 1, 5, 6, 7]);
        assert_eq!(c.max_other(2), 0.5);
        assert_eq!(c.max_other(1), 1.0);
        // Moving back does not lower the running maximum.
        c.raise(2, 0.0);
        assert_eq!(c.top[0], (1.0, 2));
        // A cluster outside the list rises past the others.
        c.raise(0, 3.0);
        let order: Vec<usize> = c.top.iter().map(|e| e.1).collect();
        assert_eq!(order, vec![0, 2, 1, 5, 6]);
        c.raise(6, 4.0);
        assert_eq!(c.top[0].1, 6);
        assert!(c.max_other(6) == 3.0 && c.max_other(3) == 4.0);
        assert!(c.top.windows(2).all(|w| w[0].0 >= w[1].0));
    }

    /// After a merge-split-like jump of three clusters, re-anchored bounds
    /// hold against the new centroids, and most points keep usable ones.
    #[test]
    fn reanchored_bounds_hold_after_clusters_jump() {
        let (n, d, k) = (3000, 6, 8);
        let x = crate::testing::testdata::blobs(n, d, k, 11);
        let data = Data::new(x.view(), None);
        let mut p = Partition::from_labels(&data, k, (0..n).map(|i| i % k).collect(), false);
        let order: Vec<usize> = (0..n).map(|i| (i * 7919) % n).collect();
        let mut cache = crate::dense::accel::Cache::default();
        // Three sweeps from a poor start: centroids are still moving, so the
        // displacements since older checkpoints matter.
        for _ in 0..3 {
            crate::dense::accel::sweep::sweep_blocked(
                &mut p,
                Sweep::new(&data, &order, 1.0),
                &mut cache,
                false,
            );
            p.recompute_stale(&data, false);
        }
        let mut b = cache.bounds.take().unwrap();
        // What the next sweep's start records of the recomputation.
        b.begin_sweep(&p.centroids, &p.stats.weights);
        b.end_sweep(&p.centroids);
        // Merge cluster 1 into 0 and split cluster 2 in two (half goes to 1).
        let mut q = p.clone();
        let mut flip = false;
        for l in q.stats.labels.iter_mut() {
            if *l == 1 {
                *l = 0;
            } else if *l == 2 {
                if flip {
                    *l = 1;
                }
                flip = !flip;
            }
        }
        for j in 0..3 {
            q.stale[j] = true;
        }
        q.recompute_stale(&data, false);
        let before = b.checkpoint;
        b.reanchor(&q.stats.labels, &q.centroids, &data);
        assert_eq!(b.checkpoint, before.wrapping_add(1));
        let (mut anchored, mut unchanged) = (0, 0);
        let mut row = vec![0.0; d];
        for (i, &r) in q.stats.labels.iter().enumerate() {
            unchanged += usize::from(p.stats.labels[i] == r);
            let pb = b.points[i];
            if pb.label as usize != r || pb.lower <= 0.0 || pb.stamp != b.checkpoint {
                continue;
            }
            anchored += 1;
            data.load_shifted(i, &mut row);
            let own = sq_dist(&row, q.centroid(r)).sqrt();
            assert!(pb.upper >= own, "point {i}: upper {} < {own}", pb.upper);
            for j in (0..k).filter(|&j| j != r) {
                let other = sq_dist(&row, q.centroid(j)).sqrt();
                assert!(
                    pb.lower <= other,
                    "point {i}, cluster {j}: {} > {other}",
                    pb.lower
                );
            }
        }
        assert!(anchored * 10 >= unchanged * 9, "{anchored} of {unchanged}");
        // Too many changed clusters: nothing is done.
        let mut far = q.centroids.clone();
        far.iter_mut().for_each(|v| *v += 1.0);
        b.reanchor(&q.stats.labels, &far, &data);
        assert_eq!(b.checkpoint, before.wrapping_add(1));
    }

    /// Re-anchoring carries the displacements of the clusters that did not
    /// jump: the own cluster moving away and another one coming closer.
    #[test]
    fn reanchor_counts_the_drift_of_clusters_that_did_not_jump() {
        // Shifted by the mean (5): the points sit at −5 and 5.
        let x = ndarray::array![[0.0], [10.0]];
        let data = Data::new(x.view(), None);
        let mut c = vec![20.0, 21.0, 22.0, -4.5, -1.0];
        let labels = [3, 4];
        let mut b = Bounds::new(2, 5, 1).unwrap();
        b.begin_sweep(&c, &[1.0; 5]);
        b.at_position(0, &c);
        b.record(0, 3, 0.25, 16.0);
        // During the sweep cluster 3 moves away (own distance 1) and
        // cluster 4 comes closer (distance 2).
        c[3] = -4.0;
        b.moved(&c, 3);
        c[4] = -3.0;
        b.moved(&c, 4);
        b.end_sweep(&c);
        // Between sweeps clusters 0, 1 and 2 jump.
        c[0] = 30.0;
        c[1] = 31.0;
        c[2] = 32.0;
        b.reanchor(&labels, &c, &data);
        let pb = b.points[0];
        assert_eq!((pb.label, pb.stamp), (3, b.checkpoint));
        assert!(pb.upper >= 1.0 && pb.upper < 1.0 + 1e-9, "{}", pb.upper);
        assert!(pb.lower <= 2.0 && pb.lower > 0.0, "{}", pb.lower);
        // The point never examined stays unknown.
        assert_eq!(b.points[1].label, NO_LABEL);
    }

    #[test]
    fn bounds_expire_and_follow_labels() {
        let x = ndarray::array![[0.0], [0.1], [3.0], [3.1], [9.0]];
        let data = Data::new(x.view(), None);
        let mut p = Partition::from_labels(&data, 2, vec![0, 0, 1, 1, 1], false);
        let mut row = vec![0.0];
        // Whether the bounds prove that point 0 (of unit weight, in cluster
        // `r`) stays, by both tests.
        let mut proves = |b: &Bounds, p: &Partition, r: usize| {
            let sweep = Sweep::new(&data, &[], 1.0);
            b.proves_stay((0, r, 1.0), p, sweep, &mut row, SkipTests::Both)
        };
        let mut b = Bounds::new(5, 2, 1).unwrap();
        b.begin_sweep(&p.centroids, &p.stats.weights);
        b.at_position(0, &p.centroids);
        b.record(0, 0, 0.0025, 25.0);
        assert!(proves(&b, &p, 0).is_some());
        // Wrong cluster: unknown.
        assert!(proves(&b, &p, 1).is_none());
        // (Coordinates are shifted by the mean, 3.04: the point is at −3.04,
        // its centroid at −2.99, the other at 1.99.)
        // A large move of the other cluster removes the first guarantee; the
        // second test evaluates that cluster exactly and still proves it.
        p.centroids[1] = -1.0;
        b.moved(&p.centroids, 1);
        assert!(proves(&b, &p, 0).is_some());
        // The other centroid right next to the point: it would move.
        p.centroids[1] = p.centroids[0] - 0.04;
        b.moved(&p.centroids, 1);
        assert!(proves(&b, &p, 0).is_none());
        // Too many checkpoints later the bounds are forgotten.
        // In a new checkpoint (the old one remembers how far cluster 1 went).
        p.centroids[1] = 6.0;
        b.moved(&p.centroids, 1);
        b.at_position(b.interval, &p.centroids);
        b.record(0, 0, 0.0025, 25.0);
        assert!(proves(&b, &p, 0).is_some());
        for pos in 2..=b.ring.len() + 1 {
            b.at_position(pos * b.interval, &p.centroids);
        }
        assert!(proves(&b, &p, 0).is_none());
    }
}
