//! `metric = Cosine` (spherical k-means) through the public API: the loss
//! reported is the loss of the labels and centroids returned, Hartigan ends
//! where no single row's move lowers the loss (checked from the cluster
//! sums, by brute force), and the results are those of the unit rows alone
//! (any thread count, any row scale, dense or sparse).

use crate::common::{blobs, Csr};
use ndarray::{Array2, ArrayView2};
use smartigan::rng::Xoshiro256PlusPlus;
use smartigan::{Clustering, Dataset, Init, Method, Metric, NInit, Params, PathKeep, SizeBound};

/// Directions around `groups` random axes-mixtures, with rows of very
/// different lengths (which the cosine loss must not see).
fn directions(n: usize, d: usize, groups: usize, seed: u64) -> Array2<f64> {
    let x = blobs(n, d, groups, 1.5, seed);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed + 1);
    let mut x = x.mapv(|v| v - 2.5);
    for mut row in x.rows_mut() {
        let scale = 0.01 + 100.0 * rng.unit_f64();
        row.mapv_inplace(|v| v * scale);
    }
    x
}

/// `v` scaled to unit length (by its largest entry first, so that tiny
/// and huge rows keep their direction).
fn unit(v: &[f64]) -> Vec<f64> {
    let m = v.iter().fold(0.0f64, |m, a| m.max(a.abs()));
    let n = v.iter().map(|a| (a / m) * (a / m)).sum::<f64>().sqrt();
    v.iter().map(|a| a / m / n).collect()
}

/// `Σ w·(1 − cos)` of rows `x` against the centroids of `r` by its labels,
/// from scratch.
fn cosine_loss(x: ArrayView2<'_, f64>, w: Option<&[f64]>, r: &Clustering<f64>) -> f64 {
    x.rows()
        .into_iter()
        .enumerate()
        .map(|(i, row)| {
            let u = unit(row.as_slice().unwrap());
            let c = unit(r.centroids.row(r.labels[i]).as_slice().unwrap());
            let cos: f64 = u.iter().zip(&c).map(|(a, b)| a * b).sum();
            w.map_or(1.0, |w| w[i]) * (1.0 - cos)
        })
        .sum()
}

/// The loss `Σ_j (W_j − ‖s_j‖)` of `labels`, from the cluster sums.
fn loss_of_sums(sums: &[Vec<f64>], weights: &[f64]) -> f64 {
    sums.iter()
        .zip(weights)
        .map(|(s, w)| w - s.iter().map(|v| v * v).sum::<f64>().sqrt())
        .sum()
}

/// The rows of `x` scaled to unit length, and the weighted sums and
/// weights of `r`'s clusters.
fn unit_sums(
    x: ArrayView2<'_, f64>,
    w: Option<&[f64]>,
    r: &Clustering<f64>,
) -> (Vec<Vec<f64>>, Vec<Vec<f64>>, Vec<f64>) {
    let (d, k) = (x.ncols(), r.centroids.nrows());
    let units: Vec<Vec<f64>> = x
        .rows()
        .into_iter()
        .map(|row| unit(row.as_slice().unwrap()))
        .collect();
    let weight = |i: usize| w.map_or(1.0, |w| w[i]);
    let mut sums = vec![vec![0.0; d]; k];
    let mut weights = vec![0.0; k];
    for (i, ui) in units.iter().enumerate() {
        let l = r.labels[i];
        weights[l] += weight(i);
        for (s, u) in sums[l].iter_mut().zip(ui) {
            *s += weight(i) * u;
        }
    }
    (units, sums, weights)
}

/// No row of `x` can move to another cluster and lower the loss by more
/// than `1e-10` of it: every move tried on the sums themselves.
fn assert_spherical_local_optimum(x: ArrayView2<'_, f64>, w: Option<&[f64]>, r: &Clustering<f64>) {
    let k = r.centroids.nrows();
    let weight = |i: usize| w.map_or(1.0, |w| w[i]);
    let (units, sums, weights) = unit_sums(x, w, r);
    let before = loss_of_sums(&sums, &weights);
    assert!((before - r.objective).abs() <= 1e-9 * before.max(1.0));
    let norm = |v: &[f64]| v.iter().map(|a| a * a).sum::<f64>().sqrt();
    for (i, ui) in units.iter().enumerate() {
        let (from, wi) = (r.labels[i], weight(i));
        if r.cluster_sizes[from] == 1 {
            continue;
        }
        let without: Vec<f64> = sums[from].iter().zip(ui).map(|(s, u)| s - wi * u).collect();
        let gain = wi + norm(&without) - norm(&sums[from]);
        for to in (0..k).filter(|&j| j != from) {
            let with: Vec<f64> = sums[to]
                .iter()
                .zip(&units[i])
                .map(|(s, u)| s + wi * u)
                .collect();
            let cost = wi + norm(&sums[to]) - norm(&with);
            assert!(
                cost >= gain - 1e-10 * before.max(1.0),
                "row {i} lowers the loss by {} moving from {from} to {to}",
                gain - cost
            );
        }
    }
}

fn cosine(k: usize) -> Params {
    Params::new(k).metric(Metric::Cosine)
}

#[test]
fn the_reported_loss_is_the_cosine_loss_of_what_is_returned() {
    let x = directions(600, 5, 6, 3);
    let w: Vec<f64> = (0..x.nrows()).map(|i| 0.25 + (i % 4) as f64).collect();
    for method in Method::ALL {
        for weights in [None, Some(&w[..])] {
            let data = Dataset::new(&x).maybe_weights(weights.map(|w| w.into()));
            let r = cosine(6)
                .method(method)
                .seed(1)
                .check()
                .unwrap()
                .fit(data)
                .unwrap();
            assert_eq!(r.metric, Metric::Cosine);
            let want = cosine_loss(x.view(), weights, &r);
            assert!(
                (r.objective - want).abs() <= 1e-10 * want,
                "{method}: {} vs {want}",
                r.objective
            );
            let parts: f64 = r.cluster_objectives.iter().sum();
            assert!((parts - r.objective).abs() <= 1e-10 * want);
            for c in r.centroids.rows() {
                let n: f64 = c.iter().map(|v| v * v).sum();
                assert!(
                    (n - 1.0).abs() < 1e-12,
                    "{method}: a centroid of squared norm {n}"
                );
            }
            assert!(
                r.history.windows(2).all(|h| h[1] <= h[0] * (1.0 + 1e-12))
                    || method == Method::Smartigan
            );
        }
    }
}

#[test]
fn hartigan_and_polished_smartigan_end_at_a_spherical_local_optimum() {
    let x = directions(500, 4, 7, 8);
    let w: Vec<f64> = (0..x.nrows()).map(|i| 1.0 + (i % 3) as f64 * 0.5).collect();
    for method in [Method::Hartigan, Method::Smartigan] {
        for weights in [None, Some(&w[..])] {
            let data = Dataset::new(&x).maybe_weights(weights.map(|w| w.into()));
            let r = cosine(9)
                .method(method)
                .tol(0.0)
                .seed(4)
                .check()
                .unwrap()
                .fit(data)
                .unwrap();
            assert!(r.converged, "{method}");
            assert_spherical_local_optimum(x.view(), weights, &r);
            // Hartigan-stable rows sit at their nearest direction.
            assert_eq!(r.predict(&x).unwrap(), r.labels, "{method}");
        }
    }
}

#[test]
fn sparse_rows_end_at_a_spherical_local_optimum_too() {
    let mut x = directions(400, 12, 5, 21);
    // Most entries zero, no row empty.
    for (i, mut row) in x.rows_mut().into_iter().enumerate() {
        for (j, v) in row.iter_mut().enumerate() {
            if (i + j) % 4 != 0 {
                *v = 0.0;
            }
        }
    }
    let csr = Csr::from_dense(&x);
    let r = cosine(6)
        .method(Method::Hartigan)
        .tol(0.0)
        .seed(2)
        .check()
        .unwrap();
    let sparse = r.fit(csr.view()).unwrap();
    assert!(sparse.converged);
    assert_spherical_local_optimum(x.view(), None, &sparse);
    assert_eq!(sparse.predict(csr.view()).unwrap(), sparse.labels);
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let x = directions(1200, 6, 8, 5);
    let w: Vec<f64> = (0..x.nrows()).map(|i| 0.5 + (i % 5) as f64).collect();
    let csr = Csr::from_dense(&x);
    for n_init in [NInit::Count(3), NInit::Auto] {
        for method in Method::ALL {
            let p = cosine(10)
                .method(method)
                .n_init(n_init)
                .refine(true)
                .seed(7);
            let dense = Dataset::new(&x).weights((&w[..]).into());
            let one = p.clone().n_threads(1).check().unwrap();
            let (d1, s1) = (one.fit(dense).unwrap(), one.fit(csr.view()).unwrap());
            for threads in [2, 3] {
                let other = p.clone().n_threads(threads).check().unwrap();
                assert_eq!(other.fit(dense).unwrap(), d1, "{method} {n_init} {threads}");
                assert_eq!(
                    other.fit(csr.view()).unwrap(),
                    s1,
                    "{method} {n_init} {threads}"
                );
            }
        }
    }
}

/// Scaling each row by its own power of two leaves its unit vector exact,
/// so the fit is the same bit for bit, even at scales whose squares leave
/// float64's range.
#[test]
fn the_length_of_a_row_changes_nothing() {
    let x = directions(300, 4, 4, 9);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let mut scaled = x.clone();
    for mut row in scaled.rows_mut() {
        let e = [-600, -40, 0, 3, 500][rng.below(5)];
        row.mapv_inplace(|v| v * 2f64.powi(e));
    }
    for method in Method::ALL {
        let p = cosine(5).method(method).seed(11).check().unwrap();
        assert_eq!(
            p.fit(&x).unwrap().labels,
            p.fit(&scaled).unwrap().labels,
            "{method}"
        );
    }
}

#[test]
fn stepping_a_run_gives_the_fit() {
    let x = directions(400, 3, 5, 13);
    let csr = Csr::from_dense(&x);
    let p = cosine(5).n_init(3).seed(6).check().unwrap();
    let mut run = p.run(&x).unwrap();
    while run.step(&x).unwrap() {}
    assert_eq!(run.current(&x).unwrap(), p.fit(&x).unwrap());
    let mut run = p.run(csr.view()).unwrap();
    while run.step(csr.view()).unwrap() {}
    assert_eq!(run.current(csr.view()).unwrap(), p.fit(csr.view()).unwrap());
    // The run keeps its kind of rows.
    assert!(run.step(&x).is_err());
}

#[test]
fn a_path_over_k_minimises_the_cosine_loss() {
    let x = directions(500, 4, 6, 17);
    let p = cosine(1).seed(2).check().unwrap();
    let path = p.path(&x, 1..=8, PathKeep::Clusterings).unwrap();
    let objectives = path.objectives();
    assert!(
        objectives.windows(2).all(|o| o[1] <= o[0]),
        "{objectives:?}"
    );
    for step in &path.steps {
        let c = step.clustering.as_ref().unwrap();
        assert_eq!(c.metric, Metric::Cosine);
        let want = cosine_loss(x.view(), None, c);
        assert!(
            (step.objective - want).abs() <= 1e-10 * want.max(1e-300),
            "k={}",
            step.k
        );
    }
    // k = 1: the direction of the sum of the unit rows.
    let mut sum = [0.0; 4];
    for row in x.rows() {
        for (s, u) in sum.iter_mut().zip(unit(row.as_slice().unwrap())) {
            *s += u;
        }
    }
    let norm = sum.iter().map(|v| v * v).sum::<f64>().sqrt();
    assert!((objectives[0] - (x.nrows() as f64 - norm)).abs() < 1e-9 * objectives[0]);
}

#[test]
fn predict_and_transform_compare_directions() {
    let x = directions(200, 3, 3, 23);
    let r = cosine(3).seed(0).check().unwrap().fit(&x).unwrap();
    let new = ndarray::array![[1.0, 2.0, 0.5], [-3.0, 0.1, 0.0], [1e-200, 0.0, 3e-200]];
    let d = r.transform(&new).unwrap();
    for (i, row) in new.rows().into_iter().enumerate() {
        let u = unit(row.as_slice().unwrap());
        for j in 0..3 {
            let cos: f64 = u.iter().zip(r.centroids.row(j)).map(|(a, b)| a * b).sum();
            assert!((d[[i, j]] - (1.0 - cos)).abs() < 1e-12, "{i} {j}");
        }
        let nearest = (0..3)
            .min_by(|&a, &b| d[[i, a]].total_cmp(&d[[i, b]]))
            .unwrap();
        assert_eq!(r.predict(&new).unwrap()[i], nearest);
    }
}

#[test]
fn rows_and_centroids_without_a_direction_are_refused() {
    let mut x = directions(50, 3, 2, 1);
    x.row_mut(17).fill(0.0);
    let p = cosine(2).seed(0).check().unwrap();
    let err = p.fit(&x).unwrap_err().to_string();
    assert!(err.contains("row 17") && err.contains("cosine"), "{err}");
    let err = p.fit(Csr::from_dense(&x).view()).unwrap_err().to_string();
    assert!(err.contains("row 17"), "{err}");
    let err = p.run(&x).unwrap_err().to_string();
    assert!(err.contains("row 17"), "{err}");

    let x = directions(50, 3, 2, 1);
    let start = Init::Centroids(ndarray::array![[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]);
    let err = cosine(2)
        .init(start)
        .check()
        .unwrap()
        .fit(&x)
        .unwrap_err()
        .to_string();
    assert!(err.contains("init") && err.contains("row 1"), "{err}");

    let r = p.fit(&x).unwrap();
    let err = r
        .transform(&ndarray::array![[0.0, 0.0, 0.0]])
        .unwrap_err()
        .to_string();
    assert!(err.contains("row 0"), "{err}");
}

#[test]
fn the_euclidean_metric_is_the_default_and_unchanged() {
    let x = blobs(300, 3, 4, 1.0, 2);
    let p = Params::new(4).seed(3);
    let plain = p.clone().check().unwrap().fit(&x).unwrap();
    let named = p
        .metric(Metric::Euclidean)
        .check()
        .unwrap()
        .fit(&x)
        .unwrap();
    assert_eq!(plain, named);
    assert_eq!(plain.metric, Metric::Euclidean);
}

/// The sizes of the clusters of `r`, each within `min..=max`.
fn assert_within(r: &Clustering<f64>, min: &[usize], max: &[usize]) {
    for (j, &size) in r.cluster_sizes.iter().enumerate() {
        assert!(
            min[j] <= size && size <= max[j],
            "cluster {j}: {size} rows, bounds {}..={}",
            min[j],
            max[j]
        );
    }
}

/// No transfer the bounds `min`, `max` allow and no exchange of two rows
/// between clusters lowers the loss by more than `1e-10` of it: every move
/// tried on the cluster sums themselves.
fn assert_bounded_spherical_optimum(
    x: ArrayView2<'_, f64>,
    w: Option<&[f64]>,
    r: &Clustering<f64>,
    min: &[usize],
    max: &[usize],
) {
    let (d, k) = (x.ncols(), r.centroids.nrows());
    let weight = |i: usize| w.map_or(1.0, |w| w[i]);
    let (units, sums, weights) = unit_sums(x, w, r);
    let before = loss_of_sums(&sums, &weights);
    assert!((before - r.objective).abs() <= 1e-9 * before.max(1.0));
    let slack = 1e-10 * before.max(1.0);
    // The loss after moving row `i` (weight `wi`) from `from` to `to`.
    let moved = |sums: &mut [Vec<f64>], weights: &mut [f64], i: usize, from: usize, to: usize| {
        let wi = weight(i);
        for c in 0..d {
            sums[from][c] -= wi * units[i][c];
            sums[to][c] += wi * units[i][c];
        }
        weights[from] -= wi;
        weights[to] += wi;
    };
    let n = x.nrows();
    for i in 0..n {
        let a = r.labels[i];
        for b in (0..k).filter(|&b| b != a) {
            if r.cluster_sizes[a] > min[a] && r.cluster_sizes[b] < max[b] {
                let (mut s, mut ws) = (sums.clone(), weights.clone());
                moved(&mut s, &mut ws, i, a, b);
                let after = loss_of_sums(&s, &ws);
                assert!(
                    after >= before - slack,
                    "transfer {i}: {a}->{b} lowers the loss"
                );
            }
        }
        for y in (i + 1..n).filter(|&y| r.labels[y] != a) {
            let b = r.labels[y];
            let (mut s, mut ws) = (sums.clone(), weights.clone());
            moved(&mut s, &mut ws, i, a, b);
            moved(&mut s, &mut ws, y, b, a);
            let after = loss_of_sums(&s, &ws);
            assert!(
                after >= before - slack,
                "swap {i}<->{y} lowers the loss by {}",
                before - after
            );
        }
    }
}

/// Size bounds with the cosine objective: every fit meets them and ends,
/// with `tol = 0`, where no transfer the bounds allow and no swap lowers
/// the spherical loss (dense and sparse rows, weights, per-cluster and
/// balanced bounds).
#[test]
fn bounded_cosine_fits_meet_the_bounds_at_a_local_optimum_under_transfers_and_swaps() {
    let x = directions(150, 5, 4, 31);
    let w: Vec<f64> = (0..x.nrows()).map(|i| 0.5 + (i % 3) as f64).collect();
    let csr = Csr::from_dense(&x);
    let bounds: [(SizeBound, SizeBound, [usize; 4], [usize; 4]); 3] = [
        (
            SizeBound::Balanced,
            SizeBound::Balanced,
            [37, 37, 37, 37],
            [38, 38, 38, 38],
        ),
        (
            SizeBound::PerCluster(vec![10, 20, 30, 40]),
            SizeBound::PerCluster(vec![15, 35, 45, 60]),
            [10, 20, 30, 40],
            [15, 35, 45, 60],
        ),
        (SizeBound::Each(30), SizeBound::Each(45), [30; 4], [45; 4]),
    ];
    for (size_min, size_max, min, max) in bounds {
        for method in [Method::Hartigan, Method::Smartigan] {
            let p = cosine(4)
                .method(method)
                .size_min(size_min.clone())
                .size_max(size_max.clone())
                .tol(0.0)
                .n_init(NInit::Count(2))
                .seed(3)
                .check()
                .unwrap();
            for weights in [None, Some(&w[..])] {
                let r = p
                    .fit(Dataset::new(&x).maybe_weights(weights.map(|w| w.into())))
                    .unwrap();
                assert!(r.converged, "{method}");
                assert_within(&r, &min, &max);
                assert_bounded_spherical_optimum(x.view(), weights, &r, &min, &max);
            }
            let sparse = p.fit(csr.view()).unwrap();
            assert_within(&sparse, &min, &max);
            assert_bounded_spherical_optimum(x.view(), None, &sparse, &min, &max);
        }
    }
}

/// With the cosine objective too: bounded fits do not depend on the thread
/// count, and bounds every clustering meets leave the fit unconstrained,
/// bit for bit.
#[test]
fn bounded_cosine_fits_are_the_same_for_any_thread_count_and_loose_bounds_change_nothing() {
    let x = directions(900, 8, 6, 13);
    let w: Vec<f64> = (0..x.nrows()).map(|i| 0.5 + (i % 5) as f64).collect();
    let csr = Csr::from_dense(&x);
    let dense = Dataset::new(&x).weights((&w[..]).into());
    for method in [Method::Hartigan, Method::Smartigan] {
        let p = cosine(12)
            .method(method)
            .balanced()
            .n_init(NInit::Count(3))
            .seed(5);
        let one = p.clone().n_threads(1).check().unwrap();
        let (d1, s1) = (one.fit(dense).unwrap(), one.fit(csr.view()).unwrap());
        assert!(
            d1.cluster_sizes.iter().all(|&s| s == 75),
            "{:?}",
            d1.cluster_sizes
        );
        for threads in [2, 3] {
            let other = p.clone().n_threads(threads).check().unwrap();
            assert_eq!(other.fit(dense).unwrap(), d1, "{method} {threads}");
            assert_eq!(other.fit(csr.view()).unwrap(), s1, "{method} {threads}");
        }
        let plain = cosine(12).method(method).seed(5);
        let loose = plain.clone().size_min(1).size_max(x.nrows());
        assert_eq!(
            loose.check().unwrap().fit(dense).unwrap(),
            plain.check().unwrap().fit(dense).unwrap(),
            "{method}"
        );
    }
}
