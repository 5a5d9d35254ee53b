//! Hooks for the benchmarks in `benches/` (the `bench` feature, which the
//! benchmarks require): single sweeps and starts on internal state. Not part
//! of the public API: no stability promise.

use crate::data::{Data, Scalar};
use crate::dense::accel::sweep::sweep_blocked;
use crate::dense::accel::{Cache, Engine};
use crate::engine::partition::Partition;
use crate::engine::reference::Sweep;
use crate::rng::{Stream, Xoshiro256PlusPlus};
use ndarray::ArrayView2;

pub use crate::testing::testdata::gaussian_blobs as blobs;

/// Which implementation of a sweep to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// The plain sweep: every cost exact, one point at a time.
    Reference,
    /// The blocked, screened sweep on the calling thread.
    Blocked,
    /// The blocked sweep as a restart with spare threads runs it: large
    /// blocks' products and their rows' work against the snapshot, and the
    /// recomputation of the touched clusters after the sweep, are split over
    /// the pool (the moves are decided on the calling thread either way).
    BlockedParallel,
    /// The plain sweep with each point's distances computed across
    /// clusters at once (`d` below 64 only; otherwise the plain sweep).
    Columns,
}

/// A partition plus a visiting order, ready for single sweeps.
#[derive(Debug, Clone)]
pub struct SweepState {
    part: Partition,
    order: Vec<usize>,
    cache: Cache,
    /// The data's shift and largest shifted entry, computed once as a fit
    /// does (not in every timed sweep).
    shift: Vec<f64>,
    max_abs: f64,
}

impl SweepState {
    /// k-means++ start (restart 0 of `seed`), then `warm` Hartigan sweeps so
    /// that the state resembles the middle of a fit.
    pub fn new<T: Scalar>(x: ArrayView2<'_, T>, k: usize, seed: u64, warm: usize) -> Self {
        let data = Data::new(x, None);
        let params = match crate::params::Params::new(k).seed(seed).n_init(1).check() {
            Ok(p) => p,
            Err(_) => return Self::empty(),
        };
        let mut rng = Xoshiro256PlusPlus::stream(seed, 0, Stream::Init);
        let engine = Engine {
            accelerated: true,
            spare_threads: false,
            rounds: false,
        };
        let never = std::sync::atomic::AtomicBool::new(false);
        let part = crate::dense::init::initial_partition(&data, &params, &mut rng, engine, &never);
        let mut s = SweepState {
            part,
            order: (0..data.n).collect(),
            cache: Cache::default(),
            shift: data.shift.clone(),
            max_abs: data.max_abs_shifted(),
        };
        let mut order_rng = Xoshiro256PlusPlus::stream(seed, 0, Stream::Order);
        order_rng.shuffle(&mut s.order);
        for _ in 0..warm {
            s.sweep(x, 1.0, Variant::Blocked);
        }
        s
    }

    fn empty() -> Self {
        SweepState {
            part: Partition::with_centroids(0, 0, Vec::new()),
            order: Vec::new(),
            cache: Cache::default(),
            shift: Vec::new(),
            max_abs: 0.0,
        }
    }

    /// One Hartigan sweep (acceptance factor `factor`) in the fixed order,
    /// followed by the recomputation of the sums. Returns the moves.
    pub fn sweep<T: Scalar>(&mut self, x: ArrayView2<'_, T>, factor: f64, v: Variant) -> usize {
        let data = self.data(x);
        if self.part.k == 0 || data.n != self.order.len() {
            return 0;
        }
        let moved = match v {
            Variant::Reference => crate::engine::reference::sweep(
                &mut self.part,
                Sweep::new(&data, &self.order, factor),
            ),
            Variant::Columns if crate::dense::accel::columns::applies(self.part.k, self.part.d) => {
                let (p, order, cache) = (&mut self.part, &self.order, &mut self.cache);
                crate::dense::accel::columns::sweep_columns(
                    p,
                    Sweep::new(&data, order, factor),
                    cache,
                )
            }
            Variant::Columns => crate::engine::reference::sweep(
                &mut self.part,
                Sweep::new(&data, &self.order, factor),
            ),
            Variant::Blocked | Variant::BlockedParallel => {
                let spare = v == Variant::BlockedParallel;
                sweep_blocked(
                    &mut self.part,
                    Sweep::new(&data, &self.order, factor),
                    &mut self.cache,
                    spare,
                )
            }
        };
        self.part
            .recompute_stale(&data, v == Variant::BlockedParallel);
        moved
    }

    /// One Lloyd iteration (the screened, parallel assignment).
    pub fn lloyd<T: Scalar>(&mut self, x: ArrayView2<'_, T>) -> usize {
        let data = self.data(x);
        if self.part.k == 0 {
            return 0;
        }
        crate::dense::accel::lloyd::lloyd_iteration(&mut self.part, &data, &mut self.cache, false)
    }

    fn data<'a, T: Scalar>(&self, x: ArrayView2<'a, T>) -> Data<'a, T> {
        Data::with_shift_and_max(x, None, self.shift.clone(), self.max_abs)
    }

    /// Points the last blocked sweep evaluated (not skipped by bounds).
    pub fn evaluated(&self) -> usize {
        self.cache.evaluated
    }

    /// The labels.
    pub fn labels(&self) -> &[usize] {
        &self.part.stats.labels
    }
}

/// The k-means++ starts of `restarts` restarts of `seed` drawn together, as
/// a fit draws them (the centroids, shifted): for timing the start alone.
pub fn plus_plus_starts<T: Scalar>(
    x: ArrayView2<'_, T>,
    k: usize,
    seed: u64,
    restarts: usize,
) -> Vec<Vec<f64>> {
    let data = Data::new(x, None);
    let mut rngs: Vec<Xoshiro256PlusPlus> = (0..restarts)
        .map(|r| Xoshiro256PlusPlus::stream(seed, r as u64, Stream::Init))
        .collect();
    let cancel = std::sync::atomic::AtomicBool::new(false);
    crate::engine::plus_plus::kmeans_plus_plus_joint(&data, k, &mut rngs, &cancel)
}
