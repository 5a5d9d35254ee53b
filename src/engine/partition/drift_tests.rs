//! Long runs do not drift: a million incremental [`Partition::move_point`]
//! updates on data with a 1e8 offset leave sums, centroids and objective
//! where a fresh recomputation puts them; the recomputation's costs agree
//! with sums against the new centroids whatever the old ones were.

use super::Partition;
use crate::data::Data;
use crate::rng::Xoshiro256PlusPlus;
use ndarray::Array2;

#[test]
fn a_million_moves_agree_with_a_fresh_recomputation() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    let (n, d, k) = (2000, 3, 7);
    let x = Array2::from_shape_fn((n, d), |_| 1e8 + rng.unit_f64() * 10.0);
    let data = Data::new(x.view(), None);
    let mut p = Partition::from_labels(&data, k, (0..n).map(|i| i % k).collect(), false);
    let mut buf = vec![0.0; d];
    let mut moves = 0;
    while moves < 1_000_000 {
        let (i, to) = (rng.below(n), rng.below(k));
        let from = p.stats.labels[i];
        if from == to || p.stats.counts[from] <= 1 {
            continue;
        }
        data.load_shifted(i, &mut buf);
        p.move_point(i, &buf, 1.0, to);
        moves += 1;
    }
    let mut fresh = p.clone();
    fresh.recompute(&data, false);
    assert_eq!(p.stats.counts, fresh.stats.counts);
    // The noise spans 10 units; a drift of 1e-9 of that would show.
    for (a, b) in p.centroids.iter().zip(&fresh.centroids) {
        assert!((a - b).abs() <= 1e-8, "centroid drifted: {a} vs {b}");
    }
    let (o1, o2) = (p.objective(&data), fresh.objective(&data));
    assert!((o1 - o2).abs() <= 1e-12 * o2, "objective {o1} vs {o2}");
}

/// Recomputing only the clusters moves touched gives the full
/// recomputation's counts, weights, sums and centroids bit for bit, and its
/// costs to rounding, sweep after sweep: few moves (most clusters
/// untouched), moves undone (touched, same members), weights, and an
/// objective close to the one computed from scratch.
#[test]
fn recomputing_touched_clusters_equals_recomputing_all() {
    // One chunk of points (n = 900) and four (n = 40,000).
    for n in [900, 40_000] {
        touched_equals_all(n);
    }
}

fn touched_equals_all(n: usize) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    let (d, k) = (5, 12);
    let x = Array2::from_shape_fn((n, d), |_| 1e3 + rng.unit_f64() * 10.0);
    let w: Vec<f64> = (0..n).map(|_| 0.5 + rng.unit_f64()).collect();
    for weighted in [false, true] {
        let data = Data::new(
            x.view(),
            weighted.then(|| std::borrow::Cow::Borrowed(&w[..])),
        );
        let mut p = Partition::from_labels(&data, k, (0..n).map(|i| (i * 7) % k).collect(), false);
        let mut buf = vec![0.0; d];
        for round in 0..40 {
            let moves = [1, 3, 50][round % 3];
            for _ in 0..moves {
                let (i, to) = (rng.below(n), rng.below(k));
                let from = p.stats.labels[i];
                if from == to || p.stats.counts[from] <= 1 {
                    continue;
                }
                data.load_shifted(i, &mut buf);
                let wi = if weighted { w[i] } else { 1.0 };
                p.move_point(i, &buf, wi, to);
                if round % 4 == 0 {
                    // Back again: the cluster is touched, its members are not.
                    p.move_point(i, &buf, wi, from);
                }
            }
            let mut full = p.clone();
            full.recompute(&data, false);
            let from_scratch = p.objective(&data);
            p.recompute_stale(&data, false);
            let bits = |v: &[f64]| v.iter().map(|a| a.to_bits()).collect::<Vec<_>>();
            assert_eq!(p.stats.counts, full.stats.counts, "round {round}");
            assert_eq!(
                bits(&p.stats.weights),
                bits(&full.stats.weights),
                "round {round}"
            );
            assert_eq!(bits(&p.stats.sums), bits(&full.stats.sums), "round {round}");
            assert_eq!(bits(&p.centroids), bits(&full.centroids), "round {round}");
            // Costs come from each cluster's old centroid (the pivot) and
            // so depend on it in the last bits: the touched clusters' and
            // the full recomputation's agree with the costs against the new
            // centroids to rounding.
            let exact = costs_against_centroids(&p, &data);
            for (j, &e) in exact.iter().enumerate() {
                for (what, c) in [("stale", p.costs[j]), ("full", full.costs[j])] {
                    assert!(
                        (c - e).abs() <= COST_REL * e,
                        "round {round}, cluster {j}, {what}: {c} against {e}"
                    );
                }
            }
            // Undone moves leave the centroids as they were up to rounding,
            // so the stale objective is close to, not equal to, the fresh one.
            let fresh = p.objective(&data);
            assert!(
                (from_scratch - fresh).abs() <= 1e-9 * fresh,
                "round {round}"
            );
        }
    }
}

/// How far a recomputed cost may lie from the one summed against the new
/// centroid, relative (the sums here run over at most 40,000 points).
const COST_REL: f64 = 1e-12;

/// Every cluster's cost summed against `p`'s centroids in the documented
/// order.
fn costs_against_centroids(p: &Partition, data: &Data<'_, f64>) -> Vec<f64> {
    let chunks = super::recompute_chunks(data.n, p.k, p.d);
    super::chunked_costs(
        data,
        &p.stats.labels,
        &p.centroids,
        p.k,
        None,
        chunks,
        false,
    )
}

/// The recomputation sums in the documented order: within each chunk of
/// [`super::recompute_chunks`] in index order, then the chunks in order (one
/// chunk below 16,384 points: the plain index order).
#[test]
fn recomputation_sums_in_the_documented_order() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let (d, k) = (3, 5);
    for (n, chunks) in [(16_383, 1), (40_000, 4), (500_000, 16)] {
        assert_eq!(super::recompute_chunks(n, k, d), chunks);
        let x = Array2::from_shape_fn((n, d), |_| rng.unit_f64() * 10.0 - 3.0);
        let data = Data::new(x.view(), None);
        let labels: Vec<usize> = (0..n).map(|_| rng.below(k)).collect();
        let mut p = Partition::from_labels(&data, k, labels.clone(), false);
        // Recomputed from centroids already equal to the means (the pivots),
        // the costs are the sums against the means themselves.
        p.recompute(&data, false);
        let mut row = vec![0.0; d];
        let (mut sums, mut costs) = (vec![0.0; k * d], vec![0.0; k]);
        let mut parts = vec![vec![0.0; k * d]; chunks];
        for (c, part) in parts.iter_mut().enumerate() {
            let (start, end) = (c * n / chunks, (c + 1) * n / chunks);
            for (i, &l) in labels.iter().enumerate().take(end).skip(start) {
                data.load_shifted(i, &mut row);
                for (s, v) in part[l * d..(l + 1) * d].iter_mut().zip(&row) {
                    *s += v;
                }
            }
        }
        sums.copy_from_slice(&parts[0]);
        for part in &parts[1..] {
            sums.iter_mut().zip(part).for_each(|(s, v)| *s += v);
        }
        let counts: Vec<f64> = (0..k)
            .map(|j| labels.iter().filter(|&&l| l == j).count() as f64)
            .collect();
        let centroids: Vec<f64> = (0..k * d).map(|t| sums[t] / counts[t / d]).collect();
        let mut cost_parts = vec![vec![0.0; k]; chunks];
        for (c, part) in cost_parts.iter_mut().enumerate() {
            let (start, end) = (c * n / chunks, (c + 1) * n / chunks);
            for (i, &l) in labels.iter().enumerate().take(end).skip(start) {
                data.load_shifted(i, &mut row);
                part[l] += crate::data::sq_dist(&row, &centroids[l * d..(l + 1) * d]);
            }
        }
        costs.copy_from_slice(&cost_parts[0]);
        for part in &cost_parts[1..] {
            costs.iter_mut().zip(part).for_each(|(s, v)| *s += v);
        }
        let bits = |v: &[f64]| v.iter().map(|a| a.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&p.stats.sums), bits(&sums), "n = {n}");
        assert_eq!(bits(&p.centroids), bits(&centroids), "n = {n}");
        assert_eq!(bits(&p.costs), bits(&costs), "n = {n}");
        let total: f64 = costs.iter().sum();
        assert_eq!(p.objective(&data).to_bits(), total.to_bits(), "n = {n}");
    }
}

/// The recomputation with spare threads (chunks side by side) gives the
/// sequential one's bits with and without weights, with one cluster
/// emptied, on 1 to 4 threads.
#[test]
#[allow(clippy::unwrap_used)]
fn parallel_recomputation_equals_sequential() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
    let (n, d, k) = (40_000, 6, 17);
    assert_eq!(super::recompute_chunks(n, k, d), 4);
    let x = Array2::from_shape_fn((n, d), |_| 50.0 + rng.unit_f64() * 10.0);
    let w: Vec<f64> = (0..n).map(|_| 0.5 + rng.unit_f64()).collect();
    let bits = |v: &[f64]| v.iter().map(|a| a.to_bits()).collect::<Vec<_>>();
    for weighted in [false, true] {
        let data = Data::new(
            x.view(),
            weighted.then(|| std::borrow::Cow::Borrowed(&w[..])),
        );
        let labels: Vec<usize> = (0..n).map(|i| i % k).collect();
        let mut base = Partition::from_labels(&data, k, labels, false);
        let mut buf = vec![0.0; d];
        for _ in 0..300 {
            let (i, to) = (rng.below(n), 5 + rng.below(k - 5));
            let from = base.stats.labels[i];
            if from != to && base.stats.counts[from] > 1 {
                data.load_shifted(i, &mut buf);
                let wi = if weighted { w[i] } else { 1.0 };
                base.move_point(i, &buf, wi, to);
            }
        }
        // Cluster 3 emptied behind the sums' back (labels are what counts):
        // its centroid must come out as zeros.
        for l in base.stats.labels.iter_mut().filter(|l| **l == 3) {
            *l = 0;
        }
        base.stale[3] = true;
        base.stale[0] = true;
        let mut sequential = base.clone();
        sequential.recompute_stale(&data, false);
        for threads in 1..=4 {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let mut parallel = base.clone();
            pool.install(|| parallel.recompute_stale(&data, true));
            assert_eq!(parallel.stats.counts, sequential.stats.counts);
            assert_eq!(parallel.stale, sequential.stale);
            assert_eq!(
                bits(&parallel.stats.weights),
                bits(&sequential.stats.weights)
            );
            assert_eq!(bits(&parallel.stats.sums), bits(&sequential.stats.sums));
            assert_eq!(bits(&parallel.centroids), bits(&sequential.centroids));
            assert_eq!(bits(&parallel.costs), bits(&sequential.costs));
        }
        assert!(sequential.centroid(3).iter().all(|&v| v == 0.0));
    }
}

/// A recomputation's costs agree with the sums against the new centroids
/// whatever the old centroids were: equal to the means, rounding away, a
/// Lloyd step away, or far off (the costs then take the second pass), with
/// and without weights, in one chunk and in four.
#[test]
fn costs_agree_with_the_new_centroids_from_any_old_ones() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(17);
    let (d, k) = (4, 6);
    for n in [3_000, 40_000] {
        let x = Array2::from_shape_fn((n, d), |(i, _)| (i % k) as f64 * 3.0 + rng.unit_f64());
        let w: Vec<f64> = (0..n).map(|_| 0.5 + rng.unit_f64()).collect();
        for weighted in [false, true] {
            let data = Data::new(
                x.view(),
                weighted.then(|| std::borrow::Cow::Borrowed(&w[..])),
            );
            let labels: Vec<usize> = (0..n).map(|i| (i + i / 7) % k).collect();
            let base = Partition::from_labels(&data, k, labels, false);
            for offset in [0.0, 1e-12, 1e-3, 0.3, 3.0, 1e4] {
                let mut p = base.clone();
                for c in p.centroids.iter_mut() {
                    *c += offset * (rng.unit_f64() - 0.5);
                }
                p.recompute(&data, false);
                assert_eq!(p.centroids, base.centroids, "offset {offset}");
                let exact = costs_against_centroids(&p, &data);
                for (j, (&c, &e)) in p.costs.iter().zip(&exact).enumerate() {
                    assert!(
                        (c - e).abs() <= COST_REL * e,
                        "n {n}, offset {offset}, cluster {j}: {c} against {e}"
                    );
                }
            }
        }
    }
}
