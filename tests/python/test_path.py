"""cluster_path: the path of solutions over a range of k and the criteria
for choosing k (issue 30). Criteria are checked against their published
definitions computed directly (O(n^2) loops) and against scikit-learn."""

from __future__ import annotations

import math

import numpy as np
import pytest

import smartigan
from smartigan import _criteria
from conftest import blobs


def separated(k: int, d: int, per: int = 40, seed: int = 0, spread: float = 0.3) -> np.ndarray:
    """k well-separated spherical groups of `per` points."""
    rng = np.random.default_rng(seed)
    centres = rng.uniform(0, 10 * k, size=(k, d))
    return np.repeat(centres, per, axis=0) + rng.normal(scale=spread, size=(k * per, d))


@pytest.fixture(scope="module")
def small() -> np.ndarray:
    return blobs(n=240, d=3, centres=4, spread=0.6, seed=3)


def test_path_basics(small: np.ndarray) -> None:
    path = smartigan.cluster_path(small, range(1, 11), seed=5, criteria=None)
    assert path.ks.tolist() == list(range(1, 11))
    assert np.all(np.diff(path.objectives) <= 0)
    assert path.origins[0] == "fit" and set(path.origins[1:]) <= {"split", "merge", "fit"}
    assert all((s >= 0) == (o == "split") for s, o in zip(path.splits, path.origins))
    assert path.converged.all()
    assert path.criteria == {} and path.suggested == {}
    for k in path.ks:
        r = path.result(int(k))
        assert r.centroids.shape == (k, 3)
        assert np.bincount(r.labels, minlength=k).tolist() == r.cluster_sizes.tolist()
        recomputed = ((small - r.centroids[r.labels]) ** 2).sum()
        assert r.objective == pytest.approx(recomputed, rel=1e-12)
        assert r.objective == path.objectives[k - 1]
    # The first k is cluster()'s result.
    first = smartigan.cluster(small, 1, seed=5)
    assert path.result(1).objective == first.objective
    assert "ks=1..10" in repr(path)


def test_first_k_equals_cluster_and_seed_is_reported(small: np.ndarray) -> None:
    path = smartigan.cluster_path(small, range(3, 6), seed=9, criteria=None, refine=False)
    fit = smartigan.cluster(small, 3, seed=9, refine=False)
    np.testing.assert_array_equal(path.result(3).labels, fit.labels)
    assert path.origins == ("fit", "split", "split")
    # With refinement the first k is the fit or a lower solution.
    refined = smartigan.cluster_path(small, range(3, 6), seed=9, criteria=None)
    assert refined.objectives[0] <= smartigan.cluster(small, 3, seed=9).objective
    assert path.seed == 9
    drawn = smartigan.cluster_path(small, range(3, 6), criteria=None)
    again = smartigan.cluster_path(small, range(3, 6), seed=drawn.seed, criteria=None)
    np.testing.assert_array_equal(drawn.objectives, again.objectives)


def test_a_given_n_init_fits_every_k_of_a_large_problem() -> None:
    # 8000 x 20 at k >= 8 is above 2**20 multiply-adds per pass: without
    # n_init only the first k is a fit (k = 9 and 10 lie past the share of
    # the k searched that a larger problem fits once more); with it every
    # k is no higher than cluster() with the same n_init and seed. The default path ends above
    # such a fit at some k here, so the check on `given` can fail.
    x = blobs(n=8000, d=20, centres=40, spread=1.0, seed=11)
    ks = range(8, 11)
    fits = [smartigan.cluster(x, k, seed=4, n_init=2).objective for k in ks]
    auto = smartigan.cluster_path(x, ks, seed=4, criteria=None)
    assert "fit" not in auto.origins[1:]
    assert any(a > f * (1 + 1e-9) for a, f in zip(auto.objectives, fits))
    given = smartigan.cluster_path(x, ks, seed=4, criteria=None, n_init=2)
    for objective, fit in zip(given.objectives, fits):
        assert objective <= fit * (1 + 1e-9)
    assert np.all(np.diff(given.objectives) <= 0)


def test_same_result_for_any_thread_count(small: np.ndarray) -> None:
    runs = [smartigan.cluster_path(small, range(2, 9), seed=4, n_threads=t, gap_references=3) for t in (1, 2, 3)]
    for other in runs[1:]:
        np.testing.assert_array_equal(other.objectives, runs[0].objectives)
        for name, values in runs[0].criteria.items():
            np.testing.assert_array_equal(other.criteria[name], values)
        assert other.suggested == runs[0].suggested


# ---- the criteria against direct computations and scikit-learn


def direct_silhouettes(X: np.ndarray, labels: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Every point's (weighted) silhouette by the definition, O(n^2)."""
    dist = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=2))
    k = labels.max() + 1
    out = np.zeros(len(X))
    for i in range(len(X)):
        own = labels == labels[i]
        others = own.copy()
        others[i] = False
        if w[others].sum() <= 0:
            continue
        a = (w[others] * dist[i, others]).sum() / w[others].sum()
        b = min((w[labels == c] * dist[i, labels == c]).sum() / w[labels == c].sum() for c in range(k) if c != labels[i])
        out[i] = (b - a) / max(a, b)
    return out


def test_criteria_match_scikit_learn(small: np.ndarray) -> None:
    metrics = pytest.importorskip("sklearn.metrics")
    path = smartigan.cluster_path(small, range(2, 9), seed=1, criteria=_criteria.CRITERIA, gap_references=2)
    for i, k in enumerate(path.ks):
        labels = path.result(int(k)).labels
        assert path.criteria["calinski_harabasz"][i] == pytest.approx(
            metrics.calinski_harabasz_score(small, labels), rel=1e-9)
        assert path.criteria["davies_bouldin"][i] == pytest.approx(metrics.davies_bouldin_score(small, labels), rel=1e-9)
        # 240 points: below SILHOUETTE_SAMPLE, so exact.
        assert path.criteria["silhouette"][i] == pytest.approx(metrics.silhouette_score(small, labels), rel=1e-9)
    ch = path.criteria["calinski_harabasz"]
    assert path.suggested["calinski_harabasz"] == path.ks[np.argmax(ch)]
    assert path.suggested["davies_bouldin"] == path.ks[np.argmin(path.criteria["davies_bouldin"])]


def test_weighted_silhouette_matches_its_definition() -> None:
    X = blobs(n=90, d=2, centres=3, seed=8)
    w = np.random.default_rng(1).choice([0.0, 0.5, 1.0, 3.0], size=90)
    w[:5] = 1.0
    path = smartigan.cluster_path(X, range(1, 6), seed=2, sample_weight=w, criteria=("silhouette",))
    assert math.isnan(path.criteria["silhouette"][0])  # one cluster
    for i, k in enumerate(path.ks[1:], start=1):
        labels = path.result(int(k)).labels
        want = np.average(direct_silhouettes(X, labels, w), weights=w)
        assert path.criteria["silhouette"][i] == pytest.approx(want, rel=1e-10)


def test_integer_weights_act_as_repeated_rows_for_ch_and_db() -> None:
    X = blobs(n=60, d=2, centres=3, seed=4)
    w = np.random.default_rng(2).integers(1, 4, size=60)
    data = _criteria.PathData(X, w.astype(np.float64))
    repeated = _criteria.PathData(np.repeat(X, w, axis=0), None)
    labels = smartigan.cluster(X, 3, seed=0, sample_weight=w).labels
    centroids = np.array([np.average(X[labels == j], axis=0, weights=w[labels == j]) for j in range(3)])
    assert _criteria.davies_bouldin(data, labels, centroids) == pytest.approx(
        _criteria.davies_bouldin(repeated, np.repeat(labels, w), centroids), rel=1e-12)
    assert data.total_sum_of_squares() == pytest.approx(repeated.total_sum_of_squares(), rel=1e-12)


def test_sampled_silhouette_is_the_exact_silhouette_of_the_sample() -> None:
    metrics = pytest.importorskip("sklearn.metrics")
    X = blobs(n=500, d=3, centres=5, seed=6)
    labels = smartigan.cluster(X, 5, seed=0).labels
    data = _criteria.PathData(X, None)
    rows = _criteria.silhouette_rows(data, 100, seed=7)
    assert rows.size == 100 and np.unique(rows).size == 100
    np.testing.assert_array_equal(rows, _criteria.silhouette_rows(data, 100, seed=7))
    got = _criteria.silhouettes(data, [labels], rows)[0]
    assert got == pytest.approx(metrics.silhouette_samples(X, labels)[rows].mean(), rel=1e-9)
    # At or above n the sample is every point.
    assert _criteria.silhouette_rows(data, 500, seed=7).tolist() == list(range(500))


def test_elbow_reads_the_log_objective() -> None:
    # Two groups of two groups: on W itself the knee is the coarse level
    # (k = 2), on log W the four groups.
    ks = np.arange(1, 9)
    objectives = np.array([1e4, 1e3, 600.0, 10.0, 9.0, 8.2, 7.5, 7.0])
    assert int(ks[np.argmax(_criteria.elbow(ks, objectives))]) == 2
    assert int(ks[np.argmax(_criteria.elbow(ks, _criteria.log_objectives(objectives)))]) == 4
    np.testing.assert_array_equal(_criteria.log_objectives(np.array([4.0, 0.0])), np.log([4.0, 4e-12]))


def test_elbow_by_hand() -> None:
    ks = np.arange(1, 6)
    objectives = np.array([100.0, 40.0, 20.0, 15.0, 12.0])
    # x = (0, .25, .5, .75, 1), y = (W - 12) / 88, value 1 - x - y.
    want = 1 - np.array([0, 0.25, 0.5, 0.75, 1]) - (objectives - 12) / 88
    np.testing.assert_allclose(_criteria.elbow(ks, objectives), want, rtol=1e-15, atol=1e-15)
    assert np.argmax(want) == 1  # k = 2
    assert np.isnan(_criteria.elbow(ks[:2], objectives[:2])).all()
    assert np.isnan(_criteria.elbow(ks, np.full(5, 3.0))).all()


def test_gap_statistic_by_hand() -> None:
    log_w = np.log(np.array([10.0, 4.0, 1.0, 0.9]))
    refs = np.log(np.array([[11.0, 8.0, 6.0, 5.0], [9.0, 7.0, 5.0, 4.5]]))
    gap, se = _criteria.gap_statistic(log_w, refs)
    np.testing.assert_allclose(gap, refs.mean(axis=0) - log_w)
    sd = np.sqrt(((refs - refs.mean(axis=0)) ** 2).mean(axis=0))  # divisor B
    np.testing.assert_allclose(se, sd * np.sqrt(1 + 1 / 2))
    ks = np.arange(1, 5)
    assert _criteria.gap_choice(ks, np.array([0.1, 0.5, 1.0, 0.99]), np.zeros(4)) == 3
    # Gap(2) = 0.5 >= Gap(3) - s(3) = 1.0 - 0.6: the 1-SE rule stops at 2.
    assert _criteria.gap_choice(ks, np.array([0.1, 0.5, 1.0, 0.9]), np.array([0, 0, 0.6, 0.0])) == 2
    # Within one standard error of the next: the smaller k.
    assert _criteria.gap_choice(ks, np.array([0.1, 0.5, 0.8, 0.9]), np.array([0, 0, 0, 0.2])) == 3
    assert _criteria.gap_choice(ks, np.array([0.1, 0.5, 1.0, 1.5]), np.zeros(4)) is None


def test_calinski_harabasz_formula() -> None:
    ks = np.array([1, 2, 3])
    objectives = np.array([50.0, 20.0, 0.0])
    ch = _criteria.calinski_harabasz(objectives, ks, 50.0, 10.0)
    assert math.isnan(ch[0])
    assert ch[1] == pytest.approx((30.0 / 1) / (20.0 / 8))
    assert ch[2] == np.inf


@pytest.mark.parametrize("shape", [(3, 2), (5, 4), (8, 3)])
def test_known_number_of_separated_groups_is_found(shape: tuple[int, int]) -> None:
    k, d = shape
    X = separated(k, d, seed=k)
    # From k = 2: with k = 1 in the range, the gap statistic's first
    # comparison can already stop it where the first split gains less than
    # on uniform data (docs/choosing-k.md).
    path = smartigan.cluster_path(X, range(2, 12), seed=0, criteria=_criteria.CRITERIA, gap_references=5)
    assert path.suggested["gap"] == k
    assert path.suggested["elbow"] == k
    assert path.suggested["silhouette"] == k
    assert path.suggested["calinski_harabasz"] == k
    assert path.suggested["davies_bouldin"] == k
    assert path.reference_log_objectives is not None and path.reference_log_objectives.shape == (5, 10)
    assert path.gap_standard_errors is not None and path.gap_standard_errors.shape == (10,)


def test_gap_box_and_uniform_data() -> None:
    # Uniform data has no groups: with k = 1 in the range the gap statistic says so.
    X = np.random.default_rng(3).uniform(size=(300, 2))
    path = smartigan.cluster_path(X, range(1, 7), seed=1, criteria=("gap",), gap_reference="box", gap_references=5)
    assert path.suggested["gap"] == 1


# ---- sparse and weighted input


def test_sparse_input_gives_the_dense_path() -> None:
    sparse = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(0)
    X = np.where(rng.uniform(size=(200, 20)) < 0.2, rng.integers(1, 5, size=(200, 20)), 0).astype(np.float64)
    X[np.arange(200) % 4 == 0, :5] += 3.0
    dense = smartigan.cluster_path(X, range(2, 8), seed=3, criteria=("calinski_harabasz", "davies_bouldin",
                                                                      "silhouette", "elbow"))
    csr = smartigan.cluster_path(sparse.csr_matrix(X), range(2, 8), seed=3,
                                 criteria=("calinski_harabasz", "davies_bouldin", "silhouette", "elbow"))
    np.testing.assert_allclose(csr.objectives, dense.objectives, rtol=1e-9)
    for name, values in dense.criteria.items():
        np.testing.assert_allclose(csr.criteria[name], values, rtol=1e-8, err_msg=name)
    for k in range(2, 8):
        np.testing.assert_array_equal(csr.result(k).labels, dense.result(k).labels)
    # The gap statistic on sparse input permutes its columns (references as sparse as X).
    gap = smartigan.cluster_path(sparse.csr_matrix(X), range(2, 5), seed=3, criteria=("gap",), gap_references=2)
    assert gap.reference_log_objectives is not None
    with pytest.raises(ValueError, match="gap_reference='pca' needs dense X"):
        smartigan.cluster_path(sparse.csr_matrix(X), range(2, 4), criteria=("gap",), gap_reference="pca")


def test_weights_reach_the_core(small: np.ndarray) -> None:
    w = np.ones(len(small))
    w[:10] = 0.0
    path = smartigan.cluster_path(small, range(2, 5), seed=1, sample_weight=w, criteria=None)
    for k in range(2, 5):
        fit = path.result(k)
        recomputed = (w * ((small - fit.centroids[fit.labels]) ** 2).sum(axis=1)).sum()
        assert fit.objective == pytest.approx(recomputed, rel=1e-12)
    with pytest.raises(ValueError, match="sample_weight"):
        smartigan.cluster_path(small[:12], range(2, 5), sample_weight=np.r_[np.ones(3), np.zeros(9)])


def test_summaries_only() -> None:
    X = blobs(n=100, d=2, seed=1)
    path = smartigan.cluster_path(X, range(2, 6), seed=0, keep="summaries", criteria=("elbow", "calinski_harabasz"))
    full = smartigan.cluster_path(X, range(2, 6), seed=0, criteria=("elbow", "calinski_harabasz"))
    np.testing.assert_array_equal(path.objectives, full.objectives)
    np.testing.assert_array_equal(path.criteria["calinski_harabasz"], full.criteria["calinski_harabasz"])
    with pytest.raises(ValueError, match="keep='summaries'"):
        path.result(3)


# ---- bad input


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(ks=range(10, 2, -2)), ValueError, "invalid ks"),
        (dict(ks=range(5, 5)), ValueError, "invalid ks"),
        (dict(ks=[2, 5, 5]), ValueError, "strictly increasing"),
        (dict(ks=[]), ValueError, "strictly increasing"),
        (dict(ks=[0, 2]), ValueError, "invalid ks: 0..=2"),
        (dict(ks="2:5"), TypeError, "ks must be"),
        (dict(ks=[2.0, 3.0]), TypeError, "ks must hold integers"),
        (dict(ks=range(0, 4)), ValueError, "invalid ks: 0..=3"),
        (dict(ks=range(-2, 4)), ValueError, "invalid ks"),
        (dict(ks=range(2, 500)), ValueError, "k_max must be at most n_samples=100"),
        (dict(criteria=("elbow", "aic")), ValueError, "invalid criteria: 'aic'"),
        (dict(criteria=3), TypeError, "criteria must be"),
        (dict(keep="labels"), ValueError, "invalid keep"),
        (dict(keep="summaries"), ValueError, "needs every k's labels"),
        (dict(gap_references=0), ValueError, "invalid gap_references: 0"),
        (dict(gap_references=2.5), TypeError, "gap_references must be an integer"),
        (dict(gap_sample=0), ValueError, "invalid gap_sample: 0"),
        (dict(silhouette_sample=0), ValueError, "invalid silhouette_sample"),
        (dict(gap_reference="sphere"), ValueError, "invalid gap_reference"),
        (dict(seed=-1), ValueError, "invalid seed"),
        (dict(n_threads=0), ValueError, "n_threads"),
        (dict(method="kmeans"), ValueError, "method"),
    ],
)
def test_bad_arguments_are_named(kwargs: dict, error: type, match: str) -> None:
    X = blobs(n=100, d=2, seed=1)
    with pytest.raises(error, match=match):
        smartigan.cluster_path(X, **kwargs)


def test_bad_data_and_k_are_named() -> None:
    X = blobs(n=50, d=2)
    path = smartigan.cluster_path(X, range(2, 4), seed=0, criteria=None)
    with pytest.raises(ValueError, match=r"invalid k: 7 \(the path kept k = 2..3\)"):
        path.result(7)
    with pytest.raises(TypeError, match="k must be an integer"):
        path.result(2.0)  # type: ignore[arg-type]
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="non-finite"):
        smartigan.cluster_path(bad, range(2, 4))
    with pytest.raises(TypeError, match="complex"):
        smartigan.cluster_path(X.astype(complex), range(2, 4))


# ---- progress, float32, the core's objects


def test_progress_counts_every_path_to_the_end(small: np.ndarray) -> None:
    seen: list[tuple[int, int]] = []
    path = smartigan.cluster_path(small, range(2, 7), seed=1, criteria=("gap",), gap_references=2,
                                  progress=lambda done, total: seen.append((done, total)))
    # The data's path: growing k = 2..11 (the search goes 5 past k_max),
    # the fits of small problems and the merges over k = 3..11, growing
    # again over k = 3..6. Each reference path: a unit per k of 2..6.
    data_units, per_reference = 10 + 2 * 9 + 4, 5
    total = data_units + 2 * per_reference
    assert seen[-1] == (total, total)
    assert all(t == total for _, t in seen)
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)
    # Each path reports at least its end.
    assert {data_units, data_units + per_reference} <= {done for done, _ in seen}
    quiet = smartigan.cluster_path(small, range(2, 7), seed=1, criteria=("gap",), gap_references=2)
    np.testing.assert_array_equal(quiet.criteria["gap"], path.criteria["gap"])


def test_an_exception_in_progress_stops_the_path(small: np.ndarray) -> None:
    def stop(done: int, total: int) -> None:
        raise RuntimeError(f"stop at {done} of {total}")

    with pytest.raises(RuntimeError, match="stop at"):
        smartigan.cluster_path(small, range(2, 6), seed=0, criteria=None, progress=stop)
    with pytest.raises(TypeError, match="progress must be a callable"):
        smartigan.cluster_path(small, range(2, 6), progress=3)  # type: ignore[arg-type]


def test_float32_input_gives_float32_centroids(small: np.ndarray) -> None:
    path = smartigan.cluster_path(small.astype(np.float32), range(2, 6), seed=0, criteria=("calinski_harabasz",))
    assert path.result(3).centroids.dtype == np.float32
    assert np.all(np.diff(path.objectives) <= 0)


def test_core_path_objects(small: np.ndarray) -> None:
    from smartigan import _core, _params

    out = _core.fit_path(small, 2, 4, _params.core_params(k=2, seed=3), keep_clusterings=False)
    assert [s.k for s in out.steps] == [2, 3, 4] and out.seed == 3
    assert all(s.clustering is None for s in out.steps)
    assert out.steps[1].origin in ("split", "merge", "fit") and out.steps[0].origin == "fit"
    with pytest.raises(ValueError, match="invalid ks: -1"):
        _core.fit_path(small, -1, 4, _params.core_params(k=2))


def test_path_result_pickles(small: np.ndarray) -> None:
    import pickle

    path = smartigan.cluster_path(small, range(2, 5), seed=0, criteria=("elbow", "silhouette"))
    back = pickle.loads(pickle.dumps(path))
    np.testing.assert_array_equal(back.objectives, path.objectives)
    assert back.suggested == path.suggested
    np.testing.assert_array_equal(back.result(3).labels, path.result(3).labels)


# ---- issue 58: scale of the weights, equality, sparse references, degenerate data

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


def test_calinski_harabasz_with_small_weights_finds_the_groups() -> None:
    # Five groups; weights 1/500 sum to 1, which as "N" left N - k negative at every k.
    X = separated(5, 2, per=100, seed=1)
    w = np.full(len(X), 1 / 500)
    weighted = smartigan.cluster_path(X, range(2, 9), seed=0, sample_weight=w, criteria=("calinski_harabasz",))
    plain = smartigan.cluster_path(X, range(2, 9), seed=0, criteria=("calinski_harabasz",))
    assert weighted.suggested["calinski_harabasz"] == plain.suggested["calinski_harabasz"] == 5
    np.testing.assert_allclose(weighted.criteria["calinski_harabasz"], plain.criteria["calinski_harabasz"],
                               rtol=1e-9)


def test_calinski_harabasz_counts_the_effective_number_of_points() -> None:
    # N = (sum w)^2 / sum w^2: n for equal weights of any size.
    X = blobs(n=60, d=2, centres=3, seed=4)
    w = np.random.default_rng(2).uniform(0.5, 3.0, size=60)
    path = smartigan.cluster_path(X, range(1, 5), seed=0, sample_weight=w, criteria=("calinski_harabasz",))
    n_eff = w.sum() ** 2 / (w ** 2).sum()
    total = path.objectives[0]
    for i, k in enumerate(path.ks[1:], start=1):
        want = ((total - path.objectives[i]) / (k - 1)) / (path.objectives[i] / (n_eff - k))
        assert path.criteria["calinski_harabasz"][i] == pytest.approx(want, rel=1e-12)


@st.composite
def weighted_groups(draw):
    """Groups of points with random positive weights, a range of k and a scale for the weights."""
    groups = draw(st.integers(1, 5))
    d = draw(st.integers(1, 3))
    per = draw(st.integers(8, 25))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 20, size=(groups, d)).repeat(per, axis=0) + rng.normal(size=(groups * per, d))
    w = rng.uniform(0.1, 10.0, size=len(X))
    k_min = draw(st.integers(1, 3))
    k_max = draw(st.integers(k_min + 1, 8))
    scale = 10.0 ** draw(st.floats(-12, 12))
    return X, w, range(k_min, k_max + 1), scale


@settings(max_examples=20, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(weighted_groups())
def test_no_suggestion_depends_on_the_scale_of_the_weights(case) -> None:
    X, w, ks, scale = case
    options = dict(seed=3, gap_references=3)
    path = smartigan.cluster_path(X, ks, sample_weight=w, **options)
    scaled = smartigan.cluster_path(X, ks, sample_weight=w * scale, **options)
    assert scaled.suggested == path.suggested
    np.testing.assert_allclose(scaled.objectives, path.objectives * scale, rtol=1e-9)
    for name, values in path.criteria.items():
        np.testing.assert_allclose(scaled.criteria[name], values, rtol=1e-7, atol=1e-12, err_msg=name)


def test_path_results_compare_by_value(small: np.ndarray) -> None:
    import pickle

    path = smartigan.cluster_path(small, range(2, 6), seed=0, criteria=("elbow", "silhouette", "gap"),
                                  gap_references=2)
    copy = pickle.loads(pickle.dumps(path))
    assert copy is not path and copy == path and not (copy != path)
    assert smartigan.cluster_path(small, range(2, 6), seed=0, criteria=("elbow", "silhouette", "gap"),
                                  gap_references=2) == path
    assert smartigan.cluster_path(small, range(2, 6), seed=1, criteria=("elbow", "silhouette", "gap"),
                                  gap_references=2) != path
    assert path != "a path" and path != path.result(2)
    with pytest.raises(TypeError, match="unhashable"):
        hash(path)


def test_sparse_gap_references_stay_sparse() -> None:
    """The gap statistic's references of sparse data take O(nnz) memory, not
    n_samples x n_features (a 20,000 x 20,000 CSR matrix made 3.2 GB of them)."""
    sparse = pytest.importorskip("scipy.sparse")
    import tracemalloc

    n = d = 4000
    rng = np.random.default_rng(0)
    X = sparse.random(n, d, density=0.001, format="csr", random_state=rng, dtype=np.float64)
    X.data = rng.integers(1, 5, size=X.nnz).astype(np.float64)
    dense_bytes = n * d * 8  # 128 MB
    tracemalloc.start()
    try:
        path = smartigan.cluster_path(X, range(1, 4), seed=0, criteria=("gap",), gap_references=3)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < dense_bytes / 20, f"peak {peak / 1e6:.1f} MB of Python allocations"
    assert path.reference_log_objectives is not None and np.isfinite(path.reference_log_objectives).all()
    assert path.suggested["gap"] is not None


def test_sparse_references_keep_each_column_and_its_sparsity() -> None:
    sparse = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(1)
    X = sparse.random(300, 50, density=0.05, format="csr", random_state=rng, dtype=np.float64)
    data = _criteria.PathData(X, None)
    ref = _criteria.reference_data(data, "permute", np.random.default_rng(2)).tocsc()
    assert ref.shape == X.shape and ref.nnz == X.nnz
    original = X.tocsc()
    for j in range(X.shape[1]):  # each column's values, moved to other rows
        np.testing.assert_array_equal(np.sort(ref[:, j].data), np.sort(original[:, j].data))
    # The same for dense data, zeros included; the seed decides the draw.
    dense = X.toarray()
    ref_dense = _criteria.reference_data(_criteria.PathData(dense, None), "permute", np.random.default_rng(2))
    np.testing.assert_array_equal(np.sort(ref_dense, axis=0), np.sort(dense, axis=0))
    assert not np.array_equal(ref_dense, dense)


def test_dense_gap_answers_are_unchanged(small: np.ndarray) -> None:
    """Dense data keeps its principal-component references, drawn as before
    sparse data had references of their own: the gap statistic is the one
    computed here from those references, bit for bit."""
    from smartigan import _core, _params

    ks = range(1, 7)
    path = smartigan.cluster_path(small, ks, seed=4, criteria=("gap",), gap_references=4)
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([4, _criteria.GAP_STREAM])))
    mean = small.mean(axis=0)
    _, axes = np.linalg.eigh((small - mean).T @ (small - mean))
    scores = (small - mean) @ axes
    logs = []
    for _ in range(4):
        ref = rng.uniform(scores.min(axis=0), scores.max(axis=0), size=small.shape) @ axes.T + mean
        # Each reference: one restart at the first k, then splits, no refinement.
        params = _params.core_params(k=1, seed=4, n_init=1, refine=False)
        out = _core.fit_path(np.ascontiguousarray(ref), 1, 6, params, False)
        logs.append(np.log([s.objective for s in out.steps]))
    gap = np.mean(logs, axis=0) - np.log(path.objectives)
    np.testing.assert_array_equal(path.criteria["gap"], gap)


# -- issue 62: cheap defaults, any list of k, the gap statistic on samples ---------------


def test_the_default_criteria_are_the_cheap_three(small: np.ndarray) -> None:
    path = smartigan.cluster_path(small, range(2, 8), seed=2)
    assert tuple(path.criteria) == _criteria.DEFAULT_CRITERIA == ("elbow", "calinski_harabasz", "davies_bouldin")
    assert path.gap_standard_errors is None and path.reference_log_objectives is None
    assert set(path.suggested) == set(_criteria.DEFAULT_CRITERIA) and path.suggested["elbow"] == 4


def test_a_list_of_k_keeps_those_ks_of_the_whole_path(small: np.ndarray) -> None:
    whole = smartigan.cluster_path(small, range(2, 11), seed=3, criteria=None)
    grid = smartigan.cluster_path(small, [2, 4, 7, 10], seed=3, criteria=_criteria.CRITERIA, gap_references=3)
    assert grid.ks.tolist() == [2, 4, 7, 10]
    rows = [0, 2, 5, 8]
    np.testing.assert_array_equal(grid.objectives, whole.objectives[rows])
    assert grid.result(7) == whole.result(7)
    with pytest.raises(ValueError, match=r"invalid k: 5 \(the path kept k = 2, 4, 7, 10\)"):
        grid.result(5)
    # The neighbours' criteria read the ks returned: the elbow's chord runs
    # over them, and the gap rule compares each with the next one returned.
    np.testing.assert_array_equal(grid.criteria["elbow"],
                                  _criteria.elbow(grid.ks, _criteria.log_objectives(grid.objectives)))
    assert grid.suggested["gap"] == _criteria.gap_choice(grid.ks, grid.criteria["gap"], grid.gap_standard_errors)
    assert grid.suggested["elbow"] == 4 and grid.suggested["gap"] == 4


def test_gap_references_on_samples_estimate_those_of_the_datas_size() -> None:
    X = blobs(n=3000, d=4, centres=5, spread=0.5, seed=8)
    ks = range(1, 9)
    exact = smartigan.cluster_path(X, ks, seed=1, criteria=("gap",), gap_references=6, gap_sample=3000)
    # Up to gap_sample points the references have the data's size: the same answer for any larger gap_sample.
    assert exact == smartigan.cluster_path(X, ks, seed=1, criteria=("gap",), gap_references=6, gap_sample=10**6)
    sampled = smartigan.cluster_path(X, ks, seed=1, criteria=("gap",), gap_references=6, gap_sample=300)
    assert sampled.suggested == exact.suggested == {"gap": 5}
    # log W*(k) of 300-point references, scaled and corrected for the data's
    # 3000 points, against references of 3000 points: within a few per cent
    # of W* (what the optimism correction is for: uncorrected, a sample's
    # fitted objective lies below the population's, here by up to 0.05 at
    # k = 8, and a fresh sample's above it by up to 0.07).
    gap = np.abs(sampled.reference_log_objectives.mean(axis=0) - exact.reference_log_objectives.mean(axis=0))
    assert gap.max() < 0.03, gap
