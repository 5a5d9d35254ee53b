//! The input: the float types we accept, their validation, and read-only
//! access to the rows in shifted coordinates ([`Data`]); the distance
//! kernel every method shares is in [`distance`], exact power-of-two
//! scaling (of extreme weights, of distances that overflow) in [`scale`].

mod direction;
mod distance;
mod scale;

pub(crate) use direction::{direction_of_sum, scaled_entry, unit_scaling};
pub(crate) use distance::{prefetch, sq_dist, sq_dist_shifted, WIDE_FROM};
pub(crate) use scale::{
    exponent_above, exponent_of, pow2, scaled_weights, times_pow2, unit_weight_exponent,
    weight_exponent,
};

use crate::error::{Error, Result};
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
/// use smartigan::Params;
/// let x = array![[0.0f32, 0.0], [0.1, 0.0], [5.0, 5.0], [5.0, 5.1]];
/// let r = Params::new(2).seed(0).check().unwrap().fit(&x).unwrap();
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
    // Contiguous data (the usual case) are checked a block at a time
    // without early exit, which vectorises; only a block holding a
    // non-finite entry sends the search to the indexed walk below, which
    // names the first one.
    if let Some(all) = x.as_slice_memory_order() {
        let finite = |block: &[T]| block.iter().fold(true, |ok, v| ok & v.to_f64().is_finite());
        if all.chunks(4096).all(finite) {
            return Ok(());
        }
    }
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
        }
    }

    /// Rows `rows`, in that order, as data of their own with their weights
    /// and this data's shift: a row or centroid gathered from either is
    /// the same `f64`s.
    pub fn subset(&self, rows: &[usize]) -> Data<'static, T> {
        let x = ndarray::Array2::from_shape_fn((rows.len(), self.d), |(t, c)| self.x[[rows[t], c]]);
        let weights = self
            .weights
            .as_deref()
            .map(|w| Cow::Owned(rows.iter().map(|&i| w[i]).collect()));
        Data {
            x: CowArray::from(x),
            n: rows.len(),
            d: self.d,
            shift: self.shift.clone(),
            weights,
            max_abs: OnceLock::new(),
            max_sq_norm: OnceLock::new(),
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

    /// Scales the sample weights by `2^e`, with `e` from
    /// [`weight_exponent`] for this data (0, and nothing done, for all but
    /// extreme weights); returns `e`. Results computed with the scaled
    /// weights are the caller's with every weighted quantity times `2^e`.
    pub fn scale_weights(&mut self) -> Result<i32> {
        let Some(w) = self.weights.as_deref() else {
            return Ok(0);
        };
        let e = weight_exponent(w, self.max_sq_norm_shifted(), false)?;
        if e != 0 {
            let scaled = scaled_weights(w, e);
            self.weights = Some(Cow::Owned(scaled));
        }
        Ok(e)
    }

    /// The sample weights as used (after [`Data::scale_weights`]).
    pub fn weights(&self) -> Option<&[f64]> {
        self.weights.as_deref()
    }

    /// `R²`: the largest squared distance of a row to the column means (the
    /// shift), computed once.
    pub fn max_sq_norm_shifted(&self) -> f64 {
        if let Some(&r2) = self.max_sq_norm.get() {
            return r2;
        }
        self.scan_extents();
        self.max_sq_norm.get().copied().unwrap_or(0.0)
    }

    /// Sets [`Data::max_abs_shifted`] and [`Data::max_sq_norm_shifted`]
    /// (those not set yet: a given `max_abs` stays) in one pass over the
    /// rows. Each row's sum of squares is taken in coordinate order, as
    /// [`Data::load_shifted`] then a plain sum would, so `R²` has those
    /// bits; four rows are summed side by side so that their addition
    /// chains overlap. The maxima are over finite values, so lanes of
    /// running maxima, merged at the end, give the sequential maximum (a
    /// last group of fewer than four rows leaves earlier rows in the spare
    /// slots: their values were already counted, and their sums are not
    /// read).
    fn scan_extents(&self) {
        const ROWS: usize = 4;
        let d = self.d;
        let mut buf = vec![0.0; ROWS * d];
        let (mut r2, mut abs) = (0.0f64, [0.0f64; ROWS]);
        let mut first = 0;
        while first < self.n {
            let rows = (self.n - first).min(ROWS);
            for (r, row) in buf.chunks_exact_mut(d.max(1)).take(rows).enumerate() {
                self.load_shifted(first + r, &mut row[..d]);
            }
            let mut sums = [0.0f64; ROWS];
            for j in 0..d {
                for (r, (s, m)) in sums.iter_mut().zip(&mut abs).enumerate() {
                    let v = buf[r * d + j];
                    *s += v * v;
                    let a = v.abs();
                    *m = if a > *m { a } else { *m };
                }
            }
            for &s in &sums[..rows] {
                r2 = if s > r2 { s } else { r2 };
            }
            first += rows;
        }
        let abs = abs.iter().fold(0.0f64, |m, &a| if a > m { a } else { m });
        let _ = self.max_abs.set(abs);
        let _ = self.max_sq_norm.set(r2);
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
        if let Some(&m) = self.max_abs.get() {
            return m;
        }
        self.scan_extents();
        self.max_abs.get().copied().unwrap_or(0.0)
    }

    /// Row `i` in the input type.
    #[inline(always)]
    pub fn row(&self, i: usize) -> &[T] {
        self.rows(i..i + 1)
    }

    /// Rows `range`, one after another (row-major, `d` values each).
    #[inline(always)]
    pub fn rows(&self, range: std::ops::Range<usize>) -> &[T] {
        let flat = self.x.as_slice().unwrap_or(&[]);
        &flat[range.start * self.d..range.end * self.d]
    }

    /// Hints the CPU to start loading row `i` into cache.
    #[inline(always)]
    pub fn prefetch(&self, i: usize) {
        prefetch(self.row(i));
    }

    /// The rows `idx`, shifted, one after another.
    pub fn gather_shifted(&self, idx: &[usize]) -> Vec<f64> {
        let mut out = vec![0.0; idx.len() * self.d];
        for (chunk, &i) in out.chunks_exact_mut(self.d).zip(idx) {
            self.load_shifted(i, chunk);
        }
        out
    }

    /// Row `i`, widened to `f64` and shifted, written into `buf`.
    #[inline(always)]
    pub fn load_shifted(&self, i: usize, buf: &mut [f64]) {
        for ((b, v), s) in buf.iter_mut().zip(self.row(i)).zip(&self.shift) {
            *b = v.to_f64() - s;
        }
    }

    /// Row `i` shifted as [`Data::load_shifted`] gives it, each entry then
    /// rounded to the nearest `f32` (for screens whose bounds allow for
    /// that rounding).
    #[inline(always)]
    pub fn load_shifted_f32(&self, i: usize, buf: &mut [f32]) {
        for ((b, v), s) in buf.iter_mut().zip(self.row(i)).zip(&self.shift) {
            *b = (v.to_f64() - s) as f32;
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

    #[test]
    fn fortran_layout_is_read_correctly() {
        let x = array![[1.0f64, 2.0], [3.0, 4.0], [5.0, 6.0]];
        let f = x.t().as_standard_layout().into_owned();
        let ft = f.t();
        let data = Data::new(ft, None);
        assert_eq!(data.row(1), &[3.0, 4.0]);
        assert_eq!(data.shift, vec![3.0, 4.0]);
    }

    /// The one-pass extents have the bits of the row-by-row definitions
    /// (each row's sum of squares in coordinate order, the largest of them;
    /// the largest absolute entry), for row counts around the four rows
    /// summed together, and a given `max_abs` is kept.
    #[test]
    fn extents_equal_their_definitions() {
        let mut rng = crate::rng::Xoshiro256PlusPlus::seed_from_u64(12);
        for (n, d) in [(1, 1), (3, 5), (4, 7), (9, 16), (22, 33), (7, 0)] {
            let x = ndarray::Array2::from_shape_fn((n, d), |(i, j)| {
                (rng.unit_f64() - 0.3) * 10f64.powi((i * 7 + j) as i32 % 9 - 4)
            });
            let data = Data::new(x.view(), None);
            let mut buf = vec![0.0; d];
            let (mut r2, mut abs) = (0.0f64, 0.0f64);
            for i in 0..n {
                data.load_shifted(i, &mut buf);
                r2 = r2.max(buf.iter().map(|v| v * v).sum::<f64>());
                abs = buf.iter().fold(abs, |m, v| m.max(v.abs()));
            }
            assert_eq!(
                data.max_sq_norm_shifted().to_bits(),
                r2.to_bits(),
                "{n} × {d}"
            );
            assert_eq!(data.max_abs_shifted().to_bits(), abs.to_bits(), "{n} × {d}");
            let hinted = Data::with_shift_and_max(x.view(), None, data.shift.clone(), 1e9);
            assert_eq!(hinted.max_sq_norm_shifted().to_bits(), r2.to_bits());
            assert_eq!(hinted.max_abs_shifted(), 1e9);
        }
    }

    /// A non-finite entry is named by its position, in any layout.
    #[test]
    fn non_finite_entries_are_named() {
        let mut x = ndarray::Array2::<f32>::zeros((5000, 3));
        assert!(check_finite("x", x.view()).is_ok());
        x[[4321, 2]] = f32::NAN;
        x[[4500, 0]] = f32::INFINITY;
        for view in [
            x.view(),
            x.t()
                .as_standard_layout()
                .into_owned()
                .reversed_axes()
                .view(),
        ] {
            let got = check_finite("x", view).err();
            assert!(
                matches!(
                    got,
                    Some(Error::NonFinite {
                        row: 4321,
                        col: 2,
                        ..
                    })
                ),
                "{got:?}"
            );
        }
    }
}
