"""Size bounds (size_min, size_max, "balanced") through every front end, and their errors."""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.sparse as sp

import smartigan
from smartigan.cli import main
from smartigan.sklearn import KMeans


def _unequal(seed: int = 0) -> np.ndarray:
    """Three blobs of 60, 25 and 15 rows: balanced bounds must move rows out of the big one."""
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [6.0, 0.0], [0.0, 6.0]])
    return np.concatenate([c + rng.normal(size=(m, 2)) for c, m in zip(centres, (60, 25, 15))])


def _objective(X: np.ndarray, labels: np.ndarray, k: int) -> float:
    return float(sum(((X[labels == j] - X[labels == j].mean(axis=0)) ** 2).sum() for j in range(k)))


@pytest.mark.parametrize("method", ["hartigan", "smartigan"])
def test_balanced_bounds_are_met_and_the_objective_is_the_labels(method):
    X = _unequal()
    r = smartigan.cluster(X, 3, method, seed=1, size_min="balanced", size_max="balanced")
    assert sorted(r.cluster_sizes.tolist()) == [33, 33, 34]
    assert np.bincount(r.labels, minlength=3).tolist() == r.cluster_sizes.tolist()
    assert r.objective == pytest.approx(_objective(X, r.labels, 3), rel=1e-9)
    free = smartigan.cluster(X, 3, method, seed=1)
    assert r.objective >= free.objective * (1 - 1e-12)


def test_per_cluster_bounds_and_sparse_and_weights():
    X = _unequal(1)
    r = smartigan.cluster(X, 3, seed=0, size_min=[20, 20, 20], size_max=[40, 40, 40])
    assert all(20 <= s <= 40 for s in r.cluster_sizes)
    w = np.random.default_rng(2).uniform(0.5, 2.0, size=len(X))
    rw = smartigan.cluster(sp.csr_matrix(X), 3, seed=0, size_max=35, sample_weight=w)
    # Sizes count rows, with or without weights.
    assert rw.cluster_sizes.max() <= 35 and rw.cluster_sizes.sum() == len(X)


def test_bounds_that_do_not_bind_give_the_unconstrained_fit_bit_for_bit():
    X = _unequal(3)
    free = smartigan.cluster(X, 3, seed=5)
    loose = smartigan.cluster(X, 3, seed=5, size_min=1, size_max=len(X))
    assert np.array_equal(free.labels, loose.labels)
    assert free.objective == loose.objective
    assert np.array_equal(free.centroids, loose.centroids)


def test_same_result_for_any_thread_count():
    X = _unequal(4)
    a = smartigan.cluster(X, 3, seed=7, n_threads=1, size_min="balanced", size_max="balanced")
    b = smartigan.cluster(X, 3, seed=7, n_threads=2, size_min="balanced", size_max="balanced")
    assert np.array_equal(a.labels, b.labels) and a.objective == b.objective


def test_clusterer_and_estimator_take_the_bounds():
    X = _unequal(5)
    model = smartigan.Clusterer(3, seed=0, size_min="balanced", size_max="balanced").fit(X)
    assert sorted(np.bincount(model.labels_).tolist()) == [33, 33, 34]
    km = KMeans(3, random_state=0, size_min=30, size_max=36).fit(X)
    assert all(30 <= s <= 36 for s in np.bincount(km.labels_, minlength=3))
    assert km.get_params()["size_min"] == 30 and km.get_params()["size_max"] == 36
    # predict stays nearest-centroid
    nearest = np.argmin(((X[:, None, :] - km.cluster_centers_[None]) ** 2).sum(axis=2), axis=1)
    assert np.array_equal(km.predict(X), nearest)


@pytest.mark.parametrize("kwargs, error, words", [
    (dict(size_min=40), ValueError, "size_min"),            # 3 * 40 > 100 rows
    (dict(size_max=30), ValueError, "size_max"),            # 3 * 30 < 100 rows
    (dict(size_min=20, size_max=10), ValueError, "size_m"),
    (dict(size_min=[1, 2]), ValueError, "size_min"),        # not k of them
    (dict(size_min="even"), ValueError, "size_min"),
    (dict(size_max=2.5), TypeError, "size_max"),
    (dict(size_max=[[1, 2, 3]]), TypeError, "size_max"),
    (dict(size_min=True), TypeError, "size_min"),
    (dict(size_min=-1), ValueError, "size_min"),
    (dict(size_max="balanced", method="lloyd"), ValueError, "lloyd"),
])
def test_bad_bounds_name_the_parameter(kwargs, error, words):
    X = _unequal(6)
    with pytest.raises(error, match=words):
        smartigan.cluster(X, 3, seed=0, **kwargs)


def test_choosing_k_takes_no_bounds():
    X = _unequal(7)
    with pytest.raises(ValueError, match="size_min"):
        smartigan.cluster_path(X, range(2, 5), seed=0, size_min=10)
    with pytest.raises(ValueError, match="size_min and size_max need a fixed n_clusters"):
        KMeans("auto", random_state=0, size_max=50).fit(X)


def test_command_line_bounds(tmp_path, capsys):
    X = _unequal(8)
    p = tmp_path / "d.npy"
    np.save(p, X)
    assert main(["fit", str(p), "-k", "3", "--seed", "0", "--balanced", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert sorted(out["sizes"]) == [33, 33, 34]
    assert main(["fit", str(p), "-k", "3", "--seed", "0", "--size-min", "30", "--size-max", "34,34,40",
                 "--json"]) == 0
    sizes = json.loads(capsys.readouterr().out)["sizes"]
    assert min(sizes) >= 30 and sizes[0] <= 34 and sizes[1] <= 34
    assert main(["fit", str(p), "-k", "3", "--balanced", "--size-min", "3"]) == 2
    assert "--balanced sets both size bounds" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["fit", str(p), "-k", "3", "--size-min", "x"])
    assert "expected an integer, comma-separated integers or 'balanced'" in capsys.readouterr().err


def _cosine_loss(X: np.ndarray, labels: np.ndarray, k: int, w: np.ndarray) -> float:
    """``sum_j (W_j - |s_j|)`` over the rows scaled to unit length."""
    U = X / np.linalg.norm(X, axis=1, keepdims=True)
    return float(sum(w[labels == j].sum() - np.linalg.norm((w[labels == j, None] * U[labels == j]).sum(axis=0))
                     for j in range(k)))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_cosine_takes_the_bounds_on_every_front_end(dtype, tmp_path, capsys):
    X = (_unequal(9) + np.array([3.0, 3.0])).astype(dtype)  # directions that differ between the blobs
    w = np.random.default_rng(3).uniform(0.5, 2.0, size=len(X))
    for data in (X, sp.csr_matrix(X)):
        r = smartigan.cluster(data, 3, seed=0, metric="cosine", size_min="balanced", size_max="balanced",
                              sample_weight=w)
        assert sorted(r.cluster_sizes.tolist()) == [33, 33, 34]
        assert r.objective == pytest.approx(_cosine_loss(X.astype(np.float64), r.labels, 3, w), rel=1e-6)
        free = smartigan.cluster(data, 3, seed=0, metric="cosine", sample_weight=w)
        assert r.objective >= free.objective * (1 - 1e-6)
    loose = smartigan.cluster(X, 3, seed=4, metric="cosine", size_min=1, size_max=len(X))
    free = smartigan.cluster(X, 3, seed=4, metric="cosine")
    assert np.array_equal(loose.labels, free.labels) and loose.objective == free.objective
    km = KMeans(3, random_state=0, metric="cosine", size_min=30, size_max=36).fit(X)
    assert all(30 <= s <= 36 for s in np.bincount(km.labels_, minlength=3))
    p = tmp_path / "d.npy"
    np.save(p, X)
    assert main(["fit", str(p), "-k", "3", "--seed", "0", "--metric", "cosine", "--balanced", "--json"]) == 0
    assert sorted(json.loads(capsys.readouterr().out)["sizes"]) == [33, 33, 34]
