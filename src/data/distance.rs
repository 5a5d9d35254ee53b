//! Squared Euclidean distances in one fixed summation order, so that every
//! kernel that must reproduce a decision can reproduce its bits.

use super::Scalar;

/// [`sq_dist`] between `row − shift` (widened to `f64`, as
/// [`Data::load_shifted`] gives it) and `b`, without copying the row: the
/// same operations in the same order, so the same bits.
#[inline(always)]
pub(crate) fn sq_dist_shifted<T: Scalar>(row: &[T], shift: &[f64], b: &[f64]) -> f64 {
    if b.len() >= WIDE_FROM {
        return sum_of_squares_wide(b.len(), |c, out| {
            let at = c..c + out.len();
            for (o, ((x, s), y)) in out
                .iter_mut()
                .zip(row[at.clone()].iter().zip(&shift[at.clone()]).zip(&b[at]))
            {
                *o = (x.to_f64() - s) - y;
            }
        });
    }
    let mut acc = [0.0f64; 4];
    let (cr, cs, cb) = (
        row.chunks_exact(4),
        shift.chunks_exact(4),
        b.chunks_exact(4),
    );
    let (rr, rs, rb) = (cr.remainder(), cs.remainder(), cb.remainder());
    for ((x, s), y) in cr.zip(cs).zip(cb) {
        for l in 0..4 {
            let t = (x[l].to_f64() - s[l]) - y[l];
            acc[l] += t * t;
        }
    }
    let mut total = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for ((x, s), y) in rr.iter().zip(rs).zip(rb) {
        let t = (x.to_f64() - s) - y;
        total += t * t;
    }
    total
}

/// Hints the CPU to start loading every cache line of `items` (no effect on
/// results; a no-op off x86-64).
#[inline(always)]
pub(crate) fn prefetch<E>(items: &[E]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let bytes = std::mem::size_of_val(items);
        let base = items.as_ptr().cast::<i8>();
        let mut off = 0;
        while off < bytes {
            // SAFETY: `base + off` lies inside `items`; prefetching never
            // faults and reads nothing observable.
            #[allow(unused_unsafe)]
            unsafe {
                _mm_prefetch::<_MM_HINT_T0>(base.add(off))
            };
            off += 64;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = items;
}

/// Squared Euclidean distance in a fixed summation order, so that results
/// are reproducible across platforms and vector widths. Below
/// [`WIDE_FROM`] features: four accumulators over the full chunks of four
/// coordinates (accumulator `l` takes coordinates `4g + l`, in order),
/// summed pairwise, then the last `d mod 4` terms in order. From
/// [`WIDE_FROM`] on, the sixteen accumulators of [`sum_of_squares_wide`].
#[inline(always)]
pub(crate) fn sq_dist(a: &[f64], b: &[f64]) -> f64 {
    if b.len() >= WIDE_FROM {
        return sum_of_squares_wide(b.len(), |c, out| {
            let at = c..c + out.len();
            for (o, (x, y)) in out.iter_mut().zip(a[at.clone()].iter().zip(&b[at])) {
                *o = x - y;
            }
        });
    }
    let mut acc = [0.0f64; 4];
    let ca = a.chunks_exact(4);
    let cb = b.chunks_exact(4);
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for l in 0..4 {
            let t = x[l] - y[l];
            acc[l] += t * t;
        }
    }
    let mut s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for (x, y) in ra.iter().zip(rb) {
        let t = x - y;
        s += t * t;
    }
    s
}

/// Features from which squared distances are summed with sixteen
/// accumulators instead of four. With four, every fourth coordinate's
/// addition waits for the previous one, which bounds exact costs at high
/// `d` (at d = 256 a chain of 64 dependent additions; sixteen make it 16).
/// At small `d` sixteen were slower: more instructions for a chain that was
/// short anyway. Below it, results keep the bits of the four-accumulator
/// order.
pub(crate) const WIDE_FROM: usize = 64;

/// `Σ t_c²` over the `d ≥` [`WIDE_FROM`] differences that `diff(c, out)`
/// writes for the coordinates `c..c + out.len()`, in one fixed order:
/// sixteen accumulators over the full chunks of sixteen coordinates
/// (accumulator `l` takes coordinates `16g + l`, in order), the remaining
/// groups of four into accumulators 0–3, the sixteen folded in halves
/// (`l += l + 8`, then `l += l + 4`), the last four summed pairwise, then
/// the last `d mod 4` terms in order. Every term is rounded three times
/// (difference, square, sum) and goes through at most `d/16 + 10 ≤ d + 3`
/// additions in sequence, as in the four-accumulator order (`d/4 + 4`):
/// the `γ` of [`crate::dense::accel::bounds::rounding_gamma`] and of the k-means++
/// pruning covers both.
#[inline(always)]
pub(crate) fn sum_of_squares_wide(d: usize, mut diff: impl FnMut(usize, &mut [f64])) -> f64 {
    let mut acc = [0.0f64; 16];
    let mut t = [0.0f64; 16];
    let (full, quads) = (d / 16 * 16, d / 4 * 4);
    let mut c = 0;
    while c < full {
        diff(c, &mut t);
        for l in 0..16 {
            acc[l] += t[l] * t[l];
        }
        c += 16;
    }
    while c < quads {
        diff(c, &mut t[..4]);
        for l in 0..4 {
            acc[l] += t[l] * t[l];
        }
        c += 4;
    }
    for l in 0..8 {
        acc[l] += acc[l + 8];
    }
    for l in 0..4 {
        acc[l] += acc[l + 4];
    }
    let mut s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    let rest = &mut t[..d - quads];
    diff(c, rest);
    for v in rest.iter() {
        s += v * v;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Data;

    /// The copy-free distance gives `sq_dist` of the shifted row bit for bit,
    /// for both input types and every remainder of the four lanes.
    #[test]
    fn shifted_distance_equals_distance_of_the_shifted_row() {
        let mut rng = crate::rng::Xoshiro256PlusPlus::seed_from_u64(4);
        for d in (1..=20).chain([31, 32, 33, 63, 64, 65, 68, 259]) {
            let x = ndarray::Array2::from_shape_fn((5, d), |_| 1e3 + 7.0 * rng.unit_f64());
            let x32 = x.mapv(|v| v as f32);
            let b: Vec<f64> = (0..d).map(|_| rng.unit_f64() - 0.5).collect();
            let (data, data32) = (Data::new(x.view(), None), Data::new(x32.view(), None));
            let mut buf = vec![0.0; d];
            for i in 0..5 {
                data.load_shifted(i, &mut buf);
                let want = sq_dist(&buf, &b).to_bits();
                assert_eq!(
                    sq_dist_shifted(data.row(i), &data.shift, &b).to_bits(),
                    want
                );
                data32.load_shifted(i, &mut buf);
                let want = sq_dist(&buf, &b).to_bits();
                assert_eq!(
                    sq_dist_shifted(data32.row(i), &data32.shift, &b).to_bits(),
                    want
                );
            }
        }
    }

    /// Below `WIDE_FROM` features the fixed order is that of four
    /// accumulators over groups of four (lanes summed pairwise, then the
    /// tail), written out plainly.
    #[test]
    fn narrow_distances_in_the_documented_order() {
        let mut rng = crate::rng::Xoshiro256PlusPlus::seed_from_u64(9);
        for d in 1..WIDE_FROM {
            let a: Vec<f64> = (0..d).map(|_| 10.0 * rng.unit_f64() - 5.0).collect();
            let b: Vec<f64> = (0..d).map(|_| 3.0 * rng.unit_f64()).collect();
            let mut acc = [0.0f64; 4];
            for c in 0..d / 4 * 4 {
                acc[c % 4] += (a[c] - b[c]) * (a[c] - b[c]);
            }
            let mut want = (acc[0] + acc[1]) + (acc[2] + acc[3]);
            for c in d / 4 * 4..d {
                want += (a[c] - b[c]) * (a[c] - b[c]);
            }
            assert_eq!(sq_dist(&a, &b).to_bits(), want.to_bits(), "d = {d}");
        }
    }

    /// From `WIDE_FROM` features on, the documented order written out
    /// plainly.
    #[test]
    fn wide_distances_in_the_documented_order() {
        let mut rng = crate::rng::Xoshiro256PlusPlus::seed_from_u64(10);
        for d in [WIDE_FROM, WIDE_FROM + 1, WIDE_FROM + 4, 71, 128, 256, 259] {
            let a: Vec<f64> = (0..d).map(|_| 10.0 * rng.unit_f64() - 5.0).collect();
            let b: Vec<f64> = (0..d).map(|_| 3.0 * rng.unit_f64()).collect();
            let sq = |c: usize| (a[c] - b[c]) * (a[c] - b[c]);
            let mut acc = [0.0f64; 16];
            for c in 0..d / 16 * 16 {
                acc[c % 16] += sq(c);
            }
            for c in d / 16 * 16..d / 4 * 4 {
                acc[c % 4] += sq(c);
            }
            let half: Vec<f64> = (0..8).map(|l| acc[l] + acc[l + 8]).collect();
            let quarter: Vec<f64> = (0..4).map(|l| half[l] + half[l + 4]).collect();
            let mut want = (quarter[0] + quarter[1]) + (quarter[2] + quarter[3]);
            for c in d / 4 * 4..d {
                want += sq(c);
            }
            assert_eq!(sq_dist(&a, &b).to_bits(), want.to_bits(), "d = {d}");
        }
    }

    #[test]
    fn sq_dist_matches_naive() {
        let a: Vec<f64> = (0..11).map(|i| i as f64 * 0.5).collect();
        let b: Vec<f64> = (0..11).map(|i| (i * i) as f64 * 0.1).collect();
        let naive: f64 = a.iter().zip(&b).map(|(x, y)| (x - y) * (x - y)).sum();
        assert!((sq_dist(&a, &b) - naive).abs() <= 1e-12 * naive);
    }
}
