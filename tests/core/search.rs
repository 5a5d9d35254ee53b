//! The searches of `n_init` ("auto": restarts by work; "best": a population
//! and its children; "fast": one descent): deterministic for any thread
//! count, the same step by step, and never worse than the restarts they
//! start with.

use crate::common::{assert_hartigan_stable, blobs, check_result, Csr};
use ndarray::{Array1, Array2};
use smartigan::rng::Xoshiro256PlusPlus;
use smartigan::{defaults, Dataset, Method, Metric, NInit, Params};

/// Overlapping blobs at a `k` above their number: many local optima.
fn overlapping() -> Array2<f64> {
    blobs(1500, 3, 9, 1.3, 11)
}

#[test]
fn every_search_is_the_same_for_any_thread_count() {
    let x = overlapping();
    let w = Array1::from_shape_fn(x.nrows(), |i| 0.5 + (i % 5) as f64);
    for n_init in [NInit::Auto, NInit::Best, NInit::Fast] {
        for weighted in [false, true] {
            let p = Params::new(14).n_init(n_init).seed(5);
            let data = Dataset::new(&x).maybe_weights(weighted.then(|| w.view()));
            let one = p.clone().n_threads(1).check().unwrap().fit(data).unwrap();
            for threads in [2, 3, 8] {
                let other = p.clone().n_threads(threads).check().unwrap();
                assert_eq!(other.fit(data).unwrap(), one, "{n_init} {threads} threads");
            }
        }
    }
}

/// The best-effort search starts with ten restarts, the restarts of
/// `n_init = 10` bit for bit, and keeps the lowest of everything it finds.
#[test]
fn the_best_effort_search_never_ends_above_its_restarts() {
    let x = overlapping();
    for method in Method::ALL {
        let p = Params::new(14).method(method).seed(2);
        let ten = p.clone().n_init(10).check().unwrap().fit(&x).unwrap();
        let best = p
            .clone()
            .n_init(NInit::Best)
            .check()
            .unwrap()
            .fit(&x)
            .unwrap();
        assert_eq!(
            best.restart_objectives[..10],
            ten.restart_objectives[..],
            "{method}"
        );
        assert!(best.objective <= ten.objective, "{method}");
        let children = best.restart_objectives.len() - 10;
        assert!(
            children >= 8 && children % 8 == 0,
            "{method}: {children} children"
        );
        assert_eq!(best.restart_objectives[best.best_restart], best.objective);
        check_result(x.view(), 14, &best, 1e-9);
        if method != Method::Lloyd {
            assert_hartigan_stable(x.view(), &best);
        }
    }
}

/// Gaussian blobs (Box–Muller from the crate's own stream): `n` points in
/// `d` dimensions around `centres` uniform centres in [0, 5]^d.
fn gaussian_blobs(n: usize, d: usize, centres: usize, sigma: f64, seed: u64) -> Array2<f64> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let c: Vec<f64> = (0..centres * d).map(|_| rng.unit_f64() * 5.0).collect();
    Array2::from_shape_fn((n, d), |(i, j)| {
        let (u, v) = (rng.unit_f64().max(f64::MIN_POSITIVE), rng.unit_f64());
        let z = (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos();
        c[(i % centres) * d + j] + sigma * z
    })
}

/// Fifty groups in the plane clustered into thirty: restarts end in many
/// near-equal optima, and the children find lower ones than ten restarts.
#[test]
fn children_improve_on_many_groups() {
    let x = gaussian_blobs(2000, 2, 50, 0.3, 1);
    let mut lowered = 0;
    for seed in 0..3 {
        let p = Params::new(30).seed(seed);
        let ten = p.clone().n_init(10).check().unwrap().fit(&x).unwrap();
        let best = p.n_init(NInit::Best).check().unwrap().fit(&x).unwrap();
        assert!(best.objective <= ten.objective);
        if best.best_restart >= 10 && best.objective < ten.objective * (1.0 - 1e-4) {
            lowered += 1;
        }
    }
    assert!(
        lowered >= 2,
        "children lowered the objective at {lowered} of 3 seeds"
    );
}

/// Step by step, a run makes the fit's search: the same candidates, the
/// same result, on dense and on sparse rows.
#[test]
fn a_step_wise_search_is_the_fit() {
    let x = overlapping().mapv(|v| if v < 1.0 { 0.0 } else { v });
    let csr = Csr::from_dense(&x);
    for n_init in [NInit::Auto, NInit::Best] {
        let p = Params::new(12).n_init(n_init).seed(4).check().unwrap();
        let mut run = p.run(&x).unwrap();
        while run.step(&x).unwrap() {}
        assert_eq!(
            run.current(&x).unwrap(),
            p.fit(&x).unwrap(),
            "{n_init} dense"
        );
        let mut run = p.run(csr.view()).unwrap();
        while run.step(csr.view()).unwrap() {}
        let fit = p.fit(csr.view()).unwrap();
        assert_eq!(run.current(csr.view()).unwrap(), fit, "{n_init} sparse");
    }
}

/// "auto" starts with restarts 0, 1, …, 3 (those of `n_init = 4`, bit for
/// bit) and goes on with children while its budget allows, on a small
/// problem; a large one runs the one restart of `n_init = 1` first.
#[test]
fn auto_runs_restarts_then_children_within_its_budget() {
    let x = overlapping();
    for method in Method::ALL {
        let p = Params::new(14).method(method).seed(9);
        let auto = p.clone().check().unwrap().fit(&x).unwrap();
        let four = p.clone().n_init(4).check().unwrap().fit(&x).unwrap();
        assert_eq!(
            auto.restart_objectives[..4],
            four.restart_objectives[..],
            "{method}"
        );
        assert!(auto.restart_objectives.len() > 4, "{method}: children ran");
        assert!(auto.objective <= four.objective, "{method}");
    }
    let large = blobs(40_000, 8, 16, 1.0, 6);
    let p = Params::new(16).method(Method::Hartigan).seed(1);
    let auto = p.clone().check().unwrap().fit(&large).unwrap();
    let one = p.n_init(1).check().unwrap().fit(&large).unwrap();
    assert_eq!(auto.restart_objectives[0], one.objective);
    if auto.best_restart == 0 {
        assert_eq!(auto.labels, one.labels);
    }
}

/// Large problems of 40,000 rows, k = 16: `n_init = "auto"` descends a
/// candidate on a sample of an eighth of the rows beside its first restart
/// (`defaults::sample_rows`), the restart of `n_init = 1`. The result is the
/// lowest candidate, the same for any thread count, dense or sparse, and
/// the same step by step (when the search goes on is tested on the search
/// itself, in `src/fit/search.rs`).
#[test]
fn a_large_fit_descends_a_candidate_on_a_sample_beside_its_first_restart() {
    assert_eq!(smartigan::defaults::sample_rows(40_000, 8, 16), Some(5_000));
    let separated = blobs(40_000, 8, 16, 1.0, 6);
    let overlapping = blobs(40_000, 8, 24, 3.0, 7);
    for (x, seed) in [(&separated, 1), (&overlapping, 3)] {
        let p = Params::new(16).seed(seed);
        let one = p.clone().n_threads(1).check().unwrap();
        let r = one.fit(x).unwrap();
        let first = p.clone().n_init(1).check().unwrap().fit(x).unwrap();
        let o = &r.restart_objectives;
        assert!(o.len() >= 2);
        assert_eq!(o[0], first.objective);
        let lowest = o.iter().copied().fold(f64::INFINITY, f64::min);
        assert_eq!(r.objective, lowest);
        assert_eq!(r.objective, o[r.best_restart]);
        check_result(x.view(), 16, &r, 1e-9);
        let two = p.clone().n_threads(2).check().unwrap();
        assert_eq!(two.fit(x).unwrap(), r, "two threads");
        let mut run = one.run(x).unwrap();
        while run.step(x).unwrap() {}
        assert_eq!(run.current(x).unwrap(), r, "step by step");
        let csr = Csr::from_dense(x);
        let sparse = one.fit(csr.view()).unwrap();
        assert!(sparse.restart_objectives.len() >= 2);
        assert!((sparse.restart_objectives[0] - o[0]).abs() <= 1e-9 * o[0]);
    }
}

/// Many rows per cluster on a large problem (40,000 x 64, k = 8: an eighth
/// of the rows holds 625 a cluster, `n·d·k` above `2^24`): `n_init = "auto"`
/// searches a sample and descends its best once on all rows, which is the
/// fit's one candidate: a clustering of all rows (means of its labels, its
/// objective theirs), the same for any thread count and step by step, and
/// on overlapping clusters lower than the one restart on all rows that the
/// default ran before.
#[test]
fn many_rows_per_cluster_are_searched_on_a_sample_and_descended_once() {
    assert!(defaults::sample_searched(40_000, 64, 8));
    assert_eq!(defaults::sample_rows(40_000, 64, 8), Some(5_000));
    // 12 overlapping groups for 8 clusters: several local optima.
    let x = blobs(40_000, 64, 12, 4.0, 21);
    let mut lower = 0;
    for seed in 0..3 {
        let p = Params::new(8).seed(seed);
        let one = p.clone().n_threads(1).check().unwrap();
        let r = one.fit(&x).unwrap();
        assert_eq!(r.restart_objectives.len(), 1);
        assert_eq!(r.restart_objectives[0], r.objective);
        check_result(x.view(), 8, &r, 1e-9);
        let two = p.clone().n_threads(2).check().unwrap();
        assert_eq!(two.fit(&x).unwrap(), r, "two threads");
        let mut run = one.run(&x).unwrap();
        while run.step(&x).unwrap() {}
        assert_eq!(run.current(&x).unwrap(), r, "step by step");
        let restart = p.n_init(1).check().unwrap().fit(&x).unwrap();
        lower += usize::from(r.objective < restart.objective);
    }
    assert!(
        lower >= 2,
        "the sample's search ended lower on {lower} of 3 seeds"
    );
}

/// A weighted sample that cannot carry `k` clusters (fewer than `k` rows of
/// positive weight) seeds no candidate: the fit runs as without one.
#[test]
fn a_sample_without_k_weighted_rows_seeds_no_candidate() {
    let x = blobs(40_000, 8, 16, 1.0, 6);
    // 20 rows of weight 1 among 40,000: a sample of 5,000 holds a few.
    let w = Array1::from_shape_fn(x.nrows(), |i| if i % 2_000 == 0 { 1.0 } else { 0.0 });
    let data = Dataset::new(&x).weights(w.view());
    let p = Params::new(16).seed(1);
    let r = p.clone().check().unwrap().fit(data).unwrap();
    // Candidate 1 is then the second fresh restart, that of `n_init = 2`.
    let two = p.n_init(2).check().unwrap().fit(data).unwrap();
    let m = r.restart_objectives.len().min(2);
    assert_eq!(r.restart_objectives[..m], two.restart_objectives[..m]);
}

/// The generations of an "auto" search replayed from its candidates'
/// objectives: after each generation of four children (and after the last
/// one, which the budget may have cut short), the candidates run,
/// the children in a row that have not lowered the best objective (by more
/// than a relative `1e-9`) and the index of the candidate that last did.
fn stalls(objectives: &[f64]) -> Vec<(usize, usize, usize)> {
    let (mut best, mut lowered_at, mut stall) = (f64::INFINITY, 0, 0);
    let mut generations = Vec::new();
    for (index, &o) in objectives.iter().enumerate() {
        let lowered = o < best * (1.0 - 1e-9);
        best = best.min(o);
        if lowered {
            lowered_at = index;
        }
        if index >= 4 {
            stall = if lowered { 0 } else { stall + 1 };
            if (index - 3) % 4 == 0 || index + 1 == objectives.len() {
                generations.push((index + 1, stall, lowered_at));
            }
        }
    }
    generations
}

/// Where "auto" ends on a stall: on a problem whose budget's sixteenth is
/// spent within its first children, after the first generation at which
/// at least 12 children in a row have lowered nothing and at least as many
/// as the candidates before the one that last lowered the best (else its
/// budget ended it, with no such generation before). On the smallest
/// problems, where that sixteenth holds dozens of children, it goes on to a
/// stall of 48.
#[test]
fn auto_ends_on_a_stall_as_long_as_the_search_before_its_best() {
    let short = |&(_, stall, lowered_at): &(usize, usize, usize)| stall >= 12.max(lowered_at);
    let x = overlapping();
    let mut stalled = 0;
    for seed in 0..6 {
        let fit = Params::new(14).seed(seed).check().unwrap().fit(&x).unwrap();
        let generations = stalls(&fit.restart_objectives);
        let (last, rest) = generations.split_last().expect("children ran");
        assert_eq!(last.0, fit.restart_objectives.len(), "seed {seed}");
        assert!(
            !rest.iter().any(short),
            "seed {seed}: went on after a stall: {generations:?}"
        );
        stalled += usize::from(short(last));
    }
    assert!(stalled >= 4, "{stalled} of 6 searches ended on a stall");
    let tiny = blobs(150, 4, 6, 1.3, 2);
    let mut went_on = 0;
    for seed in 0..4 {
        let fit = Params::new(20)
            .seed(seed)
            .check()
            .unwrap()
            .fit(&tiny)
            .unwrap();
        let generations = stalls(&fit.restart_objectives);
        let (last, rest) = generations.split_last().expect("children ran");
        assert!(last.1 >= 48, "seed {seed}: {generations:?}");
        assert!(
            rest.iter().all(|g| g.1 < 48),
            "seed {seed}: {generations:?}"
        );
        went_on += usize::from(rest.iter().any(short));
    }
    assert!(
        went_on >= 2,
        "{went_on} of 4 tiny searches went on past a short stall"
    );
}

/// Where the four restarts of "auto" end at one optimum (well-separated
/// blobs, k their number: a solved problem) it ends there, with the fit of
/// `n_init = 4` bit for bit; where they disagree (the test above) children
/// run.
#[test]
fn auto_ends_where_its_restarts_agree() {
    let x = blobs(2_000, 4, 6, 0.05, 3);
    for method in Method::ALL {
        let p = Params::new(6).method(method).seed(4);
        let auto = p.clone().check().unwrap().fit(&x).unwrap();
        let four = p.n_init(4).check().unwrap().fit(&x).unwrap();
        let lowest = four.objective;
        assert!(
            four.restart_objectives
                .iter()
                .all(|&o| (o - lowest).abs() <= 1e-9 * lowest),
            "{method}: {:?}",
            four.restart_objectives
        );
        assert_eq!(auto, four, "{method}");
    }
}

/// Where size bounds bind, "auto" is `bounded_restarts` independent
/// restarts, those of that `n_init` bit for bit: ten on a small problem,
/// fewer as a pass grows.
#[test]
fn auto_with_binding_bounds_runs_the_bounded_restarts() {
    for (n, d, k) in [(300, 3, 6), (20_000, 32, 100)] {
        let x = blobs(n, d, k, 1.2, 4);
        let p = Params::new(k).balanced().seed(3);
        let auto = p.clone().check().unwrap().fit(&x).unwrap();
        let count = smartigan::defaults::bounded_restarts(n, d, k);
        assert_eq!(auto.restart_objectives.len(), count, "{n} x {d}, k = {k}");
        assert_eq!(auto, p.n_init(count).check().unwrap().fit(&x).unwrap());
    }
    assert_eq!(smartigan::defaults::bounded_restarts(300, 3, 6), 10);
    assert_eq!(smartigan::defaults::bounded_restarts(20_000, 32, 100), 4);
}

/// A bounded fit (its restarts, the blocks of its sweeps, the cost pass of
/// its assignment steps, the check) gives the same result on any number
/// of threads, with weights and on both objectives.
#[test]
fn a_bounded_fit_is_the_same_for_any_thread_count() {
    let x = blobs(2_000, 6, 12, 1.3, 8);
    let w = Array1::from_shape_fn(x.nrows(), |i| 0.5 + (i % 4) as f64);
    for metric in [smartigan::Metric::Euclidean, smartigan::Metric::Cosine] {
        let p = Params::new(12).balanced().metric(metric).seed(2);
        let data = Dataset::new(&x).weights(w.view());
        let one = p.clone().n_threads(1).check().unwrap().fit(data).unwrap();
        for threads in [2, 3, 8] {
            let other = p.clone().n_threads(threads).check().unwrap();
            assert_eq!(
                other.fit(data).unwrap(),
                one,
                "{metric:?} {threads} threads"
            );
        }
    }
}

/// `n_init = "fast"` is one restart of the exact rule without refinement:
/// Smartigan's and Hartigan's are the Hartigan restart 0 of
/// `n_init = 1, refine = false` bit for bit, Lloyd's its Lloyd restart, at
/// [`defaults::FAST_TOL`] on a larger problem unless a `tol` is given.
#[test]
fn the_fast_setting_is_one_exact_descent_without_refinement() {
    // n·d·k = 6,000 · 12 · 16 > 2^20: a larger problem.
    let x = blobs(6_000, 12, 10, 1.3, 4);
    let k = 16;
    assert_eq!(defaults::fast_tol(6_000, 12, k), defaults::FAST_TOL);
    for method in Method::ALL {
        let rule = if method == Method::Lloyd {
            Method::Lloyd
        } else {
            Method::Hartigan
        };
        for tol in [None, Some(0.0)] {
            let fast = Params::new(k)
                .method(method)
                .n_init(NInit::Fast)
                .tol(tol)
                .seed(8);
            let got = fast.clone().check().unwrap().fit(&x).unwrap();
            let one = Params::new(k)
                .method(rule)
                .n_init(1)
                .refine(false)
                .tol(tol.unwrap_or(defaults::FAST_TOL))
                .seed(8);
            let want = one.check().unwrap().fit(&x).unwrap();
            assert_eq!(got, want, "{method} tol {tol:?}");
            assert_eq!(got.restart_objectives.len(), 1, "{method}");
            assert_eq!(got.refinements, 0, "{method}");
            check_result(x.view(), k, &got, 1e-9);
            if method != Method::Lloyd && tol == Some(0.0) {
                assert_hartigan_stable(x.view(), &got);
            }
        }
        // The same by cosine: the setting lives in the parameters, not in
        // one objective's sweeps.
        let cosine = |m: Method, n_init: NInit, refine: bool, tol: Option<f64>| {
            let p = Params::new(k)
                .metric(Metric::Cosine)
                .method(m)
                .n_init(n_init);
            let p = p.refine(refine).tol(tol).seed(8);
            p.check().unwrap().fit(&x).unwrap()
        };
        assert_eq!(
            cosine(method, NInit::Fast, true, None),
            cosine(rule, NInit::Count(1), false, Some(defaults::FAST_TOL)),
            "{method} cosine"
        );
        // `n_iter` caps the sweeps of every method's fast descent.
        let capped = |m: Method| {
            let p = Params::new(k)
                .method(m)
                .n_init(NInit::Fast)
                .n_iter(3)
                .seed(8);
            p.check().unwrap().fit(&x).unwrap()
        };
        let got = capped(method);
        assert_eq!(got, capped(rule), "{method}");
        assert_eq!(got.n_sweeps, 3, "{method}");
        // With binding size bounds too: the bounded descent of the rule.
        if method != Method::Lloyd {
            let balanced = |m: Method, n_init: NInit, tol: Option<f64>| {
                let p = Params::new(k)
                    .method(m)
                    .n_init(n_init)
                    .tol(tol)
                    .balanced()
                    .seed(8);
                p.check().unwrap().fit(&x).unwrap()
            };
            let got = balanced(method, NInit::Fast, None);
            let want = balanced(Method::Hartigan, NInit::Count(1), Some(defaults::FAST_TOL));
            assert_eq!(got, want, "{method} balanced");
        }
        // Refinement asked for is still not run: fast is one descent.
        let asked = Params::new(k)
            .method(method)
            .n_init(NInit::Fast)
            .refine(true)
            .seed(8);
        let plain = Params::new(k).method(method).n_init(NInit::Fast).seed(8);
        assert_eq!(
            asked.check().unwrap().fit(&x).unwrap(),
            plain.check().unwrap().fit(&x).unwrap(),
            "{method}"
        );
    }
}

/// On a larger problem the fast descent is the start of the full Hartigan
/// descent (the same start and visiting orders) cut short by its
/// tolerance: fewer sweeps, no lower an objective; on these overlapping
/// blobs the default's refined search ends lower still.
#[test]
fn the_fast_setting_ends_at_or_above_the_default() {
    let x = blobs(6_000, 12, 10, 1.3, 4);
    let fast = Params::new(16).n_init(NInit::Fast).seed(3);
    let fast = fast.check().unwrap().fit(&x).unwrap();
    let auto = Params::new(16).seed(3).check().unwrap().fit(&x).unwrap();
    let full = Params::new(16)
        .method(Method::Hartigan)
        .n_init(1)
        .refine(false)
        .tol(0.0)
        .seed(3);
    let full = full.check().unwrap().fit(&x).unwrap();
    assert!(auto.objective <= fast.objective);
    assert!(full.objective <= fast.objective);
    assert!(
        fast.n_sweeps < full.n_sweeps,
        "{} {}",
        fast.n_sweeps,
        full.n_sweeps
    );
}
