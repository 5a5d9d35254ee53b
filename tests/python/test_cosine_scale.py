"""The cosine objective at the edges of float64, through the Python fronts:
rows of subnormal length, weights of a tiny or huge common scale, init
arrays of any scale and clusters whose unit rows cancel give the answers
their unit-scale twins give (never NaN, a zero centroid or a wrong
objective)."""

import json
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp

import smartigan
import smartigan.sklearn
from smartigan import cluster, cluster_path

from conftest import blobs

FOUR = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9]])
ONE_THREAD = dict(seed=0, n_threads=1)


def cosine_loss(X, labels, centroids, w=None):
    """Sum of w·(1 - cos) from scratch, rows scaled by their largest entry first."""
    X = np.asarray(X, dtype=float)
    U = X / np.abs(X).max(axis=1, keepdims=True)
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    C = centroids / np.linalg.norm(centroids, axis=1, keepdims=True)
    loss = 1.0 - np.einsum("ij,ij->i", U, C[labels])
    return float(np.sum(loss if w is None else np.asarray(w) * loss))


@pytest.mark.parametrize("sparse", [False, True])
def test_a_row_of_subnormal_length_is_its_direction(sparse):
    X = np.vstack([FOUR, [[1e-310, 0.0]]])
    twin = np.vstack([FOUR, [[1.0, 0.0]]])
    as_input = sp.csr_matrix if sparse else np.asarray
    r = cluster(as_input(X), 2, metric="cosine", **ONE_THREAD)
    t = cluster(as_input(twin), 2, metric="cosine", **ONE_THREAD)
    assert np.isfinite(r.objective)
    np.testing.assert_array_equal(r.labels, t.labels)
    np.testing.assert_array_equal(r.centroids, t.centroids)
    assert r.objective == pytest.approx(cosine_loss(X, r.labels, r.centroids), rel=1e-12, abs=1e-15)
    np.testing.assert_allclose(np.linalg.norm(r.centroids, axis=1), 1.0)


def test_bounded_fits_with_a_subnormal_row_are_finite():
    X = np.vstack([FOUR, [[1e-310, 0.0], [0.0, 2e-320]]])
    r = cluster(X, 2, metric="cosine", size_min=3, size_max=3, **ONE_THREAD)
    assert np.isfinite(r.objective)
    assert r.objective == pytest.approx(cosine_loss(X, r.labels, r.centroids), rel=1e-12, abs=1e-15)


def test_predict_and_transform_see_directions_not_lengths():
    fitted = smartigan.sklearn.KMeans(2, metric="cosine", random_state=0).fit(FOUR)
    tiny, plain = np.array([[0.0, 1e-310]]), np.array([[0.0, 1.0]])
    np.testing.assert_array_equal(fitted.predict(tiny), fitted.predict(plain))
    np.testing.assert_array_equal(fitted.transform(tiny), fitted.transform(plain))


@pytest.mark.parametrize("scale", [2.0 ** -1000, 1e-200, 1e-160, 1e154, 1e200, 2.0 ** 1000])
def test_a_common_weight_scale_changes_only_the_objectives_scale(scale):
    base = cluster(FOUR, 2, metric="cosine", **ONE_THREAD)
    r = cluster(FOUR, 2, metric="cosine", sample_weight=[scale] * 4, **ONE_THREAD)
    np.testing.assert_array_equal(r.labels, base.labels)
    np.testing.assert_allclose(r.centroids, base.centroids, rtol=1e-15)
    assert r.objective / scale == pytest.approx(base.objective, rel=1e-12)
    bounded = cluster(FOUR, 2, metric="cosine", sample_weight=[scale] * 4, size_min=2, size_max=2,
                      **ONE_THREAD)
    recomputed = cosine_loss(FOUR, bounded.labels, bounded.centroids, [scale] * 4)
    assert bounded.objective == pytest.approx(recomputed, rel=1e-9)


def test_a_paths_suggestions_do_not_depend_on_the_weights_scale():
    X = blobs() - 2.5
    w = 1.0 + np.arange(len(X)) % 3
    a = cluster_path(X, range(2, 8), metric="cosine", sample_weight=w, seed=0)
    b = cluster_path(X, range(2, 8), metric="cosine", sample_weight=w * 2.0 ** -700, seed=0)
    assert a.suggested == b.suggested
    np.testing.assert_array_equal(np.asarray(b.objectives), np.asarray(a.objectives) * 2.0 ** -700)


def test_the_estimators_choice_of_k_does_not_depend_on_the_weights_scale():
    X = blobs() - 2.5
    w = np.ones(len(X))
    a = smartigan.sklearn.KMeans("auto", metric="cosine", random_state=0).fit(X, sample_weight=w)
    b = smartigan.sklearn.KMeans("auto", metric="cosine", random_state=0).fit(X, sample_weight=w * 1e-200)
    assert a.n_clusters_ == b.n_clusters_
    np.testing.assert_allclose(np.linalg.norm(b.cluster_centers_, axis=1), 1.0)


@pytest.mark.parametrize("s", [1e-200, 1e150, 1e160, 1e300])
def test_an_init_arrays_scale_changes_nothing(s):
    X = np.random.default_rng(0).normal(size=(60, 3))
    kw = dict(metric="cosine", n_init=1, refine=False, **ONE_THREAD)
    base = cluster(X, 4, "lloyd", 1, init=X[:4], **kw)
    r = cluster(X, 4, "lloyd", 1, init=X[:4] * s, **kw)
    assert r.initial_objective == pytest.approx(base.initial_objective, rel=1e-12)


@pytest.mark.parametrize("sparse", [False, True])
def test_a_cluster_whose_rows_cancel_has_its_weight_as_loss(sparse):
    X = np.array([[1.0, 0.0], [-1.0, 0.0]])
    r = cluster(sp.csr_matrix(X) if sparse else X, 1, metric="cosine", **ONE_THREAD)
    assert r.objective == 2.0
    np.testing.assert_allclose(np.linalg.norm(r.centroids, axis=1), 1.0)
    fitted = smartigan.sklearn.KMeans(1, metric="cosine", random_state=0).fit(X)
    assert fitted.inertia_ == 2.0
    np.testing.assert_array_equal(fitted.predict(X), [0, 0])


def test_rows_and_their_negatives_in_any_order():
    y = np.random.default_rng(1).normal(size=(100, 3))
    stacked = np.vstack([y, -y])
    interleaved = np.empty_like(stacked)
    interleaved[0::2], interleaved[1::2] = y, -y
    for X in (stacked, interleaved):
        assert cluster(X, 1, metric="cosine", seed=0).objective == pytest.approx(200.0, rel=1e-12)


def test_the_cli_reports_a_number_for_a_subnormal_row(tmp_path):
    path = tmp_path / "x.csv"
    np.savetxt(path, np.vstack([FOUR, [[1e-310, 0.0]]]), delimiter=",")
    out = subprocess.run([sys.executable, "-m", "smartigan", "fit", str(path), "-k", "2", "--metric", "cosine",
                          "--json", "--seed", "0"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    objective = json.loads(out.stdout)["objective"]
    assert objective is not None and np.isfinite(objective)
