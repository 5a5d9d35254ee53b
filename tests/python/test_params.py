"""One parameter object and one result object across the boundary: the
names come from the core, ``cluster`` forwards every parameter of
``Clusterer``, and the core's result has exactly ``ClusterResult``'s fields."""

from __future__ import annotations

import dataclasses
import inspect
from typing import get_args

import numpy as np
import pytest

import smartigan
from smartigan import ClusterResult, Clusterer, _core, _params, cluster


def test_method_and_init_names_are_the_cores():
    assert _params.METHODS == _core.METHODS == ("lloyd", "hartigan", "smartigan")
    assert set(_params.INITS) == {"random-partition", "forgy", "k-means++"}
    # The Literal types that type checkers see spell out the same names.
    assert get_args(_params.Method) == _core.METHODS
    assert get_args(_params.InitName) == _core.INITS
    assert _core.DEFAULT_METHOD in _core.METHODS and _core.DEFAULT_INIT in _core.INITS


def test_cluster_takes_exactly_the_clusterers_parameters():
    wrapper = inspect.signature(cluster).parameters
    model = inspect.signature(Clusterer).parameters
    assert [n for n in wrapper if n not in ("X", "sample_weight")] == list(model)
    for name, p in model.items():
        assert (wrapper[name].default, wrapper[name].kind) == (p.default, p.kind), name
    assert smartigan._api.PARAMETERS == tuple(model)


def test_cluster_path_takes_every_parameter_of_cluster_but_k():
    path = inspect.signature(smartigan.cluster_path).parameters
    model = inspect.signature(Clusterer).parameters
    for name, p in model.items():
        if name != "k":
            assert (path[name].default, path[name].kind) == (p.default, inspect.Parameter.KEYWORD_ONLY), name


def test_every_parameter_reaches_the_core():
    X = np.random.default_rng(0).normal(size=(60, 2))
    settings = dict(k=3, method="hartigan", n_iter=7, seed=11, init="forgy", n_init=2, schedule=(1.2, 1.0),
                    polish=False, refine=False, n_threads=1, tol=0.0)
    one = cluster(X, **settings)
    assert (one.seed, one.restart_objectives.shape, one.refinements) == (11, (2,), 0)
    assert one.n_sweeps <= 7
    # The same settings through the core's parameter object give the same bits.
    direct = _core.fit(X, _params.core_params(**settings))
    assert direct.objective == one.objective
    np.testing.assert_array_equal(direct.labels, one.labels)


def test_core_params_rejects_unknown_settings():
    with pytest.raises(TypeError, match="unknown parameters: colour"):
        _params.core_params(k=2, colour="red")
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        _core.Params(2, colour="red")


def test_left_out_settings_are_the_cores_defaults():
    X = np.random.default_rng(1).normal(size=(80, 3))
    explicit = _params.core_params(k=4, seed=2, method=_core.DEFAULT_METHOD, init=_core.DEFAULT_INIT,
                                   schedule=_core.DEFAULT_SCHEDULE, polish=_core.DEFAULT_POLISH,
                                   refine=_core.DEFAULT_REFINE, tol="auto")
    implicit = _params.core_params(k=4, seed=2)
    a, b = _core.fit(X, explicit), _core.fit(X, implicit)
    assert a.objective == b.objective
    np.testing.assert_array_equal(a.labels, b.labels)


def test_the_core_result_has_the_fields_of_cluster_result():
    X = np.random.default_rng(2).normal(size=(40, 2)).astype(np.float32)
    raw = _core.fit(X, _params.core_params(k=2, seed=0))
    exposed = {name for name in dir(raw) if not name.startswith("_")}
    assert exposed == {f.name for f in dataclasses.fields(ClusterResult)}
    result = ClusterResult._from_core(raw)
    assert result.centroids.dtype == np.float32 and result.labels.dtype == np.int64
    assert result.cluster_sizes.dtype == np.int64 and result.moves.dtype == np.int64
    assert result.objective == raw.objective and result.seed == 0


def test_default_n_iter_is_the_cores_rule():
    assert _params.default_n_iter("smartigan") == _core.DEFAULT_N_ITER
    assert _params.default_n_iter("smartigan", 150, 4, 3) == _core.DEFAULT_N_ITER
    assert _params.default_n_iter("smartigan", 100_000, 32, 100) == _core.DEFAULT_N_ITER_LARGE == 5
    assert _params.default_n_iter("hartigan", 100_000, 32, 100) == _core.DEFAULT_MAX_ITER
    with pytest.raises(ValueError, match="n_samples"):
        _params.default_n_iter("smartigan", -1, 32, 100)
    assert _params.default_n_iter("lloyd") == _params.default_n_iter("hartigan") == _core.DEFAULT_MAX_ITER
    with pytest.raises(ValueError, match="invalid method: 'kmeans'"):
        _params.default_n_iter("kmeans")


def test_core_names_arrays_it_cannot_read():
    # The package converts every input first; calling _core directly with
    # the wrong arrays is a TypeError naming the argument, never a crash.
    X = np.zeros((3, 2))
    cases = [
        (lambda: _core.predict(X, np.zeros((2, 2), np.float32)), "x and centroids must have the same dtype"),
        (lambda: _core.transform(X, np.zeros(2)), "centroids must be a 2-d float32 or float64"),
        (lambda: _core.fit(X.astype(np.int64), _core.Params(1)), "x must be a 2-d float32 or float64"),
        (lambda: _core.fit(np.zeros(3), _core.Params(1)), "x must be a 2-d float32 or float64"),
    ]
    sparse = _core.CsrMatrix(2, np.array([0, 1, 1, 1], np.uintp), np.array([0], np.uintp), np.ones(1))
    cases += [
        (lambda: _core.fit(_core.CsrMatrix(2, np.array([0, 1], np.uintp), np.array([0], np.uintp),
                                           np.ones(1, int)), _core.Params(1)), "x.data must be a contiguous 1-d"),
    ]
    for call, message in cases:
        with pytest.raises(TypeError, match=message):
            call()
    # The same sparse matrix is read fine where sparse rows are supported.
    assert _core.predict(sparse, np.zeros((1, 2))).tolist() == [0, 0, 0]


def test_n_threads_reaches_the_core_unchanged():
    # How many threads actually run is the core's decision (it may use fewer
    # when there is less parallel work); Python neither caps nor raises it.
    for n in (1, 3, 1024):
        assert f"n_threads: Some({n})" in repr(_params.core_params(k=2, n_threads=n))
    assert "n_threads: None" in repr(_params.core_params(k=2))
