#![allow(clippy::unwrap_used)]

use super::*;
use crate::data::Data;
use crate::dense::accel::sweep::tests::random_partition;
use crate::rng::Xoshiro256PlusPlus;
use crate::testing::testdata::blobs;
use ndarray::{Array1, Array2, ArrayView2};

/// A Smartigan schedule from 1.5 then exact sweeps: the factors of the
/// `s`-th sweep.
fn factor(s: usize) -> f64 {
    if s < 6 {
        1.5 - 0.1 * s as f64
    } else {
        1.0
    }
}

/// Sweeps in rounds, accelerated and plain, from the same random
/// partition and orders, with the bounds carried from sweep to sweep: the
/// same moves and the same state after every sweep. Returns whether the
/// bounds proved at least half the points stay in some sweep.
fn check_against_plain<T: Scalar>(
    x: ArrayView2<'_, T>,
    w: Option<&[f64]>,
    k: usize,
    sweeps: usize,
) -> bool {
    let data = Data::new(x, w.map(std::borrow::Cow::Borrowed));
    let mut plain = random_partition(&data, k, 3);
    let mut fast = plain.clone();
    let mut cache = Cache::default();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(8);
    let (mut total, mut skipped) = (0, false);
    for s in 0..sweeps {
        let mut order: Vec<usize> = (0..data.n).collect();
        rng.shuffle(&mut order);
        let f = factor(s);
        let a = crate::engine::reference::sweep_rounds(&mut plain, Sweep::new(&data, &order, f));
        let b = sweep_rounds(&mut fast, Sweep::new(&data, &order, f), &mut cache);
        assert_eq!(a, b, "moves differ in sweep {s}");
        assert_eq!(plain, fast, "state differs after sweep {s}");
        plain.recompute(&data, false);
        fast.recompute(&data, false);
        total += a;
        skipped |= cache.evaluated < data.n / 2;
    }
    assert!(total > 0, "nothing moved");
    skipped
}

#[test]
fn rounds_equal_their_plain_definition() {
    // Several rounds a sweep (n ≥ 2·MIN_ROUND), and at n = 40,000 rounds
    // longer than the shortest once few points move.
    for &(n, d, k) in &[(3000, 6, 12), (2500, 24, 40), (40_000, 3, 25)] {
        let x = blobs(n, d, k / 2, (n + d) as u64);
        // The late sweeps' bounds proved most points stay.
        assert!(check_against_plain(x.view(), None, k, 14));
        assert!(check_against_plain(
            x.mapv(|v| v as f32).view(),
            None,
            k,
            14
        ));
    }
    // Costly points: rounds of 256 positions, tasks of 16.
    let x = blobs(2000, 256, 40, 17);
    check_against_plain(x.view(), None, 1024, 4);
    // Exact duplicates (ties everywhere), and far from the origin.
    let x = Array2::from_shape_fn((3000, 2), |(i, j)| ((i * (j + 3)) % 7) as f64);
    check_against_plain(x.view(), None, 5, 8);
    check_against_plain(x.mapv(|v| v * 1e-3 + 1e6).view(), None, 5, 8);
}

#[test]
fn weighted_rounds_equal_their_plain_definition() {
    let (n, d, k) = (3000, 16, 20);
    let x = blobs(n, d, k / 2, 5);
    for w in &crate::testing::testdata::weight_kinds(n) {
        assert!(check_against_plain(x.view(), Some(w), k, 12));
        assert!(check_against_plain(
            x.mapv(|v| v as f32).view(),
            Some(w),
            k,
            10
        ));
    }
}

#[test]
fn rounds_give_the_same_bits_for_any_thread_count() {
    let (n, d, k) = (6000, 20, 30);
    let x = blobs(n, d, k / 2, 21);
    let data = Data::new(x.view(), None);
    let start = random_partition(&data, k, 4);
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let mut p = start.clone();
            let mut cache = Cache::default();
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
            let mut moves = Vec::new();
            for s in 0..12 {
                let mut order: Vec<usize> = (0..n).collect();
                rng.shuffle(&mut order);
                moves.push(sweep_rounds(
                    &mut p,
                    Sweep::new(&data, &order, factor(s)),
                    &mut cache,
                ));
                p.recompute(&data, false);
            }
            (p, moves)
        })
    };
    let one = run(1);
    for threads in [2, 3, 8] {
        assert_eq!(run(threads), one, "{threads} threads");
    }
}

/// Exact sweeps in rounds until one moves nothing: the objective never
/// rises, and the end is a Hartigan local optimum (no single move lowers
/// the objective, checked point by point against every cluster).
#[test]
fn rounds_descend_to_a_hartigan_local_optimum() {
    for &(n, d, k, w) in &[(4000, 5, 16, false), (3000, 12, 25, true)] {
        let x = blobs(n, d, k / 3, 40 + n as u64);
        let weights = Array1::from_shape_fn(n, |i| 0.5 + (i % 7) as f64);
        let w = w.then(|| weights.as_slice().unwrap_or(&[]));
        let data = Data::new(x.view(), w.map(std::borrow::Cow::Borrowed));
        let mut p = random_partition(&data, k, 9);
        let mut cache = Cache::default();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let mut last = p.objective(&data);
        let mut sweeps = 0;
        loop {
            let mut order: Vec<usize> = (0..n).collect();
            rng.shuffle(&mut order);
            let moved = sweep_rounds(&mut p, Sweep::new(&data, &order, 1.0), &mut cache);
            p.recompute(&data, false);
            let now = p.objective(&data);
            assert!(
                now <= last * (1.0 + 1e-12),
                "the objective rose: {last} -> {now}"
            );
            last = now;
            sweeps += 1;
            assert!(sweeps < 500, "no convergence");
            if moved == 0 {
                break;
            }
        }
        let mut row = vec![0.0; d];
        for i in 0..n {
            let (r, wi) = (p.stats.labels[i], data.weight(i));
            if !p.stats.may_leave(r, wi) {
                continue;
            }
            data.load_shifted(i, &mut row);
            let to = crate::engine::reference::best_move(&p, &row, wi, r, 1.0);
            assert_eq!(to, None, "point {i} still moves from {r}");
        }
    }
}
