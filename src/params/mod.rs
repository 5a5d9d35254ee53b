//! Parameters: built unchecked ([`Params`]), validated once by
//! [`Params::check`] into [`ValidParams`], which is all the engine accepts.

mod choices;
pub mod defaults;
pub(crate) mod schedule;
mod sizes;

pub use choices::{Init, Method, Metric, NInit};
pub use sizes::SizeBound;
pub(crate) use sizes::SizeBounds;

use crate::error::{Error, Result};

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

/// Unchecked parameters. Build with [`Params::new`] and the setters, then
/// check them ([`Params::check`]): the checked [`ValidParams`] fit.
///
/// ```
/// use smartigan::{Method, Params};
/// let p = Params::new(3).method(Method::Hartigan).n_init(4).seed(7);
/// assert!(p.check().is_ok());
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Params {
    /// Number of clusters.
    pub k: usize,
    /// The algorithm.
    pub method: Method,
    /// The dissimilarity minimised: squared Euclidean distance (k-means) or
    /// `1 − cos` (spherical k-means).
    pub metric: Metric,
    /// The length of Smartigan's schedule, or the cap on Lloyd iterations and
    /// Hartigan sweeps. `None` chooses by method ([`defaults::n_iter`]).
    pub n_iter: Option<usize>,
    /// The initialisation of every restart.
    pub init: Init,
    /// How many restarts run: a number, a work budget (the default) or the
    /// best-effort search ([`NInit`]).
    pub n_init: NInit,
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
    /// The fewest rows a cluster may hold (`None`: 1). Sizes count rows,
    /// with or without sample weights (`docs/bounded-sizes.md`).
    pub size_min: Option<SizeBound>,
    /// The most rows a cluster may hold (`None`: no bound).
    pub size_max: Option<SizeBound>,
}

impl Params {
    /// Defaults for everything but `k`.
    pub fn new(k: usize) -> Self {
        Params {
            k,
            method: defaults::METHOD,
            metric: defaults::METRIC,
            n_iter: None,
            init: defaults::init(),
            n_init: defaults::N_INIT,
            schedule: defaults::SCHEDULE,
            polish: defaults::POLISH,
            refine: defaults::REFINE,
            n_threads: None,
            seed: None,
            tol: None,
            size_min: None,
            size_max: None,
        }
    }

    /// Sets the method.
    pub fn method(mut self, method: Method) -> Self {
        self.method = method;
        self
    }
    /// Sets the metric.
    pub fn metric(mut self, metric: Metric) -> Self {
        self.metric = metric;
        self
    }
    /// Sets `n_iter`: the length of Smartigan's schedule, or the cap on
    /// Lloyd iterations and Hartigan sweeps. `None` (the default) chooses by
    /// method and problem size ([`defaults::n_iter_for`]).
    pub fn n_iter(mut self, n_iter: impl Into<Option<usize>>) -> Self {
        self.n_iter = n_iter.into();
        self
    }
    /// Sets the initialisation.
    pub fn init(mut self, init: Init) -> Self {
        self.init = init;
        self
    }
    /// Sets how many restarts run: a number (`n_init(10)`), or
    /// [`NInit::Auto`] or [`NInit::Best`].
    pub fn n_init(mut self, n_init: impl Into<NInit>) -> Self {
        self.n_init = n_init.into();
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
    /// Sets the size of the per-call thread pool; `None` (the default)
    /// means all cores.
    pub fn n_threads(mut self, n_threads: impl Into<Option<usize>>) -> Self {
        self.n_threads = n_threads.into();
        self
    }
    /// Sets the seed; `None` (the default) draws one from the operating
    /// system (reported in the result).
    pub fn seed(mut self, seed: impl Into<Option<u64>>) -> Self {
        self.seed = seed.into();
        self
    }
    /// Sets the early stop of every descent (Lloyd iterations, Hartigan
    /// sweeps, Smartigan's polish, refinement's re-convergence; never a
    /// schedule sweep): a step that lowers the objective by at most `tol`
    /// times the objective ends the descent as converged. `0` runs until no
    /// point moves, so Hartigan and polished Smartigan end at a local optimum
    /// for single-point moves. With `tol > 0` refinement also tries only
    /// merge-split moves that lower the objective by themselves, before
    /// re-converging. `None` (the default) chooses by the problem's size
    /// ([`defaults::tol`]).
    pub fn tol(mut self, tol: impl Into<Option<f64>>) -> Self {
        self.tol = tol.into();
        self
    }

    /// Sets the fewest rows of each cluster: one number for every cluster
    /// (`size_min(5)`), one per cluster (`size_min(vec![…])`) or
    /// [`SizeBound::Balanced`] (`⌊n/k⌋`).
    pub fn size_min(mut self, bound: impl Into<SizeBound>) -> Self {
        self.size_min = Some(bound.into());
        self
    }
    /// Sets the most rows of each cluster, as [`Params::size_min`]
    /// ([`SizeBound::Balanced`]: `⌈n/k⌉`).
    pub fn size_max(mut self, bound: impl Into<SizeBound>) -> Self {
        self.size_max = Some(bound.into());
        self
    }
    /// Balanced clusters: between `⌊n/k⌋` and `⌈n/k⌉` rows each.
    pub fn balanced(self) -> Self {
        self.size_min(SizeBound::Balanced)
            .size_max(SizeBound::Balanced)
    }

    /// Validates everything that does not depend on the data. The checks
    /// that need the data's shape (`k ≤ n`, the shape of given centroids)
    /// run with each operation on the data.
    pub fn check(self) -> Result<ValidParams> {
        if self.k < 1 {
            return Err(Error::invalid("k", self.k, "must be at least 1"));
        }
        check_count("n_iter", self.n_iter, MAX_N_ITER)?;
        if let NInit::Count(n) = self.n_init {
            check_count("n_init", Some(n), MAX_N_INIT)?;
        }
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
        sizes::check_bounds(self.size_min.as_ref(), self.size_max.as_ref(), self.k)?;
        Ok(ValidParams {
            seed: self.seed.unwrap_or_else(crate::rng::entropy_seed),
            n_threads,
            n_iter: self
                .n_iter
                .unwrap_or_else(|| defaults::n_iter(descent_method(self.method, self.n_init))),
            budget: None,
            p: self,
        })
    }
}

/// The method restarts of `method` run under `n_init` ([`ValidParams::method`]).
fn descent_method(method: Method, n_init: NInit) -> Method {
    match (method, n_init) {
        (Method::Smartigan, NInit::Fast) => Method::Hartigan,
        _ => method,
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

/// Parameters that passed [`Params::check`]; the seed and thread count are
/// resolved (an unset `n_iter` is resolved for the data's size when a fit
/// runs: [`defaults::n_iter_for`]). The checks that need the data run with
/// each operation.
///
/// ```
/// use smartigan::{Method, Params};
/// let p = Params::new(3).n_iter(10).schedule(1.4, 0.9).seed(1).check().unwrap();
/// assert_eq!((p.seed(), p.n_iter(), p.method()), (1, 10, Method::Smartigan));
/// assert_eq!(p.schedule(), (1.4, 0.9));
/// let x = ndarray::array![[0.0], [1.0]];
/// assert!(p.fit(&x).is_err()); // k = 3 > n = 2
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ValidParams {
    p: Params,
    seed: u64,
    n_threads: usize,
    n_iter: usize,
    /// The budget of `n_init = "auto"`, in passes, where it is not the
    /// problem's own ([`defaults::auto_budget`]): a search on a sample
    /// spends the whole fit's ([`ValidParams::for_sample`]).
    budget: Option<f64>,
}

impl ValidParams {
    /// Number of clusters.
    pub fn k(&self) -> usize {
        self.p.k
    }
    /// The algorithm the restarts run: as given, except that the one
    /// descent of [`NInit::Fast`] skips Smartigan's relaxed schedule, so a
    /// Smartigan restart then runs as a Hartigan descent (its polish
    /// alone, capped by `n_iter` as Hartigan's is).
    pub fn method(&self) -> Method {
        descent_method(self.p.method, self.p.n_init)
    }
    /// The metric.
    pub fn metric(&self) -> Metric {
        self.p.metric
    }
    /// Smartigan's schedule length, or the Lloyd/Hartigan cap: the one
    /// given, or [`defaults::n_iter`] for the method (small problems; a
    /// fit resolves an unset one for the data's size,
    /// [`defaults::n_iter_for`]).
    pub fn n_iter(&self) -> usize {
        self.n_iter
    }
    /// [`ValidParams::n_iter`] for `n` rows of `d` features: where none was
    /// given, [`defaults::n_iter_for`] (a shorter Smartigan schedule on
    /// larger problems).
    pub(crate) fn n_iter_for(&self, n: usize, d: usize) -> usize {
        match self.p.n_iter {
            None if self.n_iter == defaults::n_iter(self.method()) => {
                defaults::n_iter_for(self.method(), n, d, self.p.k)
            }
            _ => self.n_iter,
        }
    }
    /// Whether Smartigan's schedule length for `n` rows of `d` features is
    /// chosen by its first sweep ([`defaults::schedule_length`]): `n_iter`
    /// not given, on a larger problem.
    pub(crate) fn adaptive_schedule(&self, n: usize, d: usize) -> bool {
        self.method() == Method::Smartigan
            && self.p.n_iter.is_none()
            && !defaults::is_small(n, d, self.p.k)
    }
    /// The initialisation.
    pub fn init(&self) -> &Init {
        &self.p.init
    }
    /// How many restarts run.
    pub fn n_init(&self) -> NInit {
        self.p.n_init
    }
    /// Smartigan's schedule.
    pub fn schedule(&self) -> (f64, f64) {
        self.p.schedule
    }
    /// Whether Smartigan ends with Hartigan sweeps.
    pub fn polish(&self) -> bool {
        self.p.polish
    }
    /// Whether restarts end with merge-split refinement: as given, except
    /// that the one descent of [`NInit::Fast`] has none.
    pub fn refine(&self) -> bool {
        self.p.refine && self.p.n_init != NInit::Fast
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
    /// features: the one given, or [`defaults::tol`] ([`defaults::fast_tol`]
    /// for [`NInit::Fast`]).
    pub(crate) fn tol(&self, n: usize, d: usize) -> f64 {
        self.p.tol.unwrap_or_else(|| match self.p.n_init {
            NInit::Fast => defaults::fast_tol(n, d, self.p.k),
            _ => defaults::tol(n, d, self.p.k),
        })
    }

    /// The fewest rows of each cluster, as given.
    pub fn size_min(&self) -> Option<&SizeBound> {
        self.p.size_min.as_ref()
    }
    /// The most rows of each cluster, as given.
    pub fn size_max(&self) -> Option<&SizeBound> {
        self.p.size_max.as_ref()
    }
    /// Whether size bounds were given (binding or not).
    pub(crate) fn has_size_bounds(&self) -> bool {
        self.p.size_min.is_some() || self.p.size_max.is_some()
    }
    /// The size bounds of a fit on `n` rows where they bind (some
    /// clustering the unconstrained engine may return breaks them), else
    /// `None`: bounds every clustering meets change nothing, and the fit is
    /// the unconstrained one, bit for bit. Bounds that no clustering can
    /// meet were refused by [`ValidParams::check_data`].
    pub(crate) fn size_bounds(&self, n: usize) -> Option<SizeBounds> {
        if !self.has_size_bounds() {
            return None;
        }
        SizeBounds::resolve(self.size_min(), self.size_max(), n, self.p.k)
            .ok()
            .filter(|b| b.bind(n))
    }

    /// The tolerance the caller gave, if any (`None`: `"auto"`).
    pub(crate) fn given_tol(&self) -> Option<f64> {
        self.p.tol
    }

    /// Whether the caller chose the restarts (a number, or the best-effort
    /// search) rather than leaving them to the budget.
    pub(crate) fn given_n_init(&self) -> bool {
        self.p.n_init != NInit::Auto
    }

    /// Smartigan's acceptance factor in schedule sweep `t` (0-based) of a
    /// schedule of `n_iter` sweeps: `start − (start − end)·t/n_iter`, the
    /// paper's `3/2 − n_iter/(2·N_iter)` for the default `(1.5, 1.0)`.
    pub(crate) fn acceptance_factor(&self, n_iter: usize, t: usize) -> f64 {
        crate::params::schedule::acceptance_factor(self.p.schedule, n_iter, t)
    }

    /// These parameters for the restarts a seeded candidate descends on a
    /// sample of `m` rows ([`crate::fit::sample`]) of data of `n` rows and
    /// `d` features: [`defaults::SAMPLE_RESTARTS`] of them, or where
    /// [`defaults::sample_searched`] the search of `n_init = "auto"` with
    /// the whole fit's budget (its passes over all rows, as passes over the
    /// sample: `n/m` times as many); with the whole data's tolerance (the
    /// sample's size would ask for a full descent, whose last gains the
    /// descent on all rows redoes anyway), everything else unchanged.
    pub(crate) fn for_sample(&self, n: usize, d: usize, m: usize) -> ValidParams {
        let mut sample = self.clone();
        if defaults::sample_searched(n, d, self.k()) {
            sample.p.n_init = NInit::Auto;
            let share = n as f64 / m.max(1) as f64;
            sample.budget = Some(self.auto_budget(n, d) * share);
        } else {
            sample.p.n_init = NInit::Count(defaults::SAMPLE_RESTARTS);
        }
        sample.p.tol = Some(self.tol(n, d));
        sample
    }

    /// The budget of `n_init = "auto"` on `n` rows of `d` features, in
    /// passes: [`defaults::auto_budget`], or a sample's search's (see
    /// [`ValidParams::for_sample`]).
    pub(crate) fn auto_budget(&self, n: usize, d: usize) -> f64 {
        self.budget
            .unwrap_or_else(|| defaults::auto_budget(n, d, self.k()))
    }

    /// These parameters starting from `centroids` (in the caller's
    /// coordinates): how a seeded candidate starts on all rows.
    pub(crate) fn starting_at(&self, centroids: ndarray::Array2<f64>) -> ValidParams {
        let mut from = self.clone();
        from.p.init = Init::Centroids(centroids);
        from
    }

    /// These parameters with `k` clusters (a path's fit at another `k`,
    /// [`crate::fit::path`]).
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

    /// These parameters for the children of the best-effort search
    /// ([`crate::fit::search`]): they descend by the method's own rule from
    /// moved centroids, so Smartigan's children descend by Hartigan sweeps
    /// (a schedule of relaxed sweeps would scatter the solution they keep);
    /// everything else unchanged.
    pub(crate) fn for_children(&self) -> ValidParams {
        let mut children = self.clone();
        if children.p.method == Method::Smartigan {
            children.p.method = Method::Hartigan;
            children.p.n_iter = None;
            children.n_iter = defaults::n_iter(Method::Hartigan);
        }
        children
    }

    /// These parameters for a Hartigan descent at `k` from a given
    /// partition (a step of a path, [`crate::fit::path`]): Hartigan sweeps
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
    pub(crate) fn check_data(&self, n: usize, d: usize) -> Result<()> {
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
        if self.has_size_bounds() {
            let bounds = SizeBounds::resolve(self.size_min(), self.size_max(), n, self.p.k)?;
            if bounds.bind(n) && self.p.method == Method::Lloyd {
                return Err(Error::invalid(
                    "method",
                    "'lloyd'",
                    "size bounds (size_min, size_max) need 'hartigan' or 'smartigan': their \
                     transfers and swaps keep the bounds",
                ));
            }
        }
        Ok(())
    }
}
