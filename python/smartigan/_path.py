"""Choosing k: a path of solutions over a range of k in one call, and the
criteria users read from it (see docs/choosing-k.md).

The path itself is computed by the Rust core (``_core.fit_path``): the usual
fit at ``k_min``, then each next k by splitting the cluster whose 2-means
split lowers the objective most and re-converging with Hartigan sweeps,
refined by merges from the k above, so the objective never rises with k.

The criteria are computed here with NumPy, from the path's labels,
centroids and objectives: the elbow, Calinski-Harabasz and Davies-Bouldin
cost O(n·d) per k; the silhouette O(m·n·(d + k)) per k on a sample of m
points, done as matrix products; the gap statistic's cost is that of its B
reference paths, which the core computes. Keeping them in Python keeps the
core about minimising the objective, lets them be checked line by line
against their published definitions (and scikit-learn's implementations),
and costs little next to the paths, whose work is all in Rust.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterable, Literal, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

from . import _core
from ._api import ClusterResult, fields_equal
from ._arrays import as_csr, as_data, as_weights, is_sparse
from ._params import (
    DEFAULT_INIT,
    DEFAULT_METHOD,
    DEFAULT_N_INIT,
    DEFAULT_POLISH,
    DEFAULT_REFINE,
    DEFAULT_SCHEDULE,
    DEFAULT_TOL,
    InitArg,
    Method,
    NInit,
    Tol,
    core_params,
    integer,
)

__all__ = ["PathResult", "cluster_path", "CRITERIA", "SILHOUETTE_SAMPLE", "GAP_REFERENCES", "GAP_REFERENCE_KINDS",
           "Progress"]

#: Every criterion :func:`cluster_path` computes, in the order reported.
CRITERIA: Tuple[str, ...] = ("elbow", "calinski_harabasz", "davies_bouldin", "silhouette", "gap")
#: Up to this many points the silhouette is exact (every point's silhouette
#: against every point); above it, the mean over a seeded uniform sample of
#: this many points, each point's silhouette still computed exactly against
#: all points.
SILHOUETTE_SAMPLE = 2000
#: Reference data sets of the gap statistic (Tibshirani et al. used 10-20).
GAP_REFERENCES = 10
#: Where the gap statistic's reference points come from: uniform in the box
#: of the principal components (the default for dense data), uniform in the
#: bounding box, or the data with each column permuted across the rows (the
#: default for sparse data, whose references stay sparse).
GAP_REFERENCE_KINDS: Tuple[str, ...] = ("pca", "box", "permute")

#: ``progress(done, total)``: how far :func:`cluster_path` has got, in units
#: of work (a k of one pass of a path; with the gap statistic, of every
#: reference path too).
Progress = Callable[[int, int], Any]

_NEED_LABELS = ("davies_bouldin", "silhouette")
# Entries of distance blocks held at once by the silhouette (float64: 80 MB).
_BLOCK = 10_000_000
# Stream names mixed into the path seed for the criteria's own draws.
_SILHOUETTE_STREAM = 1
_GAP_STREAM = 2


@dataclass(frozen=True, eq=False)
class PathResult:
    """The outcome of :func:`cluster_path`: a solution for every k of a range.

    Attributes
    ----------
    ks : ndarray of int64
        The numbers of clusters, consecutive and increasing.
    objectives : ndarray of float64
        The objective at every k (never rises with k; see
        docs/choosing-k.md).
    criteria : dict of str to ndarray of float64
        Each criterion computed, one value per k (NaN where it is not
        defined, e.g. silhouette at k = 1): ``"elbow"`` (the normalised
        curve's distance below its chord), ``"calinski_harabasz"``,
        ``"davies_bouldin"``, ``"silhouette"`` and ``"gap"``.
    suggested : dict of str to int or None
        The k each criterion suggests: the elbow's largest distance to the
        chord, the largest Calinski-Harabasz, the smallest Davies-Bouldin,
        the largest silhouette, and for the gap statistic the smallest k with
        ``Gap(k) >= Gap(k+1) - s(k+1)``. None where the criterion suggests
        no k of the range (no elbow: the curve is nowhere below its chord;
        gap: the rule holds for no k below ``ks[-1]``).
    seed : int
        The seed of the path (and of the criteria's samples and references).
    gap_standard_errors : ndarray of float64 or None
        ``s(k) = sd(k) * sqrt(1 + 1/B)`` of the gap statistic, with ``sd``
        the standard deviation (divisor B) of the references' log objectives.
    reference_log_objectives : ndarray of float64 of shape (B, len(ks)) or None
        ``log W*(k)`` of each reference data set.
    origins : tuple of str
        How each k's solution was reached: ``"fit"`` (the usual
        multi-start fit at that k: the first k, and with ``refine`` any k
        that gets a fit, where it ended lower: every k of a small problem or
        with ``n_init`` given, the smallest k of a larger one), ``"split"``
        (a cluster of the ``k - 1`` solution split in two, then
        Hartigan sweeps), ``"merge"`` (``refine``: two clusters of the
        ``k + 1`` solution merged, then Hartigan sweeps, because that ended
        lower) or ``"filled"`` (no cluster could be split: the new cluster
        took one point).
    splits : ndarray of int64
        For ``"split"``, the cluster of the ``k - 1`` solution that was
        split; -1 otherwise.
    n_sweeps : ndarray of int64
        Sweeps of the descent that reached each k (at ``ks[0]``: of the fit).
    converged : ndarray of bool
        Whether each k's descent ended with no single-point move left.

    Paths compare equal when every field is equal, the solutions at every k
    included, arrays by value (NaN equal to NaN); they have no hash.
    """

    ks: npt.NDArray[np.int64]
    objectives: npt.NDArray[np.float64]
    criteria: Dict[str, npt.NDArray[np.float64]]
    suggested: Dict[str, Optional[int]]
    seed: int
    gap_standard_errors: Optional[npt.NDArray[np.float64]]
    reference_log_objectives: Optional[npt.NDArray[np.float64]]
    origins: Tuple[str, ...]
    splits: npt.NDArray[np.int64]
    n_sweeps: npt.NDArray[np.int64]
    converged: npt.NDArray[np.bool_]
    _results: Tuple[Optional[ClusterResult], ...] = field(repr=False)

    def __eq__(self, other: object) -> bool:
        """Field by field, the solutions at every k included, arrays by value
        (NaN equal to NaN). Paths have no hash (they hold arrays)."""
        if other.__class__ is not self.__class__:
            return NotImplemented
        return fields_equal(self, other)

    __hash__ = None  # type: ignore[assignment]

    def result(self, k: int) -> ClusterResult:
        """The solution at ``k`` as a :class:`ClusterResult` (labels, centroids, ...).

        Raises ``ValueError`` for a k outside ``ks``, or when the path was
        computed with ``keep="summaries"``.
        """
        k = integer("k", k)
        first, last = int(self.ks[0]), int(self.ks[-1])
        if not first <= k <= last:
            raise ValueError(f"invalid k: {k} (the path covers k = {first}..{last})")
        stored = self._results[k - first]
        if stored is None:
            raise ValueError("this path kept summaries only (keep='summaries'); run cluster_path with keep='all'")
        return stored

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={k}" for name, k in self.suggested.items())
        return (
            f"PathResult(ks={int(self.ks[0])}..{int(self.ks[-1])}, "
            f"objective {self.objectives[0]:.6g} -> {self.objectives[-1]:.6g}, "
            f"suggested: {shown or 'nothing computed'}, seed={self.seed})"
        )


def _k_range(ks: Any) -> Tuple[int, int]:
    """``ks`` as ``(k_min, k_max)``: a range of step 1 or consecutive increasing integers."""
    if isinstance(ks, range):
        if ks.step != 1 or len(ks) == 0:
            raise ValueError(f"invalid ks: {ks!r} (must be a non-empty range of consecutive k, step 1)")
        return ks.start, ks.stop - 1
    if isinstance(ks, (str, bytes)) or not isinstance(ks, Iterable):
        raise TypeError(f"ks must be a range or a sequence of consecutive integers, got {ks!r}")
    values = list(ks)
    for v in values:
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Integral):
            raise TypeError(f"ks must hold integers, got {v!r} ({type(v).__name__})")
    if not values or any(int(b) != int(a) + 1 for a, b in zip(values, values[1:])):
        raise ValueError(f"invalid ks: {values!r} (must be consecutive increasing integers, e.g. range(2, 31))")
    return int(values[0]), int(values[-1])


def _criteria_names(criteria: Any, keep: str) -> Tuple[str, ...]:
    if criteria is None:
        return ()
    if isinstance(criteria, str):
        criteria = (criteria,)
    try:
        names = tuple(criteria)
    except TypeError:
        raise TypeError(f"criteria must be a sequence of names from {CRITERIA}, got {criteria!r}") from None
    for name in names:
        if name not in CRITERIA:
            raise ValueError(f"invalid criteria: {name!r} (allowed: {', '.join(map(repr, CRITERIA))})")
        if keep == "summaries" and name in _NEED_LABELS:
            raise ValueError(f"criterion {name!r} needs every k's labels: use keep='all' (got keep='summaries')")
    return tuple(n for n in CRITERIA if n in names)


def _positive_int(name: str, value: Any, least: int) -> int:
    v = integer(name, value)
    if v < least:
        raise ValueError(f"invalid {name}: {v} (must be at least {least})")
    return v


class _Data:
    """``X`` coerced once, dense or CSR, with what the criteria read of it."""

    def __init__(self, X: Any, weights: Optional[npt.NDArray[np.float64]]) -> None:
        self.sparse = is_sparse(X)
        if self.sparse:
            # as_csr checks the index arrays before SciPy reads them.
            self.points: Any = as_csr(X)
            csr = X.tocsr()
            if not csr.has_canonical_format:
                csr = csr.copy()
                csr.sum_duplicates()
            self.x: Any = csr.astype(np.float64)
        else:
            self.points = self.dense = self.x = as_data(X)
        self.n, self.d = (int(v) for v in self.x.shape)
        self.raw_weights = weights
        self.w = np.ones(self.n) if weights is None else weights

    def centered(self) -> npt.NDArray[np.float64]:
        """Dense rows in float64 about their weighted mean (distances lose less there)."""
        x = np.asarray(self.dense, dtype=np.float64)
        return x - np.average(x, axis=0, weights=self.w)

    def sq_norms(self) -> npt.NDArray[np.float64]:
        return np.asarray(self.x.multiply(self.x).sum(axis=1)).ravel().astype(np.float64)

    def total_sum_of_squares(self) -> float:
        """``sum_i w_i ||x_i - mean||^2``, the objective at k = 1."""
        if not self.sparse:
            c = self.centered()
            return float(self.w @ np.einsum("ij,ij->i", c, c))
        mean = np.asarray(self.x.T @ self.w).ravel() / self.w.sum()
        return float(self.w @ self.sq_norms() - self.w.sum() * mean @ mean)

    def distances_to_centroids(self, labels: npt.NDArray[np.int64], centroids: npt.NDArray[Any]) -> npt.NDArray[np.float64]:
        """Euclidean distance of every point to its own centroid."""
        c = np.asarray(centroids, dtype=np.float64)
        if not self.sparse:
            diff = np.asarray(self.dense, dtype=np.float64) - c[labels]
            return np.asarray(np.sqrt(np.einsum("ij,ij->i", diff, diff)), dtype=np.float64)
        dots = np.asarray(self.x @ c.T)[np.arange(self.n), labels]
        sq = self.sq_norms() - 2.0 * dots + np.einsum("ij,ij->i", c, c)[labels]
        return np.asarray(np.sqrt(np.maximum(sq, 0.0)), dtype=np.float64)


def effective_count(w: npt.NDArray[np.float64]) -> float:
    """Kish's effective number of points, ``(sum w)^2 / sum w^2``.

    ``n`` for equal weights of any size, fewer the more unequal they are;
    unchanged when every weight is multiplied by the same constant (the
    weights are scaled by a power of two first, which changes no bit of the
    ratio, so that neither sum overflows or underflows).

    >>> effective_count(np.full(4, 1e-300)), effective_count(np.array([1.0, 1.0, 2.0]))
    (4.0, 2.6666666666666665)
    """
    top = float(np.max(w))
    if top <= 0:
        return 0.0
    scaled = w * 2.0 ** -np.frexp(top)[1]
    return float(scaled.sum() ** 2 / (scaled @ scaled))


def calinski_harabasz(objectives: npt.NDArray[np.float64], ks: npt.NDArray[np.int64], total: float,
                      n_points: float) -> npt.NDArray[np.float64]:
    """``(B_k / (k - 1)) / (W_k / (N - k))`` with ``B_k = T - W_k`` (Huygens) and
    ``N = n_points`` (:func:`cluster_path` passes :func:`effective_count`).

    NaN at k = 1 and where ``N <= k``; infinite where ``W_k = 0 < B_k``. Only
    the ratio ``B_k / W_k`` depends on the weights' values, so the criterion
    does not change when every weight is multiplied by the same constant.
    """
    between = total - objectives
    with np.errstate(divide="ignore", invalid="ignore"):
        ch = (between / (ks - 1.0)) / (objectives / (n_points - ks))
    ch[(ks < 2) | (n_points <= ks)] = np.nan
    return np.asarray(ch, dtype=np.float64)


def davies_bouldin(data: _Data, labels: npt.NDArray[np.int64], centroids: npt.NDArray[Any]) -> float:
    """``mean_j max_{l != j} (s_j + s_l) / ||mu_j - mu_l||``, ``s_j`` the (weighted) mean distance to centroid ``j``.

    Pairs of coincident centroids are left out (their ratio counts as 0),
    and 0 is returned when every ``s_j`` or every centroid distance is 0,
    as scikit-learn does. NaN for one cluster.
    """
    k = centroids.shape[0]
    if k < 2:
        return float("nan")
    dist = data.distances_to_centroids(labels, centroids)
    weight = np.bincount(labels, weights=data.w, minlength=k)
    # A cluster of points that all weigh 0 has no spread to speak of: 0.
    scatter = np.bincount(labels, weights=data.w * dist, minlength=k) / np.where(weight > 0, weight, 1.0)
    c = np.asarray(centroids, dtype=np.float64)
    between = np.sqrt(np.maximum(((c[:, None, :] - c[None, :, :]) ** 2).sum(axis=2), 0.0))
    if np.allclose(scatter, 0) or np.allclose(between, 0):
        return 0.0
    between[between == 0] = np.inf
    return float(np.mean(np.max((scatter[:, None] + scatter[None, :]) / between, axis=1)))


def _silhouette_rows(data: _Data, sample_size: int, seed: int) -> npt.NDArray[np.int64]:
    """The points whose silhouettes are averaged: all of them up to ``sample_size``, else a seeded sample."""
    if data.n <= sample_size:
        return np.arange(data.n)
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, _SILHOUETTE_STREAM])))
    return np.sort(rng.choice(data.n, size=sample_size, replace=False))


def silhouettes(data: _Data, labelings: Sequence[npt.NDArray[np.int64]], rows: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
    """The mean silhouette of ``rows`` under every labelling: one value per labelling.

    For point ``i`` of cluster ``C``: ``a(i)`` the (weighted) mean distance
    to the other points of ``C``, ``b(i)`` the smallest mean distance to
    another cluster, ``s(i) = (b - a) / max(a, b)``, and 0 when ``i`` is
    alone in ``C`` (or the others weigh nothing). The mean is weighted by
    the points' weights. NaN for one cluster, or as many clusters as points.
    """
    ks = [int(lab.max()) + 1 for lab in labelings]
    sums = [np.zeros((rows.size, k)) for k in ks]
    block = max(1, _BLOCK // max(rows.size, 1))
    if data.sparse:
        sample = data.x[rows]
        sample_sq = np.asarray(sample.multiply(sample).sum(axis=1)).ravel()
        all_sq = data.sq_norms()
    else:
        centered = data.centered()
        sample = centered[rows]
        sample_sq = np.einsum("ij,ij->i", sample, sample)
        all_sq = np.einsum("ij,ij->i", centered, centered)
    for start in range(0, data.n, block):
        stop = min(start + block, data.n)
        if data.sparse:
            dots = np.asarray((sample @ data.x[start:stop].T).toarray())
        else:
            dots = sample @ centered[start:stop].T
        dist = np.sqrt(np.maximum(sample_sq[:, None] + all_sq[None, start:stop] - 2.0 * dots, 0.0))
        # A point's distance to itself is 0, not the rounding of the formula.
        own = (rows >= start) & (rows < stop)
        dist[np.nonzero(own)[0], rows[own] - start] = 0.0
        w = data.w[start:stop]
        for s, lab, k in zip(sums, labelings, ks):
            hot = np.zeros((stop - start, k))
            hot[np.arange(stop - start), lab[start:stop]] = w
            s += dist @ hot
    out = np.full(len(labelings), np.nan)
    w_rows = data.w[rows]
    for j, (s, lab, k) in enumerate(zip(sums, labelings, ks)):
        if not 2 <= k < data.n:
            continue
        weight = np.bincount(lab, weights=data.w, minlength=k)
        own_label = lab[rows]
        own_sum = s[np.arange(rows.size), own_label]
        others_weight = weight[own_label] - w_rows
        with np.errstate(divide="ignore", invalid="ignore"):
            a = own_sum / others_weight
            means = s / weight[None, :]
        means[np.arange(rows.size), own_label] = np.inf
        b = means.min(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            sil = (b - a) / np.maximum(a, b)
        sil[(others_weight <= 0) | ~np.isfinite(sil)] = 0.0
        out[j] = float(np.average(sil, weights=w_rows)) if w_rows.sum() > 0 else float(np.mean(sil))
    return out


def elbow(ks: npt.NDArray[np.int64], curve: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """How far a falling curve, normalised, lies below its chord, per k.

    k is mapped to ``x = (k - k_min) / (k_max - k_min)`` and the curve to
    ``y = (c - c(k_max)) / (c(k_min) - c(k_max))``; the chord then joins
    (0, 1) to (1, 0) and the value is ``1 - x - y`` (the distance below the
    chord times sqrt 2, Kneedle's difference curve). The knee is where it is
    largest. NaN for fewer than three k or a flat curve. :func:`cluster_path`
    applies it to ``log W(k)`` (see :func:`log_objectives`).
    """
    out = np.full(ks.size, np.nan)
    if ks.size < 3 or not np.isfinite(curve[[0, -1]]).all():  # all objectives 0: a flat curve
        return out
    span = curve[0] - curve[-1]
    if not span > 0:
        return out
    x = (ks - ks[0]) / float(ks[-1] - ks[0])
    y = (curve - curve[-1]) / span
    return np.asarray(1.0 - x - y, dtype=np.float64)


def log_objectives(objectives: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """``log W(k)``, the curve the elbow is read on.

    W falls by orders of magnitude over a range of k, and on a linear scale
    the first splits dominate the curve so much that its knee lands at the
    coarsest level of any hierarchy (two groups of groups: k = 2). On a log
    scale equal ratios look equal, so the knee is where the relative
    decrease changes from that of structure to that of noise. A zero
    objective (as many distinct points as clusters) is floored at 1e-12 of
    the first one.
    """
    floor = 1e-12 * float(objectives[0]) if objectives.size else 0.0
    with np.errstate(divide="ignore"):
        return np.asarray(np.log(np.maximum(objectives, floor)), dtype=np.float64)


def gap_statistic(log_w: npt.NDArray[np.float64], reference_log_w: npt.NDArray[np.float64]
                  ) -> Tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """``Gap(k) = mean_b log W*_b(k) - log W(k)`` and ``s(k) = sd(k) * sqrt(1 + 1/B)``.

    ``sd`` is the standard deviation over the B references with divisor B,
    as in Tibshirani, Walther & Hastie (2001). Where a solution fits its
    points exactly (``W = 0``, log W = -inf) the gap is +inf if its
    references' ``W*`` are positive and NaN (undefined) if they are 0 too;
    ``s(k)`` is NaN where any reference's ``W*`` is 0.
    """
    b = reference_log_w.shape[0]
    with np.errstate(invalid="ignore"):  # -inf - (-inf): undefined, NaN
        gap = reference_log_w.mean(axis=0) - log_w
        se = reference_log_w.std(axis=0) * np.sqrt(1.0 + 1.0 / b)
    return gap, se


def gap_choice(ks: npt.NDArray[np.int64], gap: npt.NDArray[np.float64], se: npt.NDArray[np.float64]) -> Optional[int]:
    """The smallest k with ``Gap(k) >= Gap(k+1) - s(k+1)``, or None if no k below the last has it."""
    for i in range(ks.size - 1):
        if gap[i] >= gap[i + 1] - se[i + 1]:
            return int(ks[i])
    return None


def _reference(data: _Data, kind: str, rng: np.random.Generator) -> Any:
    """One reference data set of the data's ``n`` points (see :data:`GAP_REFERENCE_KINDS`):
    uniform in the box of the principal components (``"pca"``, rotated
    back), in the bounding box (``"box"``), or each column's values permuted
    across the rows (``"permute"``; sparse data stay sparse, as CSR)."""
    if kind == "permute":
        return _permuted_columns(data, rng)
    x = np.asarray(data.dense, dtype=np.float64)
    if kind == "box":
        return np.ascontiguousarray(rng.uniform(x.min(axis=0), x.max(axis=0), size=(data.n, data.d)))
    mean = np.average(x, axis=0, weights=data.w)
    centered = x - mean
    # Principal axes of the weighted covariance; the box spans the data's
    # extent along each axis.
    _, axes = np.linalg.eigh((centered * data.w[:, None]).T @ centered)
    scores = centered @ axes
    z = rng.uniform(scores.min(axis=0), scores.max(axis=0), size=(data.n, data.d))
    return np.ascontiguousarray(z @ axes.T + mean)


def _permuted_columns(data: _Data, rng: np.random.Generator) -> Any:
    """The data with every column's values (zeros included) permuted across the
    rows, each column independently: every feature keeps its values, the
    features lose their dependence, which is what clusters are made of.

    Sparse data stay sparse: a column's ``m`` stored values go to ``m``
    distinct rows drawn uniformly (what a uniform permutation of the whole
    column does to them), so the reference holds exactly ``nnz`` values and
    costs O(nnz) memory and time.
    """
    if not data.sparse:
        return np.ascontiguousarray(rng.permuted(np.asarray(data.dense, dtype=np.float64), axis=0))
    csc = data.x.tocsc()
    rows = np.empty(csc.nnz, dtype=csc.indices.dtype)
    starts = csc.indptr
    for j in np.flatnonzero(np.diff(starts)):
        rows[starts[j]:starts[j + 1]] = rng.choice(data.n, size=int(starts[j + 1] - starts[j]), replace=False)
    return type(csc)((csc.data.copy(), rows, starts.copy()), shape=csc.shape).tocsr()


def _argbest(values: npt.NDArray[np.float64], ks: npt.NDArray[np.int64], largest: bool) -> Optional[int]:
    """The k of the largest (or smallest) value, NaN left out; None if all are NaN."""
    if np.isnan(values).all():
        return None
    masked = np.where(np.isnan(values), -np.inf if largest else np.inf, values)
    return int(ks[int(np.argmax(masked) if largest else np.argmin(masked))])


class _Report:
    """The user's ``progress`` callback over several paths of equal work:
    path ``i`` reports ``done`` of its ``total`` as ``i * total + done`` of
    ``n_paths * total``."""

    def __init__(self, progress: Optional[Progress], n_paths: int) -> None:
        self.progress, self.n_paths = progress, n_paths

    def path(self, index: int) -> Optional[Progress]:
        progress = self.progress
        if progress is None:
            return None
        n_paths = self.n_paths

        def report(done: int, total: int) -> None:
            progress(index * total + done, n_paths * total)

        return report


def cluster_path(
    X: npt.ArrayLike,
    ks: Union[range, Sequence[int]] = range(2, 31),
    *,
    seed: Optional[int] = None,
    sample_weight: Optional[npt.ArrayLike] = None,
    n_threads: Optional[int] = None,
    criteria: Optional[Sequence[str]] = CRITERIA,
    gap_references: int = GAP_REFERENCES,
    gap_reference: Optional[Literal["pca", "box", "permute"]] = None,
    silhouette_sample: int = SILHOUETTE_SAMPLE,
    keep: Literal["all", "summaries"] = "all",
    progress: Optional[Progress] = None,
    method: Method = DEFAULT_METHOD,  # type: ignore[assignment]
    n_iter: Optional[int] = None,
    init: InitArg = DEFAULT_INIT,
    n_init: NInit = DEFAULT_N_INIT,
    schedule: Tuple[float, float] = DEFAULT_SCHEDULE,
    polish: bool = DEFAULT_POLISH,
    refine: bool = DEFAULT_REFINE,
    tol: Tol = DEFAULT_TOL,
) -> PathResult:
    """Cluster ``X`` for every k of ``ks`` in one call, and the criteria for choosing k.

    The first k is fitted as :func:`cluster` fits it (same parameters, same
    result, unless the refinement below finds a lower one); each next k
    starts from the one before by splitting the cluster whose 2-means split
    lowers the objective most, then Hartigan sweeps until no point moves.
    With ``refine`` (default) the path then refines itself: on small
    problems (``n_samples * n_features * k <= 2**20``), and at every k when
    ``n_init`` is given, the usual fit at each k replaces the grown solution
    where it ends lower; from five k past the
    last (searched, not returned) down, each k is also reached by merging
    two clusters of the ``k + 1`` solution; from the first k up, each k
    is grown again where the one below improved; and on larger problems the
    smallest k (while they sum to at most a sixteenth of the k searched) get
    one more draw, the usual fit, compared once both are finished, on the
    threads the path's one-at-a-time descents leave idle; whatever is
    lowest is kept.
    So the objective never rises with k, each k costs a few descents rather
    than a multi-start fit, and every k's solution is a Hartigan local
    optimum (the default ``tol="auto"`` searches with descents stopped early
    on large problems, then finishes every k by sweeps until no point
    moves).

    Parameters
    ----------
    X : array-like or SciPy sparse matrix of shape (n_samples, n_features)
        As for :func:`cluster`.
    ks : range or sequence of consecutive integers
        The numbers of clusters, e.g. ``range(2, 31)`` (default). Include 1
        to let the gap statistic answer "no clusters".
    seed : int or None
        Seed of the path, of the silhouette's sample and of the gap
        statistic's reference data; same seed, data and version give the
        same result for any ``n_threads``. ``None`` draws one (see
        ``result.seed``).
    sample_weight : array-like of shape (n_samples,) or None
        As for :func:`cluster`; at least ``max(ks)`` weights must be
        positive. The criteria weight every point by its weight (N in
        Calinski-Harabasz is the effective number of points,
        ``(sum w)**2 / sum w**2``), and multiplying every weight by the same
        constant changes no criterion.
    n_threads : int or None
        Threads for this call (default: all cores).
    criteria : sequence of str or None
        Which of ``"elbow"``, ``"calinski_harabasz"``, ``"davies_bouldin"``,
        ``"silhouette"``, ``"gap"`` to compute (default: all; None: none).
    gap_references : int
        B, the reference data sets of the gap statistic, each clustered by
        the same path (the gap statistic costs B more paths).
    gap_reference : {"pca", "box", "permute"} or None
        Where reference points come from: uniform in the box of the data's
        principal components (``"pca"``, rotated back; Tibshirani et al.'s
        choice (b), rotation-invariant as k-means is), uniform in the
        bounding box of the features (``"box"``), or the data with each
        column's values permuted across the rows (``"permute"``: the
        features keep their values, and lose the dependence clusters are
        made of). None: ``"pca"`` for dense ``X``, ``"permute"`` for sparse
        ``X``, whose references then stay sparse (as many stored values as
        ``X``); the two boxes would be dense, n_samples x n_features, and
        are refused for sparse ``X``.
    silhouette_sample : int
        Up to this many points the silhouette is exact; above it, the mean
        silhouette of a seeded uniform sample of this many points, each
        computed exactly against all points.
    keep : {"all", "summaries"}
        ``"all"`` keeps every k's labels and centroids (for
        :meth:`PathResult.result`, Davies-Bouldin and the silhouette);
        ``"summaries"`` keeps objectives only.
    progress : callable or None
        ``progress(done, total)``, called from the calling thread about
        every 50 ms while the work advances and once at the end of every
        path, with the units of work done (a k of one pass of a path; the
        gap statistic's reference paths included); the command line draws
        its progress bar from it. An exception it raises stops the call.
    method, n_iter, init, n_init, schedule, polish, refine, tol
        As for :func:`cluster`, for the fit at the first k (later k are
        reached by Hartigan sweeps whatever the method; ``refine`` also
        turns the path's own refinement on or off). An integer ``n_init``
        (with ``refine``) also fits every k with that many restarts, as a
        loop of :func:`cluster` calls would, and keeps the path's solution
        only where it is lower: on large data below the number of groups,
        where many optima lie within tenths of a per cent and a path is one
        draw among them, this buys quality at the cost of the loop.
        ``"auto"`` (default) fits every k only where the problem is small.
        A number ``tol`` applies
        to every descent. ``"auto"`` searches at 0 on small problems and at
        ``1e-4`` where ``n_samples·n_features·k > 2**20``, then continues
        every k's solution until no point moves, so every k ends a local
        optimum. On large, heavily overlapping data (embeddings) that last
        pass is most of the time; ``tol=2e-5``, where :func:`cluster` stops
        by default there, took about a quarter of the time at a few
        thousandths of a per cent higher (docs/choosing-k.md).

    Returns
    -------
    PathResult

    Examples
    --------
    >>> import numpy as np, smartigan
    >>> rng = np.random.default_rng(0)
    >>> centres = np.array([[0, 0], [10, 0], [0, 10], [10, 10]])
    >>> X = np.repeat(centres, 50, axis=0) + rng.normal(size=(200, 2))
    >>> path = smartigan.cluster_path(X, range(1, 9), seed=1, criteria=("elbow", "gap"))
    >>> bool(np.all(np.diff(path.objectives) <= 0))
    True
    >>> path.suggested
    {'elbow': 4, 'gap': 4}
    >>> path.result(4).centroids.shape
    (4, 2)
    """
    k_min, k_max = _k_range(ks)
    if keep not in ("all", "summaries"):
        raise ValueError(f"invalid keep: {keep!r} (allowed: 'all', 'summaries')")
    names = _criteria_names(criteria, keep)
    n_refs = _positive_int("gap_references", gap_references, 1)
    sample_size = _positive_int("silhouette_sample", silhouette_sample, 1)
    if gap_reference is not None and gap_reference not in GAP_REFERENCE_KINDS:
        raise ValueError(f"invalid gap_reference: {gap_reference!r} (allowed: 'pca', 'box', 'permute', None)")
    if gap_reference in ("pca", "box") and is_sparse(X) and "gap" in names:
        raise ValueError(f"gap_reference={gap_reference!r} needs dense X (its references would be dense, "
                         "n_samples x n_features); use 'permute', the default for sparse X")
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be a callable progress(done, total) or None, got {progress!r}")
    # Every parameter of cluster() but k and the data, as given; the core
    # fits the first k with them (its k is ks[0]: the placeholder below is
    # replaced, and a bad ks is reported by the core).
    fit_settings = dict(method=method, n_iter=n_iter, seed=seed, init=init, n_init=n_init, schedule=schedule,
                        polish=polish, refine=refine, n_threads=n_threads, tol=tol)
    params = core_params(k=max(k_min, 1), **fit_settings)
    data = _Data(X, as_weights(sample_weight))
    n_paths = 1 + (n_refs if "gap" in names else 0)
    report = _Report(progress, n_paths)
    out = _core.fit_path(data.points, k_min, k_max, params, keep == "all", sample_weight=data.raw_weights,
                         progress=report.path(0))
    steps = out.steps
    path_seed = int(out.seed)
    k_values = np.array([s.k for s in steps], dtype=np.int64)
    objectives = np.array([s.objective for s in steps], dtype=np.float64)
    # As ClusterResults (the arrays are shared, not copied), so that a
    # PathResult pickles as a ClusterResult does.
    results = tuple(None if s.clustering is None else ClusterResult._from_core(s.clustering) for s in steps)

    values: Dict[str, npt.NDArray[np.float64]] = {}
    suggested: Dict[str, Optional[int]] = {}
    gap_se = reference_log = None
    if "elbow" in names:
        values["elbow"] = elbow(k_values, log_objectives(objectives))
        finite = values["elbow"][np.isfinite(values["elbow"])]
        suggested["elbow"] = _argbest(values["elbow"], k_values, True) if finite.size and finite.max() > 0 else None
    if "calinski_harabasz" in names:
        total = objectives[0] if k_min == 1 else data.total_sum_of_squares()
        values["calinski_harabasz"] = calinski_harabasz(objectives, k_values, float(total), effective_count(data.w))
        suggested["calinski_harabasz"] = _argbest(values["calinski_harabasz"], k_values, True)
    if "davies_bouldin" in names:
        values["davies_bouldin"] = np.array(
            [davies_bouldin(data, r.labels, r.centroids) for r in results if r is not None])
        suggested["davies_bouldin"] = _argbest(values["davies_bouldin"], k_values, False)
    if "silhouette" in names:
        rows = _silhouette_rows(data, sample_size, path_seed)
        values["silhouette"] = silhouettes(data, [r.labels for r in results if r is not None], rows)
        suggested["silhouette"] = _argbest(values["silhouette"], k_values, True)
    if "gap" in names:
        kind = gap_reference or ("permute" if data.sparse else "pca")
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([path_seed, _GAP_STREAM])))
        ref_params = core_params(k=max(k_min, 1), **{**fit_settings, "seed": path_seed})
        logs = []
        for b in range(n_refs):
            ref = _reference(data, kind, rng)
            ref_out = _core.fit_path(as_csr(ref) if data.sparse else ref, k_min, k_max, ref_params, False, sample_weight=data.raw_weights,
                                     progress=report.path(1 + b))
            with np.errstate(divide="ignore"):
                logs.append(np.log([s.objective for s in ref_out.steps]))
        reference_log = np.array(logs)
        with np.errstate(divide="ignore"):
            gap, gap_se = gap_statistic(np.log(objectives), reference_log)
        values["gap"] = gap
        suggested["gap"] = gap_choice(k_values, gap, gap_se)
    return PathResult(
        ks=k_values,
        objectives=objectives,
        criteria=values,
        suggested=suggested,
        seed=path_seed,
        gap_standard_errors=gap_se,
        reference_log_objectives=reference_log,
        origins=tuple(s.origin for s in steps),
        splits=np.array([s.origin_index if s.origin == "split" else -1 for s in steps], dtype=np.int64),
        n_sweeps=np.array([s.n_sweeps for s in steps], dtype=np.int64),
        converged=np.array([s.converged for s in steps], dtype=np.bool_),
        _results=results,
    )
