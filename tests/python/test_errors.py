"""Every bad input gets a clear error naming the parameter and the value."""

import numpy as np
import pytest

from smartigan import Clusterer, cluster

GOOD = np.arange(30, dtype=np.float64).reshape(10, 3)

BAD_DATA = [
    ("nan", np.where(np.eye(10, 3) == 1, np.nan, GOOD), ValueError, "x contains a non-finite value (NaN) at row 0, column 0"),
    ("inf", np.where(np.eye(10, 3)[::-1] == 1, np.inf, GOOD), ValueError, "non-finite value (inf)"),
    ("-inf", np.full((4, 2), -np.inf), ValueError, "non-finite value (-inf)"),
    ("complex", GOOD.astype(complex), TypeError, "complex"),
    ("object", np.array([[1, "a"], [2, "b"]], dtype=object), TypeError, "object"),
    ("string", np.array([["1", "2"], ["3", "4"]]), TypeError, "non-numeric"),
    ("bool", GOOD > 3, TypeError, "boolean"),
    ("float16", GOOD.astype(np.float16), TypeError, "float16"),
    ("0-d", np.float64(3.0), ValueError, "must be a 2-d array"),
    ("1-d", np.arange(5.0), ValueError, "got 1-d array"),
    ("3-d", np.zeros((2, 2, 2)), ValueError, "got 3-d array"),
    ("zero rows", np.zeros((0, 3)), ValueError, "invalid shape of x"),
    ("zero columns", np.zeros((5, 0)), ValueError, "invalid shape of x"),
    ("ragged", [[1.0, 2.0], [3.0]], TypeError, "could not be converted"),
]


@pytest.mark.parametrize("name,X,exc,fragment", BAD_DATA, ids=[c[0] for c in BAD_DATA])
def test_bad_data(name, X, exc, fragment):
    with pytest.raises(exc, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        cluster(X, 1)


BAD_PARAMS = [
    ("k=0", dict(k=0), ValueError, "invalid k: 0"),
    ("k<0", dict(k=-2), ValueError, "invalid k: -2"),
    ("k>n", dict(k=11), ValueError, r"invalid k: 11 \(must be between 1 and n_samples=10\)"),
    ("k float", dict(k=2.5), TypeError, "k must be an integer, got 2.5"),
    ("k True", dict(k=True), TypeError, "k must be an integer, got True"),
    ("k str", dict(k="3"), TypeError, "k must be an integer"),
    ("n_iter=0", dict(n_iter=0), ValueError, "invalid n_iter: 0"),
    ("n_iter<0", dict(n_iter=-1), ValueError, "invalid n_iter: -1"),
    ("n_iter huge", dict(n_iter=10**12), ValueError, "invalid n_iter: 1000000000000"),
    ("n_iter beyond int64", dict(n_iter=10**30), ValueError, "invalid n_iter"),
    ("method", dict(method="kmeans"), ValueError, "invalid method: 'kmeans' \\(allowed: 'lloyd', 'hartigan', 'smartigan'\\)"),
    ("method type", dict(method=1), TypeError, "method must be a string"),
    ("init", dict(init="kmeans++"), ValueError, "invalid init: 'kmeans\\+\\+' \\(allowed: 'random-partition', 'forgy', 'k-means\\+\\+'"),
    ("init shape", dict(k=2, init=np.zeros((3, 3))), ValueError, "invalid shape of init"),
    ("init features", dict(k=2, init=np.zeros((2, 4))), ValueError, "invalid shape of init"),
    ("init nan", dict(k=2, init=np.array([[0, 0, np.nan], [1, 1, 1]])), ValueError, "init contains a non-finite value"),
    ("init 1-d", dict(k=2, init=np.zeros(3)), ValueError, "init must be a 2-d array"),
    ("schedule nan", dict(schedule=(np.nan, 1.0)), ValueError, "invalid schedule: \\(NaN, 1\\)"),
    ("schedule inf", dict(schedule=(np.inf, 1.0)), ValueError, "invalid schedule"),
    ("schedule increasing", dict(schedule=(1.0, 1.5)), ValueError, "start >= end > 0"),
    ("schedule type", dict(schedule=1.5), TypeError, "schedule must be a pair"),
    ("schedule strings", dict(schedule=("a", "b")), TypeError, "schedule must be a pair"),
    ("polish", dict(polish="yes"), TypeError, "polish must be True or False"),
    ("n_init=0", dict(n_init=0), ValueError, "invalid n_init: 0"),
    ("n_init<0", dict(n_init=-3), ValueError, "invalid n_init: -3"),
    ("n_threads=0", dict(n_threads=0), ValueError, "invalid n_threads: 0"),
    ("n_threads<0", dict(n_threads=-1), ValueError, "invalid n_threads: -1"),
    ("seed<0", dict(seed=-1), ValueError, "invalid seed: -1"),
    ("seed too large", dict(seed=2**64), ValueError, "invalid seed: 18446744073709551616"),
    ("seed float", dict(seed=1.5), TypeError, "seed must be an integer"),
    ("seed str", dict(seed="1"), TypeError, "seed must be an integer"),
]


@pytest.mark.parametrize("name,kwargs,exc,fragment", BAD_PARAMS, ids=[c[0] for c in BAD_PARAMS])
def test_bad_parameters(name, kwargs, exc, fragment):
    args = dict(k=2)
    args.update(kwargs)
    k = args.pop("k")
    with pytest.raises(exc, match=fragment):
        cluster(GOOD, k, **args)
    with pytest.raises(exc, match=fragment):
        Clusterer(k, **args).fit(GOOD)


def test_largest_seed_is_accepted():
    assert cluster(GOOD, 2, seed=2**64 - 1).seed == 2**64 - 1
    assert cluster(GOOD, 2, seed=np.uint64(5)).seed == 5


def test_sparse_init_is_refused_clearly():
    sparse = pytest.importorskip("scipy.sparse")
    with pytest.raises(TypeError, match="init must be dense here"):
        cluster(GOOD, 2, init=sparse.csr_matrix(GOOD[:2]))
