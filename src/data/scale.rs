//! Exact scaling by powers of two: of sample weights whose sums would
//! overflow float64 or that are subnormal, and of distances whose squares
//! overflow. Multiplying by `2^e` changes no bit of a significand while the
//! result stays in the normal range, so every weighted sum, centroid and
//! comparison the engine forms is the same, scaled, and a clustering is
//! invariant to the scale of its weights.

use crate::error::{Error, Result};

/// `2^e` for `−1074 ≤ e ≤ 1023`, exactly (subnormal below −1022); `e`
/// beyond that range is clamped to it.
pub(crate) fn pow2(e: i32) -> f64 {
    let e = e.clamp(-1074, 1023);
    if e >= -1022 {
        f64::from_bits(((e + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (e + 1074))
    }
}

/// `v·2^e` for any `e` a product of two powers can reach, in steps that
/// stay in the normal range whenever the result is normal (so exactly
/// then).
pub(crate) fn times_pow2(v: f64, e: i32) -> f64 {
    if e > 1023 {
        v * pow2(1023) * pow2(e - 1023)
    } else if e < -1022 {
        v * pow2(-1022) * pow2(e + 1022)
    } else {
        v * pow2(e)
    }
}

/// `e` with `2^e ≤ v < 2^(e+1)`, for finite `v ≠ 0` (subnormals included).
pub(crate) fn exponent_of(v: f64) -> i32 {
    let bits = v.to_bits() & !(1u64 << 63);
    let biased = (bits >> 52) as i32;
    if biased > 0 {
        biased - 1023
    } else {
        let fraction = bits & ((1u64 << 52) - 1);
        (63 - fraction.leading_zeros() as i32) - 1074
    }
}

/// The exponent `e` with `m < 2^e` (0 for `m = 0`): scaling entries of
/// magnitude at most `m` by `2^-e` puts them below 1, so a squared distance
/// over `d` columns between such entries stays below `4·d` — the finite,
/// exactly scaled stand-in for a distance whose square overflows.
pub(crate) fn exponent_above(m: f64) -> i32 {
    if m > 0.0 {
        exponent_of(m) + 1
    } else {
        0
    }
}

/// The smallest and the largest positive weight (`None` if none is
/// positive).
fn positive_range(w: &[f64]) -> Option<(f64, f64)> {
    let max = w.iter().fold(0.0f64, |m, v| m.max(*v));
    let min_positive = w
        .iter()
        .filter(|v| **v > 0.0)
        .fold(f64::INFINITY, |m, v| m.min(*v));
    (max > 0.0).then_some((min_positive, max))
}

/// Binary orders of magnitude within which weights are used as given
/// (where their sums fit): their products with any squared distance that
/// ordinary data resolve stay normal floats.
const ORDINARY_WEIGHT_EXP: i32 = 600;

/// Largest binary exponent any weighted sum the engine forms may reach:
/// sixteen times below float64's largest binade, which leaves room for the
/// few terms a bound below does not count (rounding, `W + w`).
const SUM_LIMIT_EXP: f64 = 1019.0;

/// The exponent `e` by which the weights `w` (validated: finite, not
/// negative, some positive) are scaled, `w·2^e`, before a fit; 0 when
/// they need no scaling, which is the case for all but extreme weights.
///
/// With `W = Σ w` and `R²` (`r2`) the largest squared distance of a row
/// from the coordinates the engine sums in, every weighted sum it forms
/// (cluster weights, sums `Σ w·x`, costs, k-means++ potentials) is at most
/// `W·max(4R², 1)`; sparse input also forms `‖S_j‖² ≤ (W·R)²`
/// (`quadratic`). Scaling is needed when one of them could overflow, or
/// when the weights leave `2^±600` ([`ORDINARY_WEIGHT_EXP`]: products of
/// tiny weights and small distances would leave the normal range and keep
/// only a few bits). Then the weights move by as much as makes the smallest
/// positive weight 1 to 2, as far as the sums allow: every power-of-two
/// multiple of the same weights becomes the same weights, so the fit is the
/// same and its objectives scaled.
/// Weights spanning so wide a range that no scale keeps both the sums
/// finite and the smallest positive weight normal are refused.
pub(crate) fn weight_exponent(w: &[f64], r2: f64, quadratic: bool) -> Result<i32> {
    let Some((min_positive, max)) = positive_range(w) else {
        return Ok(0);
    };
    let (e_max, e_min) = (exponent_of(max), exponent_of(min_positive));
    // log₂ W, without forming W (which may overflow).
    let relative: f64 = w.iter().map(|v| times_pow2(*v, -e_max)).sum();
    let log_total = f64::from(e_max) + relative.log2();
    let mut highest = SUM_LIMIT_EXP - log_total - (4.0 * r2).max(1.0).log2();
    if quadratic && r2 > 0.0 {
        highest = highest.min((SUM_LIMIT_EXP - r2.log2()) / 2.0 - log_total);
    }
    let highest = highest.floor() as i32;
    let ordinary = -ORDINARY_WEIGHT_EXP <= e_min && e_max <= ORDINARY_WEIGHT_EXP;
    if ordinary && highest >= 0 {
        return Ok(0);
    }
    // The smallest positive weight must stay normal (full precision).
    let lowest = -1022 - e_min;
    let exponent = (-e_min).min(highest);
    if exponent < lowest {
        return Err(Error::invalid(
            "sample_weight",
            format!("positive weights from {min_positive:e} to {max:e}"),
            "too wide a range: no common scale keeps their weighted sums within float64 \
             and the smallest weight at full precision; drop or raise the negligible ones",
        ));
    }
    Ok(exponent)
}

/// Binary orders of magnitude the weights of the cosine objective keep
/// between their largest and any positive one. Its costs multiply weights
/// and sum norms (`w·S·D`, `(S + w)²`, with `S ≤ W`); with the largest
/// weight in `[1, 2)` and every positive weight at least `2^-400`, those
/// products stay far inside the normal range for any `D` an exact distance
/// between distinct unit vectors takes (about `2^-106` and up).
const UNIT_WEIGHT_RANGE_EXP: i32 = 400;

/// The exponent `e` by which the cosine objective's weights `w` (validated:
/// finite, not negative, some positive) are scaled, `w·2^e`: the one that
/// puts the largest weight in `[1, 2)`. Its loss is a difference of weights
/// and norms of weighted sums, not a sum of squared distances, so weights
/// of any common scale meet squares that overflow or vanish unless they
/// are brought to one scale; the same scale for every power-of-two multiple
/// of the weights makes the fit the same, its objectives scaled. Weights
/// whose positive ones span more than `2^400` are refused.
pub(crate) fn unit_weight_exponent(w: &[f64]) -> Result<i32> {
    let Some((min_positive, max)) = positive_range(w) else {
        return Ok(0);
    };
    let exponent = -exponent_of(max);
    if exponent_of(min_positive) + exponent < -UNIT_WEIGHT_RANGE_EXP {
        return Err(Error::invalid(
            "sample_weight",
            format!("positive weights from {min_positive:e} to {max:e}"),
            format!(
                "metric='cosine' needs every positive weight within 2^{UNIT_WEIGHT_RANGE_EXP} \
                 (about 1e120) of the largest; drop or raise the negligible ones"
            ),
        ));
    }
    Ok(exponent)
}

/// `w·2^e` for every weight (exact when [`weight_exponent`] chose `e`).
pub(crate) fn scaled_weights(w: &[f64], e: i32) -> Vec<f64> {
    w.iter().map(|v| times_pow2(*v, e)).collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn powers_of_two_and_exponents() {
        for e in [-1074, -1060, -1023, -1022, -1, 0, 1, 500, 1023] {
            let v = pow2(e);
            assert_eq!(exponent_of(v), e, "{e}");
            if e > -1074 {
                assert_eq!(exponent_of(v * 1.5), e, "{e}");
            }
        }
        assert_eq!(times_pow2(5e-324, 1074), 1.0);
        assert_eq!(times_pow2(1.0, -1074), 5e-324);
        assert_eq!(times_pow2(3.0 * pow2(1000), -1040), 3.0 * pow2(-40));
    }

    #[test]
    fn ordinary_weights_are_not_scaled() {
        for w in [vec![1.0, 2.0, 0.0], vec![1e-150, 1e-100], vec![1e150, 3.0]] {
            assert_eq!(weight_exponent(&w, 100.0, false).unwrap(), 0, "{w:?}");
        }
        // Sparse sums' squared norms reach (W·R)² = 1e402: scaled.
        assert!(weight_exponent(&[1e200, 3.0], 100.0, true).unwrap() < 0);
    }

    #[test]
    fn powers_of_two_multiples_of_extreme_weights_become_the_same_weights() {
        let w = [1.0, 3.0, 2.5];
        for a in [-1070, -900, -601, 601, 900, 1000] {
            let scaled: Vec<f64> = w.iter().map(|v| times_pow2(*v, a)).collect();
            let e = weight_exponent(&scaled, 4.0, true).unwrap();
            assert_eq!(scaled_weights(&scaled, e), w, "2^{a}");
        }
    }

    #[test]
    fn extreme_weights_get_the_smallest_scale_that_fits() {
        // The sum overflows: scaled down by as little as keeps it within
        // 2^1019 (W·4R² = 2e308 · 121 ≈ 2^1031.1).
        let e = weight_exponent(&[1e308, 1e308, 1.0, 1.0], 30.25, false).unwrap();
        assert_eq!(e, -13);
        // Subnormal: the smallest positive weight becomes at least 1.
        assert_eq!(
            weight_exponent(&[5e-324, 5e-324], 1.0, false).unwrap(),
            1074
        );
        // Both at once cannot be had.
        assert!(weight_exponent(&[1e308, 1e308, 1e-310], 1.0, false).is_err());
    }
}
