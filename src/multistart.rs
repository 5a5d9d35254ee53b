//! Multi-start: every restart of a fit on a per-call thread pool, the best
//! kept. Restarts draw from streams that depend only on (seed, restart), and
//! "best" is (objective, index)-lexicographic, so the result does not depend
//! on the thread count.

use crate::clustering::Clustering;
use crate::error::{Error, Result};
use crate::params::ValidParams;
use crate::restart::{init_stream, Restart};
use crate::source::Source;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Threads of a per-call pool for `n_threads` requested: no more than the
/// machine runs at once ([`std::thread::available_parallelism`]). Threads
/// beyond that add no parallel work, only start-up, memory and switching;
/// results do not depend on the count.
pub(crate) fn pool_threads(n_threads: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    n_threads.clamp(1, cores.max(1))
}

pub(crate) fn build_pool(n_threads: usize) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(pool_threads(n_threads))
        .thread_name(|i| format!("smartigan-{i}"))
        .build()
        .map_err(|e| Error::ThreadPool {
            n_threads,
            reason: e.to_string(),
        })
}

/// Every restart's start, where restarts share the work of their starts
/// ([`Source::joint_starts`]: k-means++ on dense rows), else `None` (each
/// restart draws its own as it begins).
pub(crate) fn joint_starts<S: Source>(
    data: &S,
    params: &ValidParams,
    n_init: usize,
    cancel: &AtomicBool,
) -> Result<Vec<Option<Vec<f64>>>> {
    let mut rngs: Vec<_> = (0..n_init).map(|i| init_stream(params, i)).collect();
    let starts = data.joint_starts(params, &mut rngs, cancel);
    // A start cut short by `cancel` is never used.
    if cancel.load(Ordering::Relaxed) {
        return Err(Error::Interrupted);
    }
    Ok(match starts {
        Some(centroids) => centroids.into_iter().map(Some).collect(),
        None => vec![None; n_init],
    })
}

/// Whether there are more threads than restarts: then a restart splits the
/// recomputation after each step over the idle threads (the result is the
/// same either way).
pub(crate) fn spare_threads(params: &ValidParams, n: usize, d: usize) -> bool {
    params.n_init(n, d) < pool_threads(params.n_threads())
}

/// The restart a multi-start fit keeps, with every restart's objective.
pub(crate) struct Best<St> {
    pub restart: Restart<St>,
    /// Its index (lowest objective, ties to the lowest index).
    pub index: usize,
    /// Every restart's final objective, by index.
    pub objectives: Vec<f64>,
}

/// Runs every restart of `params` on `data` in parallel and keeps the best.
pub(crate) fn fit_source<S: Source>(
    data: &S,
    params: &ValidParams,
    cancel: &AtomicBool,
) -> Result<Clustering<S::Out>>
where
    S::State: Send,
{
    let pool = build_pool(params.n_threads())?;
    let best = best_restart(&pool, data, params, cancel)?;
    Ok(best
        .restart
        .clustering(data, best.objectives, best.index, params.seed()))
}

/// Every restart of `params` on `data`, run in parallel on `pool`; the best
/// one.
pub(crate) fn best_restart<S: Source>(
    pool: &rayon::ThreadPool,
    data: &S,
    params: &ValidParams,
    cancel: &AtomicBool,
) -> Result<Best<S::State>>
where
    S::State: Send,
{
    let n_init = params.n_init(data.n(), data.d());
    let objectives = Mutex::new(vec![f64::NAN; n_init]);
    // Only the best restart so far is kept (O(n + k·d) per running restart);
    // "best" is (objective, index)-lexicographic, so the reduction's result
    // does not depend on how rayon groups the restarts.
    let starts = pool.install(|| joint_starts(data, params, n_init, cancel))?;
    let best = pool.install(|| {
        starts
            .into_par_iter()
            .enumerate()
            .map(|(i, start)| {
                let mut r = Restart::new(data, params, i, start, cancel)?;
                r.run_to_end(data, params, cancel)?;
                let (_, obj, _) = data.finalize(&r.part);
                if let Ok(mut o) = objectives.lock() {
                    o[i] = obj;
                }
                Ok((obj, i, r))
            })
            .try_reduce_with(|a, b| {
                Ok(if b.0 < a.0 || (b.0 == a.0 && b.1 < a.1) {
                    b
                } else {
                    a
                })
            })
    });
    let (_, index, restart) = best.ok_or(Error::invalid("n_init", 0, "must be at least 1"))??;
    pool.install(|| data.check_precision(&restart.part, params))?;
    if cancel.load(Ordering::Relaxed) {
        return Err(Error::Interrupted);
    }
    Ok(Best {
        restart,
        index,
        objectives: objectives.into_inner().unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::params::MAX_N_THREADS;

    /// Issue 32, item 11: the largest `n_threads` accepted starts no more
    /// threads than the machine runs at once.
    #[test]
    fn a_pool_never_has_more_threads_than_cores() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let pool = build_pool(MAX_N_THREADS).unwrap();
        assert!(pool.current_num_threads() <= cores);
        assert_eq!(build_pool(1).unwrap().current_num_threads(), 1);
    }
}
