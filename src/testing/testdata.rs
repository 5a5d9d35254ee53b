//! Synthetic data for the crate's own tests and benchmarks (compiled for
//! tests and with the `bench` feature only).

use crate::rng::Xoshiro256PlusPlus;
use ndarray::Array2;

/// The tests' data: `n` points in `d` dimensions around `centres` centres
/// drawn uniformly in `[0, 5]^d`, point `i` around centre `i mod centres`,
/// noise a sum of four uniforms scaled by 1.7 (overlapping blobs).
#[cfg(test)]
pub(crate) fn blobs(n: usize, d: usize, centres: usize, seed: u64) -> Array2<f64> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let c: Vec<f64> = (0..centres * d).map(|_| rng.unit_f64() * 5.0).collect();
    Array2::from_shape_fn((n, d), |(i, j)| {
        let z: f64 = (0..4).map(|_| rng.unit_f64()).sum::<f64>() - 2.0;
        c[(i % centres) * d + j] + z * 1.7
    })
}

/// The Rust benchmarks' data: `n` points in `d` dimensions around `k`
/// centres drawn uniformly in `[0, 5]^d`, each point's centre drawn
/// uniformly, Gaussian noise of σ = 1 (Box–Muller): the distribution of the
/// workloads of `benches/peers.py`, not their bytes (it draws them with
/// numpy).
#[cfg(feature = "bench")]
pub fn gaussian_blobs(n: usize, d: usize, k: usize, seed: u64) -> Array2<f64> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let centres: Vec<f64> = (0..k * d).map(|_| 5.0 * rng.unit_f64()).collect();
    let labels: Vec<usize> = (0..n).map(|_| rng.below(k)).collect();
    Array2::from_shape_fn((n, d), |(i, j)| {
        let u1 = 1.0 - rng.unit_f64();
        let u2 = rng.unit_f64();
        let z = (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos();
        centres[labels[i] * d + j] + z
    })
}
