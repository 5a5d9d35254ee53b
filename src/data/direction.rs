//! The direction `v/‖v‖` of a vector: of a row, of a cluster's sum, of a
//! given centroid. One computation, so that a row's direction never depends
//! on its length and every cluster has a unit direction.
//!
//! Norms are computed as plain sums of squares wherever those are normal
//! floats (every ordinary row and sum: the bits are those of the plain
//! formula). A vector whose squared norm would overflow or fall below the
//! normal range is first multiplied by the power of two that brings its
//! largest entry into `[1, 2)`: exact, and the direction of `2^e·v` is the
//! direction of `v`, so rows of any length, subnormal ones included, point
//! where their entries say.

use crate::data::{exponent_of, times_pow2};

/// The fixed direction of a vector of length zero (the first axis): a
/// cluster whose unit rows sum to exactly zero has no direction of its own,
/// and any unit direction `μ` gives it the same loss, `Σ w·(1 − u·μ) = W`,
/// since `Σ w·u·μ = s·μ = 0`. A fixed one keeps fits deterministic and
/// their centroids unit vectors.
fn axis(out: &mut [f64]) {
    out.iter_mut().for_each(|u| *u = 0.0);
    if let Some(first) = out.first_mut() {
        *first = 1.0;
    }
}

/// The largest absolute entry of `v` (0 for a zero vector).
fn largest(v: &[f64]) -> f64 {
    v.iter().fold(0.0f64, |m, x| m.max(x.abs()))
}

/// `out = v/‖v‖` for a cluster's sum or a centroid `v` (finite), and `‖v‖`
/// returned (0 for a zero vector, whose direction is [`axis`]). The norm is
/// `sqrt(Σ v²)` in index order; where that sum leaves the normal range the
/// vector is scaled by a power of two first (module documentation) and the
/// norm returned is scaled back, exactly unless it leaves float64's range.
pub(crate) fn direction_of_sum(v: &[f64], out: &mut [f64]) -> f64 {
    let sq: f64 = v.iter().map(|x| x * x).sum();
    if sq.is_normal() {
        let norm = sq.sqrt();
        for (u, x) in out.iter_mut().zip(v) {
            *u = x / norm;
        }
        return norm;
    }
    let top = largest(v);
    if top == 0.0 {
        axis(out);
        return 0.0;
    }
    let e = exponent_of(top);
    let scaled_sq: f64 = v.iter().map(|x| times_pow2(*x, -e)).map(|x| x * x).sum();
    let norm = scaled_sq.sqrt();
    for (u, x) in out.iter_mut().zip(v) {
        *u = times_pow2(*x, -e) / norm;
    }
    times_pow2(norm, e)
}

/// The shift `e` and factor `f` that make a row `v` of positive length a
/// unit vector as `u = (v·2^e)·f`; `None` for a row of length zero. The
/// norm is `m·sqrt(Σ (v/m)²)` with `m` the largest entry (no square
/// overflows or vanishes) and `e = 0` wherever that norm and its inverse
/// are normal floats; otherwise the row is brought to `m ∈ [1, 2)` first.
pub(crate) fn unit_scaling(v: impl Iterator<Item = f64> + Clone) -> Option<(i32, f64)> {
    let top = v.clone().fold(0.0f64, |m, x| m.max(x.abs()));
    if top == 0.0 {
        return None;
    }
    let relative = v.map(|x| (x / top) * (x / top)).sum::<f64>().sqrt();
    let norm = top * relative;
    let inverse = 1.0 / norm;
    if norm.is_normal() && inverse.is_normal() {
        return Some((0, inverse));
    }
    // `x/top` does not depend on the scale: only `top` moves.
    let e = -exponent_of(top);
    Some((e, 1.0 / (times_pow2(top, e) * relative)))
}

/// `x·2^e·f`: one entry of a row scaled by its [`unit_scaling`].
#[inline(always)]
pub(crate) fn scaled_entry(x: f64, (e, f): (i32, f64)) -> f64 {
    if e == 0 {
        x * f
    } else {
        times_pow2(x, e) * f
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::data::pow2;

    fn unit(v: &[f64]) -> Vec<f64> {
        let s = unit_scaling(v.iter().copied()).unwrap();
        v.iter().map(|x| scaled_entry(*x, s)).collect()
    }

    #[test]
    fn a_rows_direction_does_not_depend_on_its_length() {
        let v = [3.0, -4.0, 0.5];
        let want = unit(&v);
        for e in [-1070, -1060, -1022, -600, -1, 1, 600, 1000] {
            let scaled: Vec<f64> = v.iter().map(|x| x * pow2(e)).collect();
            assert_eq!(unit(&scaled), want, "2^{e}");
        }
        assert!(unit_scaling([0.0, 0.0].into_iter()).is_none());
        // Entries near float64's largest: the norm overflows unscaled.
        for u in unit(&[f64::MAX, -f64::MAX]) {
            assert!(
                (u.abs() - std::f64::consts::FRAC_1_SQRT_2).abs() < 1e-15,
                "{u}"
            );
        }
    }

    #[test]
    fn a_sums_direction_does_not_depend_on_its_length() {
        let v = [3.0, -4.0, 0.5];
        let mut want = [0.0; 3];
        let norm = direction_of_sum(&v, &mut want);
        assert_eq!(norm, (9.0f64 + 16.0 + 0.25).sqrt());
        for e in [-1070, -1060, -700, 400, 1000] {
            let scaled: Vec<f64> = v.iter().map(|x| x * pow2(e)).collect();
            let mut got = [0.0; 3];
            let n = direction_of_sum(&scaled, &mut got);
            assert_eq!(got, want, "2^{e}");
            assert_eq!(n, norm * pow2(e), "2^{e}");
        }
    }

    #[test]
    fn a_zero_sum_points_along_the_first_axis() {
        let mut out = [7.0; 3];
        assert_eq!(direction_of_sum(&[0.0, -0.0, 0.0], &mut out), 0.0);
        assert_eq!(out, [1.0, 0.0, 0.0]);
    }
}
