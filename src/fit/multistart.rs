//! Multi-start: the candidates of a fit's search ([`crate::fit::search`]) run
//! batch by batch on a per-call thread pool, the best kept. Candidates draw
//! from streams that depend only on (seed, index), and "best" is
//! (objective, index)-lexicographic, so the result does not depend on the
//! thread count.

use crate::clustering::Clustering;
use crate::engine::source::Source;
use crate::error::{Error, Result};
use crate::fit::restart::{init_stream, Restart};
use crate::fit::search::{
    start_passes, Finished, Kind, Search, Seeded, Spec, Started, CHILD_START_PASSES,
};
use crate::params::defaults::pool_threads;
use crate::params::ValidParams;
use crate::rng::{Stream, Xoshiro256PlusPlus};
use rayon::prelude::*;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

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

/// The starts of the fresh restarts `indices`, where restarts share the
/// work of their starts ([`Starts::joint_starts`]: k-means++ on dense
/// rows), else `None` (each restart draws its own as it begins). Either
/// way restart `i` starts from its own stream, so its start does not
/// depend on the batch it runs in.
pub(crate) fn joint_starts<S: Source>(
    data: &S,
    params: &ValidParams,
    indices: Range<usize>,
    cancel: &AtomicBool,
) -> Result<Vec<Option<Vec<f64>>>> {
    let count = indices.len();
    let mut rngs: Vec<_> = indices.map(|i| init_stream(params, i)).collect();
    let starts = data.joint_starts(params, &mut rngs, cancel);
    // A start cut short by `cancel` is never used.
    if cancel.load(Ordering::Relaxed) {
        return Err(Error::Interrupted);
    }
    Ok(match starts {
        Some(centroids) => centroids.into_iter().map(Some).collect(),
        None => vec![None; count],
    })
}

/// The restart a search kept, with every candidate's objective.
pub(crate) struct Best<St> {
    pub restart: Restart<St>,
    /// Its index (lowest objective, ties to the lowest index).
    pub index: usize,
    /// Every candidate's final objective, by index.
    pub objectives: Vec<f64>,
    /// The passes every candidate cost, together.
    pub passes: f64,
}

/// Runs the search of `params` ([`crate::fit::search`]), with the
/// candidate `seeded`, on `data` on `pool` and returns the best candidate
/// as a clustering.
pub(crate) fn fit_source<S: Source>(
    pool: &rayon::ThreadPool,
    data: &S,
    params: &ValidParams,
    seeded: Option<Seeded>,
    cancel: &AtomicBool,
) -> Result<Clustering<S::Out>>
where
    S::State: Send,
{
    let best = best_restart(pool, data, params, seeded, cancel)?;
    Ok(best
        .restart
        .clustering(data, best.objectives, best.index, params.seed()))
}

/// The restarts a batch of a search starts: the fresh ones from their
/// joint starts, the children from their parents' moved centroids, a
/// seeded one from its sample's centroids.
pub(crate) fn start_batch<S: Source>(
    data: &S,
    params: &ValidParams,
    batch: Vec<Spec<S::State>>,
    cancel: &AtomicBool,
) -> Result<Vec<Started<S::State>>>
where
    S::State: Send,
{
    let fresh: Vec<usize> = batch
        .iter()
        .filter(|s| matches!(s, Spec::Fresh(_)))
        .map(Spec::index)
        .collect();
    let mut starts = match (fresh.first(), fresh.last()) {
        (Some(&a), Some(&b)) => joint_starts(data, params, a..b + 1, cancel)?,
        _ => Vec::new(),
    }
    .into_iter();
    let children = params.for_children();
    let jobs: Vec<_> = batch
        .into_iter()
        .map(|spec| match spec {
            Spec::Fresh(i) => (i, Job::Fresh(starts.next().flatten())),
            Spec::Child {
                index,
                parent,
                moved,
            } => (index, Job::Child(parent, moved)),
            Spec::Seeded { index, seeded } => (index, Job::Seeded(seeded)),
        })
        .collect();
    jobs.into_par_iter()
        .map(|(index, job)| {
            if cancel.load(Ordering::Relaxed) {
                return Err(Error::Interrupted);
            }
            match job {
                Job::Fresh(start) => {
                    let restart = Restart::new(data, params, index, start, cancel)?;
                    let passes = start_passes(params, data.n(), data.d());
                    Ok(Started {
                        restart,
                        passes,
                        kind: Kind::Restart,
                    })
                }
                Job::Seeded(seeded) => {
                    // It descends as a child does (Hartigan sweeps): the
                    // sample's descent has done the schedule's exploring.
                    let from = children.starting_at(seeded.centroids);
                    let restart = Restart::new(data, &from, index, None, cancel)?;
                    let passes = seeded.passes + start_passes(&from, data.n(), data.d());
                    Ok(Started {
                        restart,
                        passes,
                        kind: Kind::Seeded,
                    })
                }
                Job::Child(parent, moved) => {
                    let start = child_start(data, &parent, moved, params.seed(), index);
                    let restart = Restart::new(data, &children, index, Some(start), cancel)?;
                    Ok(Started {
                        restart,
                        passes: CHILD_START_PASSES,
                        kind: Kind::Child,
                    })
                }
            }
        })
        .collect()
}

/// How a candidate of a batch starts.
enum Job<St> {
    /// From its joint start, if the batch shared one.
    Fresh(Option<Vec<f64>>),
    /// From a member's state with this many centroids moved.
    Child(St, usize),
    /// From a sample's centroids.
    Seeded(Seeded),
}

/// A restart run to its end, as a search takes it back. (A child steps
/// with the fit's parameters too: its phases and limits were set from the
/// child's when it was made, and its steps read nothing else that differs.)
pub(crate) fn finished<S: Source>(
    data: &S,
    mut started: Started<S::State>,
    params: &ValidParams,
    cancel: &AtomicBool,
) -> Result<Finished<S::State>> {
    started.restart.run_to_end(data, params, cancel)?;
    let (_, objective, _) = data.finalize(&started.restart.part);
    Ok(started.finished(objective, (data.n(), data.d(), params.k())))
}

/// The centroids a child starts from (module documentation of
/// [`crate::fit::search`]): `parent`'s, with `moved` of its clusters, drawn
/// uniformly, given up and their centroids moved to points drawn with
/// probability proportional to their cost in `parent`, without
/// replacement, from the stream of `(seed, index)`.
fn child_start<S: Source>(
    data: &S,
    parent: &S::State,
    moved: usize,
    seed: u64,
    index: usize,
) -> Vec<f64> {
    let mut rng = Xoshiro256PlusPlus::stream(seed, index as u64, Stream::Child);
    let mut centroids = data.centroids(parent);
    let d = data.d();
    let k = centroids.len() / d.max(1);
    let moved = moved.min(k);
    let mut clusters: Vec<usize> = (0..k).collect();
    for i in 0..moved {
        let j = i + rng.below(k - i);
        clusters.swap(i, j);
    }
    let mut costs = data.point_costs(parent);
    let mut points = Vec::with_capacity(moved);
    for _ in 0..moved {
        let total: f64 = costs.iter().sum();
        let point = if total > 0.0 {
            let target = rng.unit_f64() * total;
            let mut running = 0.0;
            costs
                .iter()
                .position(|&c| {
                    running += c;
                    running > target
                })
                .unwrap_or(costs.len() - 1)
        } else {
            // Every point sits on its centroid: any point will do.
            rng.below(costs.len())
        };
        costs[point] = 0.0;
        points.push(point);
    }
    let rows = data.rows_as_centroids(&points);
    for (&c, row) in clusters.iter().zip(rows.chunks_exact(d)) {
        centroids[c * d..(c + 1) * d].copy_from_slice(row);
    }
    centroids
}

/// Every candidate of the search `params` ask for on `data` (with the
/// candidate `seeded`), each batch run in parallel on `pool`; the best one.
pub(crate) fn best_restart<S: Source>(
    pool: &rayon::ThreadPool,
    data: &S,
    params: &ValidParams,
    seeded: Option<Seeded>,
    cancel: &AtomicBool,
) -> Result<Best<S::State>>
where
    S::State: Send,
{
    let mut search = Search::new(params, data.n(), data.d(), seeded);
    while let Some(batch) = search.next_batch() {
        let keep_one = search.keeps_one();
        let started = pool.install(|| start_batch(data, params, batch, cancel))?;
        let run = |job| finished(data, job, params, cancel);
        let done: Vec<Finished<S::State>> = pool.install(|| {
            if keep_one {
                // Only the batch's best restart is kept (O(n + k·d) per
                // running restart); "best" is (objective, index)-
                // lexicographic, so the result does not depend on how rayon
                // groups the restarts.
                let records = Mutex::new(Vec::new());
                let best = started
                    .into_par_iter()
                    .map(|job| {
                        let f = run(job)?;
                        if let Ok(mut r) = records.lock() {
                            r.push(Finished { restart: None, ..f });
                        }
                        Ok(f)
                    })
                    .try_reduce_with(|a, b| Ok(if ranks_before(&b, &a) { b } else { a }))
                    .transpose()?;
                let mut done = records.into_inner().unwrap_or_default();
                if let Some(best) = best {
                    done.retain(|f| f.index != best.index);
                    done.push(best);
                }
                Ok::<_, Error>(done)
            } else {
                started.into_par_iter().map(run).collect()
            }
        })?;
        search.accept(done);
    }
    let passes = search.spent();
    let (restart, index, objectives) =
        search
            .into_best()
            .ok_or(Error::invalid("n_init", 0, "must be at least 1"))?;
    pool.install(|| data.check_precision(&restart.part, params))?;
    if cancel.load(Ordering::Relaxed) {
        return Err(Error::Interrupted);
    }
    Ok(Best {
        restart,
        index,
        objectives,
        passes,
    })
}

/// Whether `a` ranks before `b`: lower objective, ties to the lower index.
fn ranks_before<St>(a: &Finished<St>, b: &Finished<St>) -> bool {
    a.objective < b.objective || (a.objective == b.objective && a.index < b.index)
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
