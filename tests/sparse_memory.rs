//! Issue 32, item 2: sparse `predict` streams its rows and never holds the
//! `n × k` matrix of distances. Measured by counting the bytes this test
//! binary's allocator hands out (a count, not a timing: the same on every
//! machine).

mod common;

use common::{with_centroids, Csr};
use ndarray::Array2;
use smartigan::rng::Xoshiro256PlusPlus;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, with the bytes live now and the most live since
/// the last reset.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Ordering::SeqCst) + layout.size();
            PEAK.fetch_max(now, Ordering::SeqCst);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::SeqCst);
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The most bytes live during `f` beyond those live before it.
fn peak_extra<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let before = LIVE.load(Ordering::SeqCst);
    PEAK.store(before, Ordering::SeqCst);
    let out = f();
    (out, PEAK.load(Ordering::SeqCst) - before)
}

#[test]
fn sparse_predict_needs_no_n_by_k_matrix() {
    let (n, d, k) = (20_000, 10, 500);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    let x = Array2::from_shape_fn((n, d), |_| {
        if rng.unit_f64() < 0.3 {
            rng.unit_f64()
        } else {
            0.0
        }
    });
    let c = with_centroids(Array2::from_shape_fn((k, d), |_| rng.unit_f64() * 0.3));
    let csr = Csr::from_dense(&x);
    let (labels, extra) = peak_extra(|| c.predict(csr.view()).unwrap());
    assert_eq!(labels, c.predict(&x).unwrap());
    // The labels (8 bytes a row) and per-thread scratch; the matrix of
    // distances would be n·k·8 = 80 MB.
    let matrix = n * k * 8;
    assert!(
        extra < matrix / 20,
        "a sparse predict held {extra} bytes at once (the n × k matrix is {matrix})"
    );
}
