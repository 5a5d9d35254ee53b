//! Whole fits through the accelerated engine against the plain reference:
//! same labels, centroids, objective, history and moves, bit for bit, for
//! every method, input type, initialisation and thread count.
#![allow(clippy::panic)]

use crate::clustering::Clustering;
use crate::dataset::{Dataset, Setup};
use crate::error::Result;
use crate::testing::testdata::blobs;
use crate::{
    data::Scalar,
    params::{Init, Method, Params},
};
use ndarray::{Array1, ArrayView1, ArrayView2};
use std::sync::atomic::AtomicBool;

/// A fit of `x` through the accelerated kernels or the plain definitions.
fn fit_with<T: Scalar>(
    x: ArrayView2<'_, T>,
    w: Option<ArrayView1<'_, f64>>,
    params: Params,
    never: &AtomicBool,
    accelerated: bool,
) -> Result<Clustering<T>> {
    let setup = Setup {
        accelerated,
        one_at_a_time: false,
        cancel: never,
    };
    params
        .check()?
        .fit_in(Dataset::new(x).maybe_weights(w), setup, never)
}

fn same<T: Scalar + PartialEq>(x: ArrayView2<'_, T>, params: Params) {
    same_weighted(x, None, params);
}

fn same_weighted<T: Scalar + PartialEq>(
    x: ArrayView2<'_, T>,
    w: Option<ArrayView1<'_, f64>>,
    params: Params,
) {
    let never = AtomicBool::new(false);
    let reference = fit_with(x, w, params.clone().n_threads(1), &never, false);
    let reference = match reference {
        Ok(r) => r,
        Err(e) => panic!("reference fit failed: {e}"),
    };
    for threads in [1, 2, 3, 8] {
        let fast = fit_with(x, w, params.clone().n_threads(threads), &never, true);
        match fast {
            Ok(f) => assert_eq!(f, reference, "{params:?} with {threads} threads"),
            Err(e) => panic!("fast fit failed: {e}"),
        }
    }
}

fn all_methods<T: Scalar + PartialEq>(x: ArrayView2<'_, T>, k: usize, seed: u64) {
    for method in Method::ALL {
        for init in [Init::KMeansPlusPlus, Init::RandomPartition, Init::Forgy] {
            for n_init in [1, 3] {
                let p = Params::new(k)
                    .method(method)
                    .init(init.clone())
                    .n_init(n_init)
                    .n_iter(12)
                    .seed(seed);
                same(x, p);
            }
        }
    }
}

#[test]
fn fast_fits_equal_reference_fits_f64() {
    for &(n, d, k) in &[(400, 2, 5), (1500, 16, 20), (900, 40, 33), (600, 5, 70)] {
        let x = blobs(n, d, (k / 2).max(2), (n * d) as u64);
        all_methods(x.view(), k, 17);
    }
}

#[test]
fn fast_fits_equal_reference_fits_f32() {
    for &(n, d, k) in &[(500, 3, 6), (1200, 24, 18)] {
        let x = blobs(n, d, (k / 2).max(2), 99 + n as u64).mapv(|v| v as f32);
        all_methods(x.view(), k, 5);
    }
}

#[test]
fn fast_fits_equal_reference_fits_on_ties() {
    // Small integers: many duplicate points and exactly tied distances.
    let x = ndarray::Array2::from_shape_fn((800, 3), |(i, j)| ((i * (j + 2) + i / 7) % 4) as f64);
    all_methods(x.view(), 7, 3);
    // Far from the origin with tiny spread, and tiny magnitudes.
    let far = x.mapv(|v| 1e9 + v * 1e-4);
    all_methods(far.view(), 4, 8);
    let tiny = x.mapv(|v| v * 1e-200);
    all_methods(tiny.view(), 4, 8);
    // Small `k·d` runs the plain sweep; these take the blocked one.
    let wide =
        ndarray::Array2::from_shape_fn((800, 12), |(i, j)| ((i * (j + 2) + i / 7) % 4) as f64);
    all_methods(wide.view(), 12, 3);
    all_methods(wide.mapv(|v| 1e9 + v * 1e-4).view(), 12, 8);
    all_methods(wide.mapv(|v| v * 1e-200).view(), 12, 8);
}

#[test]
fn given_centroids_far_outside_the_data() {
    let x = blobs(700, 4, 3, 1);
    let c = ndarray::Array2::from_shape_fn((3, 4), |(i, j)| (i as f64 - 1.0) * 1e30 + j as f64);
    for method in Method::ALL {
        same(
            x.view(),
            Params::new(3)
                .method(method)
                .init(Init::Centroids(c.clone()))
                .n_init(1)
                .seed(2),
        );
    }
}

#[test]
fn fast_weighted_fits_equal_reference_fits() {
    // Sample weights take the bounded sweep wherever k·d is large enough:
    // spread weights, weights with zeros, and integer weights (whose
    // cluster weights are exact), for every method and start.
    for &(n, d, k) in &[(1500, 16, 20), (900, 40, 33), (600, 5, 70)] {
        let x = blobs(n, d, (k / 2).max(2), 7 + (n * d) as u64);
        let spread = Array1::from_shape_fn(n, |i| 0.1 + ((i * 7919) % 97) as f64 / 9.7);
        let zeros = Array1::from_shape_fn(n, |i| {
            if i % 11 == 0 {
                0.0
            } else {
                1.0 + (i % 3) as f64
            }
        });
        let integers = Array1::from_shape_fn(n, |i| (1 + i % 5) as f64);
        for w in [&spread, &zeros, &integers] {
            for method in Method::ALL {
                for init in [Init::KMeansPlusPlus, Init::RandomPartition] {
                    let p = Params::new(k)
                        .method(method)
                        .init(init)
                        .n_init(2)
                        .n_iter(12)
                        .seed(11);
                    same_weighted(x.view(), Some(w.view()), p);
                }
            }
        }
    }
    let x = blobs(1200, 24, 9, 3).mapv(|v| v as f32);
    let w = Array1::from_shape_fn(1200, |i| 1e-3 + (i % 13) as f64 * 1e3);
    for method in Method::ALL {
        same_weighted(
            x.view(),
            Some(w.view()),
            Params::new(18).method(method).seed(2),
        );
    }
}

#[test]
fn fits_in_rounds_equal_reference_fits() {
    // Large enough for the sweeps to run in rounds: the accelerated rounds
    // against their plain definition, through whole default fits (the
    // budget's children, refinement, polish), for any thread count.
    use crate::engine::rounds::{decides_in_rounds, ROUNDS_MIN_ROWS};
    let (n, d, k) = (ROUNDS_MIN_ROWS, 16, 64);
    assert!(decides_in_rounds(n, k, d));
    let x = blobs(n, d, k / 2, 3);
    for method in [Method::Hartigan, Method::Smartigan] {
        same(x.view(), Params::new(k).method(method).seed(4));
    }
    same(x.mapv(|v| v as f32).view(), Params::new(k).seed(1));
}
