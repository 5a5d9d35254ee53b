//! The rounds sweep: one Hartigan (or Smartigan) sweep whose decisions are
//! taken over every core, for fits large enough that one restart runs.
//!
//! The visiting order is cut into *rounds* of consecutive positions. A
//! round is processed in two steps:
//!
//! 1. **Scored in parallel.** Every point of the round is decided against
//!    the partition as the round began: its bounds may prove it stays
//!    ([`Bounds::proves_stay`]); otherwise its products with a snapshot of
//!    the centroids screen the clusters and the candidates are costed
//!    exactly (the blocked sweep's decision with no cluster dirty,
//!    [`decide_at_snapshot`]). Each point is computed on its own, in tasks
//!    of [`CHUNK`] positions, so no bit depends on the thread count.
//! 2. **Applied in order.** On the calling thread, what was learnt is
//!    recorded in the bounds (the centroids are still the round's), then
//!    each proposed move is re-validated exactly against the *current*
//!    partition (earlier moves of the round may have changed both
//!    clusters) by the move rule on its two clusters, and made only if the
//!    rule still accepts it.
//!
//! **What a sweep is.** Every move made passes Hartigan's test (with the
//! sweep's acceptance factor) at the moment it is made, against both
//! centroids as they then are; with factor 1 each strictly lowers the
//! objective, so descents end. A point's target is the best cluster as its
//! round began, not necessarily the best at its turn. A sweep that moves
//! nothing scored every point against the final partition, exactly, so it
//! certifies a Hartigan local optimum, as a sequential sweep does.
//!
//! **Rounds.** Which problems sweep in rounds and how long a round is are
//! the definition's ([`crate::engine::rounds`]): lengths follow the share of
//! positions whose points proposed a move in the rounds before (a quantity
//! of the descent, never of the machine), so that a round's stale
//! decisions move any cluster by little.
//!
//! **Memory.** Per thread of the pool, kept between rounds: the rows of
//! one chunk in `f64` and `f32` with their products (`CHUNK·(12·d + 4·k)`
//! bytes at most) and a few `k`-long vectors; per round, one outcome per
//! position (24 bytes). No `n × k` array.

use super::super::block::gather;
use super::super::bounds::{Bounds, SkipTests};
use super::super::panel::Panel;
use super::super::Cache;
use super::decide::{
    decide_at_snapshot, decide_exactly, point_factors, prepare, Row, Weighting, UNIT,
};
use super::{join_weight32, join_weights32, keeps_bounds, with_bounds, LOOKAHEAD};
use crate::data::{sq_dist, Scalar};
use crate::engine::move_rule::{still_moves, KMeans};
use crate::engine::partition::Partition;
use crate::engine::reference::Sweep;
use crate::engine::rounds::RoundPlan;
use rayon::prelude::*;

/// Positions of the visiting order one task scores: enough for about
/// [`CHUNK_WORK`] multiply-adds while every point is scored, from 16 to
/// 256 (only speed depends on it; each point is scored on its own).
fn chunk_len(k: usize, d: usize) -> usize {
    CHUNK_WORK
        .div_ceil(k.saturating_mul(d).max(1))
        .clamp(16, CHUNK)
}
/// Most positions one task scores.
const CHUNK: usize = 256;
/// Multiply-adds a task of the rounds' scoring aims for.
const CHUNK_WORK: usize = 1 << 20;
/// What scoring found for one position of a round.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Outcome {
    /// The point may not leave its cluster (the last of it, or all its
    /// weight).
    Fixed,
    /// Its bounds prove it stays: upper and lower bounds to keep.
    Proved(f64, f64),
    /// Decided against the round's start: the move proposed, if any, and
    /// the bounds it gave (as [`Bounds::measured`]).
    Seen {
        to: Option<usize>,
        upper: f64,
        lower: f64,
    },
}

/// What every task of a round reads: the partition as the round began.
struct Round<'s, 'a, T: Scalar> {
    p: &'s Partition,
    sweep: Sweep<'s, 'a, T>,
    bounds: &'s Bounds,
    panel: &'s Panel,
    /// The clusters' join weights as `f32`, padded with 1 to the panel.
    join_w: &'s [f32],
}

thread_local! {
    /// Each thread's scratch for scoring, kept from round to round (a
    /// task's buffers are up to `CHUNK·(12·d + 4·k)` bytes: allocated
    /// afresh for every round they cost page faults). Every entry a task
    /// reads it writes first, so nothing carries over between tasks.
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

/// One task's scratch.
#[derive(Default)]
struct Scratch {
    row: Vec<f64>,
    /// The chunk's points that need a decision, and their slots in it.
    idx: Vec<usize>,
    slots: Vec<usize>,
    x64: Vec<f64>,
    x32: Vec<f32>,
    a: Vec<f64>,
    g: Vec<f32>,
    h: Vec<f32>,
    cand: Vec<usize>,
    point_w: Vec<f32>,
}

/// One sweep in rounds (see the module's text). Returns the number of
/// moves.
pub(crate) fn sweep_rounds<T: Scalar>(
    p: &mut Partition,
    s: Sweep<'_, '_, T>,
    cache: &mut Cache,
) -> usize {
    if p.k <= 1 {
        return 0;
    }
    let keep = keeps_bounds(cache);
    with_bounds(cache, p, s, keep, |p, bounds| dispatch_rounds(p, s, bounds))
}

multiversion!(rounds_body, dispatch_rounds, (p: &mut Partition, s: Sweep<'_, '_, T>, bounds: &mut Bounds) -> (usize, usize));

/// The rounds of one sweep; returns (moves, points evaluated).
#[inline(always)]
fn rounds_body<T: Scalar>(
    p: &mut Partition,
    sweep: Sweep<'_, '_, T>,
    bounds: &mut Bounds,
) -> (usize, usize) {
    let Sweep { data, order, .. } = sweep;
    let (k, d, n) = (p.k, p.d, order.len());
    let mut panel = Panel::default();
    panel.pack(&p.centroids, k, d, data.max_abs_shifted());
    let mut join_w = join_weights32(&p.stats.counts);
    let mut outcomes = Vec::new();
    let mut applying = Applying {
        row: vec![0.0; d],
        proposals: Vec::new(),
        touched: Vec::with_capacity(k),
        is_touched: vec![false; k],
    };
    let (mut moves, mut evaluated) = (0, 0);
    let chunk = chunk_len(k, d);
    RoundPlan::new(n, k, d).run(n, |start, end| {
        bounds.at_positions(start, end, &p.centroids);
        outcomes.clear();
        outcomes.resize(end - start, Outcome::Fixed);
        let round = Round {
            p,
            sweep,
            bounds,
            panel: &panel,
            join_w: &join_w,
        };
        order[start..end]
            .par_chunks(chunk)
            .zip(outcomes.par_chunks_mut(chunk))
            .for_each(|(points, out)| {
                SCRATCH
                    .with(|scratch| dispatch_score(&round, points, out, &mut scratch.borrow_mut()));
            });
        let positions = &order[start..end];
        let (moved, seen, proposed) =
            apply_round(p, sweep, bounds, positions, &outcomes, &mut applying);
        moves += moved;
        evaluated += seen;
        // The next round's snapshot: only the clusters this one changed.
        let touched = &mut applying.touched;
        for &j in touched.iter() {
            join_w[j] = join_weight32(p.stats.counts[j]);
            applying.is_touched[j] = false;
        }
        if !panel.refresh_clusters(&p.centroids, touched.iter().copied()) {
            panel.pack(&p.centroids, k, d, data.max_abs_shifted());
        }
        touched.clear();
        proposed
    });
    (moves, evaluated)
}

multiversion!(score_chunk, dispatch_score, (round: &Round<'_, '_, T>, points: &[usize], out: &mut [Outcome], s: &mut Scratch) -> ());

/// Scores the points of one chunk against the round's start.
#[inline(always)]
fn score_chunk<T: Scalar>(
    round: &Round<'_, '_, T>,
    points: &[usize],
    out: &mut [Outcome],
    s: &mut Scratch,
) {
    let Round {
        p,
        sweep,
        bounds,
        panel,
        join_w,
    } = *round;
    let Sweep { data, factor, .. } = sweep;
    let d = p.d;
    s.row.resize(d, 0.0);
    s.idx.clear();
    s.slots.clear();
    for (t, &i) in points.iter().enumerate() {
        if let Some(&ahead) = points.get(t + LOOKAHEAD) {
            bounds.prefetch(ahead);
            crate::data::prefetch(std::slice::from_ref(&p.stats.labels[ahead]));
        }
        let (r, w) = (p.stats.labels[i], data.weight(i));
        out[t] = if !p.stats.may_leave(r, w) {
            Outcome::Fixed
        } else if let Some(b) = bounds.proves_stay((i, r, w), p, sweep, &mut s.row, SkipTests::Both)
        {
            Outcome::Proved(b.0, b.1)
        } else {
            s.idx.push(i);
            s.slots.push(t);
            data.prefetch(i);
            continue;
        };
    }
    let len = s.idx.len();
    if len == 0 {
        return;
    }
    let kp = panel.kp;
    s.x64.resize(len * d, 0.0);
    s.x32.resize(len * d, 0.0);
    s.a.resize(len, 0.0);
    s.g.resize(len * kp, 0.0);
    let max_abs = gather(data, &s.idx, panel, &mut s.x64, &mut s.x32, &mut s.a);
    let screened = panel.usable && max_abs * panel.scale <= 2.0;
    if screened {
        panel.product(&s.x32, len, &mut s.g);
        s.h.clear();
        s.h.extend_from_slice(&panel.h);
        if data.is_weighted() && s.point_w.len() != join_w.len() {
            s.point_w = join_w.to_vec();
        }
    }
    for (u, (&i, &t)) in s.idx.iter().zip(&s.slots).enumerate() {
        let (r, w) = (p.stats.labels[i], data.weight(i));
        let row = Row::at(&s.x64, &s.a, &s.g, u, d, kp);
        let a = row.a;
        // A zero-weight point follows the nearest centroid whatever the
        // factor: decided exactly, as is every point the screen cannot take.
        let decision = if !screened || w == 0.0 {
            decide_exactly(p, row.x, r, w, factor)
        } else if data.is_weighted() {
            point_factors(&mut s.point_w, &p.stats.weights, w);
            let weighting = Weighting::<true> { w };
            let screen = (&s.point_w[..], &mut s.h[..]);
            let work = prepare(p, panel, screen, &mut s.cand, row, (r, weighting), factor);
            decide_at_snapshot(p, panel, work, a, (r, weighting), factor)
        } else {
            let screen = (join_w, &mut s.h[..]);
            let work = prepare(p, panel, screen, &mut s.cand, row, (r, UNIT), factor);
            decide_at_snapshot(p, panel, work, a, (r, UNIT), factor)
        };
        let (upper, lower) = bounds.measured(decision.own_dist, decision.lower);
        out[t] = Outcome::Seen {
            to: decision.to,
            upper,
            lower,
        };
    }
}

/// Applies one scored round in order: first what it learnt goes into the
/// bounds (the centroids are still the round's), then each proposed move
/// is made if the move rule still accepts it now. The clusters changed go
/// to `touched` (each once, `is_touched` marking them), and the bounds
/// learn their displacements at the end. Returns (moves, points
/// evaluated, moves proposed).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn apply_round<T: Scalar>(
    p: &mut Partition,
    Sweep { data, factor, .. }: Sweep<'_, '_, T>,
    bounds: &mut Bounds,
    positions: &[usize],
    outcomes: &[Outcome],
    scratch: &mut Applying,
) -> (usize, usize, usize) {
    let Applying {
        row,
        proposals,
        touched,
        is_touched,
    } = scratch;
    proposals.clear();
    let mut evaluated = 0;
    for (&i, outcome) in positions.iter().zip(outcomes) {
        match *outcome {
            Outcome::Fixed => {}
            Outcome::Proved(upper, lower) => bounds.keep(i, p.stats.labels[i], (upper, lower)),
            Outcome::Seen { to, upper, lower } => {
                evaluated += 1;
                bounds.keep(i, p.stats.labels[i], (upper, lower));
                if let Some(j) = to {
                    proposals.push((i, j));
                }
            }
        }
    }
    let mut moves = 0;
    for (q, &(i, j)) in proposals.iter().enumerate() {
        if let Some(&(ahead, _)) = proposals.get(q + PROPOSALS_AHEAD) {
            data.prefetch(ahead);
        }
        let (r, w) = (p.stats.labels[i], data.weight(i));
        data.load_shifted(i, row);
        let dists = (sq_dist(row, p.centroid(r)), sq_dist(row, p.centroid(j)));
        if still_moves(
            &KMeans::new(&p.stats.counts, &p.stats.weights),
            (r, j),
            w,
            factor,
            dists,
        ) {
            p.move_point(i, row, w, j);
            for c in [r, j] {
                if !std::mem::replace(&mut is_touched[c], true) {
                    touched.push(c);
                }
            }
            moves += 1;
        }
    }
    // A moved point's bounds (kept above under its old label) prove
    // nothing about its new cluster: it is evaluated when next visited.
    bounds.after_moves(&p.centroids, &p.stats.weights, touched);
    (moves, evaluated, proposals.len())
}

/// Proposals ahead whose rows [`apply_round`] starts loading.
const PROPOSALS_AHEAD: usize = 4;

/// Scratch of [`apply_round`], kept from round to round.
struct Applying {
    row: Vec<f64>,
    proposals: Vec<(usize, usize)>,
    /// Clusters changed in the round, each once.
    touched: Vec<usize>,
    is_touched: Vec<bool>,
}

#[cfg(test)]
mod tests;
