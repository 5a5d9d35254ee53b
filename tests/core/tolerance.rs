//! `tol`: a descent step that lowers the objective by at most `tol` times the
//! objective ends the descent.

use crate::common::{blobs, check_result};
use ndarray::Array2;
use smartigan::{defaults, Clustering, CsrView, Error, Init, Method, Params};

/// Overlapping blobs from random partitions: many steps, the last ones
/// moving the centroids very little.
fn slow_data() -> Array2<f64> {
    blobs(3000, 4, 12, 1.6, 5)
}

fn base(method: Method) -> Params {
    Params::new(12)
        .method(method)
        .init(Init::RandomPartition)
        .n_init(1)
        .refine(false)
        .seed(11)
}

fn fitted(x: &Array2<f64>, p: Params) -> Clustering<f64> {
    p.check().unwrap().fit(x).unwrap()
}

#[test]
fn tolerance_stops_lloyd_and_hartigan_at_the_first_small_step() {
    let x = slow_data();
    let tol = 1e-4;
    for method in [Method::Lloyd, Method::Hartigan] {
        let full = fitted(&x, base(method));
        let early = fitted(&x, base(method).tol(tol));
        check_result(x.view(), 12, &early, 1e-12);
        assert!(
            early.converged,
            "{method}: a tolerance stop is a convergence"
        );
        let s = early.n_sweeps;
        assert!(
            s < full.n_sweeps,
            "{method}: tol did not stop early ({s} vs {})",
            full.n_sweeps
        );
        // The same steps as without a tolerance, up to the stop.
        assert_eq!(early.history[..], full.history[..s], "{method}");
        assert!(
            *early.moves.last().unwrap() > 0,
            "{method}: stopped by tol, not by stability"
        );
        // The criterion itself: the last step lowered the objective by at
        // most tol times the objective, every step before it by more.
        let objectives: Vec<f64> = std::iter::once(early.initial_objective)
            .chain(early.history.iter().copied())
            .collect();
        let gains: Vec<f64> = objectives
            .windows(2)
            .map(|w| (w[0] - w[1]) / w[1])
            .collect();
        assert!(gains[s - 1] <= tol, "{method}: {gains:?}");
        assert!(
            gains[..s - 1].iter().all(|&g| g > tol),
            "{method}: {gains:?}"
        );
    }
}

#[test]
fn tolerance_leaves_smartigan_schedule_alone() {
    let x = slow_data();
    // A tolerance nothing can fail ends the descent after the first
    // polishing sweep, never inside the schedule.
    let p = base(Method::Smartigan).n_iter(6).polish(true).tol(1e9);
    let r = fitted(&x, p);
    assert!(
        r.moves[..6].iter().all(|&m| m > 0),
        "schedule sweeps moved nothing: {:?}",
        r.moves
    );
    assert_eq!(r.n_sweeps, 7, "{:?}", r.moves);
    assert!(r.converged);
    let untouched = fitted(&x, base(Method::Smartigan).n_iter(6).polish(true));
    assert_eq!(r.history[..], untouched.history[..7]);
}

#[test]
fn tolerance_also_ends_refinement_trials() {
    // Refinement trials re-converge with the method's steps; with a
    // tolerance no step can fail, the descent ends after its first sweep and
    // every candidate after one step: each refinement step is then a new
    // candidate, kept (`refinements`) or the one rejection that ends it.
    let x = slow_data();
    let r = fitted(&x, base(Method::Hartigan).refine(true).tol(1e9));
    check_result(x.view(), 12, &r, 1e-12);
    assert!(r.converged);
    let refine_steps = r.n_sweeps - 1;
    assert!(refine_steps >= 1, "no refinement step");
    assert!(
        refine_steps <= r.refinements + 1,
        "{refine_steps} refinement steps for {} kept candidates",
        r.refinements
    );
}

#[test]
fn sparse_tolerance_stops_where_dense_does() {
    // The rule reads only objectives, which sparse input computes as dense
    // input does: the stop lands at the same step.
    let x = slow_data().mapv(|v| v.max(0.0));
    let (mut indptr, mut indices, mut data) = (vec![0], vec![], vec![]);
    for row in x.rows() {
        for (j, &v) in row.iter().enumerate() {
            if v != 0.0 {
                indices.push(j);
                data.push(v);
            }
        }
        indptr.push(data.len());
    }
    let csr = CsrView::new(x.ncols(), &indptr, &indices, &data).unwrap();
    let p = base(Method::Lloyd).tol(1e-4).check().unwrap();
    let dense = p.fit(&x).unwrap();
    let sparse = p.fit(csr).unwrap();
    assert_eq!(sparse.labels, dense.labels);
    assert_eq!(sparse.n_sweeps, dense.n_sweeps);
    let exact = base(Method::Lloyd).tol(0.0).check().unwrap();
    let full = exact.fit(csr).unwrap();
    assert!(sparse.n_sweeps < full.n_sweeps);
}

#[test]
fn tolerance_must_be_finite_and_non_negative() {
    for bad in [-1e-4, f64::NAN, f64::INFINITY] {
        let e = base(Method::Lloyd).tol(bad).check().unwrap_err();
        assert!(
            matches!(e, Error::InvalidParameter { name: "tol", .. }),
            "{e:?}"
        );
        assert!(e.to_string().contains("tol"), "{e}");
    }
    assert_eq!(Params::new(2).tol, None, "default: chosen by size");
}

#[test]
fn default_tolerance_depends_on_the_problem_size() {
    // Small problems (every paper cell) descend until nothing moves.
    assert_eq!(defaults::tol(150, 4, 3), 0.0);
    let (n, d, k) = (3000, 4, 12);
    assert!(n * d * k <= 1 << 20);
    let x = slow_data();
    let p = Params::new(k).init(Init::RandomPartition).seed(11);
    assert_eq!(fitted(&x, p.clone()), fitted(&x, p.tol(0.0)));
    // Above the threshold the default is 2e-5, the same result as asking
    // for it.
    let (n, d, k) = (20_000, 8, 12);
    assert!(n * d * k > 1 << 20);
    assert_eq!(defaults::tol(n, d, k), 2e-5);
    let x = blobs(n, d, k, 1.6, 5);
    let p = Params::new(k).method(Method::Hartigan).seed(3).n_init(1);
    let auto = fitted(&x, p.clone());
    let explicit = fitted(&x, p.clone().tol(2e-5));
    assert_eq!(auto, explicit);
    let exact = fitted(&x, p.tol(0.0));
    assert!(exact.n_sweeps >= auto.n_sweeps);
}
