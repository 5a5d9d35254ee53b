//! The bounded descent's decisions against brute force: every transfer's
//! and swap's change against the objective recomputed from scratch, the
//! swap screen against the exact changes, the feasible start against
//! random bounds, and the end of a descent against every transfer and swap;
//! for the k-means objective and for the spherical loss (unit rows).
#![allow(clippy::unwrap_used)]

use super::certify::certify;
use super::clusters::Clusters;
use super::descent::swap_change;
use super::exchange::Graph;
use super::gains::{Gains, SquaredEuclidean, SwapRow};
use super::start::feasible_labels;
use super::{Descent, Settings};
use crate::data::Data;
use crate::engine::points::Points;
use crate::params::Metric;
use crate::params::{Params, SizeBounds};
use crate::rng::Xoshiro256PlusPlus;
use crate::rows::Rows;
use crate::sparse::{CsrView, SparseData};
use crate::spherical::{checked_spherical, Spherical, SphericalInput, SphericalLoss, UnitDense};
use ndarray::{Array2, ArrayView1};
use std::borrow::Cow;
use std::sync::atomic::AtomicBool;

/// `n × d` values on a coarse grid (exact duplicates) or in general
/// position, from `seed`.
fn data(n: usize, d: usize, dupes: bool, rng: &mut Xoshiro256PlusPlus) -> Array2<f64> {
    Array2::from_shape_fn((n, d), |_| {
        if dupes {
            rng.below(3) as f64
        } else {
            rng.unit_f64() * 4.0 - 1.0
        }
    })
}

/// Unit weights in even cases, [`weights`] in odd ones.
fn case_weights(case: usize, n: usize, k: usize, rng: &mut Xoshiro256PlusPlus) -> Vec<f64> {
    if case.is_multiple_of(2) {
        vec![1.0; n]
    } else {
        weights(n, k, rng)
    }
}

/// Weights in `[0, 3)`, about a fifth of them 0, at least `k` positive.
fn weights(n: usize, k: usize, rng: &mut Xoshiro256PlusPlus) -> Vec<f64> {
    let mut w: Vec<f64> = (0..n)
        .map(|_| {
            if rng.below(5) == 0 {
                0.0
            } else {
                0.1 + rng.unit_f64() * 2.9
            }
        })
        .collect();
    for v in w.iter_mut().take(k) {
        if *v == 0.0 {
            *v = 1.0;
        }
    }
    w
}

/// The objective of `labels` computed from scratch: weighted means, then
/// weighted squared distances (clusters without weight cost nothing).
fn objective(x: &Array2<f64>, w: &[f64], labels: &[usize], k: usize) -> f64 {
    let d = x.ncols();
    let mut sums = vec![0.0; k * d];
    let mut weight = vec![0.0; k];
    for (i, &l) in labels.iter().enumerate() {
        weight[l] += w[i];
        for c in 0..d {
            sums[l * d + c] += w[i] * x[[i, c]];
        }
    }
    labels
        .iter()
        .enumerate()
        .map(|(i, &l)| {
            if weight[l] == 0.0 {
                return 0.0;
            }
            w[i] * (0..d)
                .map(|c| (x[[i, c]] - sums[l * d + c] / weight[l]).powi(2))
                .sum::<f64>()
        })
        .sum()
}

/// Random labels with every cluster holding a row of positive weight.
fn labels(n: usize, k: usize, w: &[f64], rng: &mut Xoshiro256PlusPlus) -> Vec<usize> {
    let mut labels: Vec<usize> = (0..n).map(|_| rng.below(k)).collect();
    let positive: Vec<usize> = (0..n).filter(|&i| w[i] > 0.0).collect();
    for (j, &i) in positive.iter().take(k).enumerate() {
        labels[i] = j;
    }
    labels
}

fn data_points<'a>(x: &'a Array2<f64>, w: &[f64]) -> Data<'a, f64> {
    Data::new(x.view(), Some(Cow::Owned(w.to_vec())))
}

/// An objective computed from scratch: data, weights, labels, `k`.
type Loss = fn(&Array2<f64>, &[f64], &[usize], usize) -> f64;

/// The spherical loss of `labels` computed from scratch: `Σ_j (W_j −
/// ‖Σ w·u‖)` over the rows scaled to unit length.
fn spherical_loss(x: &Array2<f64>, w: &[f64], labels: &[usize], k: usize) -> f64 {
    let d = x.ncols();
    let mut sums = vec![0.0; k * d];
    let mut weight = vec![0.0; k];
    for (i, &l) in labels.iter().enumerate() {
        let norm = x.row(i).iter().map(|v| v * v).sum::<f64>().sqrt();
        weight[l] += w[i];
        for c in 0..d {
            sums[l * d + c] += w[i] * x[[i, c]] / norm;
        }
    }
    (0..k)
        .map(|j| {
            let s = &sums[j * d..(j + 1) * d];
            weight[j] - s.iter().map(|v| v * v).sum::<f64>().sqrt()
        })
        .sum()
}

/// Rows with no row of length zero (the spherical loss needs a direction
/// per row): `data` shifted off the origin's grid point.
fn spherical_data(n: usize, d: usize, dupes: bool, rng: &mut Xoshiro256PlusPlus) -> Array2<f64> {
    data(n, d, dupes, rng).mapv(|v| v + 0.25)
}

/// `w` in the cosine objective's units (its largest weight in `[1, 2)`:
/// [`crate::data::unit_weight_exponent`]), so that losses recomputed from
/// them are those the descent reports.
fn unit_scaled(w: &[f64]) -> Vec<f64> {
    crate::data::scaled_weights(w, crate::data::unit_weight_exponent(w).unwrap())
}

/// `x`'s rows scaled to unit length, with weights `w` (in the cosine
/// objective's units: [`unit_scaled`]).
fn unit_points<'a>(x: &'a Array2<f64>, w: &'a [f64], k: usize) -> Spherical<'a, UnitDense, f64> {
    let params = Params::new(k).metric(Metric::Cosine).check().unwrap();
    let rows = Rows::Dense(x.view());
    let (input, exponent) = checked_spherical(rows, Some(ArrayView1::from(w)), &params, k).unwrap();
    assert_eq!(exponent, 0, "weights not in the cosine objective's units");
    let SphericalInput::Dense(s) = input else {
        unreachable!()
    };
    s
}

/// Bounds for `k` clusters of `n` rows that some clustering meets: random
/// minimums and maximums around the sizes of a random partition.
fn random_bounds(n: usize, k: usize, rng: &mut Xoshiro256PlusPlus) -> SizeBounds {
    let mut sizes = vec![1usize; k];
    for _ in k..n {
        sizes[rng.below(k)] += 1;
    }
    let min = sizes.iter().map(|&s| s - rng.below(s.min(3))).collect();
    let max = sizes.iter().map(|&s| s + rng.below(3)).collect();
    SizeBounds { min, max }
}

/// Every transfer's and swap's change against `loss` recomputed from
/// scratch, for the clustering `labels` of `points` (the rows of `x`).
fn check_changes<P: Points, G: Gains>(
    x: &Array2<f64>,
    w: &[f64],
    points: &P,
    labels: &[usize],
    k: usize,
    loss: Loss,
    case: usize,
) {
    let (n, d) = x.dim();
    let c = Clusters::from_labels::<P, G>(points, k, labels.to_vec());
    let before = loss(x, w, labels, k);
    assert!((c.objective::<P, G>(points) - before).abs() <= 1e-9 * before.max(1e-12));
    let scale = before.max(1e-12);
    let mut buf = vec![0.0; d];
    for i in 0..n {
        let a = labels[i];
        for j in (0..k).filter(|&j| j != a) {
            if c.may_leave(a, w[i]) {
                let (own, to) = (
                    c.distance(points, i, a, &mut buf),
                    c.distance(points, i, j, &mut buf),
                );
                let change = G::transfer(w[i], c.side(a), c.side(j), own, to);
                let mut moved = labels.to_vec();
                moved[i] = j;
                let exact = loss(x, w, &moved, k) - before;
                assert!(
                    (change.delta() - exact).abs() <= 1e-9 * scale,
                    "case {case}: transfer {i}->{j}: {} vs {exact}",
                    change.delta()
                );
            }
        }
        for y in (0..n).filter(|&y| labels[y] != a) {
            let b = labels[y];
            let xs = (
                c.distance(points, i, a, &mut buf),
                c.distance(points, i, b, &mut buf),
            );
            let Some(change) = swap_change::<P, G>(&c, points, i, y, xs, &mut buf) else {
                // Only where a cluster would be left without weight.
                assert!(
                    c.stats.weights[a] - w[i] + w[y] <= 0.0
                        || c.stats.weights[b] - w[y] + w[i] <= 0.0
                );
                continue;
            };
            let mut swapped = labels.to_vec();
            swapped[i] = b;
            swapped[y] = a;
            let exact = loss(x, w, &swapped, k) - before;
            assert!(
                (change.delta() - exact).abs() <= 1e-9 * scale,
                "case {case}: swap {i}<->{y}: {} vs {exact}",
                change.delta()
            );
        }
    }
}

/// A case's sizes, data (`spherical`: no row of length zero), weights and
/// labels.
fn small_case(
    rng: &mut Xoshiro256PlusPlus,
    case: usize,
    spherical: bool,
) -> (Array2<f64>, Vec<f64>, Vec<usize>, usize) {
    let (n, d, k) = (6 + rng.below(10), 1 + rng.below(4), 2 + rng.below(3));
    let x = if spherical {
        spherical_data(n, d, case.is_multiple_of(3), rng)
    } else {
        data(n, d, case.is_multiple_of(3), rng)
    };
    let w = if case.is_multiple_of(2) {
        vec![1.0; n]
    } else {
        weights(n, k, rng)
    };
    let labels = labels(n, k, &w, rng);
    (x, w, labels, k)
}

/// `n × d` rows ([`data`], with repeated rows where `dupes`), the case's
/// weights and random labels into `k` clusters.
fn labelled_case(
    (n, d, k): (usize, usize, usize),
    case: usize,
    dupes: bool,
    rng: &mut Xoshiro256PlusPlus,
) -> (Array2<f64>, Vec<f64>, Vec<usize>) {
    let x = data(n, d, dupes, rng);
    let w = case_weights(case, n, k, rng);
    let labels = labels(n, k, &w, rng);
    (x, w, labels)
}

#[test]
fn transfer_and_swap_changes_match_the_objective_recomputed() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    for case in 0..40 {
        let (x, w, labels, k) = small_case(&mut rng, case, false);
        let points = data_points(&x, &w);
        check_changes::<_, SquaredEuclidean>(&x, &w, &points, &labels, k, objective, case);
    }
}

#[test]
fn spherical_transfer_and_swap_changes_match_the_loss_recomputed() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(12);
    for case in 0..40 {
        let (x, w, labels, k) = small_case(&mut rng, case, true);
        let w = unit_scaled(&w);
        let points = unit_points(&x, &w, k);
        check_changes::<_, SphericalLoss>(&x, &w, &points, &labels, k, spherical_loss, case);
    }
}

/// The screen's bound against every swap's exact change, for every pair of
/// clusters the screen covers; the number of pairs compared.
fn check_screen<P: Points, G: Gains>(points: &P, c: &Clusters, case: usize) -> usize {
    let (n, k) = (points.len(), c.k);
    let alpha = c.heaviest(points);
    let mut buf = vec![0.0; c.d];
    let mut pairs = 0;
    for a in 0..k {
        for b in (a + 1)..k {
            if G::degenerate(c.side(a), alpha[a]) || G::degenerate(c.side(b), alpha[b]) {
                continue;
            }
            let (sa, sb) = (c.side(a), c.side(b));
            let screen = G::screen(sa, sb, alpha[a], alpha[b]);
            for xr in (0..n).filter(|&i| c.stats.labels[i] == a) {
                let xs = (
                    c.distance(points, xr, a, &mut buf),
                    c.distance(points, xr, b, &mut buf),
                );
                let x = SwapRow {
                    weight: points.weight(xr),
                    own: xs.0,
                    other: xs.1,
                };
                let xp = G::x_part(x, sa, sb, &screen, 0.0);
                for yr in (0..n).filter(|&i| c.stats.labels[i] == b) {
                    let ya = c.distance(points, yr, a, &mut buf);
                    let yb = c.distance(points, yr, b, &mut buf);
                    let y = SwapRow {
                        weight: points.weight(yr),
                        own: yb,
                        other: ya,
                    };
                    let yp = G::y_part(y, sa, sb, &screen, 0.0);
                    let change = swap_change::<P, G>(c, points, xr, yr, xs, &mut buf).unwrap();
                    assert!(
                        xp + yp <= change.delta(),
                        "case {case}: bound {} above change {}",
                        xp + yp,
                        change.delta()
                    );
                    pairs += 1;
                }
            }
        }
    }
    pairs
}

#[test]
fn the_swap_screen_never_exceeds_a_swaps_change() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let (mut pairs, mut spherical_pairs) = (0, 0);
    for case in 0..60 {
        let (n, d, k) = (8 + rng.below(16), 1 + rng.below(3), 2 + rng.below(4));
        let (x, w, labels) = labelled_case((n, d, k), case, case % 4 == 0, &mut rng);
        let points = data_points(&x, &w);
        let c = Clusters::from_labels::<_, SquaredEuclidean>(&points, k, labels.clone());
        pairs += check_screen::<_, SquaredEuclidean>(&points, &c, case);
        // The same rows off the origin, as directions; rows near one
        // another in clusters long enough for the spherical screen.
        let x = x.mapv(|v| v * 0.2 + 2.0);
        let w = unit_scaled(&w);
        let points = unit_points(&x, &w, k);
        let c = Clusters::from_labels::<_, SphericalLoss>(&points, k, labels);
        spherical_pairs += check_screen::<_, SphericalLoss>(&points, &c, case);
    }
    assert!(pairs > 1000, "{pairs}");
    assert!(spherical_pairs > 1000, "{spherical_pairs}");
}

#[test]
fn sparse_rows_give_the_dense_changes() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    let (n, d, k) = (14, 5, 3);
    let x = data(n, d, false, &mut rng).mapv(|v| if v < 0.5 { 0.0 } else { v });
    let w = weights(n, k, &mut rng);
    let (mut indptr, mut indices, mut values) = (vec![0], Vec::new(), Vec::new());
    for row in x.rows() {
        for (c, &v) in row.iter().enumerate().filter(|(_, v)| **v != 0.0) {
            indices.push(c);
            values.push(v);
        }
        indptr.push(values.len());
    }
    let cancel = AtomicBool::new(false);
    let csr = CsrView::new(d, &indptr, &indices, &values).unwrap();
    let sparse = SparseData::new(csr, Some(Cow::Owned(w.clone())), &cancel);
    let dense = data_points(&x, &w);
    let labels = labels(n, k, &w, &mut rng);
    let (cs, cd) = (
        Clusters::from_labels::<_, SquaredEuclidean>(&sparse, k, labels.clone()),
        Clusters::from_labels::<_, SquaredEuclidean>(&dense, k, labels.clone()),
    );
    let before = objective(&x, &w, &labels, k);
    assert!((cs.objective::<_, SquaredEuclidean>(&sparse) - before).abs() <= 1e-9 * before);
    assert!((cd.objective::<_, SquaredEuclidean>(&dense) - before).abs() <= 1e-9 * before);
    let mut buf = vec![0.0; d];
    for i in 0..n {
        for y in (0..n).filter(|&y| labels[y] != labels[i]) {
            let (a, b) = (labels[i], labels[y]);
            let xs = (
                cs.distance(&sparse, i, a, &mut buf),
                cs.distance(&sparse, i, b, &mut buf),
            );
            let xd = (
                cd.distance(&dense, i, a, &mut buf),
                cd.distance(&dense, i, b, &mut buf),
            );
            let s = swap_change::<_, SquaredEuclidean>(&cs, &sparse, i, y, xs, &mut buf);
            let t = swap_change::<_, SquaredEuclidean>(&cd, &dense, i, y, xd, &mut buf);
            match (s, t) {
                (Some(s), Some(t)) => assert!((s.delta() - t.delta()).abs() <= 1e-9 * before),
                (s, t) => assert_eq!(s.is_none(), t.is_none()),
            }
        }
    }
}

#[test]
fn every_start_meets_its_bounds_and_gives_every_cluster_weight() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(17);
    for case in 0..200 {
        let (n, d) = (2 + rng.below(40), 1 + rng.below(3));
        let k = 2 + rng.below((n - 1).min(8));
        let x = data(n, d, case % 3 == 0, &mut rng);
        let w = case_weights(case, n, k, &mut rng);
        let bounds = random_bounds(n, k, &mut rng);
        // Centres anywhere: rows, or points far from every row.
        let centres: Vec<f64> = (0..k * d).map(|_| rng.unit_f64() * 20.0 - 10.0).collect();
        let points = data_points(&x, &w);
        let labels = feasible_labels(&points, &centres, &bounds);
        let mut sizes = vec![0; k];
        let mut weight = vec![0.0; k];
        for (i, &l) in labels.iter().enumerate() {
            sizes[l] += 1;
            weight[l] += w[i];
        }
        for j in 0..k {
            assert!(
                bounds.min[j] <= sizes[j] && sizes[j] <= bounds.max[j],
                "case {case}: {sizes:?} {bounds:?}"
            );
            assert!(weight[j] > 0.0, "case {case}: cluster {j} without weight");
        }
    }
}

/// Every transfer the bounds allow and (with `swaps`) every swap, by brute
/// force: none lowers `loss` by more than the margin's share of it.
fn assert_local_optimum(
    x: &Array2<f64>,
    w: &[f64],
    labels: &[usize],
    k: usize,
    bounds: &SizeBounds,
    loss: Loss,
    swaps: bool,
) {
    let n = labels.len();
    let now = loss(x, w, labels, k);
    let slack = 1e-9 * now + 1e-12;
    let mut sizes = vec![0; k];
    let mut weight = vec![0.0; k];
    for (i, &l) in labels.iter().enumerate() {
        sizes[l] += 1;
        weight[l] += w[i];
    }
    let mut moved = labels.to_vec();
    for i in 0..n {
        let a = labels[i];
        for j in (0..k).filter(|&j| j != a) {
            if sizes[a] > bounds.min[a] && sizes[j] < bounds.max[j] && weight[a] - w[i] > 0.0 {
                moved[i] = j;
                let after = loss(x, w, &moved, k);
                assert!(
                    after >= now - slack,
                    "transfer {i}: {a}->{j} lowers {now} to {after}"
                );
                moved[i] = a;
            }
        }
        for y in (0..n).filter(|&y| swaps && labels[y] != a) {
            let b = labels[y];
            if weight[a] - w[i] + w[y] > 0.0 && weight[b] - w[y] + w[i] > 0.0 {
                moved[i] = b;
                moved[y] = a;
                let after = loss(x, w, &moved, k);
                assert!(
                    after >= now - slack,
                    "swap {i}<->{y} lowers {now} to {after}"
                );
                moved[i] = a;
                moved[y] = b;
            }
        }
    }
}

/// A descent of `G` on `points` (the rows of `x`) from centres at random
/// rows, to its end: it ends converged, within the bounds, at a fixed point
/// of the assignment step, at a local optimum under transfers and (without
/// a tolerance) swaps, its objective that of its labels.
#[allow(clippy::too_many_arguments)]
fn check_descent<P: Points, G: Gains>(
    x: &Array2<f64>,
    w: &[f64],
    points: &P,
    k: usize,
    bounds: &SizeBounds,
    loss: Loss,
    case: usize,
    rng: &mut Xoshiro256PlusPlus,
) {
    let n = x.nrows();
    let dim = points.dim();
    let centres: Vec<f64> = (0..k)
        .flat_map(|_| {
            // A random row, in the coordinates the descent reads.
            let (mut row, mut buf) = (vec![0.0; dim], vec![0.0; dim]);
            P::add_to(&points.row(rng.below(n), &mut buf), 1.0, &mut row);
            row
        })
        .collect();
    // Every fifth case with a tolerance: no exhaustive check then.
    let tol = if case % 5 == 4 { 1e-15 } else { 0.0 };
    let settings = Settings {
        factors: if case % 4 == 1 {
            vec![1.4, 1.2]
        } else {
            vec![]
        },
        descend: true,
        cap: 1000,
        tol,
    };
    let mut descent = Descent::start::<P, G>(points, &centres, bounds.clone(), settings);
    let mut order: Vec<usize> = (0..n).collect();
    while !descent.is_done() {
        rng.shuffle(&mut order);
        descent.step::<P, G>(points, &order);
    }
    assert!(descent.converged(), "case {case}");
    let mut sizes = vec![0; k];
    for &l in descent.labels() {
        sizes[l] += 1;
    }
    for (j, &size) in sizes.iter().enumerate() {
        assert!(
            bounds.min[j] <= size && size <= bounds.max[j],
            "case {case}"
        );
    }
    assert_local_optimum(x, w, descent.labels(), k, bounds, loss, tol == 0.0);
    // A fixed point of the assignment step too: at its own centroids no
    // cycle of moves within the bounds pays.
    let mut end = Clusters::from_labels::<P, G>(points, k, descent.labels().to_vec());
    assert_eq!(
        super::exchange::exchange::<P, G>(&mut end, points, bounds),
        0,
        "case {case}"
    );
    let recomputed = loss(x, w, descent.labels(), k);
    assert!((descent.objective() - recomputed).abs() <= 1e-9 * descent.objective() + 1e-12);
}

#[test]
fn a_descent_ends_at_a_local_optimum_under_transfers_and_swaps() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(23);
    for case in 0..60 {
        let (n, d) = (4 + rng.below(30), 1 + rng.below(3));
        let k = 2 + rng.below((n - 2).min(6));
        let x = data(n, d, case % 3 == 0, &mut rng);
        let w = case_weights(case, n, k, &mut rng);
        let bounds = random_bounds(n, k, &mut rng);
        let points = data_points(&x, &w);
        check_descent::<_, SquaredEuclidean>(
            &x, &w, &points, k, &bounds, objective, case, &mut rng,
        );
    }
}

#[test]
fn a_spherical_descent_ends_at_a_local_optimum_under_transfers_and_swaps() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(24);
    for case in 0..60 {
        let (n, d) = (4 + rng.below(30), 2 + rng.below(3));
        let k = 2 + rng.below((n - 2).min(6));
        let x = spherical_data(n, d, case % 3 == 0, &mut rng);
        let w = case_weights(case, n, k, &mut rng);
        let bounds = random_bounds(n, k, &mut rng);
        let w = unit_scaled(&w);
        let points = unit_points(&x, &w, k);
        check_descent::<_, SphericalLoss>(
            &x,
            &w,
            &points,
            k,
            &bounds,
            spherical_loss,
            case,
            &mut rng,
        );
    }
}

/// Checks alone from `labels`, until one takes nothing: every check that
/// takes swaps lowers `loss`, and the last leaves no swap that pays (by
/// brute force); the rows the checks moved.
fn check_certify<P: Points, G: Gains>(
    x: &Array2<f64>,
    w: &[f64],
    points: &P,
    labels: Vec<usize>,
    k: usize,
    loss: Loss,
    case: usize,
) -> usize {
    let mut c = Clusters::from_labels::<P, G>(points, k, labels);
    let mut taken = 0;
    loop {
        let before = loss(x, w, &c.stats.labels, k);
        let moved = certify::<P, G>(&mut c, points);
        c.recompute(points);
        if moved == 0 {
            break;
        }
        taken += moved;
        assert!(
            loss(x, w, &c.stats.labels, k) < before,
            "case {case}: swaps that did not lower the objective"
        );
    }
    // Only swaps: bounds that forbid every transfer.
    let mut sizes = vec![0; k];
    for &l in &c.stats.labels {
        sizes[l] += 1;
    }
    let fixed = SizeBounds {
        min: sizes.clone(),
        max: sizes,
    };
    assert_local_optimum(x, w, &c.stats.labels, k, &fixed, loss, true);
    taken
}

#[test]
fn a_check_that_takes_nothing_proves_no_swap_pays() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(29);
    let (mut taken, mut spherical_taken) = (0, 0);
    for case in 0..60 {
        let (n, d, k) = (6 + rng.below(30), 1 + rng.below(3), 2 + rng.below(5));
        let (x, w, labels) = labelled_case((n, d, k), case, case % 3 == 0, &mut rng);
        let points = data_points(&x, &w);
        taken += check_certify::<_, SquaredEuclidean>(
            &x,
            &w,
            &points,
            labels.clone(),
            k,
            objective,
            case,
        );
        // The same rows as directions, near one another (clusters the
        // spherical screen covers) and spread (clusters it does not).
        for spread in [0.2, 1.0] {
            let x = x.mapv(|v| v * spread + 2.0 * (1.0 - spread) + 0.25);
            let w = unit_scaled(&w);
            let points = unit_points(&x, &w, k);
            spherical_taken += check_certify::<_, SphericalLoss>(
                &x,
                &w,
                &points,
                labels.clone(),
                k,
                spherical_loss,
                case,
            );
        }
    }
    assert!(taken > 100, "{taken}");
    assert!(spherical_taken > 100, "{spherical_taken}");
}

#[test]
fn points_distances_agree_with_one_at_a_time() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
    for d in [1, 3, 7, 40, 70] {
        let x = data(30, d, false, &mut rng);
        let w = vec![1.0; 30];
        let points = data_points(&x, &w);
        let c = Clusters::from_labels::<_, SquaredEuclidean>(
            &points,
            4,
            (0..30).map(|i| i % 4).collect(),
        );
        let rows: Vec<usize> = (0..30).rev().collect();
        let mut out = vec![0.0; 30 * 4];
        points.distances(&rows, &c.centroids, &c.norms, &mut out);
        let mut buf = vec![0.0; d];
        for (r, &i) in rows.iter().enumerate() {
            for j in 0..4 {
                assert_eq!(
                    out[r * 4 + j].to_bits(),
                    c.distance(&points, i, j, &mut buf).to_bits()
                );
            }
        }
    }
}

/// Every assignment of `n` rows to `k` clusters within `bounds`, by
/// brute force: the lowest cost, each row's cost in each cluster read from
/// `cost(i, j)`.
fn best_bounded_assignment(
    n: usize,
    k: usize,
    bounds: &SizeBounds,
    cost: &dyn Fn(usize, usize) -> f64,
) -> f64 {
    let mut best = f64::INFINITY;
    let mut labels = vec![0usize; n];
    loop {
        let mut sizes = vec![0; k];
        for &l in &labels {
            sizes[l] += 1;
        }
        if (0..k).all(|j| bounds.min[j] <= sizes[j] && sizes[j] <= bounds.max[j]) {
            let total: f64 = labels.iter().enumerate().map(|(i, &l)| cost(i, l)).sum();
            best = best.min(total);
        }
        // The next assignment, as a number in base `k`.
        let mut at = 0;
        while at < n && labels[at] == k - 1 {
            labels[at] = 0;
            at += 1;
        }
        if at == n {
            return best;
        }
        labels[at] += 1;
    }
}

/// The assignment step against brute force: with the centroids it starts
/// from, the labels it leaves are an optimal assignment within the bounds
/// (unit weights and minimums of at least 2, so that no cluster's weight
/// is all in one row), and the objective after the centroids move is no
/// higher than before.
fn check_exchange<P: Points, G: Gains>(
    points: &P,
    labels: Vec<usize>,
    bounds: &SizeBounds,
) -> usize {
    let (n, k) = (points.len(), bounds.k());
    let mut c = Clusters::from_labels::<P, G>(points, k, labels);
    let before = c.clone();
    let objective = c.objective::<P, G>(points);
    let mut buf = vec![0.0; c.d];
    let mut costs = vec![0.0; n * k];
    for i in 0..n {
        for j in 0..k {
            costs[i * k + j] = G::loss(
                points.weight(i),
                before.distance(points, i, j, &mut buf),
                before.side(j),
            );
        }
    }
    let moved = super::exchange::exchange::<P, G>(&mut c, points, bounds);
    let got: f64 = c
        .stats
        .labels
        .iter()
        .enumerate()
        .map(|(i, &l)| costs[i * k + l])
        .sum();
    let best = best_bounded_assignment(n, k, bounds, &|i, j| costs[i * k + j]);
    let scale = objective.max(1e-12);
    assert!(
        got <= best + 1e-9 * scale,
        "assignment {got} above the best {best}"
    );
    assert!(c.objective::<P, G>(points) <= objective + 1e-12 * scale);
    let mut sizes = vec![0; k];
    for &l in &c.stats.labels {
        sizes[l] += 1;
    }
    for (j, &size) in sizes.iter().enumerate() {
        assert!(bounds.min[j] <= size && size <= bounds.max[j]);
    }
    moved
}

#[test]
fn the_assignment_step_is_an_optimal_bounded_assignment() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(41);
    let (mut moved, mut spherical_moved) = (0, 0);
    for case in 0..80 {
        let k = 2 + rng.below(2);
        let n = 2 * k + rng.below(9 - 2 * k);
        let d = 1 + rng.below(3);
        // Minimums of at least 2, maximums around a random partition's sizes.
        let mut bounds = random_bounds(n, k, &mut rng);
        for j in 0..k {
            bounds.min[j] = bounds.min[j].max(2);
            bounds.max[j] = bounds.max[j].max(bounds.min[j]);
        }
        if bounds.min.iter().sum::<usize>() > n || bounds.max.iter().sum::<usize>() < n {
            continue;
        }
        let w = vec![1.0; n];
        let x = data(n, d, case % 3 == 0, &mut rng);
        let centres: Vec<f64> = (0..k * d).map(|_| rng.unit_f64() * 6.0 - 2.0).collect();
        let points = data_points(&x, &w);
        let labels = feasible_labels(&points, &centres, &bounds);
        moved += check_exchange::<_, SquaredEuclidean>(&points, labels.clone(), &bounds);
        let x = spherical_data(n, d + 1, case % 3 == 0, &mut rng);
        let w = unit_scaled(&w);
        let points = unit_points(&x, &w, k);
        spherical_moved += check_exchange::<_, SphericalLoss>(&points, labels, &bounds);
    }
    assert!(moved > 20, "{moved}");
    assert!(spherical_moved > 20, "{spherical_moved}");
}

/// The assignment step's arcs, kept current move by move (weights with
/// zeros, costs with ties), equal the arcs recomputed from scratch.
#[test]
fn the_assignment_steps_arcs_kept_current_equal_arcs_recomputed() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(31);
    for case in 0..40 {
        let (n, d) = (3 + rng.below(40), 1 + rng.below(3));
        let k = 2 + rng.below(4.min(n - 1));
        let x = data(n, d, false, &mut rng);
        let w = case_weights(case, n, k, &mut rng);
        let points = data_points(&x, &w);
        // Costs with ties in every other case.
        let costs: Vec<f64> = (0..n * k)
            .map(|_| {
                if case % 4 < 2 {
                    rng.below(3) as f64
                } else {
                    rng.unit_f64() * 5.0
                }
            })
            .collect();
        let mut labels: Vec<usize> = (0..n)
            .map(|i| if i < k { i } else { rng.below(k) })
            .collect();
        let mut weight = vec![0.0; k];
        for (i, &l) in labels.iter().enumerate() {
            weight[l] += w[i];
        }
        let floor = 1e-3;
        let mut graph = Graph::new(&points, &costs, k, floor, &labels, weight);
        for _ in 0..3 * n {
            let i = rng.below(n);
            let a = labels[i];
            let b = (a + 1 + rng.below(k - 1)) % k;
            graph.move_row(i, a, b);
            labels[i] = b;
            let fresh = Graph::new(&points, &costs, k, floor, &labels, graph.weights.clone());
            assert_eq!(graph.arcs, fresh.arcs, "case {case}");
        }
    }
}

/// With weights (some 0) and any bounds: the step keeps the bounds and
/// every cluster's weight, and never raises the objective.
#[test]
fn the_assignment_step_keeps_bounds_and_weights_and_lowers_the_objective() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(43);
    for case in 0..80 {
        let (n, d) = (4 + rng.below(40), 1 + rng.below(3));
        let k = 2 + rng.below((n - 2).min(6));
        let x = data(n, d, case % 3 == 0, &mut rng);
        let w = weights(n, k, &mut rng);
        let bounds = random_bounds(n, k, &mut rng);
        let points = data_points(&x, &w);
        let centres: Vec<f64> = (0..k * d).map(|_| rng.unit_f64() * 6.0 - 2.0).collect();
        let labels = feasible_labels(&points, &centres, &bounds);
        let mut c = Clusters::from_labels::<_, SquaredEuclidean>(&points, k, labels);
        let before = c.objective::<_, SquaredEuclidean>(&points);
        super::exchange::exchange::<_, SquaredEuclidean>(&mut c, &points, &bounds);
        assert!(c.objective::<_, SquaredEuclidean>(&points) <= before * (1.0 + 1e-12) + 1e-12);
        for j in 0..k {
            assert!(
                c.stats.weights[j] > 0.0,
                "case {case}: cluster {j} without weight"
            );
            assert!(bounds.min[j] <= c.stats.counts[j] && c.stats.counts[j] <= bounds.max[j]);
        }
    }
}
