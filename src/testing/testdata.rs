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

/// Sample weights of `n` rows of three kinds the weighted equivalence tests
/// run on: spread (no two cluster weights alike), with zeros (rows that
/// never move), and small integers (cluster weights exact in `f64`).
#[cfg(test)]
pub(crate) fn weight_kinds(n: usize) -> [Vec<f64>; 3] {
    let spread = (0..n)
        .map(|i| 0.1 + ((i * 7919) % 97) as f64 / 9.7)
        .collect();
    let zeros = (0..n)
        .map(|i| f64::from(u8::from(i % 11 != 0)) * 2.5)
        .collect();
    let integers = (0..n).map(|i| (1 + i % 5) as f64).collect();
    [spread, zeros, integers]
}

/// Weights of `n` rows with every 13th zero and the others
/// `0.5 + (i mod period)`.
#[cfg(test)]
pub(crate) fn weights_with_zeros(n: usize, period: usize) -> Vec<f64> {
    (0..n)
        .map(|i| {
            if i % 13 == 0 {
                0.0
            } else {
                0.5 + (i % period) as f64
            }
        })
        .collect()
}
