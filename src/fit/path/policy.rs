//! What a path runs where: the checks of its range, how far past `k_max`
//! the search grows, which `k` also get a fit, and the tolerances of its
//! descents.

use crate::error::{Error, Result};
use crate::params::{defaults, ValidParams};
use ndarray::ArrayView1;
use std::ops::RangeInclusive;

/// `params` for the path's first fit (`k = k_min`) and `k_max`, checked
/// for data of shape `(n, d)`: `ks` non-empty, from 1, at most `n`.
pub(crate) fn checked_path(
    ks: &RangeInclusive<usize>,
    params: &ValidParams,
    (n, d): (usize, usize),
) -> Result<(ValidParams, usize)> {
    let (k_min, k_max) = (*ks.start(), *ks.end());
    let bad = |expected: String| Error::invalid("ks", format!("{k_min}..={k_max}"), expected);
    if k_min < 1 || k_min > k_max {
        return Err(bad(
            "must be a non-empty range k_min..=k_max with k_min >= 1".into(),
        ));
    }
    let params = params.for_k(k_min)?;
    params.check_data(n, d)?;
    if k_max > n {
        return Err(bad(format!("k_max must be at most n_samples={n}")));
    }
    Ok((params, k_max))
}

/// Merges of the `k + 1` solution tried as starts of the `k` solution by
/// the refinement pass, cheapest first, descended side by side: on blobs
/// grouped at a `k` below their number, the cheapest merge alone often
/// leads to a worse local optimum than the second.
pub(super) const MERGE_CANDIDATES: usize = 2;

/// With refinement, the search grows this many `k` past `k_max` (as far as
/// the data have points of positive weight) and merges back down from
/// there, so that `k_max`, like every other `k`, is also reached from the
/// solution above it; the extra solutions are dropped.
pub(super) const SEARCH_PAST_K_MAX: usize = 5;

/// On a large problem (and without `n_init` given) the refinement pass
/// fits the smallest `k` after `k_min` while those `k` sum to at most this
/// share of the `k` searched. A fit's cost grows with `k` as a step of the
/// search does, and one restart at `k` costs about one of the search's
/// steps there, so these fits add about a sixteenth of the search's work.
pub(super) const FIT_SHARE: usize = 16;

/// A draw (step 6 of the module documentation) that ends more than this
/// share above the path's finished solution at its `k` is dropped without
/// being finished: finishing it would have to gain more than that, which
/// finishing a fit's descent rarely does.
pub(super) const DRAW_FINISH_MARGIN: f64 = 1e-3;

/// Which `k` after `k_min` (in increasing order, up to `k_top`) get a fit
/// in the refinement pass: first those whose fits come before the merges
/// from above (every `k` with `n_init` given, those of a small problem),
/// then those whose fits come after them (the rest of the smallest `k`
/// within [`FIT_SHARE`]). The two counts.
pub(super) fn fitted_ks(
    k_min: usize,
    k_top: usize,
    every_k: bool,
    (n, d): (usize, usize),
) -> (usize, usize) {
    let ks = k_min + 1..=k_top;
    let before = ks
        .clone()
        .take_while(|&k| every_k || defaults::is_small(n, d, k))
        .count();
    let budget = (k_min..=k_top).sum::<usize>() / FIT_SHARE;
    let mut spent = 0;
    let within = ks
        .take_while(|&k| {
            spent += k;
            spent <= budget
        })
        .count();
    (before, within.saturating_sub(before))
}

/// Whether the fits at the `k` after `k_min` ([`fitted_ks`]) run the
/// usual search of restarts ([`crate::fit::search`]), or one restart each (the
/// search's first: what a fit with `n_init = 1` runs). The usual search:
/// where the caller gave `n_init` (they chose to pay for it at every `k`),
/// or where the whole range searched is a small problem (`n·d·k_top` at
/// most [`defaults::SMALL_PROBLEM`]: few points per cluster, where good
/// solutions at neighbouring `k` share little and a fit's restarts are
/// cheap). Elsewhere a fit at a `k` that is a small problem by itself
/// spends a fixed work ([`defaults::auto_budget`]) that outweighs the
/// path's own steps at that `k` many times over, and would make the path
/// cost more than a fit at every `k` of its range; one restart still
/// gives each such `k` a second, independent draw beside the path's own
/// splits and merges.
pub(super) fn searched_fits(given_n_init: bool, (n, d): (usize, usize), k_top: usize) -> bool {
    given_n_init || defaults::is_small(n, d, k_top)
}

/// The relative tolerance of a large path's search (`tol` left to
/// `"auto"`, `n·d·k` above [`defaults::SMALL_PROBLEM`]): that of one fast
/// descent ([`defaults::FAST_TOL`], five times a fit's
/// [`defaults::TOL_LARGE`]). The search's descents are candidates to
/// compare, and the one kept at each `k` is finished to a Hartigan local
/// optimum anyway, so their long tails (many sweeps moving a few points
/// each) buy little.
pub(super) const SEARCH_TOL_LARGE: f64 = defaults::FAST_TOL;

/// The largest `k` the search grows to: `k_max`, or with refinement
/// [`SEARCH_PAST_K_MAX`] more, as far as `n` rows (of which those of
/// positive weight) allow.
pub(crate) fn search_top(
    params: &ValidParams,
    k_max: usize,
    n: usize,
    sample_weight: Option<ArrayView1<'_, f64>>,
) -> usize {
    if !params.refine() {
        return k_max;
    }
    let positive = sample_weight.map_or(n, |w| w.iter().filter(|&&v| v > 0.0).count());
    (k_max + SEARCH_PAST_K_MAX).min(positive).max(k_max)
}
