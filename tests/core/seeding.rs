//! The public k-means++ start (`ValidParams::plus_plus`), without Python.

use crate::common::{blobs, Csr};
use ndarray::{array, Array1, Axis};
use smartigan::{Dataset, Error, Init, Metric, Params};
use std::collections::HashSet;

/// The rows it returns are the start of restart 0: fitting from them gives
/// the fit with k-means++ bit for bit, for both dtypes, with and without
/// weights, for any thread count.
#[test]
fn chosen_rows_are_the_start_of_restart_zero() {
    let x = blobs(2_000, 5, 12, 1.0, 4);
    let x32 = x.mapv(|v| v as f32);
    let w = Array1::from_iter((0..x.nrows()).map(|i| (i % 4) as f64 * 0.5));
    for k in [1, 7, 30] {
        for seed in [0u64, 9] {
            let params = || Params::new(k).seed(seed).n_init(1).n_threads(2);
            let p = params().check().unwrap();
            let rows = p.plus_plus(&x).unwrap();
            let rows = rows.as_slice().unwrap();
            assert_eq!(rows.len(), k);
            let given = Init::Centroids(x.select(Axis(0), rows));
            let a = params().init(given).check().unwrap().fit(&x).unwrap();
            let b = p.fit(&x).unwrap();
            assert_eq!(a.labels, b.labels, "k={k} seed={seed}");
            assert_eq!(
                a.objective.to_bits(),
                b.objective.to_bits(),
                "k={k} seed={seed}"
            );

            let rows32 = p.plus_plus(&x32).unwrap();
            let given = Init::Centroids(x.select(Axis(0), rows32.as_slice().unwrap()));
            let a = params().init(given).check().unwrap().fit(&x32).unwrap();
            let b = p.fit(&x32).unwrap();
            assert_eq!(a.labels, b.labels, "f32 k={k} seed={seed}");

            let weighted = Dataset::new(&x).weights(w.view());
            let rows_w = p.plus_plus(weighted).unwrap();
            assert!(
                rows_w.iter().all(|&i| w[i] > 0.0),
                "a row of weight 0 was chosen: {rows_w:?}"
            );
            let given = Init::Centroids(x.select(Axis(0), rows_w.as_slice().unwrap()));
            let a = params().init(given).check().unwrap().fit(weighted).unwrap();
            let b = p.fit(weighted).unwrap();
            assert_eq!(a.labels, b.labels, "weighted k={k} seed={seed}");
        }
    }
}

/// On sparse rows it chooses the rows it chooses on their dense copy
/// (continuous values, so no potential is within rounding of another), with
/// and without weights, for any thread count.
#[test]
fn sparse_rows_give_the_rows_of_their_dense_copy() {
    // Blobs in [0, 5]^40 with the entries below 3 (about 60 %) cut to zero.
    let x = blobs(1_500, 40, 10, 1.0, 6).mapv(|v| if v < 3.0 { 0.0 } else { v });
    let csr = Csr::from_dense(&x);
    assert!(csr.data.len() < x.len() / 2);
    let w = Array1::from_iter((0..x.nrows()).map(|i| (i % 5) as f64 * 0.5));
    for k in [1, 7, 30] {
        for seed in [0u64, 9] {
            for threads in [1, 3] {
                let p = Params::new(k).seed(seed).n_threads(threads);
                let p = p.check().unwrap();
                let dense = p.plus_plus(&x).unwrap();
                assert_eq!(dense.len(), k);
                assert_eq!(p.plus_plus(csr.view()).unwrap(), dense, "k={k} seed={seed}");
                let dense_w = p.plus_plus(Dataset::new(&x).weights(w.view())).unwrap();
                let sparse_w = p.plus_plus(Dataset::new(csr.view()).weights(w.view()));
                assert_eq!(sparse_w.unwrap(), dense_w, "weighted k={k} seed={seed}");
            }
        }
    }
}

#[test]
fn same_rows_for_any_thread_count_and_distinct_rows_on_distinct_points() {
    let x = blobs(3_000, 8, 20, 1.0, 5);
    let rows = |seed, threads| {
        let p = Params::new(40)
            .seed(seed)
            .n_threads(threads)
            .check()
            .unwrap();
        p.plus_plus(&x).unwrap()
    };
    let one = rows(1, 1);
    for threads in [2, 3] {
        assert_eq!(one, rows(1, threads), "{threads} threads");
    }
    // A chosen point's squared distance to its own centre is 0, so D²
    // sampling never draws it again while other distinct points remain.
    let distinct: HashSet<usize> = one.iter().copied().collect();
    assert_eq!(distinct.len(), 40, "{one:?}");
    assert_ne!(one, rows(2, 1), "another seed should draw another start");
}

#[test]
fn bad_input_is_an_error_as_in_fit() {
    let x = array![[0.0f64, 1.0], [2.0, 3.0], [4.0, 5.0]];
    // k = 0 is refused by `check`, k = 4 > n by the operation.
    for k in [0, 4] {
        let got = Params::new(k).seed(0).check().and_then(|p| p.plus_plus(&x));
        assert!(
            matches!(got, Err(Error::InvalidParameter { name: "k", .. })),
            "k={k}: {got:?}"
        );
    }
    let nan = array![[0.0f64, f64::NAN], [1.0, 1.0]];
    let p = Params::new(1).seed(0).check().unwrap();
    assert!(p.plus_plus(&nan).is_err());
    let zero = array![0.0, 0.0, 1.0];
    let p = Params::new(2).seed(0).check().unwrap();
    let got = p.plus_plus(Dataset::new(&x).weights(zero.view()));
    assert!(
        got.is_err(),
        "two clusters from one positive weight: {got:?}"
    );
}

/// A large fit's start is greedy k-means++ on a sample of `16·k` rows
/// (20,000 rows, `n·d·k ≥ 2^24`): the same start for any thread count, and
/// the same sampled rows whether the rows are dense or sparse (continuous
/// values: the dense engine's screened k-means++ and the sparse plain
/// definition choose alike), so both begin at the same objective, for
/// both metrics and with weights.
#[test]
fn a_large_fits_start_is_drawn_on_a_sample_alike_for_any_threads_and_input_kind() {
    let (n, d, k) = (20_000, 16, 64);
    let x = blobs(n, d, 40, 1.0, 8).mapv(|v| if v < 1.5 { 0.0 } else { v });
    let csr = Csr::from_dense(&x);
    let w = Array1::from_iter((0..n).map(|i| [0.0, 0.5, 1.0, 2.5][i % 4]));
    for metric in [Metric::Euclidean, Metric::Cosine] {
        for weighted in [false, true] {
            let fit = |threads: usize, sparse: bool| {
                let p = Params::new(k)
                    .seed(3)
                    .n_init(1)
                    .n_iter(2)
                    .refine(false)
                    .metric(metric)
                    .n_threads(threads)
                    .check()
                    .unwrap();
                let data = match (sparse, weighted) {
                    (false, false) => Dataset::new(&x),
                    (false, true) => Dataset::new(&x).weights(w.view()),
                    (true, false) => Dataset::new(csr.view()),
                    (true, true) => Dataset::new(csr.view()).weights(w.view()),
                };
                p.fit(data).unwrap()
            };
            let one = fit(1, false);
            for threads in [2, 3] {
                let other = fit(threads, false);
                assert_eq!(
                    one.labels, other.labels,
                    "{metric:?} w={weighted} {threads}"
                );
                assert_eq!(
                    one.initial_objective.to_bits(),
                    other.initial_objective.to_bits()
                );
            }
            let sparse = fit(2, true);
            let gap = (sparse.initial_objective - one.initial_objective).abs();
            assert!(
                gap <= 1e-9 * one.initial_objective,
                "{metric:?} w={weighted}: {} sparse, {} dense",
                sparse.initial_objective,
                one.initial_objective
            );
        }
    }
}
