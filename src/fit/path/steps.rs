//! The passes of a path (module documentation of [`crate::fit::path`]): the fit
//! at `k_min`, growing by splits, the fits beside it, the merges from
//! above, growing again from below and the last pass that finishes every
//! `k`.

use super::policy::{
    fitted_ks, searched_fits, DRAW_FINISH_MARGIN, MERGE_CANDIDATES, SEARCH_TOL_LARGE,
};
use super::{Path, PathKeep, PathOrigin, PathStep};
use crate::clustering::Clustering;
use crate::control::Progress;
use crate::engine::move_rule::STALL_REL_MARGIN;
use crate::engine::refine::SplitCache;
use crate::engine::source::Source;
use crate::error::{Error, Result};
use crate::fit::multistart::{best_restart, build_pool, finished, start_batch, Best};
use crate::fit::restart::{Restart, CANDIDATE_AFTER_SWEEPS};
use crate::fit::search::Spec;
use crate::params::{defaults, Init, Method, ValidParams};
use crate::rng::{Stream, Xoshiro256PlusPlus};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

/// The path on any representation: the fit at `params.k()` on `pool`,
/// then the steps up to `k_top` (`k_max`, or past it with refinement, see
/// [`search_top`]), with `params.refine()` the fits at the `k` that get
/// one ([`fitted_ks`]) beside them and the refinement pass after, and the
/// range `..=k_max` kept.
pub(crate) fn run_path<S: Source>(
    pool: &rayon::ThreadPool,
    data: &S,
    params: &ValidParams,
    (k_max, k_top): (usize, usize),
    keep: PathKeep,
    (cancel, progress): (&AtomicBool, &Progress),
) -> Result<Path<S::Out>>
where
    S::State: Send,
{
    let steps = Steps {
        pool,
        data,
        params,
        cancel,
        progress,
    };
    let (n_ks, n_searched) = (k_max + 1 - params.k(), k_top + 1 - params.k());
    let (before, after) = if params.refine() {
        steps.fitted_ks(k_top)
    } else {
        (0, 0)
    };
    // Index in the path of the first `k` drawn once more, and whether any
    // such `k` is kept.
    let first_drawn = 1 + before;
    let finishing =
        (params.k()..=k_max).any(|k| steps.finishes(k)) || (after > 0 && first_drawn < n_ks);
    // Growing, the fits at each `k` and the merges over every `k`
    // searched; growing again and finishing over the `k` kept.
    let refining = if params.refine() {
        2 * (n_searched - 1) + (n_ks - 1)
    } else {
        0
    };
    progress.start(n_searched + refining + if finishing { n_ks } else { 0 });
    let (first, cache) = steps.fit(params)?;
    progress.advance(1);
    let fitted = params.k() + 1..params.k() + 1 + before + after;
    let searched_fits = steps.searched_fits(k_top);
    let threads = pool.current_num_threads();
    let (searched, fits) = if fitted.is_empty() || threads < 2 {
        (
            steps.search(first, cache, k_top),
            steps.fits(fitted, searched_fits),
        )
    } else if before > 0 {
        // The fits need nothing from the search: they run beside it. Those
        // of a small problem or of a given `n_init` are most of the work,
        // and share the whole pool with the search.
        pool.install(|| {
            rayon::join(
                || steps.search(first, cache, k_top),
                || steps.fits(fitted, searched_fits),
            )
        })
    } else {
        // A large problem's draws are a small share of the work: they run
        // beside the search on a thread of their own, the search on the
        // others. In one pool a thread that had finished its half of a
        // merge would take up a whole fit, and the search, one descent at
        // a time, would wait on it.
        let (search_pool, fit_pool) = (build_pool(threads - 1)?, build_pool(1)?);
        let search_steps = Steps {
            pool: &search_pool,
            ..steps
        };
        let fit_steps = Steps {
            pool: &fit_pool,
            ..steps
        };
        std::thread::scope(|scope| {
            let fits = scope.spawn(|| fit_steps.fits(fitted, searched_fits));
            let searched = search_steps.search(first, cache, k_top);
            let fits = fits
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (searched, fits)
        })
    };
    let (mut path, mut cache) = searched?;
    let mut fits = fits?;
    let mut draws: Vec<Option<Solution<S::Out>>> = (0..path.len()).map(|_| None).collect();
    if params.refine() {
        // The `k` left without a fit count as done.
        progress.advance(n_searched - 1 - before - after);
        for (slot, fit) in draws[first_drawn..].iter_mut().zip(fits.split_off(before)) {
            *slot = Some(fit);
        }
        let mut changed = keep_lower_fits(&mut path, fits);
        for (c, m) in changed.iter_mut().zip(steps.refine(&mut path)?) {
            *c |= m;
        }
        // The `k` past `k_max` have passed their merges down; only the
        // range asked for goes on.
        path.truncate(n_ks);
        changed.truncate(n_ks);
        draws.truncate(n_ks);
        steps.repair(&mut path, changed, &mut cache)?;
    }
    if finishing {
        path = steps.finish(path, draws, &mut cache)?;
    }
    let steps = path.into_iter().map(|s| s.into_step(keep)).collect();
    Ok(Path {
        steps,
        seed: params.seed(),
    })
}

/// One `k`'s solution while the path is built.
struct Solution<T> {
    clustering: Clustering<T>,
    origin: PathOrigin,
}

impl<T> Solution<T> {
    fn new(clustering: Clustering<T>, origin: PathOrigin) -> Self {
        Solution { clustering, origin }
    }

    fn k(&self) -> usize {
        self.clustering.cluster_sizes.len()
    }

    fn objective(&self) -> f64 {
        self.clustering.objective
    }

    /// Whether this solution is lower than `other` beyond rounding.
    fn is_lower_than(&self, other: &Self) -> bool {
        self.objective() < other.objective() * (1.0 - STALL_REL_MARGIN)
    }

    fn into_step(self, keep: PathKeep) -> PathStep<T> {
        let c = self.clustering;
        PathStep {
            k: c.cluster_sizes.len(),
            objective: c.objective,
            cluster_sizes: c.cluster_sizes.clone(),
            cluster_objectives: c.cluster_objectives.clone(),
            origin: self.origin,
            n_sweeps: c.n_sweeps,
            converged: c.converged,
            clustering: (keep == PathKeep::Clusterings).then_some(c),
        }
    }
}

/// What every descent of a path shares.
struct Steps<'a, S> {
    pool: &'a rayon::ThreadPool,
    data: &'a S,
    params: &'a ValidParams,
    cancel: &'a AtomicBool,
    progress: &'a Progress,
}

impl<S: Source> Steps<'_, S>
where
    S::State: Send,
{
    /// The relative tolerance of the search at `k`: the caller's; else 0
    /// where a fit at `k` descends to the end (small problems), and
    /// [`SEARCH_TOL_LARGE`] where it stops early.
    fn search_tol(&self, k: usize) -> f64 {
        match self.params.given_tol() {
            Some(tol) => tol,
            None if defaults::tol(self.data.n(), self.data.d(), k) > 0.0 => SEARCH_TOL_LARGE,
            None => 0.0,
        }
    }

    /// The tolerance every `k`'s solution ends at: the caller's, or 0 (a
    /// Hartigan local optimum, the path's promise).
    fn final_tol(&self) -> f64 {
        self.params.given_tol().unwrap_or(0.0)
    }

    /// Whether the solution at `k` is searched for at a larger tolerance
    /// than it must end at, and so needs [`Steps::finish`].
    fn finishes(&self, k: usize) -> bool {
        self.search_tol(k) > self.final_tol()
    }

    /// The usual multi-start fit with `params` (at its `k`), polished by
    /// Hartigan sweeps where its method does not end with them, and the
    /// splits its refinement computed.
    fn fit(&self, params: &ValidParams) -> Result<(Solution<S::Out>, SplitCache)> {
        let best = best_restart(self.pool, self.data, params, None, self.cancel)?;
        self.fitted(params, best)
    }

    /// One draw at `params.k()`: the first restart of the default search
    /// alone (restart 0, from its own stream: what a fit with `n_init = 1`
    /// runs), as a fit of one restart, polished as [`Steps::fit`] polishes.
    fn draw(&self, params: &ValidParams) -> Result<Solution<S::Out>> {
        let (data, cancel) = (self.data, self.cancel);
        let best = self.pool.install(|| -> Result<Best<S::State>> {
            let mut started = start_batch(data, params, vec![Spec::Fresh(0)], cancel)?;
            let first = started.pop().ok_or(Error::Interrupted)?;
            let done = finished(data, first, params, cancel)?;
            let restart = done.restart.ok_or(Error::Interrupted)?;
            data.check_precision(&restart.part, params)?;
            Ok(Best {
                index: done.index,
                objectives: vec![done.objective],
                passes: done.passes,
                restart,
            })
        })?;
        Ok(self.fitted(params, best)?.0)
    }

    /// The kept restart of a fit as a solution (polished where its method
    /// does not end with Hartigan sweeps), and the splits its refinement
    /// computed.
    fn fitted(
        &self,
        params: &ValidParams,
        best: Best<S::State>,
    ) -> Result<(Solution<S::Out>, SplitCache)> {
        let mut fit = best.restart;
        let mut c = fit.clustering(self.data, best.objectives, best.index, params.seed());
        let cache = fit.take_split_cache();
        // A Hartigan local optimum when it ended with Hartigan sweeps that
        // moved nothing.
        let hartigan_end = match params.method() {
            Method::Hartigan => true,
            Method::Smartigan => params.polish(),
            Method::Lloyd => false,
        };
        if !(hartigan_end && fit.converged()) {
            let polish = self.descend(params.k(), fit.part, self.search_tol(params.k()))?;
            c = polished(c, self.clustering(&polish));
        }
        Ok((Solution::new(c, PathOrigin::Fit), cache))
    }

    /// Grows the path from `first` (at `k_min`) up to `k_top`: each `k`
    /// from the one below ([`Steps::grow`]). Also gives back the splits
    /// computed (`cache` holds those of the first fit).
    fn search(
        &self,
        first: Solution<S::Out>,
        mut cache: SplitCache,
        k_top: usize,
    ) -> Result<(Vec<Solution<S::Out>>, SplitCache)> {
        let mut path = vec![first];
        for k in self.params.k() + 1..=k_top {
            let below = &path[path.len() - 1];
            path.push(self.grow(below, k, self.search_tol(k), &mut cache)?);
            self.progress.advance(1);
        }
        Ok((path, cache))
    }

    /// The `k` after the first that get the usual fit before and after the
    /// merges from above ([`fitted_ks`]); none where the caller's starts
    /// are centroids for one `k`.
    fn fitted_ks(&self, k_top: usize) -> (usize, usize) {
        if matches!(self.params.init(), Init::Centroids(_)) {
            return (0, 0);
        }
        let every_k = self.params.given_n_init();
        let size = (self.data.n(), self.data.d());
        fitted_ks(self.params.k(), k_top, every_k, size)
    }

    /// Whether the fits at the `k` after the first run the usual search of
    /// restarts or one restart each ([`searched_fits`]).
    fn searched_fits(&self, k_top: usize) -> bool {
        let size = (self.data.n(), self.data.d());
        searched_fits(self.params.given_n_init(), size, k_top)
    }

    /// The fit at each `k` of `ks`, side by side on the steps' pool: the
    /// usual fit where `searched` ([`searched_fits`]), else one draw
    /// ([`Steps::draw`]).
    fn fits(&self, ks: std::ops::Range<usize>, searched: bool) -> Result<Vec<Solution<S::Out>>> {
        self.pool.install(|| {
            ks.into_par_iter()
                .map(|k| {
                    let params = self.params.with_k(k);
                    let fit = if searched {
                        self.fit(&params)?.0
                    } else {
                        self.draw(&params)?
                    };
                    self.progress.advance(1);
                    Ok(fit)
                })
                .collect()
        })
    }

    /// The descent at `k` from `state` ([`Restart::descent`]), run until no
    /// point moves or a sweep gains at most `tol` of the objective.
    fn descend(&self, k: usize, state: S::State, tol: f64) -> Result<Restart<S::State>> {
        self.descend_with(k, state, tol, false)
    }

    /// [`Steps::descend`], with candidate sweeps after
    /// [`CANDIDATE_AFTER_SWEEPS`] where `candidates` (the last pass: its
    /// long tails are most of a path's time on heavily overlapping data).
    fn descend_with(
        &self,
        k: usize,
        state: S::State,
        tol: f64,
        candidates: bool,
    ) -> Result<Restart<S::State>> {
        if self.cancel.load(Ordering::Relaxed) {
            return Err(Error::Interrupted);
        }
        let order = Xoshiro256PlusPlus::stream(self.params.seed(), k as u64, Stream::PathOrder);
        let params = self.params.descent(k);
        let mut restart = Restart::descent(self.data, state, order, tol);
        if candidates {
            restart = restart.with_candidate_sweeps(CANDIDATE_AFTER_SWEEPS);
        }
        self.pool
            .install(|| restart.run_to_end(self.data, &params, self.cancel))?;
        Ok(restart)
    }

    /// A finished descent's result, as a fit of one restart.
    fn clustering(&self, descent: &Restart<S::State>) -> Clustering<S::Out> {
        let mut c = descent.clustering(self.data, Vec::new(), 0, self.params.seed());
        c.restart_objectives = vec![c.objective];
        c
    }

    fn state(&self, s: &Solution<S::Out>) -> S::State {
        self.data
            .labelled_state(s.k(), s.clustering.labels.to_vec())
    }

    /// The solution at `k` grown from `below` (at `k − 1`): its best split,
    /// then Hartigan sweeps down to `tol`. `cache`: the splits computed so
    /// far.
    fn grow(
        &self,
        below: &Solution<S::Out>,
        k: usize,
        tol: f64,
        cache: &mut SplitCache,
    ) -> Result<Solution<S::Out>> {
        let (start, split) = self
            .pool
            .install(|| self.data.split(&self.state(below), cache));
        let descent = self.descend(k, start, tol)?;
        let origin = split.map_or(PathOrigin::Filled, PathOrigin::Split);
        Ok(Solution::new(self.clustering(&descent), origin))
    }

    /// The refinement pass: from the last `k` down, each solution is also
    /// reached from above, from each of the [`MERGE_CANDIDATES`] cheapest
    /// merges of the `k + 1` solution (as it stands, so that an improvement
    /// passes down) followed by Hartigan sweeps, and the lowest of them
    /// replaces it where it is lower by more than rounding.
    fn refine(&self, path: &mut [Solution<S::Out>]) -> Result<Vec<bool>>
    where
        S::State: Send,
    {
        let mut changed = vec![false; path.len()];
        for i in (0..path.len().saturating_sub(1)).rev() {
            if let Some(better) = self.reached_from_above(&path[i], &path[i + 1])? {
                path[i] = better;
                changed[i] = true;
            }
            self.progress.advance(1);
        }
        Ok(changed)
    }

    /// The best solution at `current`'s `k` reached by merging two
    /// clusters of `above`, if it is lower than `current` beyond rounding.
    /// The merges are descended side by side on the pool and compared in
    /// order (ties to the cheaper merge).
    fn reached_from_above(
        &self,
        current: &Solution<S::Out>,
        above: &Solution<S::Out>,
    ) -> Result<Option<Solution<S::Out>>>
    where
        S::State: Send,
    {
        let start_from = self.state(above);
        let candidates: Vec<Option<Clustering<S::Out>>> = self.pool.install(|| {
            (0..MERGE_CANDIDATES)
                .into_par_iter()
                .map(|rank| match self.data.merge(&start_from, rank) {
                    Some(start) => {
                        let tol = self.search_tol(current.k());
                        Ok(Some(self.clustering(&self.descend(
                            current.k(),
                            start,
                            tol,
                        )?)))
                    }
                    None => Ok(None),
                })
                .collect::<Result<_>>()
        })?;
        let mut best: Option<Solution<S::Out>> = None;
        for (rank, c) in candidates.into_iter().enumerate() {
            let Some(c) = c else { continue };
            let bar = best
                .as_ref()
                .map_or(current.objective() * (1.0 - STALL_REL_MARGIN), |b| {
                    b.objective()
                });
            if c.objective < bar {
                best = Some(Solution::new(c, PathOrigin::Merge(rank)));
            }
        }
        Ok(best)
    }

    /// After the refinement pass: in increasing `k`, the solution at `k`
    /// is grown again from the one at `k − 1` where that one changed, and
    /// replaced if the new one is lower; where the solution at `k` lies
    /// above the one at `k − 1` the new one replaces it in any case (it
    /// cannot end higher), so the objectives fall with `k` again.
    fn repair(
        &self,
        path: &mut [Solution<S::Out>],
        mut changed: Vec<bool>,
        cache: &mut SplitCache,
    ) -> Result<()> {
        for i in 1..path.len() {
            self.progress.advance(1);
            let rising = path[i].objective() > path[i - 1].objective();
            if !(rising || changed[i - 1]) {
                continue;
            }
            let k = path[i].k();
            let grown = self.grow(&path[i - 1], k, self.search_tol(k), cache)?;
            if rising || grown.objective() < path[i].objective() {
                path[i] = grown;
                changed[i] = true;
            }
        }
        Ok(())
    }

    /// The last pass where the search stopped descents early, or where
    /// some `k` has one more draw (`draws`, by index in `path`): in
    /// increasing `k`, each solution continued by Hartigan sweeps down to
    /// the final tolerance (0 by default: until no point moves), and its
    /// draw likewise, the lower of the two kept (ties to the path's). A
    /// finished solution can only be lower, so it can end above the
    /// finished one at `k − 1`; it is then replaced by one grown from that,
    /// at the final tolerance, which cannot end higher. So the objectives
    /// still fall with `k`, and every `k` ends as a Hartigan local optimum.
    fn finish(
        &self,
        path: Vec<Solution<S::Out>>,
        draws: Vec<Option<Solution<S::Out>>>,
        cache: &mut SplitCache,
    ) -> Result<Vec<Solution<S::Out>>> {
        // The descents are independent (each `k` has its own visiting
        // orders), so they run side by side; only the repair is in order.
        let finished: Vec<Solution<S::Out>> = self.pool.install(|| {
            path.into_par_iter()
                .zip(draws)
                .map(|(searched, draw)| {
                    let s = self.finished(searched)?;
                    let s = match draw {
                        Some(d) if d.objective() < s.objective() * (1.0 + DRAW_FINISH_MARGIN) => {
                            let d = self.finished(d)?;
                            if d.is_lower_than(&s) {
                                d
                            } else {
                                s
                            }
                        }
                        _ => s,
                    };
                    self.progress.advance(1);
                    Ok(s)
                })
                .collect::<Result<_>>()
        })?;
        let tol = self.final_tol();
        let mut done: Vec<Solution<S::Out>> = Vec::with_capacity(finished.len());
        for mut s in finished {
            if let Some(below) = done.last() {
                if s.objective() > below.objective() {
                    s = self.grow(below, s.k(), tol, cache)?;
                }
            }
            done.push(s);
        }
        Ok(done)
    }

    /// `searched` continued by Hartigan sweeps down to the final tolerance
    /// where it was searched at a larger one.
    fn finished(&self, searched: Solution<S::Out>) -> Result<Solution<S::Out>> {
        let k = searched.k();
        if !self.finishes(k) {
            return Ok(searched);
        }
        let state = self.state(&searched);
        let more = self.clustering(&self.descend_with(k, state, self.final_tol(), true)?);
        Ok(Solution::new(
            polished(searched.clustering, more),
            searched.origin,
        ))
    }
}

/// Each fit (in increasing `k`, from the second) replaces the path's
/// solution at its `k` where it is lower beyond rounding. Says which `k`
/// changed.
fn keep_lower_fits<T>(path: &mut [Solution<T>], fits: Vec<Solution<T>>) -> Vec<bool> {
    let mut changed = vec![false; path.len()];
    for ((slot, flag), fit) in path.iter_mut().zip(changed.iter_mut()).skip(1).zip(fits) {
        debug_assert_eq!(slot.k(), fit.k());
        if fit.is_lower_than(slot) {
            *slot = fit;
            *flag = true;
        }
    }
    changed
}

/// The fit's result continued by its polishing descent: the descent's
/// labels, centroids and objective (also as the best restart's), the fit's
/// restarts, the sweeps of both.
fn polished<T>(fit: Clustering<T>, more: Clustering<T>) -> Clustering<T> {
    let mut restart_objectives = fit.restart_objectives;
    if let Some(o) = restart_objectives.get_mut(fit.best_restart) {
        *o = more.objective;
    }
    Clustering {
        n_sweeps: fit.n_sweeps + more.n_sweeps,
        history: [fit.history, more.history].concat(),
        moves: [fit.moves, more.moves].concat(),
        initial_objective: fit.initial_objective,
        refinements: fit.refinements + more.refinements,
        schedule_start: fit.schedule_start,
        restart_objectives,
        best_restart: fit.best_restart,
        ..more
    }
}
