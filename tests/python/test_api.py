"""The public Python API: results, dtypes and layouts, determinism, the
stateful Clusterer, pickling, threads and interrupts."""

import os
import pickle
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import smartigan
from smartigan import Clusterer, ClusterResult, NotFittedError, cluster

from conftest import blobs

METHODS = ["lloyd", "hartigan", "smartigan"]


def recomputed(X, r):
    return float(((np.asarray(X, dtype=np.float64) - r.centroids[r.labels].astype(np.float64)) ** 2).sum())


@pytest.mark.parametrize("method", METHODS)
def test_result_fields_and_invariants(X, method):
    r = cluster(X, 5, method, seed=1)
    assert isinstance(r, ClusterResult)
    assert r.labels.dtype == np.int64 and r.labels.shape == (300,)
    assert r.centroids.dtype == np.float64 and r.centroids.shape == (5, 3)
    assert set(np.unique(r.labels)) == set(range(5))
    for j in range(5):
        np.testing.assert_allclose(r.centroids[j], X[r.labels == j].mean(axis=0), rtol=1e-12, atol=1e-12)
    assert r.objective == pytest.approx(recomputed(X, r), rel=1e-9)
    # R's size and withinss.
    assert r.cluster_sizes.dtype == np.int64
    np.testing.assert_array_equal(r.cluster_sizes, np.bincount(r.labels, minlength=5))
    d2 = ((X - r.centroids[r.labels]) ** 2).sum(1)
    np.testing.assert_allclose(r.cluster_objectives, np.bincount(r.labels, d2, minlength=5), rtol=1e-9)
    assert r.cluster_objectives.sum() == pytest.approx(r.objective, rel=1e-12)
    assert len(r.history) == len(r.moves) == r.n_sweeps
    assert r.history[-1] == pytest.approx(r.objective, rel=1e-9)
    assert r.restart_objectives.shape[0] >= 3  # n_init="auto": restarts until three agree
    assert r.objective == r.restart_objectives.min()
    assert r.restart_objectives[r.best_restart] == r.objective
    assert r.seed == 1 and r.converged
    assert "objective=" in repr(r)


def test_positional_signature_matches_spec(X):
    r = cluster(X, 4, "hartigan", 30, 7)
    assert r.seed == 7 and r.n_sweeps <= 30


def test_seed_none_draws_and_reports_a_seed(X):
    a = cluster(X, 4, seed=None, n_init=2)
    b = cluster(X, 4, seed=a.seed, n_init=2)
    np.testing.assert_array_equal(a.labels, b.labels)
    assert a.objective == b.objective


@pytest.mark.parametrize("method", METHODS)
def test_same_seed_bit_identical_for_any_thread_count(method):
    X = blobs(600, 4, 8, 1.5, 3)
    ref = cluster(X, 8, method, seed=42, n_init=6, n_threads=1)
    for t in (2, 3, 8):
        r = cluster(X, 8, method, seed=42, n_init=6, n_threads=t)
        np.testing.assert_array_equal(r.labels, ref.labels)
        np.testing.assert_array_equal(r.centroids, ref.centroids)
        np.testing.assert_array_equal(r.restart_objectives, ref.restart_objectives)
        assert r.objective == ref.objective


@pytest.mark.parametrize("method", METHODS)
def test_single_restart_on_spare_threads_is_bit_identical(method):
    # One restart with threads to spare splits its own work over the pool
    # (block products, the recomputation between sweeps and Lloyd
    # iterations): large enough for every split to engage.
    X = blobs(6000, 24, 12, 2.0, 5)
    ref = cluster(X, 12, method, seed=7, n_init=1, n_threads=1)
    for t in (2, 3):
        r = cluster(X, 12, method, seed=7, n_init=1, n_threads=t)
        np.testing.assert_array_equal(r.labels, ref.labels)
        np.testing.assert_array_equal(r.centroids, ref.centroids)
        np.testing.assert_array_equal(r.history, ref.history)


def test_float32_is_used_as_is_and_returns_float32(X):
    X32 = X.astype(np.float32)
    r = cluster(X32, 4, seed=0)
    assert r.centroids.dtype == np.float32
    assert r.objective == pytest.approx(recomputed(X32, r), rel=1e-9)


def test_no_copy_for_c_contiguous_float_input(X):
    assert smartigan._arrays.as_data(X) is X
    X32 = X.astype(np.float32)
    assert smartigan._arrays.as_data(X32) is X32


@pytest.mark.parametrize(
    "make",
    [
        lambda X: np.asfortranarray(X),
        lambda X: np.repeat(X, 2, axis=0)[::2],
        lambda X: X.tolist(),
        lambda X: X.astype(">f8"),
        lambda X: np.round(X * 100).astype(np.int32),
    ],
    ids=["fortran", "strided", "list", "big-endian", "int32"],
)
def test_other_layouts_and_types_give_the_same_result(X, make):
    Y = make(X)
    expected = cluster(np.ascontiguousarray(np.asarray(Y, dtype=np.float64)), 4, seed=3)
    r = cluster(Y, 4, seed=3)
    np.testing.assert_array_equal(r.labels, expected.labels)
    assert r.objective == expected.objective


def test_read_only_and_memory_mapped_input(X, tmp_path):
    ro = X.copy()
    ro.setflags(write=False)
    path = tmp_path / "x.npy"
    np.save(path, X)
    mm = np.load(path, mmap_mode="r")
    ref = cluster(X, 4, seed=2)
    for Y in (ro, mm):
        r = cluster(Y, 4, seed=2)
        np.testing.assert_array_equal(r.labels, ref.labels)


def test_pandas_frame_is_converted(X):
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    np.testing.assert_array_equal(cluster(df, 3, seed=0).labels, cluster(X, 3, seed=0).labels)


def test_paired_starts_between_hartigan_and_smartigan(X):
    h = cluster(X, 6, "hartigan", seed=5, init="random-partition", n_init=8)
    s = cluster(X, 6, "smartigan", seed=5, init="random-partition", n_init=8, schedule=(1.0, 1.0))
    np.testing.assert_array_equal(h.restart_objectives, s.restart_objectives)


def test_given_centroids(X):
    c = X[:4].copy()
    r = cluster(X, 4, "lloyd", init=c, n_init=1)
    r2 = cluster(X, 4, "lloyd", init=c.tolist(), n_init=1)
    np.testing.assert_array_equal(r.labels, r2.labels)


def test_clusterer_fit_predict_transform(X):
    m = Clusterer(5, seed=0)
    assert m.fit(X) is m
    assert m.n_features_in_ == 3
    np.testing.assert_array_equal(m.predict(X), m.labels_)
    d = m.transform(X)
    assert d.shape == (300, 5)
    np.testing.assert_allclose(d[np.arange(300), m.labels_], np.sqrt(((X - m.centroids_[m.labels_]) ** 2).sum(1)))
    np.testing.assert_array_equal(Clusterer(5, seed=0).fit_predict(X), m.labels_)
    r = cluster(X, 5, seed=0)
    assert m.objective_ == r.objective and m.n_sweeps_ == r.n_sweeps
    np.testing.assert_array_equal(m.cluster_sizes_, r.cluster_sizes)
    np.testing.assert_array_equal(m.cluster_objectives_, r.cluster_objectives)
    np.testing.assert_array_equal(m.history_, r.history)
    assert "Clusterer(k=5" in repr(m)


def test_clusterer_predict_checks_features(X):
    m = Clusterer(3, seed=0).fit(X)
    with pytest.raises(ValueError, match="Y has 2 features, but this Clusterer was fitted with 3"):
        m.predict(X[:, :2])
    with pytest.raises(ValueError, match="non-finite"):
        m.predict(np.full((2, 3), np.nan))


def test_unfitted_clusterer_raises_clearly(X):
    m = Clusterer(3)
    for attr in ("labels_", "centroids_", "objective_", "cluster_sizes_", "n_features_in_"):
        with pytest.raises(NotFittedError, match="not fitted yet"):
            getattr(m, attr)
    with pytest.raises(NotFittedError):
        m.predict(X)
    with pytest.raises(NotFittedError, match="call start"):
        m.step()
    assert not hasattr(m, "labels_")  # sklearn-style: NotFittedError is an AttributeError


@pytest.mark.parametrize("method", METHODS)
def test_step_wise_equals_one_shot(X, method):
    one = Clusterer(6, method, seed=9, n_init=3).fit(X)
    m = Clusterer(6, method, seed=9, n_init=3).start(X)
    assert m.running
    objectives = [m.objective_]
    while m.step():
        objectives.append(m.objective_)
        assert m.labels_.shape == (300,)
    assert not m.running
    np.testing.assert_array_equal(m.labels_, one.labels_)
    np.testing.assert_array_equal(m.centroids_, one.centroids_)
    assert m.objective_ == one.objective_
    if method == "hartigan":
        assert all(b <= a * (1 + 1e-12) for a, b in zip(objectives, objectives[1:]))


def test_finish_resumes_to_the_end(X):
    one = Clusterer(6, seed=9, n_init=3).fit(X)
    m = Clusterer(6, seed=9, n_init=3).start(X)
    m.step()
    m.step()
    m.finish()
    np.testing.assert_array_equal(m.labels_, one.labels_)
    assert m.objective_ == one.objective_


def test_pickle_round_trip_across_processes(X, tmp_path):
    m = Clusterer(4, "hartigan", seed=3).fit(X)
    m2 = pickle.loads(pickle.dumps(m))
    np.testing.assert_array_equal(m2.predict(X), m.labels_)
    path = tmp_path / "model.pkl"
    path.write_bytes(pickle.dumps(m))
    np.save(tmp_path / "x.npy", X)
    code = (
        "import pickle, numpy as np, sys;"
        f"m = pickle.load(open({str(path)!r}, 'rb')); X = np.load({str(tmp_path / 'x.npy')!r});"
        "print(int((m.predict(X) == m.labels_).all()), m.objective_)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out[0] == "1" and float(out[1]) == m.objective_
    unfitted = pickle.loads(pickle.dumps(Clusterer(3, seed=1)))
    assert unfitted.k == 3 and unfitted.seed == 1


def test_pickle_during_step_wise_run_is_refused(X):
    m = Clusterer(4, seed=0).start(X)
    with pytest.raises(TypeError, match="step-wise run is in progress"):
        pickle.dumps(m)


def test_threads_fit_concurrently_with_right_answers():
    datasets = [blobs(400, 3, 4, 1.0, s) for s in range(8)]
    expected = [cluster(D, 4, seed=s, n_threads=1) for s, D in enumerate(datasets)]
    results = [None] * 8

    def work(i):
        results[i] = cluster(datasets[i], 4, seed=i, n_threads=2)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r, e in zip(results, expected):
        np.testing.assert_array_equal(r.labels, e.labels)
        assert r.objective == e.objective


def test_gil_is_released_during_a_fit():
    X = blobs(20000, 8, 20, 2.0, 1)
    ticks = []
    done = threading.Event()

    def ticker():
        while not done.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.005)

    t = threading.Thread(target=ticker)
    t.start()
    t0 = time.perf_counter()
    cluster(X, 30, "hartigan", seed=0, n_init=4, n_threads=1)
    elapsed = time.perf_counter() - t0
    done.set()
    t.join()
    # A thread holding the GIL for the whole fit would starve the ticker.
    assert elapsed < 0.05 or len(ticks) >= 3


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_interrupts_and_next_call_works():
    X = blobs(20000, 10, 50, 3.0, 2)
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    t0 = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        cluster(X, 50, "smartigan", n_iter=300, seed=0, n_init=400, init="random-partition")
    assert time.perf_counter() - t0 < 30
    timer.join()
    r = cluster(X[:500], 3, seed=0)
    assert r.labels.shape == (500,)
    assert threading.active_count() == 1


def test_version_and_exports():
    assert smartigan.__version__.count(".") == 2
    assert set(smartigan.__all__) >= {"cluster", "Clusterer", "ClusterResult"}


def test_embedded_iris():
    X, y = smartigan.datasets.load_iris()
    assert X.shape == (150, 4) and X.dtype == np.float64
    assert np.bincount(y).tolist() == [50, 50, 50]
    assert X.sum() == pytest.approx(2078.7)


def test_auto_n_init_spends_a_budget_of_work():
    # A small problem: four restarts (those of n_init=4, bit for bit), then
    # children of the best while the budget allows.
    rng = np.random.default_rng(0)
    small = rng.normal(size=(600, 4))
    auto = cluster(small, 3, "lloyd", seed=0)
    four = cluster(small, 3, "lloyd", seed=0, n_init=4)
    assert auto.restart_objectives.shape[0] > 4
    np.testing.assert_array_equal(auto.restart_objectives[:4], four.restart_objectives)
    assert auto.objective <= four.objective
    assert cluster(small, 3, "lloyd", seed=0, n_init="auto") == auto
    # A large one: one restart costs more than half its budget of 25 passes;
    # beside it runs the candidate descended on a sample first, and more only
    # where the two end over 0.1 % apart; an explicit count always wins.
    large = rng.normal(size=(40_000, 8)).astype(np.float32)
    assert smartigan._params.auto_budget(40_000, 8, 16) == 25.0
    assert smartigan._params.auto_budget(150, 4, 3) > 5000
    assert smartigan._params.sample_rows(40_000, 8, 16) == 5_000
    large_auto = cluster(large, 16, "hartigan", seed=0)
    first = cluster(large, 16, "hartigan", seed=0, n_init=1)
    o = large_auto.restart_objectives
    assert o.shape[0] >= 2 and o[0] == first.objective
    assert large_auto.objective == o.min() <= first.objective
    if abs(o[1] - o[0]) <= 1e-3 * min(o[0], o[1]):
        assert o.shape == (2,)
    assert cluster(large, 16, "lloyd", 2, seed=0, n_init=3).restart_objectives.shape == (3,)
    # The stateful API runs the same search, step by step.
    c = smartigan.Clusterer(3, "lloyd", seed=0).start(small)
    while c.step():
        pass
    assert c.result_ == auto


def test_best_effort_search():
    X = blobs(2000, 4, 25, seed=3)
    auto = cluster(X, 25, seed=1)
    best = cluster(X, 25, seed=1, n_init="best")
    assert best.objective <= auto.objective
    # Ten restarts, then generations of eight children.
    assert best.restart_objectives.shape[0] >= 18 and (best.restart_objectives.shape[0] - 10) % 8 == 0
    assert best.objective == best.restart_objectives.min()
    assert cluster(X, 25, seed=1, n_init="best", n_threads=1) == best
    c = smartigan.Clusterer(25, seed=1, n_init="best").start(X)
    while c.step():
        pass
    assert c.result_ == best


def test_fast_setting_is_one_exact_descent():
    # n*d*k above 2**20: the fast tolerance applies.
    X = blobs(6000, 12, 10, seed=4)
    for method, rule in (("smartigan", "hartigan"), ("hartigan", "hartigan"), ("lloyd", "lloyd")):
        fast = cluster(X, 16, method, seed=8, n_init="fast")
        one = cluster(X, 16, rule, seed=8, n_init=1, refine=False, tol=smartigan._params.FAST_TOL)
        assert fast == one, method
        assert fast.restart_objectives.shape == (1,) and fast.refinements == 0
        assert cluster(X, 16, method, seed=8, n_init="fast", n_threads=1) == fast
        # A given tolerance wins; refinement stays off.
        exact = cluster(X, 16, method, seed=8, n_init="fast", tol=0, refine=True)
        assert exact == cluster(X, 16, rule, seed=8, n_init=1, refine=False, tol=0), method
    from smartigan.sklearn import KMeans
    assert KMeans(16, n_init="fast", random_state=8).fit(X).inertia_ == cluster(X, 16, seed=8, n_init="fast").objective
    c = smartigan.Clusterer(16, seed=8, n_init="fast").start(X)
    while c.step():
        pass
    assert c.result_ == cluster(X, 16, seed=8, n_init="fast")


def test_default_n_iter_runs_lloyd_and_hartigan_to_convergence():
    # Uniform noise from random partitions needs more than twenty
    # iterations / sweeps: by default both converge; n_iter=20 caps them.
    x = np.random.default_rng(0).random((3000, 2))
    for method in ("lloyd", "hartigan"):
        kw = dict(seed=1, init="random-partition", n_init=1, refine=False)
        full = cluster(x, 30, method, **kw)
        assert full.converged and 20 < full.n_sweeps <= smartigan._params.DEFAULT_MAX_ITER
        assert cluster(x, 30, method, None, **kw).objective == full.objective
        capped = cluster(x, 30, method, 20, **kw)
        assert not capped.converged and capped.n_sweeps == 20
        assert full.objective < capped.objective
        # Step-wise fitting and the estimator resolve the default the same way.
        c = Clusterer(30, method, **kw).fit(x)
        assert c.result_ is not None and c.result_.n_sweeps == full.n_sweeps
        from smartigan.sklearn import KMeans

        est = KMeans(30, method=method, init="random-partition", n_init=1, random_state=1, refine=False).fit(x)
        assert est.n_iter_ == full.n_sweeps
    # Smartigan's schedule stays DEFAULT_N_ITER sweeps long.
    short = cluster(x, 30, "smartigan", seed=1, n_init=1, polish=False, refine=False)
    assert short.n_sweeps == smartigan._params.DEFAULT_N_ITER == 20


def test_default_schedule_on_large_problems_follows_its_first_sweep():
    # Above AUTO_SMALL_PROBLEM the schedule is DEFAULT_N_ITER_LARGE sweeps,
    # or DEFAULT_N_ITER when its first sweep moves between the two shares of
    # the points (uniform noise in 8 dimensions, k = 20: about 70 %).
    from smartigan import _params

    x = np.random.default_rng(2).random((20_000, 8))
    # (One restart: the schedule is a restart's, whatever else a search runs.)
    kw = dict(seed=0, polish=False, refine=False, n_init=1)
    auto = cluster(x, 20, **kw)
    share = auto.moves[0] / x.shape[0]
    assert _params.SCHEDULE_OVERLAP_SHARE < share <= _params.SCHEDULE_RANDOM_WALK_SHARE
    assert auto.n_sweeps == _params.DEFAULT_N_ITER
    same = cluster(x, 20, n_iter=_params.DEFAULT_N_ITER, **kw)
    assert np.array_equal(auto.labels, same.labels) and auto.objective == same.objective
    # Separated blobs move fewer: the short schedule.
    centres = np.random.default_rng(3).uniform(0, 30, size=(20, 8))
    blobs = centres[np.arange(20_000) % 20] + np.random.default_rng(4).standard_normal((20_000, 8))
    short = cluster(blobs, 20, **kw)
    assert short.moves[0] / 20_000 <= _params.SCHEDULE_OVERLAP_SHARE
    assert short.n_sweeps <= _params.DEFAULT_N_ITER_LARGE


def test_schedule_start_reports_the_first_sweeps_factor(X):
    # Small problems run the schedule as given; Lloyd and Hartigan have none.
    assert cluster(X, 5, seed=1).schedule_start == 1.5
    assert cluster(X, 5, seed=1, schedule=(1.3, 1.0)).schedule_start == 1.3
    assert cluster(X, 5, "lloyd", seed=1).schedule_start is None
    assert cluster(X, 5, "hartigan", seed=1).schedule_start is None
    # Structureless data in 32 dimensions, above the small-problem size: at
    # 3/2 nearly every point would move, so the schedule starts lower, and
    # its first sweep moves at most the random-walk share.
    noise = np.random.default_rng(2).standard_normal((20_000, 32))
    adapted = cluster(noise, 20, seed=4, refine=False, n_init=1)
    assert 1.0 <= adapted.schedule_start < 1.2
    assert adapted.moves[0] <= 0.9 * len(noise)
    # The fit with that start and its schedule length given is the same run.
    given = cluster(noise, 20, seed=4, refine=False, n_init=1, schedule=(adapted.schedule_start, 1.0),
                    n_iter=smartigan._params.DEFAULT_N_ITER)
    np.testing.assert_array_equal(adapted.labels, given.labels)
    assert (adapted.objective, given.schedule_start) == (given.objective, adapted.schedule_start)
    # A result pickled before the field existed reads None.
    state = dict(adapted.__dict__)
    del state["schedule_start"]
    old = ClusterResult.__new__(ClusterResult)
    old.__dict__.update(state)
    assert old.schedule_start is None


def topic_rows(n, d, per_row, topics, seed):
    """TF-IDF-like sparse rows: three quarters of each row's terms from its
    topic's block of columns, the rest anywhere; L2-normalised."""
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    block = d // topics
    topic = rng.integers(0, topics, n)
    own = rng.integers(0, block, (n, per_row * 3 // 4)) + (topic * block)[:, None]
    other = rng.integers(0, d, (n, per_row - own.shape[1]))
    cols = np.concatenate([own, other], axis=1)
    counts = rng.integers(1, 4, cols.size).astype(np.float64)
    x = sp.csr_matrix((counts, (np.repeat(np.arange(n), cols.shape[1]), cols.ravel())), shape=(n, d))
    x.sum_duplicates()
    df = np.bincount(x.indices, minlength=d)
    x = x.multiply(np.log((1 + n) / (1 + df)) + 1).tocsr()
    norms = np.sqrt(np.asarray(x.multiply(x).sum(axis=1))).ravel()
    return (sp.diags(1 / norms) @ x).tocsr()


def test_lowered_schedule_ends_when_its_sweeps_stop_gaining():
    # On text-like rows thousands of points cost nearly the same in several
    # clusters; at any factor above 1 they swap back and forth every sweep.
    # A lowered start's anneal therefore ends at its first sweep after the
    # first that gains at most the tolerance, and the polish takes over.
    x = topic_rows(20_000, 50_000, 50, 50, seed=1)
    # One restart each: the budget may have room for a second one after a
    # short anneal, and this test is about the anneal.
    r = cluster(x, 50, seed=0, refine=False, n_init=1)
    assert r.schedule_start < 1.05
    objectives = np.concatenate([[r.initial_objective], r.history])
    gains = -np.diff(objectives) / objectives[1:]
    tol = smartigan._params.auto_tol(*x.shape, 50)
    ended = next(t for t in range(1, len(gains)) if gains[t] <= tol)
    assert ended < smartigan._params.DEFAULT_N_ITER - 1
    # The same start given, without the adaptive schedule: the full anneal,
    # identical up to that sweep, longer, and no lower beyond 1e-4.
    full = cluster(x, 50, seed=0, refine=False, schedule=(r.schedule_start, 1.0),
                   n_iter=smartigan._params.DEFAULT_N_ITER, n_init=1)
    np.testing.assert_array_equal(full.history[: ended + 1], r.history[: ended + 1])
    assert full.n_sweeps > r.n_sweeps
    assert r.objective <= full.objective * (1 + 1e-4)


def test_refine_repairs_merged_and_split_blobs_and_never_hurts():
    # Well-separated blobs: single unrefined restarts from Forgy starts often
    # put two blobs under one centroid and cut another in two; refinement
    # repairs that, and every refined restart is at least as good.
    rng = np.random.default_rng(3)
    centres = rng.uniform(0, 20, size=(15, 6))
    truth = np.arange(1500) % 15
    x = centres[truth] + 0.3 * rng.standard_normal((1500, 6))
    best = sum(((x[truth == j] - x[truth == j].mean(0)) ** 2).sum() for j in range(15))
    repaired = 0
    for seed in range(8):
        plain = cluster(x, 15, "hartigan", seed=seed, init="forgy", n_init=1, refine=False)
        refined = cluster(x, 15, "hartigan", seed=seed, init="forgy", n_init=1)
        assert plain.refinements == 0
        assert refined.objective <= plain.objective
        assert refined.objective == pytest.approx(best, rel=1e-9)
        repaired += refined.refinements > 0
    assert repaired >= 2
    # The stateful API and the estimator take the same switch.
    c = Clusterer(15, "hartigan", seed=0, init="forgy", n_init=1, refine=False).fit(x)
    assert c.result_ is not None and c.result_.refinements == 0 and "refine=False" in repr(c)
    from smartigan.sklearn import KMeans

    est = KMeans(15, method="hartigan", init="forgy", n_init=1, random_state=0, refine=False).fit(x)
    assert est.get_params()["refine"] is False
    assert est.inertia_ == pytest.approx(c.result_.objective, rel=1e-12)


def test_results_compare_by_value_and_have_no_hash():
    """Issue 58: ``==`` on two results raised ValueError (the truth value of an array)."""
    import pickle

    X = blobs(n=60, d=2, centres=3, seed=1)
    r = smartigan.cluster(X, 3, seed=0)
    copy = pickle.loads(pickle.dumps(r))
    assert copy is not r and copy == r and not (copy != r)
    assert smartigan.cluster(X, 3, seed=0) == r
    assert smartigan.cluster(X, 3, seed=1, n_init=3) != r
    assert smartigan.cluster(X.astype(np.float32), 3, seed=0) != r  # float32 centroids: another value
    assert r != r.labels.tolist() and r != "a result"
    assert r in [copy] and {"key": r}["key"] == copy
    with pytest.raises(TypeError, match="unhashable"):
        hash(r)
    with pytest.raises(TypeError, match="unhashable"):
        {r}
