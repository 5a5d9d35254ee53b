//! Property tests (proptest) of the path of solutions over a range of `k`
//! (issue 30): on random shapes, data, weights and parameters, the
//! objective never rises with `k`, every `k`'s solution is a valid
//! clustering and a Hartigan local optimum, and the path does not depend
//! on the thread count.

use crate::common::{assert_hartigan_stable, cases, check_result, data, grid};
use ndarray::{Array1, Array2};
use proptest::prelude::*;
use smartigan::rng::Xoshiro256PlusPlus;
use smartigan::{Control, Dataset, Error, Method, Params, Path, PathKeep, Progress};
use std::sync::atomic::AtomicBool;

fn method() -> impl Strategy<Value = Method> {
    prop_oneof![
        Just(Method::Lloyd),
        Just(Method::Hartigan),
        Just(Method::Smartigan)
    ]
}

/// (n, d, k_min, k_max) with 1 ≤ k_min ≤ k_max ≤ n.
fn shape() -> impl Strategy<Value = (usize, usize, usize, usize)> {
    (2usize..150, 1usize..6)
        .prop_flat_map(|(n, d)| (Just(n), Just(d), 1..=n.min(4)))
        .prop_flat_map(|(n, d, k_min)| (Just(n), Just(d), Just(k_min), k_min..=n.min(k_min + 14)))
}

fn path(
    x: &Array2<f64>,
    w: Option<&Array1<f64>>,
    ks: std::ops::RangeInclusive<usize>,
    p: Params,
) -> Path<f64> {
    let data = Dataset::new(x).maybe_weights(w.map(|w| w.view()));
    let p = p.check().unwrap();
    p.path(data, ks, PathKeep::Clusterings).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    /// In general position the objective never rises (the proof
    /// is in `src/fit/path/mod.rs`), and every `k` is a valid clustering and a
    /// Hartigan local optimum.
    #[test]
    fn the_objective_never_rises_and_every_k_is_stable(
        (n, d, k_min, k_max) in shape(),
        centres in 1usize..8,
        m in method(),
        refine in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let x = data(n, d, centres, seed);
        let p = Params::new(1).method(m).n_init(2).refine(refine).seed(seed);
        let path = path(&x, None, k_min..=k_max, p);
        prop_assert_eq!(path.ks(), (k_min..=k_max).collect::<Vec<_>>());
        let f = path.objectives();
        for (k, w) in (k_min..).zip(f.windows(2)) {
            prop_assert!(w[1] <= w[0], "objective rose from k={} to k={}: {:?}", k, k + 1, f);
        }
        for step in &path.steps {
            let c = step.clustering.as_ref().unwrap();
            check_result(x.view(), step.k, c, 1e-12);
            prop_assert!(step.converged);
            assert_hartigan_stable(x.view(), c);
        }
    }

    /// With weights, and on data full of exact duplicates (where splits
    /// gain nothing once clusters are copies of one point, and objectives
    /// are zero up to rounding, 1e-32), the objective may only rise by
    /// rounding: at most 1e-12 of `Σ w_i‖x_i‖²`, the scale of the sums.
    #[test]
    fn weighted_and_duplicated_data_never_rise_beyond_rounding(
        (n, d, k_min, k_max) in shape(),
        dupes in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let x = if dupes { grid(n, d, seed) } else { data(n, d, 3, seed) };
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 1);
        // Weights 0, 0.5, 1, 1.5 with at least k_max positive ones.
        let mut w = Array1::from_shape_fn(n, |_| rng.below(4) as f64 * 0.5);
        for v in w.iter_mut().take(k_max) {
            *v += 1.0;
        }
        let path = path(&x, Some(&w), k_min..=k_max, Params::new(1).n_init(2).seed(seed));
        let f = path.objectives();
        let scale: f64 = x.rows().into_iter().zip(&w).map(|(r, w)| w * r.dot(&r)).sum();
        for win in f.windows(2) {
            prop_assert!(win[1] <= win[0] + 1e-12 * scale, "{:?}", f);
        }
        for step in &path.steps {
            prop_assert!(step.converged);
            prop_assert_eq!(step.cluster_sizes.len(), step.k);
            prop_assert!(step.cluster_sizes.iter().all(|&s| s > 0));
        }
    }

    #[test]
    fn same_path_for_any_thread_count(
        (n, d, k_min, k_max) in shape(),
        m in method(),
        refine in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let x = data(n, d, 4, seed);
        let p = Params::new(1).method(m).n_init(3).refine(refine).seed(seed);
        let one = path(&x, None, k_min..=k_max, p.clone().n_threads(1));
        for t in [2, 3] {
            prop_assert_eq!(&path(&x, None, k_min..=k_max, p.clone().n_threads(t)), &one);
        }
    }
}

/// Above the size where `fit` stops its descents early (`tol = "auto"`), a
/// path searches at a tolerance too but finishes every `k` by sweeps until
/// no point moves: each is a Hartigan local optimum, and the objectives
/// still fall with `k`.
#[test]
fn a_large_path_ends_at_local_optima_by_default() {
    // Structureless data: long descents whose last sweeps gain little.
    let (n, d, k_min) = (40_000, 4, 8);
    assert!(smartigan::defaults::tol(n, d, k_min) > 0.0);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
    let x = Array2::from_shape_fn((n, d), |_| rng.unit_f64());
    for refine in [false, true] {
        let p = Params::new(1)
            .method(Method::Hartigan)
            .refine(refine)
            .seed(4);
        let auto = path(&x, None, k_min..=k_min + 2, p);
        for step in &auto.steps {
            assert!(step.converged);
            let c = step.clustering.as_ref().unwrap();
            assert_hartigan_stable(x.view(), c);
        }
        let f = auto.objectives();
        assert!(f.windows(2).all(|w| w[1] <= w[0]), "{f:?}");
    }
}

/// `path_with` counts its work into the control's progress (`done` reaches
/// `total` exactly when the path ends) and gives the plain path; with the
/// flag set it stops with `Error::Interrupted`.
#[test]
fn path_with_reports_progress_and_stops_on_the_flag() {
    let x = data(300, 3, 5, 1);
    for refine in [false, true] {
        let p = Params::new(1).n_init(2).refine(refine).seed(2);
        let p = p.check().unwrap();
        let progress = Progress::default();
        assert_eq!(progress.get(), (0, 0));
        let unset = AtomicBool::new(false);
        let control = Control::default().cancel(&unset).progress(&progress);
        let path = p.path_with(&x, 2..=8, PathKeep::Summaries, control);
        let (done, total) = progress.get();
        assert!(total >= 7, "{total} units for seven k");
        assert_eq!(done, total);
        assert_eq!(
            path.unwrap(),
            p.path(&x, 2..=8, PathKeep::Summaries).unwrap()
        );
        let set = AtomicBool::new(true);
        let stop = Control::default().cancel(&set);
        let e = p.path_with(&x, 2..=8, PathKeep::Summaries, stop);
        assert_eq!(e.unwrap_err(), Error::Interrupted);
    }
}
