//! Spherical k-means ([`Metric::Cosine`](crate::Metric::Cosine)): clusters
//! of rows compared by cosine, with Lloyd, Hartigan and Smartigan.
//!
//! # The objective and the move
//!
//! Each row `x` (weight `w`) is scaled to unit length, `u = x/‖x‖`. A
//! cluster `j` holds the sum `s_j = Σ w·u` of its rows and their weight
//! `W_j`; its centroid is the direction `μ_j = s_j/‖s_j‖`. The loss
//! `Σ w·(1 − cos(x, μ_j))` over every row is `Σ_j (W_j − ‖s_j‖)`, since
//! `Σ_{i∈j} w_i u_i·μ_j = ‖s_j‖`. For fixed clusters `μ_j` is the best
//! direction (it maximises `s_j·μ`), as the mean is for k-means.
//!
//! With `D = ‖u − μ_j‖² = 2·(1 − cos(u, μ_j))` and `S = ‖s_j‖`:
//!
//! * **adding** `u` to cluster `j` raises the loss by
//!   `c_j = w + S − ‖s_j + w·u‖ ≥ 0`. With `‖s_j + w·u‖² = (S + w)² − w·S·D`
//!   this is `c_j = w·S·D / (S + w + ‖s_j + w·u‖)` ([`join_cost`]);
//! * **removing** `u` from its own cluster `r` (which contains it: `D` and
//!   `S` are taken with `u` in) lowers the loss by
//!   `g_r = w + ‖s_r − w·u‖ − S ≥ 0`. With `T = ‖s_r − w·u‖`,
//!   `T² = (S − w)² + w·S·D`, so where `S ≥ w` it is
//!   `g_r = w·S·D / (T + S − w)`, and where `S < w` the three terms of
//!   `w + T − S` do not cancel ([`leave_gain`]).
//!
//! Both forms are sums and products of non-negative numbers: nothing
//! cancels when a row lies close to a centroid, where `w + S − ‖·‖`
//! computed as written would lose every digit. And both come from the one
//! squared distance `D` between unit vectors, which is computed in a fixed
//! order, so every kernel takes the same decisions.
//!
//! Hartigan's rule follows the paper's: move `u` to the `j ≠ r` with the
//! lowest `c_j` (ties to the lowest `j`) when that is strictly below
//! `factor·g_r`; Smartigan's factor falls from 3/2 to 1 as for k-means. The
//! loss then falls by exactly `g_r − c_j` with `factor = 1`, so every
//! Hartigan move lowers it and the descent ends. Lloyd assigns each row to
//! the nearest direction (largest cosine) and renormalises the sums; its
//! loss never rises either (each step maximises `Σ s_j·μ_j` over one of the
//! two). k-means++ seeds by `1 − cos` (spherical k-means++).
//!
//! Merge-split refinement and a path's splits propose their moves from the
//! Euclidean geometry of the unit rows (a proposal is a guess); whether a
//! proposal is kept is decided by this loss, exactly as for k-means.

mod bounded;
mod costs;
mod rows;
mod screen;
mod source;

pub(crate) use bounded::SphericalLoss;
pub(crate) use rows::{
    checked_spherical, unit_centroids, unit_rows, Spherical, SphericalInput, UnitDense, UnitInput,
    UnitRows, UnitSparse,
};
pub(crate) use source::SphericalState;
