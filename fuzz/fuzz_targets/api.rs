//! Coverage-guided fuzzing of the public API; see `fuzz/harness.rs`.
//!
//! ```text
//! cargo install cargo-fuzz            # once
//! ASAN_OPTIONS=detect_leaks=0 cargo +nightly fuzz run api -- -max_total_time=60 -timeout=20
//! ```
//!
//! (Leak detection is off because rayon's worker threads outlive a dropped
//! pool briefly, and LeakSanitizer reports their thread-locals at exit.)
#![no_main]

#[path = "../harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    harness::run(data);
});
