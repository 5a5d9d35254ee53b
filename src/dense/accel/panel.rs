//! Blocked `f32` products of points with centroids, used only to *screen*
//! candidates: every decision is finally taken on exact `f64` distances
//! computed by [`crate::data::sq_dist`], and the screening is made rigorous by
//! the error bound [`Panel::error_bound`].
//!
//! Layout: the centroids are scaled by a power of two (so every scaled entry
//! is at most about 1 in magnitude and nothing overflows) and packed as `f32`
//! panels of [`W`] centroids, each panel stored `d × W` (one row per feature).
//! A block of points is stored row-major as scaled `f32`. The product
//! `G = X·Cᵀ` is computed by a register-tiled micro-kernel: AVX-512 or
//! AVX2+FMA when the running CPU has them (detected at run time, so wheels
//! stay portable), a plain loop otherwise. Which kernel runs changes the
//! rounding of `G`, never a result, because `G` only feeds the screen.

/// Centroids per packed panel.
pub(crate) const W: usize = 16;

/// Unit roundoff of `f32`.
const U32: f64 = 1.0 / (1u64 << 24) as f64;

/// The centroids of one snapshot, packed for [`Panel::product`].
#[derive(Debug, Clone, Default)]
pub(crate) struct Panel {
    /// Number of centroids.
    pub k: usize,
    /// Features.
    pub d: usize,
    /// `k` rounded up to a multiple of [`W`].
    pub kp: usize,
    /// Scaled `f32` centroids, `kp / W` panels of `d × W`.
    packed: Vec<f32>,
    /// `‖μ_j‖²` in `f64` (unscaled).
    pub cc: Vec<f64>,
    /// `max_j ‖μ_j‖²·scale²/2`.
    pub h_max: f64,
    /// `‖μ_j‖²·scale²/2` rounded to `f32`, padded with `+∞` to `kp`.
    pub h: Vec<f32>,
    /// The power of two every entry is multiplied by before rounding to `f32`.
    pub scale: f64,
    /// Whether the screen can be used at all (finite, well-scaled numbers).
    pub usable: bool,
}

/// The largest power of two `s` with `s · max_abs ≤ 1`, or `None` when the
/// magnitudes are too extreme for the screen (then callers use the exact path).
pub(crate) fn scale_for(max_abs: f64) -> Option<f64> {
    if !max_abs.is_finite() || max_abs > 1e120 {
        return None;
    }
    if max_abs < 1e-120 {
        // Tiny (or all-zero) data: the exact path is as fast as any screen.
        return None;
    }
    let mut e = max_abs.log2().ceil() as i32;
    // Guard against log2 rounding: make sure 2^e ≥ max_abs.
    while 2f64.powi(e) < max_abs {
        e += 1;
    }
    Some(2f64.powi(-e))
}

impl Panel {
    /// Packs the `k × d` centroids (row-major `f64`) given the largest
    /// absolute value of the points they will be multiplied with.
    pub fn pack(&mut self, centroids: &[f64], k: usize, d: usize, data_max_abs: f64) {
        let kp = k.div_ceil(W) * W;
        self.k = k;
        self.d = d;
        self.kp = kp;
        self.packed.clear();
        self.packed.resize(kp * d, 0.0);
        self.cc.clear();
        let mut cent_max: f64 = 0.0;
        for row in centroids.chunks_exact(d).take(k) {
            let mut s = 0.0;
            for &v in row {
                s += v * v;
                let a = v.abs();
                cent_max = if a > cent_max { a } else { cent_max };
            }
            self.cc.push(s);
        }
        let scale = scale_for(data_max_abs.max(cent_max));
        self.usable = scale.is_some() && self.cc.iter().all(|c| c.is_finite());
        let scale = scale.unwrap_or(1.0);
        self.scale = scale;
        let half = self.half_scale2();
        self.h.clear();
        self.h.extend(self.cc.iter().map(|&c| (c * half) as f32));
        self.h.resize(kp, f32::INFINITY);
        self.h_max = self.cc.iter().fold(0.0, |m, &c| if c > m { c } else { m }) * half;
        if !self.usable {
            return;
        }
        for (j, row) in centroids.chunks_exact(d).take(k).enumerate() {
            let (q, l) = (j / W, j % W);
            let panel = &mut self.packed[q * d * W..(q + 1) * d * W];
            for (c, &v) in row.iter().enumerate() {
                panel[c * W + l] = (v * scale) as f32;
            }
        }
    }

    /// Re-packs the centroids changed since `since` (`stamp[j] ≥ since`),
    /// keeping the scale. Returns `false` (and changes nothing) when the
    /// panel cannot be refreshed that way; then the caller packs afresh.
    pub fn refresh(&mut self, centroids: &[f64], stamp: &[u64], since: u64) -> bool {
        if stamp.len() != self.k {
            return false;
        }
        self.refresh_clusters(centroids, (0..self.k).filter(|&j| stamp[j] >= since))
    }

    /// Re-packs the centroids of the clusters `changed` (each at most once),
    /// keeping the scale; `false` as for [`Panel::refresh`].
    pub fn refresh_clusters(
        &mut self,
        centroids: &[f64],
        changed: impl Iterator<Item = usize> + Clone,
    ) -> bool {
        let (k, d) = (self.k, self.d);
        if !self.usable || centroids.len() != k * d {
            return false;
        }
        let scale = self.scale;
        // Means of the data stay within the data's range (up to rounding),
        // so this only fails for centroids that did not come from the data.
        for j in changed.clone() {
            let row = &centroids[j * d..(j + 1) * d];
            if !row.iter().all(|v| v.abs() * scale <= 2.0) {
                return false;
            }
        }
        let half = self.half_scale2();
        for j in changed {
            let row = &centroids[j * d..(j + 1) * d];
            let (q, l) = (j / W, j % W);
            let panel = &mut self.packed[q * d * W..(q + 1) * d * W];
            let mut s = 0.0;
            for (c, &v) in row.iter().enumerate() {
                panel[c * W + l] = (v * scale) as f32;
                s += v * v;
            }
            self.cc[j] = s;
            self.h[j] = (s * half) as f32;
            let hj = s * half;
            self.h_max = if hj > self.h_max { hj } else { self.h_max };
            if !s.is_finite() {
                self.usable = false;
            }
        }
        true
    }

    /// `scale² / 2`: multiplies a cost in the data's units into screen units.
    #[inline(always)]
    pub fn half_scale2(&self) -> f64 {
        0.5 * self.scale * self.scale
    }

    /// Screen-unit bound on `|c̃ − c·scale²/2|`, where `c = w·sq_dist(x, μ_j)`
    /// is the reference's exact cost of a point with screen-unit
    /// `a = ‖x‖²·scale²/2` (any weight `0 < w ≤ 1`), and
    /// `c̃ = w₃₂ ⊗ ((a₃₂ ⊕ h_j) ⊖ g_j)` is its `f32` screen with
    /// `h_j = ‖μ_j‖²·scale²/2` and `g_j` this panel's product.
    ///
    /// Derivation (u = 2⁻²⁴; scaled entries are at most 1, so nothing
    /// overflows): rounding x and μ to `f32` and a length-`d` accumulation
    /// (FMA or not, any order) give `|g − x·μ| ≤ (γ_d + 2.01u)·‖x‖‖μ‖`,
    /// i.e. at most `(d+3)u·(a + h_j)`; rounding a, h_j and w to `f32` and
    /// the three screen operations add at most `8u·(a + h_j)`; the exact
    /// kernel's own rounding (`γ_{d+2}` in `f64`) adds less than
    /// `u·(a + h_j)`. The bound used is twice the total, with `h_max` for
    /// every `h_j`, plus a term for gradual underflow (each `f32` operation
    /// on subnormals errs by at most 2⁻¹⁴⁹ absolutely).
    #[inline(always)]
    pub fn error_bound(&self, a: f64) -> f64 {
        let d = self.d as f64;
        let rel = (2.0 * d + 32.0) * U32;
        let underflow = 16.0 * (d + 4.0) * f64::from(f32::from_bits(1));
        rel * (a + self.h_max) * (1.0 + 1e-6) + underflow
    }

    /// `out[i·kp + j] = Σ_c x[i·d + c]·μ̂_j[c]` for the `rows` scaled `f32`
    /// rows of `x`. `out` must hold `rows · kp` values.
    pub fn product(&self, x: &[f32], rows: usize, out: &mut [f32]) {
        let (d, kp) = (self.d, self.kp);
        if x.len() < rows * d || out.len() < rows * kp || self.packed.len() < kp * d {
            return;
        }
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                // SAFETY: the CPU supports AVX-512F, and the sizes were checked above.
                unsafe { x86::product_avx512(self, x, rows, out) };
                return;
            }
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                // SAFETY: the CPU supports AVX2 and FMA, and the sizes were checked above.
                unsafe { x86::product_avx2(self, x, rows, out) };
                return;
            }
        }
        product_portable(self, x, rows, out);
    }
}

/// Rows of the portable micro-tile.
const PR: usize = 4;

fn product_portable(panel: &Panel, x: &[f32], rows: usize, out: &mut [f32]) {
    let (packed, d, kp) = (&panel.packed, panel.d, panel.kp);
    for (q, panel) in packed.chunks_exact(d * W).enumerate() {
        let mut i = 0;
        while i < rows {
            let r = PR.min(rows - i);
            let mut acc = [[0.0f32; W]; PR];
            for c in 0..d {
                let b = &panel[c * W..(c + 1) * W];
                for (t, a) in acc.iter_mut().enumerate().take(r) {
                    let xv = x[(i + t) * d + c];
                    for (al, bl) in a.iter_mut().zip(b) {
                        *al += xv * bl;
                    }
                }
            }
            for (t, a) in acc.iter().enumerate().take(r) {
                let o = (i + t) * kp + q * W;
                out[o..o + W].copy_from_slice(a);
            }
            i += r;
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{Panel, W};
    use std::arch::x86_64::*;

    /// One `R × (NP·16)` tile with AVX-512: `NP` panels side by side.
    #[inline(always)]
    unsafe fn tile512<const R: usize, const NP: usize>(
        panel: *const f32,
        d: usize,
        x: *const f32,
        out: *mut f32,
        kp: usize,
    ) {
        let mut acc = [[_mm512_setzero_ps(); NP]; R];
        for c in 0..d {
            let mut b = [_mm512_setzero_ps(); NP];
            for (p, bp) in b.iter_mut().enumerate() {
                *bp = _mm512_loadu_ps(panel.add(p * d * W + c * W));
            }
            for (t, at) in acc.iter_mut().enumerate() {
                let a = _mm512_set1_ps(*x.add(t * d + c));
                for (p, ap) in at.iter_mut().enumerate() {
                    *ap = _mm512_fmadd_ps(a, b[p], *ap);
                }
            }
        }
        for (t, at) in acc.iter().enumerate() {
            for (p, ap) in at.iter().enumerate() {
                _mm512_storeu_ps(out.add(t * kp + p * W), *ap);
            }
        }
    }

    #[inline(always)]
    unsafe fn rows512<const NP: usize>(
        panel: *const f32,
        d: usize,
        kp: usize,
        x: *const f32,
        rows: usize,
        out: *mut f32,
    ) {
        const R: usize = 8;
        let mut i = 0;
        while i + R <= rows {
            tile512::<R, NP>(panel, d, x.add(i * d), out.add(i * kp), kp);
            i += R;
        }
        let x = x.add(i * d);
        let out = out.add(i * kp);
        match rows - i {
            1 => tile512::<1, NP>(panel, d, x, out, kp),
            2 => tile512::<2, NP>(panel, d, x, out, kp),
            3 => tile512::<3, NP>(panel, d, x, out, kp),
            4 => tile512::<4, NP>(panel, d, x, out, kp),
            5 => tile512::<5, NP>(panel, d, x, out, kp),
            6 => tile512::<6, NP>(panel, d, x, out, kp),
            7 => tile512::<7, NP>(panel, d, x, out, kp),
            _ => {}
        }
    }

    /// Caller guarantees AVX-512F and `panel.packed.len() ≥ kp·d`,
    /// `x.len() ≥ rows·d`, `out.len() ≥ rows·kp`.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn product_avx512(panel: &Panel, x: &[f32], rows: usize, out: &mut [f32]) {
        let (d, kp, np) = (panel.d, panel.kp, panel.kp / W);
        let (pp, xp, op) = (panel.packed.as_ptr(), x.as_ptr(), out.as_mut_ptr());
        let mut q = 0;
        while q + 2 <= np {
            rows512::<2>(pp.add(q * d * W), d, kp, xp, rows, op.add(q * W));
            q += 2;
        }
        if q < np {
            rows512::<1>(pp.add(q * d * W), d, kp, xp, rows, op.add(q * W));
        }
    }

    /// One `R × 16` tile with AVX2+FMA (two 8-lane accumulators per row).
    #[inline(always)]
    unsafe fn tile256<const R: usize>(
        panel: *const f32,
        d: usize,
        x: *const f32,
        out: *mut f32,
        kp: usize,
    ) {
        let mut acc = [[_mm256_setzero_ps(); 2]; R];
        for c in 0..d {
            let b0 = _mm256_loadu_ps(panel.add(c * W));
            let b1 = _mm256_loadu_ps(panel.add(c * W + 8));
            for (t, at) in acc.iter_mut().enumerate() {
                let a = _mm256_set1_ps(*x.add(t * d + c));
                at[0] = _mm256_fmadd_ps(a, b0, at[0]);
                at[1] = _mm256_fmadd_ps(a, b1, at[1]);
            }
        }
        for (t, at) in acc.iter().enumerate() {
            _mm256_storeu_ps(out.add(t * kp), at[0]);
            _mm256_storeu_ps(out.add(t * kp + 8), at[1]);
        }
    }

    /// Caller guarantees AVX2+FMA and the same sizes as [`product_avx512`].
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn product_avx2(panel: &Panel, x: &[f32], rows: usize, out: &mut [f32]) {
        const R: usize = 6;
        let (d, kp, np) = (panel.d, panel.kp, panel.kp / W);
        let (pp, xp, op) = (panel.packed.as_ptr(), x.as_ptr(), out.as_mut_ptr());
        for q in 0..np {
            let panel = pp.add(q * d * W);
            let o = op.add(q * W);
            let mut i = 0;
            while i + R <= rows {
                tile256::<R>(panel, d, xp.add(i * d), o.add(i * kp), kp);
                i += R;
            }
            let (x, o) = (xp.add(i * d), o.add(i * kp));
            match rows - i {
                1 => tile256::<1>(panel, d, x, o, kp),
                2 => tile256::<2>(panel, d, x, o, kp),
                3 => tile256::<3>(panel, d, x, o, kp),
                4 => tile256::<4>(panel, d, x, o, kp),
                5 => tile256::<5>(panel, d, x, o, kp),
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn product_matches_naive_on_every_path() {
        let (k, d, rows) = (37, 13, 23);
        let cent: Vec<f64> = (0..k * d)
            .map(|i| ((i * 37 % 101) as f64 - 50.0) / 7.0)
            .collect();
        let x64: Vec<f64> = (0..rows * d)
            .map(|i| ((i * 53 % 97) as f64 - 48.0) / 5.0)
            .collect();
        let max_abs = x64.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let mut panel = Panel::default();
        panel.pack(&cent, k, d, max_abs);
        assert!(panel.usable);
        let x: Vec<f32> = x64.iter().map(|v| (v * panel.scale) as f32).collect();
        let mut out = vec![0.0f32; rows * panel.kp];
        let mut out_p = out.clone();
        panel.product(&x, rows, &mut out);
        product_portable(&panel, &x, rows, &mut out_p);
        let half = panel.half_scale2();
        for i in 0..rows {
            let xi = &x64[i * d..(i + 1) * d];
            let xx: f64 = xi.iter().map(|v| v * v).sum();
            let a = xx * half;
            let e = panel.error_bound(a);
            for j in 0..k {
                let mu = &cent[j * d..(j + 1) * d];
                let exact = crate::data::sq_dist(xi, mu) * half;
                for o in [&out, &out_p] {
                    let approx = (a as f32 + panel.h[j]) - o[i * panel.kp + j];
                    let approx = f64::from(approx);
                    assert!(
                        (approx - exact).abs() <= e,
                        "{approx} vs {exact} (bound {e})"
                    );
                }
            }
        }
    }
}
