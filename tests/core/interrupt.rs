//! Issue 32, item 5: every path that can run for long polls its
//! cancellation flag: k-means++ on its own and inside a restart (dense and
//! sparse, with and without weights), sparse fits from Forgy starts
//! (whose first assignment and Lloyd iterations each take a minute on large
//! data), and predict and transform on many rows (dense and sparse). A flag set before the call stops it at once; one set by another
//! thread stops it soon after. The uninterrupted calls below would take
//! minutes; a call counts as prompt if it returns within a few seconds of
//! the flag (a responsiveness bound with wide slack, not a speed claim).

use crate::common::{with_centroids, Csr};
use ndarray::{Array1, Array2};
use smartigan::rng::Xoshiro256PlusPlus;
use smartigan::{Control, Dataset, Error, Init, Method, Params};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Seconds a call may take after its flag is set.
const PROMPT: Duration = Duration::from_secs(3);

fn dense(n: usize, d: usize, seed: u64) -> Array2<f64> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    Array2::from_shape_fn((n, d), |_| rng.unit_f64())
}

/// `n × d` with about `per_row` non-zeros a row.
fn sparse(n: usize, d: usize, per_row: usize, seed: u64) -> Csr {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut m = Csr {
        n_cols: d,
        indptr: vec![0],
        indices: vec![],
        data: vec![],
    };
    for _ in 0..n {
        let mut cols: Vec<usize> = (0..per_row).map(|_| rng.below(d)).collect();
        cols.sort_unstable();
        cols.dedup();
        for c in cols {
            m.indices.push(c);
            m.data.push(1.0 + rng.unit_f64());
        }
        m.indptr.push(m.data.len());
    }
    m
}

/// Runs `call` with a flag that another thread sets after `delay`; the
/// call must end with `Error::Interrupted` within [`PROMPT`] of the flag.
fn interrupted_after<R: std::fmt::Debug>(
    delay: Duration,
    call: impl FnOnce(&AtomicBool) -> smartigan::Result<R>,
) {
    let flag = AtomicBool::new(false);
    let set_at = std::sync::Mutex::new(None);
    std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(delay);
            *set_at.lock().unwrap() = Some(Instant::now());
            flag.store(true, Ordering::Relaxed);
        });
        let out = call(&flag);
        let returned = Instant::now();
        let set_at = set_at
            .lock()
            .unwrap()
            .expect("the call ended before the flag was set");
        assert!(
            matches!(out, Err(Error::Interrupted)),
            "{:?}",
            out.map(|_| "a result")
        );
        let late = returned.duration_since(set_at);
        assert!(late < PROMPT, "returned {late:?} after the flag");
    });
}

#[test]
fn a_flag_set_before_the_call_stops_every_long_path() {
    let set = AtomicBool::new(true);
    let stop = Control::default().cancel(&set);
    let x = dense(3000, 4, 1);
    let w = Array1::from_elem(3000, 2.0);
    let p = Params::new(20).seed(1).check().unwrap();
    let one_restart = Params::new(20).seed(1).n_init(1).check().unwrap();
    for weights in [None, Some(w.view())] {
        let data = Dataset::new(&x).maybe_weights(weights);
        assert_eq!(p.plus_plus_with(data, stop), Err(Error::Interrupted));
        assert_eq!(one_restart.fit_with(data, stop), Err(Error::Interrupted));
        // A step-wise run stops while drawing its starts.
        assert!(matches!(
            one_restart.run_with(data, stop),
            Err(Error::Interrupted)
        ));
    }
    let csr = sparse(3000, 50, 5, 2);
    for init in [Init::KMeansPlusPlus, Init::Forgy, Init::RandomPartition] {
        for m in [Method::Lloyd, Method::Smartigan] {
            let p = Params::new(20).init(init.clone()).method(m).seed(1);
            let p = p.check().unwrap();
            assert_eq!(p.fit_with(csr.view(), stop), Err(Error::Interrupted));
        }
    }
    assert_eq!(p.plus_plus_with(csr.view(), stop), Err(Error::Interrupted));
    // And nothing is cancelled without the flag.
    let unset = AtomicBool::new(false);
    let go = Control::default().cancel(&unset);
    assert_eq!(p.plus_plus_with(&x, go).unwrap(), p.plus_plus(&x).unwrap());
}

#[test]
fn kmeans_plus_plus_stops_soon_after_the_flag() {
    // The case: 200,000 × 16, k = 5,000 (about 15 s in one call).
    let x = dense(200_000, 16, 3);
    let p = Params::new(5000).seed(0).check().unwrap();
    interrupted_after(Duration::from_millis(100), |flag| {
        p.plus_plus_with(&x, Control::default().cancel(flag))
    });
    // With weights the plain definition runs (minutes at this size).
    let w = Array1::from_elem(200_000, 0.5);
    let weighted = Dataset::new(&x).weights(w.view());
    interrupted_after(Duration::from_millis(100), |flag| {
        p.plus_plus_with(weighted, Control::default().cancel(flag))
    });
    // One restart's own k-means++ inside a fit.
    let p = Params::new(5000).seed(0).n_init(1).check().unwrap();
    interrupted_after(Duration::from_millis(100), |flag| {
        p.fit_with(&x, Control::default().cancel(flag))
    });
}

#[test]
fn sparse_fits_stop_soon_after_the_flag() {
    // The case: 200,000 × 2,000 with 4 M non-zeros, k = 3,000:
    // k-means++ took over 240 s, one Lloyd iteration from Forgy 72 s.
    let csr = sparse(200_000, 2000, 20, 4);
    for init in [Init::KMeansPlusPlus, Init::Forgy] {
        let p = Params::new(3000)
            .init(init)
            .method(Method::Lloyd)
            .n_init(1)
            .seed(0)
            .check()
            .unwrap();
        interrupted_after(Duration::from_millis(100), |flag| {
            p.fit_with(csr.view(), Control::default().cancel(flag))
        });
    }
}

#[test]
fn predict_and_transform_poll_the_flag_and_answer_as_the_plain_calls_without_it() {
    let x = dense(3000, 4, 5);
    let c = with_centroids(dense(20, 4, 6));
    let csr = sparse(3000, 4, 2, 7);
    let set = AtomicBool::new(true);
    let stop = Control::default().cancel(&set);
    assert_eq!(c.model().predict_with(&x, stop), Err(Error::Interrupted));
    assert_eq!(c.model().transform_with(&x, stop), Err(Error::Interrupted));
    assert_eq!(
        c.model().predict_with(csr.view(), stop),
        Err(Error::Interrupted)
    );
    assert_eq!(
        c.model().transform_with(csr.view(), stop),
        Err(Error::Interrupted)
    );
    let unset = AtomicBool::new(false);
    let go = Control::default().cancel(&unset);
    assert_eq!(
        c.model().predict_with(&x, go).unwrap(),
        c.predict(&x).unwrap()
    );
    assert_eq!(
        c.model().transform_with(&x, go).unwrap(),
        c.transform(&x).unwrap()
    );
    assert_eq!(
        c.model().predict_with(csr.view(), go).unwrap(),
        c.predict(csr.view()).unwrap()
    );
    assert_eq!(
        c.model().transform_with(csr.view(), go).unwrap(),
        c.transform(csr.view()).unwrap()
    );
}

#[test]
fn predict_and_transform_on_many_rows_stop_soon_after_the_flag() {
    // Each call below is 10^10 or more distance terms: seconds at the
    // least, even on many cores, against a flag set after 20 ms.
    let delay = Duration::from_millis(20);
    let x = dense(200_000, 64, 8);
    let c = with_centroids(dense(2000, 64, 9));
    interrupted_after(delay, |flag| {
        c.model().predict_with(&x, Control::default().cancel(flag))
    });
    let x = dense(100_000, 256, 10);
    let c = with_centroids(dense(500, 256, 11));
    interrupted_after(delay, |flag| {
        c.model()
            .transform_with(&x, Control::default().cancel(flag))
    });
    let csr = sparse(200_000, 2000, 20, 12);
    let c = with_centroids(dense(3000, 2000, 13));
    interrupted_after(delay, |flag| {
        c.model()
            .predict_with(csr.view(), Control::default().cancel(flag))
    });
    let csr = sparse(100_000, 2000, 200, 14);
    let c = with_centroids(dense(500, 2000, 15));
    interrupted_after(delay, |flag| {
        c.model()
            .transform_with(csr.view(), Control::default().cancel(flag))
    });
}

#[test]
fn a_dense_fit_stops_inside_its_first_assignment() {
    // The first nearest-centroid pass after the start is n × k distances,
    // as long as a sweep: 400,000 × 64 against 20,000 given centroids
    // (about 9 s on two cores).
    let x = dense(400_000, 64, 16);
    let c = dense(20_000, 64, 17);
    let p = Params::new(20_000)
        .init(Init::Centroids(c))
        .method(Method::Lloyd)
        .n_init(1)
        .seed(0)
        .check()
        .unwrap();
    // The flag comes after the checks and the data's preparation.
    interrupted_after(Duration::from_millis(1000), |flag| {
        p.fit_with(&x, Control::default().cancel(flag))
    });
}
