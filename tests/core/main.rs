//! The crate's integration tests, built as one test binary: each file here was
//! once its own binary, and every one of them instantiated the generic fit code
//! again at the release optimisation level, so the test build took most of
//! CI's time. `tests/sparse_memory.rs` stays a binary of its own: it installs
//! a counting global allocator. The [`interrupt`] suite bounds how soon a
//! cancelled call returns, which other suites' fits running beside it would
//! blur: CI runs it in a process of its own (`.ci/run` skips it in the first
//! run and filters it in the second), while a plain `cargo test` runs it
//! with the rest, its bounds' slack covering the sharing.

#[path = "../common/mod.rs"]
mod common;
mod cosine;

mod engine;
mod fuzz;
mod golden;
mod interrupt;
mod path;
mod properties;
mod refine;
mod robust;
mod scale;
mod search;
mod seeding;
mod sparse;
mod tolerance;
mod weights;
