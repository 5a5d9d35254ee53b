//! Unit rows as a [`Source`] (what a restart needs) and as refinement's
//! [`Rows`]; one restart's state on them ([`SphericalState`]).

use super::costs::{join_slope, leave_gain, Cosine};
use super::rows::{Spherical, UnitDense, UnitRows};
use super::screen::{
    choose_screened, nearest_screened, no_join_undercuts, others_reach, Screen, ScreenScratch,
};
use crate::data::{direction_of_sum, sq_dist, Data, Scalar};
use crate::dense::accel::lloyd::{assign_nearest_bounded, LloydBounds};
use crate::engine::move_rule::{
    improves_beyond_rounding, move_ratio, still_moves, STALL_REL_MARGIN,
};
use crate::engine::nearest::nearest_by;
use crate::engine::plus_plus::{plus_plus_among, Draw};
use crate::engine::points::{Points, Split};
use crate::engine::refine::{merge_labels_by, split_cluster};
use crate::engine::rounds::RoundPlan;
use crate::engine::source::{objective_by_cluster, Descent, Representation, Reshape, Starts};
use crate::engine::stats::ClusterStats;
use crate::params::Metric;
use ndarray::Array2;
use rayon::prelude::*;
use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, Ordering};

/// Rows of one block of a sweep: their distances to every direction are
/// computed together, against the directions at the block's start, in
/// parallel where the block is large enough. A direction a move in the
/// block has changed since is measured again, in the same fixed order, so
/// the decisions are those of a sweep one row at a time, bit for bit.
const BLOCK: usize = 256;

/// Least multiply-adds in a block's distances for them to be split over
/// the pool (below it the hand-offs cost more than they save; only speed
/// depends on it).
const PARALLEL_BLOCK_WORK: usize = 1 << 16;

/// Rows per parallel task of the passes over every row.
const CHUNK: usize = 1024;

/// `value(i)` for each of `n` rows, in parallel over fixed chunks of
/// [`CHUNK`] rows (each value on its own: no bit depends on the split).
fn per_row(n: usize, value: impl Fn(usize) -> f64 + Sync) -> Vec<f64> {
    let mut out = vec![0.0; n];
    out.par_chunks_mut(CHUNK)
        .enumerate()
        .for_each(|(c, chunk)| {
            for (o, v) in chunk.iter_mut().enumerate() {
                *v = value(c * CHUNK + o);
            }
        });
    out
}

/// Rows whose `f32` products are computed together: enough for the
/// product's register tiles, few enough that a block splits into several
/// parallel tasks (only speed depends on it).
const SCREEN_ROWS: usize = 16;

/// Rows from which [`Spherical::recompute`] sums groups of clusters side
/// by side (below, one task: the groups' start-up would cost more than the
/// pass).
const RECOMPUTE_SPLIT_ROWS: usize = 16_384;

/// One restart's state on unit rows.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SphericalState {
    k: usize,
    /// Labels, counts, weights and `k × d` row-major sums of each
    /// cluster's weighted unit rows.
    stats: ClusterStats,
    /// `‖s_j‖`.
    norms: Vec<f64>,
    /// `k × d`: each cluster's direction `s_j/‖s_j‖` (the first axis where
    /// the sum vanishes).
    units: Vec<f64>,
    /// `‖μ_j‖²` as computed (1 up to rounding).
    unit_norms2: Vec<f64>,
    /// [`join_slope`]`(1, ‖s_j‖)`: the slopes of the lines under the join
    /// costs of rows of unit weight.
    unit_slopes: Vec<f64>,
    /// Dense rows: the bounds of the last Lloyd assignment (speed only:
    /// they change no label).
    lloyd: Option<LloydBounds>,
}

impl SphericalState {
    /// The slopes of the lines under the join costs of a row of weight
    /// `w > 0` ([`join_slope`]): those kept for unit weight, or computed
    /// into `scratch`.
    fn slopes<'s>(&'s self, w: f64, scratch: &'s mut Vec<f64>) -> &'s [f64] {
        if w == 1.0 {
            return &self.unit_slopes;
        }
        scratch.clear();
        scratch.extend(self.norms.iter().map(|&s| join_slope(w, s)));
        scratch
    }

    /// Its clusters' costs for Hartigan's rule.
    #[inline(always)]
    fn costs(&self) -> Cosine<'_> {
        Cosine::new(&self.stats.counts, &self.stats.weights, &self.norms)
    }
}

impl<U: UnitRows, T: Scalar> Spherical<'_, U, T> {
    fn d(&self) -> usize {
        self.rows.d()
    }

    /// Direction `j` of `st`.
    #[inline(always)]
    fn unit<'s>(&self, st: &'s SphericalState, j: usize) -> &'s [f64] {
        let d = self.d();
        &st.units[j * d..(j + 1) * d]
    }

    /// `‖u_i − μ_j‖²`.
    #[inline(always)]
    fn dist(&self, st: &SphericalState, i: usize, j: usize) -> f64 {
        self.rows.sq_dist(i, self.unit(st, j), st.unit_norms2[j])
    }

    /// Cluster `j`'s norm and direction from its sum ([`direction_of_sum`]:
    /// a sum of length zero points along the first axis).
    fn finish_cluster(&self, st: &mut SphericalState, j: usize) {
        let d = self.d();
        let (sum, unit) = (
            &st.stats.sums[j * d..(j + 1) * d],
            &mut st.units[j * d..(j + 1) * d],
        );
        st.norms[j] = direction_of_sum(sum, unit);
        st.unit_norms2[j] = unit.iter().map(|v| v * v).sum();
        st.unit_slopes[j] = join_slope(1.0, st.norms[j]);
    }

    /// Every statistic recomputed from the labels, each cluster's over its
    /// rows in index order. On [`RECOMPUTE_SPLIT_ROWS`] rows or more the
    /// clusters are summed in groups side by side, each group's task
    /// reading the labels of every row and the rows of its own clusters:
    /// every cluster still sums its rows in index order, so the bits do not
    /// depend on the groups or the threads.
    fn recompute(&self, st: &mut SphericalState) {
        let (d, k, n) = (self.d(), st.k, self.rows.n());
        st.stats.clear();
        let threads = rayon::current_num_threads();
        let per_group = if n >= RECOMPUTE_SPLIT_ROWS && threads > 1 {
            k.div_ceil(threads).max(1)
        } else {
            k.max(1)
        };
        let stats = &mut st.stats;
        let labels = &stats.labels;
        stats
            .sums
            .par_chunks_mut(per_group * d.max(1))
            .zip(stats.counts.par_chunks_mut(per_group))
            .zip(stats.weights.par_chunks_mut(per_group))
            .enumerate()
            .for_each(|(g, ((sums, counts), weights))| {
                let first = g * per_group;
                for (i, &l) in labels.iter().enumerate() {
                    let Some(j) = l.checked_sub(first).filter(|&j| j < counts.len()) else {
                        continue;
                    };
                    let w = self.weight(i);
                    counts[j] += 1;
                    weights[j] += w;
                    self.rows.add_to(i, w, &mut sums[j * d..(j + 1) * d]);
                }
            });
        for j in 0..st.k {
            self.finish_cluster(st, j);
        }
    }

    /// The state of `labels` in `k` clusters; a cluster left without
    /// weight takes the rows farthest from their directions, as an initial
    /// partition's empty clusters do.
    fn state_from_labels(&self, k: usize, labels: Vec<usize>) -> SphericalState {
        let d = self.d();
        let mut st = SphericalState {
            k,
            stats: ClusterStats::new(k, d, labels),
            norms: vec![0.0; k],
            units: vec![0.0; k * d],
            unit_norms2: vec![0.0; k],
            unit_slopes: vec![0.0; k],
            lloyd: None,
        };
        self.recompute(&mut st);
        self.fill_empty_clusters(&mut st);
        st
    }

    /// Refills clusters of no weight (see [`ClusterStats::refill`]); the rows moved.
    fn fill_empty_clusters(&self, st: &mut SphericalState) -> usize {
        let empties = st.stats.empty_clusters();
        if empties.is_empty() {
            return 0;
        }
        let own = self.own_distances(st);
        let moved = st.stats.refill(&empties, own, |i| self.weight(i));
        self.recompute(st);
        moved
    }

    /// Every row's squared distance to its own direction, in parallel over
    /// fixed chunks (each value on its own: no bit depends on the split).
    fn own_distances(&self, st: &SphericalState) -> Vec<f64> {
        per_row(self.rows.n(), |i| self.dist(st, i, st.stats.labels[i]))
    }

    /// The nearest direction of every row (ties to the lowest index), given
    /// `k × d` directions; polls `cancel` per chunk.
    fn nearest(&self, units: &[f64], k: usize, cancel: &AtomicBool) -> Vec<usize> {
        let norms2: Vec<f64> = units
            .chunks_exact(self.d())
            .map(|u| u.iter().map(|v| v * v).sum())
            .collect();
        self.assign(units, &norms2, k, None, cancel)
    }

    /// The nearest of the `k × d` directions `units` (squared norms
    /// `norms2`) of every row, by the rule of [`nearest_by`] (a tie keeps
    /// the row's label in `current`, if given). On dense rows the `f32`
    /// screen leaves out the directions it proves farther than the nearest
    /// one measured ([`nearest_screened`]); in parallel over fixed chunks,
    /// each row's result on its own. Polls `cancel` per chunk.
    fn assign(
        &self,
        units: &[f64],
        norms2: &[f64],
        k: usize,
        current: Option<&[usize]>,
        cancel: &AtomicBool,
    ) -> Vec<usize> {
        let d = self.d();
        let screen = self
            .rows
            .dense()
            .and_then(|rows| Screen::new(units, k, d, rows.max_abs()));
        let exact =
            |i: usize, j: usize| self.rows.sq_dist(i, &units[j * d..(j + 1) * d], norms2[j]);
        let mut labels = vec![0; self.rows.n()];
        labels.par_chunks_mut(CHUNK).enumerate().for_each_init(
            || (ScreenScratch::default(), Vec::new()),
            |(scratch, measured), (c, chunk)| {
                if cancel.load(Ordering::Relaxed) {
                    return;
                }
                let start = c * CHUNK;
                let current = |i: usize| current.map(|l| l[i]);
                let (Some(screen), Some(rows)) = (&screen, self.rows.dense()) else {
                    for (o, l) in chunk.iter_mut().enumerate() {
                        let i = start + o;
                        *l = nearest_by(k, current(i), |j| exact(i, j));
                    }
                    return;
                };
                for (b, part) in chunk.chunks_mut(SCREEN_ROWS).enumerate() {
                    let first = start + b * SCREEN_ROWS;
                    measured.resize(part.len() * k, 0.0);
                    screen.lower_bounds(
                        (first..first + part.len()).map(|i| rows.row(i)),
                        scratch,
                        measured,
                    );
                    for (t, l) in part.iter_mut().enumerate() {
                        let i = first + t;
                        let low = &measured[t * k..(t + 1) * k];
                        *l = nearest_screened(low, current(i), |j| exact(i, j));
                    }
                }
            },
        );
        labels
    }

    /// Directions `k × d` from any centroids ([`direction_of_sum`]: of any
    /// length; a zero centroid points along the first axis).
    fn directions(&self, centroids: Vec<f64>) -> Vec<f64> {
        let mut out = vec![0.0; centroids.len()];
        for (c, u) in centroids
            .chunks_exact(self.d())
            .zip(out.chunks_exact_mut(self.d()))
        {
            direction_of_sum(c, u);
        }
        out
    }

    /// Measures `rows` against `snap`: into `m` (row after row, `k` each)
    /// on dense rows the `f32` screen's lower bounds and then the exact
    /// distances each row's decision against `snap` needs (`e` marks them),
    /// elsewhere every distance exactly; each row's decision against `snap`
    /// goes to `decisions` where given.
    #[allow(clippy::too_many_arguments)]
    fn measure(
        &self,
        snap: &SphericalState,
        screen: Option<&Screen>,
        rows: &[usize],
        factor: f64,
        (m, e): (&mut [f64], &mut [bool]),
        (scratch, lows): (&mut ScreenScratch, &mut Vec<f64>),
        mut decisions: Option<&mut [Option<usize>]>,
    ) {
        let k = snap.k;
        match (screen, self.rows.dense()) {
            (Some(screen), Some(dense)) => {
                screen.lower_bounds(rows.iter().map(|&i| dense.row(i)), scratch, m);
                e.iter_mut().for_each(|v| *v = false);
            }
            _ => {
                for (t, &i) in rows.iter().enumerate() {
                    for j in 0..k {
                        m[t * k + j] = self.dist(snap, i, j);
                    }
                }
                e.iter_mut().for_each(|v| *v = true);
                if decisions.is_none() {
                    return;
                }
            }
        }
        for (t, &i) in rows.iter().enumerate() {
            let m = &mut m[t * k..(t + 1) * k];
            let e = &mut e[t * k..(t + 1) * k];
            let to = self.decide(snap, i, factor, m, e, lows);
            if let Some(out) = decisions.as_deref_mut() {
                out[t] = to;
            }
        }
    }

    /// The sweep in rounds (the definition of
    /// [`crate::dense::accel::sweep::rounds`], on unit rows): the rows of a round
    /// decided in parallel against the directions as it began, then each
    /// proposed move made, in order, where the rule still accepts it against
    /// the current state ([`still_moves`]). Rounds are cut by
    /// a [`RoundPlan`], as there.
    fn sweep_rounds(&self, st: &mut SphericalState, order: &[usize], factor: f64) -> usize {
        let (k, d, n) = (st.k, self.d(), order.len());
        let mut proposals = Vec::new();
        let mut moves = 0;
        RoundPlan::new(n, k, d).run(n, |start, end| {
            let round = &order[start..end];
            proposals.clear();
            proposals.resize(round.len(), None);
            let snap = &*st;
            let screen = self
                .rows
                .dense()
                .and_then(|rows| Screen::new(&snap.units, k, d, rows.max_abs()));
            round
                .par_chunks(SCREEN_ROWS)
                .zip(proposals.par_chunks_mut(SCREEN_ROWS))
                .enumerate()
                .for_each_init(
                    || (ScreenScratch::default(), Vec::new(), Vec::new(), Vec::new()),
                    |(scratch, lows, m, e), (c, (rows, out))| {
                        // The rows come in visiting order, scattered over the
                        // data: the next chunk's (most often this thread's
                        // next) start loading while this one is measured.
                        if let (Some(dense), Some(next)) =
                            (self.rows.dense(), round.chunks(SCREEN_ROWS).nth(c + 1))
                        {
                            next.iter()
                                .for_each(|&i| crate::data::prefetch(dense.row(i)));
                        }
                        m.resize(rows.len() * k, 0.0);
                        e.resize(rows.len() * k, false);
                        let work = (&mut *scratch, &mut *lows);
                        self.measure(snap, screen.as_ref(), rows, factor, (m, e), work, Some(out));
                    },
                );
            let mut proposed = 0;
            for (&i, &to) in round.iter().zip(&proposals) {
                let Some(j) = to else { continue };
                proposed += 1;
                moves += usize::from(self.move_if_still_moves(st, i, j, factor));
            }
            proposed
        });
        moves
    }

    /// Moves row `i` to `j` if the rule, against `st` as it is now, still
    /// moves it ([`still_moves`]); returns whether it moved.
    fn move_if_still_moves(
        &self,
        st: &mut SphericalState,
        i: usize,
        j: usize,
        factor: f64,
    ) -> bool {
        let (r, w) = (st.stats.labels[i], self.weight(i));
        let dists = (self.dist(st, i, r), self.dist(st, i, j));
        let moves = still_moves(&st.costs(), (r, j), w, factor, dists);
        if moves {
            self.move_row(st, i, j);
        }
        moves
    }

    /// Row `i`'s Hartigan decision in `st` (the rule of [`crate::engine::move_rule::choose_move`], bit for
    /// bit), from `measured[j]`: its distance to direction `j` in `st`,
    /// exact where `is_exact[j]` and a lower bound on it otherwise; each
    /// exact distance the decision needs is computed and kept there.
    ///
    /// The row stays at once where the lines under the join costs, at the
    /// bounds, all reach the leave gain times `factor`
    /// ([`no_join_undercuts`]: no root or quotient per direction); the
    /// rest is [`choose_screened`]'s.
    fn decide(
        &self,
        st: &SphericalState,
        i: usize,
        factor: f64,
        measured: &mut [f64],
        is_exact: &mut [bool],
        lows: &mut Vec<f64>,
    ) -> Option<usize> {
        let (r, w) = (st.stats.labels[i], self.weight(i));
        if !st.stats.may_leave(r, w) {
            return None;
        }
        if w == 0.0 {
            let exact = |j: usize| {
                if is_exact[j] {
                    measured[j]
                } else {
                    self.dist(st, i, j)
                }
            };
            let j = nearest_screened(measured, Some(r), exact);
            return (j != r).then_some(j);
        }
        if !is_exact[r] {
            measured[r] = self.dist(st, i, r);
            is_exact[r] = true;
        }
        // The definition's threshold, in its order of operations.
        let own = factor * leave_gain(w, st.norms[r], measured[r]);
        if no_join_undercuts(measured, st.slopes(w, lows), r, own) {
            return None;
        }
        let dist = |j: usize, want: bool| {
            if want && !is_exact[j] {
                measured[j] = self.dist(st, i, j);
                is_exact[j] = true;
            }
            measured[j]
        };
        choose_screened(&st.norms, r, w, own, dist, lows)
    }

    /// Row `i` moved to cluster `j`: both clusters' sums, norms and
    /// directions updated at once (the paper's Hartigan step).
    fn move_row(&self, st: &mut SphericalState, i: usize, j: usize) {
        let (d, r, w) = (self.d(), st.stats.labels[i], self.weight(i));
        self.rows
            .add_to(i, -w, &mut st.stats.sums[r * d..(r + 1) * d]);
        self.rows
            .add_to(i, w, &mut st.stats.sums[j * d..(j + 1) * d]);
        self.finish_cluster(st, r);
        self.finish_cluster(st, j);
        st.stats.labels[i] = j;
        st.stats.counts[r] -= 1;
        st.stats.counts[j] += 1;
        st.stats.weights[r] -= w;
        st.stats.weights[j] += w;
    }

    /// The loss `Σ w·(1 − cos)` of `st`, from every row's distance to its
    /// direction (`1 − cos = D/2`), summed in row order.
    fn loss(&self, st: &SphericalState) -> f64 {
        let own = self.own_distances(st);
        own.iter()
            .enumerate()
            .map(|(i, &d)| self.weight(i) * 0.5 * d)
            .sum()
    }

    /// The clusters' weighted means of the unit rows, `k × d` (the
    /// Euclidean centroids refinement's proposals are made from).
    fn means(&self, st: &SphericalState) -> Vec<f64> {
        let d = self.d();
        let mut means = st.stats.sums.clone();
        for (m, &w) in means.chunks_exact_mut(d).zip(&st.stats.weights) {
            if w > 0.0 {
                m.iter_mut().for_each(|v| *v /= w);
            }
        }
        means
    }
}

/// The unit rows as the bounded descent reads them (with the spherical
/// gains, [`super::SphericalLoss`]), in the Euclidean geometry of unit
/// vectors that refinement's proposals also use.
impl<U: UnitRows, T: Scalar> Points for Spherical<'_, U, T> {
    type Row<'r>
        = (usize, &'r Self)
    where
        Self: 'r;

    fn dim(&self) -> usize {
        self.d()
    }

    fn weight(&self, i: usize) -> f64 {
        Spherical::weight(self, i)
    }

    fn row<'r>(&'r self, i: usize, _buf: &'r mut [f64]) -> Self::Row<'r> {
        (i, self)
    }

    fn sq_dist_to(x: &Self::Row<'_>, c: &[f64], c_norm: f64) -> f64 {
        let (i, rows) = *x;
        rows.rows.sq_dist(i, c, c_norm)
    }

    fn add_to(x: &Self::Row<'_>, w: f64, sum: &mut [f64]) {
        let (i, rows) = *x;
        rows.rows.add_to(i, w, sum);
    }

    fn split(&self, members: &[usize], mean: &[f64]) -> Option<Split> {
        split_cluster(self, members, mean)
    }

    fn len(&self) -> usize {
        self.rows.n()
    }

    fn pair_sq_dist(&self, a: usize, b: usize) -> f64 {
        let mut row = vec![0.0; self.d()];
        self.rows.write_dense(b, &mut row);
        let norm2 = row.iter().map(|v| v * v).sum();
        self.rows.sq_dist(a, &row, norm2)
    }

    fn sq_norm_bound(&self) -> f64 {
        // Unit rows; `1 + ε` covers the rounding of their scaling.
        1.0 + 1e-12
    }
}

impl<U: UnitRows, T: Scalar> Representation for Spherical<'_, U, T> {
    type State = SphericalState;
    type Out = T;
    type Points = Self;
    type Gains = super::SphericalLoss;

    fn points(&self) -> &Self {
        self
    }

    fn metric(&self) -> Metric {
        Metric::Cosine
    }

    fn stats(st: &SphericalState) -> &ClusterStats {
        &st.stats
    }

    /// The directions in the caller's type, and the loss from exactly
    /// those: each centroid scaled to unit length again after rounding,
    /// each row's `1 − cos` as half its squared distance to it.
    fn finalize(&self, st: &SphericalState) -> (Array2<T>, f64, Vec<f64>) {
        let (k, d) = (st.k, self.d());
        let centroids = Array2::from_shape_fn((k, d), |(j, c)| T::from_f64(st.units[j * d + c]));
        let wide = self.directions(centroids.iter().map(|v| v.to_f64()).collect());
        let norms2: Vec<f64> = wide
            .chunks_exact(d)
            .map(|u| u.iter().map(|v| v * v).sum())
            .collect();
        let own = per_row(self.rows.n(), |i| {
            let l = st.stats.labels[i];
            0.5 * self.rows.sq_dist(i, &wide[l * d..(l + 1) * d], norms2[l])
        });
        let (objective, per_cluster) =
            objective_by_cluster(&st.stats.labels, k, |i, _| self.weight(i) * own[i]);
        (centroids, objective, per_cluster)
    }
}

impl<U: UnitRows, T: Scalar> Starts for Spherical<'_, U, T> {
    fn labelled_state(&self, k: usize, labels: Vec<usize>) -> SphericalState {
        self.state_from_labels(k, labels)
    }

    fn nearest_labels(&self, centroids: Vec<f64>, k: usize, cancel: &AtomicBool) -> Vec<usize> {
        self.nearest(&self.directions(centroids), k, cancel)
    }

    /// Greedy k-means++ by `1 − cos` (spherical k-means++). Between unit
    /// rows `‖u − v‖² = 2·(1 − cos(u, v))`, so the potentials, draws and
    /// greedy choices by squared distance are those by `1 − cos`: dense
    /// unit rows go through the accelerated Euclidean k-means++ (screened,
    /// the same choices as its plain definition for any thread count);
    /// sparse ones through the plain definition, computed in parallel per
    /// candidate.
    fn plus_plus_rows(&self, draw: Draw<'_>) -> Vec<usize> {
        if let Some(view) = self.rows.dense().and_then(UnitDense::view) {
            let data = Data::new(view, self.weights().map(Cow::Borrowed));
            return plus_plus_among(&data, draw, true);
        }
        let mut centre = vec![0.0; self.d()];
        draw.plain(
            self.rows.n(),
            self.weights().is_some(),
            |i| self.weight(i),
            |c, among, out| {
                self.rows.write_dense(c, &mut centre);
                let norm2: f64 = centre.iter().map(|v| v * v).sum();
                let centre = &centre;
                out.par_chunks_mut(CHUNK)
                    .enumerate()
                    .for_each(|(b, chunk)| {
                        for (o, v) in chunk.iter_mut().enumerate() {
                            *v = self.rows.sq_dist(among.row(b * CHUNK + o), centre, norm2);
                        }
                    });
            },
        )
    }

    fn centroids(&self, st: &SphericalState) -> Vec<f64> {
        st.units.clone()
    }

    fn point_costs(&self, st: &SphericalState) -> Vec<f64> {
        let mut own = self.own_distances(st);
        for (i, v) in own.iter_mut().enumerate() {
            *v *= 0.5 * self.weight(i);
        }
        own
    }

    fn rows_as_centroids(&self, rows: &[usize]) -> Vec<f64> {
        let d = self.d();
        let mut out = vec![0.0; rows.len() * d];
        for (c, &i) in out.chunks_exact_mut(d).zip(rows) {
            self.rows.write_dense(i, c);
        }
        out
    }
}

impl<U: UnitRows, T: Scalar> Descent for Spherical<'_, U, T> {
    /// The Hartigan moves of one sweep over `order` with acceptance factor
    /// `factor`, block by block (see [`BLOCK`]); the sums, norms and
    /// directions of the clusters a move touches are updated at once.
    ///
    /// Each block is first measured against the directions at its start,
    /// in parallel: on dense rows, the `f32` screen's lower bounds on every
    /// distance, and then the exact distances that the row's decision
    /// against that snapshot needs ([`choose_screened`]); elsewhere every
    /// distance exactly. The rows are then decided in order against the
    /// current state: the directions a move of the block has changed are
    /// measured again exactly, the others' exact distances and bounds are
    /// still those of the current state, and whatever else a decision needs
    /// is computed exactly when it is needed.
    fn sweep_moves(&self, st: &mut SphericalState, order: &[usize], factor: f64) -> usize {
        if self.rounds {
            return self.sweep_rounds(st, order, factor);
        }
        let (k, d) = (st.k, self.d());
        // Per row of the block and direction: a distance, exact where
        // `is_exact` says so and a lower bound on it otherwise.
        let mut measured = Vec::new();
        let mut is_exact = Vec::new();
        let mut dirty = vec![false; k];
        let mut touched = Vec::new();
        let mut lows = Vec::new();
        let mut moves = 0;
        for block in order.chunks(BLOCK) {
            measured.resize(block.len() * k, 0.0);
            is_exact.resize(block.len() * k, false);
            let snap = &*st;
            let screen = self
                .rows
                .dense()
                .and_then(|rows| Screen::new(&snap.units, k, d, rows.max_abs()));
            let measure =
                |(scratch, lows): &mut (ScreenScratch, Vec<f64>),
                 ((m, e), rows): ((&mut [f64], &mut [bool]), &[usize])| {
                    let work = (&mut *scratch, &mut *lows);
                    self.measure(snap, screen.as_ref(), rows, factor, (m, e), work, None);
                };
            let rows = SCREEN_ROWS * k;
            if block.len() * k * d >= PARALLEL_BLOCK_WORK {
                measured
                    .par_chunks_mut(rows)
                    .zip(is_exact.par_chunks_mut(rows))
                    .zip(block.par_chunks(SCREEN_ROWS))
                    .for_each_init(|| (ScreenScratch::default(), Vec::new()), measure);
            } else {
                let mut scratch = (ScreenScratch::default(), Vec::new());
                measured
                    .chunks_mut(rows)
                    .zip(is_exact.chunks_mut(rows))
                    .zip(block.chunks(SCREEN_ROWS))
                    .for_each(|p| measure(&mut scratch, p));
            }
            for &j in &touched {
                dirty[j] = false;
            }
            touched.clear();
            for (t, &i) in block.iter().enumerate() {
                let m = &mut measured[t * k..(t + 1) * k];
                let e = &mut is_exact[t * k..(t + 1) * k];
                for &j in &touched {
                    m[j] = self.dist(st, i, j);
                    e[j] = true;
                }
                let r = st.stats.labels[i];
                let Some(j) = self.decide(st, i, factor, m, e, &mut lows) else {
                    continue;
                };
                self.move_row(st, i, j);
                for c in [r, j] {
                    if !dirty[c] {
                        dirty[c] = true;
                        touched.push(c);
                    }
                }
                moves += 1;
            }
        }
        moves
    }

    fn refresh(&self, st: &mut SphericalState) {
        self.recompute(st);
    }

    /// On dense rows the nearest directions are the nearest centroids of
    /// the Euclidean Lloyd step, the directions as centroids and the unit
    /// rows unshifted (the same `sq_dist`, so the same bits): its bounded,
    /// screened assignment ([`assign_nearest_bounded`]) skips the rows its
    /// bounds prove stay. Sparse rows are assigned by [`Self::assign`].
    fn lloyd_iteration(&self, st: &mut SphericalState) -> usize {
        let never = AtomicBool::new(false);
        let dense = self
            .rows
            .dense()
            .and_then(|rows| Some((rows, rows.view()?)));
        let labels = match dense {
            Some((rows, view)) => {
                let data =
                    Data::with_shift_and_max(view, None, vec![0.0; self.d()], rows.max_abs());
                assign_nearest_bounded(&data, &st.units, st.k, &st.stats.labels, &mut st.lloyd)
            }
            None => self.assign(
                &st.units,
                &st.unit_norms2,
                st.k,
                Some(&st.stats.labels),
                &never,
            ),
        };
        let changed = st.stats.relabel(labels);
        self.recompute(st);
        changed + self.fill_empty_clusters(st)
    }

    fn objective(&self, st: &SphericalState) -> f64 {
        self.loss(st)
    }

    /// On dense rows the `f32` screen rules most rows out first: a row whose
    /// bounds (Lloyd, or no weight) or lines under the join costs
    /// ([`no_join_undercuts`]) all reach the threshold that
    /// [`improves_beyond_rounding`] asks a move to beat has no such move;
    /// the others are asked exactly.
    fn can_improve(&self, st: &SphericalState, lloyd: bool) -> bool {
        // Unit vectors: distances carry absolute rounding of a few ε.
        let abs_margin = 1e-14;
        let (n, k, d) = (self.rows.n(), st.k, self.d());
        let costs = st.costs();
        let exact = |i: usize| {
            let (r, w) = (st.stats.labels[i], self.weight(i));
            improves_beyond_rounding(&costs, r, w, lloyd, abs_margin, |j| self.dist(st, i, j))
        };
        let screened = self
            .rows
            .dense()
            .and_then(|rows| Some((rows, Screen::new(&st.units, k, d, rows.max_abs())?)));
        let Some((rows, screen)) = screened else {
            return (0..n).into_par_iter().any(exact);
        };
        (0..n.div_ceil(SCREEN_ROWS))
            .into_par_iter()
            .map_init(
                || (ScreenScratch::default(), Vec::new(), Vec::new()),
                |(scratch, low, slopes), part| {
                    let first = part * SCREEN_ROWS;
                    let last = (first + SCREEN_ROWS).min(n);
                    low.resize((last - first) * k, 0.0);
                    screen.lower_bounds((first..last).map(|i| rows.row(i)), scratch, low);
                    (first..last).any(|i| {
                        let (r, w) = (st.stats.labels[i], self.weight(i));
                        let low = &low[(i - first) * k..(i - first + 1) * k];
                        let ruled_out = if lloyd || w == 0.0 {
                            let own = self.dist(st, i, r);
                            let beat = own * (1.0 - STALL_REL_MARGIN) - abs_margin;
                            others_reach(low, r, beat)
                        } else if !st.stats.may_leave(r, w) {
                            true
                        } else {
                            let gain = leave_gain(w, st.norms[r], self.dist(st, i, r));
                            let beat = gain * (1.0 - STALL_REL_MARGIN) - abs_margin;
                            no_join_undercuts(low, st.slopes(w, slopes), r, beat)
                        };
                        !ruled_out && exact(i)
                    })
                },
            )
            .any(|found| found)
    }

    fn move_ratios(&self, st: &SphericalState, sample: &[usize]) -> Vec<f64> {
        sample
            .par_iter()
            .map(|&i| {
                let (r, w) = (st.stats.labels[i], self.weight(i));
                move_ratio(&st.costs(), r, w, |j| self.dist(st, i, j))
            })
            .collect()
    }
}

impl<U: UnitRows, T: Scalar> Reshape for Spherical<'_, U, T> {
    /// The means of the unit rows (`sums / weights`), not the directions:
    /// splits are measured by squared distance between unit rows.
    fn split_centroids(&self, st: &SphericalState) -> Vec<f64> {
        self.means(st)
    }

    /// The cheapest merges by the loss they add,
    /// `‖s_a‖ + ‖s_b‖ − ‖s_a + s_b‖ = ‖s_a‖·‖s_b‖·‖μ_a − μ_b‖² / (‖s_a‖ + ‖s_b‖ + ‖s_a + s_b‖)`
    /// (the stable form, as for the move).
    fn merge(&self, st: &SphericalState, rank: usize) -> Option<SphericalState> {
        let d = self.d();
        let cost = |a: usize, b: usize| {
            let (sa, sb) = (st.norms[a], st.norms[b]);
            let joined: f64 = st.stats.sums[a * d..(a + 1) * d]
                .iter()
                .zip(&st.stats.sums[b * d..(b + 1) * d])
                .map(|(x, y)| (x + y) * (x + y))
                .sum::<f64>()
                .sqrt();
            let sum = sa + sb + joined;
            if sum > 0.0 {
                sa * sb * sq_dist(self.unit(st, a), self.unit(st, b)) / sum
            } else {
                0.0
            }
        };
        let labels = merge_labels_by(&st.stats.labels, st.k, rank, cost)?;
        Some(self.state_from_labels(st.k - 1, labels))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::engine::move_rule::choose_move;
    use crate::params::{Metric, Params};
    use crate::rng::Xoshiro256PlusPlus;
    use crate::rows::Rows;
    use crate::spherical::{checked_spherical, SphericalInput};
    use ndarray::Array2;

    impl<U: UnitRows, T: Scalar> Spherical<'_, U, T> {
        /// The sweep by its definition: one row at a time, every distance
        /// measured when the row is visited.
        fn sweep_by_definition(
            &self,
            st: &mut SphericalState,
            order: &[usize],
            factor: f64,
        ) -> usize {
            let mut moves = 0;
            for &i in order {
                let (r, w) = (st.stats.labels[i], self.weight(i));
                if !st.stats.may_leave(r, w) {
                    continue;
                }
                if let Some(j) = choose_move(&st.costs(), r, w, factor, |j| self.dist(st, i, j)) {
                    self.move_row(st, i, j);
                    moves += 1;
                }
            }
            moves
        }
    }

    impl<U: UnitRows, T: Scalar> Spherical<'_, U, T> {
        /// The sweep in rounds by its definition: every row of a round
        /// decided by [`choose_move`] against the state as the round began, then
        /// the proposed moves made in order where the rule still holds.
        fn rounds_by_definition(
            &self,
            st: &mut SphericalState,
            order: &[usize],
            factor: f64,
        ) -> usize {
            let plan = RoundPlan::new(order.len(), st.k, self.d());
            let (mut moves, mut share, mut start) = (0, 1.0, 0);
            while start < order.len() {
                let end = (start + plan.len(share)).min(order.len());
                let snap = st.clone();
                let proposals: Vec<(usize, usize)> = order[start..end]
                    .iter()
                    .filter_map(|&i| {
                        let (r, w) = (snap.stats.labels[i], self.weight(i));
                        if !snap.stats.may_leave(r, w) {
                            return None;
                        }
                        choose_move(&snap.costs(), r, w, factor, |j| self.dist(&snap, i, j))
                            .map(|j| (i, j))
                    })
                    .collect();
                for &(i, j) in &proposals {
                    moves += usize::from(self.move_if_still_moves(st, i, j, factor));
                }
                share = 0.5 * share + 0.5 * proposals.len() as f64 / (end - start) as f64;
                start = end;
            }
            moves
        }
    }

    /// Dense rows `x` checked for `params` as unit rows.
    fn dense_rows<'a>(
        x: ndarray::ArrayView2<'a, f64>,
        weights: Option<ndarray::ArrayView1<'a, f64>>,
        params: &crate::params::ValidParams,
        k: usize,
    ) -> Spherical<'a, UnitDense, f64> {
        match checked_spherical(Rows::Dense(x), weights, params, k)
            .unwrap()
            .0
        {
            SphericalInput::Dense(s) => s,
            SphericalInput::Sparse(_) => unreachable!("dense rows"),
        }
    }

    /// `n × d` rows in `period` groups of direction (row `i` leans on the
    /// coordinates `c` with `c ≡ i` mod `period`), jittered uniformly by
    /// ±0.5 from `rng`.
    fn banded(n: usize, d: usize, period: usize, rng: &mut Xoshiro256PlusPlus) -> Array2<f64> {
        Array2::from_shape_fn((n, d), |(i, c)| {
            ((i % period) == c % period) as u8 as f64 + rng.unit_f64() - 0.5
        })
    }

    /// The statistics from the labels, summed by groups of clusters side by
    /// side (at least [`RECOMPUTE_SPLIT_ROWS`] rows): each cluster's count,
    /// weight and sum are those of one pass over the rows in index order,
    /// bit for bit, whatever the threads; clusters left empty stay zero.
    #[test]
    fn the_statistics_sum_each_cluster_in_index_order_for_any_threads() {
        let (n, d, k) = (RECOMPUTE_SPLIT_ROWS + 777, 7, 11);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(12);
        let x = banded(n, d, 5, &mut rng);
        let w: Vec<f64> = (0..n).map(|_| 0.25 + rng.unit_f64()).collect();
        let params = Params::new(k).metric(Metric::Cosine).check().unwrap();
        let rows = dense_rows(
            x.view(),
            Some(ndarray::ArrayView1::from(&w[..])),
            &params,
            k,
        );
        // Cluster 4 is left without rows: labels from the others only.
        let labels: Vec<usize> = (0..n)
            .map(|_| [0, 1, 2, 3, 5, 6, 7, 8, 9, 10][rng.below(10)])
            .collect();
        let (mut sums, mut counts, mut weights) = (vec![0.0; k * d], vec![0; k], vec![0.0; k]);
        for (i, &l) in labels.iter().enumerate() {
            counts[l] += 1;
            weights[l] += rows.weight(i);
            rows.rows
                .add_to(i, rows.weight(i), &mut sums[l * d..(l + 1) * d]);
        }
        for threads in [1, 2, 3, 16] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let mut st = SphericalState {
                k,
                stats: ClusterStats::new(k, d, labels.clone()),
                norms: vec![0.0; k],
                units: vec![0.0; k * d],
                unit_norms2: vec![0.0; k],
                unit_slopes: vec![0.0; k],
                lloyd: None,
            };
            pool.install(|| rows.recompute(&mut st));
            assert_eq!(st.stats.counts, counts, "{threads} threads");
            assert_eq!(st.stats.weights, weights, "{threads} threads");
            assert_eq!(st.stats.sums, sums, "{threads} threads");
            assert_eq!(st.norms[4], 0.0);
        }
    }

    /// Rounds (several a sweep), dense and sparse rows, with and without
    /// weights: the parallel sweep in rounds takes the decisions of its
    /// definition, bit for bit, for any thread count.
    #[test]
    fn the_sweep_in_rounds_is_its_definition() {
        let (n, d, k) = (4000, 12, 20);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(6);
        let x = banded(n, d, 9, &mut rng);
        // The entries above 0.3 in magnitude as CSR (every row keeps one).
        let (mut indptr, mut indices, mut values) = (vec![0], Vec::new(), Vec::new());
        for row in x.rows() {
            for (c, &v) in row.iter().enumerate().filter(|(_, v)| v.abs() > 0.3) {
                indices.push(c);
                values.push(v);
            }
            indptr.push(indices.len());
        }
        let csr = crate::sparse::CsrView::new(d, &indptr, &indices, &values).unwrap();
        let w = crate::testing::testdata::weights_with_zeros(n, 3);
        let params = Params::new(k).metric(Metric::Cosine).check().unwrap();
        let start: Vec<usize> = (0..n).map(|_| rng.below(k)).collect();
        let orders: Vec<Vec<usize>> = (0..8)
            .map(|_| {
                let mut order: Vec<usize> = (0..n).collect();
                rng.shuffle(&mut order);
                order
            })
            .collect();
        let factors = [1.5, 1.3, 1.1, 1.0, 1.0, 1.0, 1.0, 1.0];
        for weights in [None, Some(ndarray::ArrayView1::from(&w[..]))] {
            for rows in [Rows::Dense(x.view()), Rows::Sparse(csr)] {
                let run = |threads: usize| {
                    let pool = rayon::ThreadPoolBuilder::new()
                        .num_threads(threads)
                        .build()
                        .unwrap();
                    pool.install(
                        || match checked_spherical(rows, weights, &params, k).unwrap().0 {
                            SphericalInput::Dense(s) => sweeps_both(&s, &start, &orders, &factors),
                            SphericalInput::Sparse(s) => sweeps_both(&s, &start, &orders, &factors),
                        },
                    )
                };
                let one = run(1);
                assert!(one.0.iter().sum::<usize>() > 0);
                for threads in [2, 3, 8] {
                    assert_eq!(run(threads), one, "{threads} threads");
                }
            }
        }
    }

    /// Sweeps in rounds and by definition from `start`: the moves of each
    /// sweep (asserted equal) and the final labels.
    fn sweeps_both<U: UnitRows, T: Scalar>(
        s: &Spherical<'_, U, T>,
        start: &[usize],
        orders: &[Vec<usize>],
        factors: &[f64],
    ) -> (Vec<usize>, Vec<usize>) {
        let k = start.iter().max().map_or(1, |m| m + 1);
        let mut fast = s.state_from_labels(k, start.to_vec());
        let mut plain = fast.clone();
        let mut moves = Vec::new();
        for (order, &factor) in orders.iter().zip(factors) {
            let a = s.sweep_rounds(&mut fast, order, factor);
            let b = s.rounds_by_definition(&mut plain, order, factor);
            assert_eq!((a, &fast), (b, &plain), "factor {factor}");
            s.recompute(&mut fast);
            s.recompute(&mut plain);
            moves.push(a);
        }
        (moves, fast.stats.labels.clone())
    }

    /// The screened assignment of Lloyd's step is the nearest direction
    /// by definition for every row, with and without current labels, where
    /// directions repeat (ties between them) and rows lie on directions.
    #[test]
    fn the_screened_assignment_is_the_nearest_direction_by_definition() {
        let (n, d, k) = (3000, 16, 24);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
        let mut x = banded(n, d, 5, &mut rng);
        let params = Params::new(k).metric(Metric::Cosine).check().unwrap();
        let labels: Vec<usize> = (0..n).map(|_| rng.below(k)).collect();
        let never = AtomicBool::new(false);
        // The directions of a random partition, with direction 7 repeated
        // as 8 and rows 0..40 set on directions.
        let s = dense_rows(x.view(), None, &params, k);
        let mut units = s.state_from_labels(k, labels.clone()).units;
        let (seven, rest) = units.split_at_mut(8 * d);
        rest[..d].copy_from_slice(&seven[7 * d..]);
        for i in 0..40 {
            let j = [7, 8, 3, 0][i % 4];
            x.row_mut(i)
                .assign(&ndarray::ArrayView1::from(&units[j * d..(j + 1) * d]));
        }
        let s = dense_rows(x.view(), None, &params, k);
        let norms2: Vec<f64> = units
            .chunks_exact(d)
            .map(|u| u.iter().map(|v| v * v).sum())
            .collect();
        let exact = |i: usize, j: usize| s.rows.sq_dist(i, &units[j * d..(j + 1) * d], norms2[j]);
        // Current labels that sit on a tied direction, or the row's own.
        let current: Vec<usize> = (0..n)
            .map(|i| if i % 3 == 0 { 8 } else { labels[i] })
            .collect();
        for given in [None, Some(&current[..])] {
            let screened = s.assign(&units, &norms2, k, given, &never);
            for (i, &l) in screened.iter().enumerate() {
                let want = nearest_by(k, given.map(|c| c[i]), |j| exact(i, j));
                assert_eq!(l, want, "row {i}, current {:?}", given.map(|c| c[i]));
            }
            // The tie between 7 and 8 goes to 7, unless a row is in 8.
            assert!(screened.contains(&7));
            assert_eq!(screened.contains(&8), given.is_some());
        }
    }

    /// Lloyd's iterations on dense rows (bounded, screened, over the pool)
    /// are those of the definition, the nearest direction of every row by
    /// its exact distances, iteration by iteration to convergence, for any
    /// thread count; and the bounds skip rows on the way.
    #[test]
    fn lloyd_iterations_are_the_nearest_directions_by_definition() {
        let (n, d, k) = (4000, 12, 15);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(12);
        let x = banded(n, d, 6, &mut rng);
        let w = crate::testing::testdata::weights_with_zeros(n, 5);
        let params = Params::new(k).metric(Metric::Cosine).check().unwrap();
        let start: Vec<usize> = (0..n).map(|_| rng.below(k)).collect();
        for weights in [None, Some(ndarray::ArrayView1::from(&w[..]))] {
            let run = |threads: usize| {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                pool.install(|| {
                    let s = dense_rows(x.view(), weights, &params, k);
                    let mut fast = s.state_from_labels(k, start.clone());
                    let mut plain = fast.clone();
                    let (mut history, mut skipped) = (Vec::new(), false);
                    for _ in 0..100 {
                        let moved = s.lloyd_iteration(&mut fast);
                        let labels: Vec<usize> = (0..n)
                            .map(|i| {
                                let current = Some(plain.stats.labels[i]);
                                nearest_by(k, current, |j| s.dist(&plain, i, j))
                            })
                            .collect();
                        let changed = plain.stats.relabel(labels);
                        s.recompute(&mut plain);
                        let want = changed + s.fill_empty_clusters(&mut plain);
                        assert_eq!(moved, want);
                        assert_eq!(fast.stats, plain.stats);
                        assert_eq!(fast.units, plain.units);
                        skipped |= fast.lloyd.as_ref().is_some_and(|b| b.evaluated < n);
                        history.push(moved);
                        if moved == 0 {
                            break;
                        }
                    }
                    assert!(skipped && history.len() > 2, "{history:?}");
                    (history, fast.stats.labels.clone())
                })
            };
            let one = run(1);
            assert_eq!(run(3), one);
        }
    }

    /// The screened test for a move beyond rounding answers as the exact
    /// one: at a Hartigan optimum (no move), and with one row put in the
    /// wrong cluster (a move), for Hartigan's and Lloyd's moves, with and
    /// without weights.
    #[test]
    fn the_screened_test_for_a_move_is_the_exact_one() {
        let (n, d, k) = (2500, 10, 12);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(21);
        let x = banded(n, d, 4, &mut rng);
        let w = crate::testing::testdata::weights_with_zeros(n, 7);
        let params = Params::new(k).metric(Metric::Cosine).check().unwrap();
        for weights in [None, Some(ndarray::ArrayView1::from(&w[..]))] {
            let s = dense_rows(x.view(), weights, &params, k);
            let exact = |st: &SphericalState, lloyd: bool| {
                let costs = st.costs();
                (0..n).any(|i| {
                    let (r, w) = (st.stats.labels[i], s.weight(i));
                    improves_beyond_rounding(&costs, r, w, lloyd, 1e-14, |j| s.dist(st, i, j))
                })
            };
            let mut st = s.state_from_labels(k, (0..n).map(|_| rng.below(k)).collect());
            let order: Vec<usize> = (0..n).collect();
            while s.sweep(&mut st, &order, 1.0) > 0 {}
            assert!(!exact(&st, false) && !s.can_improve(&st, false));
            // Row 0 (of positive weight) into the cluster farthest from it.
            let i = (0..n)
                .find(|&i| s.weight(i) > 0.0 && st.stats.may_leave(st.stats.labels[i], s.weight(i)))
                .unwrap();
            let far = (0..k).fold(0, |f, j| {
                if s.dist(&st, i, j) > s.dist(&st, i, f) {
                    j
                } else {
                    f
                }
            });
            s.move_row(&mut st, i, far);
            s.recompute(&mut st);
            for lloyd in [false, true] {
                assert!(exact(&st, lloyd));
                assert_eq!(s.can_improve(&st, lloyd), exact(&st, lloyd));
            }
        }
    }

    /// Rows in many blocks, with blocks large enough to be measured in
    /// parallel: the blocked sweep takes the decisions of the plain one,
    /// bit for bit, at every acceptance factor of a schedule.
    #[test]
    fn the_blocked_sweep_is_the_sweep_by_definition() {
        let (n, d, k) = (1500, 24, 16);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(4);
        let x = banded(n, d, 7, &mut rng);
        let w: Vec<f64> = (0..n).map(|i| 0.5 + (i % 3) as f64).collect();
        let params = Params::new(k).metric(Metric::Cosine).check().unwrap();
        for weights in [None, Some(ndarray::ArrayView1::from(&w[..]))] {
            let s = dense_rows(x.view(), weights, &params, k);
            let mut blocked = s.state_from_labels(k, (0..n).map(|_| rng.below(k)).collect());
            let mut plain = blocked.clone();
            for factor in [1.5, 1.2, 1.0, 1.0] {
                let mut order: Vec<usize> = (0..n).collect();
                rng.shuffle(&mut order);
                let a = s.sweep_moves(&mut blocked, &order, factor);
                let b = s.sweep_by_definition(&mut plain, &order, factor);
                assert!(a > 0);
                assert_eq!((a, &blocked), (b, &plain), "factor {factor}");
                s.recompute(&mut blocked);
                s.recompute(&mut plain);
            }
        }
    }
}
