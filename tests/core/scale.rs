//! The scale of the input changes nothing it should not: multiplying every
//! sample weight by one power of two leaves a fit's labels and centroids as
//! they were and scales its objectives by that power (both metrics), and,
//! for the cosine objective, multiplying rows by powers of two (each row its
//! own, down to subnormal lengths) changes nothing at all. Also the cases
//! where float64's edges used to break the cosine objective: rows of
//! subnormal length, clusters whose unit rows sum to zero, init arrays of
//! any scale.

use crate::common::{blobs, Csr};
use ndarray::{array, Array1, Array2};
use smartigan::rng::Xoshiro256PlusPlus;
use smartigan::{Clustering, Dataset, Init, Method, Metric, NInit, Params, PathKeep, SizeBound};

/// `2^e` for `−1074 ≤ e ≤ 1023`, exactly.
fn pow2(e: i32) -> f64 {
    if e >= -1022 {
        f64::from_bits(((e + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (e + 1074))
    }
}

/// Rows of small integers (so that any power of two times them, subnormal
/// ones included, is exact) around `groups` directions; no row is zero.
fn integer_rows(n: usize, d: usize, groups: usize, seed: u64) -> Array2<f64> {
    let mut x = blobs(n, d, groups, 1.0, seed).mapv(|v| ((v - 2.5) * 3.0).round());
    for mut row in x.rows_mut() {
        if row.iter().all(|v| *v == 0.0) {
            row[0] = 1.0;
        }
    }
    x
}

/// Weights 1 to 4: exact at every power of two that keeps them non-zero.
fn integer_weights(n: usize) -> Array1<f64> {
    Array1::from_shape_fn(n, |i| (1 + (i * 7) % 4) as f64)
}

/// `r` with every objective it reports multiplied by `2^e`.
fn scaled_objectives(r: &Clustering<f64>, e: i32) -> (f64, Vec<f64>, Vec<f64>) {
    let s = pow2(e);
    (
        r.objective * s,
        r.cluster_objectives.iter().map(|v| v * s).collect(),
        r.restart_objectives.iter().map(|v| v * s).collect(),
    )
}

fn assert_same_up_to_weight_scale(base: &Clustering<f64>, r: &Clustering<f64>, e: i32, what: &str) {
    assert_eq!(r.labels, base.labels, "{what}: labels at 2^{e}");
    assert_eq!(r.centroids, base.centroids, "{what}: centroids at 2^{e}");
    let (objective, per_cluster, restarts) = scaled_objectives(base, e);
    assert_eq!(r.objective, objective, "{what}: objective at 2^{e}");
    assert_eq!(r.cluster_objectives, per_cluster, "{what}: at 2^{e}");
    assert_eq!(r.restart_objectives, restarts, "{what}: at 2^{e}");
}

/// Every power of two from just above float64's smallest subnormal to near
/// its largest finite binade: the fit is the unscaled one, its objectives
/// scaled, for both metrics, dense and sparse rows, with and without size
/// bounds.
#[test]
fn weights_of_any_power_of_two_scale_change_only_the_objectives_scale() {
    let x = integer_rows(240, 4, 5, 3);
    let csr = Csr::from_dense(&x);
    let w = integer_weights(x.nrows());
    let exponents = [-1070, -1050, -1022, -700, -200, -1, 1, 200, 700, 1000];
    for metric in [Metric::Euclidean, Metric::Cosine] {
        for bounded in [false, true] {
            let mut p = Params::new(5)
                .metric(metric)
                .n_init(NInit::Count(2))
                .seed(4);
            if bounded {
                p = p
                    .size_min(SizeBound::Each(30))
                    .size_max(SizeBound::Each(60));
            }
            let p = p.check().unwrap();
            let dense = p.fit(Dataset::new(&x).weights(w.view())).unwrap();
            let sparse = p.fit(Dataset::new(csr.view()).weights(w.view())).unwrap();
            for e in exponents {
                let ws = w.mapv(|v| v * pow2(e));
                let what = format!("{metric} bounded={bounded} dense");
                let r = p.fit(Dataset::new(&x).weights(ws.view())).unwrap();
                assert_same_up_to_weight_scale(&dense, &r, e, &what);
                let what = format!("{metric} bounded={bounded} sparse");
                let r = p.fit(Dataset::new(csr.view()).weights(ws.view())).unwrap();
                assert_same_up_to_weight_scale(&sparse, &r, e, &what);
            }
        }
    }
}

/// A path over k with scaled weights: the same solutions, objectives scaled.
#[test]
fn a_paths_solutions_do_not_depend_on_the_weights_scale() {
    let x = integer_rows(200, 3, 4, 8);
    let w = integer_weights(x.nrows());
    for metric in [Metric::Euclidean, Metric::Cosine] {
        let p = Params::new(1).metric(metric).seed(2).check().unwrap();
        let base = p
            .path(
                Dataset::new(&x).weights(w.view()),
                1..=6,
                PathKeep::Clusterings,
            )
            .unwrap();
        for e in [-1060, -300, 300, 1000] {
            let ws = w.mapv(|v| v * pow2(e));
            let path = p
                .path(
                    Dataset::new(&x).weights(ws.view()),
                    1..=6,
                    PathKeep::Clusterings,
                )
                .unwrap();
            for (a, b) in base.steps.iter().zip(&path.steps) {
                let labels =
                    |s: &smartigan::PathStep<f64>| s.clustering.as_ref().unwrap().labels.clone();
                assert_eq!(labels(a), labels(b), "{metric} k={} 2^{e}", a.k);
                assert_eq!(
                    b.objective,
                    a.objective * pow2(e),
                    "{metric} k={} 2^{e}",
                    a.k
                );
            }
        }
    }
}

/// Each row multiplied by its own power of two, subnormal lengths among
/// them: a cosine fit, its predictions, its distances and a path are the
/// same bit for bit, dense and sparse, bounded or not, for every method.
#[test]
fn a_rows_length_changes_nothing_for_the_cosine_objective() {
    let x = integer_rows(300, 4, 4, 9);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let mut scaled = x.clone();
    for mut row in scaled.rows_mut() {
        let e = [-1069, -1060, -1030, -700, -40, 0, 3, 500, 1000][rng.below(9)];
        row.mapv_inplace(|v| v * pow2(e));
    }
    assert!(scaled.iter().any(|v| *v != 0.0 && !v.is_normal()));
    let (csr, scaled_csr) = (Csr::from_dense(&x), Csr::from_dense(&scaled));
    for method in Method::ALL {
        for bounded in [false, true] {
            if bounded && method == Method::Lloyd {
                continue;
            }
            let mut p = Params::new(5)
                .metric(Metric::Cosine)
                .method(method)
                .seed(11);
            if bounded {
                p = p
                    .size_min(SizeBound::Balanced)
                    .size_max(SizeBound::Balanced);
            }
            let p = p.check().unwrap();
            let r = p.fit(&x).unwrap();
            assert_eq!(p.fit(&scaled).unwrap(), r, "{method} bounded={bounded}");
            let s = p.fit(csr.view()).unwrap();
            assert_eq!(
                p.fit(scaled_csr.view()).unwrap(),
                s,
                "{method} bounded={bounded}"
            );
            assert_eq!(r.predict(&scaled).unwrap(), r.predict(&x).unwrap());
            assert_eq!(r.transform(&scaled).unwrap(), r.transform(&x).unwrap());
            assert_eq!(
                r.predict(scaled_csr.view()).unwrap(),
                r.predict(csr.view()).unwrap()
            );
        }
    }
    let p = Params::new(1)
        .metric(Metric::Cosine)
        .seed(5)
        .check()
        .unwrap();
    let a = p.path(&x, 1..=6, PathKeep::Clusterings).unwrap();
    let b = p.path(&scaled, 1..=6, PathKeep::Clusterings).unwrap();
    assert_eq!(a, b);
}

/// The cosine loss of `labels` and unit `centroids` from scratch, rows
/// scaled by their largest entry before their length is taken.
fn cosine_loss(x: &Array2<f64>, labels: &Array1<usize>, centroids: &Array2<f64>) -> f64 {
    x.rows()
        .into_iter()
        .zip(labels)
        .map(|(row, &l)| {
            let m = row.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            let u: Vec<f64> = row.iter().map(|v| v / m).collect();
            let n = u.iter().map(|v| v * v).sum::<f64>().sqrt();
            let cos: f64 = u.iter().zip(centroids.row(l)).map(|(a, b)| a / n * b).sum();
            1.0 - cos
        })
        .sum()
}

fn assert_unit_centroids(c: &Array2<f64>) {
    for row in c.rows() {
        let norm2: f64 = row.iter().map(|v| v * v).sum();
        assert!((norm2 - 1.0).abs() < 1e-12, "{row}");
    }
}

/// A row whose length is subnormal points where its entries say: the fit
/// and its predictions treat it as the row at unit scale.
#[test]
fn a_row_of_subnormal_length_keeps_its_direction() {
    let four = array![[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9]];
    let mut x = Array2::zeros((5, 2));
    x.slice_mut(ndarray::s![..4, ..]).assign(&four);
    x[[4, 0]] = 1e-310;
    let mut unit = x.clone();
    unit[[4, 0]] = 1.0;
    let p = Params::new(2)
        .metric(Metric::Cosine)
        .seed(0)
        .n_threads(1)
        .check()
        .unwrap();
    for (r, u) in [
        (p.fit(&x).unwrap(), p.fit(&unit).unwrap()),
        (
            p.fit(Csr::from_dense(&x).view()).unwrap(),
            p.fit(Csr::from_dense(&unit).view()).unwrap(),
        ),
    ] {
        assert_eq!(r, u);
        assert!(r.objective.is_finite());
        let want = cosine_loss(&x, &r.labels, &r.centroids);
        assert!(
            (r.objective - want).abs() <= 1e-12,
            "{} {want}",
            r.objective
        );
        assert_unit_centroids(&r.centroids);
    }
    let r = p.fit(&four).unwrap();
    let tiny = array![[0.0, 1e-310], [3e-320, 0.0]];
    let plain = array![[0.0, 1.0], [1.0, 0.0]];
    assert_eq!(r.predict(&tiny).unwrap(), r.predict(&plain).unwrap());
    assert_eq!(r.transform(&tiny).unwrap(), r.transform(&plain).unwrap());
}

/// A cluster whose unit rows sum to exactly zero has a unit direction (the
/// first axis) and the loss its weight, whatever the order of the rows.
#[test]
fn a_cluster_whose_rows_cancel_has_a_direction_and_its_weight_as_loss() {
    let p = Params::new(1)
        .metric(Metric::Cosine)
        .seed(0)
        .check()
        .unwrap();
    let x = array![[1.0, 0.0], [-1.0, 0.0]];
    for r in [
        p.fit(&x).unwrap(),
        p.fit(Csr::from_dense(&x).view()).unwrap(),
    ] {
        assert_eq!(r.objective, 2.0);
        assert_eq!(r.centroids, array![[1.0, 0.0]]);
        assert_eq!(r.predict(&x).unwrap(), array![0, 0]);
    }
    // 100 rows and their negatives, stacked or interleaved: the sum is zero
    // (or rounding away from it) and the loss 200 either way.
    let y = blobs(100, 3, 1, 1.0, 4);
    let (mut stacked, mut interleaved) = (Array2::zeros((200, 3)), Array2::zeros((200, 3)));
    for (i, row) in y.rows().into_iter().enumerate() {
        stacked.row_mut(i).assign(&row);
        stacked.row_mut(100 + i).assign(&row.mapv(|v| -v));
        interleaved.row_mut(2 * i).assign(&row);
        interleaved.row_mut(2 * i + 1).assign(&row.mapv(|v| -v));
    }
    for x in [&stacked, &interleaved] {
        let r = p.fit(x).unwrap();
        assert!((r.objective - 200.0).abs() < 1e-9, "{}", r.objective);
        assert_unit_centroids(&r.centroids);
        let want = cosine_loss(x, &r.labels, &r.centroids);
        assert!((r.objective - want).abs() < 1e-9, "{} {want}", r.objective);
    }
}

/// An init array is a set of directions: its scale changes nothing (the
/// same bits at powers of two, the same start up to rounding otherwise).
#[test]
fn an_init_arrays_scale_changes_nothing_for_the_cosine_objective() {
    let x = blobs(120, 3, 4, 1.0, 6).mapv(|v| v - 2.5);
    let start = |s: f64| {
        let c = x.slice(ndarray::s![..4, ..]).mapv(|v| v * s);
        Params::new(4)
            .metric(Metric::Cosine)
            .method(Method::Lloyd)
            .n_iter(1)
            .init(Init::Centroids(c))
            .n_init(NInit::Count(1))
            .refine(false)
            .seed(0)
            .check()
            .unwrap()
            .fit(&x)
            .unwrap()
    };
    let base = start(1.0);
    for e in [-1060, -700, 600, 1000] {
        assert_eq!(start(pow2(e)), base, "2^{e}");
    }
    for s in [1e-200, 1e160, 1e300] {
        let r = start(s);
        let rel = (r.initial_objective - base.initial_objective).abs() / base.initial_objective;
        assert!(
            rel < 1e-12,
            "{s}: {} {}",
            r.initial_objective,
            base.initial_objective
        );
    }
}

/// Weights so huge that their total overflows float64 fit like their scaled
/// selves; positive weights spanning more than the cosine objective can
/// keep at full precision are refused, naming the weights.
#[test]
fn extreme_cosine_weights_fit_or_are_refused_by_name() {
    let x = integer_rows(60, 3, 3, 2);
    let p = Params::new(3)
        .metric(Metric::Cosine)
        .seed(1)
        .check()
        .unwrap();
    let unit = p.fit(&x).unwrap();
    let huge = Array1::from_elem(x.nrows(), pow2(1020));
    let r = p.fit(Dataset::new(&x).weights(huge.view())).unwrap();
    assert_eq!(r.labels, unit.labels);
    assert_eq!(r.objective, unit.objective * pow2(1020));

    let mut mixed = Array1::from_elem(x.nrows(), 1.0);
    mixed[5] = 5e-324;
    let err = p
        .fit(Dataset::new(&x).weights(mixed.view()))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("sample_weight") && err.contains("5e-324"),
        "{err}"
    );
}
