#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
use super::joint::*;
use super::reference::*;
use super::*;
use crate::data::sq_dist;
use lanes::PlusPlusStats;
use ndarray::{Array2, ArrayView2};
use std::sync::atomic::Ordering::Relaxed;

/// What the accelerated pass skipped over all runs of [`check`].
#[derive(Debug)]
struct Skipped {
    visited: usize,
    triangle: usize,
    screened: usize,
}

/// The accelerated k-means++ (fused and unfused screen, 1 and 3
/// threads; one restart, and three restarts sharing their passes)
/// against the plain definition from the same seeds: the same centroids,
/// bit for bit, and the same use of each random stream.
fn check<T: Scalar>(x: ArrayView2<'_, T>, k: usize, seed: u64) -> Skipped {
    check_weighted(x, None, k, seed)
}

/// [`check`] with sample weights.
fn check_weighted<T: Scalar>(
    x: ArrayView2<'_, T>,
    w: Option<&[f64]>,
    k: usize,
    seed: u64,
) -> Skipped {
    let data = Data::new(x, w.map(std::borrow::Cow::Borrowed));
    let bits = |c: &[f64]| c.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    let seeds = [seed, seed + 101, seed + 202];
    let (mut reference, mut after_reference) = (Vec::new(), Vec::new());
    let mut reference_rows = Vec::new();
    for &s in &seeds {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(s);
        let rows = kmeans_plus_plus_reference_rows(&data, k, &mut rng, &AtomicBool::new(false));
        reference.push(bits(&data.gather_shifted(&rows)));
        reference_rows.push(rows);
        after_reference.push(rng.next_u64());
    }
    let stats = PlusPlusStats::default();
    for threads in [1, 3] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        for (fused, wave, screen32) in [
            (true, None, true),
            (false, None, true),
            (true, Some(1), true),
            (true, None, false),
            (false, None, false),
        ] {
            for restarts in [1, 3] {
                let mut rngs: Vec<_> = seeds[..restarts]
                    .iter()
                    .map(|&s| Xoshiro256PlusPlus::seed_from_u64(s))
                    .collect();
                let fast = pool.install(|| {
                    let settings = PassSettings {
                        fused,
                        wave,
                        stats: Some(&stats),
                        cancel: None,
                        screen32,
                    };
                    kmeans_plus_plus_with(&data, k, &mut rngs, settings)
                });
                assert_eq!(fast.len(), restarts);
                for (r, (c, rng)) in fast.iter().zip(&mut rngs).enumerate() {
                    let at = format!(
                        "k={k}, {threads} threads, fused {fused}, wave {wave:?}, f32 screen {screen32}, restart {r} of {restarts}"
                    );
                    assert_eq!(bits(&data.gather_shifted(c)), reference[r], "{at}");
                    assert_eq!(c, &reference_rows[r], "chosen rows differ: {at}");
                    assert_eq!(
                        rng.next_u64(),
                        after_reference[r],
                        "random stream differs: {at}"
                    );
                }
            }
        }
    }
    Skipped {
        visited: stats.visited.load(Relaxed),
        triangle: stats.triangle.load(Relaxed),
        screened: stats.screened.load(Relaxed),
    }
}

/// Well-separated blobs: `centres` of them, 100 apart, unit noise.
fn separated(n: usize, d: usize, centres: usize, seed: u64) -> Array2<f64> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let c: Vec<f64> = (0..centres * d)
        .map(|_| rng.below(20) as f64 * 100.0)
        .collect();
    Array2::from_shape_fn((n, d), |(i, j)| {
        c[(i % centres) * d + j] + (0..4).map(|_| rng.unit_f64()).sum::<f64>() - 2.0
    })
}

#[test]
fn fast_plus_plus_prunes_and_equals_reference_on_separated_blobs() {
    for &(n, d, centres, k) in &[(6000, 3, 12, 12), (5000, 8, 20, 40), (3000, 17, 6, 25)] {
        let x = separated(n, d, centres, (n + d) as u64);
        let s = check(x.view(), k, 3);
        // Both skips must actually happen here, or the equality above
        // would not test them.
        assert!(s.triangle > s.visited / 4, "{n}×{d}, k={k}: {s:?}");
        assert!(s.screened > 0, "{n}×{d}, k={k}: {s:?}");
        let s = check(x.mapv(|v| v as f32).view(), k, 4);
        assert!(s.triangle > s.visited / 4, "f32 {n}×{d}, k={k}: {s:?}");
    }
}

/// The screen with its products in `f32` skips points by itself (high
/// dimension, where the triangle test rarely can), so the equality of
/// [`check`] tests its bound. Its bound is wider than the `f64`
/// screen's, which on these data skips at least as many points (a
/// measured property of this data set, not a theorem).
#[test]
fn f32_screen_skips_points_in_high_dimension() {
    let x = crate::testing::testdata::blobs(3000, 64, 12, 64);
    let data = Data::new(x.view(), None);
    let count = |screen32: bool| {
        let stats = PlusPlusStats::default();
        let settings = PassSettings {
            fused: true,
            stats: Some(&stats),
            screen32,
            ..PassSettings::default()
        };
        let mut rngs = vec![Xoshiro256PlusPlus::seed_from_u64(9)];
        let rows = kmeans_plus_plus_with(&data, 20, &mut rngs, settings);
        let left = stats.visited.load(Relaxed) - stats.triangle.load(Relaxed);
        (rows, stats.screened.load(Relaxed), left)
    };
    let (rows32, screened32, left) = count(true);
    let (rows64, screened64, _) = count(false);
    assert_eq!(rows32, rows64);
    // Of the points the triangle test left, most are screened out.
    assert!(
        screened32 > left / 2,
        "{screened32} of {left}, f64 {screened64}"
    );
    assert!(screened64 >= screened32, "{screened64} < {screened32}");
}

/// Restarts drawn together in several groups, one group after another
/// (1 thread: a pass of three chunks keeps it busy) or side by side (2
/// and 3 threads): each restart gets the reference's start from its own
/// stream, bit for bit, and leaves the stream where the reference does.
#[test]
fn joint_starts_in_groups_equal_separate_starts() {
    let (n, d, k, restarts): (usize, usize, usize, usize) = (2 * PP_CHUNK + PP_CHUNK / 5, 2, 12, 5);
    assert!(n.div_ceil(PP_CHUNK) >= 2 && n.div_ceil(PP_CHUNK) < 4);
    assert_eq!(joint_group(d, 8), 1, "every restart its own group");
    let x = crate::testing::testdata::blobs(n, d, 6, 17);
    let data = Data::new(x.view(), None);
    let bits = |c: &[f64]| c.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    let seed = |r: usize| Xoshiro256PlusPlus::seed_from_u64(40 + r as u64);
    let reference: Vec<_> = (0..restarts)
        .map(|r| {
            let mut rng = seed(r);
            let rows = kmeans_plus_plus_reference_rows(&data, k, &mut rng, &AtomicBool::new(false));
            (bits(&data.gather_shifted(&rows)), rng.next_u64())
        })
        .collect();
    for threads in [1, 2, 3] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let mut rngs: Vec<_> = (0..restarts).map(seed).collect();
        let cancel = AtomicBool::new(false);
        let starts = pool.install(|| kmeans_plus_plus_joint(&data, k, &mut rngs, &cancel));
        assert_eq!(starts.len(), restarts);
        for (r, (start, rng)) in starts.iter().zip(&mut rngs).enumerate() {
            assert_eq!(
                bits(start),
                reference[r].0,
                "{threads} threads, restart {r}"
            );
            assert_eq!(
                rng.next_u64(),
                reference[r].1,
                "{threads} threads, restart {r}"
            );
        }
    }
}

#[test]
fn fast_plus_plus_equals_reference_on_overlapping_blobs() {
    for &(n, d, k) in &[
        (5000, 16, 20),
        (3000, 40, 30),
        (9000, 2, 60),
        (4100, 5, 200),
    ] {
        let x = crate::testing::testdata::blobs(n, d, k / 2, (n * d) as u64);
        let s = check(x.view(), k, 5);
        assert!(s.screened > 0, "{n}×{d}, k={k}: {s:?}");
        check(x.mapv(|v| v as f32).view(), k, 6);
    }
}

/// With sample weights the potentials and draws are weighted (and the
/// first centre is drawn by weight): spread weights, zeros (never
/// drawn), integers, and a few dominant weights.
#[test]
fn fast_plus_plus_equals_reference_with_weights() {
    for &(n, d, k) in &[(5000, 16, 20), (9000, 2, 60), (4100, 5, 200)] {
        let x = crate::testing::testdata::blobs(n, d, k / 2, 3 + (n * d) as u64);
        let spread: Vec<f64> = (0..n)
            .map(|i| 0.1 + ((i * 7919) % 97) as f64 / 9.7)
            .collect();
        let zeros: Vec<f64> = (0..n).map(|i| if i % 7 == 0 { 0.0 } else { 2.0 }).collect();
        let integers: Vec<f64> = (0..n).map(|i| (1 + i % 5) as f64).collect();
        let dominant: Vec<f64> = (0..n)
            .map(|i| if i % 500 == 0 { 1e6 } else { 1e-3 })
            .collect();
        for w in [&spread, &zeros, &integers, &dominant] {
            let s = check_weighted(x.view(), Some(w), k, 9);
            assert!(s.triangle + s.screened > 0, "{n}×{d}, k={k}: {s:?}");
            check_weighted(x.mapv(|v| v as f32).view(), Some(w), k, 10);
        }
    }
}

#[test]
fn fast_plus_plus_equals_reference_on_nasty_data() {
    // Many exact duplicates and exactly tied distances (k beyond the
    // number of distinct points included: the potential reaches 0).
    let grid = Array2::from_shape_fn((5000, 3), |(i, j)| ((i * (j + 2) + i / 7) % 4) as f64);
    for k in [5, 30, 80] {
        check(grid.view(), k, 7);
    }
    let dup = Array2::from_shape_fn((4500, 2), |(i, j)| ((i % 9) * (j + 1)) as f64);
    let s = check(dup.view(), 12, 8);
    assert!(s.triangle + s.screened > 0, "{s:?}");
    // Far from the origin (cancellation in the shift), with a tiny
    // spread, and offset by 10⁶.
    let x = crate::testing::testdata::blobs(4200, 6, 9, 11);
    check(x.mapv(|v| 1e9 + v * 1e-4).view(), 20, 9);
    check(x.mapv(|v| v + 1e6).view(), 20, 10);
    check(grid.mapv(|v| v * 1e-3 + 1e6).view(), 9, 11);
    // Tiny magnitudes: squared distances in the subnormal range.
    check(x.mapv(|v| v * 1e-160).view(), 15, 12);
    check(grid.mapv(|v| v * 1e-155).view(), 10, 13);
    // One column.
    let line = Array2::from_shape_fn((6000, 1), |(i, _)| ((i * 7919) % 1013) as f64 * 0.37);
    let s = check(line.view(), 50, 14);
    assert!(s.triangle > s.visited / 4, "{s:?}");
    check(line.mapv(|v| v as f32).view(), 50, 15);
    check(x.mapv(|v| v as f32 + 1e4).view(), 20, 16);
    // Beyond the `f32` screen's range: the `f64` screen runs.
    check(x.mapv(|v| v * 1e20).view(), 12, 18);
    // Huge magnitudes: the plain definition runs.
    check(x.mapv(|v| v * 1e120).view(), 5, 17);
}

/// The changes of one pass with the trials `cands` (rows of `d`),
/// through [`lanes::plus_plus_changes`] with every skip enabled
/// (fused or not, the screen's products in `f64` and in `f32`) and by
/// brute force: they must be the same lists.
fn pass_equals_brute_force(x: &Array2<f64>, centre: usize, cands: &[usize], fused: bool) -> bool {
    let (n, d) = x.dim();
    // No shift, so that the rows are exactly the given numbers.
    let data = Data::with_shift(x.view(), None, vec![0.0; d]);
    let row = |i: usize| x.row(i).to_vec();
    let mu = row(centre);
    let closest: Vec<f64> = (0..n).map(|i| sq_dist(&row(i), &mu)).collect();
    let norms: Vec<f64> = (0..n).map(|i| row(i).iter().map(|v| v * v).sum()).collect();
    let trials = cands.len();
    let lanes = lanes::plus_plus_lanes_for(trials);
    let ys: Vec<f64> = cands.iter().flat_map(|&c| row(c)).collect();
    let mut ct = vec![0.0; d * lanes];
    let mut cand_norms = vec![0.0; LANES];
    for t in 0..lanes {
        let y = row(cands[if t < trials { t } else { 0 }]);
        for c in 0..d {
            ct[c * lanes + t] = y[c];
        }
        cand_norms[t] = y.iter().map(|v| v * v).sum();
    }
    let mut limits = Vec::new();
    prune_limits(&mu, &ys, d, &mut limits);
    let ct32: Vec<f32> = ct.iter().map(|&v| v as f32).collect();
    let stats = PlusPlusStats::default();
    let mut tr = lanes::PlusPlusTrials {
        ct: &ct,
        ct32: None,
        lanes,
        trials,
        cands: &ys,
        cand_norms: &cand_norms,
        closest: &closest,
        norms: &norms,
        assign: &vec![0; n],
        limits: &limits,
        floor: PRUNE_FLOOR,
        fused,
        stats: Some(&stats),
    };
    let fast = lanes::plus_plus_changes(&data, std::slice::from_ref(&tr), 0, n)
        .pop()
        .unwrap_or_default();
    // The same pass with the screen's products in `f32`.
    tr.ct32 = Some(&ct32);
    let fast32 = lanes::plus_plus_changes(&data, std::slice::from_ref(&tr), 0, n)
        .pop()
        .unwrap_or_default();
    let brute: Vec<Vec<(u32, f64)>> = ys
        .chunks_exact(d)
        .map(|y| {
            (0..n)
                .map(|i| (i as u32, sq_dist(&row(i), y)))
                .filter(|&(i, v)| v < closest[i as usize])
                .collect()
        })
        .collect();
    let key = |l: &Vec<Vec<(u32, f64)>>| -> Vec<Vec<(u32, u64)>> {
        l.iter()
            .map(|v| v.iter().map(|&(i, d)| (i, d.to_bits())).collect())
            .collect()
    };
    key(&fast) == key(&brute) && key(&fast32) == key(&brute)
}

#[test]
fn pass_equals_brute_force_for_every_lane_count() {
    // 4, 8 and 16 lanes (up to 4, 8 and 16 trials), spare lanes included.
    let x = crate::testing::testdata::blobs(700, 11, 9, 21);
    let cands: Vec<usize> = (0..16).map(|t| 5 + 41 * t).collect();
    for trials in [1, 3, 4, 5, 8, 9, 13, 16] {
        for fused in [true, false] {
            assert!(
                pass_equals_brute_force(&x, 3, &cands[..trials], fused),
                "{trials} trials, fused {fused}"
            );
        }
    }
}

#[test]
fn pruning_margins_hold_on_the_boundary() {
    // x lies halfway between its centre (the origin) and the trial y up
    // to rounding: the computed ‖y‖² is exactly 4·‖x‖², yet the computed
    // ‖x − y‖² is 1 ulp below ‖x‖², so the reference moves x to y. A
    // triangle test without its margin skips x, and so does the dot
    // product screen without its error bound.
    let x = ndarray::array![
        [0.0, 0.0],
        [0.8861601293631303, -1.0849511149181894],
        [1.7723202587262599, -2.1699022298363793],
        [0.3, 5.0]
    ];
    let (c, y) = (
        sq_dist(&[0.0, 0.0], &[x[[1, 0]], x[[1, 1]]]),
        sq_dist(&[0.0, 0.0], &[x[[2, 0]], x[[2, 1]]]),
    );
    let dist = sq_dist(&[x[[1, 0]], x[[1, 1]]], &[x[[2, 0]], x[[2, 1]]]);
    assert_eq!(y / 4.0, c, "the case is no longer on the boundary");
    assert!(dist < c);
    for fused in [true, false] {
        assert!(
            pass_equals_brute_force(&x, 0, &[2, 3], fused),
            "fused {fused}"
        );
    }
    // Many points near that boundary, in a few dimensions and around
    // other centres.
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    let mut on_boundary = 0;
    for case in 0..3000 {
        let d = 2 + case % 4;
        let mu: Vec<f64> = (0..d)
            .map(|_| if case % 3 == 0 { 0.0 } else { rng.unit_f64() })
            .collect();
        let v: Vec<f64> = (0..d).map(|_| rng.unit_f64() * 4.0 - 2.0).collect();
        let mut rows = vec![mu.clone()];
        for _ in 0..6 {
            let xs: Vec<f64> = mu.iter().zip(&v).map(|(m, w)| m + w).collect();
            let ys: Vec<f64> = mu
                .iter()
                .zip(&v)
                .map(|(m, w)| {
                    let y = m + 2.0 * w;
                    let ulp = f64::from_bits(y.abs().to_bits() + 1) - y.abs();
                    y + (rng.below(7) as f64 - 3.0) * ulp
                })
                .collect();
            let (c, dd) = (sq_dist(&xs, &mu), sq_dist(&ys, &mu));
            if dd / 4.0 >= c && sq_dist(&xs, &ys) < c {
                on_boundary += 1;
            }
            rows.push(xs);
            rows.push(ys);
        }
        let x = Array2::from_shape_fn((rows.len(), d), |(i, j)| rows[i][j]);
        let cands: Vec<usize> = (0..6).map(|t| 2 + 2 * t).collect();
        for fused in [true, false] {
            assert!(
                pass_equals_brute_force(&x, 0, &cands[..2 + case % 5], fused),
                "case {case}"
            );
        }
    }
    assert!(on_boundary > 20, "only {on_boundary} cases on the boundary");
}
