"""smartigan.dask.KMeans on a LocalCluster of two worker processes.

The cluster is started by the module fixture and closed after the last test.
Data are generated inside the workers, block by block, from a seed; the same
rows are also computed here for the in-memory comparisons.
"""

from __future__ import annotations

import os
import re
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pytest

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")
cloudpickle = pytest.importorskip("cloudpickle")

import smartigan  # noqa: E402
from smartigan.dask import KMeans  # noqa: E402

# The block generator below runs on the workers: ship it by value.
cloudpickle.register_pickle_by_value(sys.modules[__name__])

N_ROWS, N_FEATURES, N_BLOBS, ROWS_PER_BLOCK = 120_000, 8, 16, 15_000
K = 16
REPO = Path(__file__).resolve().parents[2]


def blob_block(block_id: Any, seed: int, rows: int, d: int, blobs: int) -> np.ndarray:
    """One block of overlapping Gaussian blobs (centres uniform in [0, 5]^d, sigma 1)."""
    centres = np.random.default_rng(seed).uniform(0.0, 5.0, size=(blobs, d))
    rng = np.random.default_rng([seed, block_id[0]])
    return centres[rng.integers(0, blobs, size=rows)] + rng.standard_normal((rows, d))


def make_blobs(n: int = N_ROWS, rows: int = ROWS_PER_BLOCK, seed: int = 7) -> Any:
    chunks = ((rows,) * (n // rows), (N_FEATURES,))
    return da.map_blocks(blob_block, seed=seed, rows=rows, d=N_FEATURES, blobs=N_BLOBS, chunks=chunks,
                         dtype=np.float64)


def objective(X: np.ndarray, centres: np.ndarray, weights: Any = None) -> float:
    """An independent evaluator: brute-force float64 squared distances to the nearest centre."""
    X64, c64 = X.astype(np.float64), centres.astype(np.float64)
    best = np.full(X.shape[0], np.inf)
    for c in c64:
        best = np.minimum(best, ((X64 - c) ** 2).sum(axis=1))
    return float(np.sum(best if weights is None else best * weights))


def local_cluster(n_workers: int, threads_per_worker: int) -> Any:
    """Worker processes on the loopback interface, dashboard off. The scheduler
    still serves its health routes over HTTP: on a free port, not 8787, which
    another cluster on this machine may hold."""
    return distributed.LocalCluster(n_workers=n_workers, threads_per_worker=threads_per_worker, processes=True,
                                    host="127.0.0.1", dashboard_address=None,
                                    scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})


@pytest.fixture(scope="module", autouse=True)
def no_threads_left_behind() -> Iterator[None]:
    """After the module, stop the thread pools Dask keeps for reuse (its local
    scheduler's and distributed's offload thread): the Ctrl-C tests elsewhere
    check that a fit leaves no thread but the main one."""
    yield
    import concurrent.futures

    import dask.threaded
    import distributed.utils

    with dask.threaded.pools_lock:
        kept = [dask.threaded.default_pool, *(p for per in dask.threaded.pools.values() for p in per.values())]
        dask.threaded.default_pool = None
        dask.threaded.pools.clear()
    for pool in kept:
        if pool is not None:
            pool.shutdown(wait=True)
    distributed.utils._offload_executor.shutdown(wait=True)
    # A fresh executor starts no thread until it is used.
    distributed.utils._offload_executor = concurrent.futures.ThreadPoolExecutor(
        max_workers=1, thread_name_prefix="Dask-Offload")


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    cluster = local_cluster(n_workers=2, threads_per_worker=1)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


@pytest.fixture(scope="module")
def data() -> Any:
    return make_blobs()


@pytest.fixture(scope="module")
def local(data: Any) -> np.ndarray:
    with dask.config.set(scheduler="threads"):
        return np.asarray(data.compute())


@pytest.fixture(scope="module")
def in_memory(local: np.ndarray) -> smartigan.ClusterResult:
    return smartigan.cluster(local, K, seed=3)


@pytest.fixture(scope="module")
def fitted(client: Any, data: Any) -> KMeans:
    return KMeans(K, random_state=3).fit(data)


def test_quality_within_a_few_percent_of_in_memory(fitted: KMeans, in_memory: smartigan.ClusterResult) -> None:
    assert fitted.coreset_size_ > 0, "this data must take the coreset path"
    assert fitted.inertia_ <= 1.02 * in_memory.objective
    assert fitted.cluster_centers_.shape == (K, N_FEATURES)
    assert fitted.cluster_centers_.dtype == np.float64


def test_inertia_is_the_exact_objective_of_the_centres(fitted: KMeans, local: np.ndarray) -> None:
    assert fitted.inertia_ == pytest.approx(objective(local, fitted.cluster_centers_), rel=1e-12)
    # history_[0] is the full-data objective of the coreset fit's centres.
    assert fitted.history_[0] == pytest.approx(objective(local, fitted.coreset_result_.centroids), rel=1e-12)


def test_labels_are_lazy_and_nearest(fitted: KMeans, local: np.ndarray) -> None:
    assert isinstance(fitted.labels_, da.Array)
    labels = fitted.labels_.compute()
    assert labels.shape == (N_ROWS,) and labels.dtype == np.int64
    distances = fitted.transform(local)
    np.testing.assert_array_equal(labels, distances.argmin(axis=1))
    assert np.bincount(labels, minlength=K).min() > 0


def test_objective_never_rises_while_polishing(client: Any, data: Any, local: np.ndarray) -> None:
    model = KMeans(K, random_state=11, tol=0.0, coreset_size=2_000, max_polish_passes=200).fit(data)
    history = model.history_
    assert len(history) >= 3, "a small coreset should leave work for the polishing passes"
    assert np.all(np.diff(history) <= 0)
    assert model.inertia_ == history[-1] == history.min()
    assert model.n_iter_ == len(history) or model.n_iter_ == len(history) + 1  # the last pass may be rejected
    assert model.inertia_ == pytest.approx(objective(local, model.cluster_centers_), rel=1e-12)


def test_bit_identical_for_any_workers_and_threads(client: Any, data: Any, fitted: KMeans) -> None:
    reference = fitted.cluster_centers_
    for config in (dict(scheduler="synchronous"), dict(scheduler="threads", num_workers=3)):
        with dask.config.set(**config):
            np.testing.assert_array_equal(KMeans(K, random_state=3).fit(data).cluster_centers_, reference)
    with local_cluster(n_workers=1, threads_per_worker=2) as one:
        with distributed.Client(one, set_as_default=False) as other, other.as_current():
            np.testing.assert_array_equal(KMeans(K, random_state=3).fit(data).cluster_centers_, reference)
    assert KMeans(K, random_state=3).fit(data).inertia_ == fitted.inertia_


def test_another_seed_gives_another_fit(client: Any, data: Any, fitted: KMeans) -> None:
    other = KMeans(K, random_state=4).fit(data)
    assert not np.array_equal(other.cluster_centers_, fitted.cluster_centers_)
    assert other.seed_ == 4 and fitted.seed_ == 3


def test_feature_chunks_are_merged(client: Any, data: Any, fitted: KMeans) -> None:
    split = data.rechunk((ROWS_PER_BLOCK, 3))
    assert len(split.chunks[1]) > 1
    np.testing.assert_array_equal(KMeans(K, random_state=3).fit(split).cluster_centers_, fitted.cluster_centers_)


def test_empty_block_is_harmless(client: Any, local: np.ndarray, in_memory: smartigan.ClusterResult) -> None:
    with_empty = da.from_array(local, chunks=((30_000, 0, 45_000, 45_000), (N_FEATURES,)))
    assert 0 in with_empty.chunks[0]
    model = KMeans(K, random_state=3).fit(with_empty)
    assert model.labels_.compute().shape == (N_ROWS,)
    assert model.inertia_ == pytest.approx(objective(local, model.cluster_centers_), rel=1e-12)
    assert model.inertia_ <= 1.02 * in_memory.objective


def test_nan_in_one_block_names_the_row(client: Any, local: np.ndarray) -> None:
    bad = local.copy()
    bad[2 * ROWS_PER_BLOCK + 5, 1] = np.nan
    X = da.from_array(bad, chunks=(ROWS_PER_BLOCK, N_FEATURES))
    with pytest.raises(ValueError, match=rf"X contains NaN or infinity: row {2 * ROWS_PER_BLOCK + 5} \(block 2"):
        KMeans(K, random_state=0).fit(X)


def test_k_larger_than_n_rows(client: Any) -> None:
    X = da.from_array(np.arange(20.0).reshape(10, 2), chunks=(4, 2))
    with pytest.raises(ValueError, match="invalid n_clusters: 11 .*only 10 rows"):
        KMeans(11).fit(X)


@pytest.mark.parametrize(
    "params, error, message",
    [
        (dict(n_clusters=0), ValueError, "invalid n_clusters: 0"),
        (dict(n_clusters=2.5), TypeError, "n_clusters must be an integer"),
        (dict(tol=-1.0), ValueError, "invalid tol: -1.0"),
        (dict(tol=float("nan")), ValueError, "invalid tol: nan"),
        (dict(max_polish_passes=-1), ValueError, "invalid max_polish_passes: -1"),
        (dict(coreset_size=2), ValueError, "invalid coreset_size: 2"),
        (dict(oversampling=0), ValueError, "invalid oversampling: 0"),
        (dict(init_rounds=0), ValueError, "invalid init_rounds: 0"),
        (dict(random_state=-1), ValueError, "invalid random_state: -1"),
        (dict(random_state="a"), TypeError, "random_state must be"),
        (dict(random_state=True), TypeError, "random_state must be an integer in [0, 2**64), a numpy"),
        (dict(method="elkan"), ValueError, "invalid method: 'elkan'"),
        (dict(polish=None), TypeError, "polish must be True or False, got None"),
        (dict(n_init="many"), ValueError, "invalid n_init: 'many'"),
        (dict(metric="cos"), ValueError, "invalid metric: 'cos' (allowed: 'euclidean', 'cosine')"),
        (dict(metric=None), TypeError, "metric must be a string ('euclidean' or 'cosine'), got None"),
    ],
)
def test_bad_parameters(params: dict, error: type, message: str) -> None:
    X = np.arange(40.0).reshape(20, 2)
    kwargs = dict(n_clusters=3)
    kwargs.update(params)
    with pytest.raises(error, match=re.escape(message)):
        KMeans(**kwargs).fit(X)


def test_bad_inputs() -> None:
    with pytest.raises(ValueError, match="X must be a 2-d array"):
        KMeans(2).fit(da.zeros(10, chunks=5))
    with pytest.raises(TypeError, match="complex"):
        KMeans(2).fit(np.ones((10, 2), dtype=complex))
    with pytest.raises(TypeError, match="float16"):
        KMeans(2).fit(da.ones((10, 2), chunks=5, dtype=np.float16))
    unknown = da.ones((10, 2), chunks=5)
    unknown = unknown[unknown[:, 0] > 0]
    with pytest.raises(ValueError, match="unknown chunk sizes.*compute_chunk_sizes"):
        KMeans(2).fit(unknown)
    with pytest.raises(smartigan.NotFittedError):
        KMeans(2).predict(np.ones((3, 2)))


def test_bad_weights(client: Any, data: Any) -> None:
    w = np.ones(N_ROWS)
    w[3 * ROWS_PER_BLOCK + 2] = -1.0
    with pytest.raises(ValueError, match=rf"invalid sample_weight: -1.0 at row {3 * ROWS_PER_BLOCK + 2} of block 3 "
                                         r"\(weights must be finite and non-negative\)"):
        KMeans(K).fit(data, sample_weight=w)
    with pytest.raises(ValueError, match=r"sample_weight must have shape \(120000,\)"):
        KMeans(K).fit(data, sample_weight=np.ones(5))
    sparse_w = np.zeros(N_ROWS)
    sparse_w[:K - 1] = 1.0
    with pytest.raises(ValueError, match=f"invalid n_clusters: {K} .*only {K - 1} positive weights"):
        KMeans(K).fit(data, sample_weight=sparse_w)


def test_sample_weight(client: Any, data: Any, local: np.ndarray) -> None:
    w = np.random.default_rng(5).integers(0, 4, size=N_ROWS).astype(np.float64)
    weights = da.from_array(w, chunks=10_000)  # other chunks than X's: realigned
    model = KMeans(K, random_state=3).fit(data, sample_weight=weights)
    reference = smartigan.cluster(local, K, seed=3, sample_weight=w)
    assert model.inertia_ == pytest.approx(objective(local, model.cluster_centers_, w), rel=1e-12)
    assert model.inertia_ <= 1.02 * reference.objective
    # Far-away rows of weight zero attract no centre.
    far = np.vstack([local, np.full((500, N_FEATURES), 1e3)])
    w_far = np.concatenate([np.ones(N_ROWS), np.zeros(500)])
    centres = KMeans(K, random_state=3).fit(da.from_array(far, chunks=(20_000, N_FEATURES)),
                                           sample_weight=w_far).cluster_centers_
    assert centres.max() < 100


def test_dataframe_numpy_and_dask_agree(client: Any, data: Any, local: np.ndarray, fitted: KMeans) -> None:
    dd = pytest.importorskip("dask.dataframe")
    frame = dd.from_dask_array(data, columns=[f"f{i}" for i in range(N_FEATURES)])
    from_frame = KMeans(K, random_state=3).fit(frame)
    np.testing.assert_array_equal(from_frame.cluster_centers_, fitted.cluster_centers_)
    assert from_frame.n_passes_ == fitted.n_passes_ + 1  # the partition lengths
    model = KMeans(K, random_state=3)
    labels = model.fit_predict(local)
    assert isinstance(labels, np.ndarray)
    assert model.inertia_ <= 1.02 * fitted.inertia_
    np.testing.assert_array_equal(labels, model.predict(local))
    np.testing.assert_array_equal(model.predict(data).compute(), labels)


def test_predict_transform_score(client: Any, data: Any, local: np.ndarray, fitted: KMeans) -> None:
    new = local[:1000] + 0.5
    distances = fitted.transform(new)
    assert distances.shape == (1000, K)
    expected = np.sqrt(((new[:, None, :] - fitted.cluster_centers_[None]) ** 2).sum(axis=2))
    np.testing.assert_allclose(distances, expected, rtol=1e-12)
    np.testing.assert_array_equal(fitted.predict(new), expected.argmin(axis=1))
    lazy = fitted.transform(data)
    assert isinstance(lazy, da.Array) and lazy.shape == (N_ROWS, K)
    assert fitted.score(data) == pytest.approx(-fitted.inertia_, rel=1e-12)
    with pytest.raises(ValueError, match="X has 3 features, but this KMeans was fitted with 8"):
        fitted.predict(np.ones((4, 3)))


def test_small_data_is_clustered_whole(client: Any, local: np.ndarray) -> None:
    small = local[:5_000]
    model = KMeans(5, random_state=2).fit(da.from_array(small, chunks=(1_000, N_FEATURES)))
    assert model.coreset_size_ == 0
    whole = smartigan.cluster(small, 5, seed=2)
    assert model.coreset_result_.objective == whole.objective
    assert model.inertia_ <= whole.objective * (1 + 1e-12)


def test_weights_of_any_scale_give_the_fit_of_unit_weights() -> None:
    # Issue 68: the squares of weights of 1e-200 underflow to 0 (and of 1e200
    # overflow), which the effective number of points divided by.
    rng = np.random.default_rng(9)
    centres = np.array([[5.0, 0.0], [0.0, 5.0], [-4.0, -4.0]])
    X = centres[np.arange(300) % 3] + 0.5 * rng.standard_normal((300, 2))
    lazy = da.from_array(X, chunks=(100, 2))
    with dask.config.set(scheduler="synchronous"):
        for metric in ("euclidean", "cosine"):
            unit = KMeans(3, metric=metric, random_state=0).fit(lazy, sample_weight=np.ones(300))
            for scale in (1e-200, 1e200):
                scaled = KMeans(3, metric=metric, random_state=0).fit(lazy, sample_weight=np.full(300, scale))
                np.testing.assert_array_equal(scaled.labels_.compute(), unit.labels_.compute(),
                                              err_msg=f"{metric}, weights {scale}")


def test_effective_size_is_free_of_the_weights_scale() -> None:
    from smartigan.dask._blocks import weight_totals
    from smartigan.dask._kmeans import effective_size

    w = np.random.default_rng(10).uniform(0.0, 3.0, size=1_000)
    w[500:] *= 1e-3  # blocks of other largest weights
    kish = w.sum() ** 2 / (w ** 2).sum()
    for scale in (1.0, 1e-200, 1e200, 2.0 ** -1000):
        totals = [weight_totals(scale * w[i:i + 250], i // 250, i) for i in range(0, 1_000, 250)]
        assert effective_size(totals) == pytest.approx(kish, rel=1e-12), scale
    equal = [weight_totals(np.full(100, scale), 0, 0) for scale in (1e-200, 1e200)]
    assert [effective_size([t]) for t in equal] == [100.0, 100.0]
    assert effective_size([weight_totals(np.zeros(5), 0, 0), weight_totals(np.ones(4), 1, 5)]) == 4.0


def test_random_state_none_follows_numpys_global_seed() -> None:
    # As scikit-learn's estimators (and smartigan.sklearn.KMeans) do: the
    # one random_state check of every estimator.
    X = np.random.default_rng(6).normal(size=(200, 3))
    seeds = []
    for _ in range(2):
        np.random.seed(11)
        seeds.append(KMeans(3).fit(X).seed_)
    assert seeds[0] == seeds[1]
    rs = np.random.RandomState(7)
    assert KMeans(3, random_state=rs).fit(X).seed_ != KMeans(3, random_state=rs).fit(X).seed_


def test_best_search_runs_on_the_client_fit(client: Any, local: np.ndarray) -> None:
    small = local[:3_000]
    best = KMeans(5, n_init="best", random_state=2).fit(small)
    assert best.coreset_result_ == smartigan.cluster(small, 5, n_init="best", seed=2)
    assert best.coreset_result_.restart_objectives.shape[0] > 10  # a population and its children
    # On a coreset: the candidates are reduced with "auto", the coreset fit searches.
    coreset = KMeans(5, n_init="best", random_state=2, coreset_size=1_000).fit(small)
    assert coreset.coreset_size_ > 0 and coreset.coreset_result_.restart_objectives.shape[0] > 10


def test_weights_of_another_kind_are_refused() -> None:
    X = np.random.default_rng(8).normal(size=(50, 2))
    with pytest.raises(TypeError, match="sample_weight must be real numbers, got dtype bool"):
        KMeans(2).fit(X, sample_weight=np.ones(50, dtype=bool))
    with pytest.raises(TypeError, match="sample_weight must be real numbers, got dtype bool"):
        KMeans(2).fit(X, sample_weight=da.ones(50, dtype=bool, chunks=25))


def test_nothing_is_unpickled_from_files() -> None:
    sources = list((REPO / "python" / "smartigan" / "dask").glob("*.py")) + [REPO / "benches" / "dask.py"]
    for path in sources:
        text = path.read_text()
        assert not re.search(r"pickle\.loads?\(|allow_pickle\s*=\s*True|joblib\.load|Unpickler", text), path
        for call in re.findall(r"np\.load\(([^)]*)\)", text):
            assert "allow_pickle=False" in call, (path, call)


def test_dask_stays_optional() -> None:
    import subprocess

    code = "import sys, smartigan; print('dask' in sys.modules or 'distributed' in sys.modules)"
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and res.stdout.strip() == "False", res.stderr
    code = ("import sys; sys.modules['dask'] = None\n"
            "try:\n    import smartigan.dask\nexcept ImportError as e:\n    print(e)\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "smartigan.dask needs dask" in res.stdout and "pip install 'smartigan[dask]'" in res.stdout, res


def test_worker_killed_mid_fit_gives_the_same_result(client: Any, fitted: KMeans) -> None:
    """Kill one worker process while it runs a pass of the fit: Dask reruns its tasks, the result is unchanged."""
    slow = make_blobs().map_blocks(_slow_copy, dtype=np.float64)
    outcome: dict = {}

    def fit() -> None:
        try:
            outcome["model"] = KMeans(K, random_state=3).fit(slow)
        except BaseException as exc:  # reported below
            outcome["error"] = exc

    pids = client.run(os.getpid)
    victim = sorted(pids)[0]
    thread = threading.Thread(target=fit)
    thread.start()
    deadline = time.monotonic() + 60
    killed_mid_pass = False
    while time.monotonic() < deadline and thread.is_alive():
        running = client.processing().get(victim, ())
        if any("assignment_totals" in str(key) or "kmeans_parallel_round" in str(key) for key in running):
            os.kill(pids[victim], signal.SIGKILL)
            killed_mid_pass = True
            break
        time.sleep(0.02)
    thread.join(120)
    assert killed_mid_pass, "the fit ended before a worker could be killed"
    assert "error" not in outcome, outcome.get("error")
    np.testing.assert_array_equal(outcome["model"].cluster_centers_, fitted.cluster_centers_)
    assert outcome["model"].inertia_ == fitted.inertia_


def _slow_copy(block: np.ndarray) -> np.ndarray:
    time.sleep(0.05)
    return block.copy()


# -- issue 58: messages that name the culprit ---------------------------------------------


def test_dataframe_columns_that_are_not_numbers_are_named(client: Any) -> None:
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    values = np.random.default_rng(0).normal(size=(60, 2))
    for column, dtype in (("text", "string"), ("kind", "category")):
        frame = pd.DataFrame({"a": values[:, 0], column: pd.Series(["x", "y"] * 30, dtype=dtype)})
        with pytest.raises(TypeError, match=f"X column {column!r} has dtype .*; every column must be numeric"):
            KMeans(2).fit(dd.from_pandas(frame, npartitions=2))
    flags = pd.DataFrame({"a": values[:, 0], "flag": pd.array([True, False] * 30, dtype="boolean")})
    with pytest.raises(TypeError, match="X column 'flag' has dtype boolean"):
        KMeans(2).fit(dd.from_pandas(flags, npartitions=2))


def test_nullable_integer_columns_are_numbers(client: Any) -> None:
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    values = np.random.default_rng(1).normal(size=(60, 2))
    counts = np.arange(60) % 7
    frame = pd.DataFrame({"a": values[:, 0], "n": pd.array(counts, dtype="Int64"),
                          "f": pd.array(values[:, 1], dtype="Float64")})
    lazy = dd.from_pandas(frame, npartitions=3)
    model = KMeans(2, random_state=0).fit(lazy)
    blocks = lazy.map_partitions(len).compute().tolist()  # the same blocks, so the same sums
    plain = KMeans(2, random_state=0).fit(da.from_array(np.column_stack([values[:, 0], counts, values[:, 1]]),
                                                        chunks=(tuple(blocks), 3)))
    np.testing.assert_array_equal(model.cluster_centers_, plain.cluster_centers_)
    missing = frame.copy()
    missing.loc[47, "n"] = pd.NA
    with pytest.raises(ValueError, match=r"X contains NaN or infinity: row 47 \(block 2"):
        KMeans(2).fit(dd.from_pandas(missing, npartitions=3))


def test_nan_at_predict_names_the_global_row(client: Any) -> None:
    rng = np.random.default_rng(2)
    model = KMeans(2, random_state=0).fit(rng.normal(size=(100, 2)))
    new = rng.normal(size=(100, 2))
    new[75, 1] = np.nan
    lazy = da.from_array(new, chunks=(30, 2))
    for method in (model.predict, model.transform):
        with pytest.raises(ValueError, match=r"X contains NaN or infinity: row 75 \(block 2, rows 60\.\.90\)"):
            method(lazy).compute()
        with pytest.raises(ValueError, match=r"X contains NaN or infinity: row 75\b"):
            method(new)
    with pytest.raises(ValueError, match=r"X contains NaN or infinity: row 75 \(block 2"):
        model.score(lazy)


def test_zero_features_and_unknown_chunks_are_named(client: Any) -> None:
    for X in (np.ones((10, 0)), da.ones((10, 0), chunks=5)):
        with pytest.raises(ValueError, match="X has 0 features; need at least one"):
            KMeans(2).fit(X)
    model = KMeans(2, random_state=0).fit(np.random.default_rng(3).normal(size=(40, 2)))
    with pytest.raises(ValueError, match="X has 0 features; need at least one"):
        model.predict(np.ones((10, 0)))
    X = da.from_array(np.random.default_rng(4).normal(size=(100, 2)), chunks=30)
    w = da.ones(100, chunks=30)
    w = w[w > 0]
    with pytest.raises(ValueError, match=r"sample_weight has unknown chunk sizes; call sample_weight\.compute_chunk_sizes"):
        KMeans(2).fit(X, sample_weight=w)
    unknown = X[X[:, 0] > -100]
    with pytest.raises(ValueError, match=r"X has unknown chunk sizes along its rows; call X\.compute_chunk_sizes"):
        model.score(unknown)
    assert model.predict(unknown).compute().shape == (100,)  # labels need no offsets


# -- n_clusters="auto": choosing k on the coreset (issue 62) ------------------------------

N_GROUPS = 6


def separated_block(block_id: Any, seed: int, rows: int, d: int, groups: int) -> np.ndarray:
    """One block of well-separated groups (centres uniform in [0, 60]^d, sigma 1)."""
    centres = np.random.default_rng(seed).uniform(0.0, 60.0, size=(groups, d))
    rng = np.random.default_rng([seed, block_id[0]])
    return centres[rng.integers(0, groups, size=rows)] + rng.standard_normal((rows, d))


@pytest.fixture(scope="module")
def groups() -> Any:
    rows = 10_000
    return da.map_blocks(separated_block, seed=5, rows=rows, d=N_FEATURES, groups=N_GROUPS,
                         chunks=((rows,) * 6, (N_FEATURES,)), dtype=np.float64)


def test_auto_chooses_k_on_the_coreset_and_polishes_it(client: Any, groups: Any) -> None:
    model = KMeans("auto", k_range=(2, 10), coreset_size=4_000, random_state=1).fit(groups)
    assert model.n_clusters_ == N_GROUPS and model.cluster_centers_.shape == (N_GROUPS, N_FEATURES)
    assert model.coreset_size_ > 0 and model.path_ is not None
    assert model.path_.ks.tolist() == list(range(2, 11)) and model.path_.suggested == {"elbow": N_GROUPS}
    # The chosen k's solution on the coreset, then Lloyd passes on the full data.
    assert model.coreset_result_ == model.path_.result(N_GROUPS)
    assert model.history_[-1] == model.inertia_ and np.all(np.diff(model.history_) <= 0)
    again = KMeans("auto", k_range=(2, 10), coreset_size=4_000, random_state=1).fit(groups)
    np.testing.assert_array_equal(again.cluster_centers_, model.cluster_centers_)
    fixed = KMeans(N_GROUPS, coreset_size=4_000, random_state=1).fit(groups)
    assert fixed.n_clusters_ == N_GROUPS and fixed.path_ is None


def test_auto_calinski_harabasz_reads_the_full_datas_totals(client: Any, groups: Any) -> None:
    from smartigan._criteria import calinski_harabasz

    model = KMeans("auto", k_range=[2, 4, 6, 8], criterion="calinski_harabasz", coreset_size=4_000,
                   random_state=2).fit(groups)
    assert model.path_.ks.tolist() == [2, 4, 6, 8] and model.n_clusters_ == N_GROUPS
    with dask.config.set(scheduler="threads"):
        local = np.asarray(groups.compute())
    total = float(((local - local.mean(axis=0)) ** 2).sum())
    want = calinski_harabasz(model.path_.objectives, model.path_.ks, total, float(len(local)))
    np.testing.assert_allclose(model.path_.criteria["calinski_harabasz"], want, rtol=1e-9)


def test_auto_on_small_data_is_the_path_of_all_of_it(client: Any, local: np.ndarray) -> None:
    small = local[:4_000]
    model = KMeans("auto", k_range=range(2, 9, 3), criterion="davies_bouldin", random_state=4).fit(
        da.from_array(small, chunks=(1_000, N_FEATURES)))
    assert model.coreset_size_ == 0
    assert model.path_ == smartigan.cluster_path(small, [2, 5, 8], seed=4, criteria=("davies_bouldin",))
    with pytest.warns(UserWarning, match=r"criterion 'elbow' suggests no k in 2\.\.3"):
        assert KMeans("auto", k_range=(2, 3), random_state=4).fit(small).n_clusters_ == 2
    with pytest.raises(ValueError, match=r"invalid k_range: 5000 \(X has only 4000 rows; the largest k of k_range"):
        KMeans("auto", k_range=(2, 5_000)).fit(small)
    with pytest.raises(ValueError, match=r"invalid n_clusters: 'many' \(must be a positive integer or 'auto'\)"):
        KMeans("many").fit(small)


# -- metric="cosine" (issue 60) ------------------------------------------------------

COS_ROWS, COS_BLOCK, COS_K = 60_000, 10_000, 12


def direction_block(block_id: Any, seed: int, rows: int, d: int, directions: int) -> np.ndarray:
    """One block of rows around ``directions`` unit directions, with lengths
    spread over two orders of magnitude: clusters by direction, not position."""
    axes = np.random.default_rng(seed).normal(size=(directions, d))
    axes /= np.linalg.norm(axes, axis=1, keepdims=True)
    rng = np.random.default_rng([seed, block_id[0]])
    rows_ = axes[rng.integers(0, directions, size=rows)] + 0.35 * rng.standard_normal((rows, d))
    return rows_ * rng.lognormal(0.0, 1.0, size=(rows, 1))


def cosine_objective(X: np.ndarray, centres: np.ndarray, weights: Any = None) -> float:
    """An independent evaluator: sum of w * (1 - largest cosine), by brute force in float64."""
    U = X.astype(np.float64) / np.linalg.norm(X.astype(np.float64), axis=1, keepdims=True)
    C = centres.astype(np.float64) / np.linalg.norm(centres.astype(np.float64), axis=1, keepdims=True)
    loss = 1.0 - (U @ C.T).max(axis=1)
    return float(np.sum(loss if weights is None else loss * weights))


@pytest.fixture(scope="module")
def directions_data() -> Any:
    chunks = ((COS_BLOCK,) * (COS_ROWS // COS_BLOCK), (N_FEATURES,))
    return da.map_blocks(direction_block, seed=5, rows=COS_BLOCK, d=N_FEATURES, directions=COS_K, chunks=chunks,
                         dtype=np.float64)


@pytest.fixture(scope="module")
def directions_local(directions_data: Any) -> np.ndarray:
    with dask.config.set(scheduler="threads"):
        return np.asarray(directions_data.compute())


@pytest.fixture(scope="module")
def cosine_fitted(client: Any, directions_data: Any) -> KMeans:
    return KMeans(COS_K, metric="cosine", random_state=3, coreset_size=6_000).fit(directions_data)


def test_cosine_fit_is_within_a_percent_of_in_memory(cosine_fitted: KMeans, directions_local: np.ndarray) -> None:
    model = cosine_fitted
    assert model.coreset_size_ > 0, "this data must take the coreset path"
    assert model.coreset_result_.metric == "cosine"
    in_memory = smartigan.cluster(directions_local, COS_K, seed=3, metric="cosine")
    assert model.inertia_ <= 1.01 * in_memory.objective
    np.testing.assert_allclose(np.linalg.norm(model.cluster_centers_, axis=1), 1.0, atol=1e-12)
    # inertia_ and history_ are the exact spherical loss of the centres (nearest by cosine).
    assert model.inertia_ == pytest.approx(cosine_objective(directions_local, model.cluster_centers_), rel=1e-10)
    assert model.history_[0] == pytest.approx(cosine_objective(directions_local, model.coreset_result_.centroids),
                                              rel=1e-10)
    assert np.all(np.diff(model.history_) <= 0)
    # The Euclidean fit of the same data is not this one: the rows' lengths differ widely.
    assert cosine_objective(directions_local, KMeans(COS_K, random_state=3, coreset_size=6_000)
                            .fit(directions_local).cluster_centers_) > 1.05 * model.inertia_


def test_cosine_polish_moves_centres_to_normalised_sums(client: Any, directions_data: Any,
                                                        directions_local: np.ndarray) -> None:
    model = KMeans(COS_K, metric="cosine", random_state=4, coreset_size=300, tol=0.0).fit(directions_data)
    assert len(model.history_) >= 3, "a small coreset should leave work for the Lloyd passes"
    assert np.all(np.diff(model.history_) <= 0)
    # After the last kept pass, each centre is (to rounding) the direction of its rows' sum.
    U = directions_local / np.linalg.norm(directions_local, axis=1, keepdims=True)
    labels = model.labels_.compute()
    sums = np.array([U[labels == j].sum(axis=0) for j in range(COS_K)])
    directions = sums / np.linalg.norm(sums, axis=1, keepdims=True)
    np.testing.assert_allclose(model.cluster_centers_, directions, atol=1e-3)


def test_cosine_bit_identical_for_one_and_two_workers(client: Any, directions_data: Any,
                                                      cosine_fitted: KMeans) -> None:
    reference = cosine_fitted.cluster_centers_
    with dask.config.set(scheduler="synchronous"):
        again = KMeans(COS_K, metric="cosine", random_state=3, coreset_size=6_000).fit(directions_data)
    np.testing.assert_array_equal(again.cluster_centers_, reference)
    with local_cluster(n_workers=1, threads_per_worker=2) as one:
        with distributed.Client(one, set_as_default=False) as other, other.as_current():
            alone = KMeans(COS_K, metric="cosine", random_state=3, coreset_size=6_000).fit(directions_data)
    np.testing.assert_array_equal(alone.cluster_centers_, reference)
    assert alone.inertia_ == cosine_fitted.inertia_


def test_cosine_predict_transform_score(client: Any, directions_data: Any, directions_local: np.ndarray,
                                        cosine_fitted: KMeans) -> None:
    model = cosine_fitted
    new = directions_local[:2000] * 7.0 + 0.1
    U = new / np.linalg.norm(new, axis=1, keepdims=True)
    expected = 1.0 - U @ model.cluster_centers_.T
    np.testing.assert_allclose(model.transform(new), expected, atol=1e-12)
    np.testing.assert_array_equal(model.predict(new), expected.argmin(axis=1))
    np.testing.assert_array_equal(model.predict(da.from_array(new, chunks=500)).compute(), expected.argmin(axis=1))
    np.testing.assert_allclose(model.transform(da.from_array(new, chunks=500)).compute(), expected, atol=1e-12)
    np.testing.assert_array_equal(model.labels_.compute(), model.predict(directions_local))
    assert model.score(directions_data) == pytest.approx(-model.inertia_, rel=1e-12)
    assert model.score(new) == pytest.approx(-cosine_objective(new, model.cluster_centers_), rel=1e-10)


def test_cosine_weights_float32_and_small_data(client: Any, directions_local: np.ndarray) -> None:
    small = directions_local[:3_000]
    w = np.random.default_rng(6).integers(0, 4, size=small.shape[0]).astype(np.float64)
    model = KMeans(4, metric="cosine", random_state=0).fit(da.from_array(small, chunks=1_000), sample_weight=w)
    assert model.coreset_size_ == 0  # clustered whole on the client
    reference = smartigan.cluster(small, 4, seed=0, metric="cosine", sample_weight=w)
    assert model.inertia_ <= reference.objective * (1 + 1e-9)
    assert model.inertia_ == pytest.approx(cosine_objective(small, model.cluster_centers_, w), rel=1e-10)
    single = KMeans(4, metric="cosine", random_state=0, coreset_size=500).fit(small.astype(np.float32))
    assert single.cluster_centers_.dtype == np.float32
    assert single.inertia_ == pytest.approx(cosine_objective(small, single.cluster_centers_), rel=1e-5)


def test_cosine_row_of_zeros_names_the_global_row(client: Any, directions_local: np.ndarray,
                                                  cosine_fitted: KMeans) -> None:
    bad = directions_local[:30_000].copy()
    bad[2 * COS_BLOCK + 7] = 0.0
    lazy = da.from_array(bad, chunks=(COS_BLOCK, N_FEATURES))
    message = rf"invalid X: a row of length zero at row {2 * COS_BLOCK + 7} \(block 2, rows 20000\.\.30000\)"
    with pytest.raises(ValueError, match=message):
        KMeans(COS_K, metric="cosine", random_state=0, coreset_size=5_000).fit(lazy)
    for method in (cosine_fitted.predict, cosine_fitted.transform):
        with pytest.raises(ValueError, match=message):
            method(lazy).compute()
        with pytest.raises(ValueError, match=rf"a row of length zero at row {2 * COS_BLOCK + 7}\b"):
            method(bad)
    with pytest.raises(ValueError, match=message):
        cosine_fitted.score(lazy)
    # The Euclidean estimator takes the same data.
    assert KMeans(2, random_state=0, coreset_size=5_000).fit(lazy).inertia_ > 0


def test_auto_with_cosine_reads_the_spherical_totals(client: Any, directions_data: Any,
                                                     directions_local: np.ndarray) -> None:
    from smartigan._criteria import calinski_harabasz

    model = KMeans("auto", metric="cosine", k_range=[4, 8, 12, 16], criterion="calinski_harabasz",
                   coreset_size=6_000, random_state=3).fit(directions_data)
    assert model.coreset_size_ > 0 and model.path_ is not None and model.path_.metric == "cosine"
    assert model.n_clusters_ == model.path_.suggested["calinski_harabasz"]
    np.testing.assert_allclose(np.linalg.norm(model.cluster_centers_, axis=1), 1.0, atol=1e-12)
    # The loss at k = 1 of the full data's unit rows: n - ||sum u||.
    U = directions_local / np.linalg.norm(directions_local, axis=1, keepdims=True)
    total = len(U) - float(np.linalg.norm(U.sum(axis=0)))
    want = calinski_harabasz(model.path_.objectives, model.path_.ks, total, float(len(U)))
    np.testing.assert_allclose(model.path_.criteria["calinski_harabasz"], want, rtol=1e-9)
