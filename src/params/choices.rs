//! The named choices among the parameters: the method ([`Method`]), the
//! start of each restart ([`Init`]) and how many restarts run ([`NInit`]).

use crate::error::{Error, Result};
use ndarray::Array2;
use std::fmt;
use std::str::FromStr;

/// For a fieldless enum of named choices: `ALL` (documented by `$all`),
/// `name`, `Display` by name, and `FromStr` by name whose error names the
/// parameter `$param` and lists every name.
macro_rules! named_choices {
    ($ty:ident, $param:literal, $all:literal, [$($variant:ident => $name:literal),+ $(,)?]) => {
        impl $ty {
            #[doc = $all]
            pub const ALL: [$ty; [$($name),+].len()] = [$($ty::$variant),+];

            /// The name used by `FromStr` and the Python API.
            pub fn name(self) -> &'static str {
                match self {
                    $($ty::$variant => $name),+
                }
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }

        impl FromStr for $ty {
            type Err = Error;
            fn from_str(s: &str) -> Result<Self> {
                named($param, s, $ty::ALL, $ty::name)
            }
        }
    };
}

/// Which algorithm moves the points.
///
/// ```
/// use smartigan::Method;
/// assert_eq!("hartigan".parse::<Method>().unwrap(), Method::Hartigan);
/// assert_eq!(Method::Smartigan.to_string(), "smartigan");
/// assert!("kmeans".parse::<Method>().unwrap_err().to_string().contains("'lloyd', 'hartigan', 'smartigan'"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Method {
    /// Assign every point to its nearest centroid, then recompute all centroids.
    Lloyd,
    /// Single-point transfers that lower the objective most (Hartigan 1975).
    Hartigan,
    /// Hartigan with an acceptance factor falling from `schedule.0` to
    /// `schedule.1` (Clément & Steinerberger).
    Smartigan,
}

named_choices!(Method, "method", "All methods, in the order used in messages.", [
    Lloyd => "lloyd",
    Hartigan => "hartigan",
    Smartigan => "smartigan",
]);

/// How each restart starts.
///
/// ```
/// use ndarray::array;
/// use smartigan::{Init, Params};
/// assert_eq!(Init::from_name("k-means++").unwrap(), Init::KMeansPlusPlus);
/// let x = array![[0.0], [1.0], [9.0], [10.0]];
/// let start = Init::Centroids(array![[0.0], [10.0]]);
/// let r = Params::new(2).init(start).n_init(1).seed(0).check().unwrap().fit(&x).unwrap();
/// assert_eq!(r.labels.to_vec(), vec![0, 0, 1, 1]);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Init {
    /// Every point to a uniformly random cluster (the paper's start).
    RandomPartition,
    /// `k` distinct random points as centroids.
    Forgy,
    /// Greedy k-means++ (`2 + ln k` candidates per centre, as scikit-learn).
    KMeansPlusPlus,
    /// User-given `k × d` centroids; every restart starts from them.
    Centroids(Array2<f64>),
}

impl Init {
    /// The names accepted by [`Init::from_name`].
    pub const NAMES: [&'static str; 3] = ["random-partition", "forgy", "k-means++"];

    /// Parses a named initialisation.
    pub fn from_name(s: &str) -> Result<Self> {
        match s {
            "random-partition" => Ok(Init::RandomPartition),
            "forgy" => Ok(Init::Forgy),
            "k-means++" => Ok(Init::KMeansPlusPlus),
            _ => Err(Error::invalid(
                "init",
                format!("'{s}'"),
                "allowed: 'random-partition', 'forgy', 'k-means++' or a k × d array of centroids",
            )),
        }
    }

    /// Short name for reports.
    pub fn name(&self) -> &'static str {
        match self {
            Init::RandomPartition => "random-partition",
            Init::Forgy => "forgy",
            Init::KMeansPlusPlus => "k-means++",
            Init::Centroids(_) => "centroids",
        }
    }
}

/// How many restarts a fit runs, and from where.
///
/// ```
/// use smartigan::NInit;
/// assert_eq!(NInit::from(10), NInit::Count(10));
/// assert_eq!("best".parse::<NInit>().unwrap(), NInit::Best);
/// assert_eq!("fast".parse::<NInit>().unwrap(), NInit::Fast);
/// assert_eq!(NInit::Auto.to_string(), "auto");
/// assert!("many".parse::<NInit>().unwrap_err().to_string().contains("'auto', 'best', 'fast'"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum NInit {
    /// Exactly this many independent restarts (side by side on the
    /// thread pool); the lowest objective wins.
    Count(usize),
    /// Restarts, then children of the best, while the work done stays
    /// within a budget set by the problem's size and by how far apart the
    /// candidates end ([`crate::defaults::auto_budget`]): many on small
    /// problems; on large ones the first restart and a candidate descended
    /// on a sample of the rows first ([`crate::defaults::sample_rows`]),
    /// more where they disagree; where the sample holds many rows per
    /// cluster, the search on the sample alone, its best descended once on
    /// all rows ([`crate::defaults::sample_searched`]). Where size bounds bind, the count of
    /// [`crate::defaults::bounded_restarts`].
    #[default]
    Auto,
    /// The lowest objective the search finds in a bounded time: a
    /// population of restarts, then children of its best members (some of
    /// a member's centroids moved to points its clusters serve worst, then
    /// descended and refined), until the children stop improving on the
    /// best or the work reaches a budget ([`crate::defaults::best_budget`]).
    Best,
    /// One descent by the exact move rule, for a time like one Lloyd run's:
    /// a single restart without merge-split refinement, Smartigan's
    /// relaxed schedule skipped (its Hartigan polish alone, `n_iter`
    /// capping its sweeps as for Hartigan; Lloyd and Hartigan run as they
    /// are), ending once a step lowers the objective
    /// by at most [`crate::defaults::FAST_TOL`] of it (unless `tol` is
    /// given). Where refinement and the relaxed sweeps would cost several
    /// times the descent itself (large `k` on large data), this keeps most
    /// of Hartigan's gain over Lloyd.
    Fast,
}

impl From<usize> for NInit {
    fn from(count: usize) -> Self {
        NInit::Count(count)
    }
}

impl fmt::Display for NInit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NInit::Count(n) => write!(f, "{n}"),
            NInit::Auto => f.write_str("auto"),
            NInit::Best => f.write_str("best"),
            NInit::Fast => f.write_str("fast"),
        }
    }
}

impl FromStr for NInit {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "auto" => Ok(NInit::Auto),
            "best" => Ok(NInit::Best),
            "fast" => Ok(NInit::Fast),
            _ => s.parse().map(NInit::Count).map_err(|_| {
                Error::invalid(
                    "n_init",
                    format!("'{s}'"),
                    "allowed: a positive integer, 'auto', 'best', 'fast'",
                )
            }),
        }
    }
}

/// The dissimilarity the clusters minimise.
///
/// ```
/// use smartigan::Metric;
/// assert_eq!("cosine".parse::<Metric>().unwrap(), Metric::Cosine);
/// assert_eq!(Metric::Euclidean.to_string(), "euclidean");
/// assert!("l1".parse::<Metric>().unwrap_err().to_string().contains("'euclidean', 'cosine'"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Metric {
    /// The k-means objective: the (weighted) sum of squared Euclidean
    /// distances to the cluster means.
    #[default]
    Euclidean,
    /// The spherical k-means objective: the (weighted) sum of `1 − cos`
    /// between each row and its cluster's direction, the normalised sum of
    /// its rows scaled to unit length. Hartigan's move and Smartigan's
    /// schedule carry over with the change in this loss as the transfer
    /// test; every row needs a positive length. Centroids are unit
    /// vectors.
    Cosine,
}

named_choices!(Metric, "metric", "Both metrics, in the order used in messages.", [
    Euclidean => "euclidean",
    Cosine => "cosine",
]);

/// The choice among `all` whose `name` is `s`, or the error for `param`
/// that lists every name, in the order of `all`.
fn named<C: Copy, const N: usize>(
    param: &'static str,
    s: &str,
    all: [C; N],
    name: fn(C) -> &'static str,
) -> Result<C> {
    all.into_iter().find(|&c| name(c) == s).ok_or_else(|| {
        let names: Vec<String> = all.iter().map(|&c| format!("'{}'", name(c))).collect();
        Error::invalid(
            param,
            format!("'{s}'"),
            format!("allowed: {}", names.join(", ")),
        )
    })
}
