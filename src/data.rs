//! Read-only access to the input matrix, the float types we accept, and the
//! distance kernel every method shares.

use crate::error::{Error, Result};
use crate::init::Engine;
use ndarray::{ArrayView1, ArrayView2, CowArray, Ix2};
use std::borrow::Cow;
use std::sync::OnceLock;

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// The input element types: `f32` and `f64`. All accumulation is in `f64`
/// whatever the input type, so `f32` data loses nothing but input precision.
///
/// ```
/// use ndarray::array;
/// use smartigan::{fit, Params};
/// let x = array![[0.0f32, 0.0], [0.1, 0.0], [5.0, 5.0], [5.0, 5.1]];
/// let r = fit(x.view(), Params::new(2).seed(0)).unwrap();
/// let centroids: ndarray::Array2<f32> = r.centroids; // same type as the input
/// assert_eq!(centroids.dim(), (2, 2));
/// ```
pub trait Scalar: sealed::Sealed + Copy + Send + Sync + std::fmt::Debug + 'static {
    /// Widens to `f64` (exact for both types).
    fn to_f64(self) -> f64;
    /// Rounds an `f64` to this type (used for the returned centroids).
    fn from_f64(v: f64) -> Self;
}

impl Scalar for f32 {
    #[inline(always)]
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    #[inline(always)]
    fn from_f64(v: f64) -> Self {
        v as f32
    }
}

impl Scalar for f64 {
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline(always)]
    fn from_f64(v: f64) -> Self {
        v
    }
}

/// Rejects NaN and ±inf, naming the first offending entry.
pub(crate) fn check_finite<T: Scalar>(name: &'static str, x: ArrayView2<'_, T>) -> Result<()> {
    for ((row, col), v) in x.indexed_iter() {
        let v = v.to_f64();
        if !v.is_finite() {
            return Err(Error::NonFinite {
                name,
                row,
                col,
                value: v,
            });
        }
    }
    Ok(())
}

/// Validates `sample_weight`: one finite, non-negative weight per row, and
/// at least `k` positive ones (a cluster needs positive weight for a mean).
/// Validated weights as a contiguous slice (borrowed when possible).
pub(crate) fn checked_weights(
    w: Option<ArrayView1<'_, f64>>,
    n: usize,
    k: usize,
) -> Result<Option<Cow<'_, [f64]>>> {
    let Some(w) = w else { return Ok(None) };
    check_weights(w, n, k)?;
    Ok(Some(match w.to_slice() {
        Some(s) => Cow::Borrowed(s),
        None => Cow::Owned(w.to_vec()),
    }))
}

fn check_weights(w: ArrayView1<'_, f64>, n: usize, k: usize) -> Result<()> {
    if w.len() != n {
        return Err(Error::Shape {
            name: "sample_weight",
            expected: format!("({n},), one weight per row of x"),
            got: format!("({},)", w.len()),
        });
    }
    if let Some((i, v)) = w
        .iter()
        .enumerate()
        .find(|(_, v)| !v.is_finite() || **v < 0.0)
    {
        return Err(Error::invalid(
            "sample_weight",
            format!("{v} at index {i}"),
            "weights must be finite and non-negative",
        ));
    }
    let positive = w.iter().filter(|v| **v > 0.0).count();
    if positive < k {
        return Err(Error::invalid(
            "sample_weight",
            format!("{positive} positive weights"),
            format!("need at least k={k} points with positive weight"),
        ));
    }
    Ok(())
}

/// The input matrix as contiguous rows plus a shift.
///
/// Rows are read straight from the caller's memory when the view is in
/// standard (C) layout; any other layout is copied once. The shift is the
/// column mean: all internal sums and centroids live in shifted coordinates,
/// so data like `1e8 + noise` does not lose its noise to cancellation when
/// thousands of points are summed into a centroid.
///
/// Optional sample weights: every formula multiplies by `weight(i)`, which
/// is exactly 1.0 without weights, so unweighted results are bit-for-bit
/// those of the unweighted formulas.
pub(crate) struct Data<'a, T: Scalar> {
    x: CowArray<'a, T, Ix2>,
    pub n: usize,
    pub d: usize,
    pub shift: Vec<f64>,
    weights: Option<Cow<'a, [f64]>>,
    /// `max |x − shift|` over all entries, computed on first use.
    max_abs: OnceLock<f64>,
    /// `max ‖x_i − shift‖²` over all rows, computed on first use.
    max_sq_norm: OnceLock<f64>,
    /// Accelerated or reference implementation (identical results).
    pub engine: Engine,
    /// Whether a restart may use spare threads inside a sweep.
    pub parallel: bool,
}

impl<'a, T: Scalar> Data<'a, T> {
    /// Wraps a view with a freshly computed shift.
    pub fn new(x: ArrayView2<'a, T>, weights: Option<Cow<'a, [f64]>>) -> Self {
        let (n, d) = x.dim();
        let x = CowArray::from(x).into_owned_if_not_standard();
        let mut shift = vec![0.0; d];
        let mut data = Data {
            x,
            n,
            d,
            shift: Vec::new(),
            weights,
            max_abs: OnceLock::new(),
            max_sq_norm: OnceLock::new(),
            engine: Engine::Fast,
            parallel: false,
        };
        for i in 0..n {
            for (s, v) in shift.iter_mut().zip(data.row(i)) {
                *s += v.to_f64();
            }
        }
        for s in &mut shift {
            *s /= n.max(1) as f64;
        }
        data.shift = shift;
        data
    }

    /// Wraps a view with a given shift (used when a run is resumed step by step).
    pub fn with_shift(
        x: ArrayView2<'a, T>,
        weights: Option<Cow<'a, [f64]>>,
        shift: Vec<f64>,
    ) -> Self {
        let (n, d) = x.dim();
        let x = CowArray::from(x).into_owned_if_not_standard();
        Data {
            x,
            n,
            d,
            shift,
            weights,
            max_abs: OnceLock::new(),
            max_sq_norm: OnceLock::new(),
            engine: Engine::Fast,
            parallel: false,
        }
    }

    /// Weight of point `i` (1.0 without sample weights).
    #[inline(always)]
    pub fn weight(&self, i: usize) -> f64 {
        self.weights.as_deref().map_or(1.0, |w| w[i])
    }

    /// Whether sample weights were given.
    #[inline(always)]
    pub fn is_weighted(&self) -> bool {
        self.weights.is_some()
    }

    /// Rejects data so spread out that squared distances overflow `f64`.
    ///
    /// With `R²` the largest squared distance of a row to the column means,
    /// no squared distance between two rows or a row and a centroid (a mean
    /// of rows) exceeds `4R²`, so no objective, potential or sum of
    /// distances the engine forms exceeds `4·n·R²`: when that is finite,
    /// nothing overflows. Beyond it the objective would be `inf` and every
    /// comparison meaningless, so the caller gets an error instead.
    pub fn check_range(&self) -> Result<()> {
        check_spread(self.max_sq_norm_shifted(), self.n, "the column means")
    }

    /// `R²`: the largest squared distance of a row to the column means (the
    /// shift), computed once.
    pub fn max_sq_norm_shifted(&self) -> f64 {
        *self.max_sq_norm.get_or_init(|| {
            let mut buf = vec![0.0; self.d];
            let mut r2 = 0.0f64;
            for i in 0..self.n {
                self.load_shifted(i, &mut buf);
                r2 = r2.max(buf.iter().map(|v| v * v).sum::<f64>());
            }
            r2
        })
    }

    /// [`Data::with_shift`] with a known [`Data::max_abs_shifted`] (a hint
    /// only: the screens check every row they use against their scale).
    pub fn with_shift_and_max(
        x: ArrayView2<'a, T>,
        weights: Option<Cow<'a, [f64]>>,
        shift: Vec<f64>,
        max_abs: f64,
    ) -> Self {
        let data = Self::with_shift(x, weights, shift);
        let _ = data.max_abs.set(max_abs);
        data
    }

    /// The largest absolute shifted entry (what the `f32` screen scales by).
    pub fn max_abs_shifted(&self) -> f64 {
        *self.max_abs.get_or_init(|| {
            let mut m: f64 = 0.0;
            for i in 0..self.n {
                for (v, s) in self.row(i).iter().zip(&self.shift) {
                    m = m.max((v.to_f64() - s).abs());
                }
            }
            m
        })
    }

    /// Row `i` in the input type.
    #[inline(always)]
    pub fn row(&self, i: usize) -> &[T] {
        let flat = self.x.as_slice().unwrap_or(&[]);
        &flat[i * self.d..(i + 1) * self.d]
    }

    /// Hints the CPU to start loading row `i` into cache.
    #[inline(always)]
    pub fn prefetch(&self, i: usize) {
        prefetch(self.row(i));
    }

    /// Row `i`, widened to `f64` and shifted, written into `buf`.
    #[inline(always)]
    pub fn load_shifted(&self, i: usize, buf: &mut [f64]) {
        for ((b, v), s) in buf.iter_mut().zip(self.row(i)).zip(&self.shift) {
            *b = v.to_f64() - s;
        }
    }
}

trait IntoStandard {
    fn into_owned_if_not_standard(self) -> Self;
}

impl<T: Scalar> IntoStandard for CowArray<'_, T, Ix2> {
    fn into_owned_if_not_standard(self) -> Self {
        if self.is_standard_layout() {
            self
        } else {
            CowArray::from(self.as_standard_layout().into_owned())
        }
    }
}

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
/// `d` (at d = 256, W3, a chain of 64 dependent additions; sixteen make it
/// 16, and Smartigan's schedule sweeps there 6 % faster). At d = 32 (W2)
/// sixteen were slower (default fit 2.14 -> 2.29 s): more instructions for
/// a chain that was short anyway. Below it, results keep the bits of the
/// four-accumulator order.
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
/// the `γ` of [`crate::bounds::rounding_gamma`] and of the k-means++
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

/// The overflow guard of [`Data::check_range`], shared with sparse input:
/// `r2` is the largest squared distance of a row from `centre`.
pub(crate) fn check_spread(r2: f64, n: usize, centre: &str) -> Result<()> {
    if (4.0 * r2 * n as f64).is_finite() {
        return Ok(());
    }
    Err(Error::invalid(
        "x",
        format!("a row at squared distance {r2:e} from {centre}"),
        format!(
            "too spread out: 4 * n_samples * that must stay below {:e} so that \
             squared distances do not overflow float64; rescale x",
            f64::MAX
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

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

    #[test]
    fn fortran_layout_is_read_correctly() {
        let x = array![[1.0f64, 2.0], [3.0, 4.0], [5.0, 6.0]];
        let f = x.t().as_standard_layout().into_owned();
        let ft = f.t();
        let data = Data::new(ft, None);
        assert_eq!(data.row(1), &[3.0, 4.0]);
        assert_eq!(data.shift, vec![3.0, 4.0]);
    }
}
