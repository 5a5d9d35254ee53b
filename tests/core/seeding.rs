//! The public k-means++ start (`smartigan::kmeans_plus_plus`), without Python.

use crate::common::blobs;
use ndarray::{array, Array1, Axis};
use smartigan::{fit, fit_weighted, kmeans_plus_plus, Error, Init, Params};
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
            let rows = kmeans_plus_plus(x.view(), None, params()).unwrap();
            let rows = rows.as_slice().unwrap();
            assert_eq!(rows.len(), k);
            let given = Init::Centroids(x.select(Axis(0), rows));
            let a = fit(x.view(), params().init(given)).unwrap();
            let b = fit(x.view(), params()).unwrap();
            assert_eq!(a.labels, b.labels, "k={k} seed={seed}");
            assert_eq!(
                a.objective.to_bits(),
                b.objective.to_bits(),
                "k={k} seed={seed}"
            );

            let rows32 = kmeans_plus_plus(x32.view(), None, params()).unwrap();
            let given = Init::Centroids(x.select(Axis(0), rows32.as_slice().unwrap()));
            let a = fit(x32.view(), params().init(given)).unwrap();
            let b = fit(x32.view(), params()).unwrap();
            assert_eq!(a.labels, b.labels, "f32 k={k} seed={seed}");

            let rows_w = kmeans_plus_plus(x.view(), Some(w.view()), params()).unwrap();
            assert!(
                rows_w.iter().all(|&i| w[i] > 0.0),
                "a row of weight 0 was chosen: {rows_w:?}"
            );
            let given = Init::Centroids(x.select(Axis(0), rows_w.as_slice().unwrap()));
            let a = fit_weighted(x.view(), w.view(), params().init(given)).unwrap();
            let b = fit_weighted(x.view(), w.view(), params()).unwrap();
            assert_eq!(a.labels, b.labels, "weighted k={k} seed={seed}");
        }
    }
}

#[test]
fn same_rows_for_any_thread_count_and_distinct_rows_on_distinct_points() {
    let x = blobs(3_000, 8, 20, 1.0, 5);
    let one = kmeans_plus_plus(x.view(), None, Params::new(40).seed(1).n_threads(1)).unwrap();
    for threads in [2, 3] {
        let many =
            kmeans_plus_plus(x.view(), None, Params::new(40).seed(1).n_threads(threads)).unwrap();
        assert_eq!(one, many, "{threads} threads");
    }
    // A chosen point's squared distance to its own centre is 0, so D²
    // sampling never draws it again while other distinct points remain.
    let distinct: HashSet<usize> = one.iter().copied().collect();
    assert_eq!(distinct.len(), 40, "{one:?}");
    let other = kmeans_plus_plus(x.view(), None, Params::new(40).seed(2).n_threads(1)).unwrap();
    assert_ne!(one, other, "another seed should draw another start");
}

#[test]
fn bad_input_is_an_error_as_in_fit() {
    let x = array![[0.0f64, 1.0], [2.0, 3.0], [4.0, 5.0]];
    for k in [0, 4] {
        let got = kmeans_plus_plus(x.view(), None, Params::new(k).seed(0));
        assert!(
            matches!(got, Err(Error::InvalidParameter { name: "k", .. })),
            "k={k}: {got:?}"
        );
    }
    let nan = array![[0.0f64, f64::NAN], [1.0, 1.0]];
    assert!(kmeans_plus_plus(nan.view(), None, Params::new(1).seed(0)).is_err());
    let zero = array![0.0, 0.0, 1.0];
    let got = kmeans_plus_plus(x.view(), Some(zero.view()), Params::new(2).seed(0));
    assert!(
        got.is_err(),
        "two clusters from one positive weight: {got:?}"
    );
}
