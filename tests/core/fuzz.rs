//! The fuzz harness (`fuzz/harness.rs`) on a fixed budget of random inputs,
//! on the stable toolchain, as part of `cargo test`. Coverage-guided fuzzing
//! of the same harness: `cargo +nightly fuzz run api` (see `fuzz/`).
//! `SMARTIGAN_FUZZ_CASES` raises the budget for a longer local run.

#[allow(clippy::unwrap_used, clippy::panic)]
#[path = "../../fuzz/harness.rs"]
mod harness;

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestRunner};

fn cases() -> u32 {
    std::env::var("SMARTIGAN_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3000)
}

#[test]
fn fuzz_public_api_with_random_bytes() {
    // A fixed seed keeps CI reproducible; a local run can vary it with
    // SMARTIGAN_FUZZ_SEED.
    let seed = std::env::var("SMARTIGAN_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x5eed);
    let mut runner = TestRunner::new(Config {
        cases: cases(),
        rng_seed: RngSeed::Fixed(seed),
        failure_persistence: None,
        ..Config::default()
    });
    let accepted = std::sync::atomic::AtomicUsize::new(0);
    runner
        .run(&proptest::collection::vec(any::<u8>(), 0..600), |bytes| {
            if harness::run(&bytes) {
                accepted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            Ok(())
        })
        .unwrap();
    // Most random inputs are invalid somewhere; enough must get through to
    // exercise the engine itself, not only its checks.
    let accepted = accepted.into_inner();
    println!("{accepted} of {} random inputs were fitted", cases());
    assert!(accepted * 10 >= cases() as usize, "only {accepted} fitted");
}

#[test]
fn fuzz_corner_inputs() {
    // Inputs a byte-level fuzzer reaches only by luck: all zeros (n = 0),
    // all ones, all 0xff, and short prefixes of each.
    for fill in [0u8, 1, 2, 7, 0x55, 0xaa, 0xff] {
        for len in [0, 1, 2, 3, 8, 64, 600] {
            let _ = harness::run(&vec![fill; len]);
        }
    }
}
