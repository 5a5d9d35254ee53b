//! The result of a fit.

use crate::data::times_pow2;
use crate::error::{Error, Result};
use crate::params::Metric;
use ndarray::{Array1, Array2};

/// The result of a fit: the best restart's clustering plus every restart's
/// objective.
///
/// ```
/// use ndarray::array;
/// use smartigan::{Method, Params};
/// let x = array![[0.0], [0.5], [4.0], [4.5], [9.0]];
/// let p = Params::new(2).method(Method::Hartigan).n_init(4).seed(3);
/// let r = p.check().unwrap().fit(&x).unwrap();
/// assert_eq!(r.restart_objectives.len(), 4);
/// assert_eq!(r.objective, r.restart_objectives[r.best_restart]);
/// assert_eq!(r.history.len(), r.n_sweeps);
/// assert!(r.converged && *r.moves.last().unwrap() == 0);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Clustering<T> {
    /// Cluster of each point, in `0..k`; no cluster is empty.
    pub labels: Array1<usize>,
    /// `k × d` centroids (the means of their clusters), in the input type.
    pub centroids: Array2<T>,
    /// Sum of squared distances of the points to their centroids, recomputed
    /// in `f64` from `labels` and `centroids` as returned.
    pub objective: f64,
    /// Points in each cluster (R's `size`); all positive.
    pub cluster_sizes: Vec<usize>,
    /// The objective's share of each cluster, from the same distances (R's
    /// `withinss`); they add up to `objective` up to rounding (it is summed
    /// in point order).
    pub cluster_objectives: Vec<f64>,
    /// Lloyd iterations or sweeps done by the best restart (Smartigan: the
    /// schedule's sweeps plus the polishing ones), plus the steps of its
    /// merge-split refinement, if any: the length of `history`.
    pub n_sweeps: usize,
    /// Whether the best restart's last sweep moved nothing, or moved points
    /// without lowering the recomputed objective (rounding noise, which would
    /// otherwise cycle) while no point had a move beating rounding error, or
    /// (with a [`Params::tol`](crate::Params#structfield.tol) above 0) lowered
    /// the objective by less than the tolerance. For Hartigan and polished
    /// Smartigan without a tolerance this means no single-point move lowers
    /// the objective by more than rounding error.
    pub converged: bool,
    /// Objective after each sweep of the best restart.
    pub history: Vec<f64>,
    /// Points moved in each sweep of the best restart (Lloyd: labels changed).
    pub moves: Vec<usize>,
    /// Objective of the best restart's initial partition.
    pub initial_objective: f64,
    /// Merge-split moves the best restart's refinement kept (0 without
    /// `refine`).
    pub refinements: usize,
    /// Smartigan: the acceptance factor of the best restart's first sweep,
    /// the start of the schedule it ran. It is the start of
    /// [`Params::schedule`](crate::Params::schedule) unless the schedule
    /// adapted to the data (larger problems, no `n_iter` given), which
    /// lowers it where nearly every point would pass the relaxed test, so
    /// that the schedule explores instead of walking at random. `None` for
    /// Lloyd and Hartigan.
    pub schedule_start: Option<f64>,
    /// Final objective of every restart, by restart index.
    pub restart_objectives: Vec<f64>,
    /// Index of the restart returned (lowest objective, ties to the lowest index).
    pub best_restart: usize,
    /// The seed used (drawn from the OS when none was given).
    pub seed: u64,
    /// How points were compared ([`Params::metric`](crate::Params::metric)):
    /// with [`Metric::Cosine`] the centroids are unit directions, the
    /// objectives sums of `w·(1 − cos)`, and
    /// [`predict`](Clustering::predict) and
    /// [`transform`](Clustering::transform) compare by cosine.
    pub metric: Metric,
}

impl<T> Clustering<T> {
    /// Back to the caller's units after a fit with sample weights scaled by
    /// `2^exponent` ([`crate::data::weight_exponent`]): every objective
    /// times `2^-exponent`, exactly unless it leaves float64's range. The
    /// objective and the clusters' objectives must then still be finite
    /// (else an error naming the weights); the records of the fit
    /// (`history`, `initial_objective`, `restart_objectives`) may read
    /// `inf` where they exceed float64.
    pub(crate) fn rescale_to_caller_units(&mut self, exponent: i32) -> Result<()> {
        if exponent == 0 {
            return Ok(());
        }
        let back = |v: &mut f64| *v = times_pow2(*v, -exponent);
        self.history.iter_mut().for_each(back);
        self.restart_objectives.iter_mut().for_each(back);
        back(&mut self.initial_objective);
        objectives_in_caller_units(&mut self.objective, &mut self.cluster_objectives, exponent)
    }
}

/// `objective` and its per-cluster shares times `2^-exponent` (see
/// [`Clustering::rescale_to_caller_units`]); an error naming the weights
/// where they leave float64's range.
pub(crate) fn objectives_in_caller_units(
    objective: &mut f64,
    per_cluster: &mut [f64],
    exponent: i32,
) -> Result<()> {
    let internal = *objective;
    let back = |v: &mut f64| *v = times_pow2(*v, -exponent);
    back(objective);
    per_cluster.iter_mut().for_each(back);
    if objective.is_finite() && per_cluster.iter().all(|v| v.is_finite()) {
        return Ok(());
    }
    let log10 = internal.log10() - f64::from(exponent) * std::f64::consts::LOG10_2;
    Err(Error::invalid(
        "sample_weight",
        format!("weights that make the objective about 1e{log10:.0}"),
        format!(
            "the weighted objective exceeds float64 ({:e}); scale the weights down",
            f64::MAX
        ),
    ))
}
