//! The crate's one error type. Every message is lower-case, names the
//! parameter and the offending value, and lists allowed values where a set of
//! choices exists (the Python bindings map these onto `ValueError` & co.).

/// Everything that can go wrong in this crate.
///
/// ```
/// use ndarray::Array2;
/// use smartigan::{Error, Params};
/// let x = Array2::<f64>::zeros((3, 2));
/// let err = Params::new(5).check().unwrap().fit(&x).unwrap_err();
/// assert!(matches!(err, Error::InvalidParameter { name: "k", .. }));
/// assert_eq!(err.to_string(), "invalid k: 5 (must be between 1 and n_samples=3)");
/// ```
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A parameter is outside its allowed range or set.
    #[error("invalid {name}: {value} ({expected})")]
    InvalidParameter {
        /// Name of the parameter, as spelled in the API (`k`, `n_iter`, ...).
        name: &'static str,
        /// The rejected value, rendered for humans.
        value: String,
        /// What would have been accepted.
        expected: String,
    },
    /// The data (or a parameter array) has the wrong shape.
    #[error("invalid shape of {name}: expected {expected}, got {got}")]
    Shape {
        /// Which array (`x`, `init`, `y`, ...).
        name: &'static str,
        /// The shape we needed, rendered for humans.
        expected: String,
        /// The shape we got.
        got: String,
    },
    /// NaN or infinity in an input array.
    #[error("{name} contains a non-finite value ({value}) at row {row}, column {col}")]
    NonFinite {
        /// Which array (`x`, `init`, `y`).
        name: &'static str,
        /// Row of the first offending entry.
        row: usize,
        /// Column of the first offending entry.
        col: usize,
        /// The offending value (NaN, inf or -inf).
        value: f64,
    },
    /// The run was cancelled through its cancellation flag (Ctrl-C in Python).
    #[error("interrupted")]
    Interrupted,
    /// The per-call rayon thread pool could not be built.
    #[error("could not start a thread pool with {n_threads} threads: {reason}")]
    ThreadPool {
        /// Requested number of threads.
        n_threads: usize,
        /// The reason rayon gave.
        reason: String,
    },
}

/// Shorthand used throughout the crate.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// Builds [`Error::InvalidParameter`]; kept in one place so every message
    /// has the same shape.
    pub(crate) fn invalid(
        name: &'static str,
        value: impl std::fmt::Display,
        expected: impl Into<String>,
    ) -> Self {
        Error::InvalidParameter {
            name,
            value: value.to_string(),
            expected: expected.into(),
        }
    }
}
