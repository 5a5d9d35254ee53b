"""The criteria for choosing k, computed with NumPy from a path's labels,
centroids and objectives (see docs/choosing-k.md): the elbow,
Calinski-Harabasz, Davies-Bouldin, the silhouette and the gap statistic,
with the gap statistic's reference data.

The elbow, Calinski-Harabasz and Davies-Bouldin cost O(n·d) per k (the
default criteria, :data:`DEFAULT_CRITERIA`); the silhouette O(m·n·(d + k))
per k on a sample of m points, done as matrix products; the gap
statistic's cost is that of its B reference paths, on at most
:data:`GAP_SAMPLE` points each, which the core computes
(:func:`smartigan.cluster_path` runs them). Keeping them
in Python keeps the core about minimising the objective, lets them be
checked line by line against their published definitions (and
scikit-learn's implementations), and costs little next to the paths, whose
work is all in Rust.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Tuple

import numpy as np
import numpy.typing as npt

from . import _core
from ._api import ClusterResult
from ._arrays import as_csr, as_data, is_sparse
from ._pca import PrincipalAxes

__all__ = ["CRITERIA", "DEFAULT_CRITERIA", "SILHOUETTE_SAMPLE", "GAP_REFERENCES", "GAP_REFERENCE_KINDS", "GAP_SAMPLE",
           "REFERENCE_FIT", "NEED_LABELS", "PathData", "ReferenceSet", "effective_count", "calinski_harabasz",
           "davies_bouldin", "silhouette_rows", "silhouettes", "elbow", "log_objectives", "gap_statistic",
           "gap_choice", "reference_data", "reference_sets", "reference_log_objective", "best_k",
           "criteria_values"]

#: Every criterion :func:`cluster_path` computes, in the order reported.
CRITERIA: Tuple[str, ...] = ("elbow", "calinski_harabasz", "davies_bouldin", "silhouette", "gap")
#: The criteria computed unless others are asked for: those that cost
#: O(n·d) per k, a small share of a path's own time. The silhouette (a
#: sample of points against every point) and the gap statistic (B more
#: paths) cost more than the path on large data, and are computed when
#: named (see docs/choosing-k.md for what they cost).
DEFAULT_CRITERIA: Tuple[str, ...] = ("elbow", "calinski_harabasz", "davies_bouldin")
#: Up to this many points the silhouette is exact (every point's silhouette
#: against every point); above it, the mean over a seeded uniform sample of
#: this many points, each point's silhouette still computed exactly against
#: all points.
SILHOUETTE_SAMPLE = 2000
#: Reference data sets of the gap statistic (Tibshirani et al. used 10-20).
GAP_REFERENCES = 10
#: The most points a reference data set of the gap statistic has: data of
#: at most this many points get references of their size, scored as the
#: data are (the objective of the path on them); larger data get
#: references of this many points, scored for the data's size
#: (:func:`reference_log_objective`), so that a reference costs about the
#: same whatever the size of the data.
GAP_SAMPLE = 2000
#: How every reference is clustered, whatever the data's own path does:
#: one restart at the first k, then each k grown from the one before by
#: its best split and Hartigan sweeps (no refinement). On data without
#: groups the refinement's fits and merges lower the objective by little,
#: and the references would otherwise cost several times the data's path
#: each.
REFERENCE_FIT: Dict[str, Any] = {"n_init": 1, "refine": False}
#: Where the gap statistic's reference points come from: uniform in the box
#: of the principal components (the default for dense data), uniform in the
#: bounding box, or the data with each column permuted across the rows (the
#: default for sparse data, whose references stay sparse).
GAP_REFERENCE_KINDS: Tuple[str, ...] = ("pca", "box", "permute")

#: The criteria that read every k's labels (``keep="all"``).
NEED_LABELS = ("davies_bouldin", "silhouette")
# Entries of distance blocks held at once by the silhouette (float64: 80 MB).
_BLOCK = 10_000_000
# Stream names mixed into the path seed for the criteria's own draws.
SILHOUETTE_STREAM = 1
GAP_STREAM = 2


class PathData:
    """``X`` coerced once, dense or CSR, with what the criteria read of it.

    ``points`` is ``X`` as the core reads it; the criteria read ``x`` (and
    ``dense``): with ``metric="cosine"`` the rows scaled to unit length,
    whose Euclidean geometry is the cosine's (``||u - v||^2 = 2 (1 - cos)``).
    """

    def __init__(self, X: Any, weights: Optional[npt.NDArray[np.float64]], metric: str = "euclidean") -> None:
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
        self.metric = metric
        if metric == "cosine":
            self.x = self.dense = _unit_rows(self.x, self.sparse)

    def rows(self, rows: npt.NDArray[np.int64]) -> "PathData":
        """These rows (in this order) with their weights."""
        return PathData(self.x[rows], None if self.raw_weights is None else self.w[rows])

    def centered(self) -> npt.NDArray[np.float64]:
        """Dense rows in float64 about their weighted mean (distances lose less there)."""
        x = np.asarray(self.dense, dtype=np.float64)
        return x - np.average(x, axis=0, weights=self.w)

    def sq_norms(self) -> npt.NDArray[np.float64]:
        return np.asarray(self.x.multiply(self.x).sum(axis=1)).ravel().astype(np.float64)

    def total_sum_of_squares(self) -> float:
        """``sum_i w_i ||x_i - mean||^2``, the objective at k = 1 (``metric="cosine"``:
        ``sum_i w_i - ||sum_i w_i u_i||``, the spherical objective at k = 1)."""
        if self.metric == "cosine":
            return float(self.w.sum() - np.linalg.norm(np.asarray(self.x.T @ self.w, dtype=np.float64).ravel()))
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


def _unit_rows(x: Any, sparse: bool) -> Any:
    """The rows of ``x`` (dense, or CSR in float64) scaled to unit length, in
    float64; ``ValueError`` naming the first row of length zero, as the core
    names it."""
    # Each row is divided by its largest magnitude first, so that squaring
    # huge or tiny entries neither overflows nor vanishes.
    if sparse:
        scaled = x.copy()
        counts = np.diff(scaled.indptr)
        top = np.zeros(scaled.shape[0])
        rows = np.flatnonzero(counts)
        top[rows] = np.maximum.reduceat(np.abs(scaled.data), scaled.indptr[rows]) if scaled.nnz else 0.0
    else:
        scaled = np.array(x, dtype=np.float64)
        top = np.max(np.abs(scaled), axis=1) if scaled.shape[1] else np.zeros(scaled.shape[0])
    zero = np.flatnonzero(top == 0)
    if zero.size:
        raise ValueError(f"invalid X: a row of length zero at row {int(zero[0])} (metric='cosine' needs every row "
                         "to have a positive length (drop or fill empty rows))")
    if sparse:
        scaled.data /= np.repeat(top, counts)
        scaled.data /= np.repeat(np.sqrt(np.asarray(scaled.multiply(scaled).sum(axis=1)).ravel()), counts)
        return scaled
    scaled /= top[:, None]
    scaled /= np.linalg.norm(scaled, axis=1)[:, None]
    return scaled


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


def davies_bouldin(data: PathData, labels: npt.NDArray[np.int64], centroids: npt.NDArray[Any]) -> float:
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


def silhouette_rows(data: PathData, sample_size: int, seed: int) -> npt.NDArray[np.int64]:
    """The points whose silhouettes are averaged: all of them up to ``sample_size``, else a seeded sample."""
    if data.n <= sample_size:
        return np.arange(data.n)
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, SILHOUETTE_STREAM])))
    return np.sort(rng.choice(data.n, size=sample_size, replace=False))


def silhouettes(data: PathData, labelings: Sequence[npt.NDArray[np.int64]], rows: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
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


class ReferenceSet:
    """Points of a reference data set with their weights (None: equal), and
    ``scale``, the data's total weight over theirs (1 for a set of the data's
    own size): the objective of a sample times ``scale`` estimates that of
    as many points as the data have. ``metric`` is the data's: the objective
    is the one the path minimises."""

    def __init__(self, points: Any, weights: Optional[npt.NDArray[np.float64]], scale: float,
                 metric: str = "euclidean") -> None:
        self.points, self.weights, self.scale, self.metric = points, weights, scale, metric
        self._data: Optional[PathData] = None

    def cost(self, centroids: npt.NDArray[Any]) -> float:
        """The (weighted) objective of these points assigned to their nearest of ``centroids``, times ``scale``.

        With ``metric="cosine"`` the centroids are unit directions and the
        points are read as unit rows, so ``||u - mu||^2 = 2 (1 - cos)``: the
        objective is half the sum of squared distances.
        """
        if self._data is None:
            self._data = PathData(self.points, self.weights, self.metric)
        data = self._data
        c = np.ascontiguousarray(centroids, dtype=np.float64)
        dist = data.distances_to_centroids(_core.predict(data.points, c, self.metric), c)
        half = 0.5 if self.metric == "cosine" else 1.0
        return float(data.w @ (dist * dist)) * half * self.scale


def reference_sets(data: PathData, kind: str, rng: np.random.Generator,
                   size: int) -> Tuple[ReferenceSet, Optional[ReferenceSet]]:
    """The points one reference path is fitted on, and those its solutions
    are scored on beside them (None where the reference has the data's size).

    Up to ``size`` points, as many as the data: :func:`reference_data`, each
    point with the weight of the data's point of the same row. Beyond: two
    independent sets of ``size`` points, each drawn as :func:`reference_data`
    draws the data's, with the weights of as many rows drawn without
    replacement among those of positive weight (for ``"permute"``: those
    rows, each column permuted among them).
    """
    if size >= data.n:
        return ReferenceSet(reference_data(data, kind, rng), data.raw_weights, 1.0, data.metric), None
    candidates = np.flatnonzero(data.w > 0)
    total = float(data.w.sum())
    sets = []
    for _ in range(2):
        rows = np.sort(rng.choice(candidates, size=min(size, candidates.size), replace=False))
        points = reference_data(data, kind, rng, rows)
        weights = None if data.raw_weights is None else data.w[rows]
        sets.append(ReferenceSet(points, weights, total / float(data.w[rows].sum()), data.metric))
    return sets[0], sets[1]


def reference_log_objective(fitted: npt.NDArray[np.float64], scored: Optional[npt.NDArray[np.float64]],
                            share: float) -> npt.NDArray[np.float64]:
    """``log W*(k)`` of a reference: ``log`` of the path's objectives on its
    points (``fitted``, scaled to the data's size), or, where it was fitted
    on a sample, moved toward the objectives of the same centroids on fresh
    points (``scored``) by ``share`` of the way.

    A solution fitted on m points fits them better than it fits the
    distribution they come from, and fits fresh points worse, by the same
    amount to first order (the optimism of a fitted objective): the
    population's log objective lies half-way between. The data's own path is
    fitted on its n points, with an optimism m/n times the sample's, so
    ``share = (1 - m/n) / 2`` (m and n the effective numbers of points,
    :func:`effective_count`) estimates what a reference of n points would
    give: 0 where the reference has the data's size.

    >>> reference_log_objective(np.log([4.0, 2.0]), np.log([9.0, 8.0]), 0.5).round(6).tolist()
    [1.791759, 1.386294]
    """
    if scored is None or share == 0:
        return fitted
    return np.asarray(fitted + share * (scored - fitted), dtype=np.float64)


def reference_data(data: PathData, kind: str, rng: np.random.Generator,
                   rows: Optional[npt.NDArray[np.int64]] = None) -> Any:
    """One reference data set of the data's ``n`` points, or of as many as
    ``rows`` (see :data:`GAP_REFERENCE_KINDS`): uniform in the box of the
    principal components (``"pca"``, rotated back), in the bounding box
    (``"box"``), or each column's values permuted across the rows
    (``"permute"``: across ``rows`` where given; sparse data stay sparse, as
    CSR). The boxes are those of all the data."""
    if kind == "permute":
        return _permuted_columns(data if rows is None else data.rows(rows), rng)
    count = data.n if rows is None else rows.size
    x = np.asarray(data.dense, dtype=np.float64)
    if kind == "box":
        return np.ascontiguousarray(rng.uniform(x.min(axis=0), x.max(axis=0), size=(count, data.d)))
    # Uniform in the box that the data span along their (weighted)
    # principal axes, rotated back.
    pca = PrincipalAxes.fit(x, data.w)
    scores = pca.scores(x)
    z = rng.uniform(scores.min(axis=0), scores.max(axis=0), size=(count, scores.shape[1]))
    return np.ascontiguousarray(pca.points(z))


def _permuted_columns(data: PathData, rng: np.random.Generator) -> Any:
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


def best_k(values: npt.NDArray[np.float64], ks: npt.NDArray[np.int64], largest: bool) -> Optional[int]:
    """The k of the largest (or smallest) value, NaN left out; None if all are NaN."""
    if np.isnan(values).all():
        return None
    masked = np.where(np.isnan(values), -np.inf if largest else np.inf, values)
    return int(ks[int(np.argmax(masked) if largest else np.argmin(masked))])



def criteria_values(names: Sequence[str], data: PathData, ks: npt.NDArray[np.int64],
                    objectives: npt.NDArray[np.float64], results: Sequence[Optional[ClusterResult]],
                    sample_size: int, seed: int) -> Tuple[Dict[str, npt.NDArray[np.float64]], Dict[str, Optional[int]]]:
    """The values at every k of the criteria ``names`` but the gap statistic
    (whose reference paths :func:`smartigan.cluster_path` runs), and the k
    each suggests (see :class:`smartigan.PathResult`)."""
    values: Dict[str, npt.NDArray[np.float64]] = {}
    suggested: Dict[str, Optional[int]] = {}
    if "elbow" in names:
        values["elbow"] = elbow(ks, log_objectives(objectives))
        finite = values["elbow"][np.isfinite(values["elbow"])]
        suggested["elbow"] = best_k(values["elbow"], ks, True) if finite.size and finite.max() > 0 else None
    if "calinski_harabasz" in names:
        total = objectives[0] if ks[0] == 1 else data.total_sum_of_squares()
        values["calinski_harabasz"] = calinski_harabasz(objectives, ks, float(total), effective_count(data.w))
        suggested["calinski_harabasz"] = best_k(values["calinski_harabasz"], ks, True)
    if "davies_bouldin" in names:
        values["davies_bouldin"] = np.array(
            [davies_bouldin(data, r.labels, r.centroids) for r in results if r is not None])
        suggested["davies_bouldin"] = best_k(values["davies_bouldin"], ks, False)
    if "silhouette" in names:
        rows = silhouette_rows(data, sample_size, seed)
        values["silhouette"] = silhouettes(data, [r.labels for r in results if r is not None], rows)
        suggested["silhouette"] = best_k(values["silhouette"], ks, True)
    return values, suggested
