//! Odd inputs get correct answers, bad inputs typed errors (issue 5).
//! Complements `tests/engine.rs`, which has the basic cases (k = 1, k = n,
//! identical points, a 1e8 offset in f64, empty clusters at k close to n).

use crate::common::{blobs, with_centroids, Csr};
use ndarray::{s, Array2, ArrayView2};
use smartigan::rng::Xoshiro256PlusPlus;
use smartigan::{Clustering, Error, Init, Method, Params, Scalar};

const METHODS: [Method; 3] = [Method::Lloyd, Method::Hartigan, Method::Smartigan];

fn inits() -> [Init; 3] {
    [Init::RandomPartition, Init::Forgy, Init::KMeansPlusPlus]
}

/// Every guarantee of a result, checked from scratch in `f64` with the data
/// centred first, so that 1e8 offsets and 1e±150 scales are checked as
/// strictly as ordinary data:
/// * labels in range, no empty cluster;
/// * centroids are the means, to the precision of the input type;
/// * the objective equals the one recomputed from the returned labels and
///   centroids;
/// * for Hartigan and (polished) Smartigan, no single point can move to
///   another cluster and lower the objective (checked with the true means,
///   not the rounded returned centroids).
fn check<T: Scalar>(x: ArrayView2<'_, T>, k: usize, method: Method, r: &Clustering<T>) {
    let (n, d) = x.dim();
    let eps = if std::mem::size_of::<T>() == 4 {
        f64::from(f32::EPSILON)
    } else {
        f64::EPSILON
    };
    assert_eq!(r.labels.len(), n);
    assert_eq!(r.centroids.dim(), (k, d));
    let wide = x.mapv(|v| v.to_f64());
    let centre = wide.mean_axis(ndarray::Axis(0)).unwrap_or_default();
    let xc = &wide - &centre;
    let spread = xc.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let mut counts = vec![0usize; k];
    let mut means = Array2::<f64>::zeros((k, d));
    for (row, &l) in xc.rows().into_iter().zip(&r.labels) {
        assert!(l < k, "label {l} out of range");
        counts[l] += 1;
        let mut m = means.row_mut(l);
        m += &row;
    }
    assert!(counts.iter().all(|&c| c > 0), "empty cluster: {counts:?}");
    for (mut m, &c) in means.rows_mut().into_iter().zip(&counts) {
        m /= c as f64;
    }
    for j in 0..k {
        for c in 0..d {
            let want = means[[j, c]] + centre[c];
            let got = r.centroids[[j, c]].to_f64();
            let tol = eps * want.abs() + 1e-9 * spread;
            assert!(
                (got - want).abs() <= tol,
                "centroid ({j},{c}) {got} vs mean {want}"
            );
        }
    }
    let mut obj = 0.0;
    for (row, &l) in wide.rows().into_iter().zip(&r.labels) {
        for (v, m) in row.iter().zip(r.centroids.row(l)) {
            obj += (v - m.to_f64()).powi(2);
        }
    }
    assert!(
        (obj - r.objective).abs() <= 1e-9 * obj,
        "objective {} vs recomputed {obj}",
        r.objective
    );
    if method == Method::Lloyd {
        return;
    }
    assert!(r.converged, "{method} did not converge");
    let sq = |a: ndarray::ArrayView1<'_, f64>, b: ndarray::ArrayView1<'_, f64>| {
        a.iter().zip(b).map(|(p, q)| (p - q) * (p - q)).sum::<f64>()
    };
    for (i, row) in xc.rows().into_iter().enumerate() {
        let own = r.labels[i];
        if counts[own] < 2 {
            continue;
        }
        let n_r = counts[own] as f64;
        let gain = n_r / (n_r - 1.0) * sq(row, means.row(own));
        for j in (0..k).filter(|&j| j != own) {
            let n_j = counts[j] as f64;
            let cost = n_j / (n_j + 1.0) * sq(row, means.row(j));
            assert!(
                cost >= gain * (1.0 - 1e-9) - 1e-12 * spread * spread,
                "point {i} improves by moving {own} -> {j}: {cost} < {gain}"
            );
        }
    }
}

fn all_ways<T: Scalar>(x: ArrayView2<'_, T>, k: usize, n_init: usize) {
    for m in METHODS {
        for init in inits() {
            let p = Params::new(k).method(m).init(init.clone()).n_init(n_init);
            let r = p.n_iter(500).seed(11).check().unwrap().fit(x).unwrap();
            check(x, k, m, &r);
        }
    }
}

fn gaussian(n: usize, d: usize, seed: u64) -> Array2<f64> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    Array2::from_shape_fn((n, d), |_| {
        // Box–Muller is more than we need: a sum of uniforms is near enough.
        (0..4).map(|_| rng.unit_f64()).sum::<f64>() - 2.0
    })
}

#[test]
fn a_single_point() {
    let x = Array2::from_elem((1, 3), -7.25);
    all_ways(x.view(), 1, 2);
    let p = Params::new(1).seed(0).check().unwrap();
    let r = p.fit(&x).unwrap();
    assert_eq!(r.objective, 0.0);
    assert_eq!(r.centroids, x);
}

#[test]
fn one_feature() {
    let x = blobs(200, 1, 4, 0.5, 1);
    all_ways(x.view(), 4, 3);
    all_ways(x.view(), 1, 1);
}

#[test]
fn ten_thousand_features() {
    let x = gaussian(24, 10_000, 2);
    all_ways(x.view(), 3, 2);
}

#[test]
fn k_equal_n_and_huge_k_with_random_partitions() {
    // Random partitions with k close to n start with many empty clusters.
    let x = blobs(60, 2, 4, 1.0, 3);
    for k in [30, 50, 59, 60] {
        for m in METHODS {
            let p = Params::new(k)
                .method(m)
                .init(Init::RandomPartition)
                .n_init(4)
                .seed(k as u64);
            let r = p.check().unwrap().fit(&x).unwrap();
            check(x.view(), k, m, &r);
            if k == 60 {
                // Singletons: each centroid is its point, up to the rounding
                // of the shift to the column means and back.
                assert!(r.objective <= 1e-20, "{}", r.objective);
            }
        }
    }
}

#[test]
fn many_exact_duplicates_and_more_clusters_than_distinct_points() {
    // 600 points on 5 distinct locations; k = 8 > 5 forces clusters of
    // identical points, whose split costs nothing.
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(4);
    let spots = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [5.0, 5.0], [-3.0, 2.0]];
    let x = Array2::from_shape_fn((600, 2), |(i, j)| spots[(i * 7 + rng.below(2)) % 5][j]);
    all_ways(x.view(), 3, 3);
    all_ways(x.view(), 5, 3);
    for m in METHODS {
        let p = Params::new(8).method(m).n_init(3).seed(5).check().unwrap();
        let r = p.fit(&x).unwrap();
        check(x.view(), 8, m, &r);
    }
}

#[test]
fn two_points_repeated_thousands_of_times() {
    let x = Array2::from_shape_fn(
        (6000, 3),
        |(i, j)| {
            if i % 3 == 0 {
                -1e3
            } else {
                1e3 + j as f64
            }
        },
    );
    for k in [1, 2, 3] {
        all_ways(x.view(), k, 2);
    }
    for m in METHODS {
        let p = Params::new(2).method(m).seed(1).check().unwrap();
        let r = p.fit(&x).unwrap();
        // Zero up to the rounding of centroids (the shift to the column
        // means, ≈ 333.3, is not exact).
        assert!(r.objective < 1e-15, "{m}: {}", r.objective);
        // Hartigan used to cycle here for ever on 1e-26 rounding noise
        // (k = 3 splits one of the two points) and Smartigan ran all
        // MAX_POLISH_SWEEPS polishing sweeps.
        let p = Params::new(3).method(m).n_init(2).seed(11).check().unwrap();
        let r3 = p.fit(&x).unwrap();
        assert!(r3.converged, "{m}");
        assert!(r3.n_sweeps < 100, "{m}: {} sweeps", r3.n_sweeps);
    }
}

#[test]
fn all_points_identical_in_f32_and_f64() {
    let x = Array2::from_elem((40, 2), 1e8);
    all_ways(x.view(), 5, 2);
    let x32 = x.mapv(|v| v as f32);
    all_ways(x32.view(), 5, 2);
    for m in METHODS {
        let p = Params::new(5).method(m).seed(1).check().unwrap();
        let r = p.fit(&x32).unwrap();
        assert_eq!(r.objective, 0.0);
    }
}

#[test]
fn values_near_1e150_and_1e_minus_150_scale_exactly() {
    // Powers of two scale every floating-point operation exactly, so the
    // same seed must give the same labels and an objective scaled by c².
    let x = blobs(300, 3, 5, 1.0, 6);
    for c in [2f64.powi(498), 2f64.powi(-498)] {
        // 2^498 ≈ 8.2e149, 2^-498 ≈ 1.2e-150.
        let y = x.mapv(|v| v * c);
        for m in METHODS {
            let p = Params::new(5).method(m).n_init(3).seed(7);
            let p = p.check().unwrap();
            let a = p.fit(&x).unwrap();
            let b = p.fit(&y).unwrap();
            check(y.view(), 5, m, &b);
            assert_eq!(a.labels, b.labels, "{m} at scale {c:e}");
            assert_eq!(a.centroids.mapv(|v| v * c), b.centroids);
            assert_eq!(a.objective * c * c, b.objective);
        }
    }
}

#[test]
fn large_offsets_keep_their_noise_in_f32_and_f64() {
    // 1e8 + noise: f32 holds 1e8 to within 8, so the f32 noise is scaled up
    // to stay representable; f64 gets noise of order 1e-3.
    for (offset, noise) in [(1e8, 1e-3), (-1e8, 1e-3), (1e8, 64.0)] {
        let base = blobs(400, 2, 4, 1.0, 8).mapv(|v| v * noise);
        let x = base.mapv(|v| v + offset);
        for m in METHODS {
            let p = Params::new(4).method(m).n_init(3).seed(2).check().unwrap();
            let a = p.fit(&base).unwrap();
            let b = p.fit(&x).unwrap();
            check(x.view(), 4, m, &b);
            assert!(
                (a.objective - b.objective).abs() <= 1e-6 * a.objective,
                "{m}: {} vs {}",
                a.objective,
                b.objective
            );
        }
    }
    let base = blobs(400, 2, 4, 1.0, 9).mapv(|v| (v * 64.0).round() * 8.0);
    let x32 = base.mapv(|v| (v + 1e8) as f32);
    // The f32 values are exactly 1e8 + base: the noise is all there.
    assert!(x32
        .iter()
        .zip(&base)
        .all(|(&a, &b)| f64::from(a) - 1e8 == b));
    for m in METHODS {
        let p = Params::new(4).method(m).n_init(3).seed(2).check().unwrap();
        let a = p.fit(&base).unwrap();
        let b = p.fit(&x32).unwrap();
        check(x32.view(), 4, m, &b);
        assert_eq!(a.labels, b.labels, "{m}");
    }
}

#[test]
fn non_contiguous_and_fortran_views_match_c_order() {
    let x = blobs(150, 4, 3, 1.0, 10);
    let f = x.t().as_standard_layout().into_owned();
    let mut big = Array2::zeros((300, 8));
    big.slice_mut(s![..;2, ..;2]).assign(&x);
    let reversed_rows = x.slice(s![..;-1, ..]).to_owned();
    for m in METHODS {
        let p = Params::new(3).method(m).n_init(2).seed(3).check().unwrap();
        let c = p.fit(&x).unwrap();
        assert_eq!(p.fit(f.t()).unwrap(), c);
        assert_eq!(p.fit(big.slice(s![..;2, ..;2])).unwrap(), c);
        // A negatively strided view of the reversed rows is x again.
        assert_eq!(p.fit(reversed_rows.slice(s![..;-1, ..])).unwrap(), c);
    }
}

#[test]
fn long_runs_do_not_drift() {
    // Many moves on data with a large offset: a Smartigan schedule that
    // accepts worsening moves for a long time, then Hartigan sweeps. The
    // state after every sweep must agree with a fresh recomputation.
    let x = blobs(3000, 3, 12, 2.0, 12).mapv(|v| v + 1e6);
    let p = Params::new(12)
        .init(Init::RandomPartition)
        .schedule(3.0, 1.0)
        .n_iter(300)
        .n_init(1)
        .seed(5)
        .check()
        .unwrap();
    let mut run = p.run(&x).unwrap();
    let mut sweeps = 0;
    while run.step(&x).unwrap() {
        sweeps += 1;
        if sweeps % 50 == 0 {
            let now = run.current(&x).unwrap();
            check(x.view(), 12, Method::Lloyd, &now);
            assert!((now.history[now.n_sweeps - 1] - now.objective).abs() <= 1e-9 * now.objective);
        }
    }
    let end = run.current(&x).unwrap();
    let total_moves: usize = end.moves.iter().sum();
    assert!(total_moves > 10_000, "only {total_moves} moves");
    check(x.view(), 12, Method::Smartigan, &end);
}

#[test]
fn bad_inputs_get_typed_errors() {
    let x = blobs(10, 2, 2, 1.0, 13);
    let invalid = |name: &'static str| move |e: &Error| matches!(e, Error::InvalidParameter { name: n, .. } if *n == name);
    type Expect = Box<dyn Fn(&Error) -> bool>;
    let cases: Vec<(&str, Params, Expect)> = vec![
        ("k huge", Params::new(usize::MAX), Box::new(invalid("k"))),
        (
            "n_iter huge",
            Params::new(2).n_iter(usize::MAX),
            Box::new(invalid("n_iter")),
        ),
        (
            "n_init huge",
            Params::new(2).n_init(usize::MAX),
            Box::new(invalid("n_init")),
        ),
        (
            "n_init above max",
            Params::new(2).n_init(smartigan::MAX_N_INIT + 1),
            Box::new(invalid("n_init")),
        ),
        (
            "n_threads above max",
            Params::new(2).n_threads(smartigan::MAX_N_THREADS + 1),
            Box::new(invalid("n_threads")),
        ),
        (
            "n_threads huge",
            Params::new(2).n_threads(usize::MAX),
            Box::new(invalid("n_threads")),
        ),
        (
            "schedule -inf",
            Params::new(2).schedule(1.5, f64::NEG_INFINITY),
            Box::new(invalid("schedule")),
        ),
        (
            "schedule end < 0",
            Params::new(2).schedule(1.5, -1.0),
            Box::new(invalid("schedule")),
        ),
        (
            "init inf",
            Params::new(2).init(Init::Centroids(Array2::from_elem((2, 2), f64::INFINITY))),
            Box::new(|e: &Error| matches!(e, Error::NonFinite { name: "init", .. })),
        ),
        (
            "init no columns",
            Params::new(2).init(Init::Centroids(Array2::zeros((2, 0)))),
            Box::new(|e: &Error| matches!(e, Error::Shape { name: "init", .. })),
        ),
    ];
    // From `check` or, where the data's shape decides (k huge, init
    // without columns), from the operation: the same error either way.
    for (name, p, ok) in cases {
        let p = p.check();
        let e = p.clone().and_then(|p| p.fit(&x)).unwrap_err();
        assert!(ok(&e), "{name}: {e}");
        assert_eq!(p.and_then(|p| p.run(&x)).unwrap_err(), e, "{name}");
    }
    assert!(Params::new(2)
        .n_threads(smartigan::MAX_N_THREADS)
        .check()
        .is_ok());
    let e = Params::new(2).n_threads(5000).check().unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid n_threads: 5000 (must be between 1 and 1024, or None for all cores)"
    );
}

#[test]
fn data_too_spread_out_for_float64_is_refused() {
    // Rows 1e153 apart: squared distances overflow. A clear error, not an
    // objective of inf and meaningless labels.
    let mut x = blobs(50, 2, 2, 1.0, 14);
    x.row_mut(0).fill(1e153);
    let p = Params::new(2).seed(0).check().unwrap();
    let e = p.fit(&x).unwrap_err();
    assert!(
        matches!(e, Error::InvalidParameter { name: "x", .. }),
        "{e}"
    );
    assert!(e.to_string().contains("too spread out"), "{e}");
    assert_eq!(p.run(&x).unwrap_err(), e);
    // At 1e150 the same data is fine (see values_near_1e150_...), and so
    // are the largest f32 values.
    let big = Array2::from_shape_fn(
        (100, 4),
        |(i, j)| if (i + j) % 2 == 0 { f32::MAX } else { f32::MIN },
    );
    let p = Params::new(2).seed(0).check().unwrap();
    let r = p.fit(&big).unwrap();
    assert!(r.objective.is_finite());
    check(big.view(), 2, Method::Smartigan, &r);
}

#[test]
fn run_rejects_data_of_another_shape() {
    let x = blobs(20, 2, 2, 1.0, 15);
    let p = Params::new(2).seed(0).check().unwrap();
    let mut run = p.run(&x).unwrap();
    for shape in [(19, 2), (20, 3), (0, 2), (20, 0)] {
        let y = Array2::<f64>::zeros(shape);
        assert!(matches!(run.step(&y), Err(Error::Shape { name: "x", .. })));
        assert!(matches!(
            run.current(&y),
            Err(Error::Shape { name: "x", .. })
        ));
    }
    // and is untouched by the rejected calls
    while run.step(&x).unwrap() {}
    assert_eq!(run.current(&x).unwrap(), p.fit(&x).unwrap());
}

/// A run keeps the kind of rows it started on: given the other kind (of
/// the right shape) or sparse rows of another shape, `step` and `current`
/// are errors naming `x`, not panics, and leave the run as it was.
#[test]
fn run_rejects_rows_of_the_other_kind() {
    let x = blobs(20, 3, 2, 1.0, 17).mapv(|v| if v < 2.0 { 0.0 } else { v });
    let csr = Csr::from_dense(&x);
    let p = Params::new(2).n_init(2).seed(4).check().unwrap();
    let other_kind = |e: Error| matches!(e, Error::InvalidParameter { name: "x", .. });
    let wider = Csr::from_dense(&Array2::ones((20, 4)));
    let fewer = Csr::from_dense(&x.slice(s![..19, ..]).to_owned());

    let mut dense = p.run(&x).unwrap();
    assert!(other_kind(dense.step(csr.view()).unwrap_err()));
    assert!(other_kind(dense.current(csr.view()).unwrap_err()));
    for y in [&wider, &fewer] {
        assert!(matches!(
            dense.step(y.view()),
            Err(Error::Shape { name: "x", .. })
        ));
    }
    while dense.step(&x).unwrap() {}
    assert_eq!(dense.current(&x).unwrap(), p.fit(&x).unwrap());

    let mut sparse = p.run(csr.view()).unwrap();
    assert!(other_kind(sparse.step(&x).unwrap_err()));
    assert!(other_kind(sparse.current(&x).unwrap_err()));
    for y in [&wider, &fewer] {
        assert!(matches!(
            sparse.step(y.view()),
            Err(Error::Shape { name: "x", .. })
        ));
        assert!(matches!(
            sparse.current(y.view()),
            Err(Error::Shape { name: "x", .. })
        ));
    }
    while sparse.step(csr.view()).unwrap() {}
    assert_eq!(
        sparse.current(csr.view()).unwrap(),
        p.fit(csr.view()).unwrap()
    );
}

#[test]
fn predict_and_transform_errors() {
    let x = blobs(10, 3, 2, 1.0, 16);
    let c = with_centroids(x.slice(s![..2, ..]).to_owned());
    let shape = |e: Error, name: &str| {
        assert!(
            matches!(e, Error::Shape { name: n, .. } if n == name),
            "{name}"
        )
    };
    let centroids = |shape| with_centroids(Array2::<f64>::zeros(shape));
    shape(centroids((2, 4)).predict(&x).unwrap_err(), "x");
    shape(centroids((2, 2)).transform(&x).unwrap_err(), "x");
    shape(centroids((0, 3)).predict(&x).unwrap_err(), "centroids");
    shape(centroids((2, 0)).transform(&x).unwrap_err(), "centroids");
    let mut bad = x.clone();
    bad[[4, 2]] = f64::NAN;
    assert!(matches!(
        c.predict(&bad).unwrap_err(),
        Error::NonFinite {
            name: "x",
            row: 4,
            col: 2,
            ..
        }
    ));
    let mut badc = c.clone();
    badc.centroids[[1, 0]] = f64::NEG_INFINITY;
    assert!(matches!(
        badc.transform(&x).unwrap_err(),
        Error::NonFinite {
            name: "centroids",
            row: 1,
            col: 0,
            ..
        }
    ));
    // No rows is not an error: nothing to label.
    let none = Array2::<f64>::zeros((0, 3));
    assert_eq!(c.predict(&none).unwrap().len(), 0);
    assert_eq!(c.transform(&none).unwrap().dim(), (0, 2));
}

#[test]
fn transform_too_large_for_memory_is_an_error_not_an_abort() {
    // 2^23 rows against 2^23 centroids: the 2^46-entry distance matrix
    // (512 TiB) exceeds any address space. The inputs are 32 MiB each.
    let n = 1 << 23;
    let x = Array2::<f32>::zeros((n, 1));
    let c = with_centroids(x.clone());
    let e = c.transform(&x).unwrap_err();
    assert!(matches!(e, Error::Shape { name: "x", .. }), "{e}");
    assert!(e.to_string().contains("fit in memory"), "{e}");
}
