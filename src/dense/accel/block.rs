//! A block of points with their screened products: the rows gathered in
//! `f64` and scaled `f32`, their products with a panel of centroids, and
//! the screens both accelerated kernels (the sweep and Lloyd's assignment)
//! read them through. A screen only ever narrows the clusters evaluated
//! exactly; it never decides anything on its own.

use super::panel::Panel;
use crate::data::{Data, Scalar};

/// Largest block of points screened at once.
pub(super) const MAX_BLOCK: usize = 256;
/// Smallest block.
pub(super) const MIN_BLOCK: usize = 8;
/// Most products (rows × clusters) of one block: 256 KB of `f32`, so that
/// a block's products stay in the core's cache between the product, which
/// writes them, and the processing, which reads them; without it, blocks
/// at large `k` spend the product kernel's time on those stores. Up to
/// k = 256 it never binds.
pub(super) const MAX_BLOCK_PRODUCTS: usize = 1 << 16;

/// Scratch for one block: a run of positions of the visiting order, the
/// points among them that need an evaluation, and their screened products.
#[derive(Debug, Default)]
pub(super) struct Block {
    /// The block covers positions `start..end` of the visiting order.
    pub(super) start: usize,
    pub(super) end: usize,
    /// Positions (increasing) whose points were predicted to need an
    /// evaluation, and those points: the rows gathered below.
    pub(super) members: Vec<usize>,
    pub(super) points: Vec<usize>,
    /// Number of gathered rows (`members.len()`).
    pub(super) len: usize,
    /// Shifted rows in `f64` (`len × d`).
    pub(super) x64: Vec<f64>,
    /// `‖x‖²·scale²/2` of each row (screen units).
    pub(super) a: Vec<f64>,
    /// Scaled rows in `f32` (`len × d`).
    pub(super) x32: Vec<f32>,
    /// Products with the panel (`len × kp`).
    pub(super) g: Vec<f32>,
    /// The centroid snapshot the products were computed with.
    pub(super) panel: Panel,
    /// Epoch of that snapshot: clusters changed at or after it are dirty.
    pub(super) epoch: u64,
    /// Whether the screen holds for this block: the panel is usable and every
    /// gathered entry fits the panel's scale (the data's maximum is only a
    /// hint, so this is checked here, where it matters).
    pub(super) usable: bool,
    /// Whether the panel is the previous block's with exactly the clusters
    /// that block's moves touched re-packed (see [`Live::start_block`]).
    pub(super) follows: bool,
    /// Whether `prepared` holds each gathered row's decision work against
    /// the snapshot (computed over the pool by the sweep; see
    /// `Block::fill_prepared`).
    pub(super) has_prepared: bool,
    pub(super) prepared: Vec<Prepared>,
    /// The join weights (`f32`, padded) the rows were prepared with: the
    /// live ones of the snapshot's clusters.
    pub(super) w0: Vec<f32>,
    /// With sample weights, the cluster weights the rows were prepared
    /// with (each row's factors `W_j/(W_j + w)` come from them).
    pub(super) weights0: Vec<f64>,
}

/// What a gathered row's decision needs that depends only on the block's
/// snapshot and the row, so that it can be computed for all rows at once,
/// in parallel, before the block's points are decided in order. While the
/// row's own cluster and every cluster its screen lists are still as in
/// the snapshot, these are exactly the values the sequential decision
/// would compute.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Prepared {
    /// `sq_dist` to the own centroid.
    pub(super) own_dist: f64,
    /// Smallest screened cost of the other clusters (screen units).
    pub(super) m: f64,
    /// Lowest exact join cost over the clusters the screen lists with no
    /// bound but its own (`≤ m + 2E`), and its cluster; `None` when the
    /// screen alone showed the point stays and none were evaluated.
    pub(super) best: Option<(f64, usize)>,
}

impl Block {
    /// [`Block::fill`] with the block's own chosen points.
    pub(super) fn fill_members<T: Scalar>(&mut self, data: &Data<'_, T>) {
        let points = std::mem::take(&mut self.points);
        self.fill(data, &points);
        self.points = points;
    }

    /// Gathers the rows of `idx` (the block's points) and computes their
    /// products with `panel`, on the calling thread. (Lloyd's assignment
    /// runs its blocks side by side over the pool; the sweep splits a
    /// block's rows over the pool together with their decision work, in
    /// `Block::fill_prepared`, where that work outweighs the split.)
    pub(super) fn fill<T: Scalar>(&mut self, data: &Data<'_, T>, idx: &[usize]) {
        let len = idx.len();
        self.resize(data.d, len);
        self.has_prepared = false;
        let max_abs = gather(
            data,
            idx,
            &self.panel,
            &mut self.x64,
            &mut self.x32,
            &mut self.a,
        );
        self.usable = self.panel.usable && max_abs * self.panel.scale <= 2.0;
        if !self.panel.usable {
            return;
        }
        self.panel.product(&self.x32, len, &mut self.g);
    }

    /// Sizes the row buffers for `len` rows of `d` features.
    pub(super) fn resize(&mut self, d: usize, len: usize) {
        self.len = len;
        self.x64.resize(len * d, 0.0);
        self.x32.resize(len * d, 0.0);
        self.a.resize(len, 0.0);
        self.g.resize(len * self.panel.kp, 0.0);
    }
}

/// Loads the rows `idx` shifted into `x64`, scaled to `f32` into `x32`,
/// with their screen-unit `‖x‖²·scale²/2` in `a`; returns their largest
/// absolute entry.
#[inline(always)]
pub(super) fn gather<T: Scalar>(
    data: &Data<'_, T>,
    idx: &[usize],
    panel: &Panel,
    x64: &mut [f64],
    x32: &mut [f32],
    a: &mut [f64],
) -> f64 {
    let d = data.d;
    let (scale, half) = (panel.scale, panel.half_scale2());
    let mut max_abs: f64 = 0.0;
    for (t, &i) in idx.iter().enumerate() {
        let row = &mut x64[t * d..(t + 1) * d];
        data.load_shifted(i, row);
        let (s, m) = scale_row(row, scale, &mut x32[t * d..(t + 1) * d]);
        max_abs = max_abs.max(m);
        a[t] = s * half;
    }
    max_abs
}

/// Writes `row·scale` rounded to `f32` into `out` and returns `(‖row‖², max
/// |row|)`. The sum is taken in eight independent partial sums (any order
/// serves the screen that reads it): with one running sum every addition
/// waits for the previous one, which shows at large `d`.
#[inline(always)]
pub(crate) fn scale_row(row: &[f64], scale: f64, out: &mut [f32]) -> (f64, f64) {
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

/// Most rows of a block against `clusters` centroids: [`MAX_BLOCK`], fewer
/// where their products would exceed [`MAX_BLOCK_PRODUCTS`].
pub(super) fn max_block_rows(clusters: usize) -> usize {
    (MAX_BLOCK_PRODUCTS / clusters.max(1)).clamp(MIN_BLOCK, MAX_BLOCK)
}

/// One screened cost in screen units.
#[inline(always)]
pub(super) fn screen(w: f32, h: f32, g: f32, a: f32) -> f32 {
    w * ((a + h) - g)
}

/// `min_j w_j·((a + h_j) − g_j)` over the padded arrays (length a multiple
/// of 16), sixteen lanes wide.
#[inline(always)]
pub(super) fn screened_min(w: &[f32], h: &[f32], g: &[f32], a: f32) -> f32 {
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
/// cluster, dirty ones (evaluated on their own) and padding. (A scalar
/// loop converting every screen to `f64` dominated the decisions at large
/// `k`.)
#[inline(always)]
pub(super) fn screened_candidates(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Xoshiro256PlusPlus;

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
}
