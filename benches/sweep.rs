//! One sweep per method on fixed data (criterion). Run with
//! `cargo bench --bench sweep`; set `SMARTIGAN_BENCH_FULL=1` for W2/W3 sizes.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use ndarray::Array2;
use smartigan::bench_api::{SweepState, Variant};
use smartigan::rng::Xoshiro256PlusPlus;
use std::hint::black_box;

/// Gaussian blobs (Box–Muller), centres uniform in [0, 5]^d, σ = 1.
fn blobs(n: usize, d: usize, k: usize, seed: u64) -> Array2<f64> {
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

fn bench(c: &mut Criterion) {
    let full = std::env::var("SMARTIGAN_BENCH_FULL").is_ok();
    let shapes: &[(&str, usize, usize, usize)] = if full {
        &[("W2", 100_000, 32, 100), ("W3", 20_000, 256, 50)]
    } else {
        &[("W1", 10_000, 16, 20), ("W2/10", 10_000, 32, 100)]
    };
    let mut g = c.benchmark_group("sweep");
    g.sample_size(10);
    for &(name, n, d, k) in shapes {
        let x = blobs(n, d, k, 1);
        let x32 = x.mapv(|v| v as f32);
        let base = SweepState::new(x.view(), k, 1, 2);
        for (label, v) in [
            ("hartigan-reference", Variant::Reference),
            ("hartigan-blocked", Variant::Blocked),
            ("hartigan-blocked-spare-threads", Variant::BlockedParallel),
        ] {
            g.bench_function(BenchmarkId::new(label, name), |b| {
                b.iter_batched(
                    || base.clone(),
                    |mut s| black_box(s.sweep(x.view(), 1.0, v)),
                    criterion::BatchSize::LargeInput,
                )
            });
        }
        g.bench_function(BenchmarkId::new("smartigan-blocked(1.4)", name), |b| {
            b.iter_batched(
                || base.clone(),
                |mut s| black_box(s.sweep(x.view(), 1.4, Variant::Blocked)),
                criterion::BatchSize::LargeInput,
            )
        });
        g.bench_function(BenchmarkId::new("hartigan-blocked-f32", name), |b| {
            let base32 = SweepState::new(x32.view(), k, 1, 2);
            b.iter_batched(
                || base32.clone(),
                |mut s| black_box(s.sweep(x32.view(), 1.0, Variant::Blocked)),
                criterion::BatchSize::LargeInput,
            )
        });
        g.bench_function(BenchmarkId::new("lloyd", name), |b| {
            b.iter_batched(
                || base.clone(),
                |mut s| black_box(s.lloyd(x.view())),
                criterion::BatchSize::LargeInput,
            )
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
