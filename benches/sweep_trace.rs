//! Sweep by sweep: time, moves and points evaluated (not skipped by their
//! bounds) of one restart on the Rust benchmarks' Gaussian blobs
//! ([`blobs`]), one thread, from the k-means++ start of restart 0. The
//! numbers of the speed journal's per-sweep analyses (`benches/journal/`)
//! come from it; the label hash at the end checks that a change to the
//! sweeps kept their moves.
//!
//! ```text
//! cargo bench --features bench --bench sweep_trace -- N D K SWEEPS [FACTOR_START [FACTOR_END]]
//! cargo bench --features bench --bench sweep_trace -- 200000 8 1000 300          # W4, Hartigan
//! cargo bench --features bench --bench sweep_trace -- 100000 32 100 20 1.5 1.0   # W2, Smartigan's schedule
//! ```
//!
//! The acceptance factor falls linearly from FACTOR_START (default 1) to
//! FACTOR_END (default FACTOR_START) over the sweeps; a Hartigan run
//! (factor 1) stops at the first sweep without a move.
//!
//! `SWEEP_TRACE_DATA=noise` clusters one Gaussian blob (structureless data)
//! instead of K blobs; `SWEEP_TRACE_VARIANT=reference` or `columns` traces
//! that sweep instead of the blocked one (same moves, same hash);
//! `SWEEP_TRACE_DTYPE=f32` sweeps the same points rounded to `f32`.

use ndarray::ArrayView2;
use smartigan::bench_api::{blobs, SweepState, Variant};
use smartigan::Scalar;
use std::time::Instant;

fn main() {
    // `cargo bench` passes `--bench`; only numbers are ours.
    let args: Vec<f64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    if args.len() < 4 {
        eprintln!(
            "usage: cargo bench --features bench --bench sweep_trace -- N D K SWEEPS [FACTOR_START [FACTOR_END]]"
        );
        return;
    }
    let (n, d, k, sweeps) = (
        args[0] as usize,
        args[1] as usize,
        args[2] as usize,
        args[3] as usize,
    );
    let start = args.get(4).copied().unwrap_or(1.0);
    let end = args.get(5).copied().unwrap_or(start);
    let noise = std::env::var("SWEEP_TRACE_DATA").is_ok_and(|v| v == "noise");
    let x = blobs(n, d, if noise { 1 } else { k }, 1);
    let variant = match std::env::var("SWEEP_TRACE_VARIANT").as_deref() {
        Ok("reference") => Variant::Reference,
        Ok("columns") => Variant::Columns,
        _ => Variant::Blocked,
    };
    if std::env::var("SWEEP_TRACE_DTYPE").is_ok_and(|v| v == "f32") {
        trace(
            x.mapv(|v| v as f32).view(),
            k,
            sweeps,
            (start, end),
            variant,
        );
    } else {
        trace(x.view(), k, sweeps, (start, end), variant);
    }
}

/// Sweeps `x` from restart 0's k-means++ start, printing each sweep, then
/// the labels' hash.
fn trace<T: Scalar>(
    x: ArrayView2<'_, T>,
    k: usize,
    sweeps: usize,
    (start, end): (f64, f64),
    variant: Variant,
) {
    let t = Instant::now();
    let mut state = SweepState::new(x, k, 1, 0);
    println!("k-means++ start: {:.3} s", t.elapsed().as_secs_f64());
    let mut total = 0.0;
    for sweep in 0..sweeps {
        let factor = start + (end - start) * sweep as f64 / (sweeps.max(2) - 1) as f64;
        let t = Instant::now();
        let moves = state.sweep(x, factor, variant);
        let took = t.elapsed().as_secs_f64();
        total += took;
        println!(
            "sweep {sweep:4}  factor {factor:.3}  moves {moves:7}  evaluated {:8}  {:8.2} ms",
            state.evaluated(),
            took * 1e3
        );
        if moves == 0 && factor <= 1.0 {
            break;
        }
    }
    // FNV-1a over the labels: equal hashes, equal moves.
    let hash = state
        .labels()
        .iter()
        .fold(0xcbf2_9ce4_8422_2325u64, |h, &l| {
            (h ^ l as u64).wrapping_mul(0x0100_0000_01b3)
        });
    println!("sweeps {total:.3} s, labels hash {hash:016x}");
}
