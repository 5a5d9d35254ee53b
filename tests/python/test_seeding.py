"""smartigan.kmeans_plusplus: the k-means++ start on its own."""

import numpy as np
import pytest
import scipy.sparse as sp

import smartigan
from smartigan import cluster, kmeans_plusplus

from conftest import blobs


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_rows_are_the_start_of_restart_zero(dtype):
    X = blobs(600, 4, 8, seed=3).astype(dtype)
    for k in (1, 6, 25):
        centers, indices = kmeans_plusplus(X, k, seed=11)
        assert centers.shape == (k, 4) and centers.dtype == dtype
        assert indices.shape == (k,) and indices.dtype == np.int64
        np.testing.assert_array_equal(centers, X[indices])
        assert len(set(indices.tolist())) == k
        from_rows = cluster(X, k, seed=11, n_init=1, init=centers)
        own = cluster(X, k, seed=11, n_init=1)
        np.testing.assert_array_equal(from_rows.labels, own.labels)
        assert from_rows.objective == own.objective


def test_same_rows_for_any_thread_count_and_seed_changes_them():
    X = blobs(2000, 6, 15, seed=4)
    _, one = kmeans_plusplus(X, 30, seed=5, n_threads=1)
    _, two = kmeans_plusplus(X, 30, seed=5, n_threads=2)
    np.testing.assert_array_equal(one, two)
    _, other = kmeans_plusplus(X, 30, seed=6, n_threads=1)
    assert not np.array_equal(one, other)
    # seed=None draws a seed: still k distinct rows of X.
    centers, idx = kmeans_plusplus(X, 30)
    assert len(set(idx.tolist())) == 30 and np.array_equal(centers, X[idx])


def test_weights_steer_the_draw():
    X = blobs(400, 2, 4, seed=6)
    w = np.zeros(len(X))
    w[::3] = 1.0
    _, idx = kmeans_plusplus(X, 10, seed=0, sample_weight=w)
    assert (w[idx] > 0).all(), idx
    from_rows = cluster(X, 10, seed=0, n_init=1, init=X[idx], sample_weight=w)
    own = cluster(X, 10, seed=0, n_init=1, sample_weight=w)
    np.testing.assert_array_equal(from_rows.labels, own.labels)


@pytest.mark.parametrize(
    "kwargs, exc, words",
    [
        (dict(k=0), ValueError, "invalid k: 0"),
        (dict(k=401), ValueError, "invalid k: 401"),
        (dict(k=2.5), TypeError, "k must be an integer"),
        (dict(k=3, seed=-1), ValueError, "invalid seed: -1"),
        (dict(k=3, n_threads=0), ValueError, "invalid n_threads: 0"),
        (dict(k=3, sample_weight=np.ones(5)), ValueError, "sample_weight"),
    ],
)
def test_bad_parameters_name_the_parameter(kwargs, exc, words):
    X = blobs(400, 2, 4, seed=7)
    kwargs = dict(kwargs)
    k = kwargs.pop("k")
    with pytest.raises(exc, match=words):
        kmeans_plusplus(X, k, **kwargs)


def test_bad_data_is_an_error():
    with pytest.raises(ValueError, match="NaN|finite"):
        kmeans_plusplus(np.array([[0.0, np.nan], [1.0, 1.0]]), 1, seed=0)
    with pytest.raises(ValueError, match="non-finite"):
        kmeans_plusplus(sp.csr_matrix(np.array([[0.0, np.inf], [1.0, 0.0]])), 1, seed=0)
    with pytest.raises(TypeError):
        kmeans_plusplus(np.array([["a", "b"]]), 1, seed=0)


def test_exported():
    assert "kmeans_plusplus" in smartigan.__all__
