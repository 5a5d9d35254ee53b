//! Shared helpers for the integration tests.
#![allow(dead_code)]

use ndarray::{Array2, ArrayView2};
use smartigan::rng::Xoshiro256PlusPlus;
use smartigan::{Clustering, CsrView, Params, Scalar};

/// `n` points in `d` dimensions around `centres` random centres in [0, 5]^d,
/// uniform noise of half-width `spread`.
pub fn blobs(n: usize, d: usize, centres: usize, spread: f64, seed: u64) -> Array2<f64> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let c: Vec<f64> = (0..centres * d).map(|_| rng.unit_f64() * 5.0).collect();
    Array2::from_shape_fn((n, d), |(i, j)| {
        c[(i % centres) * d + j] + (rng.unit_f64() - 0.5) * 2.0 * spread
    })
}

/// An owned CSR matrix (canonical: sorted columns, no duplicates, no
/// explicit zeros) for the sparse entry points.
pub struct Csr {
    pub n_cols: usize,
    pub indptr: Vec<usize>,
    pub indices: Vec<usize>,
    pub data: Vec<f64>,
}

impl Csr {
    /// The non-zero entries of `x`.
    pub fn from_dense(x: &Array2<f64>) -> Self {
        let mut c = Csr {
            n_cols: x.ncols(),
            indptr: vec![0],
            indices: vec![],
            data: vec![],
        };
        for row in x.rows() {
            for (j, &v) in row.iter().enumerate() {
                if v != 0.0 {
                    c.indices.push(j);
                    c.data.push(v);
                }
            }
            c.indptr.push(c.data.len());
        }
        c
    }
    /// The borrowed view the entry points take.
    pub fn view(&self) -> CsrView<'_, f64> {
        CsrView::new(self.n_cols, &self.indptr, &self.indices, &self.data).unwrap()
    }
}

/// A clustering with the given centroids, valid or not, for testing
/// `predict` and `transform` against them: a one-point fit whose centroids
/// are then replaced (those methods read nothing else).
pub fn with_centroids<T: Scalar>(centroids: Array2<T>) -> Clustering<T> {
    let one = Array2::from_elem((1, 1), T::from_f64(0.0));
    let p = Params::new(1).seed(0).n_threads(1).check().unwrap();
    let mut c = p.fit(&one).unwrap();
    c.centroids = centroids;
    c
}

fn sq(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum()
}

/// Labels in range, no empty cluster, centroids are the means, and the
/// objective equals the recomputed one.
pub fn check_result<T: Scalar>(x: ArrayView2<'_, T>, k: usize, r: &Clustering<T>, rel: f64) {
    let (n, d) = x.dim();
    assert_eq!(r.labels.len(), n);
    assert_eq!(r.centroids.dim(), (k, d));
    let mut counts = vec![0usize; k];
    let mut sums = vec![0.0; k * d];
    for (i, &l) in r.labels.iter().enumerate() {
        assert!(l < k, "label {l} out of range");
        counts[l] += 1;
        for j in 0..d {
            sums[l * d + j] += x[[i, j]].to_f64();
        }
    }
    assert!(counts.iter().all(|&c| c > 0), "empty cluster: {counts:?}");
    let scale = x
        .iter()
        .fold(0.0f64, |m, v| m.max(v.to_f64().abs()))
        .max(1.0);
    for l in 0..k {
        for j in 0..d {
            let mean = sums[l * d + j] / counts[l] as f64;
            let c = r.centroids[[l, j]].to_f64();
            assert!(
                (c - mean).abs() <= rel.max(1e-12) * scale * 10.0,
                "centroid {l},{j}: {c} vs mean {mean}"
            );
        }
    }
    let mut obj = 0.0;
    let mut per_cluster = vec![0.0; k];
    for (i, &l) in r.labels.iter().enumerate() {
        let xi: Vec<f64> = x.row(i).iter().map(|v| v.to_f64()).collect();
        let ci: Vec<f64> = r.centroids.row(l).iter().map(|v| v.to_f64()).collect();
        obj += sq(&xi, &ci);
        per_cluster[l] += sq(&xi, &ci);
    }
    assert!(
        (obj - r.objective).abs() <= 1e-9 * obj.max(1e-300),
        "objective {} vs recomputed {obj}",
        r.objective
    );
    assert_eq!(r.cluster_sizes, counts, "cluster sizes");
    for (j, (&got, &want)) in r.cluster_objectives.iter().zip(&per_cluster).enumerate() {
        assert!(
            (got - want).abs() <= 1e-9 * obj.max(1e-300),
            "cluster {j}: objective {got} vs recomputed {want}"
        );
    }
    assert_eq!(r.cluster_objectives.len(), k);
}

/// No single-point move lowers the objective (Hartigan stability), checked
/// with the exact transfer formula from labels and means.
/// Gains and costs within rounding of zero (a point in a cluster of copies
/// of itself: true gain 0, computed gain 1e-32) are allowed an absolute
/// slack of 1e-15 times the squared spread of the data around its mean.
pub fn assert_hartigan_stable(x: ArrayView2<'_, f64>, r: &Clustering<f64>) {
    let k = r.centroids.nrows();
    let mean = x.mean_axis(ndarray::Axis(0)).unwrap_or_default();
    let spread = x
        .rows()
        .into_iter()
        .map(|row| sq(&row.to_vec(), &mean.to_vec()))
        .fold(0.0f64, f64::max);
    let mut counts = vec![0usize; k];
    for &l in &r.labels {
        counts[l] += 1;
    }
    for (i, &own) in r.labels.iter().enumerate() {
        if counts[own] <= 1 {
            continue;
        }
        let xi = x.row(i).to_vec();
        let n_r = counts[own] as f64;
        let gain = n_r / (n_r - 1.0) * sq(&xi, &r.centroids.row(own).to_vec());
        for j in (0..k).filter(|&j| j != own) {
            let n_j = counts[j] as f64;
            let cost = n_j / (n_j + 1.0) * sq(&xi, &r.centroids.row(j).to_vec());
            assert!(
                cost >= gain * (1.0 - 1e-9) - 1e-15 * spread,
                "point {i} would improve moving {own}->{j}: {cost} < {gain}"
            );
        }
    }
}

/// No point is strictly closer to another centroid than to its own.
pub fn assert_lloyd_stable(x: ArrayView2<'_, f64>, r: &Clustering<f64>) {
    for (i, &own) in r.labels.iter().enumerate() {
        let xi = x.row(i).to_vec();
        let d_own = sq(&xi, &r.centroids.row(own).to_vec());
        for j in 0..r.centroids.nrows() {
            let dj = sq(&xi, &r.centroids.row(j).to_vec());
            assert!(
                dj >= d_own * (1.0 - 1e-9) - 1e-12,
                "point {i} closer to {j} than to its own {own}"
            );
        }
    }
}

/// 48 cases per property in CI; `SMARTIGAN_PROPTEST_CASES` for a deeper run.
pub fn cases() -> u32 {
    std::env::var("SMARTIGAN_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(48)
}

/// Data in general position: `n × d` Gaussian-ish values around `centres`
/// random centres, from a seed. Continuous values make exact ties (and so
/// order- or rounding-dependent tie breaks) events of probability zero.
pub fn data(n: usize, d: usize, centres: usize, seed: u64) -> Array2<f64> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let c: Vec<f64> = (0..centres * d).map(|_| rng.unit_f64() * 10.0).collect();
    Array2::from_shape_fn((n, d), |(i, j)| {
        c[(i % centres) * d + j] + (0..3).map(|_| rng.unit_f64()).sum::<f64>() - 1.5
    })
}

/// Data with many exact duplicates: values on a coarse grid.
pub fn grid(n: usize, d: usize, seed: u64) -> Array2<f64> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    Array2::from_shape_fn((n, d), |_| rng.below(4) as f64 * 0.5)
}
