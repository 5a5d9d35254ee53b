//! What every parameter left unset means. The values a user sets have
//! their defaults here as public items; the rules by which `n_iter`,
//! `n_init` and `tol` follow the problem's size when they are not given are
//! the functions [`n_iter_for`], [`auto_budget`] (and [`best_budget`]) and
//! [`tol`]. The defaults
//! are the cheapest settings, in time, whose objective is within the
//! project's bar of the best known on the paper's data sets
//! (`benches/results/paper.md`, §4) and below scikit-learn's default on the
//! benchmark workloads (`benches/README.md`).

use super::{Init, Method, Metric, NInit};

/// Default method.
pub const METHOD: Method = Method::Smartigan;
/// Default metric: the k-means objective.
pub const METRIC: Metric = Metric::Euclidean;
/// Default length of Smartigan's schedule on small problems: the
/// shortest schedule that, restarted twenty times, met the
/// bar on every paper cell.
pub const N_ITER: usize = 20;
/// Rows per centre of the uniform sample a large fit's k-means++ start
/// is drawn from (at least 16,384 rows and `n·d·k ≥ 2^24`, where the
/// sample is at most half the rows). The start then costs `16·k/n` of a
/// start on every row, a small share of a large fit instead of about half
/// its restart; a larger sample trades that time for an objective nearer
/// the full start's (benches/journal/issue-70.md has the trade measured).
pub(crate) const PLUS_PLUS_ROWS_PER_CENTRE: usize = 16;
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
/// The largest `n·d·k` (multiply-adds of one pass) that counts as small:
/// below it twenty fully converged restarts together take a fraction of
/// a second. Every paper cell is small.
pub(crate) const SMALL_PROBLEM: usize = 1 << 20;
/// The cost of one pass over the data (a sweep, a Lloyd iteration, a
/// refinement step, a k-means++ centre's candidates), in multiply-adds:
/// `n·(d·k + PASS_OVERHEAD)`. The work of a restart is counted in passes
/// from what it did (its steps and the passes of its start), never in
/// seconds, so that the restarts a budget allows are the same on every
/// machine and for every thread count.
pub fn pass_work(n: usize, d: usize, k: usize) -> f64 {
    n as f64 * (d as f64 * k as f64 + PASS_OVERHEAD)
}
/// Lloyd iterations of the 2-means split of one cluster in merge-split
/// refinement ([`crate::engine::refine`]).
pub(crate) const SPLIT_ITERS: usize = 10;
/// What one merge-split proposal of the refinement costs, in passes
/// ([`pass_work`]): its 2-means splits read each row of the clusters they
/// split up to 12 times (their Lloyd iterations and passes of costs),
/// against two centres each time (counted as if every cluster were split:
/// the first proposal splits them all, later ones those that changed). On
/// small problems (`n·d·k <= 2^20`) nothing: there the fixed work and the
/// share of it after which the short stall may end a search were set
/// counting steps only, and counting proposals would end the paper's
/// searches sooner, for milliseconds.
///
/// ```
/// use smartigan::defaults;
/// assert_eq!(defaults::proposal_passes(150, 4, 3), 0.0);
/// let shuttle = defaults::proposal_passes(58_000, 9, 10); // 12 reads at 50 of 122
/// assert!((shuttle - 12.0 * 50.0 / 122.0).abs() < 1e-12);
/// ```
pub fn proposal_passes(n: usize, d: usize, k: usize) -> f64 {
    if is_small(n, d, k) {
        return 0.0;
    }
    let reads = (SPLIT_ITERS + 2) as f64;
    reads * pass_work(n, d, 2) / pass_work(n, d, k)
}
/// What a pass costs per point besides the `d·k` multiply-adds of its
/// distances (visiting order, labels, bounds, statistics), in
/// multiply-adds: on small `d·k` this is most of a pass.
pub(crate) const PASS_OVERHEAD: f64 = 32.0;
/// The work `n_init = "auto"` may spend whatever the problem's size, in
/// multiply-adds, on small problems (`n·d·k` up to `2^20`): about what this
/// machine's kind does in a few hundredths of a second, the fixed cost
/// users accept from any fit. Small problems spend it on many candidates.
pub(crate) const AUTO_FIXED_WORK: f64 = (1u64 << 28) as f64;
/// The same on problems of `n·d·k` from `2^22` up. Between `2^20` and
/// `2^22` the fixed work falls as `1/(n·d·k)`, from [`AUTO_FIXED_WORK`] to
/// this: there one restart already costs about what scikit-learn's default
/// does, and a second one would double the time on data where it finds
/// nothing new (separated groups).
pub(crate) const AUTO_FIXED_WORK_LARGE: f64 = (1u64 << 26) as f64;
/// `n·d·k` up to which a problem gets the whole [`AUTO_FIXED_WORK`].
const AUTO_FIXED_UP_TO: f64 = (1u64 << 20) as f64;
/// The passes `n_init = "auto"` may spend on any problem: about what one
/// restart (k-means++, Smartigan's schedule, polish, refinement) takes on
/// large problems, where scikit-learn's default spends a k-means++ start
/// and tens of Lloyd iterations, so that the default costs no more than it
/// there.
pub(crate) const AUTO_PASSES: f64 = 25.0;
/// The passes `n_init = "auto"` may spend, at least, once its finished
/// candidates disagree (their objectives further apart than
/// [`RUGGED_REL`]): on a rugged landscape one restart's result is a draw
/// among optima that far apart, so the search runs three restarts' worth
/// of candidates before it settles for the best.
pub(crate) const AUTO_RUGGED_PASSES: f64 = 3.0 * AUTO_PASSES;
/// The relative spread of the candidates' objectives beyond which the
/// landscape counts as rugged: the default's target distance from the best
/// known objective, a tenth of a percent.
pub(crate) const RUGGED_REL: f64 = 1e-3;
/// The budget of `n_init = "auto"` for `n` rows of `d` features and `k`
/// clusters, in passes ([`pass_work`]; a merge-split proposal counts as
/// [`proposal_passes`]): the larger of 25 passes and a fixed work of `2^28`
/// multiply-adds while `n·d·k ≤ 2^20`, falling as `1/(n·d·k)` to `2^26` at
/// `n·d·k = 2^22` and staying there. The first restart always runs; where
/// [`sample_rows`] gives a sample, a candidate descended on it first (four
/// restarts on the sample, the best descended again on all rows) runs
/// beside it, outside the budget. The search then goes on as the
/// best-effort one does (a population of restarts, then children of its
/// best members), with a population of 4 and generations of 4 children,
/// while the work done, plus what candidates of the next kind have cost on
/// average, stays within the budget, and until 48 children in a row have
/// not lowered the best objective (12, and as many as the candidates before
/// the best one, once a sixteenth of the budget is spent); where the four
/// restarts end at one objective (within a relative `1e-9`: a solved
/// problem) no child runs. Where the candidates' objectives lie more than
/// 0.1 % apart, the budget is at least 75 passes (a rugged landscape). On
/// large problems whose candidates agree, that is the two first ones.
///
/// ```
/// use smartigan::defaults;
/// assert_eq!(defaults::auto_budget(100_000, 32, 100), 25.0); // large: the passes
/// assert!(defaults::auto_budget(150, 4, 3) > 5000.0); // small: the fixed work
/// // n·d·k = 2^21.3: the fixed work has fallen to 2^26.7, about 34 passes here
/// let between = defaults::auto_budget(20_000, 8, 16);
/// assert!(between > 25.0 && between < 35.0);
/// ```
pub fn auto_budget(n: usize, d: usize, k: usize) -> f64 {
    let size = n as f64 * d as f64 * k as f64;
    let fixed = (AUTO_FIXED_WORK * AUTO_FIXED_UP_TO / size.max(1.0))
        .clamp(AUTO_FIXED_WORK_LARGE, AUTO_FIXED_WORK);
    (fixed / pass_work(n, d, k)).max(AUTO_PASSES)
}
/// `n·d·k` from which `n_init = "auto"` adds a candidate descended on a
/// sample ([`sample_rows`]): `2^21`, about where its budget
/// ([`auto_budget`]) has room for one or two restarts on all rows, so that
/// candidates must be cheaper than a restart for the search to have any.
pub(crate) const SAMPLE_FROM: f64 = (1u64 << 21) as f64;
/// `n·d·k` up to which it does (`2^24`, below it): beyond, a restart takes
/// seconds and runs its sweeps in rounds on every core, scikit-learn's
/// default (a greedy k-means++ start and tens of full Lloyd iterations)
/// costs several of ours, and a second candidate would double the time of
/// every large fit, embeddings above all, for the fraction of a percent it
/// finds there.
pub(crate) const SAMPLE_BELOW: f64 = (1u64 << 24) as f64;
/// The share of the rows that candidate's restarts descend on: an eighth,
/// so that each costs about an eighth of a restart on all rows.
pub(crate) const SAMPLE_SHARE: usize = 8;
/// The fewest rows per cluster in such a sample: fewer leave a cluster a
/// handful of points, whose centroid then says little about the rest.
pub(crate) const SAMPLE_ROWS_PER_CENTRE: usize = 32;
/// The most of the rows such a sample may hold, as a share (a quarter):
/// beyond, the candidate costs nearly what a restart on all rows does.
pub(crate) const SAMPLE_MOST_SHARE: usize = 4;
/// Restarts descended on the sample; the best of them seeds the candidate.
pub(crate) const SAMPLE_RESTARTS: usize = 4;
/// The fewest rows per cluster a sample must hold, on average, for
/// `n_init = "auto"` to search it on problems of `n·d·k` from `2^24` up
/// ([`sample_searched`]). There a restart on all rows takes a large share of
/// the default's time, so the search's candidates are descended on the
/// sample; with 512 rows a cluster the sample's optimum keeps the shape of
/// every cluster but the smallest, whose detail the descent on all rows
/// restores. A sample with fewer rows a cluster loses the small clusters
/// that a restart on all rows keeps, so there the fit runs that restart.
pub(crate) const SAMPLE_SEARCH_ROWS_PER_CENTRE: usize = 512;
/// The rows of the sample on which `n_init = "auto"` descends a candidate
/// (a uniform sample, descended first) for `n` rows of `d` features and `k`
/// clusters: an eighth of the rows, at least 32 per cluster, where `n·d·k`
/// is at least `2^21` and below `2^24` and that is at most a quarter of the
/// rows; from `2^24` up, an eighth of the rows where that is at least 512
/// per cluster ([`sample_searched`]); else `None` (below, the budget has
/// room for restarts on all rows; above with fewer rows per cluster, one
/// restart costs more than scikit-learn's default would spend).
///
/// ```
/// use smartigan::defaults;
/// assert_eq!(defaults::sample_rows(20_000, 16, 10), Some(2_500));
/// assert_eq!(defaults::sample_rows(4_601, 57, 10), Some(575));
/// assert_eq!(defaults::sample_rows(5_000, 57, 40), None); // 1,280 rows: over a quarter
/// assert_eq!(defaults::sample_rows(10_992, 16, 10), None); // n·d·k below 2^21
/// assert_eq!(defaults::sample_rows(100_000, 32, 100), None); // 125 rows a cluster
/// assert_eq!(defaults::sample_rows(245_057, 3, 25), Some(30_632)); // 1,225 a cluster
/// ```
pub fn sample_rows(n: usize, d: usize, k: usize) -> Option<usize> {
    if sample_searched(n, d, k) {
        return Some(n / SAMPLE_SHARE);
    }
    let size = n as f64 * d as f64 * k as f64;
    let rows = (n / SAMPLE_SHARE).max(SAMPLE_ROWS_PER_CENTRE.saturating_mul(k));
    let in_range = (SAMPLE_FROM..SAMPLE_BELOW).contains(&size);
    (in_range && rows <= n / SAMPLE_MOST_SHARE).then_some(rows)
}
/// Whether `n_init = "auto"` searches its sample (restarts, then children,
/// as it searches all rows of a smaller problem) rather than running four
/// restarts on it, for `n` rows of `d` features and `k` clusters: where
/// `n·d·k` is at least `2^24` and an eighth of the rows holds at least 512
/// per cluster (a sample with fewer loses the small clusters). That
/// search spends the fit's budget ([`auto_budget`]) in passes over the
/// sample, eight for each pass over all rows, and its best centroids,
/// descended once on all rows by Hartigan sweeps and refined, are the
/// fit's result: no restart runs on all rows.
///
/// ```
/// use smartigan::defaults;
/// assert!(defaults::sample_searched(245_057, 3, 25));
/// assert!(!defaults::sample_searched(100_000, 384, 256)); // 49 rows a cluster
/// assert!(!defaults::sample_searched(20_000, 16, 25)); // n·d·k below 2^24
/// ```
pub fn sample_searched(n: usize, d: usize, k: usize) -> bool {
    let size = n as f64 * d as f64 * k as f64;
    size >= SAMPLE_BELOW && n / SAMPLE_SHARE >= SAMPLE_SEARCH_ROWS_PER_CENTRE.saturating_mul(k)
}
/// The most restarts `n_init = "auto"` runs where size bounds bind: as
/// many as k-means-constrained's default, the solver a bounded fit
/// replaces. Balanced bounds block most transfers, so a bounded descent
/// ends in a poor local optimum far more often than an unconstrained one,
/// and merge-split refinement, whose gains let one unconstrained restart
/// suffice on large problems, cannot keep the bounds: independent restarts
/// are what lowers the objective there.
pub(crate) const BOUNDED_RESTARTS: usize = 10;
/// The multiply-adds of one pass (`n·d·k`) times the restarts, up to which
/// a bounded fit runs [`BOUNDED_RESTARTS`]: `2^28`, a few tenths of a
/// second of distances. Beyond, the count falls as `1/(n·d·k)` to one.
pub(crate) const BOUNDED_WORK: f64 = (1u64 << 28) as f64;
/// The restarts `n_init = "auto"` runs where size bounds bind, for `n`
/// rows of `d` features and `k` clusters: `2^28 / (n·d·k)`, at least one
/// and at most 10 (k-means-constrained's default count).
///
/// ```
/// use smartigan::defaults;
/// assert_eq!(defaults::bounded_restarts(20_000, 16, 26), 10);
/// assert_eq!(defaults::bounded_restarts(50_000, 32, 50), 3);
/// assert_eq!(defaults::bounded_restarts(100_000, 384, 256), 1);
/// ```
pub fn bounded_restarts(n: usize, d: usize, k: usize) -> usize {
    let size = (n as f64 * d as f64 * k as f64).max(1.0);
    ((BOUNDED_WORK / size).floor() as usize).clamp(1, BOUNDED_RESTARTS)
}
/// Restarts of `n_init = "auto"` before children, and its most members.
pub(crate) const AUTO_POPULATION: usize = 4;
/// Children of one generation of `n_init = "auto"`, at most.
pub(crate) const AUTO_GENERATION: usize = 4;
/// `n_init = "auto"` ends once at least this many children in a row have
/// not lowered the best objective, and at least as many as the candidates
/// that ran before the best one was found, where it has spent
/// [`AUTO_STALL_FROM_SHARE`] of its budget: a search whose best came at once
/// has met a landscape with few optima and ends soon, one whose best came
/// late searches again as long before it gives up.
pub(crate) const AUTO_STALL: usize = 12;
/// The share of its budget `n_init = "auto"` spends before the short stall
/// of [`AUTO_STALL`] may end it (a longer one, [`AUTO_STALL_LONG`], ends it
/// anyway): on the smallest problems a dozen children cost a few
/// milliseconds, and searching on is cheaper than the optimum it may miss.
pub(crate) const AUTO_STALL_FROM_SHARE: f64 = 1.0 / 16.0;
/// Children in a row without a lower best objective that end `n_init =
/// "auto"` whatever it has spent.
pub(crate) const AUTO_STALL_LONG: usize = 48;
/// Relative difference within which two objectives count as one optimum.
pub(crate) const AGREE_REL: f64 = 1e-9;
/// The best-effort search's population: restarts first, then their best
/// members' children replace the worst.
pub(crate) const BEST_POPULATION: usize = 10;
/// Children of one generation of the best-effort search (descended side
/// by side; the generation's size does not depend on the thread count).
pub(crate) const BEST_GENERATION: usize = 8;
/// The best-effort search ends once this many children in a row have not
/// lowered the best objective.
pub(crate) const BEST_STALL: usize = 48;
/// The most work the best-effort search spends, in passes: this many times
/// the default's budget.
pub(crate) const BEST_BUDGET_FACTOR: f64 = 100.0;
/// The budget of `n_init = "best"`, in passes ([`pass_work`]): a hundred
/// times [`auto_budget`]. The search usually ends before, once 48 children
/// in a row have not lowered its best objective.
pub fn best_budget(n: usize, d: usize, k: usize) -> f64 {
    BEST_BUDGET_FACTOR * auto_budget(n, d, k)
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
/// The tolerance of `n_init = "fast"` on larger problems: its one descent
/// ends when a step gains less than this share of the objective. Where
/// Hartigan's sweeps each cost about one pass over the data (embeddings:
/// overlapping clusters in many dimensions, whose distance bounds rarely
/// skip a row), each sweep past this point costs a full pass for a
/// gain of a few hundredths of a per cent, and a long tail of such sweeps
/// would double the descent. The same value ends the candidate descents
/// of `cluster_path`'s search.
pub const FAST_TOL: f64 = 1e-4;
/// The tolerance of `n_init = "fast"` when none is given: 0 on small
/// problems, as for [`tol`], else [`FAST_TOL`].
///
/// ```
/// use smartigan::defaults;
/// assert_eq!(defaults::fast_tol(150, 4, 3), 0.0);
/// assert_eq!(defaults::fast_tol(100_000, 32, 100), 1e-4);
/// ```
pub fn fast_tol(n: usize, d: usize, k: usize) -> f64 {
    if is_small(n, d, k) {
        0.0
    } else {
        FAST_TOL
    }
}
/// Default number of restarts: by work ([`auto_budget`]).
pub const N_INIT: NInit = NInit::Auto;
/// Default initialisation: on the paper's data sets k-means++ starts gave
/// the lowest objective for the time at every budget measured.
pub fn init() -> Init {
    Init::KMeansPlusPlus
}

/// Threads of a per-call pool for `n_threads` requested: no more than the
/// machine runs at once ([`std::thread::available_parallelism`]). Threads
/// beyond that add no parallel work, only start-up, memory and switching;
/// results do not depend on the count.
pub(crate) fn pool_threads(n_threads: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    n_threads.clamp(1, cores.max(1))
}

/// Whether a restart may split its steps over the pool's threads: where
/// fewer restarts than threads run side by side (the result is the same
/// either way).
pub(crate) fn spare_threads(params: &super::ValidParams) -> bool {
    let side_by_side = match params.n_init() {
        NInit::Count(count) => count,
        // The budget's first restart runs alone, and on large problems it
        // is the only one.
        NInit::Auto | NInit::Fast => 1,
        NInit::Best => BEST_POPULATION,
    };
    side_by_side < pool_threads(params.n_threads())
}
