"""The scikit-learn estimator smartigan.sklearn.KMeans."""

from __future__ import annotations

import inspect
import pickle
import subprocess
import sys

import numpy as np
import pytest

sklearn = pytest.importorskip("sklearn")

from sklearn.base import clone  # noqa: E402
from sklearn.exceptions import NotFittedError  # noqa: E402
from sklearn.model_selection import GridSearchCV  # noqa: E402
from sklearn.pipeline import Pipeline, make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

import smartigan  # noqa: E402
from smartigan.datasets import load_iris  # noqa: E402
from smartigan.sklearn import KMeans  # noqa: E402

# Checks this estimator is expected to fail, with the reason (the same
# mechanism scikit-learn uses for its own KMeans).
_WEIGHT_EQUIVALENCE = (
    "sample_weight is not equivalent to removing/repeating samples from a random start: "
    "weighted k-means++ and the visiting order draw differently from the repeated data "
    "(the same reason scikit-learn lists for its own KMeans)"
)
EXPECTED_FAILED_CHECKS = {
    "check_sample_weight_equivalence_on_dense_data": _WEIGHT_EQUIVALENCE,
    "check_sample_weight_equivalence_on_sparse_data": _WEIGHT_EQUIVALENCE,
}

ESTIMATORS = [
    KMeans(),
    KMeans(n_clusters=3, method="lloyd", init="random", n_init=2, max_iter=5),
    KMeans(n_clusters=3, algorithm="elkan", n_init=2),
    KMeans(n_clusters=3, method="hartigan", init="random-partition", n_init=3),
    KMeans(n_clusters=3, method="smartigan", schedule=(1.4, 0.9), polish=False, n_threads=1),
    KMeans(n_clusters="auto", k_range=(2, 5), criterion="calinski_harabasz"),
    KMeans(n_clusters=3, metric="cosine", n_init=2),
]

# metric="cosine" refuses a row of zeros (it has no direction), and these
# checks' data have some: integer data rounded to 0, sparse rows left empty.
_ZERO_ROWS = "the check's data have rows of zeros, which metric='cosine' refuses with a ValueError naming the row"
COSINE_FAILED_CHECKS = {
    "check_estimators_dtypes": _ZERO_ROWS,
    "check_estimator_sparse_tag": _ZERO_ROWS,
    "check_estimator_sparse_array": _ZERO_ROWS,
    "check_estimator_sparse_matrix": _ZERO_ROWS,
}


def _expected_failed_checks(estimator: KMeans) -> dict[str, str]:
    if estimator.metric == "cosine":
        return {**EXPECTED_FAILED_CHECKS, **COSINE_FAILED_CHECKS}
    return EXPECTED_FAILED_CHECKS


_PWC_PARAMS = inspect.signature(parametrize_with_checks).parameters
_MARKS_XFAIL = "expected_failed_checks" in _PWC_PARAMS  # scikit-learn >= 1.6
if "xfail_strict" in _PWC_PARAMS:  # >= 1.8: a listed check that starts passing must be unlisted
    _checks = parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected_failed_checks,
                                      xfail_strict=True)
elif _MARKS_XFAIL:
    _checks = parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected_failed_checks)
else:
    _checks = parametrize_with_checks(ESTIMATORS)


@_checks
def test_sklearn_estimator_checks(estimator, check):
    name = getattr(check, "func", check).__name__
    expected = _expected_failed_checks(estimator)
    if not _MARKS_XFAIL and name in expected:
        pytest.xfail(expected[name])
    check(estimator)


def test_weighted_fit_is_the_core_weighted_fit(iris):
    X, _ = iris
    w = np.random.default_rng(0).integers(0, 4, size=150).astype(float)
    km = KMeans(n_clusters=4, random_state=3).fit(X, sample_weight=w)
    r = smartigan.cluster(X, 4, seed=3, sample_weight=w)
    np.testing.assert_array_equal(km.labels_, r.labels)
    assert km.inertia_ == r.objective
    d2 = ((X - km.cluster_centers_[km.labels_]) ** 2).sum(axis=1)
    assert km.inertia_ == pytest.approx(float((w * d2).sum()), rel=1e-9)
    assert km.score(X, sample_weight=w) == pytest.approx(-km.inertia_, rel=1e-9)
    w_before = w.copy()
    KMeans(n_clusters=4, random_state=3).fit(X, sample_weight=w)
    np.testing.assert_array_equal(w, w_before)


@pytest.fixture(scope="module")
def iris():
    X, y = load_iris()
    return X, y


def test_matches_cluster_with_the_same_seed(iris):
    X, _ = iris
    km = KMeans(n_clusters=4, random_state=123).fit(X)
    r = smartigan.cluster(X, 4, seed=123)
    np.testing.assert_array_equal(km.labels_, r.labels)
    np.testing.assert_array_equal(km.cluster_centers_, r.centroids)
    assert km.inertia_ == r.objective
    assert km.n_iter_ == r.n_sweeps
    assert km.seed_ == 123
    assert km.converged_ is True
    np.testing.assert_array_equal(km.history_, r.history)
    assert km.labels_.dtype == np.int64
    assert km.n_features_in_ == 4
    assert not hasattr(km, "feature_names_in_")


def test_parameters_reach_the_core(iris):
    X, _ = iris
    km = KMeans(n_clusters=5, method="hartigan", init="random-partition", n_init=7, max_iter=9,
                random_state=4).fit(X)
    r = smartigan.cluster(X, 5, "hartigan", 9, 4, init="random-partition", n_init=7)
    np.testing.assert_array_equal(km.labels_, r.labels)
    assert km.inertia_ == r.objective
    km = KMeans(n_clusters=5, schedule=(1.3, 0.95), polish=False, n_threads=1, random_state=4).fit(X)
    r = smartigan.cluster(X, 5, seed=4, schedule=(1.3, 0.95), polish=False)
    np.testing.assert_array_equal(km.labels_, r.labels)
    km = KMeans(n_clusters=5, method="lloyd", max_iter=1, random_state=4).fit(X)
    assert km.n_iter_ == 1


def test_algorithm_selects_lloyd(iris):
    # Code written for scikit-learn passes algorithm="lloyd" or "elkan": both are
    # Lloyd's algorithm there, so both fit with method="lloyd" here.
    X, _ = iris
    lloyd = KMeans(n_clusters=5, method="lloyd", random_state=4).fit(X)
    for algorithm in ("lloyd", "elkan"):
        for method in (None, "lloyd"):
            km = KMeans(n_clusters=5, algorithm=algorithm, method=method, random_state=4).fit(X)
            np.testing.assert_array_equal(km.labels_, lloyd.labels_)
            assert km.inertia_ == lloyd.inertia_
            assert km.get_params()["algorithm"] == algorithm
    # Without it, method=None is the default Smartigan.
    default = KMeans(n_clusters=5, random_state=4).fit(X)
    smart = KMeans(n_clusters=5, method="smartigan", random_state=4).fit(X)
    assert default.get_params()["method"] is None
    np.testing.assert_array_equal(default.labels_, smart.labels_)
    assert default.inertia_ == smart.inertia_
    with pytest.raises(ValueError, match="algorithm='elkan' asks for Lloyd's algorithm but method='hartigan'"):
        KMeans(n_clusters=5, algorithm="elkan", method="hartigan").fit(X)
    with pytest.raises(ValueError, match=r"invalid algorithm: 'auto' \(allowed: 'lloyd', 'elkan', None\)"):
        KMeans(n_clusters=5, algorithm="auto").fit(X)
    with pytest.raises(TypeError, match="algorithm must be one of 'lloyd', 'elkan', None, got 2 \\(int\\)"):
        KMeans(n_clusters=5, algorithm=2).fit(X)  # type: ignore[arg-type]


def test_init_random_is_forgy(iris):
    X, _ = iris
    km = KMeans(n_clusters=3, init="random", random_state=5).fit(X)
    r = smartigan.cluster(X, 3, seed=5, init="forgy")
    np.testing.assert_array_equal(km.labels_, r.labels)


def test_lloyd_from_given_centroids_matches_scikit_learn(iris):
    from sklearn.cluster import KMeans as SkKMeans

    X, _ = iris
    start = X[[0, 10, 60, 110, 140]]
    # Plain Lloyd (refinement finds a lower inertia than scikit-learn here).
    ours = KMeans(n_clusters=5, method="lloyd", init=start, max_iter=300, refine=False).fit(X)
    theirs = SkKMeans(n_clusters=5, init=start, n_init=1, algorithm="lloyd", tol=0.0, max_iter=300).fit(X)
    np.testing.assert_array_equal(ours.labels_, theirs.labels_)
    np.testing.assert_allclose(ours.cluster_centers_, theirs.cluster_centers_, rtol=1e-12, atol=1e-12)
    assert ours.inertia_ == pytest.approx(theirs.inertia_, rel=1e-12)
    np.testing.assert_allclose(ours.transform(X), theirs.transform(X), rtol=1e-10, atol=1e-12)
    assert ours.score(X) == pytest.approx(theirs.score(X), rel=1e-12)


def test_callable_init_and_auto_n_init(iris):
    X, _ = iris
    calls = []

    def init(data, k, rs):
        calls.append((data.shape, k, type(rs)))
        return data[:k] + 0.01

    km = KMeans(n_clusters=3, method="lloyd", init=init, random_state=0).fit(X)
    assert calls == [((150, 4), 3, np.random.RandomState)]
    ref = KMeans(n_clusters=3, method="lloyd", init=X[:3] + 0.01).fit(X)
    np.testing.assert_array_equal(km.labels_, ref.labels_)
    with pytest.raises(ValueError, match=r"init array has shape \(2, 4\)"):
        KMeans(n_clusters=3, init=X[:2]).fit(X)
    with pytest.raises(ValueError, match="invalid init: 'kmeans'"):
        KMeans(n_clusters=3, init="kmeans").fit(X)


def test_best_search_with_given_centroids():
    # n_init="best" is passed on whatever the init (scikit-learn's rule that
    # n_init="auto" means one start applies to "auto" alone).
    X = np.random.default_rng(0).uniform(size=(400, 2))
    km = KMeans(n_clusters=20, init=X[:20], n_init="best", random_state=4).fit(X)
    ref = smartigan.cluster(X, 20, init=X[:20], n_init="best", seed=4)
    np.testing.assert_array_equal(km.labels_, ref.labels)
    assert km.inertia_ == ref.objective
    one = KMeans(n_clusters=20, init=X[:20], random_state=4).fit(X)
    assert one.inertia_ == smartigan.cluster(X, 20, init=X[:20], n_init=1, seed=4).objective
    assert km.inertia_ < one.inertia_


def test_random_state_kinds(iris):
    X, _ = iris
    a = KMeans(n_clusters=4, random_state=np.random.RandomState(7)).fit(X)
    b = KMeans(n_clusters=4, random_state=np.random.RandomState(7)).fit(X)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert a.seed_ == b.seed_

    rs = np.random.RandomState(7)
    km = KMeans(n_clusters=4, random_state=rs)
    s1 = km.fit(X).seed_
    s2 = km.fit(X).seed_
    assert s1 != s2, "a RandomState instance must advance between fits"

    g1 = KMeans(n_clusters=4, random_state=np.random.default_rng(3)).fit(X)
    g2 = KMeans(n_clusters=4, random_state=np.random.default_rng(3)).fit(X)
    np.testing.assert_array_equal(g1.labels_, g2.labels_)

    np.random.seed(11)
    n1 = KMeans(n_clusters=4).fit(X)
    np.random.seed(11)
    n2 = KMeans(n_clusters=4).fit(X)
    assert n1.seed_ == n2.seed_, "random_state=None must follow numpy's global seed, as in scikit-learn"

    again = KMeans(n_clusters=4, random_state=n1.seed_).fit(X)
    np.testing.assert_array_equal(again.labels_, n1.labels_)
    assert again.inertia_ == n1.inertia_

    assert KMeans(n_clusters=4, random_state=np.uint64(2**64 - 1)).fit(X).seed_ == 2**64 - 1
    # The one seed check of every front end: a value out of range is a
    # ValueError, an object of another kind (a bool among them) a TypeError.
    for bad in (-1, 2**64):
        with pytest.raises(ValueError, match=rf"invalid random_state: {bad} \(must be in \[0, 2\*\*64\)\)"):
            KMeans(n_clusters=4, random_state=bad).fit(X)
    for bad in ("seed", 1.5, True):
        with pytest.raises(TypeError, match="random_state must be an integer in \\[0, 2\\*\\*64\\), a numpy"):
            KMeans(n_clusters=4, random_state=bad).fit(X)


def test_invalid_parameters_raise_at_fit_not_init(iris):
    X, _ = iris
    cases = [
        (dict(n_clusters=0), ValueError, "invalid n_clusters: 0 \\(must be at least 1\\)"),
        (dict(n_clusters=151), ValueError, "n_samples=150 should be >= n_clusters=151"),
        (dict(n_clusters=2.5), TypeError, "n_clusters must be an integer"),
        (dict(max_iter=0), ValueError, "invalid max_iter: 0 \\(must be at least 1\\)"),
        (dict(n_init=0), ValueError, "invalid n_init: 0"),
        (dict(n_init="many"), ValueError, "invalid n_init: 'many'"),
        (dict(method="elkan"), ValueError, "method"),
        (dict(schedule=(0.9, 1.2)), ValueError, "schedule"),
        (dict(n_threads=0), ValueError, "n_threads"),
        (dict(tol=-1.0), ValueError, "tol"),
        (dict(verbose=-1), ValueError, "invalid verbose: -1 \\(must be at least 0\\)"),
        (dict(verbose="loud"), TypeError, "verbose must be an integer"),
        (dict(copy_x="yes"), TypeError, "copy_x must be True or False"),
    ]
    for params, exc, match in cases:
        km = KMeans(**params)  # never raises
        with pytest.raises(exc, match=match):
            km.fit(X)


def test_dtypes_are_preserved(iris):
    X, _ = iris
    X32 = X.astype(np.float32)
    km = KMeans(n_clusters=3, random_state=0).fit(X32)
    assert km.cluster_centers_.dtype == np.float32
    assert km.transform(X32).dtype == np.float32
    assert km.transform(X).dtype == np.float64
    np.testing.assert_array_equal(km.predict(X32), km.labels_)
    assert KMeans(n_clusters=3, random_state=0).fit(X).cluster_centers_.dtype == np.float64
    Xi = (X * 10).astype(np.int32)
    assert KMeans(n_clusters=3, random_state=0).fit(Xi).cluster_centers_.dtype == np.float64


def test_sample_weight_uniform_and_invalid(iris):
    X, _ = iris
    base = KMeans(n_clusters=3, random_state=1).fit(X)
    ones = KMeans(n_clusters=3, random_state=1).fit(X, sample_weight=np.ones(150))
    # weights of 2 scale every quantity by a power of two: exactly the same decisions
    twos = KMeans(n_clusters=3, random_state=1).fit(X, sample_weight=[2.0] * 150)
    np.testing.assert_array_equal(base.labels_, ones.labels_)
    np.testing.assert_array_equal(base.labels_, twos.labels_)
    assert ones.inertia_ == pytest.approx(base.inertia_, rel=1e-12)
    assert twos.inertia_ == pytest.approx(2 * base.inertia_, rel=1e-12)
    np.testing.assert_allclose(twos.history_, 2 * base.history_, rtol=1e-12)
    with pytest.raises(ValueError, match="every weight is zero"):
        KMeans(n_clusters=3).fit(X, sample_weight=np.zeros(150))
    with pytest.raises(ValueError, match=r"invalid sample_weight: -1.0 at row 0 \(weights must be finite and non-negative"):
        KMeans(n_clusters=3).fit(X, sample_weight=-np.ones(150))
    with pytest.raises(ValueError, match=r"shape \(150,\)"):
        KMeans(n_clusters=3).fit(X, sample_weight=np.ones(149))
    with pytest.raises(ValueError, match="invalid sample_weight: nan at row 0"):
        KMeans(n_clusters=3).fit(X, sample_weight=np.full(150, np.nan))
    with pytest.raises(TypeError, match="sample_weight must be real numbers, got dtype bool"):
        KMeans(n_clusters=3).fit(X, sample_weight=np.ones(150, dtype=bool))


def test_score_with_weights(iris):
    X, _ = iris
    km = KMeans(n_clusters=3, random_state=1).fit(X)
    assert km.score(X) == pytest.approx(-km.inertia_, rel=1e-12)
    w = np.arange(150, dtype=float)
    d2 = km.transform(X).min(axis=1) ** 2
    assert km.score(X, sample_weight=w) == pytest.approx(-(w * d2).sum(), rel=1e-9)
    with pytest.raises(ValueError, match="sample_weight"):
        km.score(X, sample_weight=w[:10])


def test_score_checks_weights_as_fit_does(iris):
    X, _ = iris
    km = KMeans(n_clusters=3, random_state=1).fit(X)
    bad = {"negative": (-np.ones(150), "-1.0 at row 0"), "NaN": (np.full(150, np.nan), "nan at row 0"),
           "inf": (np.full(150, np.inf), "inf at row 0"), "one negative": (np.r_[np.ones(149), -1.0], "-1.0 at row 149")}
    for name, (w, fragment) in bad.items():
        messages = []
        for call in (lambda: KMeans(n_clusters=3).fit(X, sample_weight=w), lambda: km.score(X, sample_weight=w)):
            with pytest.raises(ValueError, match=fragment) as exc:
                call()
            messages.append(str(exc.value))
        assert messages[0] == messages[1], name  # the same text as fit
    # all-zero weights score 0 (fit refuses them: nothing to fit)
    assert km.score(X, sample_weight=np.zeros(150)) == 0.0
    assert km.score(X, sample_weight=2.0) == pytest.approx(2 * km.score(X), rel=1e-12)


def test_sparse_input_equals_dense(iris):
    sp = pytest.importorskip("scipy.sparse")
    X, _ = iris
    dense = KMeans(n_clusters=3, random_state=0).fit(X)
    for fmt in ("csr", "csc"):
        S = sp.csr_matrix(X).asformat(fmt)
        km = KMeans(n_clusters=3, random_state=0).fit(S)
        np.testing.assert_array_equal(km.labels_, dense.labels_)
        assert km.inertia_ == pytest.approx(dense.inertia_, rel=1e-9)
        np.testing.assert_array_equal(km.predict(S), dense.predict(X))
        np.testing.assert_allclose(km.transform(S), dense.transform(X), rtol=1e-9, atol=1e-12)
        assert km.score(S) == pytest.approx(dense.score(X), rel=1e-9)


def test_verbose_reports_progress_and_changes_nothing(iris, capsys):
    X, _ = iris
    quiet = KMeans(n_clusters=4, random_state=2).fit(X)
    assert capsys.readouterr().out == ""
    loud = KMeans(n_clusters=4, random_state=2, verbose=1).fit(X)
    lines = capsys.readouterr().out.splitlines()
    np.testing.assert_array_equal(loud.labels_, quiet.labels_)
    assert loud.inertia_ == quiet.inertia_ and loud.n_iter_ == quiet.n_iter_
    # n_init="auto" starts with one restart, and more as the budget allows.
    assert lines[0].startswith("initialization complete: 1 restart started")
    # One line per step of the slowest restart, the last of which ends the run.
    assert sum(line.startswith("sweep ") for line in lines) >= 1
    assert lines[-1].startswith("converged after") and f"{quiet.inertia_:.10g}" in lines[-1]
    # Sparse input is fitted in one go: only the end is reported.
    sp = pytest.importorskip("scipy.sparse")
    KMeans(n_clusters=4, random_state=2, verbose=True).fit(sp.csr_matrix(X))
    assert capsys.readouterr().out.startswith("converged after")


def test_copy_x_is_accepted_and_x_is_never_modified(iris):
    X, _ = iris
    before = X.copy()
    for copy_x in (True, False):
        km = KMeans(n_clusters=3, random_state=0, copy_x=copy_x).fit(X)
        np.testing.assert_array_equal(X, before)
        assert km.get_params()["copy_x"] is copy_x


def test_not_fitted():
    km = KMeans(n_clusters=2)
    for method in (km.predict, km.transform, km.score):
        with pytest.raises(NotFittedError):
            method([[0.0], [1.0]])


def test_wrong_number_of_features(iris):
    X, _ = iris
    km = KMeans(n_clusters=3, random_state=0).fit(X)
    with pytest.raises(ValueError, match="X has 3 features, but KMeans is expecting 4 features"):
        km.predict(X[:, :3])


def test_pipeline_and_feature_names(iris):
    pd = pytest.importorskip("pandas")
    X, _ = iris
    df = pd.DataFrame(X, columns=["sepal_length", "sepal_width", "petal_length", "petal_width"])
    pipe = make_pipeline(StandardScaler(), KMeans(n_clusters=3, random_state=0))
    labels = pipe.fit_predict(df)
    assert labels.shape == (150,)
    assert pipe[-1].n_features_in_ == 4
    scaled = StandardScaler().fit_transform(X)
    direct = KMeans(n_clusters=3, random_state=0).fit(scaled)
    np.testing.assert_array_equal(labels, direct.labels_)
    np.testing.assert_array_equal(pipe.predict(df), direct.labels_)
    assert pipe.get_feature_names_out().tolist() == ["kmeans0", "kmeans1", "kmeans2"]

    named = KMeans(n_clusters=3, random_state=0).fit(df)
    assert named.feature_names_in_.tolist() == list(df.columns)
    out = named.set_output(transform="pandas").transform(df)
    assert list(out.columns) == ["kmeans0", "kmeans1", "kmeans2"]
    np.testing.assert_allclose(out.to_numpy(), KMeans(n_clusters=3, random_state=0).fit(X).transform(X))


def test_grid_search(iris):
    X, _ = iris
    search = GridSearchCV(
        Pipeline([("scale", StandardScaler()), ("km", KMeans(n_clusters=3, random_state=0))]),
        {"km__method": ["lloyd", "hartigan", "smartigan"], "km__n_clusters": [2, 3]},
        cv=3,
    )
    search.fit(X)
    scores = search.cv_results_["mean_test_score"]
    assert scores.shape == (6,)
    assert np.all(scores < 0)
    # score is -inertia, so more clusters always scores higher on held-out data here
    assert search.best_params_["km__n_clusters"] == 3
    assert search.best_params_["km__method"] in ("lloyd", "hartigan", "smartigan")


def test_clone_and_pickle(iris):
    X, _ = iris
    km = KMeans(n_clusters=4, method="hartigan", random_state=9).fit(X)
    c = clone(km)
    assert c.get_params() == km.get_params()
    assert not hasattr(c, "labels_")
    np.testing.assert_array_equal(c.fit(X).labels_, km.labels_)
    back = pickle.loads(pickle.dumps(km))
    np.testing.assert_array_equal(back.cluster_centers_, km.cluster_centers_)
    np.testing.assert_array_equal(back.predict(X), km.predict(X))
    assert back.inertia_ == km.inertia_
    assert back.get_params() == km.get_params()


def test_smartigan_is_not_worse_than_sklearn_lloyd_on_iris(iris):
    # The reason to switch: the default method reaches lower objectives.
    from sklearn.cluster import KMeans as SkKMeans

    X, _ = iris
    for k in (5, 10, 20):
        ours = KMeans(n_clusters=k, random_state=0).fit(X).inertia_
        theirs = SkKMeans(n_clusters=k, n_init=10, random_state=0).fit(X).inertia_
        assert ours <= theirs * (1 + 1e-9), (k, ours, theirs)


def test_importing_smartigan_does_not_import_sklearn():
    code = "import sys, smartigan; smartigan.cluster([[0.0], [1.0]], 1, seed=0); print('sklearn' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# -- n_clusters="auto" --------------------------------------------------------------


def _groups(k: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.uniform(0, 40, size=(k, 3))
    return np.repeat(centres, 30, axis=0) + rng.normal(scale=0.5, size=(30 * k, 3))


@pytest.mark.parametrize("criterion", ["elbow", "calinski_harabasz", "davies_bouldin", "silhouette", "gap"])
def test_auto_finds_separated_groups_and_is_the_paths_solution(criterion):
    X = _groups(4, seed=1)
    km = KMeans(n_clusters="auto", k_range=(2, 7), criterion=criterion, random_state=3).fit(X)
    assert km.n_clusters_ == 4 and km.cluster_centers_.shape == (4, 3)
    assert km.path_ is not None and km.path_.suggested == {criterion: 4}
    want = km.path_.result(4)
    np.testing.assert_array_equal(km.labels_, want.labels)
    assert km.inertia_ == want.objective and km.seed_ == 3
    assert km.predict(X).tolist() == km.labels_.tolist()
    # The same as cluster_path with the seed as random_state.
    direct = smartigan.cluster_path(X, range(2, 8), seed=3, criteria=(criterion,))
    np.testing.assert_array_equal(direct.objectives, km.path_.objectives)


def test_auto_with_a_range_weights_and_sparse_input():
    scipy_sparse = pytest.importorskip("scipy.sparse")
    X = _groups(3, seed=2)
    w = np.random.default_rng(0).uniform(0.5, 2.0, size=len(X))
    dense = KMeans(n_clusters="auto", k_range=range(2, 6), random_state=0).fit(X, sample_weight=w)
    sparse = KMeans(n_clusters="auto", k_range=range(2, 6), random_state=0).fit(scipy_sparse.csr_matrix(X),
                                                                                 sample_weight=w)
    assert dense.n_clusters_ == sparse.n_clusters_ == 3
    np.testing.assert_array_equal(dense.labels_, sparse.labels_)
    assert sparse.inertia_ == pytest.approx(dense.inertia_, rel=1e-9)
    fixed = KMeans(n_clusters=3, random_state=0).fit(X)
    assert fixed.n_clusters_ == 3 and fixed.path_ is None


@pytest.mark.parametrize(
    "params, match",
    [
        (dict(k_range=(5, 2)), "k_min must be at most k_max"),
        (dict(k_range=(0, 3)), "k_range\\[0\\]"),
        (dict(k_range=range(9, 2, -2)), "invalid k_range"),
        (dict(k_range=[2, 6, 4]), "strictly increasing"),
        (dict(k_range="2:5"), "k_range must be a pair \\(k_min, k_max\\), a range or a sequence of increasing k, "
                              "got '2:5'"),
        (dict(k_range=(2, 500)), "the largest k of k_range=500"),
        (dict(criterion="aic"), "invalid criterion: 'aic'"),
        (dict(init=np.zeros((3, 4))), "needs a named init"),
        (dict(n_clusters="many"), "n_clusters"),
    ],
)
def test_auto_bad_parameters_raise_at_fit(iris, params, match):
    km = KMeans(**{"n_clusters": "auto", **params})
    with pytest.raises((ValueError, TypeError), match=match):
        km.fit(iris[0])


# -- issue 58 ------------------------------------------------------------------------


@pytest.mark.parametrize("scale", [1 / 500, 1.0, 1e6])
def test_auto_calinski_harabasz_with_weights_of_any_scale(scale):
    # Weights summing to at most k made the criterion NaN at every k, and
    # the estimator fell back to k_min silently.
    X = _groups(5, seed=4)
    w = np.full(len(X), scale)
    km = KMeans(n_clusters="auto", k_range=(2, 8), criterion="calinski_harabasz", random_state=0).fit(X, sample_weight=w)
    assert km.n_clusters_ == 5 and km.path_.suggested == {"calinski_harabasz": 5}


def test_n_clusters_other_than_auto_is_refused_naming_auto(iris):
    for value in ("Auto", "AUTO", " auto"):
        with pytest.raises(ValueError, match=rf"invalid n_clusters: {value!r} \(must be a positive integer or 'auto'\)"):
            KMeans(n_clusters=value).fit(iris[0])


def test_auto_without_a_suggestion_warns_and_names_the_k_fitted(iris):
    import warnings

    with pytest.warns(UserWarning, match=r"criterion 'elbow' suggests no k in 2\.\.3 \(the elbow needs at least "
                                         r"three k\); fitted k=2, the smallest of k_range"):
        km = KMeans(n_clusters="auto", k_range=(2, 3), random_state=0).fit(iris[0])
    assert km.n_clusters_ == 2 and km.path_.suggested == {"elbow": None}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a suggestion: nothing to say
        assert KMeans(n_clusters="auto", k_range=(2, 7), random_state=3).fit(_groups(4, seed=1)).n_clusters_ == 4


def test_auto_on_a_grid_of_k():
    """A range of any step or a list tries those k (the path runs through
    the whole range); a pair is always its two ends."""
    X = _groups(6, seed=3)
    for k_range, ks in ((range(2, 11, 2), [2, 4, 6, 8, 10]), ([3, 6, 9], [3, 6, 9]), ((4, 7), [4, 5, 6, 7])):
        km = KMeans(n_clusters="auto", k_range=k_range, criterion="calinski_harabasz", random_state=1).fit(X)
        assert km.path_.ks.tolist() == ks, k_range
        assert km.n_clusters_ == 6 and km.cluster_centers_.shape == (6, 3)
        direct = smartigan.cluster_path(X, ks, seed=1, criteria=("calinski_harabasz",))
        np.testing.assert_array_equal(direct.objectives, km.path_.objectives)
