//! The accelerated k-means++: every trial of a centre evaluated in one
//! pass over the data, several restarts sharing each pass, with exactly the
//! plain definition's numbers.

use super::lanes::{self, TrialChanges};
use super::reference::{first_centre, kmeans_plus_plus_reference_rows};
use super::{LANES, PP_CHUNK};
use crate::data::{sq_dist, Data, Scalar};
use crate::rng::Xoshiro256PlusPlus;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

/// Most restarts whose k-means++ passes run together. Each holds
/// [`PP_STATE_BYTES`] per point while its pass runs (the change lists of
/// a pass are bounded separately, [`wave_chunks`]); a group keeps that
/// within the data's own size (`elem` bytes per entry, `d` per row), and
/// within `lanes::PP_MAX_RESTARTS`. The grouping changes no result.
pub(super) fn joint_group(d: usize, elem: usize) -> usize {
    (elem * d / PP_STATE_BYTES).clamp(1, lanes::PP_MAX_RESTARTS)
}

/// Bytes per point of one restart's k-means++ state: `closest` (8),
/// `assign` (4) and the trials' change bits (2).
pub(super) const PP_STATE_BYTES: usize = 14;

/// Change lists one pass may hold at once, in bytes (besides
/// `2 · threads` chunks, which it may always hold).
pub(super) const WAVE_BYTES: usize = 1 << 26;

/// Chunks of points whose changes are listed at once for `restarts`
/// restarts of `trials` trials: the lists of a chunk take at most
/// `16 · trials · restarts` bytes per point (every point changing for every
/// trial); a wave holds [`WAVE_BYTES`] of that, or two chunks per thread.
pub(super) fn wave_chunks(trials: usize, restarts: usize, threads: usize) -> usize {
    let per_chunk = PP_CHUNK * 16 * trials.max(1) * restarts.max(1);
    (WAVE_BYTES / per_chunk).max(2 * threads).max(1)
}

/// One restart's k-means++ in progress in [`kmeans_plus_plus_with`].
pub(super) struct PlusPlus {
    /// The chosen centres so far (`k × d`, shifted).
    centroids: Vec<f64>,
    /// The rows they are, in the order chosen.
    chosen: Vec<usize>,
    /// `closest[i]` as the reference computes it.
    closest: Vec<f64>,
    /// The chosen centre each `closest[i]` was computed against:
    /// `closest[i]` is exactly `sq_dist(x_i, centroids[assign[i]])` (up to
    /// the argument order, which `sq_dist` does not see: (a − b)² = (b − a)²
    /// in floating point). Only the triangle test reads it.
    assign: Vec<u32>,
    /// The reference's cumulative sum of `closest` at the end of every chunk.
    ends: Vec<f64>,
    /// The potential (the last of `ends`).
    pot: f64,
    /// This centre's trials: indices, rows (`trials × d`), transposed rows
    /// (`d × lanes`, spare lanes repeating trial 0) and their squared norms.
    idxs: Vec<usize>,
    cands: Vec<f64>,
    ct: Vec<f64>,
    /// `ct` rounded to `f32`, for the screen's products where they are
    /// taken in `f32`.
    ct32: Vec<f32>,
    cand_norms: Vec<f64>,
    /// The triangle test's limit per chosen centre.
    limits: Vec<f64>,
    /// Bit `t` of `changed[i]`: the pass found trial `t` strictly closer to
    /// point `i` than `closest[i]`.
    changed: Vec<u16>,
    /// The trial chosen for the current centre.
    best: usize,
    /// Scratch of [`potentials`]: every trial's running sums at the end of
    /// every chunk tallied so far.
    rows: Vec<f64>,
    lane_ends: Vec<f64>,
}

impl PlusPlus {
    /// Draws this centre's trials from `rng` and prepares them.
    fn draw_trials<T: Scalar>(
        &mut self,
        data: &Data<'_, T>,
        c: usize,
        lanes: usize,
        rng: &mut Xoshiro256PlusPlus,
    ) {
        let (n, d) = (data.n, data.d);
        for idx in self.idxs.iter_mut() {
            *idx = if self.pot > 0.0 {
                let target = rng.unit_f64() * self.pot;
                sample(&self.closest, data.weights(), &self.ends, target)
            } else {
                rng.below(n)
            };
        }
        let trials = self.idxs.len();
        for (t, &idx) in self.idxs.iter().enumerate() {
            data.load_shifted(idx, &mut self.cands[t * d..(t + 1) * d]);
        }
        // Spare lanes repeat trial 0, so that they never decide anything.
        for t in 0..lanes {
            let src = if t < trials { t } else { 0 };
            let y = &self.cands[src * d..(src + 1) * d];
            for (cc, &v) in y.iter().enumerate() {
                self.ct[cc * lanes + t] = v;
                if let Some(c32) = self.ct32.get_mut(cc * lanes + t) {
                    *c32 = v as f32;
                }
            }
            self.cand_norms[t] = y.iter().map(|v| v * v).sum();
        }
        prune_limits(&self.centroids[..c * d], &self.cands, d, &mut self.limits);
    }

    /// The pass's view of this restart.
    fn trials<'a>(
        &'a self,
        norms: &'a [f64],
        lanes: usize,
        fused: bool,
        screen32: bool,
        stats: Option<&'a lanes::PlusPlusStats>,
    ) -> lanes::PlusPlusTrials<'a> {
        lanes::PlusPlusTrials {
            ct: &self.ct,
            ct32: screen32.then_some(&self.ct32[..]),
            lanes,
            trials: self.idxs.len(),
            cands: &self.cands,
            cand_norms: &self.cand_norms,
            closest: &self.closest,
            norms,
            assign: &self.assign,
            limits: &self.limits,
            floor: PRUNE_FLOOR,
            fused,
            stats,
        }
    }

    /// Takes in the pass's changes for the chunks `first..` (`[chunk][trial]`):
    /// every trial's potential `Σ_i min(dist, closest)` continues, in index
    /// order as the reference sums it, one independent running sum per trial
    /// (lane), a chunk at a time; and the changed points are marked.
    fn tally(
        &mut self,
        weights: Option<&[f64]>,
        first: usize,
        lanes: usize,
        chunks: &[TrialChanges],
        mark: bool,
    ) {
        let (cl, rows, ends) = (&self.closest, &mut self.rows, &mut self.lane_ends);
        match lanes {
            4 => potentials::<4>(cl, weights, first, chunks, rows, ends),
            8 => potentials::<8>(cl, weights, first, chunks, rows, ends),
            _ => potentials::<LANES>(cl, weights, first, chunks, rows, ends),
        }
        if !mark {
            return;
        }
        let n = self.closest.len();
        for (o, lists) in chunks.iter().enumerate() {
            let start = (first + o) * PP_CHUNK;
            self.changed[start..(start + PP_CHUNK).min(n)].fill(0);
            for (t, list) in lists.iter().enumerate() {
                for &(i, _) in list {
                    self.changed[i as usize] |= 1 << t;
                }
            }
        }
    }

    /// Applies the chosen trial's changes from the pass's lists (all of
    /// them, `[chunk][trial]`), when the pass ran in one wave.
    fn apply_lists(&mut self, c: usize, chunks: &[TrialChanges]) {
        for &(i, v) in chunks.iter().flat_map(|ch| ch[self.best].iter()) {
            self.closest[i as usize] = v;
            self.assign[i as usize] = c as u32;
        }
    }

    /// Chooses centre `c` once every chunk is tallied: the trial that leaves
    /// the smallest potential, as the reference does. The points it changes
    /// are updated by [`PlusPlus::apply_lists`] or [`apply_choices`].
    fn pick(&mut self, c: usize, d: usize, lanes: usize) {
        let trials = self.idxs.len();
        let sums = self.lane_ends.chunks_exact(lanes).last().unwrap_or(&[]);
        let mut best_pot = f64::INFINITY;
        let mut best_t = usize::MAX;
        for (t, &cand_pot) in sums.iter().enumerate().take(trials) {
            if cand_pot < best_pot {
                best_pot = cand_pot;
                best_t = t;
            }
        }
        let best_t = best_t.min(trials - 1);
        self.best = best_t;
        self.chosen.push(self.idxs[best_t]);
        self.centroids[c * d..(c + 1) * d]
            .copy_from_slice(&self.cands[best_t * d..(best_t + 1) * d]);
        // The winner's sums are the reference's next cumulative sums.
        for (e, lane) in self.ends.iter_mut().zip(self.lane_ends.chunks_exact(lanes)) {
            *e = lane[best_t];
        }
        self.pot = self.ends.last().copied().unwrap_or(0.0);
    }
}

/// Every restart's chosen trial for centre `c` replaces `closest` (and
/// `assign`) of the points it changed, with the distance recomputed by
/// [`sq_dist`]: the bits the pass found (its lanes have `sq_dist`'s bits),
/// without keeping the pass's lists. A row is read once for all restarts;
/// only points some winner changed are read (most points at the first
/// centres, few later).
pub(super) fn apply_choices<T: Scalar>(data: &Data<'_, T>, runs: &mut [PlusPlus], c: usize) {
    let (n, d) = (data.n, data.d);
    type Part<'a> = (&'a mut [f64], &'a mut [u32], &'a [u16], u16, &'a [f64]);
    let mut per_chunk: Vec<Vec<Part<'_>>> = (0..n.div_ceil(PP_CHUNK)).map(|_| Vec::new()).collect();
    for run in runs.iter_mut() {
        let bit = 1u16 << run.best;
        let cand = &run.cands[run.best * d..(run.best + 1) * d];
        for ((mine, (cl, asg)), changed) in per_chunk
            .iter_mut()
            .zip(
                run.closest
                    .chunks_mut(PP_CHUNK)
                    .zip(run.assign.chunks_mut(PP_CHUNK)),
            )
            .zip(run.changed.chunks(PP_CHUNK))
        {
            mine.push((cl, asg, changed, bit, cand));
        }
    }
    per_chunk
        .into_par_iter()
        .enumerate()
        .for_each(|(ch, mut parts)| {
            let mut buf = vec![0.0; d];
            let len = parts.first().map_or(0, |p| p.0.len());
            for o in 0..len {
                let mut loaded = false;
                for (cl, asg, changed, bit, cand) in parts.iter_mut() {
                    if changed[o] & *bit != 0 {
                        if !loaded {
                            data.load_shifted(ch * PP_CHUNK + o, &mut buf);
                            loaded = true;
                        }
                        cl[o] = sq_dist(&buf, cand);
                        asg[o] = c as u32;
                    }
                }
            }
        });
}

/// How [`kmeans_plus_plus_with`] runs its passes. Nothing here changes a
/// centre: the tests run every setting against the plain definition.
#[derive(Clone, Copy, Default)]
pub(super) struct PassSettings<'a> {
    /// Whether the screen's products use fused multiply-adds (the CPU's
    /// choice, [`crate::simd::fused_multiply_add`]).
    pub(super) fused: bool,
    /// Stop early, with fewer than `k` centres, once this is set.
    pub(super) cancel: Option<&'a AtomicBool>,
    /// Chunks whose change lists are held at once (default
    /// [`wave_chunks`]).
    pub(super) wave: Option<usize>,
    /// Where to count what the passes skip, if anywhere.
    pub(super) stats: Option<&'a lanes::PlusPlusStats>,
    /// Whether the screen may take its products in `f32` (where the data's
    /// range allows, [`lanes::F32_SCREEN_MAX_ABS`]); else in `f64`.
    pub(super) screen32: bool,
}

impl PassSettings<'_> {
    /// The production settings for rows of `d` features: this CPU's
    /// products, in `f32` from [`lanes::F32_SCREEN_MIN_D`] features.
    pub(super) fn for_this_cpu(d: usize) -> Self {
        PassSettings {
            fused: crate::simd::fused_multiply_add(),
            screen32: d >= lanes::F32_SCREEN_MIN_D,
            ..PassSettings::default()
        }
    }
}

/// [`super::kmeans_plus_plus_joint`] for at most `PP_MAX_RESTARTS` restarts.
pub(super) fn kmeans_plus_plus_with<T: Scalar>(
    data: &Data<'_, T>,
    k: usize,
    rngs: &mut [Xoshiro256PlusPlus],
    settings: PassSettings<'_>,
) -> Vec<Vec<usize>> {
    let PassSettings {
        fused,
        cancel,
        wave,
        stats,
        screen32,
    } = settings;
    let (n, d) = (data.n, data.d);
    let max_abs = data.max_abs_shifted();
    let screen32 = screen32 && max_abs <= lanes::F32_SCREEN_MAX_ABS;
    let trials = 2 + (k as f64).ln().floor() as usize;
    if trials > LANES
        || n > u32::MAX as usize
        || d == 0
        || max_abs > 1e100
        || rngs.len() > lanes::PP_MAX_RESTARTS
    {
        // More trials than lanes (k from e¹⁵ ≈ 3.3·10⁶ on; below, `k` also
        // fits the `u32` of `assign`), or potentials that could overflow:
        // the plain definition.
        let never = AtomicBool::new(false);
        return rngs
            .iter_mut()
            .map(|rng| kmeans_plus_plus_reference_rows(data, k, rng, cancel.unwrap_or(&never)))
            .collect();
    }
    let lanes = lanes::plus_plus_lanes_for(trials);
    let mut runs: Vec<PlusPlus> = rngs
        .iter_mut()
        .map(|rng| {
            let mut centroids = vec![0.0; k * d];
            let first = first_centre(n, data.is_weighted(), |i| data.weight(i), rng);
            data.load_shifted(first, &mut centroids[..d]);
            let mut chosen = Vec::with_capacity(k);
            chosen.push(first);
            PlusPlus {
                centroids,
                chosen,
                closest: vec![0.0; n],
                assign: vec![0; n],
                ends: Vec::with_capacity(n.div_ceil(PP_CHUNK)),
                pot: 0.0,
                idxs: vec![0; trials],
                cands: vec![0.0; trials * d],
                ct: vec![0.0; d * lanes],
                ct32: vec![0.0; if screen32 { d * lanes } else { 0 }],
                cand_norms: vec![0.0; LANES],
                limits: Vec::with_capacity(k),
                changed: vec![0; n],
                best: 0,
                rows: vec![0.0; lanes * POT_BLOCK],
                lane_ends: Vec::with_capacity(n.div_ceil(PP_CHUNK) * lanes),
            }
        })
        .collect();
    // One pass for `‖x_i‖²` (any order; only the screen reads it, shared by
    // the restarts) and every restart's `closest` to its first centre.
    let mut norms = vec![0.0; n];
    {
        // Per chunk of points, every restart's slice of `closest`.
        let mut per_chunk: Vec<Vec<&mut [f64]>> =
            (0..n.div_ceil(PP_CHUNK)).map(|_| Vec::new()).collect();
        let mut firsts: Vec<&[f64]> = Vec::with_capacity(runs.len());
        for run in runs.iter_mut() {
            firsts.push(&run.centroids[..d]);
            for (mine, part) in per_chunk.iter_mut().zip(run.closest.chunks_mut(PP_CHUNK)) {
                mine.push(part);
            }
        }
        norms
            .par_chunks_mut(PP_CHUNK)
            .zip(per_chunk)
            .enumerate()
            .for_each(|(c, (norm, mut closest))| {
                let mut buf = vec![0.0; d];
                for (o, a) in norm.iter_mut().enumerate() {
                    data.load_shifted(c * PP_CHUNK + o, &mut buf);
                    *a = buf.iter().map(|b| b * b).sum();
                    for (cl, first) in closest.iter_mut().zip(&firsts) {
                        cl[o] = sq_dist(&buf, first);
                    }
                }
            });
    }
    for run in &mut runs {
        // The reference's cumulative sums at the chunk ends.
        for (c, ch) in run.closest.chunks(PP_CHUNK).enumerate() {
            match data.weights() {
                Some(w) => {
                    for (v, wi) in ch.iter().zip(&w[c * PP_CHUNK..]) {
                        run.pot += wi * v;
                    }
                }
                None => ch.iter().for_each(|v| run.pot += v),
            }
            run.ends.push(run.pot);
        }
    }
    let chunks = n.div_ceil(PP_CHUNK);
    let wave = wave
        .unwrap_or_else(|| wave_chunks(trials, runs.len(), rayon::current_num_threads()))
        .max(1);
    for c in 1..k {
        if cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            break;
        }
        for (run, rng) in runs.iter_mut().zip(rngs.iter_mut()) {
            run.draw_trials(data, c, lanes, rng);
        }
        // The pass, a wave of chunks at a time: their change lists are
        // tallied into the potentials and the changed points marked, then
        // dropped. In one wave the lists are kept and the winner's applied
        // from them; over several, its distances are recomputed.
        let single = wave >= chunks;
        let mut kept = None;
        let mut first = 0;
        while first < chunks {
            let last = (first + wave).min(chunks);
            let trs: Vec<_> = runs
                .iter()
                .map(|run| run.trials(&norms, lanes, fused, screen32, stats))
                .collect();
            let lists: Vec<Vec<TrialChanges>> = (first..last)
                .into_par_iter()
                .map(|ch| {
                    if cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
                        // No changes: the centre is garbage, and the loop
                        // stops before the next one.
                        return trs.iter().map(|tr| vec![Vec::new(); tr.trials]).collect();
                    }
                    let start = ch * PP_CHUNK;
                    lanes::plus_plus_changes(data, &trs, start, PP_CHUNK.min(n - start))
                })
                .collect();
            drop(trs);
            // `[chunk][restart][trial]` to `[restart][chunk][trial]`.
            let mut per_run: Vec<Vec<TrialChanges>> = runs
                .iter()
                .map(|_| Vec::with_capacity(lists.len()))
                .collect();
            for lists in lists {
                for (mine, l) in per_run.iter_mut().zip(lists) {
                    mine.push(l);
                }
            }
            runs.par_iter_mut()
                .zip(&per_run)
                .for_each(|(run, lists)| run.tally(data.weights(), first, lanes, lists, !single));
            if single {
                kept = Some(per_run);
            }
            first = last;
        }
        runs.par_iter_mut().for_each(|run| run.pick(c, d, lanes));
        match kept {
            Some(lists) => runs
                .par_iter_mut()
                .zip(lists)
                .for_each(|(run, lists)| run.apply_lists(c, &lists)),
            None => apply_choices(data, &mut runs, c),
        }
    }
    runs.into_iter().map(|run| run.chosen).collect()
}

/// The reference's draw for `target`: the first index whose cumulative sum
/// of `closest` (times the weights, if any; in index order, from 0) exceeds
/// `target`, or the last index. `ends[ch]` is that cumulative sum at the end of chunk `ch`; the
/// sums are non-decreasing (non-negative terms, monotone rounding), so the
/// chunk is found by bisection on `ends` and the index by summing that
/// chunk from the previous end, which reproduces the reference's running
/// sums bit for bit.
pub(super) fn sample(closest: &[f64], weights: Option<&[f64]>, ends: &[f64], target: f64) -> usize {
    let n = closest.len();
    let ch = ends.partition_point(|&cw| cw <= target);
    if ch >= ends.len() {
        return n - 1;
    }
    let start = ch * PP_CHUNK;
    let mut cum = if ch == 0 { 0.0 } else { ends[ch - 1] };
    for (o, v) in closest[start..(start + PP_CHUNK).min(n)].iter().enumerate() {
        cum += match weights {
            Some(w) => w[start + o] * v,
            None => *v,
        };
        if cum > target {
            return start + o;
        }
    }
    // Unreachable: the chunk's last running sum is `ends[ch] > target`.
    (start + PP_CHUNK).min(n) - 1
}

/// Points summed together by [`potentials`] (their rows stay in L1).
pub(super) const POT_BLOCK: usize = 256;

/// Every trial's potential `Σ_i w_i·min(dist_t(i), closest_i)` (`w_i = 1`
/// without weights), summed in index order exactly as the reference does, the trials side by side in `L`
/// lanes, for the chunks `first..` (`chunks`, their changes): the running
/// sums continue from the end of chunk `first − 1` (the last `L` entries of
/// `ends`, which must hold exactly the `first` chunks before), and `ends`
/// gets the `L` running sums at the end of every chunk.
pub(super) fn potentials<const L: usize>(
    closest: &[f64],
    weights: Option<&[f64]>,
    first: usize,
    chunks: &[TrialChanges],
    rows: &mut [f64],
    ends: &mut Vec<f64>,
) {
    let n = closest.len();
    ends.truncate(first * L);
    let mut sums = [0.0f64; L];
    if first > 0 {
        sums.copy_from_slice(&ends[(first - 1) * L..first * L]);
    }
    for (o, changes) in chunks.iter().enumerate() {
        let start = (first + o) * PP_CHUNK;
        let cl = &closest[start..(start + PP_CHUNK).min(n)];
        // Per lane, the next change not yet written (lists are in index order).
        let mut next = [0usize; L];
        for (b, block) in cl.chunks(POT_BLOCK).enumerate() {
            let base = start + b * POT_BLOCK;
            let end = base + block.len();
            // The reference's terms: `w_i·v` with weights, `v` without.
            let term = |i: usize, v: f64| weights.map_or(v, |w| w[i] * v);
            for (o, (row, &v)) in rows.chunks_exact_mut(L).zip(block).enumerate() {
                let v = term(base + o, v);
                row.iter_mut().for_each(|r| *r = v);
            }
            for ((t, list), at) in changes.iter().enumerate().take(L).zip(&mut next) {
                for &(i, v) in list.get(*at..).unwrap_or(&[]) {
                    let i = i as usize;
                    if i >= end {
                        break;
                    }
                    rows[(i - base) * L + t] = term(i, v);
                    *at += 1;
                }
            }
            for row in rows.chunks_exact(L).take(block.len()) {
                for (acc, &v) in sums.iter_mut().zip(row) {
                    *acc += v;
                }
            }
        }
        ends.extend_from_slice(&sums);
    }
}

/// Smallest `closest[i]` that the triangle test trusts. Below it, squared
/// distances may have lost relative accuracy to underflow (each of the
/// about `2d` rounded operations of [`sq_dist`] may then err by 2⁻¹⁰⁷⁵
/// absolutely besides its relative error); from it up (and the distances
/// the test compares are at least about as large), that absolute error is
/// below `d·10⁻¹²³` of the value, far inside the margin of [`prune_limits`].
pub(super) const PRUNE_FLOOR: f64 = 1e-200;

/// For every chosen centre `a`, the largest `closest[i]` of a point with
/// `assign[i] == a` for which no trial can record a change, written to
/// `limits[a]` (`centroids` holds the chosen centres, `cands` the trials,
/// both shifted, `d` values each).
///
/// With `x` the point, `μ` its centre and `y` a trial, the triangle
/// inequality gives `‖x − y‖ ≥ ‖y − μ‖ − ‖x − μ‖`, so `‖y − μ‖² ≥ 4‖x − μ‖²`
/// implies `‖x − y‖² ≥ ‖x − μ‖²` in exact arithmetic. The kernel records a
/// change only if the *computed* distance is strictly below the *computed*
/// `closest[i]`, so the test carries a relative margin `m`: every squared
/// distance computed by [`sq_dist`] (or the lanes with its bits) is within
/// a factor `1 ± γ` of the exact one, `γ = (d + 6)·2⁻⁵³·(1 + tiny)`: each
/// term carries three roundings (the difference, then its square), and the
/// non-negative terms go through at most `d + 3` rounded additions in
/// sequence (the order of [`crate::data::sq_dist`]: `d/4 + 4` with four
/// accumulators, `d/16 + 10` with sixteen). If `D̂ ≥ 4·Ĉ·(1 + m)`, with
/// `D̂` the computed `‖y − μ‖²` and `Ĉ = closest[i]`, the exact ratio is
/// `D/C ≥ 4ρ` with `ρ = (1 + m)(1 − γ)/(1 + γ)`, so
/// `‖x − y‖² ≥ (2√ρ − 1)²·C ≥ ρ·C` (`ρ ≥ 1`), and the computed distance is
/// at least `ρ·(1 − γ)/(1 + γ)·Ĉ ≥ Ĉ` as soon as
/// `1 + m ≥ ((1 + γ)/(1 − γ))² ≈ 1 + 4γ`. We use `m = 16·(d + 16)·2⁻⁵³`,
/// four times that and more, which also absorbs the two roundings of the
/// division below. Points with `closest[i] < PRUNE_FLOOR`, where underflow
/// voids the relative bound, are never pruned.
pub(super) fn prune_limits(centroids: &[f64], cands: &[f64], d: usize, limits: &mut Vec<f64>) {
    let margin = 4.0 * (1.0 + (d as f64 + 16.0) * 8.0 * f64::EPSILON);
    limits.clear();
    limits.extend(centroids.chunks_exact(d).map(|mu| {
        let nearest = cands
            .chunks_exact(d)
            .map(|y| sq_dist(y, mu))
            .fold(f64::INFINITY, f64::min);
        nearest / margin
    }));
}
