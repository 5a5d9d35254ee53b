//! Greedy k-means++ (Arthur & Vassilvitskii, with the `2 + ⌊ln k⌋` local
//! trials scikit-learn uses): the plain definition, for any representation
//! and with weights ([`kmeans_plus_plus_indices`]), and the accelerated
//! dense one with the same numbers ([`kmeans_plus_plus_rows`],
//! [`kmeans_plus_plus_joint`]: several restarts sharing each pass over the
//! data), whose pass kernels are in [`lanes`].

mod lanes;

use crate::data::{sq_dist, Data, Scalar};
use crate::rng::Xoshiro256PlusPlus;
use lanes::TrialChanges;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

/// The k-means++ centres of one restart, shifted: the accelerated
/// computation or the plain definition, with the same numbers either way.
/// Once `cancel` is set it stops early, with fewer than `k` centres.
pub(crate) fn start<T: Scalar>(
    data: &Data<'_, T>,
    k: usize,
    rng: &mut Xoshiro256PlusPlus,
    accelerated: bool,
    cancel: &AtomicBool,
) -> Vec<f64> {
    if accelerated {
        kmeans_plus_plus(data, k, rng, cancel)
    } else {
        kmeans_plus_plus_reference(data, k, rng, cancel)
    }
}

/// Points per parallel task in k-means++. Fixed; nothing depends on it.
const PP_CHUNK: usize = 4096;

/// Trials evaluated together (`2 + ⌊ln k⌋ ≤ 16`: k below e¹⁵ ≈ 3.3·10⁶;
/// beyond, the plain definition runs).
const LANES: usize = lanes::PP_LANES;

/// Greedy k-means++ with exactly the numbers of
/// [`kmeans_plus_plus_reference`], computed faster:
///
/// * the trial indices of a centre depend only on the random stream and on
///   the potential before that centre, so they are drawn first, as before,
///   and all trials are evaluated in one pass over the data, side by side in
///   the lanes of a kernel with exactly [`sq_dist`]'s summation order;
/// * that pass runs in parallel over chunks of points and keeps only the
///   distances strictly below a point's `closest` (the others leave the
///   min unchanged). Points that provably keep their `closest` are skipped
///   on the way: by the triangle inequality through their own centre
///   ([`prune_limits`], without reading the row), or by a rigorous screen
///   on dot products (see `lanes::plus_plus_lanes`);
/// * every potential is then summed sequentially in index order, so it has
///   the reference's bits, and the best trial wins as before. The winner's
///   running sums at the chunk ends are kept: they are the reference's
///   cumulative sums there, so the next trials are drawn from them and
///   one chunk of running sums each, with the reference's indices.
fn kmeans_plus_plus<T: Scalar>(
    data: &Data<'_, T>,
    k: usize,
    rng: &mut Xoshiro256PlusPlus,
    cancel: &AtomicBool,
) -> Vec<f64> {
    data.gather_shifted(&kmeans_plus_plus_rows(data, k, rng, cancel))
}

/// The rows greedy k-means++ chooses from the stream `rng`, in the order
/// chosen: the centres [`crate::init::initial_partition`] starts from (with or without
/// weights), as indices into the data. Once `cancel` is set it stops
/// early, with fewer than `k` rows.
pub(crate) fn kmeans_plus_plus_rows<T: Scalar>(
    data: &Data<'_, T>,
    k: usize,
    rng: &mut Xoshiro256PlusPlus,
    cancel: &AtomicBool,
) -> Vec<usize> {
    let settings = PassSettings {
        cancel: Some(cancel),
        ..PassSettings::for_this_cpu(data.d)
    };
    let mut out = kmeans_plus_plus_with(data, k, std::slice::from_mut(rng), settings);
    out.pop().unwrap_or_default()
}

/// [`kmeans_plus_plus`] for several restarts at once, each from its own
/// stream (`rngs`): the same centres as one call per restart, bit for bit.
/// The restarts go in groups ([`joint_group`]) whose passes over the data
/// run in lockstep, centre by centre, and share each read of a row; the
/// screen's arithmetic is not shared.
///
/// Stops early, with fewer than `k` centres, once `cancel` is set.
pub(crate) fn kmeans_plus_plus_joint<T: Scalar>(
    data: &Data<'_, T>,
    k: usize,
    rngs: &mut [Xoshiro256PlusPlus],
    cancel: &AtomicBool,
) -> Vec<Vec<f64>> {
    let settings = PassSettings {
        cancel: Some(cancel),
        ..PassSettings::for_this_cpu(data.d)
    };
    let groups = rngs
        .len()
        .div_ceil(joint_group(data.d, std::mem::size_of::<T>()))
        .max(1);
    // Groups of equal size (give or take one), not one full and one short.
    let group = rngs.len().div_ceil(groups).max(1);
    let draw = |group: &mut [Xoshiro256PlusPlus]| kmeans_plus_plus_with(data, k, group, settings);
    // A pass over fewer chunks than two per thread leaves threads idle, as
    // do the steps between passes (drawing trials, picking the winner), so
    // the groups then run side by side. A pass that short is a single wave:
    // side by side they hold no more change lists than one group of every
    // restart would. The groups are independent: the same starts.
    let chunks = data.n.div_ceil(PP_CHUNK);
    let rows: Vec<Vec<usize>> = if groups > 1 && chunks < 2 * rayon::current_num_threads() {
        let per_group: Vec<_> = rngs.par_chunks_mut(group).map(draw).collect();
        per_group.into_iter().flatten().collect()
    } else {
        rngs.chunks_mut(group).flat_map(draw).collect()
    };
    rows.iter().map(|rows| data.gather_shifted(rows)).collect()
}

/// Most restarts whose k-means++ passes run together. Each holds
/// [`PP_STATE_BYTES`] per point while its pass runs (the change lists of
/// a pass are bounded separately, [`wave_chunks`]); a group keeps that
/// within the data's own size (`elem` bytes per entry, `d` per row), and
/// within `lanes::PP_MAX_RESTARTS`. The grouping changes no result.
fn joint_group(d: usize, elem: usize) -> usize {
    (elem * d / PP_STATE_BYTES).clamp(1, lanes::PP_MAX_RESTARTS)
}

/// Bytes per point of one restart's k-means++ state: `closest` (8),
/// `assign` (4) and the trials' change bits (2).
const PP_STATE_BYTES: usize = 14;

/// Change lists one pass may hold at once, in bytes (besides
/// `2 · threads` chunks, which it may always hold).
const WAVE_BYTES: usize = 1 << 26;

/// Chunks of points whose changes are listed at once for `restarts`
/// restarts of `trials` trials: the lists of a chunk take at most
/// `16 · trials · restarts` bytes per point (every point changing for every
/// trial); a wave holds [`WAVE_BYTES`] of that, or two chunks per thread.
fn wave_chunks(trials: usize, restarts: usize, threads: usize) -> usize {
    let per_chunk = PP_CHUNK * 16 * trials.max(1) * restarts.max(1);
    (WAVE_BYTES / per_chunk).max(2 * threads).max(1)
}

/// One restart's k-means++ in progress in [`kmeans_plus_plus_with`].
struct PlusPlus {
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
fn apply_choices<T: Scalar>(data: &Data<'_, T>, runs: &mut [PlusPlus], c: usize) {
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
struct PassSettings<'a> {
    /// Whether the screen's products use fused multiply-adds (the CPU's
    /// choice, [`crate::simd::fused_multiply_add`]).
    fused: bool,
    /// Stop early, with fewer than `k` centres, once this is set.
    cancel: Option<&'a AtomicBool>,
    /// Chunks whose change lists are held at once (default
    /// [`wave_chunks`]).
    wave: Option<usize>,
    /// Where to count what the passes skip, if anywhere.
    stats: Option<&'a lanes::PlusPlusStats>,
    /// Whether the screen may take its products in `f32` (where the data's
    /// range allows, [`lanes::F32_SCREEN_MAX_ABS`]); else in `f64`.
    screen32: bool,
}

impl PassSettings<'_> {
    /// The production settings for rows of `d` features: this CPU's
    /// products, in `f32` from [`lanes::F32_SCREEN_MIN_D`] features.
    fn for_this_cpu(d: usize) -> Self {
        PassSettings {
            fused: crate::simd::fused_multiply_add(),
            screen32: d >= lanes::F32_SCREEN_MIN_D,
            ..PassSettings::default()
        }
    }
}

/// [`kmeans_plus_plus_joint`] for at most `PP_MAX_RESTARTS` restarts.
fn kmeans_plus_plus_with<T: Scalar>(
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

/// The first centre: uniformly, or with weights proportionally to weight
/// (the plain definition's draw and use of the random stream; it serves
/// both computations).
fn first_centre(
    n: usize,
    weighted: bool,
    weight: impl Fn(usize) -> f64,
    rng: &mut Xoshiro256PlusPlus,
) -> usize {
    if !weighted {
        return rng.below(n);
    }
    let mut total = 0.0;
    let cumulative: Vec<f64> = (0..n)
        .map(|i| {
            total += weight(i);
            total
        })
        .collect();
    let target = rng.unit_f64() * total;
    cumulative.partition_point(|&cw| cw <= target).min(n - 1)
}

/// The reference's draw for `target`: the first index whose cumulative sum
/// of `closest` (times the weights, if any; in index order, from 0) exceeds
/// `target`, or the last index. `ends[ch]` is that cumulative sum at the end of chunk `ch`; the
/// sums are non-decreasing (non-negative terms, monotone rounding), so the
/// chunk is found by bisection on `ends` and the index by summing that
/// chunk from the previous end, which reproduces the reference's running
/// sums bit for bit.
fn sample(closest: &[f64], weights: Option<&[f64]>, ends: &[f64], target: f64) -> usize {
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
const POT_BLOCK: usize = 256;

/// Every trial's potential `Σ_i w_i·min(dist_t(i), closest_i)` (`w_i = 1`
/// without weights), summed in index order exactly as the reference does, the trials side by side in `L`
/// lanes, for the chunks `first..` (`chunks`, their changes): the running
/// sums continue from the end of chunk `first − 1` (the last `L` entries of
/// `ends`, which must hold exactly the `first` chunks before), and `ends`
/// gets the `L` running sums at the end of every chunk.
fn potentials<const L: usize>(
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
const PRUNE_FLOOR: f64 = 1e-200;

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
fn prune_limits(centroids: &[f64], cands: &[f64], d: usize, limits: &mut Vec<f64>) {
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

/// Greedy k-means++ on dense rows, the plain definition (weights allowed):
/// the chosen points, shifted. [`kmeans_plus_plus`] computes the same
/// numbers faster for unweighted data.
fn kmeans_plus_plus_reference<T: Scalar>(
    data: &Data<'_, T>,
    k: usize,
    rng: &mut Xoshiro256PlusPlus,
    cancel: &AtomicBool,
) -> Vec<f64> {
    data.gather_shifted(&kmeans_plus_plus_reference_rows(data, k, rng, cancel))
}

/// The rows [`kmeans_plus_plus_reference`] chooses, in the order chosen.
fn kmeans_plus_plus_reference_rows<T: Scalar>(
    data: &Data<'_, T>,
    k: usize,
    rng: &mut Xoshiro256PlusPlus,
    cancel: &AtomicBool,
) -> Vec<usize> {
    let mut cand = vec![0.0; data.d];
    let mut buf = vec![0.0; data.d];
    kmeans_plus_plus_indices(
        data.n,
        k,
        data.is_weighted(),
        |i| data.weight(i),
        rng,
        cancel,
        |c, out| {
            data.load_shifted(c, &mut cand);
            for (block, chunk) in out.chunks_mut(PP_CHUNK).enumerate() {
                if cancel.load(Ordering::Relaxed) {
                    return;
                }
                for (o, v) in chunk.iter_mut().enumerate() {
                    data.load_shifted(block * PP_CHUNK + o, &mut buf);
                    *v = sq_dist(&buf, &cand);
                }
            }
        },
    )
}

/// Greedy k-means++ (Arthur & Vassilvitskii, with the `2 + ⌊ln k⌋` local
/// trials scikit-learn uses): each new centre is the best of several
/// D²-sampled candidates by the potential it leaves. With sample weights the
/// first centre is drawn proportionally to weight and the rest to `w·D²`.
/// `dists_to(c, out)` writes the squared distance from every point to point
/// `c`; the representation (dense or sparse) only enters there. Once
/// `cancel` is set (`dists_to` may poll it too and leave `out` unfinished)
/// it returns early, with fewer than `k` indices.
pub(crate) fn kmeans_plus_plus_indices(
    n: usize,
    k: usize,
    weighted: bool,
    weight: impl Fn(usize) -> f64,
    rng: &mut Xoshiro256PlusPlus,
    cancel: &AtomicBool,
    mut dists_to: impl FnMut(usize, &mut [f64]),
) -> Vec<usize> {
    let trials = 2 + (k as f64).ln().floor() as usize;
    let first = first_centre(n, weighted, &weight, rng);
    let mut chosen = Vec::with_capacity(k);
    chosen.push(first);
    let mut closest = vec![0.0; n];
    dists_to(first, &mut closest);
    let mut candidate_d2 = vec![0.0; n];
    let mut best_d2 = vec![0.0; n];
    let mut cumulative = vec![0.0; n];
    for _ in 1..k {
        if cancel.load(Ordering::Relaxed) {
            return chosen;
        }
        let mut pot = 0.0;
        for (i, (cum, v)) in cumulative.iter_mut().zip(&closest).enumerate() {
            pot += weight(i) * v;
            *cum = pot;
        }
        let mut best_pot = f64::INFINITY;
        let mut best_idx = 0;
        for _ in 0..trials {
            let idx = if pot > 0.0 {
                let target = rng.unit_f64() * pot;
                // First index whose cumulative weight exceeds the target;
                // points with zero weight can never be picked.
                cumulative.partition_point(|&cw| cw <= target).min(n - 1)
            } else {
                // Fewer distinct points than k: any point will do.
                rng.below(n)
            };
            dists_to(idx, &mut candidate_d2);
            if cancel.load(Ordering::Relaxed) {
                return chosen;
            }
            let mut cand_pot = 0.0;
            for (i, (cd, cl)) in candidate_d2.iter_mut().zip(&closest).enumerate() {
                *cd = cd.min(*cl);
                cand_pot += weight(i) * *cd;
            }
            if cand_pot < best_pot {
                best_pot = cand_pot;
                best_idx = idx;
                std::mem::swap(&mut best_d2, &mut candidate_d2);
            }
        }
        chosen.push(best_idx);
        std::mem::swap(&mut closest, &mut best_d2);
    }
    chosen
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use lanes::PlusPlusStats;
    use ndarray::{Array2, ArrayView2};
    use std::sync::atomic::Ordering::Relaxed;

    /// What the accelerated pass skipped over all runs of [`check`].
    #[derive(Debug)]
    struct Skipped {
        visited: usize,
        triangle: usize,
        screened: usize,
    }

    /// The accelerated k-means++ (fused and unfused screen, 1 and 3
    /// threads; one restart, and three restarts sharing their passes)
    /// against the plain definition from the same seeds: the same centroids,
    /// bit for bit, and the same use of each random stream.
    fn check<T: Scalar>(x: ArrayView2<'_, T>, k: usize, seed: u64) -> Skipped {
        check_weighted(x, None, k, seed)
    }

    /// [`check`] with sample weights.
    fn check_weighted<T: Scalar>(
        x: ArrayView2<'_, T>,
        w: Option<&[f64]>,
        k: usize,
        seed: u64,
    ) -> Skipped {
        let data = Data::new(x, w.map(std::borrow::Cow::Borrowed));
        let bits = |c: &[f64]| c.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        let seeds = [seed, seed + 101, seed + 202];
        let (mut reference, mut after_reference) = (Vec::new(), Vec::new());
        let mut reference_rows = Vec::new();
        for &s in &seeds {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(s);
            let rows = kmeans_plus_plus_reference_rows(&data, k, &mut rng, &AtomicBool::new(false));
            reference.push(bits(&data.gather_shifted(&rows)));
            reference_rows.push(rows);
            after_reference.push(rng.next_u64());
        }
        let stats = PlusPlusStats::default();
        for threads in [1, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            for (fused, wave, screen32) in [
                (true, None, true),
                (false, None, true),
                (true, Some(1), true),
                (true, None, false),
                (false, None, false),
            ] {
                for restarts in [1, 3] {
                    let mut rngs: Vec<_> = seeds[..restarts]
                        .iter()
                        .map(|&s| Xoshiro256PlusPlus::seed_from_u64(s))
                        .collect();
                    let fast = pool.install(|| {
                        let settings = PassSettings {
                            fused,
                            wave,
                            stats: Some(&stats),
                            cancel: None,
                            screen32,
                        };
                        kmeans_plus_plus_with(&data, k, &mut rngs, settings)
                    });
                    assert_eq!(fast.len(), restarts);
                    for (r, (c, rng)) in fast.iter().zip(&mut rngs).enumerate() {
                        let at = format!(
                            "k={k}, {threads} threads, fused {fused}, wave {wave:?}, f32 screen {screen32}, restart {r} of {restarts}"
                        );
                        assert_eq!(bits(&data.gather_shifted(c)), reference[r], "{at}");
                        assert_eq!(c, &reference_rows[r], "chosen rows differ: {at}");
                        assert_eq!(
                            rng.next_u64(),
                            after_reference[r],
                            "random stream differs: {at}"
                        );
                    }
                }
            }
        }
        Skipped {
            visited: stats.visited.load(Relaxed),
            triangle: stats.triangle.load(Relaxed),
            screened: stats.screened.load(Relaxed),
        }
    }

    /// Well-separated blobs: `centres` of them, 100 apart, unit noise.
    fn separated(n: usize, d: usize, centres: usize, seed: u64) -> Array2<f64> {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let c: Vec<f64> = (0..centres * d)
            .map(|_| rng.below(20) as f64 * 100.0)
            .collect();
        Array2::from_shape_fn((n, d), |(i, j)| {
            c[(i % centres) * d + j] + (0..4).map(|_| rng.unit_f64()).sum::<f64>() - 2.0
        })
    }

    #[test]
    fn fast_plus_plus_prunes_and_equals_reference_on_separated_blobs() {
        for &(n, d, centres, k) in &[(6000, 3, 12, 12), (5000, 8, 20, 40), (3000, 17, 6, 25)] {
            let x = separated(n, d, centres, (n + d) as u64);
            let s = check(x.view(), k, 3);
            // Both skips must actually happen here, or the equality above
            // would not test them.
            assert!(s.triangle > s.visited / 4, "{n}×{d}, k={k}: {s:?}");
            assert!(s.screened > 0, "{n}×{d}, k={k}: {s:?}");
            let s = check(x.mapv(|v| v as f32).view(), k, 4);
            assert!(s.triangle > s.visited / 4, "f32 {n}×{d}, k={k}: {s:?}");
        }
    }

    /// The screen with its products in `f32` skips points by itself (high
    /// dimension, where the triangle test rarely can), so the equality of
    /// [`check`] tests its bound. Its bound is wider than the `f64`
    /// screen's, which on these data skips at least as many points (a
    /// measured property of this data set, not a theorem).
    #[test]
    fn f32_screen_skips_points_in_high_dimension() {
        let x = crate::testdata::blobs(3000, 64, 12, 64);
        let data = Data::new(x.view(), None);
        let count = |screen32: bool| {
            let stats = PlusPlusStats::default();
            let settings = PassSettings {
                fused: true,
                stats: Some(&stats),
                screen32,
                ..PassSettings::default()
            };
            let mut rngs = vec![Xoshiro256PlusPlus::seed_from_u64(9)];
            let rows = kmeans_plus_plus_with(&data, 20, &mut rngs, settings);
            let left = stats.visited.load(Relaxed) - stats.triangle.load(Relaxed);
            (rows, stats.screened.load(Relaxed), left)
        };
        let (rows32, screened32, left) = count(true);
        let (rows64, screened64, _) = count(false);
        assert_eq!(rows32, rows64);
        // Of the points the triangle test left, most are screened out.
        assert!(
            screened32 > left / 2,
            "{screened32} of {left}, f64 {screened64}"
        );
        assert!(screened64 >= screened32, "{screened64} < {screened32}");
    }

    /// Restarts drawn together in several groups, one group after another
    /// (1 thread: a pass of three chunks keeps it busy) or side by side (2
    /// and 3 threads): each restart gets the reference's start from its own
    /// stream, bit for bit, and leaves the stream where the reference does.
    #[test]
    fn joint_starts_in_groups_equal_separate_starts() {
        let (n, d, k, restarts): (usize, usize, usize, usize) = (9_000, 2, 12, 5);
        assert!(n.div_ceil(PP_CHUNK) >= 2 && n.div_ceil(PP_CHUNK) < 4);
        assert_eq!(joint_group(d, 8), 1, "every restart its own group");
        let x = crate::testdata::blobs(n, d, 6, 17);
        let data = Data::new(x.view(), None);
        let bits = |c: &[f64]| c.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        let seed = |r: usize| Xoshiro256PlusPlus::seed_from_u64(40 + r as u64);
        let reference: Vec<_> = (0..restarts)
            .map(|r| {
                let mut rng = seed(r);
                let rows =
                    kmeans_plus_plus_reference_rows(&data, k, &mut rng, &AtomicBool::new(false));
                (bits(&data.gather_shifted(&rows)), rng.next_u64())
            })
            .collect();
        for threads in [1, 2, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let mut rngs: Vec<_> = (0..restarts).map(seed).collect();
            let cancel = AtomicBool::new(false);
            let starts = pool.install(|| kmeans_plus_plus_joint(&data, k, &mut rngs, &cancel));
            assert_eq!(starts.len(), restarts);
            for (r, (start, rng)) in starts.iter().zip(&mut rngs).enumerate() {
                assert_eq!(
                    bits(start),
                    reference[r].0,
                    "{threads} threads, restart {r}"
                );
                assert_eq!(
                    rng.next_u64(),
                    reference[r].1,
                    "{threads} threads, restart {r}"
                );
            }
        }
    }

    #[test]
    fn fast_plus_plus_equals_reference_on_overlapping_blobs() {
        for &(n, d, k) in &[
            (5000, 16, 20),
            (3000, 40, 30),
            (9000, 2, 60),
            (4100, 5, 200),
        ] {
            let x = crate::testdata::blobs(n, d, k / 2, (n * d) as u64);
            let s = check(x.view(), k, 5);
            assert!(s.screened > 0, "{n}×{d}, k={k}: {s:?}");
            check(x.mapv(|v| v as f32).view(), k, 6);
        }
    }

    /// With sample weights the potentials and draws are weighted (and the
    /// first centre is drawn by weight): spread weights, zeros (never
    /// drawn), integers, and a few dominant weights.
    #[test]
    fn fast_plus_plus_equals_reference_with_weights() {
        for &(n, d, k) in &[(5000, 16, 20), (9000, 2, 60), (4100, 5, 200)] {
            let x = crate::testdata::blobs(n, d, k / 2, 3 + (n * d) as u64);
            let spread: Vec<f64> = (0..n)
                .map(|i| 0.1 + ((i * 7919) % 97) as f64 / 9.7)
                .collect();
            let zeros: Vec<f64> = (0..n).map(|i| if i % 7 == 0 { 0.0 } else { 2.0 }).collect();
            let integers: Vec<f64> = (0..n).map(|i| (1 + i % 5) as f64).collect();
            let dominant: Vec<f64> = (0..n)
                .map(|i| if i % 500 == 0 { 1e6 } else { 1e-3 })
                .collect();
            for w in [&spread, &zeros, &integers, &dominant] {
                let s = check_weighted(x.view(), Some(w), k, 9);
                assert!(s.triangle + s.screened > 0, "{n}×{d}, k={k}: {s:?}");
                check_weighted(x.mapv(|v| v as f32).view(), Some(w), k, 10);
            }
        }
    }

    #[test]
    fn fast_plus_plus_equals_reference_on_nasty_data() {
        // Many exact duplicates and exactly tied distances (k beyond the
        // number of distinct points included: the potential reaches 0).
        let grid = Array2::from_shape_fn((5000, 3), |(i, j)| ((i * (j + 2) + i / 7) % 4) as f64);
        for k in [5, 30, 80] {
            check(grid.view(), k, 7);
        }
        let dup = Array2::from_shape_fn((4500, 2), |(i, j)| ((i % 9) * (j + 1)) as f64);
        let s = check(dup.view(), 12, 8);
        assert!(s.triangle + s.screened > 0, "{s:?}");
        // Far from the origin (cancellation in the shift), with a tiny
        // spread, and offset by 10⁶.
        let x = crate::testdata::blobs(4200, 6, 9, 11);
        check(x.mapv(|v| 1e9 + v * 1e-4).view(), 20, 9);
        check(x.mapv(|v| v + 1e6).view(), 20, 10);
        check(grid.mapv(|v| v * 1e-3 + 1e6).view(), 9, 11);
        // Tiny magnitudes: squared distances in the subnormal range.
        check(x.mapv(|v| v * 1e-160).view(), 15, 12);
        check(grid.mapv(|v| v * 1e-155).view(), 10, 13);
        // One column.
        let line = Array2::from_shape_fn((6000, 1), |(i, _)| ((i * 7919) % 1013) as f64 * 0.37);
        let s = check(line.view(), 50, 14);
        assert!(s.triangle > s.visited / 4, "{s:?}");
        check(line.mapv(|v| v as f32).view(), 50, 15);
        check(x.mapv(|v| v as f32 + 1e4).view(), 20, 16);
        // Beyond the `f32` screen's range: the `f64` screen runs.
        check(x.mapv(|v| v * 1e20).view(), 12, 18);
        // Huge magnitudes: the plain definition runs.
        check(x.mapv(|v| v * 1e120).view(), 5, 17);
    }

    /// The changes of one pass with the trials `cands` (rows of `d`),
    /// through [`lanes::plus_plus_changes`] with every skip enabled
    /// (fused or not, the screen's products in `f64` and in `f32`) and by
    /// brute force: they must be the same lists.
    fn pass_equals_brute_force(
        x: &Array2<f64>,
        centre: usize,
        cands: &[usize],
        fused: bool,
    ) -> bool {
        let (n, d) = x.dim();
        // No shift, so that the rows are exactly the given numbers.
        let data = Data::with_shift(x.view(), None, vec![0.0; d]);
        let row = |i: usize| x.row(i).to_vec();
        let mu = row(centre);
        let closest: Vec<f64> = (0..n).map(|i| sq_dist(&row(i), &mu)).collect();
        let norms: Vec<f64> = (0..n).map(|i| row(i).iter().map(|v| v * v).sum()).collect();
        let trials = cands.len();
        let lanes = lanes::plus_plus_lanes_for(trials);
        let ys: Vec<f64> = cands.iter().flat_map(|&c| row(c)).collect();
        let mut ct = vec![0.0; d * lanes];
        let mut cand_norms = vec![0.0; LANES];
        for t in 0..lanes {
            let y = row(cands[if t < trials { t } else { 0 }]);
            for c in 0..d {
                ct[c * lanes + t] = y[c];
            }
            cand_norms[t] = y.iter().map(|v| v * v).sum();
        }
        let mut limits = Vec::new();
        prune_limits(&mu, &ys, d, &mut limits);
        let ct32: Vec<f32> = ct.iter().map(|&v| v as f32).collect();
        let stats = PlusPlusStats::default();
        let mut tr = lanes::PlusPlusTrials {
            ct: &ct,
            ct32: None,
            lanes,
            trials,
            cands: &ys,
            cand_norms: &cand_norms,
            closest: &closest,
            norms: &norms,
            assign: &vec![0; n],
            limits: &limits,
            floor: PRUNE_FLOOR,
            fused,
            stats: Some(&stats),
        };
        let fast = lanes::plus_plus_changes(&data, std::slice::from_ref(&tr), 0, n)
            .pop()
            .unwrap_or_default();
        // The same pass with the screen's products in `f32`.
        tr.ct32 = Some(&ct32);
        let fast32 = lanes::plus_plus_changes(&data, std::slice::from_ref(&tr), 0, n)
            .pop()
            .unwrap_or_default();
        let brute: Vec<Vec<(u32, f64)>> = ys
            .chunks_exact(d)
            .map(|y| {
                (0..n)
                    .map(|i| (i as u32, sq_dist(&row(i), y)))
                    .filter(|&(i, v)| v < closest[i as usize])
                    .collect()
            })
            .collect();
        let key = |l: &Vec<Vec<(u32, f64)>>| -> Vec<Vec<(u32, u64)>> {
            l.iter()
                .map(|v| v.iter().map(|&(i, d)| (i, d.to_bits())).collect())
                .collect()
        };
        key(&fast) == key(&brute) && key(&fast32) == key(&brute)
    }

    #[test]
    fn pass_equals_brute_force_for_every_lane_count() {
        // 4, 8 and 16 lanes (up to 4, 8 and 16 trials), spare lanes included.
        let x = crate::testdata::blobs(700, 11, 9, 21);
        let cands: Vec<usize> = (0..16).map(|t| 5 + 41 * t).collect();
        for trials in [1, 3, 4, 5, 8, 9, 13, 16] {
            for fused in [true, false] {
                assert!(
                    pass_equals_brute_force(&x, 3, &cands[..trials], fused),
                    "{trials} trials, fused {fused}"
                );
            }
        }
    }

    #[test]
    fn pruning_margins_hold_on_the_boundary() {
        // x lies halfway between its centre (the origin) and the trial y up
        // to rounding: the computed ‖y‖² is exactly 4·‖x‖², yet the computed
        // ‖x − y‖² is 1 ulp below ‖x‖², so the reference moves x to y. A
        // triangle test without its margin skips x, and so does the dot
        // product screen without its error bound.
        let x = ndarray::array![
            [0.0, 0.0],
            [0.8861601293631303, -1.0849511149181894],
            [1.7723202587262599, -2.1699022298363793],
            [0.3, 5.0]
        ];
        let (c, y) = (
            sq_dist(&[0.0, 0.0], &[x[[1, 0]], x[[1, 1]]]),
            sq_dist(&[0.0, 0.0], &[x[[2, 0]], x[[2, 1]]]),
        );
        let dist = sq_dist(&[x[[1, 0]], x[[1, 1]]], &[x[[2, 0]], x[[2, 1]]]);
        assert_eq!(y / 4.0, c, "the case is no longer on the boundary");
        assert!(dist < c);
        for fused in [true, false] {
            assert!(
                pass_equals_brute_force(&x, 0, &[2, 3], fused),
                "fused {fused}"
            );
        }
        // Many points near that boundary, in a few dimensions and around
        // other centres.
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let mut on_boundary = 0;
        for case in 0..3000 {
            let d = 2 + case % 4;
            let mu: Vec<f64> = (0..d)
                .map(|_| if case % 3 == 0 { 0.0 } else { rng.unit_f64() })
                .collect();
            let v: Vec<f64> = (0..d).map(|_| rng.unit_f64() * 4.0 - 2.0).collect();
            let mut rows = vec![mu.clone()];
            for _ in 0..6 {
                let xs: Vec<f64> = mu.iter().zip(&v).map(|(m, w)| m + w).collect();
                let ys: Vec<f64> = mu
                    .iter()
                    .zip(&v)
                    .map(|(m, w)| {
                        let y = m + 2.0 * w;
                        let ulp = f64::from_bits(y.abs().to_bits() + 1) - y.abs();
                        y + (rng.below(7) as f64 - 3.0) * ulp
                    })
                    .collect();
                let (c, dd) = (sq_dist(&xs, &mu), sq_dist(&ys, &mu));
                if dd / 4.0 >= c && sq_dist(&xs, &ys) < c {
                    on_boundary += 1;
                }
                rows.push(xs);
                rows.push(ys);
            }
            let x = Array2::from_shape_fn((rows.len(), d), |(i, j)| rows[i][j]);
            let cands: Vec<usize> = (0..6).map(|t| 2 + 2 * t).collect();
            for fused in [true, false] {
                assert!(
                    pass_equals_brute_force(&x, 0, &cands[..2 + case % 5], fused),
                    "case {case}"
                );
            }
        }
        assert!(on_boundary > 20, "only {on_boundary} cases on the boundary");
    }
}
