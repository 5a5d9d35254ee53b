//! The k-means++ pass kernels: every trial candidate's exact distance to a
//! run of points, side by side in the lanes of one kernel with exactly
//! [`sq_dist`]'s summation order, behind the triangle test and a rigorous
//! dot-product screen that skip points which provably keep their closest
//! centre.

use crate::data::{sq_dist, Data, Scalar};

/// Most lanes of the batched exact distance kernel (one per k-means++ trial).
pub(crate) const PP_LANES: usize = 16;

/// Largest shifted magnitude for which the screen takes its products in
/// `f32` (2⁴⁰): every product of two entries is then below 2⁸⁰ and a sum of
/// them below 2¹²⁸ (`f32::MAX`) for any `d` below 2⁴⁷, and the absolute
/// error of entries rounded into `f32`'s subnormal range is covered by the
/// screen's slack (see [`plus_plus_lanes`]). Larger data screen in `f64`.
pub(crate) const F32_SCREEN_MAX_ABS: f64 = (1u64 << 40) as f64;

/// Fewest features for which the production passes take the screen's
/// products in `f32`. Only there are the products most of a pass: below,
/// reading the rows dominates, and the second read (in `f64`) of the rows
/// that pass the screen costs what the narrower products save.
pub(crate) const F32_SCREEN_MIN_D: usize = 64;

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
    /// `ct` rounded to `f32`, where the screen takes its products in `f32`
    /// (the same for every restart of a pass); `None` for `f64` products.
    pub ct32: Option<&'a [f32]>,
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
/// rows, so 4 multiply-add chains, half the rate the latency allows.
const TILE_LANES_AVX512: usize = 64;

/// Lanes of one register tile on this CPU: [`TILE_LANES_AVX512`] where the
/// kernels run their AVX-512 copy ([`avx512_kernels`]), else [`TILE_LANES`].
/// Only speed depends on it: the tile's products feed the screen, whose
/// bound holds for any summation order.
fn tile_lanes() -> usize {
    #[cfg(target_arch = "x86_64")]
    if crate::simd::avx512_kernels() {
        return TILE_LANES_AVX512;
    }
    TILE_LANES
}
/// Up to this many lanes passing the screen, they are computed one by one
/// rather than all lanes at once.
const SCALAR_LANES: u32 = 3;

/// The precisions the screen's products are taken in (`f64`, or `f32`
/// from [`F32_SCREEN_MIN_D`] features), with what differs between them:
/// how a row is read, where the candidates are, and how a row that passes
/// the screen is had in `f64` for its exact distances.
trait Product: Copy + Default + std::ops::Add<Output = Self> + std::ops::Mul<Output = Self> {
    /// Whether the entries are the shifted `f64` ones rounded (the screen
    /// then widens its bound, see [`plus_plus_lanes`]).
    const ROUNDED: bool;
    /// `self·y + acc` with one rounding.
    fn fused(self, y: Self, acc: Self) -> Self;
    fn to_f64(self) -> f64;
    /// Row `i`, shifted, in this precision.
    fn load<T: Scalar>(data: &Data<'_, T>, i: usize, buf: &mut [Self]);
    /// The candidates, transposed, in this precision.
    fn candidates<'a>(tr: &PlusPlusTrials<'a>) -> Option<&'a [Self]>;
    /// Row `i` shifted in `f64`: `row` itself where it is, else read into
    /// `buf`.
    fn exact<'a, T: Scalar>(
        data: &Data<'_, T>,
        i: usize,
        row: &'a [Self],
        buf: &'a mut [f64],
    ) -> &'a [f64];
}

impl Product for f64 {
    const ROUNDED: bool = false;
    #[inline(always)]
    fn fused(self, y: f64, acc: f64) -> f64 {
        self.mul_add(y, acc)
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline(always)]
    fn load<T: Scalar>(data: &Data<'_, T>, i: usize, buf: &mut [f64]) {
        data.load_shifted(i, buf);
    }
    #[inline(always)]
    fn candidates<'a>(tr: &PlusPlusTrials<'a>) -> Option<&'a [f64]> {
        Some(tr.ct)
    }
    #[inline(always)]
    fn exact<'a, T: Scalar>(
        _: &Data<'_, T>,
        _: usize,
        row: &'a [f64],
        _: &'a mut [f64],
    ) -> &'a [f64] {
        row
    }
}

impl Product for f32 {
    const ROUNDED: bool = true;
    #[inline(always)]
    fn fused(self, y: f32, acc: f32) -> f32 {
        self.mul_add(y, acc)
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    #[inline(always)]
    fn load<T: Scalar>(data: &Data<'_, T>, i: usize, buf: &mut [f32]) {
        data.load_shifted_f32(i, buf);
    }
    #[inline(always)]
    fn candidates<'a>(tr: &PlusPlusTrials<'a>) -> Option<&'a [f32]> {
        tr.ct32
    }
    #[inline(always)]
    fn exact<'a, T: Scalar>(
        data: &Data<'_, T>,
        i: usize,
        _: &'a [f32],
        buf: &'a mut [f64],
    ) -> &'a [f64] {
        data.load_shifted(i, buf);
        buf
    }
}

/// `out[r][t] = x_r · y_t` for the `R` rows of `rows` (`d` values each) and
/// the lanes of `ct`, in any rounding (it only feeds the screen): one
/// multiply-add chain per row and lane.
#[inline(always)]
fn dot_tile<F: Product, const L: usize, const R: usize, const FMA: bool>(
    rows: [&[F]; R],
    d: usize,
    ct: &[F],
    out: &mut [[F; L]; PP_TILE],
) {
    let rows = rows.map(|r| &r[..d]);
    let mut acc = [[F::default(); L]; R];
    for (c, y) in ct[..d * L].chunks_exact(L).enumerate() {
        for (a, x) in acc.iter_mut().zip(&rows) {
            let xv = x[c];
            for (a, &yv) in a.iter_mut().zip(y) {
                *a = if FMA { xv.fused(yv, *a) } else { *a + xv * yv };
            }
        }
    }
    out[..R].copy_from_slice(&acc);
}

/// [`dot_tile`] for a tile of `tile_rows` rows (1, 2, 4 or 8), row `r`
/// being `at(r)`.
#[inline(always)]
fn tile_products<'x, F: Product + 'x, const L: usize, const FMA: bool>(
    tile_rows: usize,
    at: impl Fn(usize) -> &'x [F],
    d: usize,
    ct: &[F],
    out: &mut [[F; L]; PP_TILE],
) {
    match tile_rows {
        8 => dot_tile::<F, L, 8, FMA>(
            [at(0), at(1), at(2), at(3), at(4), at(5), at(6), at(7)],
            d,
            ct,
            out,
        ),
        4 => dot_tile::<F, L, 4, FMA>([at(0), at(1), at(2), at(3)], d, ct, out),
        2 => dot_tile::<F, L, 2, FMA>([at(0), at(1)], d, ct, out),
        _ => dot_tile::<F, L, 1, FMA>([at(0)], d, ct, out),
    }
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
///
/// With the products in `f32` (`tr.ct32`, shifted entries at most
/// [`F32_SCREEN_MAX_ABS`]), `G_t` is the `f32` sum of the products of `x̃`
/// and `ỹ_t`, the entries rounded to `f32` (relative error `u' = 2⁻²⁴`).
/// Each product then errs by at most `(2u' + u'²)·|x_c·y_c|` and the sum of
/// `d` of them by `γ'_d·Σ|x̃_c·ỹ_c|`, so `|2·G_t − 2·x·y_t| ≤ γ'_{d+3}·N`
/// (`Σ|x_c·y_c| ≤ N/2`). The screen adds `(2d + 16)·u'·(A + max_t B_t)` to
/// `E`, and for entries rounded into `f32`'s subnormal range (absolute
/// error 2⁻¹⁵⁰, times entries below 2⁴⁰) `(16d + 64)·2⁻¹⁰⁸`. Rows that pass
/// are read again in `f64` for their exact distances.
#[inline(always)]
fn plus_plus_lanes<T: Scalar, const L: usize, const FMA: bool>(
    data: &Data<'_, T>,
    trs: &[PlusPlusTrials<'_>],
    start: usize,
    len: usize,
    out: &mut [TrialChanges],
) {
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
    let exact = if trs.first().is_some_and(|tr| tr.ct32.is_some()) {
        screen_blocks::<T, f32, L, FMA>(data, trs, todo, &need, start, out)
    } else {
        screen_blocks::<T, f64, L, FMA>(data, trs, todo, &need, start, out)
    };
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

/// The screen of [`plus_plus_lanes`] over the points `todo` (of the pass
/// from `start`, `need` their bits), a block at a time, with the products
/// in `F`: each block's rows are read once for all restarts, and each
/// restart screens the rows it needs. Returns, per restart, how many
/// points passed its screen.
#[inline(always)]
fn screen_blocks<T: Scalar, F: Product, const L: usize, const FMA: bool>(
    data: &Data<'_, T>,
    trs: &[PlusPlusTrials<'_>],
    todo: &[usize],
    need: &[u64],
    start: usize,
    out: &mut [TrialChanges],
) -> Vec<usize> {
    let d = data.d;
    let mut screens: Vec<Screen<L>> = trs.iter().map(|tr| Screen::new(tr, d)).collect();
    let mut exact = vec![0usize; trs.len()];
    let mut rows = Vec::with_capacity(PP_BLOCK);
    let mut xs = vec![F::default(); PP_BLOCK * d];
    // Where the screen's rows are rounded, the rows that pass it are read
    // again in `f64` for their exact distances.
    let mut x = vec![0.0; if F::ROUNDED { d } else { 0 }];
    for who in todo.chunks(PP_BLOCK) {
        for (r, &i) in who.iter().enumerate() {
            F::load(data, i, &mut xs[r * d..(r + 1) * d]);
        }
        for (r, ((tr, screen), out)) in trs.iter().zip(&mut screens).zip(out.iter_mut()).enumerate()
        {
            rows.clear();
            rows.extend((0..who.len()).filter(|&t| (need[who[t] - start] >> r) & 1 == 1));
            exact[r] += screen.block::<T, F, FMA>(tr, data, &xs, &rows, who, out, &mut x);
        }
    }
    exact
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
    /// `(2d + 16)·2⁻²⁴`: the products' relative slack when taken in `f32`.
    rel32: f64,
    /// `(16d + 64)·2⁻¹⁰⁸`: their absolute slack (entries rounded into
    /// `f32`'s subnormal range).
    abs32: f64,
    /// One bit per trial lane.
    live: u32,
    /// Rows of a register tile ([`tile_lanes`] / `L`, 1 to [`PP_TILE`]).
    tile_rows: usize,
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
            rel32: (2.0 * d as f64 + 16.0) * (f32::EPSILON as f64 / 2.0),
            abs32: (16.0 * d as f64 + 64.0) * 2f64.powi(-108),
            live: if tr.trials >= 32 {
                u32::MAX
            } else {
                (1u32 << tr.trials) - 1
            },
            tile_rows: (tile_lanes() / L).clamp(1, PP_TILE),
            dist: [0.0; L],
        }
    }

    /// Screens the points `who[p]` for the positions `p` of `rows` (their
    /// rows are `xs[p·d..]`, in `F`) and records the changes of those that
    /// pass (read in `f64` into `x` where `F` is rounded). Returns how many
    /// passed.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn block<T: Scalar, F: Product, const FMA: bool>(
        &mut self,
        tr: &PlusPlusTrials<'_>,
        data: &Data<'_, T>,
        xs: &[F],
        rows: &[usize],
        who: &[usize],
        out: &mut [Vec<(u32, f64)>],
        x: &mut [f64],
    ) -> usize {
        let d = self.d;
        // Every restart of a pass has `F`'s candidates where the first has
        // (one setting per pass, `kmeans_plus_plus_with`), so this never
        // returns.
        let Some(ct) = F::candidates(tr) else {
            return 0;
        };
        let (rel, slack) = if F::ROUNDED {
            (self.rel + self.rel32, self.underflow + self.abs32)
        } else {
            (self.rel, self.underflow)
        };
        let row = |p: usize| &xs[p * d..(p + 1) * d];
        let mut dots = [[F::default(); L]; PP_TILE];
        let mut passed = 0;
        let tile_rows = self.tile_rows;
        for tile in rows.chunks(tile_rows) {
            // A short last tile repeats its last row (those results are
            // not read).
            let at = |r: usize| row(tile[r.min(tile.len() - 1)]);
            tile_products::<F, L, FMA>(tile_rows, at, d, ct, &mut dots);
            for (&p, g) in tile.iter().zip(&dots) {
                let i = who[p];
                let (cl, a) = (tr.closest[i], tr.norms[i]);
                let limit = cl + (rel * (a + self.b_max) + slack);
                let mut q = [0.0f64; L];
                for ((q, &b), &gt) in q.iter_mut().zip(&self.cand_norms).zip(g) {
                    *q = (a + b) - 2.0 * gt.to_f64();
                }
                if q.iter().all(|&q| q >= limit) {
                    continue;
                }
                let x = F::exact(data, i, row(p), x);
                if self.record(tr, i, x, &q, limit, out) {
                    passed += 1;
                }
            }
        }
        passed
    }

    /// The lanes of point `i` (row `x`, shifted `f64`) whose screened
    /// distance `q` is below `limit`, computed exactly, and those strictly
    /// below `closest[i]` recorded. Returns whether any lane was open.
    #[inline(always)]
    fn record(
        &mut self,
        tr: &PlusPlusTrials<'_>,
        i: usize,
        x: &[f64],
        q: &[f64; L],
        limit: f64,
        out: &mut [Vec<(u32, f64)>],
    ) -> bool {
        let d = self.d;
        let cl = tr.closest[i];
        let mut open: u32 = 0;
        for (t, &q) in q.iter().enumerate() {
            open |= u32::from(q < limit) << t;
        }
        // Lanes past `trials` repeat trial 0 and record nothing.
        open &= self.live;
        if open == 0 {
            return false;
        }
        if open.count_ones() <= SCALAR_LANES {
            // Few lanes pass: their exact distances one by one (`sq_dist`
            // has the lanes' bits); the others provably record nothing.
            let mut bits = open;
            while bits != 0 {
                let t = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let dv = sq_dist(x, &tr.cands[t * d..(t + 1) * d]);
                if dv < cl {
                    out[t].push((i as u32, dv));
                }
            }
            return true;
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
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
