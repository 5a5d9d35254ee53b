//! One sweep per method on fixed data (criterion). Run with
//! `cargo bench --features bench --bench sweep`; set `SMARTIGAN_BENCH_FULL=1` for W2/W3 sizes.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use smartigan::bench_api::{blobs, SweepState, Variant};
use std::hint::black_box;

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
            ("hartigan-columns", Variant::Columns),
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
