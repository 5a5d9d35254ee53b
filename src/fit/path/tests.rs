#![allow(clippy::unwrap_used)]
use super::policy::*;
use super::*;
use crate::control::{Control, Progress};
use crate::data::{Data, Scalar};
use crate::dense::Dense;
use crate::dense::DenseState;
use crate::engine::partition::Partition;
use crate::engine::source::{Descent, Starts};
use crate::error::{Error, Result};
use crate::params::Params;
use crate::params::{defaults, Method};
use crate::rng::Xoshiro256PlusPlus;
use crate::sparse::{checked_sparse, CsrView};
use ndarray::Array2;
use ndarray::ArrayView1;
use std::ops::RangeInclusive;
use std::sync::atomic::AtomicBool;

fn never() -> AtomicBool {
    AtomicBool::new(false)
}

/// A path through the public operation, its arguments spelled out.
fn fit_path<'a, T: Scalar>(
    x: impl Into<crate::rows::Rows<'a, T>>,
    w: Option<ArrayView1<'a, f64>>,
    ks: RangeInclusive<usize>,
    p: Params,
    keep: PathKeep,
    control: Control<'_>,
) -> Result<Path<T>> {
    let data = crate::dataset::Dataset::new(x).maybe_weights(w);
    Params {
        k: (*ks.start()).max(1),
        ..p
    }
    .check()?
    .path_with(data, ks, keep, control)
}

fn dense_path(
    x: &Array2<f64>,
    w: Option<&[f64]>,
    ks: RangeInclusive<usize>,
    p: Params,
) -> Path<f64> {
    let w = w.map(ndarray::ArrayView1::from);
    fit_path(
        x.view(),
        w,
        ks,
        p,
        PathKeep::Clusterings,
        Control::default(),
    )
    .unwrap()
}

/// Whether some single point of `labels` has a Hartigan move that lowers
/// the objective beyond rounding: the stall test of `move_rule.rs`, on
/// the state the labels give.
fn dense_can_improve(x: &Array2<f64>, w: Option<&[f64]>, labels: &[usize], k: usize) -> bool {
    let rows = Data::new(x.view(), w.map(std::borrow::Cow::Borrowed));
    let partition = Partition::from_labels(&rows, k, labels.to_vec(), false);
    assert_eq!(
        partition.stats.labels, labels,
        "no cluster of the path is empty"
    );
    let p = Params::new(k).check().unwrap();
    let dense = Dense::new(rows, &p, true);
    let state = DenseState {
        partition,
        cache: Default::default(),
    };
    dense.can_improve(&state, false)
}

fn labels(step: &PathStep<f64>) -> Vec<usize> {
    step.clustering.as_ref().unwrap().labels.to_vec()
}

#[test]
fn every_k_is_a_hartigan_local_optimum() {
    let x = crate::testing::testdata::blobs(600, 3, 7, 2);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    let w: Vec<f64> = (0..600).map(|_| (rng.below(4)) as f64 * 0.5).collect();
    for method in Method::ALL {
        for weights in [None, Some(&w[..])] {
            for refine in [false, true] {
                let p = Params::new(1)
                    .method(method)
                    .refine(refine)
                    .n_init(3)
                    .seed(11);
                let path = dense_path(&x, weights, 2..=12, p);
                assert_eq!(path.ks(), (2..=12).collect::<Vec<_>>());
                for step in &path.steps {
                    let what = format!(
                        "{method} weighted {} refine {refine} k {}",
                        weights.is_some(),
                        step.k
                    );
                    assert!(step.converged, "{what}");
                    assert!(
                        !dense_can_improve(&x, weights, &labels(step), step.k),
                        "{what}"
                    );
                }
            }
        }
    }
}

#[test]
fn the_objective_falls_with_k_by_at_least_nothing() {
    let x = crate::testing::testdata::blobs(500, 4, 6, 3);
    let path = dense_path(&x, None, 1..=25, Params::new(1).seed(1));
    let f = path.objectives();
    assert!(f.windows(2).all(|w| w[1] < w[0]), "{f:?}");
    // Every step after the first was grown, came from above or (a small
    // problem) from its own fit.
    assert!(path.steps[1..]
        .iter()
        .all(|s| !matches!(s.origin, PathOrigin::Filled)));
}

#[test]
fn same_path_for_any_thread_count() {
    let x = crate::testing::testdata::blobs(3000, 5, 9, 4);
    let run = |threads| dense_path(&x, None, 3..=15, Params::new(1).seed(21).n_threads(threads));
    let one = run(1);
    assert_eq!(run(2), one);
    assert_eq!(run(3), one);
}

/// A large problem's draw at its smallest `k` (here `k` = 3, run beside
/// the search on a thread of its own) gives the same path for any
/// thread count, and that `k` ends no higher than the draw, a fit of one
/// restart.
#[test]
fn drawn_k_are_the_same_for_any_thread_count() {
    let (n, d) = (4000, 100);
    assert_eq!(fitted_ks(2, 11, false, (n, d)), (0, 1));
    let x = crate::testing::testdata::blobs(n, d, 12, 5);
    let run = |threads| dense_path(&x, None, 2..=6, Params::new(1).seed(3).n_threads(threads));
    let one = run(1);
    assert_eq!(run(2), one);
    assert_eq!(run(3), one);
    let drawn = &one.steps[1];
    let fit = Params::new(drawn.k)
        .n_init(1)
        .seed(3)
        .check()
        .unwrap()
        .fit(&x)
        .unwrap();
    assert!(drawn.objective <= fit.objective * (1.0 + 1e-9));
}

#[test]
fn the_first_k_is_the_usual_fit() {
    let x = crate::testing::testdata::blobs(400, 3, 5, 6);
    for method in [Method::Hartigan, Method::Smartigan] {
        for refine in [false, true] {
            let p = Params::new(4).method(method).refine(refine).seed(8);
            let path = dense_path(&x, None, 4..=6, p.clone());
            let fit = p.check().unwrap().fit(&x).unwrap();
            let first = &path.steps[0];
            if first.origin == PathOrigin::Fit {
                assert_eq!(first.clustering.as_ref().unwrap(), &fit, "{method}");
            } else {
                // Refinement replaces the fit only by a lower solution.
                assert!(refine && first.objective < fit.objective, "{method}");
            }
        }
    }
    // Lloyd's fit is polished: the same restarts, then Hartigan sweeps.
    let p = Params::new(4).method(Method::Lloyd).seed(8);
    let fit = p.clone().check().unwrap().fit(&x).unwrap();
    let first = dense_path(&x, None, 4..=4, p)
        .steps
        .remove(0)
        .clustering
        .unwrap();
    assert_eq!(first.history[..fit.n_sweeps], fit.history[..]);
    assert!(first.objective <= fit.objective);
    assert_eq!(
        first.restart_objectives[first.best_restart],
        first.objective
    );
}

#[test]
fn on_small_problems_no_k_is_above_its_fit() {
    let x = crate::testing::testdata::blobs(150, 4, 3, 12);
    let path = dense_path(&x, None, 2..=20, Params::new(1).seed(6));
    for step in &path.steps {
        let fit = Params::new(step.k)
            .seed(6)
            .check()
            .unwrap()
            .fit(&x)
            .unwrap();
        assert!(
            step.objective <= fit.objective * (1.0 + 1e-9),
            "k {}: {} > {}",
            step.k,
            step.objective,
            fit.objective
        );
    }
    // Without refinement the path is grown only.
    let grown = dense_path(&x, None, 2..=20, Params::new(1).seed(6).refine(false));
    assert!(grown.steps[1..]
        .iter()
        .all(|s| matches!(s.origin, PathOrigin::Split(_))));
}

/// On a large problem the fits run at every `k` when `n_init` is given,
/// and then no `k` ends above its fit; without it only at the smallest
/// `k` within [`FIT_SHARE`] ([`fitted_ks`]: here none of 8..=11,
/// searched up to 16). On these blobs (forty groups grouped at `k` =
/// 8..11) the default path ends above some two-restart fit, so the
/// first check can fail.
#[test]
fn a_given_n_init_fits_every_k_of_a_large_problem() {
    let (n, d, ks) = (8000, 20, 8..=11);
    assert!(!defaults::is_small(n, d, *ks.start()));
    assert_eq!(fitted_ks(8, 16, false, (n, d)), (0, 0));
    let x = crate::testing::testdata::blobs(n, d, 40, 3);
    let fitted: Vec<f64> = ks
        .clone()
        .map(|k| {
            let p = Params::new(k).n_init(2).seed(4);
            p.check().unwrap().fit(&x).unwrap().objective
        })
        .collect();
    let above = |path: &Path<f64>| {
        path.steps
            .iter()
            .zip(&fitted)
            .filter(|(s, &f)| s.objective > f * (1.0 + 1e-9))
            .count()
    };
    let given = dense_path(&x, None, ks.clone(), Params::new(1).n_init(2).seed(4));
    assert_eq!(above(&given), 0);
    let auto = dense_path(&x, None, ks, Params::new(1).seed(4));
    assert!(auto
        .steps
        .iter()
        .all(|s| s.origin != PathOrigin::Fit || s.k == 8));
    assert!(above(&auto) > 0);
}

/// Which `k` get a fit: every `k` of a small problem or with `n_init`
/// given (before the merges from above); on a large problem the
/// smallest, up to a sixteenth of the `k` searched (after them; W2's path
/// `2..=30`, searched to 35: `k` = 3..=8); none past a lone `k`.
#[test]
fn fits_run_at_the_smallest_k_of_a_large_problem() {
    let w2 = (100_000, 32);
    assert_eq!(fitted_ks(2, 35, false, w2), (0, 6));
    assert_eq!(fitted_ks(2, 35, true, w2), (33, 0));
    assert_eq!(fitted_ks(2, 35, false, (150, 4)), (33, 0));
    // Small up to k = 6 (n·d·k at most 2^20), then within the share.
    assert_eq!(fitted_ks(2, 35, false, (10_000, 16)), (4, 2));
    assert_eq!(fitted_ks(2, 4, false, (40_000, 32)), (0, 0));
    assert_eq!(fitted_ks(5, 5, false, w2), (0, 0));
}

#[test]
fn summaries_are_the_clusterings_without_them() {
    let x = crate::testing::testdata::blobs(300, 2, 4, 9);
    let p = Params::new(1).seed(2);
    let all = dense_path(&x, None, 2..=8, p.clone());
    let few = fit_path(
        x.view(),
        None,
        2..=8,
        p,
        PathKeep::Summaries,
        Control::default(),
    )
    .unwrap();
    assert_eq!(few.seed, all.seed);
    for (a, s) in all.steps.iter().zip(&few.steps) {
        assert!(s.clustering.is_none());
        assert_eq!(
            &PathStep {
                clustering: None,
                ..a.clone()
            },
            s
        );
        let c = a.clustering.as_ref().unwrap();
        assert_eq!(
            (c.objective, &c.cluster_sizes),
            (s.objective, &s.cluster_sizes)
        );
    }
    assert_eq!(all.step(5).unwrap().k, 5);
    assert!(all.step(1).is_none() && all.step(9).is_none());
}

/// The last `k` is reached from above too: the search goes past it and
/// merges back down (without that, its only origin would be a split).
/// Also where fewer rows than `k_max + SEARCH_PAST_K_MAX` have weight.
#[test]
fn the_last_k_is_also_reached_from_above() {
    let mut merged = 0;
    // Large enough (`n·d·k` above the small-problem size from k = 5)
    // that fits do not replace the searched solutions.
    for seed in 0..3 {
        let x = crate::testing::testdata::blobs(8_000, 32, 12, seed);
        let p = fit_path(
            x.view(),
            None,
            2..=9,
            Params::new(1).seed(seed),
            PathKeep::Summaries,
            Control::default(),
        )
        .unwrap();
        assert_eq!(p.ks(), (2..=9).collect::<Vec<_>>());
        merged += usize::from(matches!(p.steps[7].origin, PathOrigin::Merge(_)));
    }
    assert!(merged > 0, "no path's last k came from a merge");
    let x = crate::testing::testdata::blobs(40, 2, 3, 1);
    let w: Vec<f64> = (0..40)
        .map(|i| if i < 7 { 1.0 + i as f64 } else { 0.0 })
        .collect();
    let p = fit_path(
        x.view(),
        Some(ArrayView1::from(&w[..])),
        2..=6,
        Params::new(1).seed(2),
        PathKeep::Summaries,
        Control::default(),
    )
    .unwrap();
    assert_eq!(p.ks(), vec![2, 3, 4, 5, 6]);
    assert!(p.objectives().windows(2).all(|f| f[1] <= f[0]));
}

#[test]
fn progress_ends_at_its_total() {
    let x = crate::testing::testdata::blobs(200, 2, 4, 5);
    // With refinement the search grows past 8 (`searched` steps), the
    // fits at each `k` and the merges visit all but the first of
    // those, growing again 6 of the 7 kept.
    let searched = 7 + SEARCH_PAST_K_MAX;
    for (refine, total) in [(false, 7), (true, searched + 2 * (searched - 1) + 6)] {
        let progress = Progress::default();
        let p = Params::new(1).seed(1).refine(refine);
        fit_path(
            x.view(),
            None,
            2..=8,
            p,
            PathKeep::Summaries,
            Control::default().progress(&progress),
        )
        .unwrap();
        assert_eq!(progress.get(), (total, total), "refine {refine}");
    }
}

#[test]
fn sparse_rows_give_the_dense_path() {
    // Count-like data: each group uses its own columns.
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let x = Array2::from_shape_fn((300, 30), |(i, j)| {
        let p = if j % 4 == i % 4 { 0.5 } else { 0.05 };
        if rng.unit_f64() < p {
            1.0 + rng.below(4) as f64
        } else {
            0.0
        }
    });
    let (mut indptr, mut indices, mut values) = (vec![0], vec![], vec![]);
    for row in x.rows() {
        for (j, &v) in row.iter().enumerate().filter(|(_, v)| **v != 0.0) {
            indices.push(j);
            values.push(v);
        }
        indptr.push(values.len());
    }
    let csr = CsrView::new(30, &indptr, &indices, &values).unwrap();
    let p = Params::new(1).seed(4).n_init(2);
    let dense = dense_path(&x, None, 2..=9, p.clone());
    let sparse = fit_path(
        csr,
        None,
        2..=9,
        p,
        PathKeep::Clusterings,
        Control::default(),
    )
    .unwrap();
    for (d, s) in dense.steps.iter().zip(&sparse.steps) {
        assert_eq!(labels(d), labels(s), "k {}", d.k);
        assert!((d.objective - s.objective).abs() <= 1e-9 * d.objective);
        // The sparse state's own stall test agrees.
        let checked = Params::new(s.k).check().unwrap();
        let cancel = never();
        let (data, _) = checked_sparse(csr, None, &checked, s.k, &cancel).unwrap();
        let st = data.labelled_state(s.k, labels(s));
        assert!(!data.can_improve(&st, false), "k {}", s.k);
    }
}

#[test]
fn data_with_fewer_distinct_points_than_k_still_gets_k_clusters() {
    // Four distinct points, each repeated: from k = 5 on no cluster has
    // a split, and the new cluster takes a copy.
    let x = Array2::from_shape_fn((40, 2), |(i, j)| ((i % 4) * (j + 1)) as f64);
    let path = dense_path(&x, None, 1..=7, Params::new(1).seed(3));
    let f = path.objectives();
    assert_eq!(f[3], 0.0, "{f:?}");
    assert!(f.windows(2).all(|w| w[1] <= w[0]), "{f:?}");
    for step in &path.steps[4..] {
        assert!(matches!(
            step.origin,
            PathOrigin::Filled | PathOrigin::Merge(_)
        ));
        assert_eq!(step.cluster_sizes.len(), step.k);
        assert!(step.cluster_sizes.iter().all(|&s| s > 0));
    }
}

#[test]
fn bad_ranges_and_weights_are_named() {
    let x = crate::testing::testdata::blobs(10, 2, 2, 1);
    let err = |ks: RangeInclusive<usize>, w: Option<&[f64]>| {
        let w = w.map(ndarray::ArrayView1::from);
        fit_path(
            x.view(),
            w,
            ks,
            Params::new(1),
            PathKeep::Summaries,
            Control::default(),
        )
        .unwrap_err()
    };
    #[allow(clippy::reversed_empty_ranges)]
    let empty = 5..=3;
    for ks in [0..=3, empty] {
        assert!(matches!(
            err(ks, None),
            Error::InvalidParameter { name: "ks", .. }
        ));
    }
    assert_eq!(
        err(2..=11, None).to_string(),
        "invalid ks: 2..=11 (k_max must be at most n_samples=10)"
    );
    let few = [1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
    assert!(matches!(
        err(2..=4, Some(&few)),
        Error::InvalidParameter {
            name: "sample_weight",
            ..
        }
    ));
    // Fine up to k = 3.
    let w = ndarray::ArrayView1::from(&few);
    let path = fit_path(
        x.view(),
        Some(w),
        1..=3,
        Params::new(1),
        PathKeep::Summaries,
        Control::default(),
    )
    .unwrap();
    // Three positive weights in three clusters: nothing left but rounding.
    assert!(*path.objectives().last().unwrap() < 1e-20);
}

#[test]
fn a_set_cancel_flag_interrupts() {
    let x = crate::testing::testdata::blobs(200, 2, 3, 1);
    let cancel = AtomicBool::new(true);
    let r = fit_path(
        x.view(),
        None,
        2..=5,
        Params::new(1),
        PathKeep::Summaries,
        Control::default().cancel(&cancel),
    );
    assert_eq!(r.unwrap_err(), Error::Interrupted);
}

/// Where the range searched is not all a small problem, the `k` after the
/// first that get a fit get one restart, the fit with `n_init = 1`: a
/// step kept from such a fit carries that fit's one restart objective.
/// Where it is all small, or `n_init` is given, the usual search runs.
#[test]
fn fits_are_one_restart_unless_the_whole_range_is_small() {
    // n·d·k is a small problem up to k = 21; the search grows to 25.
    let (n, d) = (6000, 8);
    assert!(defaults::is_small(n, d, 21) && !defaults::is_small(n, d, 25));
    let mut fits = 0;
    for seed in 0..3 {
        let x = crate::testing::testdata::blobs(n, d, 12, seed);
        let path = dense_path(&x, None, 2..=20, Params::new(1).seed(seed));
        for s in path
            .steps
            .iter()
            .filter(|s| s.origin == PathOrigin::Fit && s.k > 2)
        {
            let c = s.clustering.as_ref().unwrap();
            let one = Params::new(s.k).n_init(1).seed(seed).check().unwrap();
            let one = one.fit(&x).unwrap();
            assert_eq!(
                (&c.restart_objectives, c.objective),
                (&vec![one.objective], one.objective)
            );
            fits += 1;
        }
    }
    assert!(fits > 0, "no fit was kept");
    assert!(!searched_fits(false, (10_000, 16), 35));
    assert!(searched_fits(true, (10_000, 16), 35));
    assert!(searched_fits(false, (150, 4), 35));
}
