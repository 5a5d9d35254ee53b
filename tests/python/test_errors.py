"""Every bad input gets a clear error naming the parameter and the value."""

import numpy as np
import pytest

from smartigan import Clusterer, NotFittedError, cluster

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
    ("None", None, TypeError, "object"),
    ("datetime", np.array([["2020-01-01"]], dtype="datetime64[D]"), TypeError, "non-numeric"),
    ("nan in f32", np.full((3, 2), np.nan, dtype=np.float32), ValueError, "non-finite value (NaN)"),
    ("inf in int->float", np.array([[1, 2], [3, 2**63 - 1]], dtype=np.uint64) * 0 + np.array([[0], [np.inf]]), ValueError, "non-finite value (inf)"),
    ("too spread out", np.array([[0.0], [1e200], [2.0]]), ValueError, "too spread out"),
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
    ("refine", dict(refine=1), TypeError, "refine must be True or False"),
    ("n_init=0", dict(n_init=0), ValueError, "invalid n_init: 0"),
    ("n_init<0", dict(n_init=-3), ValueError, "invalid n_init: -3"),
    ("n_threads=0", dict(n_threads=0), ValueError, "invalid n_threads: 0"),
    ("n_threads<0", dict(n_threads=-1), ValueError, "invalid n_threads: -1"),
    ("seed<0", dict(seed=-1), ValueError, "invalid seed: -1"),
    ("seed too large", dict(seed=2**64), ValueError, "invalid seed: 18446744073709551616"),
    ("seed float", dict(seed=1.5), TypeError, "seed must be an integer"),
    ("seed str", dict(seed="1"), TypeError, "seed must be an integer"),
    ("seed list", dict(seed=[1]), TypeError, "seed must be an integer"),
    ("seed np.float", dict(seed=np.float64(1.0)), TypeError, "seed must be an integer"),
    ("seed huge negative", dict(seed=-(2**70)), ValueError, "invalid seed"),
    ("k None", dict(k=None), TypeError, "k must be an integer"),
    ("k np.float", dict(k=np.float64(2.0)), TypeError, "k must be an integer"),
    ("k np.bool", dict(k=np.bool_(True)), TypeError, "k must be an integer"),
    ("k beyond int64", dict(k=2**64), ValueError, "invalid k"),
    ("n_iter float", dict(n_iter=10.0), TypeError, "n_iter must be an integer"),
    ("n_init float", dict(n_init=2.0), TypeError, "n_init must be an integer, 'auto', 'best' or 'fast'"),
    ("n_init None", dict(n_init=None), TypeError, "n_init must be an integer, 'auto', 'best' or 'fast'"),
    ("n_init str", dict(n_init="many"), ValueError, "invalid n_init: 'many' \\(must be a positive integer, 'auto', 'best' or 'fast'\\)"),
    ("n_init huge", dict(n_init=10**7), ValueError, "invalid n_init: 10000000 \\(must be between 1 and 1000000\\)"),
    ("n_threads float", dict(n_threads=2.0), TypeError, "n_threads must be an integer"),
    ("n_threads huge", dict(n_threads=5000), ValueError, "invalid n_threads: 5000 \\(must be between 1 and 1024"),
    ("method None", dict(method=None), TypeError, "method must be a string"),
    ("method case", dict(method="Lloyd"), ValueError, "allowed: 'lloyd', 'hartigan', 'smartigan'"),
    ("init None", dict(init=None), TypeError, "init"),
    ("init complex", dict(k=2, init=np.zeros((2, 3), dtype=complex)), TypeError, "init has complex dtype"),
    ("init inf", dict(k=2, init=np.array([[0, 0, np.inf], [1, 1, 1]])), ValueError, "init contains a non-finite value \\(inf\\)"),
    ("init 3-d", dict(k=2, init=np.zeros((2, 3, 1))), ValueError, "init must be a 2-d array"),
    ("schedule end 0", dict(schedule=(1.5, 0.0)), ValueError, "start >= end > 0"),
    ("schedule negative", dict(schedule=(-1.0, -2.0)), ValueError, "start >= end > 0"),
    ("schedule three", dict(schedule=(1.5, 1.2, 1.0)), TypeError, "schedule must be a pair"),
    ("schedule complex", dict(schedule=(1.5j, 1.0)), TypeError, "schedule must be a pair"),
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


# predict/transform on new data: every bad Y gets a clear error.
BAD_NEW_DATA = [
    ("fewer features", GOOD[:, :2], ValueError, "Y has 2 features, but this Clusterer was fitted with 3 features"),
    ("more features", np.zeros((4, 5)), ValueError, "Y has 5 features, but this Clusterer was fitted with 3 features"),
    ("nan", np.full((2, 3), np.nan), ValueError, "x contains a non-finite value \\(NaN\\)"),
    ("-inf", np.full((2, 3), -np.inf), ValueError, "non-finite value \\(-inf\\)"),
    ("1-d", np.zeros(3), ValueError, "Y must be a 2-d array"),
    ("3-d", np.zeros((2, 3, 1)), ValueError, "Y must be a 2-d array"),
    ("complex", np.zeros((2, 3), dtype=complex), TypeError, "Y has complex dtype"),
    ("object", np.zeros((2, 3), dtype=object), TypeError, "object"),
    ("bool", np.zeros((2, 3), dtype=bool), TypeError, "boolean"),
    ("float16", np.zeros((2, 3), dtype=np.float16), TypeError, "float16"),
    ("string", np.array([["a", "b", "c"]]), TypeError, "non-numeric"),
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name,Y,exc,fragment", BAD_NEW_DATA, ids=[c[0] for c in BAD_NEW_DATA])
def test_bad_new_data(name, Y, exc, fragment, dtype):
    m = Clusterer(2, seed=0).fit(GOOD.astype(dtype))
    for call in (m.predict, m.transform):
        with pytest.raises(exc, match=fragment):
            call(Y)


def test_new_data_with_no_rows_is_fine():
    m = Clusterer(2, seed=0).fit(GOOD)
    assert m.predict(np.zeros((0, 3))).shape == (0,)
    assert m.transform(np.zeros((0, 3))).shape == (0, 2)


UNFITTED_CALLS = [
    ("predict", lambda m: m.predict(GOOD), "not fitted yet"),
    ("transform", lambda m: m.transform(GOOD), "not fitted yet"),
    ("step", lambda m: m.step(), "call start"),
    ("finish", lambda m: m.finish(), "call start"),
] + [(a, (lambda a: lambda m: getattr(m, a))(a), "not fitted yet") for a in
     ("labels_", "centroids_", "objective_", "n_sweeps_", "converged_", "history_", "moves_",
      "restart_objectives_", "seed_", "n_features_in_")]


@pytest.mark.parametrize("name,call,fragment", UNFITTED_CALLS, ids=[c[0] for c in UNFITTED_CALLS])
def test_unfitted_calls(name, call, fragment):
    m = Clusterer(2, seed=0)
    with pytest.raises(NotFittedError, match=fragment):
        call(m)
    # NotFittedError is both a ValueError and an AttributeError (as in scikit-learn).
    with pytest.raises(ValueError):
        call(m)
    with pytest.raises(AttributeError):
        call(m)
    assert m.result_ is None and not m.running


def test_step_and_finish_after_the_run_ended():
    m = Clusterer(2, seed=0).start(GOOD)
    m.finish()
    with pytest.raises(NotFittedError, match="call start"):
        m.step()
    with pytest.raises(NotFittedError, match="call start"):
        m.finish()
    assert m.labels_.shape == (10,)  # the finished fit is still there


def test_failed_fit_keeps_the_previous_result():
    m = Clusterer(2, seed=0).fit(GOOD)
    labels, objective = m.labels_.copy(), m.objective_
    with pytest.raises(ValueError):
        m.fit(np.full((10, 3), np.nan))
    with pytest.raises(ValueError):
        m.fit(GOOD[:1])  # k > n
    with pytest.raises(ValueError):
        m.start(GOOD[:, :0])
    np.testing.assert_array_equal(m.labels_, labels)
    assert m.objective_ == objective and m.n_features_in_ == 3


@pytest.mark.parametrize("sparse", [False, True])
def test_values_beyond_float32_for_a_float32_model_are_named_as_such(sparse):
    # a float32 model casts its input to float32: 1e39 would become inf, and
    # "contains a non-finite value (inf)" would blame data that hold none
    m = Clusterer(2, seed=0).fit(GOOD.astype(np.float32))
    Y = np.zeros((3, 3))
    Y[2, 1] = -1e39
    if sparse:
        Y = pytest.importorskip("scipy.sparse").csr_matrix(Y)
    for call in (m.predict, m.transform):
        with pytest.raises(ValueError, match=r"Y holds -1e\+39 at row 2, column 1, out of float32's range "
                                             r"\(largest 3\.402823e\+38\) for this float32 model"):
            call(Y)
    # the largest float32, given as float64, is in range; a float64 model takes 1e39 as it is
    assert m.predict(np.full((1, 3), float(np.finfo(np.float32).max))).shape == (1,)
    assert Clusterer(2, seed=0).fit(GOOD).predict(np.full((1, 3), 1e39)).shape == (1,)
