"""``tol``: the relative early stop of every descent, through cluster(),
Clusterer, the estimator and the command line."""

import pickle

import numpy as np
import pytest

import smartigan
from smartigan import Clusterer, cluster

from conftest import blobs

SLOW = dict(init="random-partition", n_init=1, refine=False, seed=11)


@pytest.fixture(scope="module")
def Y() -> np.ndarray:
    return blobs(3000, 4, 12, spread=1.6, seed=5)


@pytest.mark.parametrize("method", ["lloyd", "hartigan"])
def test_tol_stops_at_the_first_small_relative_gain(Y, method):
    full = cluster(Y, 12, method, tol=0, **SLOW)
    early = cluster(Y, 12, method, tol=1e-4, **SLOW)
    s = early.n_sweeps
    assert early.converged and s < full.n_sweeps and early.moves[-1] > 0
    np.testing.assert_array_equal(early.history, full.history[:s])
    # The criterion: the last step gained at most tol of the objective,
    # every step before it more.
    objectives = np.concatenate([[early.initial_objective], early.history])
    gains = -np.diff(objectives) / objectives[1:]
    assert gains[-1] <= 1e-4 and (gains[:-1] > 1e-4).all()
    for j in range(12):
        np.testing.assert_allclose(early.centroids[j], Y[early.labels == j].mean(axis=0), rtol=1e-12, atol=1e-12)


def test_auto_tol_is_zero_on_small_problems(Y):
    # 3000·4·12 multiply-adds per pass: small, so "auto" descends to the end.
    assert smartigan._params.DEFAULT_TOL == "auto" and smartigan._params.auto_tol(3000, 4, 12) == 0.0
    a = cluster(Y, 12, "hartigan", **SLOW)
    b = cluster(Y, 12, "hartigan", tol=0, **SLOW)
    np.testing.assert_array_equal(a.labels, b.labels)
    assert a.n_sweeps == b.n_sweeps


def test_auto_tol_on_large_problems():
    # 20,000·8·12 > 2**20: "auto" is AUTO_TOL_LARGE, the same fit as asking for it.
    X = blobs(20_000, 8, 12, spread=1.6, seed=5)
    assert smartigan._params.auto_tol(20_000, 8, 12) == smartigan._params.AUTO_TOL_LARGE > 0
    auto = cluster(X, 12, "hartigan", seed=3, n_init=1)
    given = cluster(X, 12, "hartigan", seed=3, n_init=1, tol=smartigan._params.AUTO_TOL_LARGE)
    np.testing.assert_array_equal(auto.labels, given.labels)
    assert auto.history.tolist() == given.history.tolist()
    with pytest.raises(ValueError, match="n_samples"):
        smartigan._params.auto_tol(-1, 8, 12)


def test_clusterer_stepwise_equals_one_shot_with_tol(Y):
    model = Clusterer(12, "lloyd", tol=1e-4, **SLOW).start(Y)
    while model.step():
        pass
    one = cluster(Y, 12, "lloyd", tol=1e-4, **SLOW)
    np.testing.assert_array_equal(model.labels_, one.labels)
    assert model.n_sweeps_ == one.n_sweeps
    assert "tol=0.0001" in repr(model)
    again = pickle.loads(pickle.dumps(model))
    assert again.tol == 1e-4 and again.fit(Y).n_sweeps_ == one.n_sweeps


def test_old_pickles_get_the_default_tol(Y):
    model = Clusterer(3, seed=0)
    state = model.__getstate__()
    del state["tol"]
    old = Clusterer.__new__(Clusterer)
    old.__setstate__(state)
    assert old.tol == "auto" and old.fit(Y).converged_


@pytest.mark.parametrize("bad", [-1e-4, float("nan"), float("inf")])
def test_bad_tol_is_a_value_error_naming_it(Y, bad):
    with pytest.raises(ValueError, match="tol"):
        cluster(Y, 3, tol=bad)


@pytest.mark.parametrize("bad", [True, None, [0.1]])
def test_tol_of_the_wrong_kind_is_a_type_error(Y, bad):
    with pytest.raises(TypeError, match="tol"):
        cluster(Y, 3, tol=bad)


def test_tol_string_other_than_auto_is_a_value_error(Y):
    with pytest.raises(ValueError, match="tol.*'1e-4'"):
        cluster(Y, 3, tol="1e-4")


def test_estimator_takes_tol(Y):
    pytest.importorskip("sklearn")
    from smartigan.sklearn import KMeans

    km = KMeans(12, method="lloyd", init="random-partition", n_init=1, refine=False, random_state=11, tol=1e-4)
    km.fit(Y)
    assert km.get_params()["tol"] == 1e-4
    assert km.n_iter_ == cluster(Y, 12, "lloyd", tol=1e-4, **SLOW).n_sweeps
    assert KMeans().tol == "auto"


def test_cli_tol(tmp_path, Y):
    from smartigan.cli import main

    path = tmp_path / "y.npy"
    np.save(path, Y)
    prefix = tmp_path / "res"
    assert main(["fit", str(path), "-k", "12", "--method", "lloyd", "--init", "random-partition", "--n-init", "1",
                 "--no-refine", "--seed", "11", "--tol", "1e-4", "--out", str(prefix), "--format", "npy",
                 "--progress", "never"]) == 0
    np.testing.assert_array_equal(np.load(f"{prefix}.labels.npy"), cluster(Y, 12, "lloyd", tol=1e-4, **SLOW).labels)
    with pytest.raises(SystemExit):
        main(["fit", str(path), "-k", "3", "--tol", "-1"])
    assert main(["fit", str(path), "-k", "12", "--tol", "auto", "--seed", "11", "--out", str(prefix),
                 "--format", "npy", "--progress", "never"]) == 0
