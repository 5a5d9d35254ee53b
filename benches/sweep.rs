//! One sweep per kernel on fixed data. Run with
//! `cargo bench --features bench --bench sweep [-- FILTER]`; set
//! `SMARTIGAN_BENCH_FULL=1` for W2/W3 sizes, `SMARTIGAN_BENCH_SAMPLES` for
//! the samples per case (default 15).
//!
//! Every sample sweeps a fresh copy of the same state (a k-means++ start
//! and two warm-up sweeps), so each sample does the same work; the copy is
//! made outside the timed region. Reported: the median and the fastest
//! sample, in milliseconds (the host is shared: compare cases of one run).

use smartigan::bench_api::{blobs, SweepState, Variant};
use std::hint::black_box;
use std::time::Instant;

/// One case: what it sweeps, from which state.
struct Case<'a> {
    name: String,
    base: &'a SweepState,
    sweep: Box<dyn Fn(&mut SweepState) -> usize + 'a>,
}

fn main() {
    // `cargo bench` passes `--bench`; any other argument filters cases by name.
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let samples: usize = std::env::var("SMARTIGAN_BENCH_SAMPLES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(15)
        .max(1);
    let full = std::env::var("SMARTIGAN_BENCH_FULL").is_ok();
    let shapes: &[(&str, usize, usize, usize)] = if full {
        &[("W2", 100_000, 32, 100), ("W3", 20_000, 256, 50)]
    } else {
        &[("W1", 10_000, 16, 20), ("W2/10", 10_000, 32, 100)]
    };
    println!("{:<46} {:>10} {:>10}", "case", "median ms", "min ms");
    for &(shape, n, d, k) in shapes {
        let x = blobs(n, d, k, 1);
        let x32 = x.mapv(|v| v as f32);
        let base = SweepState::new(x.view(), k, 1, 2);
        let base32 = SweepState::new(x32.view(), k, 1, 2);
        let (x, x32) = (&x, &x32);
        let mut cases: Vec<Case<'_>> = Vec::new();
        for (label, v) in [
            ("hartigan-reference", Variant::Reference),
            ("hartigan-blocked", Variant::Blocked),
            ("hartigan-blocked-spare-threads", Variant::BlockedParallel),
            ("hartigan-columns", Variant::Columns),
        ] {
            cases.push(Case {
                name: format!("{label}/{shape}"),
                base: &base,
                sweep: Box::new(move |s| s.sweep(x.view(), 1.0, v)),
            });
        }
        cases.push(Case {
            name: format!("smartigan-blocked(1.4)/{shape}"),
            base: &base,
            sweep: Box::new(move |s| s.sweep(x.view(), 1.4, Variant::Blocked)),
        });
        cases.push(Case {
            name: format!("hartigan-blocked-f32/{shape}"),
            base: &base32,
            sweep: Box::new(move |s| s.sweep(x32.view(), 1.0, Variant::Blocked)),
        });
        cases.push(Case {
            name: format!("lloyd/{shape}"),
            base: &base,
            sweep: Box::new(move |s| s.lloyd(x.view())),
        });
        for case in cases {
            if filter
                .as_ref()
                .is_some_and(|f| !case.name.contains(f.as_str()))
            {
                continue;
            }
            let mut times: Vec<f64> = (0..samples)
                .map(|_| {
                    let mut state = case.base.clone();
                    let t = Instant::now();
                    black_box((case.sweep)(&mut state));
                    t.elapsed().as_secs_f64() * 1e3
                })
                .collect();
            times.sort_by(f64::total_cmp);
            println!(
                "{:<46} {:>10.3} {:>10.3}",
                case.name,
                times[times.len() / 2],
                times[0]
            );
        }
    }
}
