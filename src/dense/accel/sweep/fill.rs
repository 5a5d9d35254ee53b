//! A block of the blocked sweep: which points it takes, its snapshot of
//! the centroids, its rows gathered with their products, and (over spare
//! threads) each row's decision work prepared against the snapshot.

use super::super::block::{gather, Block, Prepared};
use super::super::bounds::{Bounds, SkipTests};
use super::decide::{point_factors, prepare, Row, Weighting, UNIT};
use super::{prefetch_ahead, Live, Pass, MAX_SPAN};
use crate::data::{Data, Scalar};
use crate::engine::partition::Partition;
use rayon::prelude::*;

impl Block {
    /// Brings the panel up to the current centroids: only the clusters
    /// changed since its last snapshot are re-packed.
    pub(super) fn snapshot(&mut self, p: &Partition, live: &Live, max_abs: f64) {
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
    pub(super) fn select<T: Scalar>(
        &mut self,
        bounds: &Bounds,
        p: &Partition,
        pass: &mut Pass<'_, '_, T>,
        start: usize,
        cap: usize,
    ) {
        let s = pass.sweep;
        let (data, order) = (s.data, s.order);
        let row = &mut pass.scratch;
        self.start = start;
        self.members.clear();
        self.points.clear();
        let limit = (start + MAX_SPAN).min(order.len());
        let mut pos = start;
        while pos < limit && self.members.len() < cap {
            prefetch_ahead(order, pos, bounds, &p.stats.labels);
            let i = order[pos];
            let (r, w) = (p.stats.labels[i], data.weight(i));
            if p.stats.may_leave(r, w)
                && bounds
                    .proves_stay((i, r, w), p, s, row, SkipTests::Both)
                    .is_none()
            {
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
    pub(super) fn open<T: Scalar>(
        &mut self,
        live: &mut Live,
        bounds: &Bounds,
        p: &Partition,
        pass: &mut Pass<'_, '_, T>,
        start: usize,
        cap: usize,
    ) {
        self.select(bounds, p, pass, start, cap);
        self.snapshot(p, live, pass.sweep.data.max_abs_shifted());
        live.next_epoch();
        self.epoch = live.epoch;
    }

    /// Gathers the rows of the block's points and computes their products,
    /// over the pool's threads when `spare_threads` and the block is large
    /// enough for the split to pay (then each row's decision work is
    /// prepared as well, see [`Block::fill_prepared`]); otherwise on the
    /// calling thread.
    pub(super) fn fill_for<T: Scalar>(
        &mut self,
        pass: &Pass<'_, '_, T>,
        p: &Partition,
        live: &Live,
    ) {
        let work = self.members.len() * self.panel.kp * p.d;
        let split =
            work >= PREPARE_MIN_WORK && self.members.len() > prepare_rows(self.members.len());
        if pass.spare_threads && split {
            self.fill_prepared(pass.sweep.data, p, &live.w, pass.sweep.factor);
        } else {
            self.fill_members(pass.sweep.data);
        }
    }

    /// Gathers the block's rows, computes their products and prepares each
    /// row's decision against the snapshot ([`Prepared`]), split over the
    /// pool: the rows of a block are independent until they are decided,
    /// which happens afterwards, in order. Each row is computed on its own,
    /// so no bit depends on the split. `w` are the live join weights, which
    /// at the snapshot are the snapshot's (as are the cluster weights, which
    /// weighted rows take their factors from).
    pub(super) fn fill_prepared<T: Scalar>(
        &mut self,
        data: &Data<'_, T>,
        p: &Partition,
        w: &[f32],
        factor: f64,
    ) {
        let points = std::mem::take(&mut self.points);
        let (d, kp) = (p.d, self.panel.kp);
        self.resize(d, points.len());
        let rows = prepare_rows(points.len());
        self.w0.clear();
        self.w0.extend_from_slice(w);
        let weighted = data.is_weighted();
        self.weights0.clear();
        if weighted {
            self.weights0.extend_from_slice(&p.stats.weights);
        }
        self.prepared.resize(points.len(), Prepared::default());
        let (panel, w0) = (&self.panel, &self.w0);
        let max_abs = self
            .x64
            .par_chunks_mut(rows * d)
            .zip(self.x32.par_chunks_mut(rows * d))
            .zip(self.a.par_chunks_mut(rows))
            .zip(self.g.par_chunks_mut(rows * kp))
            .zip(self.prepared.par_chunks_mut(rows))
            .zip(points.par_chunks(rows))
            .map_init(
                // Weighted rows' factors need a row of scratch per task.
                || {
                    let point_w = if weighted { w0.clone() } else { Vec::new() };
                    (panel.h.clone(), Vec::with_capacity(p.k), point_w)
                },
                |(h, cand, point_w), (((((x64, x32), a), g), prepared), idx)| {
                    let max_abs = gather(data, idx, panel, x64, x32, a);
                    if panel.usable {
                        panel.product(x32, idx.len(), g);
                        for (t, (out, &i)) in prepared.iter_mut().zip(idx).enumerate() {
                            let row = Row::at(x64, a, g, t, d, kp);
                            let (r, wi) = (p.stats.labels[i], data.weight(i));
                            *out = if !weighted {
                                prepare(p, panel, (w0, h), cand, row, (r, UNIT), factor)
                            } else if wi != 0.0 {
                                point_factors(point_w, &p.stats.weights, wi);
                                let screen = (&point_w[..], &mut h[..]);
                                let weighting = Weighting::<true> { w: wi };
                                prepare(p, panel, screen, cand, row, (r, weighting), factor)
                            } else {
                                // Zero-weight points are decided exactly.
                                Prepared::default()
                            };
                        }
                    }
                    max_abs
                },
            )
            .reduce(|| 0.0, f64::max);
        self.usable = self.panel.usable && max_abs * self.panel.scale <= 2.0;
        self.has_prepared = self.panel.usable;
        self.points = points;
    }

    /// Gathered row `t` (of `d` features).
    #[inline(always)]
    pub(super) fn row(&self, t: usize, d: usize) -> Row<'_> {
        Row::at(&self.x64, &self.a, &self.g, t, d, self.panel.kp)
    }
}

/// Rows of one task of [`Block::fill_prepared`] for a block of `len` rows:
/// about two tasks per thread, and at least a few of the product kernel's
/// row tiles, so that each task reads the packed centroids once for many
/// rows. (Each row's products accumulate in the same order in any tile, so
/// the split, which depends on the thread count, changes no bit.)
pub(super) fn prepare_rows(len: usize) -> usize {
    len.div_ceil(2 * rayon::current_num_threads()).clamp(16, 64)
}

/// Least multiply-adds in a block's products (rows × padded clusters ×
/// features) for its fill to be split over the pool (and it must make more
/// than one task): below it the hand-offs cost more than the split saves.
/// The crate's own tests split every block of more than one task, so that
/// the equivalence tests exercise it.
#[cfg(not(test))]
pub(super) const PREPARE_MIN_WORK: usize = 1 << 21;
#[cfg(test)]
pub(super) const PREPARE_MIN_WORK: usize = 1;
