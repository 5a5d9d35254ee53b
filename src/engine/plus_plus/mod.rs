//! Greedy k-means++ (Arthur & Vassilvitskii, with the `2 + ⌊ln k⌋` local
//! trials scikit-learn uses): the plain definition, for any representation
//! and with weights ([`kmeans_plus_plus_indices`]), and the accelerated
//! dense one with the same numbers ([`plus_plus_among`],
//! [`kmeans_plus_plus_joint`]: several restarts sharing each pass over the
//! data), whose pass kernels are in [`lanes`].

mod joint;
mod lanes;
mod reference;
mod sample;
#[cfg(test)]
mod tests;

pub(crate) use reference::kmeans_plus_plus_indices;
pub(crate) use sample::{on_sample, sample_len, start_passes};

use crate::data::{Data, Scalar};
use crate::rng::Xoshiro256PlusPlus;
use joint::{joint_group, kmeans_plus_plus_with, PassSettings};
use rayon::prelude::*;
use reference::kmeans_plus_plus_reference_rows;
use std::sync::atomic::AtomicBool;

/// The k-means++ centres of one restart of a fit, shifted: on a sample of
/// the rows for large problems ([`on_sample`]), by the accelerated
/// computation or the plain definition, with the same numbers either way.
/// Once `cancel` is set it stops early, with fewer than `k` centres.
pub(crate) fn start<T: Scalar>(
    data: &Data<'_, T>,
    k: usize,
    rng: &mut Xoshiro256PlusPlus,
    accelerated: bool,
    cancel: &AtomicBool,
) -> Vec<f64> {
    let shape = (data.n, k, data.d);
    let rows = on_sample(
        shape,
        |i| data.weight(i),
        rng,
        cancel,
        |draw| plus_plus_among(data, draw, accelerated),
    );
    data.gather_shifted(&rows)
}

/// One greedy k-means++ draw: `k` centres chosen with the stream `rng`
/// among the rows `among` (as positions in it) or, where it is `None`,
/// among every row (as row indices). Once `cancel` is set the draw may stop
/// early, with fewer than `k` centres (the caller checks).
pub(crate) struct Draw<'a> {
    pub(crate) among: Option<&'a [usize]>,
    pub(crate) k: usize,
    pub(crate) rng: &'a mut Xoshiro256PlusPlus,
    pub(crate) cancel: &'a AtomicBool,
}

impl Draw<'_> {
    /// The plain definition ([`kmeans_plus_plus_indices`]) on the draw's
    /// rows of `n`, for a representation that reads rows by index:
    /// `weight(i)` is row `i`'s weight, and `dists_to(c, among, out)`
    /// writes into `out[t]` the squared distance from row `among.row(t)` to
    /// row `c`.
    pub(crate) fn plain(
        self,
        n: usize,
        weighted: bool,
        weight: impl Fn(usize) -> f64,
        mut dists_to: impl FnMut(usize, Among<'_>, &mut [f64]),
    ) -> Vec<usize> {
        let among = Among(self.among);
        let positions = self.among.map_or(n, <[usize]>::len);
        kmeans_plus_plus_indices(
            positions,
            self.k,
            weighted,
            |t| weight(among.row(t)),
            self.rng,
            self.cancel,
            |c, out| dists_to(among.row(c), among, out),
        )
    }
}

/// The rows a draw chooses among, by position: a sample's rows, or every
/// row (position `t` is row `t`).
#[derive(Clone, Copy)]
pub(crate) struct Among<'a>(Option<&'a [usize]>);

impl Among<'_> {
    /// The row at position `t`.
    #[inline(always)]
    pub(crate) fn row(self, t: usize) -> usize {
        self.0.map_or(t, |rows| rows[t])
    }
}

/// The rows greedy k-means++ chooses in `draw` on `data`, in the order
/// chosen (rows it chooses among are gathered with their weights and
/// `data`'s shift): the centres [`crate::dense::init::initial_partition`]
/// starts from. With `accelerated` false, the plain definition
/// ([`kmeans_plus_plus_reference_rows`]); with it true, exactly the same
/// numbers, computed faster:
///
/// * the trial indices of a centre depend only on the random stream and on
///   the potential before that centre, so they are drawn first, as before,
///   and all trials are evaluated in one pass over the data, side by side in
///   the lanes of a kernel with exactly [`sq_dist`]'s summation order;
/// * that pass runs in parallel over chunks of points and keeps only the
///   distances strictly below a point's `closest` (the others leave the
///   min unchanged). Points that provably keep their `closest` are skipped
///   on the way: by the triangle inequality through their own centre
///   ([`prune_limits`], without reading the row), or by a rigorous screen
///   on dot products (see `lanes::plus_plus_lanes`);
/// * every potential is then summed sequentially in index order, so it has
///   the reference's bits, and the best trial wins as before. The winner's
///   running sums at the chunk ends are kept: they are the reference's
///   cumulative sums there, so the next trials are drawn from them and
///   one chunk of running sums each, with the reference's indices.
pub(crate) fn plus_plus_among<T: Scalar>(
    data: &Data<'_, T>,
    draw: Draw<'_>,
    accelerated: bool,
) -> Vec<usize> {
    let Draw {
        among,
        k,
        rng,
        cancel,
    } = draw;
    let on = |data: &Data<'_, T>, rng: &mut Xoshiro256PlusPlus| {
        if !accelerated {
            return kmeans_plus_plus_reference_rows(data, k, rng, cancel);
        }
        let settings = PassSettings {
            cancel: Some(cancel),
            ..PassSettings::for_this_cpu(data.d)
        };
        let mut out = kmeans_plus_plus_with(data, k, std::slice::from_mut(rng), settings);
        out.pop().unwrap_or_default()
    };
    match among {
        Some(rows) => on(&data.subset(rows), rng),
        None => on(data, rng),
    }
}

/// Points per parallel task in k-means++. Fixed; nothing depends on it.
const PP_CHUNK: usize = 1024;

/// Trials evaluated together (`2 + ⌊ln k⌋ ≤ 16`: k below e¹⁵ ≈ 3.3·10⁶;
/// beyond, the plain definition runs).
const LANES: usize = lanes::PP_LANES;

/// [`plus_plus_among`]'s centres on every row for several restarts at once, each from its own
/// stream (`rngs`): the same centres as one call per restart, bit for bit.
/// The restarts go in groups ([`joint_group`]) whose passes over the data
/// run in lockstep, centre by centre, and share each read of a row; the
/// screen's arithmetic is not shared.
///
/// Stops early, with fewer than `k` centres, once `cancel` is set.
pub(crate) fn kmeans_plus_plus_joint<T: Scalar>(
    data: &Data<'_, T>,
    k: usize,
    rngs: &mut [Xoshiro256PlusPlus],
    cancel: &AtomicBool,
) -> Vec<Vec<f64>> {
    let settings = PassSettings {
        cancel: Some(cancel),
        ..PassSettings::for_this_cpu(data.d)
    };
    let groups = rngs
        .len()
        .div_ceil(joint_group(data.d, std::mem::size_of::<T>()))
        .max(1);
    // Groups of equal size (give or take one), not one full and one short.
    let group = rngs.len().div_ceil(groups).max(1);
    let draw = |group: &mut [Xoshiro256PlusPlus]| kmeans_plus_plus_with(data, k, group, settings);
    // A pass over fewer chunks than two per thread leaves threads idle, as
    // do the steps between passes (drawing trials, picking the winner), so
    // the groups then run side by side. A pass that short is a single wave:
    // side by side they hold no more change lists than one group of every
    // restart would. The groups are independent: the same starts.
    let chunks = data.n.div_ceil(PP_CHUNK);
    let rows: Vec<Vec<usize>> = if groups > 1 && chunks < 2 * rayon::current_num_threads() {
        let per_group: Vec<_> = rngs.par_chunks_mut(group).map(draw).collect();
        per_group.into_iter().flatten().collect()
    } else {
        rngs.chunks_mut(group).flat_map(draw).collect()
    };
    rows.iter().map(|rows| data.gather_shifted(rows)).collect()
}
