//! The accelerated engine: kernels that make exactly the decisions of the
//! plain definitions in [`crate::engine::reference`], bit for bit, computed faster.
//!
//! * [`hartigan_sweep`]: one sweep by whichever kernel below is cheapest;
//! * [`sweep`]: the blocked, screened Hartigan/Smartigan sweep;
//! * [`columns`]: the plain sweep with each point's distances computed
//!   across clusters at once (few clusters and features; once moves are
//!   rare, points skipped by the same bounds);
//! * [`lloyd`]: the bounded, screened Lloyd assignment;
//! * [`ratios`]: every point's move ratio below a limit, screened likewise;
//! * [`bounds`]: the per-point bounds that let the sweep skip points;
//! * [`panel`]: the `f32` panel products the screens are computed from,
//!   and `block`: a block of points with its products and screens.
//!
//! What a restart keeps between its steps for these kernels is its
//! [`Cache`]; which implementation runs, and whether it may use spare
//! threads, is its [`Engine`]. Neither changes a result.

mod block;
pub(crate) mod bounds;
pub(crate) mod columns;
pub(crate) mod lloyd;
pub(crate) mod panel;
pub(crate) mod ratios;
pub(crate) mod sweep;

use crate::data::{Data, Scalar};
use crate::engine::partition::Partition;
use crate::engine::reference::Sweep;
pub(crate) use block::scale_row;
use bounds::Bounds;
use lloyd::LloydBounds;

/// Up to this `k·d` the plain sweep runs, its distances computed across
/// clusters at once ([`columns`]): scoring a point against every cluster is
/// then cheaper than the blocked sweep's bookkeeping.
const PLAIN_SWEEP_MAX_KD: usize = 128;

/// Up to this `k·d`, with at most [`columns::MAX_K_UNBOUNDED`] clusters,
/// the column sweep runs even where the blocked sweep keeps bounds. Scoring
/// every point exactly costs there about what the blocked sweep spends on
/// the share of points its bounds cannot skip, which on overlapping data is
/// most of them for most of the descent; where the bounds skip nearly every
/// point (separated blobs, converged) the descent is a few sweeps long, so
/// the column sweep's extra cost there is small against the fit.
const COLUMN_SWEEP_MAX_KD: usize = 1024;

/// One Hartigan sweep: the moves of [`crate::engine::reference::sweep`], bit for bit, by the kernel
/// that is cheapest here. The column sweep where `k·d` is small; where it
/// is moderate and the clusters few; and with few clusters where the
/// blocked sweep would keep no bounds (most points moved in the last
/// sweep, so every point is scored). The blocked, screened sweep otherwise
/// (with `spare_threads`, its blocks' work over the pool).
pub(crate) fn hartigan_sweep<T: Scalar>(
    p: &mut Partition,
    s: Sweep<'_, '_, T>,
    cache: &mut Cache,
    spare_threads: bool,
) -> usize {
    let kd = p.k * p.d;
    let small = kd <= PLAIN_SWEEP_MAX_KD;
    let few = p.k <= columns::MAX_K_UNBOUNDED;
    let scores_all = few && (kd <= COLUMN_SWEEP_MAX_KD || !sweep::keeps_bounds(cache));
    if columns::applies(p.k, p.d) && (small || scores_all) {
        columns::sweep_columns(p, s, cache)
    } else if small {
        crate::engine::reference::sweep(p, s)
    } else {
        sweep::sweep_blocked(p, s, cache, spare_threads)
    }
}

/// How a restart's steps are computed. `accelerated` and `spare_threads`
/// change no bit of any result: the accelerated kernels equal the plain
/// definitions, and the recomputation sums in chunks that do not depend on
/// the thread count. `rounds` chooses the definition of a sweep, from the
/// problem's size alone ([`crate::engine::rounds::decides_in_rounds`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Engine {
    /// The kernels of this module where they apply (`true`), or always the
    /// plain definitions of [`crate::engine::reference`] (the equivalence tests run
    /// both).
    pub accelerated: bool,
    /// Whether a step may split its work over the pool's threads: set when
    /// the restarts leave some of them idle.
    pub spare_threads: bool,
    /// Whether Hartigan sweeps run in rounds decided over every core
    /// ([`sweep::rounds`]; [`crate::engine::reference::sweep_rounds`] is their
    /// plain definition) rather than one point at a time.
    pub rounds: bool,
}

/// What the accelerated kernels keep for one restart between its steps
/// (speed only: nothing in it changes a decision).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Cache {
    /// Smoothed fraction of evaluated points that moved (sizes the blocks).
    pub rate: f64,
    /// Per-point bounds from earlier sweeps.
    pub bounds: Option<Bounds>,
    /// Share of all points the last sweep moved (decides whether the next
    /// one keeps bounds).
    pub moved_share: f64,
    /// Points the last sweep had to evaluate (the others were skipped by
    /// their bounds or are alone in their cluster).
    pub evaluated: usize,
    /// Per-point bounds from the last Lloyd iteration.
    pub lloyd: Option<LloydBounds>,
}

impl Cache {
    /// Records a finished sweep over `positions` positions that evaluated
    /// `evaluated` points and moved `moves`: what the next sweep's choice of
    /// kernel, bounds and block sizes reads.
    pub fn count_sweep(&mut self, moves: usize, evaluated: usize, positions: usize) {
        self.rate = (moves as f64 / evaluated.max(1) as f64).max(1e-6);
        self.moved_share = moves as f64 / positions.max(1) as f64;
        self.evaluated = evaluated;
    }

    /// Takes `share` as the share of points the last sweep moved (and of
    /// evaluated points that moved), before any sweep ran: the first
    /// sweep then keeps bounds, chooses its kernel and sizes its blocks
    /// as after such a sweep. Without it a first sweep assumes few moves
    /// and keeps bounds; where nearly every point moves, each move then
    /// pays for bounds nobody reads.
    pub fn expect_moved_share(&mut self, share: f64) {
        if self.bounds.is_none() && share.is_finite() {
            self.moved_share = share;
            self.rate = share.max(1e-6);
        }
    }
}

impl Default for Cache {
    fn default() -> Self {
        Cache {
            rate: 0.1,
            bounds: None,
            moved_share: 0.0,
            evaluated: 0,
            lloyd: None,
        }
    }
}

impl Cache {
    /// Keeps the cache valid after labels changed other than by the
    /// engine's own steps (a merge-split move): Lloyd's bounds assume labels
    /// only its own iterations changed, so they go; the sweep's bounds check
    /// every point's label and every centroid's displacement, so they stay
    /// valid, and are re-anchored at the replaced centroids in one pass
    /// rather than by every point of the next sweep.
    pub fn relabelled<T: Scalar>(
        &mut self,
        labels: &[usize],
        centroids: &[f64],
        data: &Data<'_, T>,
    ) {
        self.lloyd = None;
        if let Some(bounds) = self.bounds.as_mut() {
            bounds.reanchor(labels, centroids, data);
        }
    }
}
