"""smartigan.plot: projections (no matplotlib needed) and rendered pictures (Agg)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import smartigan
from smartigan.datasets import load_iris
from smartigan.plot import Projection

X, _ = load_iris()


# -- projection: pure numpy ------------------------------------------------------------


def test_projection_of_2d_and_1d_data_is_as_is():
    Y = np.array([[1.0, 2.0], [3.0, -4.0]])
    p = Projection.fit(Y)
    assert p.components is None
    np.testing.assert_array_equal(p(Y), Y)
    assert p.axis_labels(["a", "b"]) == ("a", "b")
    assert p.axis_labels() == ("x0", "x1")
    line = Projection.fit([[1.0], [5.0]])
    np.testing.assert_array_equal(line([[1.0], [5.0]]), [[1.0, 0.0], [5.0, 0.0]])


@pytest.mark.parametrize("shape", [(150, 4), (5, 40)])  # eigen path (n >= d) and SVD path (n < d)
def test_projection_is_pca(shape):
    rng = np.random.default_rng(0)
    Y = rng.normal(size=shape) * np.linspace(5, 1, shape[1]) + 3.0
    p = Projection.fit(Y)
    centered = Y - Y.mean(axis=0)
    _, s, vt = np.linalg.svd(centered, full_matrices=False)
    for got, want in zip(p.components, vt[:2]):
        assert abs(abs(float(got @ want)) - 1.0) < 1e-9
        assert got[np.argmax(np.abs(got))] > 0, "signs are fixed"
    np.testing.assert_allclose(p.explained, s[:2] ** 2 / (s**2).sum(), rtol=1e-9)
    Z = p(Y)
    np.testing.assert_allclose(Z.mean(axis=0), 0.0, atol=1e-9)
    np.testing.assert_allclose(Z.var(axis=0) * shape[0], s[:2] ** 2, rtol=1e-8)
    assert p.axis_labels()[0].startswith("PC1 (")
    with pytest.raises(ValueError, match="features"):
        p(Y[:, :2])


def test_projection_of_constant_data():
    p = Projection.fit(np.ones((10, 3)))
    assert np.all(np.isfinite(p(np.ones((2, 3)))))
    assert p.explained.tolist() == [0.0, 0.0]


def test_importing_plot_does_not_import_matplotlib():
    code = ("import sys, smartigan, smartigan.plot as p; "
            "p.Projection.fit([[0.0, 1, 2], [1, 2, 0], [2, 0, 1.0]]); print('matplotlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_clear_error_without_matplotlib(monkeypatch):
    from smartigan import plot

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r"pip install 'smartigan\[plot\]'"):
        plot.comparison_figure(X, smartigan.cluster(X, 3, seed=0))


# -- rendering -------------------------------------------------------------------------------


@pytest.fixture
def mpl():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    return Figure


def test_plot_clustering_draws_every_point_once(mpl):
    from smartigan.plot import plot_clustering

    r = smartigan.cluster(X, 4, seed=1)
    ax = mpl().subplots()
    plot_clustering(X, r.labels, r.centroids, ax=ax, title="iris")
    clusters, cents = ax.collections[:-1], ax.collections[-1]
    assert len(clusters) == 4
    assert sum(len(c.get_offsets()) for c in clusters) == 150
    for j, c in enumerate(clusters):
        assert len(c.get_offsets()) == np.count_nonzero(r.labels == j)
    p = Projection.fit(X)
    np.testing.assert_allclose(np.asarray(cents.get_offsets()), p(r.centroids))
    assert ax.get_xlabel().startswith("PC1") and ax.get_title() == "iris"
    with pytest.raises(ValueError, match="labels must have shape"):
        plot_clustering(X, r.labels[:10], ax=mpl().subplots())


def test_plot_clustering_subsamples_large_data(mpl):
    from smartigan.plot import plot_clustering

    rng = np.random.default_rng(0)
    Y = rng.normal(size=(3000, 2))
    labels = (Y[:, 0] > 0).astype(np.int64)
    ax = plot_clustering(Y, labels, ax=mpl().subplots(), max_points=500, title="big")
    assert sum(len(c.get_offsets()) for c in ax.collections) == 500
    assert "500 of 3000 points drawn" in ax.get_title()


def test_plot_history_one_line_per_method(mpl):
    from smartigan.plot import plot_history

    runs = {m: smartigan.cluster(X, 6, m, seed=2, init="random-partition") for m in ("lloyd", "hartigan", "smartigan")}
    ax = plot_history(runs, ax=mpl().subplots())
    lines = ax.get_lines()
    assert [ln.get_label() for ln in lines] == list(runs)
    for ln, r in zip(lines, runs.values()):
        y = ln.get_ydata()
        assert len(y) == r.n_sweeps + 1
        assert y[0] == r.initial_objective and y[-1] == pytest.approx(r.objective, rel=1e-12)
    assert ax.get_yscale() == "log", "a random partition starts far above the end: log scale"
    flat = plot_history({"a": [10.0, 9.0, 8.5]}, ax=mpl().subplots())
    assert flat.get_yscale() == "linear"


def test_comparison_figure_matches_colours(mpl):
    from smartigan.plot import comparison_figure

    r = smartigan.cluster(X, 3, seed=0)
    perm = np.array([2, 0, 1])
    # the same clustering with its clusters renumbered
    shuffled = type(r)(**{**r.__dict__, "labels": perm[r.labels], "centroids": r.centroids[np.argsort(perm)]})
    fig = comparison_figure(X, {"a": r, "b": shuffled}, title="t")
    ax_a, ax_b, ax_h = fig.axes
    for ca, cb in zip(ax_a.collections, ax_b.collections):
        np.testing.assert_array_equal(ca.get_facecolors(), cb.get_facecolors())
        np.testing.assert_allclose(np.sort(ca.get_offsets(), axis=0), np.sort(cb.get_offsets(), axis=0))
    assert ax_a.get_title().startswith("a: objective")
    assert len(ax_h.get_lines()) == 2


def test_save_png(mpl, tmp_path):
    import matplotlib.image

    from smartigan import plot

    runs = {m: smartigan.cluster(X, 5, m, seed=0) for m in ("lloyd", "hartigan", "smartigan")}
    path = plot.save(X, runs, tmp_path / "cmp.png", title="Iris", dpi=80)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    img = matplotlib.image.imread(str(path))
    assert img.shape[:2] == (round(4.6 * 80), round(20.0 * 80))
    assert float(img[..., :3].std()) > 0.05
    one = plot.save(X[:, :2], smartigan.cluster(X[:, :2], 3, seed=0), tmp_path / "one.svg")
    assert b"<svg" in one.read_bytes()[:500]


def test_path_figure_marks_every_suggestion(mpl, tmp_path):
    import matplotlib.image

    from smartigan import plot

    every = ("elbow", "calinski_harabasz", "davies_bouldin", "silhouette", "gap")
    path = smartigan.cluster_path(X, range(1, 9), seed=0, criteria=every, gap_references=2)
    fig = plot.path_figure(path, title="Iris")
    objective, *panels = [ax for ax in fig.axes if ax.get_visible()]
    assert len(panels) == len(path.criteria) == 5
    np.testing.assert_array_equal(objective.get_lines()[0].get_ydata(), path.objectives)
    assert objective.get_yscale() == "log"
    # One dashed line per suggestion, at its k, labelled with the criterion.
    marks = {ln.get_label(): ln.get_xdata()[0] for ln in objective.get_lines()[1:]}
    assert marks == {f"{name}: k={k}": k for name, k in path.suggested.items() if k is not None}
    for ax, name in zip(panels, path.criteria):
        k = path.suggested[name]
        circled = [ln for ln in ax.get_lines() if ln.get_label() == f"suggested k={k}"]
        assert len(circled) == 1, name
        assert circled[0].get_xdata()[0] == k
        assert circled[0].get_ydata()[0] == path.criteria[name][k - 1]
    assert panels[-1].get_title().startswith("gap statistic")
    file = plot.save_path(path, tmp_path / "k.png", dpi=60)
    assert float(matplotlib.image.imread(str(file))[..., :3].std()) > 0.05
    with pytest.raises(TypeError, match="PathResult"):
        plot.path_figure(smartigan.cluster(X, 3, seed=0))


def test_one_pca_for_the_pictures_and_the_gap_references():
    # plot.Projection draws on the two axes of largest spread of the one
    # principal-axes computation, which the gap statistic's "pca" references
    # are drawn in too (smartigan._criteria.reference_data).
    from smartigan._pca import PrincipalAxes

    rng = np.random.default_rng(1)
    Y = rng.normal(size=(200, 5)) * np.array([4.0, 3.0, 2.0, 1.0, 0.5])
    pca = PrincipalAxes.fit(Y)
    p = Projection.fit(Y)
    np.testing.assert_allclose(np.abs(p.components), np.abs(pca.axes[::-1][:2]), atol=1e-12)
    np.testing.assert_allclose(p.explained, pca.spreads[::-1][:2] / pca.spreads.sum(), rtol=1e-12)
    # Integer weights act as repeated rows.
    w = rng.integers(1, 4, size=200)
    weighted, repeated = PrincipalAxes.fit(Y, w.astype(np.float64)), PrincipalAxes.fit(np.repeat(Y, w, axis=0))
    np.testing.assert_allclose(weighted.spreads, repeated.spreads, rtol=1e-10)
    np.testing.assert_allclose(np.abs(weighted.axes), np.abs(repeated.axes), atol=1e-8)
    # Fewer rows than columns: the singular vectors, with the eigenvalues' spreads.
    wide = rng.normal(size=(4, 9))
    few, full = PrincipalAxes.fit(wide), np.linalg.eigvalsh((wide - wide.mean(0)).T @ (wide - wide.mean(0)))
    assert few.axes.shape == (4, 9)
    np.testing.assert_allclose(few.spreads, full[-4:], atol=1e-10)
    np.testing.assert_allclose(few.points(few.scores(wide)), wide, atol=1e-12)
