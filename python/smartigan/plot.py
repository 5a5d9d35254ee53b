"""Pictures of a clustering and of the objective per sweep (needs matplotlib).

Install the optional dependency with ``pip install smartigan[plot]``.
Importing :mod:`smartigan` does not import matplotlib, and neither does
importing this module: matplotlib is loaded by the drawing functions.

* :func:`plot_clustering` draws the points coloured by cluster, with the
  centroids; 2-d data is drawn as is, 1-d data on a line, and higher
  dimensions on their first two principal components (:class:`Projection`,
  from :class:`smartigan._pca.PrincipalAxes`).
* :func:`plot_history` draws the objective after each sweep, one line per
  method.
* :func:`comparison_figure` puts both side by side for one or more results
  (one clustering panel per method), and :func:`save` writes it to a file;
  this is what ``smartigan fit --plot`` and ``smartigan compare --plot`` use.
* :func:`path_figure` draws a :class:`~smartigan.PathResult` (from
  :func:`smartigan.cluster_path`): the objective and every criterion against
  k, each criterion's suggested k marked; :func:`save_path` writes it to a
  file (``smartigan choose-k --plot``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

from ._api import ClusterResult
from ._arrays import as_data
from ._pca import PrincipalAxes
from ._path import PathResult

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["Projection", "plot_clustering", "plot_history", "comparison_figure", "save", "path_figure", "save_path"]

#: Scatter plots draw at most this many points (a fixed-seed random subset
#: beyond it) so that pictures of large data stay quick and readable.
MAX_POINTS = 50_000

ResultLike = Union[ClusterResult, Any]
Results = Union[ClusterResult, Mapping[str, ClusterResult]]


def _require_matplotlib() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise ImportError(
            "smartigan.plot needs matplotlib; install it with `pip install 'smartigan[plot]'` "
            "(or `pip install matplotlib`)"
        ) from None
    return matplotlib


@dataclass(frozen=True)
class Projection:
    """A map from ``R^d`` to the plane used to draw ``d``-dimensional data.

    For ``d == 2`` the identity, for ``d == 1`` the line ``(x, 0)``, and for
    ``d > 2`` the orthogonal projection on the first two principal components
    of the data it was fitted on (signs fixed so that each component's
    largest entry is positive, hence deterministic).

    Attributes
    ----------
    mean : ndarray of shape (d,)
        Subtracted before projecting (zero for ``d <= 2``).
    components : ndarray of shape (2, d) or None
        Principal axes as rows; ``None`` for ``d <= 2``.
    explained : ndarray of shape (2,) or None
        Fraction of the total variance along each principal axis.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 1.0, 0.0], [2.0, 1.0, 0.0]])
    >>> p = Projection.fit(X)
    >>> np.round(np.abs(p.components), 6).tolist()
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    >>> p(X).shape
    (4, 2)
    >>> p.axis_labels()
    ('PC1 (80.0% of variance)', 'PC2 (20.0% of variance)')
    """

    mean: npt.NDArray[np.float64]
    components: Optional[npt.NDArray[np.float64]]
    explained: Optional[npt.NDArray[np.float64]]

    @classmethod
    def fit(cls, X: npt.ArrayLike) -> "Projection":
        """The projection for data ``X`` of shape (n_samples, n_features).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        Projection

        Examples
        --------
        >>> Projection.fit([[1.0, 2.0], [3.0, 4.0]]).components is None
        True
        """
        data = np.asarray(as_data(X), dtype=np.float64)
        d = data.shape[1]
        if d <= 2:
            return cls(np.zeros(d), None, None)
        pca = PrincipalAxes.fit(data)
        # The two of largest spread, largest first.
        axes, spreads = pca.axes[::-1][:2].copy(), pca.spreads[::-1]
        for row in axes:
            if row[np.argmax(np.abs(row))] < 0:
                row *= -1
        total = float(np.clip(spreads, 0, None).sum())
        explained = np.clip(spreads[:2], 0, None) / total if total > 0 else np.zeros(2)
        return cls(pca.mean, axes, explained)

    def __call__(self, Y: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """``Y`` (shape (m, d)) in plane coordinates, shape (m, 2)."""
        data = np.asarray(as_data(Y, "Y"), dtype=np.float64)
        if data.shape[1] != self.mean.shape[0]:
            raise ValueError(f"Y has {data.shape[1]} features, the projection was fitted on {self.mean.shape[0]}")
        if self.components is None:
            if data.shape[1] == 1:
                return np.column_stack([data[:, 0], np.zeros(data.shape[0])])
            return data
        return np.asarray((data - self.mean) @ self.components.T)

    def axis_labels(self, feature_names: Optional[Sequence[str]] = None) -> Tuple[str, str]:
        """Axis titles: feature names for ``d <= 2``, principal components otherwise.

        Parameters
        ----------
        feature_names : sequence of str, optional
            Names of the data's columns (used for ``d <= 2``).

        Returns
        -------
        (str, str)

        Examples
        --------
        >>> Projection.fit([[1.0, 2.0], [3.0, 5.0]]).axis_labels(["width", "height"])
        ('width', 'height')
        """
        if self.components is None or self.explained is None:
            names = list(feature_names) if feature_names is not None else [f"x{i}" for i in range(self.mean.shape[0])]
            return (names[0], names[1] if len(names) > 1 else "")
        return tuple(f"PC{i + 1} ({100 * e:.1f}% of variance)" for i, e in enumerate(self.explained))  # type: ignore[return-value]


def _colors(k: int) -> Any:
    matplotlib = _require_matplotlib()
    if k <= 10:
        cmap = matplotlib.colormaps["tab10"]
        return [cmap(i) for i in range(k)]
    if k <= 20:
        cmap = matplotlib.colormaps["tab20"]
        return [cmap(i) for i in range(k)]
    cmap = matplotlib.colormaps["turbo"]
    return [cmap(i / max(k - 1, 1)) for i in range(k)]


def _new_axes(ax: Optional["Axes"]) -> "Axes":
    if ax is not None:
        return ax
    _require_matplotlib()
    import matplotlib.pyplot as plt

    _, new = plt.subplots()
    return new


def plot_clustering(
    X: npt.ArrayLike,
    labels: npt.ArrayLike,
    centroids: Optional[npt.ArrayLike] = None,
    *,
    ax: Optional["Axes"] = None,
    title: Optional[str] = None,
    projection: Optional[Projection] = None,
    feature_names: Optional[Sequence[str]] = None,
    max_points: int = MAX_POINTS,
) -> "Axes":
    """Draw the points of ``X`` coloured by cluster, and the centroids.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The data.
    labels : array-like of int, shape (n_samples,)
        Cluster of each point, in ``0..k``.
    centroids : array-like of shape (k, n_features), optional
        Drawn as large crosses with their cluster's colour.
    ax : matplotlib Axes, optional
        Where to draw (default: a new pyplot figure).
    title : str, optional
        Axes title.
    projection : Projection, optional
        Default: ``Projection.fit(X)`` (identity for 2-d data, principal
        components for more dimensions). Pass one to draw several panels in
        the same coordinates.
    feature_names : sequence of str, optional
        Axis titles for 1-d and 2-d data.
    max_points : int
        Draw at most this many points (a fixed random subset).

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ImportError
        If matplotlib is not installed.
    ValueError
        If ``labels`` does not have one entry per row of ``X``.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from matplotlib.figure import Figure
    >>> import smartigan
    >>> from smartigan.plot import plot_clustering
    >>> X, _ = smartigan.datasets.load_iris()
    >>> r = smartigan.cluster(X, 3, seed=0)
    >>> ax = plot_clustering(X, r.labels, r.centroids, ax=Figure().subplots())
    >>> len(ax.collections)  # one scatter per cluster, plus the centroids
    4
    """
    data = as_data(X)
    lab = np.asarray(labels)
    if lab.shape != (data.shape[0],):
        raise ValueError(f"labels must have shape ({data.shape[0]},) to match X, got {lab.shape}")
    proj = projection if projection is not None else Projection.fit(data)
    ax = _new_axes(ax)
    k = int(lab.max()) + 1 if lab.size else 0
    if centroids is not None:
        k = max(k, np.asarray(centroids).shape[0])
    colors = _colors(max(k, 1))
    idx = np.arange(data.shape[0])
    if data.shape[0] > max_points:
        idx = np.sort(np.random.default_rng(0).choice(data.shape[0], max_points, replace=False))
    xy = proj(data[idx])
    sub = lab[idx]
    size = float(np.clip(3000.0 / max(len(idx), 1) ** 0.75, 1.0, 30.0))
    for j in range(k):
        mask = sub == j
        ax.scatter(xy[mask, 0], xy[mask, 1], s=size, color=colors[j], alpha=0.75, linewidths=0,
                   label=f"{j} ({int(np.count_nonzero(lab == j))})")
    if centroids is not None:
        c = proj(centroids)
        ax.scatter(c[:, 0], c[:, 1], s=140, marker="X", c=colors[: c.shape[0]], edgecolors="black",
                   linewidths=1.2, zorder=3)
    xlabel, ylabel = proj.axis_labels(feature_names)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if data.shape[1] == 1:
        ax.set_yticks([])
    if title is not None:
        ax.set_title(title if len(idx) == data.shape[0] else f"{title}\n({len(idx)} of {data.shape[0]} points drawn)")
    return ax


def _match_colors(reference: npt.NDArray[Any], centroids: npt.NDArray[Any]) -> npt.NDArray[np.int64]:
    """A permutation ``perm`` (cluster ``i`` gets colour ``perm[i]``) pairing
    ``centroids`` with the nearest ``reference`` centroids (same number of
    rows), greedily by distance, so that panels of the same data show
    matching clusters in matching colours."""
    k = centroids.shape[0]
    ref = np.asarray(reference, dtype=np.float64)
    cur = np.asarray(centroids, dtype=np.float64)
    d2 = ((cur[:, None, :] - ref[None, :, :]) ** 2).sum(axis=2)
    perm = np.full(k, -1, dtype=np.int64)
    taken = np.zeros(ref.shape[0], dtype=bool)
    for flat in np.argsort(d2, axis=None, kind="stable"):
        i, j = divmod(int(flat), ref.shape[0])
        if perm[i] < 0 and not taken[j]:
            perm[i], taken[j] = j, True
    return perm


#: The objective axis' label, per metric: what the objective sums.
_OBJECTIVE_LABELS = {"euclidean": "k-means objective", "cosine": "spherical objective (sum of 1 - cos)"}


def _objective_label(metrics: Sequence[str]) -> str:
    """The label of an objective axis for results of ``metrics``: the cosine
    loss's where every result minimised it, else the k-means objective."""
    return _OBJECTIVE_LABELS["cosine" if metrics and all(m == "cosine" for m in metrics) else "euclidean"]


def _history(result: Any) -> npt.NDArray[np.float64]:
    if isinstance(result, ClusterResult):
        return np.concatenate([[result.initial_objective], result.history])
    return np.asarray(result, dtype=np.float64)


def plot_history(
    results: Union[Results, Mapping[str, npt.ArrayLike]],
    *,
    ax: Optional["Axes"] = None,
    title: Optional[str] = "Objective per sweep",
    log: Optional[bool] = None,
) -> "Axes":
    """Draw the objective after each sweep, one line per method.

    Parameters
    ----------
    results : ClusterResult, or mapping from a name to a ClusterResult or to an array of objectives
        For a :class:`~smartigan.ClusterResult` the line starts at sweep 0
        with ``initial_objective`` and follows ``history`` (the best
        restart's objective after each sweep). The axis says "sum of 1 -
        cos" where every result is one of ``metric="cosine"``.
    ax : matplotlib Axes, optional
        Where to draw (default: a new pyplot figure).
    title : str or None
        Axes title.
    log : bool or None
        Logarithmic objective axis. ``None`` (default) chooses it when the
        objectives span more than a factor of 5 (a random start is often far
        above the final objective, which would flatten the interesting part).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from matplotlib.figure import Figure
    >>> import smartigan
    >>> from smartigan.plot import plot_history
    >>> X, _ = smartigan.datasets.load_iris()
    >>> runs = {m: smartigan.cluster(X, 5, m, seed=0) for m in ("lloyd", "hartigan")}
    >>> ax = plot_history(runs, ax=Figure().subplots())
    >>> [line.get_label() for line in ax.get_lines()]
    ['lloyd', 'hartigan']
    """
    if isinstance(results, ClusterResult):
        results = {"objective": results}
    ax = _new_axes(ax)
    lo, hi = np.inf, 0.0
    for name, res in results.items():
        h = _history(res)
        if h.size:
            lo, hi = min(lo, float(h.min())), max(hi, float(h.max()))
        ax.plot(np.arange(h.shape[0]), h, marker="o", markersize=3, linewidth=1.5, label=name)
    ax.set_xlabel("sweep (0 = start)")
    ax.set_ylabel(_objective_label([r.metric if isinstance(r, ClusterResult) else "euclidean"
                                    for r in results.values()]))
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if log is None:
        log = bool(lo > 0 and hi > 5 * lo)
    if log:
        from matplotlib.ticker import FuncFormatter

        ax.set_yscale("log")
        plain = FuncFormatter(lambda v, _: f"{v:g}")
        ax.yaxis.set_major_formatter(plain)
        ax.yaxis.set_minor_formatter(plain)
    ax.grid(True, alpha=0.3)
    ax.legend()
    if title is not None:
        ax.set_title(title)
    return ax


def comparison_figure(
    X: npt.ArrayLike,
    results: Results,
    *,
    title: Optional[str] = None,
    feature_names: Optional[Sequence[str]] = None,
) -> "Figure":
    """One clustering panel per result and a panel of objective per sweep.

    Where every result is one of ``metric="cosine"``, the panels draw the
    rows scaled to unit length (their directions, which is what was
    clustered, and where the centroids lie). Built on :class:`matplotlib.figure.Figure` directly (no pyplot, no global
    state), so it is safe in scripts, servers and threads.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The data that was clustered.
    results : ClusterResult or mapping from a method name to a ClusterResult
        The clusterings, drawn in the same projection.
    title : str, optional
        Figure title.
    feature_names : sequence of str, optional
        Axis titles for 1-d and 2-d data.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import smartigan
    >>> from smartigan.plot import comparison_figure
    >>> X, _ = smartigan.datasets.load_iris()
    >>> runs = {m: smartigan.cluster(X, 3, m, seed=0) for m in ("lloyd", "smartigan")}
    >>> fig = comparison_figure(X, runs, title="Iris, k=3")
    >>> len(fig.axes)
    3
    """
    _require_matplotlib()
    from matplotlib.figure import Figure

    if isinstance(results, ClusterResult):
        results = {"clustering": results}
    data = as_data(X)
    if all(getattr(res, "metric", "euclidean") == "cosine" for res in results.values()):
        # A row of length zero cannot be in a cosine result: its fit refused it.
        data = data / np.linalg.norm(np.asarray(data, dtype=np.float64), axis=1, keepdims=True)
    proj = Projection.fit(data)
    n = len(results)
    fig = Figure(figsize=(5.0 * (n + 1), 4.6), layout="constrained")
    axes = fig.subplots(1, n + 1, squeeze=False)[0]
    reference = None
    for ax, (name, res) in zip(axes, results.items()):
        labels, centroids = res.labels, res.centroids
        if reference is None:
            reference = centroids
        elif centroids.shape == reference.shape:  # same colour for matching clusters across panels
            perm = _match_colors(reference, centroids)
            labels = perm[labels]
            centroids = centroids[np.argsort(perm)]
        plot_clustering(data, labels, centroids, ax=ax, projection=proj, feature_names=feature_names,
                        title=f"{name}: objective {res.objective:.6g}")
    plot_history(results, ax=axes[-1])
    if title is not None:
        fig.suptitle(title)
    return fig


def save(
    X: npt.ArrayLike,
    results: Results,
    path: Union[str, Path],
    *,
    title: Optional[str] = None,
    feature_names: Optional[Sequence[str]] = None,
    dpi: int = 110,
) -> Path:
    """Write :func:`comparison_figure` to ``path`` (format from the suffix, e.g. ``.png``).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The data that was clustered.
    results : ClusterResult or mapping from a method name to a ClusterResult
        The clusterings.
    path : str or Path
        Output file; ``.png``, ``.svg`` and ``.pdf`` work out of the box.
    title : str, optional
        Figure title.
    feature_names : sequence of str, optional
        Axis titles for 1-d and 2-d data.
    dpi : int
        Resolution for raster formats.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    ImportError
        If matplotlib is not installed.
    ValueError
        If matplotlib does not know the file format.

    Examples
    --------
    >>> import os, tempfile, smartigan
    >>> from smartigan.plot import save
    >>> X, _ = smartigan.datasets.load_iris()
    >>> path = os.path.join(tempfile.mkdtemp(), "iris.png")
    >>> save(X, smartigan.cluster(X, 3, seed=0), path).read_bytes()[:4]
    b'\\x89PNG'
    """
    fig = comparison_figure(X, results, title=title, feature_names=feature_names)
    out = Path(path)
    fig.savefig(out, dpi=dpi)
    return out


# How each criterion is read and titled in path_figure.
_CRITERION_TITLES = {
    "elbow": "elbow: log W below its chord (largest)",
    "calinski_harabasz": "Calinski-Harabasz (largest)",
    "davies_bouldin": "Davies-Bouldin (smallest)",
    "silhouette": "silhouette (largest)",
    "gap": "gap statistic, +- s (1-SE rule)",
}


def path_figure(path: PathResult, *, title: Optional[str] = None) -> "Figure":
    """The objective and every criterion of a path against k, with the suggestions marked.

    The first panel is the objective ``W(k)`` on a logarithmic axis (the
    curve the elbow is read on), with a dashed vertical line at each
    criterion's suggested k, coloured and labelled by criterion. Each
    criterion computed then gets a panel of its values, its suggested k
    circled (the gap statistic with error bars ``Gap(k) +- s(k)``).
    Built on :class:`matplotlib.figure.Figure` directly, as
    :func:`comparison_figure` is.

    Parameters
    ----------
    path : PathResult
        From :func:`smartigan.cluster_path`.
    title : str, optional
        Figure title.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import smartigan
    >>> from smartigan.plot import path_figure
    >>> X, _ = smartigan.datasets.load_iris()
    >>> path = smartigan.cluster_path(X, range(1, 9), seed=0, criteria=("elbow", "calinski_harabasz"))
    >>> fig = path_figure(path, title="Iris")
    >>> [ax.get_title() for ax in fig.axes][1:]
    ['elbow: log W below its chord (largest)', 'Calinski-Harabasz (largest)']
    """
    if not isinstance(path, PathResult):
        raise TypeError(f"path must be a PathResult (from smartigan.cluster_path), got {type(path).__name__}")
    _require_matplotlib()
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    names = list(path.criteria)
    n_panels = 1 + len(names)
    n_cols = min(n_panels, 3)
    n_rows = -(-n_panels // n_cols)
    fig = Figure(figsize=(4.6 * n_cols, 3.6 * n_rows), layout="constrained")
    axes = fig.subplots(n_rows, n_cols, squeeze=False).ravel()
    ks = path.ks
    colors = dict(zip(names, _colors(max(len(names), 1))))

    ax = axes[0]
    ax.plot(ks, path.objectives, marker="o", markersize=3, color="black", linewidth=1.5)
    if np.all(path.objectives > 0):
        ax.set_yscale("log")
        plain = FuncFormatter(lambda v, _: f"{v:g}")
        ax.yaxis.set_major_formatter(plain)
        ax.yaxis.set_minor_formatter(plain)
    for name, k in path.suggested.items():
        if k is not None:
            ax.axvline(k, color=colors[name], linestyle="--", linewidth=1.2, label=f"{name}: k={k}")
    ax.set_title("objective W(k)")
    ax.set_ylabel(_objective_label([path.metric]))
    if any(k is not None for k in path.suggested.values()):
        ax.legend(fontsize="small")

    for ax, name in zip(axes[1:], names):
        values = path.criteria[name]
        if name == "gap" and path.gap_standard_errors is not None:
            ax.errorbar(ks, values, yerr=path.gap_standard_errors, marker="o", markersize=3, capsize=2,
                        color=colors[name], linewidth=1.2)
        else:
            ax.plot(ks, values, marker="o", markersize=3, color=colors[name], linewidth=1.2)
        k = path.suggested.get(name)
        if k is not None:
            at = int(np.searchsorted(ks, k))  # ks may skip k (a grid)
            ax.plot([k], [values[at]], marker="o", markersize=11, markerfacecolor="none",
                    markeredgecolor="black", markeredgewidth=1.5, linestyle="none", label=f"suggested k={k}")
            ax.legend(fontsize="small")
        ax.set_title(_CRITERION_TITLES[name])
    for ax in axes[:n_panels]:
        ax.set_xlabel("k")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(True, alpha=0.3)
    for ax in axes[n_panels:]:
        ax.set_visible(False)
    if title is not None:
        fig.suptitle(title)
    return fig


def save_path(path: PathResult, file: Union[str, Path], *, title: Optional[str] = None, dpi: int = 110) -> Path:
    """Write :func:`path_figure` to ``file`` (format from the suffix, e.g. ``.png``).

    Returns ``file`` as a :class:`~pathlib.Path`; raises ``ImportError``
    without matplotlib and ``ValueError`` for a format it does not know.

    Examples
    --------
    >>> import os, tempfile, smartigan
    >>> from smartigan.plot import save_path
    >>> X, _ = smartigan.datasets.load_iris()
    >>> path = smartigan.cluster_path(X, range(2, 6), seed=0, criteria=("elbow",))
    >>> save_path(path, os.path.join(tempfile.mkdtemp(), "k.png")).read_bytes()[:4]
    b'\\x89PNG'
    """
    fig = path_figure(path, title=title)
    out = Path(file)
    fig.savefig(out, dpi=dpi)
    return out
