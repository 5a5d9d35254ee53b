//! Coverage-guided fuzzing of the public API; see `fuzz/harness.rs`.
//!
//! ```text
//! cargo install cargo-fuzz            # once
//! cargo +nightly fuzz run api -- -max_total_time=60 -timeout=20
//! ```
#![no_main]

#[path = "../harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    harness::run(data);
});
