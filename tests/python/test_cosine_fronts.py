"""metric="cosine" beyond cluster and Clusterer: the scikit-learn estimator,
cluster_path and its criteria, the command line and the pictures (issue 60).
The Dask estimator's are in test_dask.py, beside its cluster."""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.sparse as sp

import smartigan
from smartigan import _params
from smartigan._criteria import CRITERIA, PathData, ReferenceSet, davies_bouldin

sklearn = pytest.importorskip("sklearn")
from sklearn.base import clone  # noqa: E402
from sklearn.metrics import silhouette_score  # noqa: E402

from smartigan.sklearn import KMeans  # noqa: E402


def directions(n: int = 400, d: int = 8, groups: int = 4, seed: int = 0) -> np.ndarray:
    """Rows in ``groups`` directions, each with its own length (spread over a
    factor of about 50): clusters by direction, not by position."""
    rng = np.random.default_rng(seed)
    axes = rng.normal(size=(groups, d))
    axes /= np.linalg.norm(axes, axis=1, keepdims=True)
    rows = axes[np.arange(n) % groups] + 0.2 * rng.normal(size=(n, d))
    return rows * rng.lognormal(0.0, 1.0, size=(n, 1))


def unit(X) -> np.ndarray:
    X = np.asarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64)
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def cosine_loss(X, labels, centroids, weights=None) -> float:
    """An independent evaluator: sum of w * (1 - cos) from labels and centroids."""
    c = np.asarray(centroids, dtype=np.float64)
    c = c / np.linalg.norm(c, axis=1, keepdims=True)
    losses = 1.0 - np.einsum("ij,ij->i", unit(X), c[labels])
    return float(np.sum(losses if weights is None else weights * losses))


@pytest.fixture(scope="module")
def X() -> np.ndarray:
    return directions()


# -- the scikit-learn estimator --------------------------------------------------


def test_estimator_carries_the_metric_through_get_params_and_clone():
    km = KMeans(3, metric="cosine")
    assert km.get_params()["metric"] == "cosine"
    assert clone(km).metric == "cosine"
    assert km.set_params(metric="euclidean").metric == "euclidean"
    assert KMeans().metric == _params.PARAMETERS["metric"].default == "euclidean"


@pytest.mark.parametrize("kind", ["float64", "float32", "sparse", "weighted"])
def test_estimator_fits_the_spherical_loss(X, kind):
    weights = None
    data = X
    if kind == "float32":
        data = X.astype(np.float32)
    elif kind == "sparse":
        # Small entries left out (a row keeps at least its largest).
        data = sp.csr_matrix(np.where(np.abs(X) < 0.5 * np.abs(X).max(axis=1, keepdims=True), 0.0, X))
    elif kind == "weighted":
        weights = np.random.default_rng(1).uniform(0.1, 3.0, size=X.shape[0])
    km = KMeans(4, metric="cosine", random_state=0).fit(data, sample_weight=weights)
    tol = 1e-5 if kind == "float32" else 1e-9
    assert km.inertia_ == pytest.approx(cosine_loss(data, km.labels_, km.cluster_centers_, weights), rel=tol)
    np.testing.assert_allclose(np.linalg.norm(km.cluster_centers_.astype(np.float64), axis=1), 1.0, atol=1e-6)
    np.testing.assert_array_equal(km.predict(data), km.labels_)
    U, C = unit(data), km.cluster_centers_.astype(np.float64)
    np.testing.assert_allclose(km.transform(data), 1.0 - U @ C.T, atol=1e-6)
    assert km.score(data, sample_weight=weights) == pytest.approx(-km.inertia_, rel=tol)
    assert km.cluster_centers_.dtype == (np.float32 if kind == "float32" else np.float64)


def test_estimator_matches_cluster_and_fit_predict(X):
    km = KMeans(4, metric="cosine", random_state=5)
    labels = km.fit_predict(X)
    direct = smartigan.cluster(X, 4, seed=5, metric="cosine")
    np.testing.assert_array_equal(labels, direct.labels)
    assert km.inertia_ == direct.objective
    # The Euclidean fit of the same data is another clustering (the rows' lengths differ widely).
    assert KMeans(4, random_state=5).fit(X).inertia_ != km.inertia_


def test_estimator_uses_the_metric_it_was_fitted_with(X):
    km = KMeans(4, metric="cosine", random_state=0).fit(X)
    km.set_params(metric="euclidean")  # not refitted: the model is still the spherical one
    np.testing.assert_array_equal(km.predict(X), km.labels_)
    assert km.score(X) == pytest.approx(-km.inertia_, rel=1e-9)


def test_estimator_scores_new_rows_by_cosine(X):
    km = KMeans(4, metric="cosine", random_state=0).fit(X)
    Y = directions(50, seed=9)
    U, C = unit(Y), km.cluster_centers_
    nearest = np.argmax(U @ C.T, axis=1)
    np.testing.assert_array_equal(km.predict(Y), nearest)
    assert km.score(Y) == pytest.approx(-cosine_loss(Y, nearest, C), rel=1e-9)
    # Only the direction counts: scaling rows changes no label and no score.
    scaled = Y * np.random.default_rng(2).uniform(0.01, 100.0, size=(50, 1))
    np.testing.assert_array_equal(km.predict(scaled), km.predict(Y))
    assert km.score(scaled) == pytest.approx(km.score(Y), rel=1e-9)


def test_estimator_chooses_k_by_the_spherical_path(X):
    km = KMeans("auto", k_range=(2, 7), metric="cosine", random_state=0).fit(X)
    assert km.path_.metric == "cosine"
    assert km.n_clusters_ == 4  # the directions, which the Euclidean loss on these lengths does not see
    assert km.inertia_ == km.path_.objectives[km.n_clusters_ - 2]


def test_estimator_refuses_a_bad_metric_and_rows_of_zeros(X):
    with pytest.raises(ValueError, match=r"invalid metric: 'cos' \(allowed: 'euclidean', 'cosine'\)"):
        KMeans(3, metric="cos").fit(X)
    with pytest.raises(TypeError, match="metric must be a string"):
        KMeans(3, metric=1).fit(X)
    zero = X.copy()
    zero[7] = 0.0
    with pytest.raises(ValueError, match="a row of length zero at row 7"):
        KMeans(3, metric="cosine").fit(zero)
    km = KMeans(3, metric="cosine", random_state=0).fit(X)
    for method in (km.predict, km.transform, km.score):
        with pytest.raises(ValueError, match="a row of length zero at row 7"):
            method(zero)


# -- cluster_path -----------------------------------------------------------------


@pytest.mark.parametrize("sparse", [False, True])
def test_path_descends_by_the_spherical_loss(X, sparse):
    data = sp.csr_matrix(X) if sparse else X
    path = smartigan.cluster_path(data, range(1, 8), seed=0, metric="cosine", criteria=CRITERIA, gap_references=3)
    assert path.metric == "cosine" and set(path.suggested) == set(CRITERIA)
    assert np.all(np.diff(path.objectives) <= 0)
    for k, objective in zip(path.ks, path.objectives):
        result = path.result(int(k))
        assert result.metric == "cosine"
        assert objective == pytest.approx(cosine_loss(X, result.labels, result.centroids), rel=1e-9, abs=1e-12)
    # Every criterion finds the four directions.
    assert path.suggested == dict.fromkeys(path.suggested, 4)


def test_path_depends_on_the_rows_directions_only(X):
    # Rows scaled by powers of two have the same unit rows, bit for bit.
    scaled = X * 2.0 ** np.random.default_rng(3).integers(-20, 20, size=(X.shape[0], 1))
    a = smartigan.cluster_path(X, range(1, 6), seed=2, metric="cosine", criteria=CRITERIA, gap_references=2)
    b = smartigan.cluster_path(scaled, range(1, 6), seed=2, metric="cosine", criteria=CRITERIA, gap_references=2)
    assert a.objectives.tolist() == b.objectives.tolist()
    for name in a.criteria:
        np.testing.assert_array_equal(a.criteria[name], b.criteria[name])
    assert a.suggested == b.suggested


def test_path_criteria_read_the_unit_rows(X):
    path = smartigan.cluster_path(X, range(2, 6), seed=0, metric="cosine",
                                  criteria=("calinski_harabasz", "davies_bouldin", "silhouette"))
    data = PathData(X, None, "cosine")
    # Calinski-Harabasz's total is the spherical loss at k = 1.
    assert data.total_sum_of_squares() == pytest.approx(smartigan.cluster(X, 1, metric="cosine").objective,
                                                        rel=1e-12)
    U = unit(X)
    for i, k in enumerate(path.ks):
        r = path.result(int(k))
        W, T, n = path.objectives[i], data.total_sum_of_squares(), X.shape[0]
        assert path.criteria["calinski_harabasz"][i] == pytest.approx(((T - W) / (k - 1)) / (W / (n - k)), rel=1e-12)
        # The silhouette of the unit rows under Euclidean distance (the chord, sqrt(2 (1 - cos))).
        assert path.criteria["silhouette"][i] == pytest.approx(silhouette_score(U, r.labels), rel=1e-9)
        # Davies-Bouldin from the same chords, written out.
        chord = np.linalg.norm(U - r.centroids[r.labels], axis=1)
        scatter = np.bincount(r.labels, weights=chord) / np.bincount(r.labels)
        between = np.linalg.norm(r.centroids[:, None] - r.centroids[None], axis=2)
        np.fill_diagonal(between, np.inf)
        expected = np.mean(np.max((scatter[:, None] + scatter[None]) / between, axis=1))
        assert path.criteria["davies_bouldin"][i] == pytest.approx(expected, rel=1e-9)
        assert davies_bouldin(data, r.labels, r.centroids) == path.criteria["davies_bouldin"][i]


def test_sampled_gap_references_are_scored_by_the_spherical_loss(X):
    # Fresh reference points are scored by 1 - cos at their direction of
    # largest cosine, whatever their lengths.
    rng = np.random.default_rng(4)
    points = rng.normal(size=(300, X.shape[1])) * rng.lognormal(0.0, 1.0, size=(300, 1))
    weights = rng.uniform(0.5, 2.0, size=300)
    centroids = unit(rng.normal(size=(5, X.shape[1])))
    loss = 1.0 - (unit(points) @ centroids.T).max(axis=1)
    reference = ReferenceSet(points, weights, 3.0, "cosine")
    assert reference.cost(centroids) == pytest.approx(3.0 * float(weights @ loss), rel=1e-12)
    # References of fewer points than the data (gap_sample) still find the four directions.
    many = np.repeat(X, 4, axis=0) * np.random.default_rng(5).lognormal(0.0, 0.2, size=(4 * X.shape[0], 1))
    path = smartigan.cluster_path(many, range(1, 8), seed=0, metric="cosine", criteria=("gap",),
                                  gap_references=4, gap_sample=400)
    assert path.suggested == {"gap": 4}
    assert np.all(np.isfinite(path.reference_log_objectives))


def test_path_refuses_what_the_cosine_cannot_measure(X):
    with pytest.raises(ValueError, match=r"invalid metric: 'cos'"):
        smartigan.cluster_path(X, range(2, 4), metric="cos")
    zero = X.copy()
    zero[11] = 0.0
    with pytest.raises(ValueError, match="invalid X: a row of length zero at row 11"):
        smartigan.cluster_path(zero, range(2, 4), metric="cosine", criteria=None)
    # One stored value per row: permuting the columns leaves rows empty.
    rng = np.random.default_rng(0)
    one_each = sp.csr_matrix((rng.uniform(1, 2, 200), (np.arange(200), rng.integers(0, 50, 200))), shape=(200, 50))
    with pytest.raises(ValueError, match=r"criterion 'gap' with metric='cosine' and gap_reference='permute': "
                                         r"reference data set 0 has \d+ rows of zeros"):
        smartigan.cluster_path(one_each, range(1, 4), metric="cosine", criteria=("gap",))
    # Without the gap statistic the same data are fine.
    assert smartigan.cluster_path(one_each, range(1, 4), metric="cosine", criteria=("elbow",)).metric == "cosine"


# -- the command line -------------------------------------------------------------


@pytest.fixture
def csv_file(tmp_path, X):
    path = tmp_path / "directions.csv"
    np.savetxt(path, X, delimiter=",", header=",".join(f"f{i}" for i in range(X.shape[1])), comments="")
    return path


def test_cli_fit_with_metric_cosine(csv_file, X, tmp_path, capsys):
    from smartigan.cli import main

    out = tmp_path / "run"
    assert main(["fit", str(csv_file), "-k", "4", "--metric", "cosine", "--seed", "3", "--json",
                 "--out", str(out)]) == 0
    summary = json.loads(capsys.readouterr().out)
    direct = smartigan.cluster(X, 4, seed=3, metric="cosine")
    assert summary["metric"] == "cosine"
    assert summary["objective"] == pytest.approx(direct.objective, rel=1e-12)
    labels = np.loadtxt(f"{out}.labels.csv", delimiter=",", skiprows=1).astype(np.int64)
    centroids = np.loadtxt(f"{out}.centroids.csv", delimiter=",", skiprows=1)
    np.testing.assert_array_equal(labels, direct.labels)
    np.testing.assert_allclose(np.linalg.norm(centroids, axis=1), 1.0, atol=1e-12)
    assert main(["fit", str(csv_file), "-k", "4", "--metric", "cosine", "--seed", "3"]) == 0
    assert "metric cosine" in capsys.readouterr().out


def test_cli_compare_and_choose_k_with_metric_cosine(csv_file, X, capsys):
    from smartigan.cli import main

    assert main(["compare", str(csv_file), "-k", "4", "--metric", "cosine", "--seed", "1", "--n-init", "3",
                 "--json"]) == 0
    compared = json.loads(capsys.readouterr().out)
    assert compared["metric"] == "cosine"
    lloyd = smartigan.cluster(X, 4, "lloyd", seed=1, n_init=3, metric="cosine")
    assert compared["methods"][0]["objective"] == pytest.approx(lloyd.objective, rel=1e-12)
    assert main(["choose-k", str(csv_file), "-k", "2:6", "--metric", "cosine", "--seed", "0",
                 "--criteria", "elbow,silhouette", "--json"]) == 0
    chosen = json.loads(capsys.readouterr().out)
    path = smartigan.cluster_path(X, range(2, 7), seed=0, metric="cosine", criteria=("elbow", "silhouette"))
    assert chosen["metric"] == "cosine"
    np.testing.assert_allclose(chosen["objectives"], path.objectives, rtol=1e-12)
    assert chosen["suggested"] == {"elbow": 4, "silhouette": 4}


def test_cli_metric_comes_from_the_table_and_is_checked(csv_file, capsys):
    from smartigan.cli import main
    from smartigan.cli.parser import build_parser

    for command in (["fit", "d.csv", "-k", "3"], ["compare", "d.csv", "-k", "3"], ["choose-k", "d.csv"]):
        assert build_parser().parse_args(command).metric == _params.PARAMETERS["metric"].default
    for command in ("fit", "compare", "choose-k"):
        with pytest.raises(SystemExit) as exit_:
            main([command, str(csv_file), "-k", "3" if command != "choose-k" else "2:3", "--metric", "cos"])
        assert exit_.value.code == 2
        assert "argument --metric: invalid choice: 'cos'" in capsys.readouterr().err


def test_cli_row_of_zeros_is_a_data_error(tmp_path, capsys):
    from smartigan.cli import main

    path = tmp_path / "zero.csv"
    path.write_text("a,b\n1,2\n0,0\n3,1\n2,2\n")
    assert main(["fit", str(path), "-k", "2", "--metric", "cosine"]) == 2
    assert "a row of length zero at row 1" in capsys.readouterr().err


# -- the pictures -----------------------------------------------------------------


def test_pictures_label_the_cosine_loss(X):
    pytest.importorskip("matplotlib")
    from smartigan import plot

    runs = {m: smartigan.cluster(X, 4, m, seed=0, metric="cosine") for m in ("lloyd", "smartigan")}
    fig = plot.comparison_figure(X, runs)
    assert fig.axes[-1].get_ylabel() == "spherical objective (sum of 1 - cos)"
    # The clustering panels draw the unit rows (what was clustered), in their principal plane.
    projection = plot.Projection.fit(unit(X))
    drawn = np.vstack([c.get_offsets() for c in fig.axes[0].collections[:-1]])
    expected = np.vstack([projection(unit(X)[runs["lloyd"].labels == j]) for j in range(4)])
    np.testing.assert_allclose(drawn, expected, atol=1e-12)
    path = smartigan.cluster_path(X, range(2, 5), seed=0, metric="cosine", criteria=("elbow",))
    assert plot.path_figure(path).axes[0].get_ylabel() == "spherical objective (sum of 1 - cos)"
    euclidean = smartigan.cluster(X, 4, seed=0)
    assert plot.comparison_figure(X, euclidean).axes[-1].get_ylabel() == "k-means objective"
