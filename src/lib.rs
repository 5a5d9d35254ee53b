//! # smartigan
//!
//! k-means that actually minimises the k-means objective: Lloyd, Hartigan and
//! Smartigan (Clément & Steinerberger, *An effective variant of the Hartigan
//! k-means algorithm*), with deterministic, rayon-parallel multi-start.
//!
//! * **Lloyd**: assign every point to its nearest centroid, recompute, repeat.
//! * **Hartigan**: visit the points in a fresh random order each sweep and move
//!   a point `x ∈ C_r` to the cluster `j` minimising `n_j/(n_j+1)·‖x−μ_j‖²` when
//!   that is strictly below `n_r/(n_r−1)·‖x−μ_r‖²`, updating both centroids.
//! * **Smartigan**: Hartigan with the right-hand side multiplied by a factor
//!   falling from 3/2 to 1 over the schedule, so that early sweeps explore;
//!   by default it ends with Hartigan sweeps, so the result is always a
//!   Hartigan local optimum.
//!
//! One shape for every operation: parameters built with [`Params`],
//! validated once by [`Params::check`] into [`ValidParams`], whose methods
//! run on a [`Dataset`] (dense or sparse rows, optional weights):
//! [`ValidParams::fit`], [`ValidParams::path`] (every `k` of a range),
//! [`ValidParams::plus_plus`] (the start alone) and [`ValidParams::run`]
//! (step by step), each also as `*_with` under a [`Control`]
//! (cancellation, progress). The result, a [`Clustering`], predicts
//! ([`Clustering::predict`], [`Clustering::transform`]). Every failure is
//! one [`Error`].
//!
//! ```
//! use ndarray::array;
//! use smartigan::Params;
//!
//! let x = array![[1.0, 1.0], [1.2, 0.8], [0.9, 1.1], [8.0, 8.0], [8.2, 7.9], [7.9, 8.1]];
//! let model = Params::new(2).seed(42).check().unwrap();
//! let result = model.fit(&x).unwrap();
//! assert_eq!(result.labels[0], result.labels[2]);
//! assert_ne!(result.labels[0], result.labels[3]);
//! assert_eq!(result.predict(&array![[8.1, 8.0]]).unwrap()[0], result.labels[3]);
//! println!("objective {:.3} after {} sweeps", result.objective, result.n_sweeps);
//! ```
//!
//! Same seed + same input + same version ⇒ bit-identical output for any
//! number of threads: every restart draws from its own xoshiro256++ streams
//! derived from `(seed, restart)`, and the best objective wins with ties to
//! the lowest restart index.
//!
//! The Python bindings live in `src/py/` behind the `python` feature; the
//! crate itself has no Python dependency.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![warn(missing_docs)]

// CPU dispatch first: its macro is used by the kernels below.
#[macro_use]
mod simd;

mod api;
#[cfg(feature = "bench")]
#[doc(hidden)]
pub mod bench_api;
mod clustering;
mod control;
mod data;
mod dataset;
mod dense;
mod engine;
mod error;
mod fit;
mod params;
mod predict;
#[cfg(feature = "python")]
mod py;
pub mod rng;
mod rows;
mod sparse;
mod spherical;
#[cfg(any(test, feature = "bench"))]
mod testing;

pub use clustering::Clustering;
pub use control::{Control, Progress};
pub use data::Scalar;
pub use dataset::Dataset;
pub use error::{Error, Result};
pub use fit::path::{Path, PathKeep, PathOrigin, PathStep};
pub use fit::run::Run;
pub use params::{
    defaults, Init, Method, Metric, NInit, Params, SizeBound, ValidParams, MAX_N_INIT, MAX_N_ITER,
    MAX_N_THREADS, MAX_POLISH_SWEEPS,
};
pub use predict::Centroids;
pub use rows::Rows;
pub use sparse::CsrView;
