//! Per-point distance bounds that let the blocked sweep skip points that
//! provably stay where they are (Hamerly's idea, adapted to Hartigan's
//! count-weighted costs and to centroids that move after every single move).
//!
//! # What is kept
//!
//! For every point, from the last time a sweep looked at it: its cluster
//! `r`, an upper bound `u ≥ ‖x − μ_r‖`, a lower bound
//! `l ≤ min_{j≠r} ‖x − μ_j‖`, and the drift of `r` at that time. Distances
//! are between the vectors as stored (the shifted `f64` row and the `f64`
//! centroids), in real arithmetic.
//!
//! Every displacement of a stored centroid (two per move, and the
//! recomputation between sweeps) is added to that cluster's cumulative drift
//! `D_j`. By the triangle inequality, later:
//!
//! ```text
//! ‖x − μ_r‖          ≤ u + (D_r(now) − D_r(then))
//! min_{j≠r} ‖x − μ_j‖ ≥ l − max_{j≠r} (D_j(now) − D_j(then))
//! ```
//!
//! The maximum over clusters is not computed per point: the sweep is cut into
//! checkpoints (a few per sweep), and for each recent checkpoint the largest
//! and second-largest drift of any cluster since it began are maintained as
//! moves happen (O(1) each), so "max over `j ≠ r`" is one lookup.
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
//! values is below `(d + 8)·ε`, all terms being non-negative). Drifts are
//! accumulated with upward rounding and lower bounds shrunk with downward
//! rounding, so every stored number errs on the safe side. A skipped point
//! is exactly a point the reference leaves alone; all others are decided by
//! the reference's expressions, so the sweep's moves do not change.

/// Rounds a non-negative quantity up (covers the one or two roundings of the
/// operation that produced it, with room to spare).
const UP: f64 = 1.0 + 4.0 * f64::EPSILON;
/// Rounds a non-negative quantity down.
const DOWN: f64 = 1.0 - 4.0 * f64::EPSILON;
/// Checkpoints remembered; a point's bounds are usable while the checkpoint
/// it was last seen in is among them. A point is seen once per sweep, at
/// independent random positions, so two visits can be almost two sweeps
/// (`2·CHECKS_PER_SWEEP` checkpoints) apart.
const RING: usize = 2 * CHECKS_PER_SWEEP + 2;
/// Checkpoints per sweep: the drift maxima cover from the start of the
/// checkpoint a point was seen in, so finer checkpoints give tighter bounds.
const CHECKS_PER_SWEEP: usize = 8;
/// Marks a point never examined.
const NO_LABEL: u32 = u32::MAX;

/// Bounds of one point (one cache line holds two).
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C)]
struct PointBound {
    /// Upper bound on the distance to the own centroid.
    upper: f64,
    /// Lower bound on the distance to every other centroid (0: unknown).
    lower: f64,
    /// `D_label` when the bounds were taken.
    own_drift: f64,
    /// The cluster the bounds refer to.
    label: u32,
    /// The checkpoint they were taken in.
    stamp: u32,
}

/// Drift of every cluster since one checkpoint began, summarised.
#[derive(Debug, Clone, PartialEq)]
struct Checkpoint {
    /// `D_j` when the checkpoint began.
    base: Vec<f64>,
    /// Largest `D_j − base_j` over all clusters, and its cluster.
    top: f64,
    top_j: usize,
    /// Largest over the clusters other than `top_j`.
    second: f64,
}

impl Checkpoint {
    fn new(k: usize) -> Self {
        Checkpoint {
            base: vec![0.0; k],
            top: 0.0,
            top_j: usize::MAX,
            second: 0.0,
        }
    }

    /// Cluster `j`'s drift since this checkpoint is now `drift` (it only
    /// grows, so the running maxima stay exact).
    #[inline(always)]
    fn raise(&mut self, j: usize, drift: f64) {
        let v = (drift - self.base[j]) * UP;
        if j == self.top_j {
            self.top = v;
        } else if v > self.top {
            self.second = self.top;
            self.top = v;
            self.top_j = j;
        } else if v > self.second {
            self.second = v;
        }
    }

    /// Largest drift of a cluster other than `r` since this checkpoint.
    #[inline(always)]
    fn max_other(&self, r: usize) -> f64 {
        if r == self.top_j {
            self.second
        } else {
            self.top
        }
    }
}

/// The bounds of one restart, carried from sweep to sweep.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Bounds {
    k: usize,
    d: usize,
    points: Vec<PointBound>,
    /// Cumulative drift `D_j` of every cluster (rounded up).
    drift: Vec<f64>,
    ring: Vec<Checkpoint>,
    /// The current checkpoint's number (its slot is `checkpoint % RING`).
    checkpoint: u32,
    /// Positions per checkpoint.
    interval: usize,
    /// The centroids at the end of the last sweep, to measure what moved
    /// them between sweeps.
    centroids: Vec<f64>,
    /// A lower bound on every cluster's size during the current sweep.
    min_count: usize,
    /// Relative margin covering the reference's rounding, `(d + 16)·ε`.
    gamma: f64,
    /// Scratch: a centroid before a move.
    old: Vec<f64>,
}

impl Bounds {
    /// Empty bounds (every point unknown) for `n` points, `k` clusters in `d`
    /// dimensions, or `None` when labels do not fit the compact layout.
    pub fn new(n: usize, k: usize, d: usize) -> Option<Self> {
        if k >= NO_LABEL as usize || d == 0 {
            return None;
        }
        let unknown = PointBound {
            upper: f64::INFINITY,
            lower: 0.0,
            own_drift: 0.0,
            label: NO_LABEL,
            stamp: 0,
        };
        Some(Bounds {
            k,
            d,
            points: vec![unknown; n],
            drift: vec![0.0; k],
            ring: vec![Checkpoint::new(k); RING],
            checkpoint: 0,
            interval: n.div_ceil(CHECKS_PER_SWEEP).max(1),
            centroids: Vec::new(),
            min_count: 0,
            gamma: (d as f64 + 16.0) * f64::EPSILON,
            old: vec![0.0; 2 * d],
        })
    }

    /// Whether these bounds belong to data and partitions of this shape.
    pub fn fits(&self, n: usize, k: usize, d: usize) -> bool {
        self.points.len() == n && self.k == k && self.d == d
    }

    /// Starts a sweep: whatever moved the centroids since the last sweep
    /// ended (the recomputation from the labels, or anything else) counts as
    /// drift, and the size bound is refreshed.
    pub fn begin_sweep(&mut self, centroids: &[f64], counts: &[usize]) {
        let d = self.d;
        if self.centroids.len() == centroids.len() {
            for j in 0..self.k {
                let (before, now) = (
                    &self.centroids[j * d..(j + 1) * d],
                    &centroids[j * d..(j + 1) * d],
                );
                if before != now {
                    let step = self.displacement(before, now);
                    self.add_drift(j, step);
                }
            }
        } else {
            // No record of the previous centroids: nothing known is usable.
            for b in &mut self.points {
                b.label = NO_LABEL;
            }
        }
        self.min_count = counts.iter().copied().min().unwrap_or(0);
    }

    /// Ends a sweep, remembering the centroids it leaves.
    pub fn end_sweep(&mut self, centroids: &[f64]) {
        self.centroids.clear();
        self.centroids.extend_from_slice(centroids);
    }

    /// Called before position `pos` of the sweep is processed: opens a new
    /// checkpoint every `interval` positions.
    #[inline(always)]
    pub fn at_position(&mut self, pos: usize) {
        if pos.is_multiple_of(self.interval) {
            self.checkpoint = self.checkpoint.wrapping_add(1);
            let slot = &mut self.ring[self.checkpoint as usize % RING];
            slot.base.copy_from_slice(&self.drift);
            slot.top = 0.0;
            slot.top_j = usize::MAX;
            slot.second = 0.0;
        }
    }

    /// An upper bound on the real distance between two stored vectors.
    #[inline(always)]
    fn displacement(&self, a: &[f64], b: &[f64]) -> f64 {
        (crate::data::sq_dist(a, b) * (1.0 + self.gamma)).sqrt() * UP
    }

    #[inline(always)]
    fn add_drift(&mut self, j: usize, step: f64) {
        let dj = (self.drift[j] + step) * UP;
        self.drift[j] = dj;
        for slot in &mut self.ring {
            slot.raise(j, dj);
        }
    }

    /// The current bounds `(u, l)` of point `i` in cluster `r`, or `None`
    /// when nothing usable is known.
    #[inline(always)]
    fn current(&self, i: usize, r: usize) -> Option<(f64, f64)> {
        let b = &self.points[i];
        let age = self.checkpoint.wrapping_sub(b.stamp) as usize;
        if b.label as usize != r || age >= RING || b.lower <= 0.0 {
            return None;
        }
        let slot = &self.ring[b.stamp as usize % RING];
        let own = (self.drift[r] - b.own_drift) * UP;
        let upper = (b.upper + own) * UP;
        let lower = (b.lower - slot.max_other(r)) * DOWN;
        Some((upper, lower))
    }

    /// Whether point `i` (in cluster `r` of size `n_r ≥ 2`) provably stays
    /// in a sweep with acceptance factor `factor`.
    #[inline(always)]
    fn stays(&self, upper: f64, lower: f64, n_r: usize, factor: f64) -> bool {
        if lower <= 0.0 {
            return false;
        }
        let m = self.min_count as f64;
        let join_min = m / (m + 1.0);
        let leave = n_r as f64 / (n_r as f64 - 1.0);
        join_min * lower * lower >= (1.0 + 4.0 * self.gamma) * (factor * leave * upper * upper)
    }

    /// Whether point `i` provably stays (no update of its bounds): used to
    /// predict which points of the next block need products.
    #[inline(always)]
    pub fn predicts_stay(&self, i: usize, r: usize, n_r: usize, factor: f64) -> bool {
        self.current(i, r)
            .is_some_and(|(u, l)| self.stays(u, l, n_r, factor))
    }

    /// Whether point `i` provably stays; if so its bounds are brought up to
    /// date (so they never grow older than one sweep).
    #[inline(always)]
    pub fn skip(&mut self, i: usize, r: usize, n_r: usize, factor: f64) -> bool {
        let Some((upper, lower)) = self.current(i, r) else {
            return false;
        };
        if !self.stays(upper, lower, n_r, factor) {
            return false;
        }
        self.points[i] = PointBound {
            upper,
            lower,
            own_drift: self.drift[r],
            label: r as u32,
            stamp: self.checkpoint,
        };
        true
    }

    /// Records exact knowledge of point `i` in cluster `r`: `own_dist` is the
    /// computed `sq_dist` to its centroid, `other_cost` a computed lower
    /// bound on every other cluster's `join_weight·sq_dist` (or on its
    /// `sq_dist`; join weights are below 1). Zero or less means unknown.
    #[inline(always)]
    pub fn record(&mut self, i: usize, r: usize, own_dist: f64, other_cost: f64) {
        let g = self.gamma;
        let lower = if other_cost > 0.0 {
            (other_cost * (1.0 - 2.0 * g)).sqrt() * DOWN
        } else {
            0.0
        };
        self.points[i] = PointBound {
            upper: (own_dist * (1.0 + 2.0 * g)).sqrt() * UP,
            lower,
            own_drift: self.drift[r],
            label: r as u32,
            stamp: self.checkpoint,
        };
    }

    /// Saves centroids `r` and `j` before a move between them.
    #[inline(always)]
    pub fn before_move(&mut self, centroids: &[f64], r: usize, j: usize) {
        let d = self.d;
        self.old[..d].copy_from_slice(&centroids[r * d..(r + 1) * d]);
        self.old[d..].copy_from_slice(&centroids[j * d..(j + 1) * d]);
    }

    /// After a move from `r` to `j` (sizes now `counts`): adds both clusters'
    /// displacements to their drift and updates the size bound.
    #[inline(always)]
    pub fn after_move(&mut self, centroids: &[f64], counts: &[usize], r: usize, j: usize) {
        let d = self.d;
        let step_r = self.displacement(&self.old[..d], &centroids[r * d..(r + 1) * d]);
        let step_j = self.displacement(&self.old[d..], &centroids[j * d..(j + 1) * d]);
        self.add_drift(r, step_r);
        self.add_drift(j, step_j);
        self.min_count = self.min_count.min(counts[r]);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn checkpoint_tracks_the_two_largest_drifts() {
        let mut c = Checkpoint::new(4);
        c.raise(2, 1.0);
        c.raise(1, 0.5);
        assert_eq!(c.max_other(0), c.top);
        assert!(c.max_other(2) >= 0.5 && c.max_other(2) < 0.6);
        c.raise(2, 3.0);
        assert!(c.max_other(2) < 0.6);
        c.raise(1, 4.0);
        assert_eq!(c.top_j, 1);
        assert!(c.max_other(1) >= 3.0);
        assert!(c.max_other(3) >= 4.0);
    }

    #[test]
    fn bounds_expire_and_follow_labels() {
        let mut b = Bounds::new(3, 2, 1).unwrap();
        b.at_position(0);
        b.record(0, 0, 1.0, 9.0);
        assert!(b.current(0, 0).is_some());
        // Wrong cluster: unknown.
        assert!(b.current(0, 1).is_none());
        // Far-off clusters cannot pull the point: it stays at factor 1.
        b.min_count = 10;
        assert!(b.predicts_stay(0, 0, 10, 1.0));
        // A large drift of the other cluster removes the guarantee.
        b.add_drift(1, 2.5);
        assert!(!b.predicts_stay(0, 0, 10, 1.0));
        // Too many checkpoints later the bounds are forgotten.
        for pos in 0..RING {
            b.at_position(pos * b.interval);
        }
        assert!(b.current(0, 0).is_none());
    }
}
