//! Bounds on the clusters' sizes (`size_min`, `size_max`): how they are
//! given ([`SizeBound`]), their checks, and what they resolve to for `n`
//! rows ([`SizeBounds`]).
//!
//! Sizes count rows, with or without sample weights. A weight scales a
//! row's share of the objective, not the room it takes in a cluster:
//! shards, batches and index partitions are sized in rows. Bounds on
//! weight would also make feasibility itself hard (weights `2, 2, 2` fit no
//! two clusters of weight exactly 3: the partition problem), while bounds
//! on counts are feasible exactly when `Σ min ≤ n ≤ Σ max`, which is
//! checked before any work.

use crate::error::{Error, Result};
use std::fmt;

/// A bound on the number of rows of each cluster: `size_min` or `size_max`.
///
/// ```
/// use smartigan::{Params, SizeBound};
/// let p = Params::new(3).size_min(2).size_max(SizeBound::PerCluster(vec![4, 4, 5]));
/// assert!(p.check().is_ok());
/// let balanced = Params::new(3).balanced().check().unwrap();
/// assert_eq!(balanced.size_min(), Some(&SizeBound::Balanced));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SizeBound {
    /// The same bound for every cluster.
    Each(usize),
    /// One bound per cluster, `k` of them, in label order.
    PerCluster(Vec<usize>),
    /// Balanced: `⌊n/k⌋` as a minimum, `⌈n/k⌉` as a maximum.
    Balanced,
}

impl From<usize> for SizeBound {
    fn from(bound: usize) -> Self {
        SizeBound::Each(bound)
    }
}

impl From<Vec<usize>> for SizeBound {
    fn from(bounds: Vec<usize>) -> Self {
        SizeBound::PerCluster(bounds)
    }
}

impl fmt::Display for SizeBound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SizeBound::Each(v) => write!(f, "{v}"),
            SizeBound::PerCluster(v) => write!(f, "{v:?}"),
            SizeBound::Balanced => f.write_str("'balanced'"),
        }
    }
}

/// Which bound: the names of the parameters in messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Min,
    Max,
}

impl Side {
    fn name(self) -> &'static str {
        match self {
            Side::Min => "size_min",
            Side::Max => "size_max",
        }
    }
}

impl SizeBound {
    /// The bound of each of `k` clusters of `n` rows.
    fn resolve(&self, side: Side, n: usize, k: usize) -> Vec<usize> {
        match self {
            SizeBound::Each(v) => vec![*v; k],
            SizeBound::PerCluster(v) => v.clone(),
            SizeBound::Balanced => vec![
                match side {
                    Side::Min => n / k,
                    Side::Max => n.div_ceil(k),
                };
                k
            ],
        }
    }
}

/// The checks of one bound that need no data: `k` values where one per
/// cluster is given, and a maximum of at least 1 (no cluster is empty).
fn check_shape(bound: Option<&SizeBound>, side: Side, k: usize) -> Result<()> {
    match bound {
        Some(SizeBound::PerCluster(v)) if v.len() != k => Err(Error::Shape {
            name: side.name(),
            expected: format!("({k},), one bound per cluster for k={k}"),
            got: format!("({},)", v.len()),
        }),
        Some(SizeBound::Each(0)) if side == Side::Max => Err(Error::invalid(
            "size_max",
            0,
            "must be at least 1 (no cluster is empty)",
        )),
        Some(SizeBound::PerCluster(v)) if side == Side::Max && v.contains(&0) => {
            let j = v.iter().position(|&b| b == 0).unwrap_or(0);
            Err(Error::invalid(
                "size_max",
                format!("{v:?}"),
                format!("every bound must be at least 1 (no cluster is empty); cluster {j} has 0"),
            ))
        }
        _ => Ok(()),
    }
}

/// The checks of `size_min` and `size_max` that need no data.
pub(crate) fn check_bounds(
    min: Option<&SizeBound>,
    max: Option<&SizeBound>,
    k: usize,
) -> Result<()> {
    check_shape(min, Side::Min, k)?;
    check_shape(max, Side::Max, k)
}

/// The bounds of every cluster of a fit on `n` rows: at least `min[j]`
/// and at most `max[j]` rows in cluster `j`. A minimum of 0 is raised to
/// 1 (no cluster of any fit is empty).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SizeBounds {
    pub min: Vec<usize>,
    pub max: Vec<usize>,
}

impl SizeBounds {
    /// The bounds `min` and `max` resolve to for `k` clusters of `n` rows
    /// (`1 ≤ k ≤ n`), checked: an error naming the parameter where no
    /// clustering can meet them.
    pub fn resolve(
        min: Option<&SizeBound>,
        max: Option<&SizeBound>,
        n: usize,
        k: usize,
    ) -> Result<SizeBounds> {
        check_bounds(min, max, k)?;
        let mut lower = min.map_or_else(|| vec![1; k], |b| b.resolve(Side::Min, n, k));
        let upper = max.map_or_else(|| vec![n; k], |b| b.resolve(Side::Max, n, k));
        for (j, (lo, hi)) in lower.iter_mut().zip(&upper).enumerate() {
            if *lo > *hi {
                let (min, max) = (
                    min.map_or("1".into(), |b| b.to_string()),
                    max.map_or(n.to_string(), |b| b.to_string()),
                );
                return Err(Error::invalid(
                    "size_min",
                    min,
                    format!("must not exceed size_max={max}; cluster {j} has minimum {lo} > maximum {hi}"),
                ));
            }
            *lo = (*lo).max(1);
        }
        let (least, most) = (sum(&lower), sum(&upper));
        if least > n as u128 {
            let given = min.map_or("1".into(), |b| b.to_string());
            return Err(Error::invalid(
                "size_min",
                given,
                format!(
                    "the clusters' minimum sizes (each at least 1) add up to {least}, more than n_samples={n}"
                ),
            ));
        }
        if most < n as u128 {
            let given = max.map_or(n.to_string(), |b| b.to_string());
            return Err(Error::invalid(
                "size_max",
                given,
                format!("the clusters' maximum sizes add up to {most}, fewer than n_samples={n}"),
            ));
        }
        Ok(SizeBounds {
            min: lower,
            max: upper,
        })
    }

    /// Whether every clustering the unconstrained engine can return meets
    /// these bounds: it never empties a cluster, so each holds between 1
    /// and `n − k + 1` rows.
    pub fn bind(&self, n: usize) -> bool {
        let k = self.min.len();
        let most = n + 1 - k;
        self.min.iter().any(|&m| m > 1) || self.max.iter().any(|&m| m < most)
    }

    /// Number of clusters.
    pub fn k(&self) -> usize {
        self.min.len()
    }
}

fn sum(v: &[usize]) -> u128 {
    v.iter().map(|&b| b as u128).sum()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn resolve(
        min: Option<SizeBound>,
        max: Option<SizeBound>,
        n: usize,
        k: usize,
    ) -> Result<SizeBounds> {
        SizeBounds::resolve(min.as_ref(), max.as_ref(), n, k)
    }

    #[test]
    fn balanced_bounds_are_the_floor_and_ceiling() {
        let b = resolve(Some(SizeBound::Balanced), Some(SizeBound::Balanced), 10, 3).unwrap();
        assert_eq!((b.min, b.max), (vec![3; 3], vec![4; 3]));
        let even = resolve(Some(SizeBound::Balanced), Some(SizeBound::Balanced), 9, 3).unwrap();
        assert_eq!((even.min, even.max), (vec![3; 3], vec![3; 3]));
    }

    /// Whether `e` is `kind` (`"invalid"` or `"shape"`) for the parameter
    /// `name`.
    fn names(e: &Error, kind: &str, name: &str) -> bool {
        match e {
            Error::InvalidParameter { name: n, .. } => kind == "invalid" && *n == name,
            Error::Shape { name: n, .. } => kind == "shape" && *n == name,
            _ => false,
        }
    }

    #[test]
    fn infeasible_bounds_name_the_parameter() {
        let refusals = [
            (
                resolve(Some(4.into()), None, 10, 3),
                "invalid",
                "size_min",
                "add up to 12, more than n_samples=10",
            ),
            (
                resolve(None, Some(3.into()), 10, 3),
                "invalid",
                "size_max",
                "add up to 9, fewer than n_samples=10",
            ),
            (
                resolve(Some(vec![1, 5, 1].into()), Some(4.into()), 10, 3),
                "invalid",
                "size_min",
                "cluster 1 has minimum 5 > maximum 4",
            ),
            (
                resolve(Some(vec![1, 2].into()), None, 10, 3),
                "shape",
                "size_min",
                "size_min",
            ),
            (
                resolve(None, Some(0.into()), 10, 3),
                "invalid",
                "size_max",
                "size_max",
            ),
            // Minimums of 0 are raised to 1: three clusters need three rows.
            (
                resolve(Some(vec![0, 0, 3].into()), None, 4, 3),
                "invalid",
                "size_min",
                "add up to 5",
            ),
        ];
        for (result, kind, name, text) in refusals {
            let e = result.unwrap_err();
            assert!(names(&e, kind, name), "{e}: not {kind} {name}");
            assert!(e.to_string().contains(text), "{e}");
        }
    }

    #[test]
    fn bounds_bind_only_below_what_any_clustering_meets() {
        let b =
            |min: usize, max: usize| resolve(Some(min.into()), Some(max.into()), 10, 3).unwrap();
        assert!(!b(0, 10).bind(10));
        assert!(!b(1, 8).bind(10)); // 10 − 3 + 1: no clustering has more
        assert!(b(1, 7).bind(10));
        assert!(b(2, 10).bind(10));
        assert!(!resolve(None, None, 10, 3).unwrap().bind(10));
        // k = n: every cluster holds one row whatever the bounds.
        assert!(!resolve(Some(1.into()), Some(1.into()), 3, 3)
            .unwrap()
            .bind(3));
    }
}
