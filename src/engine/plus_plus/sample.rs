//! The k-means++ start of a large fit, drawn on a uniform sample of the
//! rows. Greedy k-means++ costs `2 + ⌊ln k⌋` distance evaluations per centre
//! and row, about as much as the rest of a large fit's restart; on a
//! sample of [`PLUS_PLUS_ROWS_PER_CENTRE`] rows per centre it costs that
//! share of it, and the descent that follows runs on every row. Small
//! problems, every paper data set among them, keep the greedy start on all
//! rows, bit for bit;
//! [`crate::ValidParams::plus_plus`] always uses all rows.

use super::Draw;
use crate::engine::rounds::decides_in_rounds;
use crate::params::defaults::PLUS_PLUS_ROWS_PER_CENTRE;
use crate::rng::Xoshiro256PlusPlus;
use std::sync::atomic::AtomicBool;

/// The size of the sample a fit's k-means++ start on `n` rows in `d`
/// dimensions with `k` clusters is drawn from, or `None` where it uses
/// every row: problems below the size line of the sweeps in rounds (where
/// a restart is not the whole budget, [`decides_in_rounds`]), and those
/// whose sample would hold more than half the rows.
pub(crate) fn sample_len(n: usize, k: usize, d: usize) -> Option<usize> {
    let m = PLUS_PLUS_ROWS_PER_CENTRE.saturating_mul(k);
    (decides_in_rounds(n, k, d) && m.saturating_mul(2) <= n).then_some(m)
}

/// Greedy k-means++ for a fit's start: `plus_plus(draw)` (which returns
/// positions in the draw's rows, or row indices among every row) on a
/// uniform sample of [`sample_len`] rows of positive weight, drawn first
/// from `rng`, with the positions mapped back to rows; on every row where
/// there is no sample (or too few rows of positive weight for one).
/// Without a sample `rng` is not touched before `plus_plus`.
pub(crate) fn on_sample(
    (n, k, d): (usize, usize, usize),
    weight: impl Fn(usize) -> f64,
    rng: &mut Xoshiro256PlusPlus,
    cancel: &AtomicBool,
    plus_plus: impl FnOnce(Draw<'_>) -> Vec<usize>,
) -> Vec<usize> {
    let draw = |among, rng| Draw {
        among,
        k,
        rng,
        cancel,
    };
    let Some(m) = sample_len(n, k, d) else {
        return plus_plus(draw(None, rng));
    };
    let mut pool: Vec<usize> = (0..n).filter(|&i| weight(i) > 0.0).collect();
    if pool.len() < m {
        return plus_plus(draw(None, rng));
    }
    // The first `m` steps of a Fisher-Yates shuffle: a uniform sample of
    // `m` distinct rows, kept in index order.
    for t in 0..m {
        let j = t + rng.below(pool.len() - t);
        pool.swap(t, j);
    }
    pool.truncate(m);
    pool.sort_unstable();
    plus_plus(draw(Some(&pool), rng))
        .into_iter()
        .map(|t| pool[t])
        .collect()
}

/// The passes over all rows of a fit's k-means++ start (one pass: every
/// row's distance to every centre): `2 + ⌊ln k⌋` candidates per centre on
/// the rows it is drawn from, and the assignment of every row.
pub(crate) fn start_passes(n: usize, k: usize, d: usize) -> f64 {
    let candidates = 2.0 + (k as f64).ln().floor();
    let share = sample_len(n, k, d).map_or(1.0, |m| m as f64 / n.max(1) as f64);
    1.0 + candidates * share
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn small_problems_and_samples_of_half_the_rows_use_every_row() {
        // The paper's data sets and anything below the size line.
        assert_eq!(sample_len(150, 3, 4), None);
        assert_eq!(sample_len(20_000, 25, 16), None);
        // Large enough, but 16·k rows would be more than half of them.
        assert_eq!(sample_len(30_000, 1_000, 128), None);
        assert_eq!(sample_len(100_000, 1_024, 128), Some(16_384));
        assert_eq!(sample_len(100_000, 3_125, 128), Some(50_000));
        assert_eq!(sample_len(100_000, 3_126, 128), None);
    }

    fn never() -> AtomicBool {
        AtomicBool::new(false)
    }

    #[test]
    fn the_sample_is_distinct_rows_of_positive_weight_mapped_back() {
        let (n, k, d) = (40_000, 100, 64);
        let m = sample_len(n, k, d).unwrap();
        let weight = |i: usize| f64::from(u8::from(!i.is_multiple_of(3)));
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(4);
        let mut seen = Vec::new();
        let rows = on_sample((n, k, d), weight, &mut rng, &never(), |draw| {
            let rows = draw.among.unwrap();
            seen = rows.to_vec();
            // The positions of the last k sample rows.
            (m - k..m).collect()
        });
        assert_eq!(seen.len(), m);
        assert!(seen.windows(2).all(|w| w[0] < w[1]));
        assert!(seen.iter().all(|&i| i < n && weight(i) > 0.0));
        assert_eq!(rows, seen[m - k..].to_vec());
        // The same stream draws the same sample.
        let mut again = Xoshiro256PlusPlus::seed_from_u64(4);
        let mut seen2 = Vec::new();
        on_sample((n, k, d), weight, &mut again, &never(), |draw| {
            seen2 = draw.among.unwrap().to_vec();
            Vec::new()
        });
        assert_eq!(seen, seen2);
    }

    #[test]
    fn without_a_sample_the_stream_is_untouched() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
        let mut fresh = Xoshiro256PlusPlus::seed_from_u64(9);
        let rows = on_sample(
            (150, 3, 4),
            |_| 1.0,
            &mut rng,
            &never(),
            |draw| {
                assert!(draw.among.is_none());
                vec![draw.rng.below(150)]
            },
        );
        assert_eq!(rows, vec![fresh.below(150)]);
        // Too few rows of positive weight for a sample: every row.
        let (n, k, d) = (40_000, 100, 64);
        let rows = on_sample(
            (n, k, d),
            |i| f64::from(u8::from(i < 100)),
            &mut rng,
            &never(),
            |draw| {
                assert!(draw.among.is_none());
                vec![7]
            },
        );
        assert_eq!(rows, vec![7]);
    }

    #[test]
    fn a_sampled_start_costs_its_share_of_the_candidates() {
        // 16,384 of 100,000 rows, 8 candidates per centre, plus the assignment.
        let passes = start_passes(100_000, 1_024, 128);
        assert!((passes - (1.0 + 8.0 * 0.16384)).abs() < 1e-12, "{passes}");
        assert_eq!(start_passes(150, 3, 4), 4.0);
    }
}
