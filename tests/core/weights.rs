//! Sample weights in the core.

use crate::common::blobs;
use ndarray::{Array1, Array2, Axis};
use smartigan::{Dataset, Error, Init, Method, Params};

const METHODS: [Method; 3] = [Method::Lloyd, Method::Hartigan, Method::Smartigan];

fn weighted_objective(
    x: &Array2<f64>,
    w: &Array1<f64>,
    labels: &Array1<usize>,
    c: &Array2<f64>,
) -> f64 {
    let mut total = 0.0;
    for (i, &l) in labels.iter().enumerate() {
        let d: f64 = x
            .row(i)
            .iter()
            .zip(c.row(l))
            .map(|(a, b)| (a - b) * (a - b))
            .sum();
        total += w[i] * d;
    }
    total
}

#[test]
fn unit_weights_are_bit_identical_to_no_weights() {
    let x = blobs(300, 4, 6, 1.0, 1);
    let ones = Array1::from_elem(300, 1.0);
    for m in METHODS {
        for init in [Init::RandomPartition, Init::Forgy, Init::KMeansPlusPlus] {
            let p = Params::new(6).method(m).init(init).n_init(3).seed(4);
            let p = p.check().unwrap();
            let a = p.fit(&x).unwrap();
            let b = p.fit(Dataset::new(&x).weights(ones.view())).unwrap();
            assert_eq!(a.labels, b.labels, "{m}");
            assert_eq!(a.restart_objectives, b.restart_objectives, "{m}");
            assert_eq!(a.centroids, b.centroids, "{m}");
        }
    }
}

#[test]
fn integer_weights_act_like_repeated_rows_for_lloyd_from_given_centroids() {
    let x = blobs(120, 3, 4, 1.2, 2);
    let w: Array1<f64> = (0..120).map(|i| (i % 4) as f64 + 1.0).collect();
    let mut rows = Vec::new();
    let mut origin = Vec::new();
    for (i, &wi) in w.iter().enumerate() {
        for _ in 0..wi as usize {
            rows.extend(x.row(i).iter().copied());
            origin.push(i);
        }
    }
    let repeated = Array2::from_shape_vec((origin.len(), 3), rows).unwrap();
    let start = x.select(Axis(0), &[0, 30, 61, 92]);
    let p = Params::new(4)
        .method(Method::Lloyd)
        .init(Init::Centroids(start))
        .n_init(1)
        .n_iter(500)
        .seed(0)
        .check()
        .unwrap();
    let a = p.fit(Dataset::new(&x).weights(w.view())).unwrap();
    let b = p.fit(&repeated).unwrap();
    for (r, &i) in origin.iter().enumerate() {
        assert_eq!(b.labels[r], a.labels[i], "row {i}");
    }
    assert!((a.objective - b.objective).abs() <= 1e-12 * b.objective);
    for (u, v) in a.centroids.iter().zip(b.centroids.iter()) {
        assert!((u - v).abs() <= 1e-12 * v.abs().max(1.0));
    }
}

#[test]
fn weighted_objective_is_reported_and_never_rises_under_hartigan() {
    let x = blobs(400, 3, 8, 1.5, 3);
    let w: Array1<f64> = (0..400).map(|i| 0.25 + (i * 7 % 11) as f64 / 3.0).collect();
    for m in METHODS {
        let p = Params::new(8).method(m).n_init(2).seed(5).check().unwrap();
        let r = p.fit(Dataset::new(&x).weights(w.view())).unwrap();
        let obj = weighted_objective(&x, &w, &r.labels, &r.centroids);
        assert!(
            (obj - r.objective).abs() <= 1e-9 * obj,
            "{m}: {obj} vs {}",
            r.objective
        );
        // centroids are weighted means
        for j in 0..8 {
            let (mut s, mut tw) = (vec![0.0; 3], 0.0);
            for (i, &l) in r.labels.iter().enumerate() {
                if l == j {
                    tw += w[i];
                    for c in 0..3 {
                        s[c] += w[i] * x[[i, c]];
                    }
                }
            }
            for (c, sc) in s.iter().enumerate() {
                assert!((r.centroids[[j, c]] - sc / tw).abs() < 1e-9);
            }
        }
        if m == Method::Hartigan {
            let mut prev = r.initial_objective;
            for &h in &r.history {
                assert!(h <= prev * (1.0 + 1e-12));
                prev = h;
            }
        }
    }
}

#[test]
fn zero_weight_points_change_nothing_and_sit_with_their_nearest_centroid() {
    let x = blobs(200, 2, 4, 1.0, 4);
    let mut w = Array1::from_elem(200, 1.0);
    for i in (0..200).step_by(5) {
        w[i] = 0.0;
    }
    let keep: Vec<usize> = (0..200).filter(|i| i % 5 != 0).collect();
    let sub = x.select(Axis(0), &keep);
    let start = sub.select(Axis(0), &[0, 1, 2, 3]);
    let p = Params::new(4)
        .method(Method::Lloyd)
        .init(Init::Centroids(start))
        .n_init(1)
        .n_iter(500)
        .seed(0)
        .check()
        .unwrap();
    let a = p.fit(Dataset::new(&x).weights(w.view())).unwrap();
    let b = p.fit(&sub).unwrap();
    assert!((a.objective - b.objective).abs() <= 1e-12 * b.objective);
    for (r, &i) in keep.iter().enumerate() {
        assert_eq!(a.labels[i], b.labels[r]);
    }
    for m in [Method::Hartigan, Method::Smartigan] {
        let p = Params::new(4).method(m).seed(1).check().unwrap();
        let r = p.fit(Dataset::new(&x).weights(w.view())).unwrap();
        let nearest = r.predict(&x).unwrap();
        for i in (0..200).step_by(5) {
            let own: f64 = x
                .row(i)
                .iter()
                .zip(r.centroids.row(r.labels[i]))
                .map(|(a, b)| (a - b) * (a - b))
                .sum();
            let best: f64 = x
                .row(i)
                .iter()
                .zip(r.centroids.row(nearest[i]))
                .map(|(a, b)| (a - b) * (a - b))
                .sum();
            assert!(
                own <= best,
                "zero-weight point {i} not at its nearest centroid"
            );
        }
    }
}

#[test]
fn weights_are_deterministic_across_threads() {
    let x = blobs(300, 3, 5, 1.0, 5);
    let w: Array1<f64> = (0..300).map(|i| (i % 3) as f64 + 0.5).collect();
    for m in METHODS {
        let p = Params::new(5).method(m).n_init(5).seed(9);
        let data = Dataset::new(&x).weights(w.view());
        let with_threads = |t| p.clone().n_threads(t).check().unwrap().fit(data).unwrap();
        let one = with_threads(1);
        for t in [2, 3, 8] {
            assert_eq!(with_threads(t), one);
        }
    }
}

#[test]
fn bad_weights_are_rejected() {
    let x = blobs(10, 2, 2, 1.0, 6);
    let cases: Vec<(Array1<f64>, &str)> = vec![
        (Array1::from_elem(9, 1.0), "invalid shape of sample_weight"),
        (
            Array1::from_elem(10, -1.0),
            "invalid sample_weight: -1 at index 0",
        ),
        (
            Array1::from_vec(vec![1.0, f64::NAN, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]),
            "NaN at index 1",
        ),
        (Array1::from_elem(10, f64::INFINITY), "inf at index 0"),
        (Array1::zeros(10), "0 positive weights"),
        (
            Array1::from_vec(vec![1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
            "need at least k=2",
        ),
    ];
    let p = Params::new(2).check().unwrap();
    for (w, fragment) in cases {
        let err = p.fit(Dataset::new(&x).weights(w.view())).unwrap_err();
        assert!(err.to_string().contains(fragment), "{err} lacks {fragment}");
        assert!(matches!(
            err,
            Error::InvalidParameter { .. } | Error::Shape { .. }
        ));
    }
}

/// Issue 32, items 3 and 8: weights whose sums overflow float64, and
/// subnormal weights. The clustering is invariant to a common factor of the
/// weights, so it must be that of moderate weights; centroids and
/// objectives are never NaN, and the objective is reported in the caller's
/// units.
#[test]
fn weights_whose_sums_overflow_are_clustered_as_moderate_ones() {
    let x = Array2::from_shape_vec((4, 1), vec![0.0, 1.0, 10.0, 11.0]).unwrap();
    let w = Array1::from_vec(vec![1e308, 1e308, 1.0, 1.0]);
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-15 * b.abs().max(1.0);
    for m in METHODS {
        let p = Params::new(2).method(m).seed(0).check().unwrap();
        let r = p.fit(Dataset::new(&x).weights(w.view())).unwrap();
        // The two heavy points apart (keeping them together would cost
        // 2 · 1e308 · 0.25), the light ones with the nearer heavy one,
        // whose weight pins the mean: an objective of 9² + 10² = 181.
        let (a, b) = (r.labels[0], r.labels[1]);
        assert_ne!(a, b, "{m}");
        assert_eq!((r.labels[2], r.labels[3]), (b, b), "{m}");
        assert!(close(r.centroids[[a, 0]], 0.0), "{m}: {}", r.centroids);
        assert!(close(r.centroids[[b, 0]], 1.0), "{m}: {}", r.centroids);
        assert!(close(r.objective, 181.0), "{m}: {}", r.objective);
        assert!(close(r.cluster_objectives[a], 0.0), "{m}");
        assert!(close(r.cluster_objectives[b], 181.0), "{m}");
        assert!(r.converged, "{m}");
    }
    // 400 weights of 1e306 (sum 4e308): the clustering of unit weights,
    // the objective 1e306 times theirs.
    let x = blobs(400, 2, 4, 0.1, 7);
    let ones = Array1::from_elem(400, 1.0);
    let big = Array1::from_elem(400, 1e306);
    // A power of two as large (sum 2^1028.6): the same bits, scaled.
    let power = Array1::from_elem(400, 2f64.powi(1020));
    for m in METHODS {
        let p = Params::new(4).method(m).n_init(2).seed(3).check().unwrap();
        let a = p.fit(Dataset::new(&x).weights(ones.view())).unwrap();
        let b = p.fit(Dataset::new(&x).weights(big.view())).unwrap();
        assert_eq!(a.labels, b.labels, "{m}");
        for (u, v) in a.centroids.iter().zip(&b.centroids) {
            assert!((u - v).abs() <= 1e-14 * u.abs().max(1.0), "{m}: {u} vs {v}");
        }
        let want = weighted_objective(&x, &ones, &a.labels, &a.centroids) * 1e306;
        assert!(
            (b.objective - want).abs() <= 1e-12 * want,
            "{m}: {} vs {want}",
            b.objective
        );
        let c = p.fit(Dataset::new(&x).weights(power.view())).unwrap();
        assert_eq!(a.labels, c.labels, "{m}");
        assert_eq!(a.centroids, c.centroids, "{m}");
        assert_eq!(c.objective, a.objective * 2f64.powi(1020), "{m}");
    }
}

#[test]
fn a_weighted_objective_beyond_float64_is_an_error() {
    // Two points 20 apart, each of weight 1e308, one cluster: the objective
    // is 2e310, which float64 cannot hold.
    let x = Array2::from_shape_vec((2, 1), vec![0.0, 20.0]).unwrap();
    let w = Array1::from_vec(vec![1e308, 1e308]);
    let p = Params::new(1).seed(0).check().unwrap();
    let e = p.fit(Dataset::new(&x).weights(w.view())).unwrap_err();
    assert!(
        matches!(
            e,
            Error::InvalidParameter {
                name: "sample_weight",
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("exceeds float64"), "{e}");
}

#[test]
fn subnormal_weights_are_clustered_as_moderate_ones() {
    let x = blobs(300, 3, 5, 1.0, 8);
    let ones = Array1::from_elem(300, 1.0);
    // 5e-324 is 2^-1074, the smallest subnormal: as a common factor it
    // changes nothing but the objective's units.
    let tiny = Array1::from_elem(300, 5e-324);
    for m in METHODS {
        let p = Params::new(5).method(m).n_init(2).seed(5).check().unwrap();
        let a = p.fit(Dataset::new(&x).weights(ones.view())).unwrap();
        let b = p.fit(Dataset::new(&x).weights(tiny.view())).unwrap();
        assert_eq!(a.labels, b.labels, "{m}");
        assert_eq!(a.centroids, b.centroids, "{m}");
        assert_eq!(b.objective, a.objective * 5e-324, "{m}");
    }
    // Unequal subnormal weights: the means are those of the weights as
    // stored (a subnormal is its bits times 2^-1074, exactly).
    let x = Array2::from_shape_vec((6, 1), vec![0.0, 1.0, 2.0, 10.0, 11.0, 12.0]).unwrap();
    let w = Array1::from_vec(vec![1e-321, 2e-321, 3e-321, 3e-321, 2e-321, 1e-321]);
    let p = Params::new(2).seed(0).check().unwrap();
    let r = p.fit(Dataset::new(&x).weights(w.view())).unwrap();
    let units: Vec<f64> = w.iter().map(|v| v.to_bits() as f64).collect();
    for group in [0..3, 3..6] {
        let l = r.labels[group.start];
        assert!(group.clone().all(|i| r.labels[i] == l), "{}", r.labels);
        let total: f64 = group.clone().map(|i| units[i]).sum();
        let mean = group.clone().map(|i| units[i] * x[[i, 0]]).sum::<f64>() / total;
        assert!(
            (r.centroids[[l, 0]] - mean).abs() <= 1e-14 * mean,
            "{} vs {mean}",
            r.centroids[[l, 0]]
        );
    }
}
