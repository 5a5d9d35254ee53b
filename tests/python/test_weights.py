"""sample_weight through the Python API (the semantics are tested in tests/core/weights.rs)."""

import numpy as np
import pytest

from smartigan import Clusterer, cluster, kmeans_plusplus

from conftest import blobs


@pytest.mark.parametrize("method", ["lloyd", "hartigan", "smartigan"])
def test_unit_weights_equal_no_weights(method):
    X = blobs(200, 3, 4, 1.0, 1)
    a = cluster(X, 4, method, seed=3)
    b = cluster(X, 4, method, seed=3, sample_weight=np.ones(200))
    np.testing.assert_array_equal(a.labels, b.labels)
    assert a.objective == b.objective


def test_weighted_objective_and_means():
    X = blobs(300, 2, 5, 1.0, 2)
    w = np.linspace(0.1, 3.0, 300)
    r = cluster(X, 5, "hartigan", seed=1, sample_weight=w.tolist())
    d2 = ((X - r.centroids[r.labels]) ** 2).sum(1)
    assert r.objective == pytest.approx((w * d2).sum(), rel=1e-9)
    # Sizes count points (not weight); per-cluster objectives are weighted.
    np.testing.assert_array_equal(r.cluster_sizes, np.bincount(r.labels, minlength=5))
    np.testing.assert_allclose(r.cluster_objectives, np.bincount(r.labels, w * d2, minlength=5), rtol=1e-9)
    for j in range(5):
        m = r.labels == j
        np.testing.assert_allclose(r.centroids[j], (w[m, None] * X[m]).sum(0) / w[m].sum(), rtol=1e-10)


def test_integer_weights_match_repetition_for_lloyd():
    X = blobs(90, 2, 3, 1.0, 3)
    w = np.arange(90) % 3 + 1
    init = X[[0, 1, 2]]
    a = cluster(X, 3, "lloyd", 300, init=init, n_init=1, sample_weight=w)
    b = cluster(np.repeat(X, w, axis=0), 3, "lloyd", 300, init=init, n_init=1)
    np.testing.assert_array_equal(np.repeat(a.labels, w), b.labels)
    assert a.objective == pytest.approx(b.objective, rel=1e-12)


def test_clusterer_accepts_weights_in_fit_and_start():
    X = blobs(150, 2, 3, 1.0, 4)
    w = np.full(150, 2.0)
    one = Clusterer(3, seed=0).fit(X, sample_weight=w)
    m = Clusterer(3, seed=0).start(X, sample_weight=w)
    while m.step():
        pass
    np.testing.assert_array_equal(m.labels_, one.labels_)
    assert m.objective_ == one.objective_ == pytest.approx(2 * cluster(X, 3, seed=0).objective, rel=1e-12)


@pytest.mark.parametrize(
    "w,exc,fragment",
    [
        (np.ones(9), ValueError, "invalid shape of sample_weight"),
        (-np.ones(10), ValueError, "invalid sample_weight: -1 at index 0"),
        (np.r_[np.nan, np.ones(9)], ValueError, "invalid sample_weight: NaN at index 0"),
        (np.zeros(10), ValueError, "0 positive weights"),
        (np.ones((10, 1)), ValueError, "sample_weight must be a 1-d array"),
        (np.array(["a"] * 10), TypeError, "sample_weight must be real numbers"),
        (np.ones(10, dtype=complex), TypeError, "sample_weight must be real numbers"),
    ],
)
def test_bad_weights(w, exc, fragment):
    with pytest.raises(exc, match=fragment):
        cluster(np.arange(20.0).reshape(10, 2), 2, sample_weight=w)


# ---- sparse input ----------------------------------------------------------

sparse = pytest.importorskip("scipy.sparse")


def sparse_counts(n=300, d=80, groups=4, seed=0):
    rng = np.random.default_rng(seed)
    own = (np.arange(d)[None, :] % groups) == (np.arange(n)[:, None] % groups)
    p = np.where(own, 0.4, 0.03)
    return np.where(rng.random((n, d)) < p, rng.integers(1, 5, size=(n, d)), 0).astype(np.float64)


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
@pytest.mark.parametrize("method", ["lloyd", "hartigan", "smartigan"])
def test_sparse_equals_dense(fmt, method):
    D = sparse_counts()
    S = sparse.csr_matrix(D).asformat(fmt)
    a = cluster(D, 4, method, seed=2, n_init=3)
    b = cluster(S, 4, method, seed=2, n_init=3)
    np.testing.assert_array_equal(a.labels, b.labels)
    assert b.objective == pytest.approx(a.objective, rel=1e-9)
    np.testing.assert_allclose(b.centroids, a.centroids, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(b.cluster_sizes, a.cluster_sizes)
    np.testing.assert_allclose(b.cluster_objectives, a.cluster_objectives, rtol=1e-9, atol=1e-12)


def test_sparse_float32_weights_duplicates_and_clusterer():
    D = sparse_counts(seed=1)
    coo = sparse.coo_matrix(D)
    # duplicate entries (split each value in two) must be summed, not lost
    dup = sparse.coo_matrix((np.r_[coo.data / 2, coo.data / 2], (np.r_[coo.row, coo.row], np.r_[coo.col, coo.col])),
                            shape=D.shape)
    w = np.arange(300) % 3 + 1.0
    a = cluster(D, 4, "hartigan", seed=0, sample_weight=w)
    b = cluster(dup, 4, "hartigan", seed=0, sample_weight=w)
    np.testing.assert_array_equal(a.labels, b.labels)
    r32 = cluster(sparse.csr_matrix(D.astype(np.float32)), 4, seed=0)
    assert r32.centroids.dtype == np.float32
    m = Clusterer(4, seed=0).fit(sparse.csr_matrix(D))
    assert m.n_features_in_ == 80
    np.testing.assert_array_equal(m.predict(sparse.csr_matrix(D)), m.labels_)
    np.testing.assert_array_equal(m.predict(D), m.labels_)
    np.testing.assert_allclose(m.transform(sparse.csr_matrix(D)), m.transform(D), rtol=1e-9, atol=1e-9)
    with pytest.raises(ValueError, match="Y has 3 features"):
        m.predict(sparse.csr_matrix(np.ones((2, 3))))
    stepped = Clusterer(4, seed=0).start(sparse.csr_matrix(D)).finish()
    np.testing.assert_array_equal(stepped.labels_, m.labels_)
    assert stepped.objective_ == m.objective_


def test_sparse_kmeans_plusplus_picks_the_dense_rows():
    D = sparse_counts(seed=3)
    w = np.arange(300) % 4 + 0.5
    for weights in (None, w):
        rows, idx = kmeans_plusplus(sparse.csr_matrix(D.astype(np.float32)), 5, seed=4, sample_weight=weights)
        dense_rows, dense_idx = kmeans_plusplus(D.astype(np.float32), 5, seed=4, sample_weight=weights)
        assert idx.tolist() == dense_idx.tolist()
        assert rows.dtype == np.float32 and not sparse.issparse(rows)
        np.testing.assert_array_equal(rows, dense_rows)


def test_sparse_bad_input():
    with pytest.raises(ValueError, match="non-finite"):
        cluster(sparse.csr_matrix(np.array([[1.0, np.nan], [0.0, 1.0]])), 1)
    with pytest.raises(TypeError, match="complex"):
        cluster(sparse.csr_matrix(np.ones((3, 2), dtype=complex)), 1)
    with pytest.raises(ValueError, match="invalid k: 5"):
        cluster(sparse.csr_matrix(np.ones((3, 2))), 5)
    with pytest.raises(ValueError, match="invalid shape of x"):
        cluster(sparse.csr_matrix((0, 4)), 1)
