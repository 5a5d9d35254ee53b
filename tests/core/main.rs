//! The crate's integration tests, built as one test binary: each file here was
//! once its own binary, and every one of them instantiated the generic fit code
//! again at the release optimisation level, so the test build took most of
//! CI's time. Two suites stay separate binaries because they need a process of
//! their own: `tests/sparse_memory.rs` installs a counting global allocator,
//! and `tests/interrupt.rs` bounds how soon a cancelled call returns, which
//! other suites' fits running beside it would blur.

#[path = "../common/mod.rs"]
mod common;

mod engine;
mod fuzz;
mod golden;
mod path;
mod properties;
mod refine;
mod robust;
mod seeding;
mod sparse;
mod tolerance;
mod weights;
