//! Parameters: built unchecked ([`Params`]), validated once by
//! [`Params::check`] into [`ValidParams`], which is all the engine accepts.

use crate::error::{Error, Result};
use ndarray::Array2;
use std::fmt;
use std::str::FromStr;

/// The largest `n_iter` accepted. Smartigan's schedule runs for `n_iter`
/// sweeps whatever happens, so an absurd value would be a hang, not a fit.
pub const MAX_N_ITER: usize = 100_000;

/// The largest `n_init` accepted (each restart keeps O(n + k·d) state).
pub const MAX_N_INIT: usize = 1_000_000;

/// Hartigan sweeps allowed in Smartigan's polishing phase. Hartigan converges
/// in tens of sweeps in practice; the cap only rules out an endless loop on
/// floating-point near-ties and is reported through `converged = false`.
pub const MAX_POLISH_SWEEPS: usize = 10_000;

/// The largest `n_threads` accepted. Building a pool costs a thread start and
/// join per thread; far beyond the core count that cost grows quickly, and
/// the result does not depend on the thread count anyway.
pub const MAX_N_THREADS: usize = 1024;

/// Which algorithm moves the points.
///
/// ```
/// use smartigan::Method;
/// assert_eq!("hartigan".parse::<Method>().unwrap(), Method::Hartigan);
/// assert_eq!(Method::Smartigan.to_string(), "smartigan");
/// assert!("kmeans".parse::<Method>().unwrap_err().to_string().contains("'lloyd', 'hartigan', 'smartigan'"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    /// Assign every point to its nearest centroid, then recompute all centroids.
    Lloyd,
    /// Single-point transfers that lower the objective most (Hartigan 1975).
    Hartigan,
    /// Hartigan with an acceptance factor falling from `schedule.0` to
    /// `schedule.1` (Clément & Steinerberger).
    Smartigan,
}

impl Method {
    /// All methods, in the order used in messages.
    pub const ALL: [Method; 3] = [Method::Lloyd, Method::Hartigan, Method::Smartigan];

    /// The name used by `FromStr` and the Python API.
    pub fn name(self) -> &'static str {
        match self {
            Method::Lloyd => "lloyd",
            Method::Hartigan => "hartigan",
            Method::Smartigan => "smartigan",
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Method {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Method::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| {
                Error::invalid(
                    "method",
                    format!("'{s}'"),
                    "allowed: 'lloyd', 'hartigan', 'smartigan'",
                )
            })
    }
}

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

/// Unchecked parameters. Build with [`Params::new`] and the setters, then
/// hand to [`crate::fit`] (which calls [`Params::check`]).
///
/// ```
/// use smartigan::{Method, Params};
/// let p = Params::new(3).method(Method::Hartigan).n_init(4).seed(7);
/// assert!(p.check().is_ok());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    /// Number of clusters.
    pub k: usize,
    /// The algorithm.
    pub method: Method,
    /// The length of Smartigan's schedule, or the cap on Lloyd iterations and
    /// Hartigan sweeps. `None` chooses by method ([`defaults::n_iter`]).
    pub n_iter: Option<usize>,
    /// The initialisation of every restart.
    pub init: Init,
    /// Number of independent restarts; the best objective wins. `None`
    /// chooses by the problem's size ([`defaults::n_init`]).
    pub n_init: Option<usize>,
    /// Smartigan's acceptance factor at sweep 0 and (in the limit) at sweep `n_iter`.
    pub schedule: (f64, f64),
    /// After Smartigan's schedule, run Hartigan sweeps until none moves.
    pub polish: bool,
    /// After the method converges, try merge-split moves (merge two nearby
    /// clusters, split a spread-out one, re-converge) and keep those that
    /// lower the objective ("Merge-split refinement" in `docs/algorithms.md`).
    pub refine: bool,
    /// Threads of the per-call pool; `None` means all cores.
    pub n_threads: Option<usize>,
    /// Seed; `None` draws one from the operating system (reported in the result).
    pub seed: Option<u64>,
    /// Early stop of every descent (Lloyd iterations, Hartigan sweeps,
    /// Smartigan's polish, refinement's re-convergence; never a schedule
    /// sweep): a step that lowers the objective by at most `tol` times the
    /// objective ends the descent as converged. `0` runs until no point
    /// moves, so Hartigan and polished Smartigan end at a local optimum for
    /// single-point moves. With `tol > 0` refinement also tries only
    /// merge-split moves that lower the objective by themselves, before
    /// re-converging. `None` chooses by the problem's size
    /// ([`defaults::tol`]).
    pub tol: Option<f64>,
}

/// What every parameter left unset means. The values a user sets have
/// their defaults here as public items; the rules by which `n_iter`,
/// `n_init` and `tol` follow the problem's size when they are not given are
/// the functions [`n_iter_for`](defaults::n_iter_for),
/// [`n_init`](defaults::n_init) and [`tol`](defaults::tol). The defaults
/// are the cheapest settings, in time, whose objective is within the
/// project's bar of the best known on the paper's data sets
/// (`benches/results/paper.md`, §4) and below scikit-learn's default on the
/// benchmark workloads (`benches/README.md`).
pub mod defaults {
    use super::{Init, Method};
    /// Default method.
    pub const METHOD: Method = Method::Smartigan;
    /// Default length of Smartigan's schedule on small problems: the
    /// shortest schedule that, restarted twenty times, met the
    /// bar on every paper cell.
    pub const N_ITER: usize = 20;
    /// Default cap on Lloyd iterations and Hartigan sweeps (scikit-learn's
    /// `max_iter`). Both stop as soon as nothing changes, so the cap only
    /// matters on data that converge very slowly.
    pub const MAX_ITER: usize = 300;
    /// `n_iter` when none is given: [`N_ITER`] for Smartigan (its schedule
    /// length), [`MAX_ITER`] for Lloyd and Hartigan (a cap).
    ///
    /// ```
    /// use smartigan::{defaults, Method};
    /// assert_eq!(defaults::n_iter(Method::Smartigan), 20);
    /// assert_eq!(defaults::n_iter(Method::Hartigan), 300);
    /// ```
    pub fn n_iter(method: Method) -> usize {
        match method {
            Method::Smartigan => N_ITER,
            Method::Lloyd | Method::Hartigan => MAX_ITER,
        }
    }
    /// Smartigan's schedule length on larger problems (`n·d·k` above
    /// [`SMALL_PROBLEM`]) when `n_iter` is not given: its factors 1.5, 1.4,
    /// …, 1.1. There merge-split refinement does the escaping that a long
    /// schedule does on small problems.
    pub(crate) const N_ITER_LARGE: usize = 5;
    /// `n_iter` when none is given, for `n` rows of `d` features and `k`
    /// clusters: [`n_iter`], except Smartigan's schedule on larger problems
    /// (`n·d·k` above `2^20`), which is 5 sweeps long, or 20 where its first
    /// sweep moves more than half and at most nine tenths of the points
    /// (overlapping clusters, whose boundaries the long schedule lets
    /// reorganise; beyond nine tenths the first sweep was a random walk).
    ///
    /// ```
    /// use smartigan::{defaults, Method};
    /// assert_eq!(defaults::n_iter_for(Method::Smartigan, 150, 4, 3), 20);
    /// assert_eq!(defaults::n_iter_for(Method::Smartigan, 100_000, 32, 10), 5);
    /// assert_eq!(defaults::n_iter_for(Method::Hartigan, 100_000, 32, 10), 300);
    /// ```
    pub fn n_iter_for(method: Method, n: usize, d: usize, k: usize) -> usize {
        match method {
            Method::Smartigan if !is_small(n, d, k) => N_ITER_LARGE,
            _ => n_iter(method),
        }
    }
    /// The share of all points moved by the schedule's first sweep above
    /// which the clusters count as overlapping: [`schedule_length`] then
    /// runs the paper's full schedule, whose slowly falling factor lets
    /// overlapping boundaries reorganise; on separated blobs the first
    /// sweep moves few points and the short schedule ends as low, sooner.
    pub(crate) const OVERLAP_SHARE: f64 = 0.5;
    /// The share above which the first sweep was a random walk (nearly
    /// every point passed the relaxed test, as on structureless noise): the
    /// relaxed sweeps then explore nothing and the short schedule is kept.
    pub(crate) const RANDOM_WALK_SHARE: f64 = 0.9;
    /// The share of points that may pass the first relaxed test of an
    /// adaptive schedule: its start is lowered to the factor below which
    /// this share of the points' move ratios lie at the start (a point
    /// passes the relaxed test at factor `c` when its lowest join cost is
    /// below `c` times its leave gain). Three quarters keeps the first
    /// sweep inside the exploring band (`OVERLAP_SHARE`,
    /// `RANDOM_WALK_SHARE`], so the full schedule follows instead of a
    /// random walk; separated blobs keep the start given (their quantile
    /// lies above it).
    pub(crate) const START_SHARE: f64 = 0.75;
    /// Smartigan's schedule length on larger problems when `n_iter` is not
    /// given, once its first sweep (at the schedule's starting factor,
    /// whatever the length) has moved `share` of all points: [`N_ITER`]
    /// where `OVERLAP_SHARE < share ≤ RANDOM_WALK_SHARE`, else
    /// [`N_ITER_LARGE`] (what [`n_iter_for`] gives before that sweep).
    pub(crate) fn schedule_length(share: f64) -> usize {
        if share > OVERLAP_SHARE && share <= RANDOM_WALK_SHARE {
            N_ITER
        } else {
            N_ITER_LARGE
        }
    }
    /// Restarts on small problems: there restarts bought more objective per
    /// unit of time than longer schedules, and twenty met the bar on every
    /// paper cell.
    pub(crate) const N_INIT_SMALL: usize = 20;
    /// Restarts on larger problems: one, stopped by [`TOL_LARGE`] and then
    /// refined by merge-split moves, which keeps the time users expect
    /// from scikit-learn's default (one k-means++ run).
    pub(crate) const N_INIT_LARGE: usize = 1;
    /// The largest `n·d·k` (multiply-adds of one pass) that counts as small:
    /// below it twenty fully converged restarts together take a fraction of
    /// a second. Every paper cell is small.
    pub(crate) const SMALL_PROBLEM: usize = 1 << 20;
    /// The number of restarts when none is given: 20 while one pass costs
    /// at most `2^20` multiply-adds (`n·d·k`), else 1.
    ///
    /// ```
    /// use smartigan::defaults;
    /// assert_eq!(defaults::n_init(150, 4, 3), 20);
    /// assert_eq!(defaults::n_init(100_000, 32, 100), 1);
    /// ```
    pub fn n_init(n: usize, d: usize, k: usize) -> usize {
        if is_small(n, d, k) {
            N_INIT_SMALL
        } else {
            N_INIT_LARGE
        }
    }
    /// Whether one pass over `n` rows of `d` features against `k` centroids
    /// costs at most [`SMALL_PROBLEM`] multiply-adds.
    pub(crate) fn is_small(n: usize, d: usize, k: usize) -> bool {
        n.saturating_mul(d).saturating_mul(k) <= SMALL_PROBLEM
    }
    /// Default Smartigan schedule: the paper's `3/2 − t/(2·N_iter)`.
    pub const SCHEDULE: (f64, f64) = (1.5, 1.0);
    /// Default: end Smartigan with Hartigan sweeps, so every result is a
    /// Hartigan local optimum (on the same restarts it never made one worse).
    pub const POLISH: bool = true;
    /// Default: refine every restart by merge-split moves after it converges.
    pub const REFINE: bool = true;
    /// The tolerance on larger problems: a descent ends when a step gains
    /// less than this share of the objective. On overlapping clusters
    /// Hartigan's tail moves a few points per sweep for hundreds of sweeps
    /// and gains far less than the merge-split moves that the saved sweeps
    /// pay for; this value ends the polish where its gains level off.
    pub(crate) const TOL_LARGE: f64 = 2e-5;
    /// The tolerance when none is given: 0 (descend until nothing moves)
    /// while one pass costs at most `2^20` multiply-adds (`n·d·k`), where a
    /// full descent is cheap and every paper cell lies, else `2e-5`.
    ///
    /// ```
    /// use smartigan::defaults;
    /// assert_eq!(defaults::tol(150, 4, 3), 0.0);
    /// assert_eq!(defaults::tol(100_000, 32, 100), 2e-5);
    /// ```
    pub fn tol(n: usize, d: usize, k: usize) -> f64 {
        if is_small(n, d, k) {
            0.0
        } else {
            TOL_LARGE
        }
    }
    /// Default initialisation: on the paper's data sets k-means++ starts gave
    /// the lowest objective for the time at every budget measured.
    pub fn init() -> Init {
        Init::KMeansPlusPlus
    }
}

impl Params {
    /// Defaults for everything but `k`.
    pub fn new(k: usize) -> Self {
        Params {
            k,
            method: defaults::METHOD,
            n_iter: None,
            init: defaults::init(),
            n_init: None,
            schedule: defaults::SCHEDULE,
            polish: defaults::POLISH,
            refine: defaults::REFINE,
            n_threads: None,
            seed: None,
            tol: None,
        }
    }

    /// Sets the method.
    pub fn method(mut self, method: Method) -> Self {
        self.method = method;
        self
    }
    /// Sets `n_iter`.
    pub fn n_iter(mut self, n_iter: usize) -> Self {
        self.n_iter = Some(n_iter);
        self
    }
    /// Sets the initialisation.
    pub fn init(mut self, init: Init) -> Self {
        self.init = init;
        self
    }
    /// Sets the number of restarts.
    pub fn n_init(mut self, n_init: usize) -> Self {
        self.n_init = Some(n_init);
        self
    }
    /// Sets Smartigan's schedule `(start, end)`.
    pub fn schedule(mut self, start: f64, end: f64) -> Self {
        self.schedule = (start, end);
        self
    }
    /// Turns Smartigan's final Hartigan polish on or off.
    pub fn polish(mut self, polish: bool) -> Self {
        self.polish = polish;
        self
    }
    /// Turns the merge-split refinement after convergence on or off.
    pub fn refine(mut self, refine: bool) -> Self {
        self.refine = refine;
        self
    }
    /// Sets the size of the per-call thread pool.
    pub fn n_threads(mut self, n_threads: usize) -> Self {
        self.n_threads = Some(n_threads);
        self
    }
    /// Sets the seed.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }
    /// Sets the early-stopping tolerance (see [`Params::tol`](Params#structfield.tol)).
    pub fn tol(mut self, tol: f64) -> Self {
        self.tol = Some(tol);
        self
    }

    /// Validates everything that does not depend on the data. The checks
    /// that need the data's shape (`k ≤ n`, the shape of given centroids)
    /// happen in [`ValidParams::check_data`].
    pub fn check(self) -> Result<ValidParams> {
        if self.k < 1 {
            return Err(Error::invalid("k", self.k, "must be at least 1"));
        }
        check_count("n_iter", self.n_iter, MAX_N_ITER)?;
        check_count("n_init", self.n_init, MAX_N_INIT)?;
        let (start, end) = self.schedule;
        if !(start.is_finite() && end.is_finite() && end > 0.0 && start >= end) {
            return Err(Error::invalid(
                "schedule",
                format!("({start}, {end})"),
                "must be finite (start, end) with start >= end > 0",
            ));
        }
        if let Some(tol) = self.tol {
            if !(tol.is_finite() && tol >= 0.0) {
                return Err(Error::invalid("tol", tol, "must be a finite number >= 0"));
            }
        }
        let n_threads = match self.n_threads {
            Some(0) => {
                return Err(Error::invalid(
                    "n_threads",
                    0,
                    "must be at least 1, or None for all cores",
                ))
            }
            Some(t) if t > MAX_N_THREADS => {
                return Err(Error::invalid(
                    "n_threads",
                    t,
                    format!("must be between 1 and {MAX_N_THREADS}, or None for all cores"),
                ))
            }
            Some(t) => t,
            None => std::thread::available_parallelism().map_or(1, |n| n.get()),
        };
        if let Init::Centroids(c) = &self.init {
            if c.nrows() != self.k {
                return Err(Error::Shape {
                    name: "init",
                    expected: format!("({}, n_features) for k={}", self.k, self.k),
                    got: format!("({}, {})", c.nrows(), c.ncols()),
                });
            }
            crate::data::check_finite("init", c.view())?;
        }
        Ok(ValidParams {
            seed: self.seed.unwrap_or_else(crate::rng::entropy_seed),
            n_threads,
            n_iter: self.n_iter.unwrap_or_else(|| defaults::n_iter(self.method)),
            p: self,
        })
    }
}

/// A count given as `value` (`None`: chosen later) must lie in `1..=max`.
fn check_count(name: &'static str, value: Option<usize>, max: usize) -> Result<()> {
    match value {
        Some(v) if !(1..=max).contains(&v) => Err(Error::invalid(
            name,
            v,
            format!("must be between 1 and {max}"),
        )),
        _ => Ok(()),
    }
}

/// Parameters that passed [`Params::check`]; the seed, thread count and
/// `n_iter` are resolved (`n_iter` for the data's size by
/// [`ValidParams::n_iter_for`]).
///
/// ```
/// use smartigan::Params;
/// let p = Params::new(3).n_iter(10).schedule(1.4, 0.9).seed(1).check().unwrap();
/// assert_eq!(p.seed(), 1);
/// assert_eq!(p.n_iter_for(1_000_000, 50), 10); // given: any size
/// assert!((p.acceptance_factor(10, 0) - 1.4).abs() < 1e-12);
/// assert!((p.acceptance_factor(10, 9) - 0.95).abs() < 1e-12);
/// assert!(p.check_data(2, 4).is_err()); // k = 3 > n = 2
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ValidParams {
    p: Params,
    seed: u64,
    n_threads: usize,
    n_iter: usize,
}

impl ValidParams {
    /// Number of clusters.
    pub fn k(&self) -> usize {
        self.p.k
    }
    /// The algorithm.
    pub fn method(&self) -> Method {
        self.p.method
    }
    /// Smartigan's schedule length, or the Lloyd/Hartigan cap: the one
    /// given, or [`defaults::n_iter`] for the method (small problems; see
    /// [`ValidParams::n_iter_for`]).
    pub fn n_iter(&self) -> usize {
        self.n_iter
    }
    /// [`ValidParams::n_iter`] for `n` rows of `d` features: where none was
    /// given, [`defaults::n_iter_for`] (a shorter Smartigan schedule on
    /// larger problems).
    pub fn n_iter_for(&self, n: usize, d: usize) -> usize {
        match self.p.n_iter {
            None if self.n_iter == defaults::n_iter(self.p.method) => {
                defaults::n_iter_for(self.p.method, n, d, self.p.k)
            }
            _ => self.n_iter,
        }
    }
    /// Whether Smartigan's schedule length for `n` rows of `d` features is
    /// chosen by its first sweep ([`defaults::schedule_length`]): `n_iter`
    /// not given, on a larger problem.
    pub(crate) fn adaptive_schedule(&self, n: usize, d: usize) -> bool {
        self.p.method == Method::Smartigan
            && self.p.n_iter.is_none()
            && !defaults::is_small(n, d, self.p.k)
    }
    /// The initialisation.
    pub fn init(&self) -> &Init {
        &self.p.init
    }
    /// Number of restarts for data of `n` rows and `d` features: the one
    /// given, or [`defaults::n_init`].
    pub fn n_init(&self, n: usize, d: usize) -> usize {
        self.p
            .n_init
            .unwrap_or_else(|| defaults::n_init(n, d, self.p.k))
    }
    /// Smartigan's schedule.
    pub fn schedule(&self) -> (f64, f64) {
        self.p.schedule
    }
    /// Whether Smartigan ends with Hartigan sweeps.
    pub fn polish(&self) -> bool {
        self.p.polish
    }
    /// Whether restarts end with merge-split refinement.
    pub fn refine(&self) -> bool {
        self.p.refine
    }
    /// Resolved thread count.
    pub fn n_threads(&self) -> usize {
        self.n_threads
    }
    /// Resolved seed (drawn from the OS when none was given).
    pub fn seed(&self) -> u64 {
        self.seed
    }
    /// The relative tolerance of descents for data of `n` rows and `d`
    /// features: the one given, or [`defaults::tol`].
    pub fn tol(&self, n: usize, d: usize) -> f64 {
        self.p.tol.unwrap_or_else(|| defaults::tol(n, d, self.p.k))
    }

    /// The tolerance the caller gave, if any (`None`: `"auto"`).
    pub(crate) fn given_tol(&self) -> Option<f64> {
        self.p.tol
    }

    /// The number of restarts the caller gave, if any (`None`: `"auto"`).
    pub(crate) fn given_n_init(&self) -> Option<usize> {
        self.p.n_init
    }

    /// Smartigan's acceptance factor in schedule sweep `t` (0-based) of a
    /// schedule of `n_iter` sweeps: `start − (start − end)·t/n_iter`, the
    /// paper's `3/2 − n_iter/(2·N_iter)` for the default `(1.5, 1.0)`.
    pub fn acceptance_factor(&self, n_iter: usize, t: usize) -> f64 {
        crate::schedule::acceptance_factor(self.p.schedule, n_iter, t)
    }

    /// These parameters with `k` clusters (a path's fit at another `k`,
    /// [`crate::path`]).
    pub(crate) fn with_k(&self, k: usize) -> ValidParams {
        let mut with_k = self.clone();
        with_k.p.k = k;
        with_k
    }

    /// These parameters with `k` clusters, checked as [`Params::check`]
    /// checks `k` (the first fit of a path at `k_min`).
    pub(crate) fn for_k(&self, k: usize) -> Result<ValidParams> {
        if k < 1 {
            return Err(Error::invalid("k", k, "must be at least 1"));
        }
        if let Init::Centroids(c) = &self.p.init {
            if c.nrows() != k {
                return Err(Error::Shape {
                    name: "init",
                    expected: format!("({k}, n_features) for k={k}"),
                    got: format!("({}, {})", c.nrows(), c.ncols()),
                });
            }
        }
        Ok(self.with_k(k))
    }

    /// These parameters for a Hartigan descent at `k` from a given
    /// partition (a step of a path, [`crate::path`]): Hartigan sweeps
    /// (factor 1) until none moves, capped at [`MAX_POLISH_SWEEPS`] as
    /// Smartigan's polish is, and no refinement (the path refines itself);
    /// seed, threads and tolerance unchanged.
    pub(crate) fn descent(&self, k: usize) -> ValidParams {
        let mut descent = self.with_k(k);
        descent.p.method = Method::Hartigan;
        descent.p.refine = false;
        descent.n_iter = MAX_POLISH_SWEEPS;
        descent
    }

    /// The checks that need the data's shape.
    pub fn check_data(&self, n: usize, d: usize) -> Result<()> {
        if n == 0 || d == 0 {
            return Err(Error::Shape {
                name: "x",
                expected: "at least one row and one column".into(),
                got: format!("({n}, {d})"),
            });
        }
        if self.p.k > n {
            return Err(Error::invalid(
                "k",
                self.p.k,
                format!("must be between 1 and n_samples={n}"),
            ));
        }
        if let Init::Centroids(c) = &self.p.init {
            if c.ncols() != d {
                return Err(Error::Shape {
                    name: "init",
                    expected: format!("({}, {d}) to match x's {d} features", self.p.k),
                    got: format!("({}, {})", c.nrows(), c.ncols()),
                });
            }
        }
        Ok(())
    }
}
