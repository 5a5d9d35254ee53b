//! A path of solutions, one for every `k` of a range `k_min..=k_max`, in one
//! call: the question "which k?" needs the objective (and the criteria built
//! on it) at every `k`, and refitting each `k` from scratch wastes what the
//! solution at `k` already knows about the solution at `k + 1`.
//!
//! The path starts from the usual multi-start fit at `k_min` (the same
//! restarts, starts and result as [`crate::fit`] with `k = k_min`; the
//! refinement below may replace it by a lower solution). Each
//! further step grows the solution at `k` into one at `k + 1`:
//!
//! 1. **split**: every cluster gets its 2-means split (the machinery of
//!    merge-split refinement, [`crate::engine::refine`]: halves from the member
//!    farthest from the mean and its mirror image, Lloyd iterations, the
//!    exact decrease of the objective), and the cluster whose split lowers
//!    the objective most is split, its second half taking label `k`;
//! 2. **descend**: Hartigan sweeps (factor 1) until no point moves, in
//!    visiting orders drawn from the stream of `(seed, k)`.
//!
//! Splits computed for clusters that a step leaves unchanged are reused by
//! the next step (a split depends only on the cluster's members and mean).
//!
//! Growing is greedy: below the number of groups in the data, the best
//! solution at `k` is often not a split of the best at `k − 1` (it groups
//! the groups differently). With `params.refine` (the default) the path
//! therefore refines itself, as merge-split refinement refines a fit:
//!
//! 3. **fits**: where a fit is cheap (`n·d·k` at most
//!    [`crate::defaults::SMALL_PROBLEM`], where a fit runs its many
//!    restarts), and at every `k` when the caller gave `n_init`, the usual
//!    fit at `k` replaces the grown solution if it ends lower: on small
//!    data, with few points per cluster, good solutions at neighbouring
//!    `k` share little, and a greedy path misses most there; on larger
//!    data a fit of `n_init` restarts at every `k` is what the caller
//!    chose to pay for more draws among near-equal optima. The usual
//!    search of restarts runs only where the whole range searched is a
//!    small problem (or `n_init` was given); where only its smallest `k`
//!    are, each of them gets one restart (the search's first), since the
//!    fixed work of a small problem's search would cost more than the
//!    path's own steps ([`policy::searched_fits`]);
//! 4. **from above**: the search grows a few `k` past `k_max`
//!    ([`SEARCH_PAST_K_MAX`], dropped afterwards); from the last of them
//!    down to `k_min`, the solution at `k`
//!    is also reached by merging two clusters of the solution at `k + 1`
//!    (the [`MERGE_CANDIDATES`] cheapest merges by Ward's increase, each
//!    followed by Hartigan sweeps); the lowest replaces it where it is
//!    lower. Going down, an improvement at `k + 1` passes on to `k`.
//! 5. **again from below**: in increasing `k`, wherever the solution at
//!    `k − 1` was replaced, the one at `k` is grown from it again and
//!    replaced if the new one is lower, or if it lies above the one at
//!    `k − 1`;
//! 6. **one more draw at the smallest `k`**: on a larger problem, at its
//!    smallest `k` as long as they sum to at most a [`FIT_SHARE`]-th of
//!    the `k` searched, one restart (the usual fit's first) replaces the
//!    path's solution if it ends lower. Below the number of groups in the
//!    data many local optima lie within hundredths of a per cent of each
//!    other and the path is one draw among them; a second draw costs about
//!    one step of the search at these `k`. The two are compared once both
//!    are finished (the last pass of a path whose search stopped its
//!    descents early: every `k` continued until no point moves, its long
//!    tails by candidate sweeps, [`Restart::with_candidate_sweeps`]), not
//!    before: the search's descents stop early on such problems and a
//!    fit's descend further, and the tails' gains are as large as the
//!    differences between draws; the fits also come after the merges, as
//!    candidates beside their result rather than their starts.
//!
//! The fits of steps 3 and 6 depend on nothing the search finds, so they
//! run beside it, on the threads its one-at-a-time descents leave idle
//! (each fit is deterministic, so the bits do not depend on which thread
//! ran what).
//!
//! Within a fit, merge-split refinement proposes moves that keep `k`; the
//! path's own moves (a merge from `k + 1`, a split from `k − 1`) find lower
//! objectives for less time, so a path's descents do not refine (the fits
//! do).
//!
//! # The objective never rises with `k`
//!
//! Write `f(P) = Σ_j Σ_{i ∈ C_j} w_i‖x_i − μ_j‖²` for a partition `P` with
//! cluster means `μ_j`, and `W_j = Σ_{i ∈ C_j} w_i`. Let `P_k` be the
//! path's solution at `k` and `G` the solution grown from it.
//!
//! * Splitting `C` into halves `A ∪ B = C` changes only `C`'s cost, and by
//!   Huygens' theorem `cost_C(μ_C) = cost_A(μ_A) + cost_B(μ_B) +
//!   W_A·W_B/(W_A + W_B)·‖μ_A − μ_B‖²`, so the split lowers `f` by
//!   `W_A·W_B/(W_A + W_B)·‖μ_A − μ_B‖² ≥ 0`. Where no cluster has a split
//!   (every cluster holds copies of one point), the new cluster takes one
//!   point `x` (weight `w`) from a cluster `r` of weight `W_r > w`, and `f`
//!   falls by `w·W_r/(W_r − w)·‖x − μ_r‖² ≥ 0`.
//! * A Hartigan move with factor 1 is made only when its join cost
//!   `w·W_j/(W_j + w)·‖x − μ_j‖²` is strictly below its leave gain
//!   `w·W_r/(W_r − w)·‖x − μ_r‖²`, and the objective changes by exactly
//!   their difference ([`crate::engine::move_rule::choose_move`]): every move
//!   lowers `f`.
//!
//! Hence `f(G) ≤ f(P_k)`: growing never raises the objective. Without
//! refinement `P_{k+1} = G`. With it, step 5 visits `k` in increasing
//! order, when `P_k` is final, and leaves `P_{k+1}` either no higher than
//! `P_k` or replaced by a solution grown from `P_k`, which is no higher
//! either. So `f(P_{k+1}) ≤ f(P_k)` for every `k`: the objective never
//! rises along the path. (The last pass, which finishes a large path's
//! solutions and takes step 6's draws where lower, keeps this by the same
//! rule: a `k` that ends above the one below is replaced by a solution
//! grown from it, [`Steps::finish`].) This holds in exact
//! arithmetic; the computed objectives can differ from it only by rounding
//! (a decision between near-identical distances; centroids rounded to the
//! input type), which matters only where a split gains nothing, i.e. where
//! the clusters are copies of points. Independent fits at each `k` give no
//! such guarantee. Every solution ends with Hartigan sweeps that moved
//! nothing (the fit at `k_min` is polished by them where its method does not
//! end with them: Lloyd, or Smartigan without polish), so every `k` of the
//! path is a Hartigan local optimum (with `tol = 0`).
//!
//! The path is as deterministic as a fit: the `k_min` fit is, splits are
//! computed cluster by cluster and ranked with ties to the lowest cluster,
//! merge candidates are compared in order, the fits of steps 3 and 6 are
//! fits (whichever threads run them), and the sweeps' visiting orders
//! depend on `(seed, k)` only, so the same seed and data give the same path
//! for any thread count.

use crate::clustering::{objectives_in_caller_units, Clustering};
use crate::error::Result;

/// What a [`Path`] keeps of each `k`'s solution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum PathKeep {
    /// Every `k`'s whole [`Clustering`] (labels, centroids, history):
    /// O(n + k·d) per `k`.
    Clusterings,
    /// Only the summaries of [`PathStep`] (objective, cluster sizes and
    /// costs): O(k) per `k`.
    Summaries,
}

/// How a [`PathStep`]'s solution was reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum PathOrigin {
    /// The usual multi-start fit at this `k` (polished by Hartigan sweeps
    /// where its method does not end with them): always at `k_min`, and,
    /// with refinement, where it ended lower than the path at a `k` that
    /// gets a fit (every `k` of a small problem or with `n_init` given, the
    /// smallest `k` of a large one; see the module documentation).
    Fit,
    /// Cluster `c` of the `k − 1` solution split in two (the split that
    /// lowers the objective most), then Hartigan sweeps.
    Split(usize),
    /// No cluster of the `k − 1` solution could be split (each holds copies
    /// of one point): the new cluster took the point farthest from its
    /// centroid, then Hartigan sweeps.
    Filled,
    /// The refinement pass: the `r`-th cheapest merge of two clusters of
    /// the `k + 1` solution (0: the cheapest), then Hartigan sweeps.
    Merge(usize),
}

/// The solution at one `k` of a [`Path`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct PathStep<T> {
    /// Number of clusters.
    pub k: usize,
    /// The objective, recomputed from the labels and the centroids in the
    /// input type (as [`Clustering::objective`]).
    pub objective: f64,
    /// Points in each cluster.
    pub cluster_sizes: Vec<usize>,
    /// Each cluster's share of the objective.
    pub cluster_objectives: Vec<f64>,
    /// How this solution was reached.
    pub origin: PathOrigin,
    /// Sweeps of the descent that reached this solution (at `k_min`: those
    /// of the fit, its refinement included).
    pub n_sweeps: usize,
    /// Whether the descent ended on its own terms (see
    /// [`Clustering::converged`]): with `tol = 0`, no single-point move
    /// lowers the objective by more than rounding error.
    pub converged: bool,
    /// The whole solution, with [`PathKeep::Clusterings`]. Where `origin` is
    /// [`PathOrigin::Fit`] it is [`ValidParams::fit`](crate::ValidParams::fit)'s result at this `k` (when
    /// polished, its history goes on with the polishing sweeps); otherwise
    /// its only "restart" is the descent that reached it, whose initial
    /// objective is that of its start (the split, or the merge).
    pub clustering: Option<Clustering<T>>,
}

/// Solutions for every `k` of a range, each from the one before (see the
/// module documentation of `path.rs`).
///
/// ```
/// use ndarray::array;
/// use smartigan::{Params, PathKeep};
/// let x = array![[0.0, 0.0], [0.2, 0.1], [5.0, 5.0], [5.1, 4.8], [9.0, 0.0], [9.2, 0.3]];
/// let path = Params::new(1).seed(7).check().unwrap().path(&x, 1..=4, PathKeep::Summaries).unwrap();
/// assert_eq!(path.ks(), vec![1, 2, 3, 4]);
/// let f = path.objectives();
/// assert!(f.windows(2).all(|w| w[1] <= w[0]));
/// assert!((f[2] - 0.115).abs() < 1e-9); // three pairs: 0.025 + 0.025 + 0.065
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Path<T> {
    /// One step per `k`, in increasing `k`.
    pub steps: Vec<PathStep<T>>,
    /// The seed used (drawn from the OS when none was given).
    pub seed: u64,
}

impl<T> Path<T> {
    /// The `k` of every step.
    pub fn ks(&self) -> Vec<usize> {
        self.steps.iter().map(|s| s.k).collect()
    }

    /// The objective at every `k`, in increasing `k`.
    pub fn objectives(&self) -> Vec<f64> {
        self.steps.iter().map(|s| s.objective).collect()
    }

    /// The step at `k`, if the path covers it.
    pub fn step(&self, k: usize) -> Option<&PathStep<T>> {
        let first = self.steps.first()?.k;
        self.steps.get(k.checked_sub(first)?)
    }

    /// The path with its objectives in the caller's units, after a fit on
    /// weights scaled by `2^exponent` (see [`crate::data::weight_exponent`]).
    pub(crate) fn in_caller_units(mut self, exponent: i32) -> Result<Self> {
        if exponent == 0 {
            return Ok(self);
        }
        for step in &mut self.steps {
            if let Some(c) = step.clustering.as_mut() {
                c.rescale_to_caller_units(exponent)?;
            }
            objectives_in_caller_units(
                &mut step.objective,
                &mut step.cluster_objectives,
                exponent,
            )?;
        }
        Ok(self)
    }
}

mod policy;
mod steps;
#[cfg(test)]
mod tests;

pub(crate) use policy::{checked_path, search_top};
pub(crate) use steps::run_path;
