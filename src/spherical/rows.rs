//! Rows scaled to unit length, dense ([`UnitDense`]) or sparse
//! ([`UnitSparse`]), behind one trait ([`UnitRows`]), and the checks that
//! make them ([`checked_spherical`]).

use crate::data::{
    check_finite, checked_weights, scaled_entry, scaled_weights, sq_dist, unit_scaling,
    unit_weight_exponent, Scalar,
};
use crate::engine::rounds::decides_in_rounds;
use crate::error::{Error, Result};
use crate::params::ValidParams;
use crate::rows::Rows;
use crate::sparse::CsrView;
use ndarray::ArrayView2;
use std::borrow::Cow;

/// Unit rows as the spherical engine reads them.
pub(crate) trait UnitRows: Sync {
    /// Number of rows.
    fn n(&self) -> usize;
    /// Number of features.
    fn d(&self) -> usize;
    /// `‖u_i − c‖²` for a dense `c` of squared norm `c_norm2`, in a fixed
    /// order (the same bits whichever kernel asks).
    fn sq_dist(&self, i: usize, c: &[f64], c_norm2: f64) -> f64;
    /// `sum += w·u_i`.
    fn add_to(&self, i: usize, w: f64, sum: &mut [f64]);
    /// Row `i` written densely into `out` (`d` long, overwritten).
    fn write_dense(&self, i: usize, out: &mut [f64]);
    /// The rows as dense rows, where they are stored so (the screened
    /// kernels read them).
    fn dense(&self) -> Option<&UnitDense> {
        None
    }
}

/// Dense rows scaled to unit length: an owned `n × d` copy in `f64`.
pub(crate) struct UnitDense {
    rows: Vec<f64>,
    n: usize,
    d: usize,
    /// The largest absolute entry (the `f32` screen's scale).
    max_abs: f64,
}

impl UnitRows for UnitDense {
    fn n(&self) -> usize {
        self.n
    }
    fn d(&self) -> usize {
        self.d
    }
    #[inline(always)]
    fn sq_dist(&self, i: usize, c: &[f64], _c_norm2: f64) -> f64 {
        sq_dist(self.row(i), c)
    }
    #[inline(always)]
    fn add_to(&self, i: usize, w: f64, sum: &mut [f64]) {
        for (s, v) in sum.iter_mut().zip(self.row(i)) {
            *s += w * v;
        }
    }
    fn write_dense(&self, i: usize, out: &mut [f64]) {
        out.copy_from_slice(self.row(i));
    }
    fn dense(&self) -> Option<&UnitDense> {
        Some(self)
    }
}

impl UnitDense {
    /// Row `i`.
    #[inline(always)]
    pub(crate) fn row(&self, i: usize) -> &[f64] {
        &self.rows[i * self.d..(i + 1) * self.d]
    }

    /// The largest absolute entry of any row.
    pub(crate) fn max_abs(&self) -> f64 {
        self.max_abs
    }

    /// The rows as an `n × d` array (always `Some`: `n·d` entries are
    /// stored).
    pub(crate) fn view(&self) -> Option<ArrayView2<'_, f64>> {
        ArrayView2::from_shape((self.n, self.d), &self.rows).ok()
    }
}

/// Sparse rows scaled to unit length: the structure borrowed, the values an
/// owned copy in `f64`.
pub(crate) struct UnitSparse<'a> {
    n_cols: usize,
    indptr: &'a [usize],
    indices: &'a [usize],
    values: Vec<f64>,
}

impl UnitSparse<'_> {
    /// Row `i`: its columns and unit values.
    #[inline(always)]
    pub(crate) fn row(&self, i: usize) -> (&[usize], &[f64]) {
        let (a, b) = (self.indptr[i], self.indptr[i + 1]);
        (&self.indices[a..b], &self.values[a..b])
    }
}

impl UnitRows for UnitSparse<'_> {
    fn n(&self) -> usize {
        self.indptr.len() - 1
    }
    fn d(&self) -> usize {
        self.n_cols
    }
    /// `‖u − c‖² = Σ_{nonzeros} ((u_c − c_c)² − c_c²) + ‖c‖²`: the
    /// zero columns contribute `c_c²` each, which `‖c‖²` holds.
    #[inline(always)]
    fn sq_dist(&self, i: usize, c: &[f64], c_norm2: f64) -> f64 {
        let (cols, vals) = self.row(i);
        let mut inner = 0.0;
        for (&col, &v) in cols.iter().zip(vals) {
            let t = v - c[col];
            inner += t * t - c[col] * c[col];
        }
        (inner + c_norm2).max(0.0)
    }
    #[inline(always)]
    fn add_to(&self, i: usize, w: f64, sum: &mut [f64]) {
        let (cols, vals) = self.row(i);
        for (&col, &v) in cols.iter().zip(vals) {
            sum[col] += w * v;
        }
    }
    fn write_dense(&self, i: usize, out: &mut [f64]) {
        out.iter_mut().for_each(|v| *v = 0.0);
        let (cols, vals) = self.row(i);
        for (&col, &v) in cols.iter().zip(vals) {
            out[col] = v;
        }
    }
}

/// Unit rows with their weights: the spherical representation
/// ([`crate::spherical`]), generic over dense and sparse rows.
pub(crate) struct Spherical<'a, U, T> {
    pub(crate) rows: U,
    weights: Option<Cow<'a, [f64]>>,
    /// Whether sweeps run in rounds (the problem's size alone decides:
    /// [`crate::engine::rounds::decides_in_rounds`]).
    pub(crate) rounds: bool,
    _input: std::marker::PhantomData<T>,
}

impl<U: UnitRows, T> Spherical<'_, U, T> {
    /// The weight of row `i` (1 without weights).
    #[inline(always)]
    pub(crate) fn weight(&self, i: usize) -> f64 {
        self.weights.as_deref().map_or(1.0, |w| w[i])
    }
    /// The weights as given, if any.
    pub(crate) fn weights(&self) -> Option<&[f64]> {
        self.weights.as_deref()
    }
}

/// The zero row at `row`, refused: it has no direction.
fn zero_row(row: usize) -> Error {
    Error::invalid(
        "x",
        format!("a row of length zero at row {row}"),
        "metric='cosine' needs every row to have a positive length (drop or fill empty rows)",
    )
}

/// How row `row` becomes a unit vector ([`unit_scaling`]); an error for a
/// row of length zero.
fn row_scaling(values: impl Iterator<Item = f64> + Clone, row: usize) -> Result<(i32, f64)> {
    unit_scaling(values).ok_or_else(|| zero_row(row))
}

/// `rows` and their weights checked for `params` and for clusterings of up
/// to `k_most` clusters (shape, finite entries, no row of length zero,
/// weights), scaled to unit length; the weights scaled by the power of two
/// [`unit_weight_exponent`] chooses, which is returned with them (every
/// objective of the fit is in those units).
pub(crate) fn checked_spherical<'a, T: Scalar>(
    rows: Rows<'a, T>,
    sample_weight: Option<ndarray::ArrayView1<'a, f64>>,
    params: &ValidParams,
    k_most: usize,
) -> Result<(SphericalInput<'a, T>, i32)> {
    let (n, d) = rows.shape();
    params.check_data(n, d)?;
    let mut weights = checked_weights(sample_weight, n, k_most)?;
    if let crate::params::Init::Centroids(c) = params.init() {
        unit_centroids("init", c.view())?;
    }
    let mut exponent = 0;
    if let Some(w) = weights.as_deref() {
        exponent = unit_weight_exponent(w)?;
        if exponent != 0 {
            weights = Some(Cow::Owned(scaled_weights(w, exponent)));
        }
    }
    let rounds = decides_in_rounds(n, params.k(), d);
    let input = match unit_rows(rows)? {
        UnitInput::Dense(rows) => SphericalInput::Dense(Spherical {
            rounds,
            rows,
            weights,
            _input: std::marker::PhantomData,
        }),
        UnitInput::Sparse(rows) => SphericalInput::Sparse(Spherical {
            rounds,
            rows,
            weights,
            _input: std::marker::PhantomData,
        }),
    };
    Ok((input, exponent))
}

/// Rows of either kind scaled to unit length.
pub(crate) enum UnitInput<'a> {
    Dense(UnitDense),
    Sparse(UnitSparse<'a>),
}

/// `rows` scaled to unit length; an error for a non-finite entry or a row
/// of length zero.
pub(crate) fn unit_rows<T: Scalar>(rows: Rows<'_, T>) -> Result<UnitInput<'_>> {
    Ok(match rows {
        Rows::Dense(x) => {
            check_finite("x", x)?;
            let (n, d) = x.dim();
            let mut unit = Vec::with_capacity(n * d);
            for (i, row) in x.rows().into_iter().enumerate() {
                let scaling = row_scaling(row.iter().map(|v| v.to_f64()), i)?;
                unit.extend(row.iter().map(|v| scaled_entry(v.to_f64(), scaling)));
            }
            let max_abs = unit.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            UnitInput::Dense(UnitDense {
                rows: unit,
                n,
                d,
                max_abs,
            })
        }
        Rows::Sparse(x) => UnitInput::Sparse(unit_sparse(x)?),
    })
}

/// `centroids` (`k × d`, finite) scaled to unit length, row after row;
/// an error naming `name` for one of length zero.
pub(crate) fn unit_centroids<T: Scalar>(
    name: &'static str,
    centroids: ndarray::ArrayView2<'_, T>,
) -> Result<Vec<f64>> {
    check_finite(name, centroids)?;
    let mut out = Vec::with_capacity(centroids.len());
    for (j, row) in centroids.rows().into_iter().enumerate() {
        let scaling = row_scaling(row.iter().map(|v| v.to_f64()), j).map_err(|_| {
            Error::invalid(
                name,
                format!("a centroid of length zero at row {j}"),
                "metric='cosine' compares directions: every centroid needs a positive length",
            )
        })?;
        out.extend(row.iter().map(|v| scaled_entry(v.to_f64(), scaling)));
    }
    Ok(out)
}

/// Sparse rows (already checked by [`CsrView::new`]: finite, canonical)
/// scaled to unit length.
fn unit_sparse<T: Scalar>(x: CsrView<'_, T>) -> Result<UnitSparse<'_>> {
    let (indptr, indices, data) = x.parts();
    let mut values = Vec::with_capacity(data.len());
    for (i, w) in indptr.windows(2).enumerate() {
        let row = &data[w[0]..w[1]];
        let scaling = row_scaling(row.iter().map(|v| v.to_f64()), i)?;
        values.extend(row.iter().map(|v| scaled_entry(v.to_f64(), scaling)));
    }
    Ok(UnitSparse {
        n_cols: x.n_cols(),
        indptr,
        indices,
        values,
    })
}

/// Checked spherical input of either kind.
pub(crate) enum SphericalInput<'a, T> {
    Dense(Spherical<'a, UnitDense, T>),
    Sparse(Spherical<'a, UnitSparse<'a>, T>),
}
