//! The fuzz harness over the public Rust API, shared by the coverage-guided
//! target `fuzz/fuzz_targets/api.rs` (`cargo +nightly fuzz run api`) and the
//! stable, fixed-budget run in `tests/core/fuzz.rs` (part of `cargo test`).
//!
//! The input bytes choose a shape (empty ones included), values (ordinary,
//! duplicated, tiny, huge, NaN, ±inf, any bit pattern), a memory layout, and
//! every parameter (out-of-range ones included). The harness then checks:
//! * nothing panics (a panic is the fuzzer's crash);
//! * `Params::check` followed by `fit` or `run` succeeds exactly when an
//!   independent oracle says the input is valid, and fails with the error
//!   kind it predicts otherwise;
//! * a successful result is a valid clustering: labels in range, no empty
//!   cluster, centroids the means, objective finite and equal to the
//!   recomputed one, every restart reported;
//! * the step-wise run ends where `fit` does, bit for bit;
//! * `predict` and `transform` accept exactly the inputs they should, against
//!   centroids of any shape and value.
//!
//! Termination is by construction (every loop in the engine is bounded by
//! `n_iter` or `MAX_POLISH_SWEEPS`); libFuzzer's `-timeout` catches a hang.

use ndarray::{s, Array2, ArrayView2};
use smartigan::{Clustering, Error, Init, Method, Params, Scalar};

/// Reads the fuzzer's bytes; past the end every read is zero. `wild`
/// decides whether this case may draw invalid values and parameters (a
/// quarter of the cases), so that the rest get through the checks and
/// exercise the engine itself.
struct Bytes<'a>(&'a [u8], bool);

impl Bytes<'_> {
    fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((b, rest)) => {
                self.0 = rest;
                *b
            }
            None => 0,
        }
    }
    fn u64(&mut self) -> u64 {
        (0..8).fold(0u64, |acc, _| (acc << 8) | u64::from(self.u8()))
    }
    fn below(&mut self, n: usize) -> usize {
        usize::from(self.u8()) % n.max(1)
    }
    /// Mostly ordinary values, with the awkward ones well represented.
    fn value(&mut self, prev: f64) -> f64 {
        let draw = self.u8() % 16;
        if !self.1 && matches!(draw, 0 | 6 | 7) {
            return prev;
        }
        match draw {
            0 => f64::from_bits(self.u64()),
            1 => prev,
            2 => 0.0,
            3 => 1e150 * f64::from(self.u8() as i8),
            4 => 1e-150 * f64::from(self.u8() as i8),
            5 => 1e8 + f64::from(self.u8() as i8) / 16.0,
            6 => f64::NAN,
            7 => {
                f64::INFINITY
                    * if self.u8().is_multiple_of(2) {
                        1.0
                    } else {
                        -1.0
                    }
            }
            8 => f64::MIN_POSITIVE / 4.0,
            _ => f64::from(self.u8() as i8) / 8.0,
        }
    }
    fn matrix(&mut self, rows: usize, cols: usize) -> Array2<f64> {
        let mut prev = 0.0;
        Array2::from_shape_fn((rows, cols), |_| {
            prev = self.value(prev);
            prev
        })
    }
}

/// What the engine should say about an input: `None` for a valid one.
#[derive(Debug, PartialEq)]
enum Expect {
    Ok,
    Parameter(&'static str),
    Shape(&'static str),
    NonFinite(&'static str),
}

fn error_kind(e: &Error) -> Expect {
    match e {
        Error::InvalidParameter { name, .. } => Expect::Parameter(name),
        Error::Shape { name, .. } => Expect::Shape(name),
        Error::NonFinite { name, .. } => Expect::NonFinite(name),
        _ => panic!("unexpected error {e}"),
    }
}

/// The oracle: the checks in the order the engine documents them
/// (parameters, then shapes, then values).
fn expected<T: Scalar>(x: ArrayView2<'_, T>, p: &Params) -> Expect {
    let (n, d) = x.dim();
    let (start, end) = p.schedule;
    if p.k < 1 {
        return Expect::Parameter("k");
    }
    if p.n_iter
        .is_some_and(|v| !(1..=smartigan::MAX_N_ITER).contains(&v))
    {
        return Expect::Parameter("n_iter");
    }
    if let smartigan::NInit::Count(v) = p.n_init {
        if !(1..=smartigan::MAX_N_INIT).contains(&v) {
            return Expect::Parameter("n_init");
        }
    }
    if !(start.is_finite() && end.is_finite() && end > 0.0 && start >= end) {
        return Expect::Parameter("schedule");
    }
    if p.tol.is_some_and(|t| !(t.is_finite() && t >= 0.0)) {
        return Expect::Parameter("tol");
    }
    if matches!(p.n_threads, Some(t) if t == 0 || t > smartigan::MAX_N_THREADS) {
        return Expect::Parameter("n_threads");
    }
    if let Init::Centroids(c) = &p.init {
        if c.nrows() != p.k {
            return Expect::Shape("init");
        }
        if c.iter().any(|v| !v.is_finite()) {
            return Expect::NonFinite("init");
        }
    }
    if n == 0 || d == 0 {
        return Expect::Shape("x");
    }
    if p.k > n {
        return Expect::Parameter("k");
    }
    if let Init::Centroids(c) = &p.init {
        if c.ncols() != d {
            return Expect::Shape("init");
        }
    }
    if x.iter().any(|v| !v.to_f64().is_finite()) {
        return Expect::NonFinite("x");
    }
    Expect::Ok
}

/// Labels in range, no empty cluster, centroids the means (to the input
/// type's precision), objective finite and equal to the recomputed one.
fn check_clustering<T: Scalar>(x: ArrayView2<'_, T>, p: &Params, c: &Clustering<T>, eps: f64) {
    let (n, d) = x.dim();
    let k = p.k;
    assert_eq!(c.labels.len(), n);
    assert_eq!(c.centroids.dim(), (k, d));
    let n_init = c.restart_objectives.len();
    if let smartigan::NInit::Count(count) = p.n_init {
        assert_eq!(n_init, count);
    }
    assert!(c.best_restart < n_init);
    assert_eq!(c.restart_objectives[c.best_restart], c.objective);
    assert_eq!(c.history.len(), c.n_sweeps);
    assert_eq!(c.moves.len(), c.n_sweeps);
    let mut counts = vec![0usize; k];
    let mut sums = vec![0.0f64; k * d];
    let mut mean = vec![0.0f64; d];
    for row in x.rows() {
        for (m, v) in mean.iter_mut().zip(row) {
            *m += v.to_f64() / n as f64;
        }
    }
    let mut spread = 0.0f64;
    for (row, &l) in x.rows().into_iter().zip(&c.labels) {
        assert!(l < k, "label {l} out of range 0..{k}");
        counts[l] += 1;
        for ((s, v), m) in sums[l * d..(l + 1) * d].iter_mut().zip(row).zip(&mean) {
            *s += v.to_f64() - m;
            spread = spread.max((v.to_f64() - m).abs());
        }
    }
    assert!(counts.iter().all(|&c| c > 0), "empty cluster: {counts:?}");
    for j in 0..k {
        for col in 0..d {
            let want = sums[j * d + col] / counts[j] as f64 + mean[col];
            let got = c.centroids[[j, col]].to_f64();
            let tol = eps * (want.abs() + spread) * 4.0 + 1e-9 * spread;
            assert!(
                (got - want).abs() <= tol,
                "centroid ({j}, {col}) = {got}, mean {want}"
            );
        }
    }
    let mut obj = 0.0;
    for (row, &l) in x.rows().into_iter().zip(&c.labels) {
        for (v, m) in row.iter().zip(c.centroids.row(l)) {
            let t = v.to_f64() - m.to_f64();
            obj += t * t;
        }
    }
    assert!(c.objective.is_finite() && c.objective >= 0.0);
    assert!(
        (obj - c.objective).abs() <= 1e-9 * obj + f64::MIN_POSITIVE,
        "objective {} vs recomputed {obj}",
        c.objective
    );
}

/// A clustering whose centroids are `centroids`, whatever their shape and
/// values: a one-point fit with its centroids replaced (`predict` and
/// `transform` read nothing else).
fn with_centroids<T: Scalar>(centroids: Array2<T>) -> Clustering<T> {
    let one = Array2::from_elem((1, 1), T::from_f64(0.0));
    let p = Params::new(1).seed(0).n_threads(1).check().unwrap();
    let mut c = p.fit(&one).unwrap();
    c.centroids = centroids;
    c
}

/// Returns whether `fit` succeeded.
fn exercise<T: Scalar + PartialEq>(
    x: ArrayView2<'_, T>,
    p: Params,
    b: &mut Bytes<'_>,
    eps: f64,
) -> bool {
    let want = expected(x, &p);
    let valid = p.clone().check();
    let got = valid.clone().and_then(|v| v.fit(x));
    match &got {
        Ok(c) => {
            assert_eq!(want, Expect::Ok, "fit accepted an invalid input");
            check_clustering(x, &p, c, eps);
        }
        Err(e) => {
            let kind = error_kind(e);
            // Finite data too spread out for squared distances to stay
            // finite is the one rejection the oracle leaves to the engine.
            let range = kind == Expect::Parameter("x")
                && want == Expect::Ok
                && x.iter().any(|v| v.to_f64().abs() > 1e100);
            assert!(range || kind == want, "{e}: expected {want:?}");
        }
    }
    // The step-wise run must agree with fit, bit for bit.
    match valid.and_then(|v| v.run(x)) {
        Ok(mut run) => {
            let mut steps = 0usize;
            while run.step(x).unwrap_or(false) {
                steps += 1;
                assert!(steps <= 20 * smartigan::MAX_POLISH_SWEEPS, "no end");
            }
            let current = run.current(x);
            assert_eq!(current.as_ref().ok(), got.as_ref().ok());
            let other = Array2::<T>::from_elem((x.nrows() + 1, x.ncols()), T::from_f64(0.0));
            assert!(run.step(other.view()).is_err());
            assert!(run.current(other.view()).is_err());
        }
        // (Compared as text: a NaN in the error is not equal to itself.)
        Err(e) => assert_eq!(
            Some(e.to_string()),
            got.as_ref().err().map(|e| e.to_string())
        ),
    }
    // predict/transform against centroids of a fuzzed shape.
    let rows = b.below(5);
    let cols = if b.1 && b.u8().is_multiple_of(4) {
        b.below(5)
    } else {
        x.ncols()
    };
    let c = with_centroids(b.matrix(rows, cols).mapv(T::from_f64));
    let ok = rows > 0
        && cols > 0
        && cols == x.ncols()
        && x.iter()
            .chain(c.centroids.iter())
            .all(|v| v.to_f64().is_finite());
    let labels = c.predict(x);
    let dist = c.transform(x);
    assert_eq!(labels.is_ok(), ok, "predict: {labels:?}");
    assert_eq!(dist.is_ok(), ok, "transform: {dist:?}");
    if let (Ok(labels), Ok(dist)) = (labels, dist) {
        assert_eq!(dist.dim(), (x.nrows(), rows));
        assert!(labels.iter().all(|&l| l < rows));
    }
    got.is_ok()
}

/// One fuzz case; returns whether `fit` accepted it (for statistics).
pub fn run(data: &[u8]) -> bool {
    let mut b = Bytes(data, false);
    b.1 = b.u8() % 4 == 0;
    let wild = b.1;
    let n = b.below(40) + usize::from(!wild);
    let d = b.below(6) + usize::from(!wild);
    let k = if wild { b.below(n + 3) } else { 1 + b.below(n) };
    let x = b.matrix(n, d);
    let method = Method::ALL[b.below(3)];
    let init = match b.u8() % 5 {
        0 => Init::RandomPartition,
        1 => Init::Forgy,
        2 => Init::KMeansPlusPlus,
        3 => {
            let rows = if wild && b.u8() % 4 == 0 {
                b.below(6)
            } else {
                k
            };
            let cols = if wild && b.u8() % 4 == 0 {
                b.below(6)
            } else {
                d
            };
            Init::Centroids(b.matrix(rows, cols))
        }
        _ => Init::Centroids(x.slice(s![..k.min(n), ..]).to_owned()),
    };
    let schedule = match b.u8() % 4 {
        0 if wild => (b.value(1.0), b.value(1.0)),
        _ => (
            1.0 + f64::from(b.u8()) / 64.0,
            0.5 + f64::from(b.u8()) / 256.0,
        ),
    };
    let n_iter = b.below(20) + usize::from(!wild);
    let p = Params::new(k)
        .method(method)
        .init(init)
        .n_init(b.below(4) + usize::from(!wild))
        .schedule(schedule.0, schedule.1)
        .polish(b.u8() % 4 != 0)
        .refine(b.u8() % 2 == 0)
        .seed(b.u64());
    // Also the default (`None`: chosen by the problem's size).
    let tol = match b.u8() % 8 {
        0 if wild => Some(b.value(1.0)),
        1 => Some(1e-4),
        2 => Some(1.0),
        3 => None,
        _ => Some(0.0),
    };
    // Also the default (`None`: the method's own schedule or cap).
    let n_iter = (b.u8() % 4 != 0).then_some(n_iter);
    let n_threads = match b.u8() % 8 {
        0 => None,
        1 if wild => Some(0),
        2 if wild => Some(smartigan::MAX_N_THREADS + 1),
        t => Some(usize::from(t % 4) + 1),
    };
    let p = p.tol(tol).n_iter(n_iter).n_threads(n_threads);
    let layout = b.u8() % 3;
    let as_f32 = b.u8() % 3 == 0;
    // The same values in three layouts: C order, Fortran order, and a
    // strided view into a larger array.
    let fortran = x.t().as_standard_layout().into_owned();
    let mut wide = Array2::zeros((n, 2 * d));
    wide.slice_mut(s![.., ..;2]).assign(&x);
    let view = match layout {
        0 => x.view(),
        1 => fortran.t(),
        _ => wide.slice(s![.., ..;2]),
    };
    if as_f32 {
        let x32 = view.mapv(|v| v as f32);
        exercise(x32.view(), p, &mut b, f64::from(f32::EPSILON))
    } else {
        exercise(view, p, &mut b, f64::EPSILON)
    }
}
