"""The Dask estimator: k-means|| seeding, a sensitivity-sampled coreset,
weighted Smartigan on the client (or, with ``n_clusters="auto"``, a path
over k on the coreset and its chosen k), then Lloyd passes on the full data.

Its inputs are coerced by :mod:`._coerce`, its passes over the data run by
:mod:`._runtime` (one task per row block, results added in block order),
and the functions the workers run are :mod:`._blocks`'. See docs/dask.md.
"""

from __future__ import annotations

import dataclasses
import math
import time
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

import smartigan

from .. import _api, _params, _path
from .._checks import integer, number
from .._criteria import best_k, calinski_harabasz
from . import _blocks
from ._coerce import as_dask_rows, as_dask_weights, is_dask_dataframe
from ._dask import da, dask
from ._runtime import RowBlocks

__all__ = ["KMeans"]

#: ``coreset_size=None``: ``CORESET_DRAWS_PER_CLUSTER`` draws per cluster, but at most
#: ``CORESET_WORK // n_clusters`` (the client fit's time grows with draws × clusters)
#: and at least ``MIN_CORESET_SIZE`` (see docs/dask.md for the measurements).
CORESET_DRAWS_PER_CLUSTER = 200
CORESET_WORK = 20_000_000
MIN_CORESET_SIZE = 20_000


def default_coreset_size(n_clusters: int) -> int:
    """Draws in the coreset when ``coreset_size=None``.

    >>> default_coreset_size(10), default_coreset_size(100), default_coreset_size(300), default_coreset_size(1000)
    (20000, 20000, 60000, 20000)
    """
    return max(MIN_CORESET_SIZE, min(CORESET_DRAWS_PER_CLUSTER * n_clusters, CORESET_WORK // n_clusters))

# Seed streams: each random draw of a fit uses a generator seeded by
# (seed, phase, round, block), so no draw depends on the scheduler.
_PHASE_FIRST_CENTRE = 0
_PHASE_KMEANS_PARALLEL = 1
_PHASE_CORESET_BLOCKS = 2
_PHASE_CORESET_DRAWS = 3


class _Clock:
    """Wall-clock seconds of each stage of a fit (reported in ``timings_``)."""

    def __init__(self) -> None:
        self.laps: Dict[str, float] = {}
        self._last = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.laps[name] = now - self._last
        self._last = now


def _optional_size(name: str, value: Any) -> Optional[int]:
    return None if value is None else integer(name, value, least=1)


def _metric(metric: str) -> str:
    """``metric`` once it is one of the core's (the table's check has seen it is a string)."""
    if metric not in _params.METRICS:
        raise ValueError(f"invalid metric: {metric!r} (allowed: {', '.join(map(repr, _params.METRICS))})")
    return metric


def _directions(sums: npt.NDArray[np.float64], attracted: npt.NDArray[np.float64],
                centres: npt.NDArray[Any]) -> npt.NDArray[np.float64]:
    """Each centre's new direction: its rows' summed unit vectors scaled to
    unit length (divided by the largest magnitude first, so that no square
    overflows); a centre that attracts no weight, or whose rows' sum is
    zero (opposite rows cancel), stays where it is."""
    top = np.max(np.abs(sums), axis=1)
    moves = (attracted > 0) & (top > 0)
    scaled = sums / np.where(moves, top, 1.0)[:, None]
    lengths = np.sqrt(np.einsum("ij,ij->i", scaled, scaled))
    return np.where(moves[:, None], scaled / np.where(moves, lengths, 1.0)[:, None], centres)


_P = _params.PARAMETERS
_CLIENT = "Here for the fits on the client (of the coreset, and of the k-means|| candidates)."

#: The estimator's parameters: the table's, and those of the estimator alone.
KMEANS = _params.front_end(
    "smartigan.dask.KMeans",
    _path.AUTO_N_CLUSTERS, "method", "metric", "n_init", "max_iter", "random_state", "n_threads", "schedule",
    "polish", "refine",
    _params.Parameter(
        "tol", "float", 1e-4,
        "Polishing stops after a Lloyd pass over the full data that lowered the objective by less than "
        "``tol`` times its previous value.",
        "A relative gain in the objective, unlike scikit-learn's ``tol``; ``0`` runs until a pass gains "
        "nothing. The fits on the client use :func:`smartigan.cluster`'s default ``tol``.",
        check=lambda name, value: number(name, value, 0.0)),
    _params.Parameter(
        "max_polish_passes", "int", 100, "Cap on the Lloyd passes over the full data.",
        check=lambda name, value: integer(name, value, least=0)),
    _params.Parameter(
        "coreset_size", "int or None", None,
        "Rows drawn for the coreset, at least ``n_clusters`` (the largest k of ``k_range`` with ``\"auto\"``).",
        f"``None``: {CORESET_DRAWS_PER_CLUSTER} per cluster, at most {CORESET_WORK:.0e} / ``n_clusters`` "
        f"and at least {MIN_CORESET_SIZE} (``default_coreset_size``). Data of at most this many rows "
        "are clustered whole on the client instead.",
        check=_optional_size),
    _params.Parameter(
        "oversampling", "float", 2.0,
        "k-means|| draws ``ceil(oversampling * n_clusters)`` rows per round.",
        "dask-ml's ``oversampling_factor`` is a count, not a multiple of k.",
        check=lambda name, value: number(name, value, 0.0, strict=True)),
    _params.Parameter(
        "init_rounds", "int", 2, "k-means|| sampling rounds.",
        check=lambda name, value: integer(name, value, least=1)),
    _path.K_RANGE,
    _path.CRITERION,
    notes={
        "n_clusters": '``"auto"`` chooses it: the seeding and the coreset are drawn for the largest k of '
                      "``k_range``, one :func:`smartigan.cluster_path` call on the coreset (weighted, on the "
                      "client) fits every k, ``criterion`` suggests one, and that k's centres are polished on "
                      "the full data (``n_clusters_`` and ``path_`` say which k and why; see docs/dask.md).",
        "k_range": "The criteria are read on the coreset's path (its objectives estimate the full data's), "
                   "but for ``\"calinski_harabasz\"``, whose total sum of squares and number of points are "
                   "the full data's, added up per block.",
        "method": _CLIENT,
        "metric": 'With ``"cosine"`` every pass reads the rows scaled to unit length (a row of length zero is a '
                  "``ValueError`` naming its global row): k-means|| draws by ``1 - cos`` (spherical k-means++), "
                  "the coreset by the spherical loss, the fits on the client minimise it, and the Lloyd passes "
                  "assign each row to the largest cosine and move each centre to the normalised sum of its unit "
                  "rows.",
        "n_init": "Here the restarts of the fit on the client, of the coreset (or of the whole data where it "
                  'has at most ``coreset_size`` rows); with ``"best"`` the k-means|| candidates are reduced to '
                  '``n_clusters`` centres with ``"auto"``.',
        "max_iter": _CLIENT,
        "n_threads": _CLIENT,
        "schedule": _CLIENT,
        "polish": _CLIENT,
        "refine": _CLIENT,
    },
)


def effective_size(totals: Sequence[Tuple[float, int, float, float, float]]) -> float:
    """Kish's effective number of points, ``(sum w)^2 / sum w^2``, from the
    per-block totals of :func:`._blocks.weight_totals`, at least one weight
    positive.

    Computed from the weights divided by the largest of all (each block's
    scaled sums times its largest over that one), so that it is the same for
    weights multiplied by any constant, and never 0/0: the squares of weights
    such as 1e-200 underflow to 0 (and of 1e200 overflow), where the scaled
    sum of squares is at least 1, the largest weight's own."""
    top = max(t[2] for t in totals)
    sum_w = math.fsum((t[2] / top) * t[3] for t in totals)
    sum_w2 = math.fsum((t[2] / top) ** 2 * t[4] for t in totals)
    return sum_w * (sum_w / sum_w2)


@KMEANS.document
class KMeans:
    """K-means on Dask: Smartigan's quality on data spread over a cluster.

    ``fit`` makes a few passes over the data, each one task per row block:
    k-means|| seeding (``init_rounds`` rounds of ``oversampling * n_clusters``
    draws, then the candidates weighted by the points they attract and
    clustered to ``n_clusters`` centres), a coreset of ``coreset_size`` rows
    drawn by sensitivity sampling against those centres, weighted Smartigan
    (:func:`smartigan.cluster` with its restarts and refinement) on the
    coreset in this process, and Lloyd passes over the full data until a
    pass lowers the objective by less than ``tol`` relatively. Each pass's
    per-block results are added on the client in block order, so the same
    seed and chunking give bit-identical centres for any number of workers
    and threads. See docs/dask.md.

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
        Centres, in the data's dtype (float32 or float64).
    labels_ : dask array of int64, shape (n_samples,)
        Nearest centre of each training row (lazy: computing it reads the data again).
    inertia_ : float
        The exact full-data objective of ``cluster_centers_`` (weighted sum
        of squared distances to the nearest centre, ``metric="cosine"``: of
        ``1 - cos`` to the centre of largest cosine; float64, correctly
        rounded per block and added in block order).
    n_iter_ : int
        Polishing passes over the full data.
    history_ : ndarray of float64
        Full-data objective before and after each accepted polishing step;
        never increasing, ending at ``inertia_``.
    n_passes_ : int
        Passes over the data in ``fit`` (a DataFrame's length pass included).
    bytes_gathered_ : int
        Bytes of per-block results that came back to the client.
    n_candidates_ : int
        k-means|| candidates.
    seeding_inertia_ : float
        Full-data objective of the centres the candidates were clustered to.
    coreset_size_ : int
        Rows in the coreset (0 when the data were clustered whole).
    coreset_result_ : smartigan.ClusterResult
        The client-side fit (on the coreset, or on the whole data).
    timings_ : dict of str to float
        Wall-clock seconds of each stage: ``seeding``, ``coreset``,
        ``client_fit``, ``polish`` (``client_fit`` includes gathering small data).
    seed_ : int
        The seed used.
    n_features_in_ : int
        Number of features.
    n_clusters_ : int
        The number of clusters fitted: ``n_clusters``, or the k chosen by
        ``criterion`` with ``n_clusters="auto"``.
    path_ : smartigan.PathResult or None
        With ``n_clusters="auto"``, the path over ``k_range`` on the coreset
        (on the whole data where it was clustered whole), with the
        criterion's values and suggestion; else None.

    Examples
    --------
    >>> import numpy as np, dask.array as da
    >>> from smartigan.dask import KMeans
    >>> rng = np.random.default_rng(0)
    >>> X = da.from_array(np.vstack([rng.normal(0, 1, (500, 2)), rng.normal(9, 1, (500, 2))]), chunks=(250, 2))
    >>> model = KMeans(2, random_state=0).fit(X)
    >>> sorted(int(round(c)) for c in model.cluster_centers_[:, 0])
    [0, 9]
    >>> int(model.labels_.compute()[0] != model.labels_.compute()[-1])
    1

    Choosing k (the largest k of ``k_range`` sizes the coreset):

    >>> centres = np.array([[0, 0], [9, 0], [0, 9], [9, 9]])
    >>> X = da.from_array(np.repeat(centres, 300, axis=0) + rng.normal(size=(1200, 2)), chunks=(300, 2))
    >>> auto = KMeans("auto", k_range=(2, 8), coreset_size=600, random_state=0).fit(X)
    >>> auto.n_clusters_, auto.cluster_centers_.shape, auto.path_.suggested
    (4, (4, 2), {'elbow': 4})
    """

    def __init__(
        self,
        n_clusters: Union[int, str] = KMEANS["n_clusters"].default,
        *,
        method: str = KMEANS["method"].default,
        metric: _params.Metric = KMEANS["metric"].default,
        n_init: Union[int, str] = KMEANS["n_init"].default,
        max_iter: Optional[int] = KMEANS["max_iter"].default,
        random_state: Any = KMEANS["random_state"].default,
        n_threads: Optional[int] = KMEANS["n_threads"].default,
        schedule: Tuple[float, float] = KMEANS["schedule"].default,
        polish: bool = KMEANS["polish"].default,
        refine: bool = KMEANS["refine"].default,
        tol: float = KMEANS["tol"].default,
        max_polish_passes: int = KMEANS["max_polish_passes"].default,
        coreset_size: Optional[int] = KMEANS["coreset_size"].default,
        oversampling: float = KMEANS["oversampling"].default,
        init_rounds: int = KMEANS["init_rounds"].default,
        k_range: Union[Tuple[int, int], range, Sequence[int]] = KMEANS["k_range"].default,
        criterion: str = KMEANS["criterion"].default,
    ) -> None:
        self.n_clusters = n_clusters
        self.method = method
        self.metric = metric
        self.n_init = n_init
        self.max_iter = max_iter
        self.random_state = random_state
        self.n_threads = n_threads
        self.schedule = schedule
        self.polish = polish
        self.refine = refine
        self.tol = tol
        self.max_polish_passes = max_polish_passes
        self.coreset_size = coreset_size
        self.oversampling = oversampling
        self.init_rounds = init_rounds
        self.k_range = k_range
        self.criterion = criterion

    def __repr__(self) -> str:
        return "KMeans(" + ", ".join(f"{name}={getattr(self, name)!r}" for name in KMEANS.names) + ")"

    # ---- fitting -----------------------------------------------------

    def fit(self, X: Any, y: Any = None, sample_weight: Any = None) -> "KMeans":
        """Cluster ``X`` (dask array, dask DataFrame or NumPy array). Returns self.

        ``sample_weight`` (NumPy or dask, shape (n_samples,)) gives each row a
        non-negative weight; ``y`` is ignored.
        """
        checked = KMEANS.check({name: getattr(self, name) for name in KMEANS.names})
        tol, rounds = checked["tol"], checked["init_rounds"]
        # With "auto" the seeding and the coreset serve every k up to the largest.
        ks = checked["k_range"] if checked["n_clusters"] == "auto" else None
        k = ks[-1] if ks is not None else checked["n_clusters"]
        # The parameter that sets k, as errors name it.
        k_param, k_name = ("k_range", "the largest k of k_range") if ks is not None else ("n_clusters", "n_clusters")
        metric = _metric(checked["metric"])
        size = None if self.coreset_size is None else integer("coreset_size", self.coreset_size, least=k)
        seed = checked["random_state"]
        # The fits on the client: the parameters of smartigan.cluster that
        # this estimator shares, as given (its own tol is the polish's).
        kwargs: Dict[str, Any] = {name: getattr(self, name) for name in KMEANS.names
                                  if name in _api.PARAMETERS and name != "tol"}
        kwargs.update(seed=seed, n_iter=self.max_iter)
        rows, from_numpy = as_dask_rows(X)
        n_length_passes = 1 if is_dask_dataframe(X) else 0
        weights = as_dask_weights(sample_weight, rows)
        if n_length_passes == 0 and sample_weight is not None and is_dask_dataframe(sample_weight):
            n_length_passes = 1
        n, d = (int(s) for s in rows.shape)
        if n < k:
            raise ValueError(f"invalid {k_param}: {k} (X has only {n} rows; {k_name} must be <= n_samples)")
        if metric == "cosine":
            # Every pass (and the persisted copy of NumPy input) reads the unit rows.
            rows = rows.map_blocks(_blocks.unit_rows, dtype=rows.dtype)
        if from_numpy:
            rows = rows.persist()
            if weights is not None:
                weights = weights.persist()
        blocks = RowBlocks(rows, weights, metric)
        blocks.n_passes = n_length_passes
        dtype = np.dtype(rows.dtype)
        coreset_size = size if size is not None else default_coreset_size(k)

        # The full data's effective number of points (Kish's; n unweighted).
        n_effective = float(n)
        if weights is not None:
            totals = blocks.weight_totals()
            n_positive = sum(t[1] for t in totals)
            if n_positive < k:
                raise ValueError(
                    f"invalid {k_param}: {k} (sample_weight has only {n_positive} positive weights; "
                    f"need at least {k_name})"
                )
            n_effective = effective_size(totals)
        clock = _Clock()
        self.path_: Optional[_path.PathResult] = None
        if n <= coreset_size:
            result = self._fit_whole(blocks, rows, weights, k, kwargs, ks)
            clock.lap("client_fit")
            self.n_candidates_ = 0
            self.seeding_inertia_ = math.nan
            self.coreset_size_ = 0
        else:
            first = self._first_centre(blocks, weights, seed, n)
            # The candidates only seed the coreset's draws; the best-effort search
            # is spent on the coreset's fit.
            seeding = {**kwargs, "n_init": "auto"} if kwargs["n_init"] == "best" else kwargs
            candidates, candidate_weights, a_centres = self._seed(blocks, first, k, checked["oversampling"], rounds,
                                                                  seed, seeding)
            clock.lap("seeding")
            coreset_rows, coreset_weights = self._coreset(blocks, a_centres, coreset_size, seed)
            clock.lap("coreset")
            if ks is None:
                result = smartigan.cluster(coreset_rows, k, sample_weight=coreset_weights, **kwargs)
            else:
                path = _path.cluster_path(coreset_rows, ks, criteria=(self.criterion,),
                                          sample_weight=coreset_weights, **kwargs)
                if self.criterion == "calinski_harabasz":
                    path = self._full_data_calinski_harabasz(blocks, path, coreset_rows, coreset_weights,
                                                             n_effective)
                result = self._chosen(path)
            clock.lap("client_fit")
            self.n_candidates_ = int(candidates.shape[0])
            self.coreset_size_ = int(coreset_rows.shape[0])
        centres, history = self._polish(blocks, result.centroids.astype(dtype), tol, checked["max_polish_passes"])
        clock.lap("polish")
        self.timings_ = clock.laps

        self.coreset_result_ = result
        self.n_clusters_ = int(centres.shape[0])
        self.cluster_centers_ = centres
        self.inertia_ = float(history[-1])
        self.history_ = np.array(history)
        self.n_iter_ = blocks.n_passes - self._passes_before_polish
        self.n_passes_ = blocks.n_passes
        self.bytes_gathered_ = blocks.bytes_gathered
        self.seed_ = seed
        self.n_features_in_ = d
        self._fitted_metric = metric
        self.labels_ = self._labels(rows, centres)
        return self

    def _fit_whole(self, blocks: RowBlocks, rows: Any, weights: Optional[Any], k: int,
                   kwargs: Dict[str, Any], ks: Optional[Tuple[int, ...]]) -> smartigan.ClusterResult:
        """Small data: gather it and run smartigan.cluster (or, choosing k,
        smartigan.cluster_path) on all of it (one pass)."""
        parts = [p for p in blocks.run(_blocks.as_block) if p is not None]
        local = np.concatenate([p[0] for p in parts])
        local_weights = None if weights is None else np.concatenate([p[1] for p in parts])
        self._passes_before_polish = blocks.n_passes
        if ks is None:
            return smartigan.cluster(local, k, sample_weight=local_weights, **kwargs)
        return self._chosen(_path.cluster_path(local, ks, criteria=(self.criterion,), sample_weight=local_weights,
                                               **kwargs))

    def _chosen(self, path: _path.PathResult) -> smartigan.ClusterResult:
        """``path``'s solution at the k ``criterion`` suggests (kept as ``path_``)."""
        self.path_ = path
        return path.result(_path.chosen_k(path, self.criterion, stacklevel=4))

    def _full_data_calinski_harabasz(self, blocks: RowBlocks, path: _path.PathResult, coreset: npt.NDArray[Any],
                                     coreset_weights: npt.NDArray[np.float64],
                                     n_effective: float) -> _path.PathResult:
        """``path`` with Calinski-Harabasz from the full data's total sum of
        squares (one pass: the cost about one centre, the coreset's mean, less
        ``W * ||mean - centre||^2`` by Huygens, with the full data's mean from
        the per-block sums; ``metric="cosine"``: ``W - ||sum w u||`` from the
        per-block sums of the unit rows) and effective number of points; the
        within sums of squares are the path's."""
        centre = np.average(coreset.astype(np.float64), axis=0, weights=coreset_weights)
        if blocks.metric == "cosine":
            # One direction attracts every unit row; the loss at k = 1 is
            # ``sum w - ||sum w u||`` whatever that direction.
            centre = _directions(centre[None, :], np.ones(1), np.zeros((1, centre.size)))[0]
        cost, attracted, sums, _, _ = blocks.totals(centre[None, :].astype(coreset.dtype), with_sums=True)
        assert sums is not None
        if blocks.metric == "cosine":
            top = float(np.max(np.abs(sums[0])))
            total = float(attracted[0]) - (top * float(np.linalg.norm(sums[0] / top)) if top > 0 else 0.0)
        else:
            mean = sums[0] / attracted[0]
            total = cost - float(attracted[0]) * float(np.sum((mean - centre.astype(coreset.dtype)) ** 2))
        values = calinski_harabasz(path.objectives, path.ks, total, n_effective)
        return dataclasses.replace(path, criteria={**path.criteria, "calinski_harabasz": values},
                                   suggested={**path.suggested, "calinski_harabasz": best_k(values, path.ks, True)})

    def _first_centre(self, blocks: RowBlocks, weights: Optional[Any], seed: int, n: int) -> npt.NDArray[Any]:
        """The first k-means|| centre: a row drawn with probability proportional to its weight."""
        rng = np.random.default_rng([seed, _PHASE_FIRST_CENTRE])
        if weights is None:
            row = int(rng.integers(n))
            block = int(np.searchsorted(blocks.offsets, row, side="right") - 1)
            while blocks.sizes[block] == 0:
                block += 1
            position = float(row - blocks.offsets[block])
            wb = None
        else:
            totals = np.array([t[0] for t in blocks.weight_totals()])
            target = rng.random() * math.fsum(totals)
            cumulative = np.cumsum(totals)
            block = min(int(np.searchsorted(cumulative, target, side="right")), len(totals) - 1)
            while totals[block] == 0:
                block -= 1
            position = target - (cumulative[block] - totals[block])
            wb = blocks.w[block]
        task = dask.delayed(_blocks.row_at, pure=True)(blocks.x[block], wb, block, int(blocks.offsets[block]), position)
        (first,) = blocks.compute([task])
        return np.asarray(first)[None, :]

    def _seed(self, blocks: RowBlocks, first: npt.NDArray[Any], k: int, oversampling: float, rounds: int, seed: int,
              kwargs: Dict[str, Any]) -> Tuple[npt.NDArray[Any], npt.NDArray[np.float64], npt.NDArray[Any]]:
        """k-means|| candidates, their weights, and the candidates clustered to k centres."""
        per_round = max(1, math.ceil(oversampling * k))
        candidates = first
        self.seeding_history_: List[float] = []
        for r in range(rounds):
            def stream(i: int, r: int = r) -> Tuple[List[int]]:
                return ([seed, _PHASE_KMEANS_PARALLEL, r, i],)

            results = blocks.run(_blocks.kmeans_parallel_round, candidates, per_round, blocks.metric,
                                 per_block=stream)
            done = [res for res in results if res is not None]
            self.seeding_history_.append(math.fsum(res[3] for res in done))
            keys = np.concatenate([res[0] for res in done])
            indices = np.concatenate([res[1] for res in done])
            if keys.size == 0:  # every row coincides with a candidate
                break
            # Largest keys first; ties (probability 0) broken by row index, so the order is total.
            order = np.lexsort((indices, -keys))[:per_round]
            new_rows = np.concatenate([res[2] for res in done])[order]
            candidates = np.concatenate([candidates, new_rows.astype(candidates.dtype)])
        cost, attracted, _, _, _ = blocks.totals(candidates, with_sums=False)
        self.seeding_history_.append(cost)
        keep = attracted > 0
        candidates, attracted = candidates[keep], attracted[keep]
        if candidates.shape[0] > k:
            centres = smartigan.cluster(candidates, k, sample_weight=attracted, **kwargs).centroids
        else:
            centres = candidates
        return candidates, attracted, np.ascontiguousarray(centres, dtype=candidates.dtype)

    def _coreset(self, blocks: RowBlocks, centres: npt.NDArray[Any], size: int,
                 seed: int) -> Tuple[npt.NDArray[Any], npt.NDArray[np.float64]]:
        """``size`` rows drawn by sensitivity against ``centres`` (two passes: totals, then draws)."""
        cost, attracted, _, block_costs, block_weights = blocks.totals(centres, with_sums=False)
        self.seeding_inertia_ = cost
        nonempty = attracted > 0
        n_nonempty = int(np.count_nonzero(nonempty))
        safe = np.where(nonempty, attracted, 1.0)
        # Each block's share of the sampling probability, from its totals alone.
        shares = np.array([
            (0.5 * bc / cost if cost > 0 else 0.0) + (0.5 if cost > 0 else 1.0) * math.fsum(bw / (n_nonempty * safe))
            for bc, bw in zip(block_costs, block_weights)
        ])
        rng = np.random.default_rng([seed, _PHASE_CORESET_BLOCKS])
        draws = rng.multinomial(size, shares / shares.sum())
        results = blocks.run(_blocks.sensitivity_sample, centres, cost, safe, n_nonempty, blocks.metric,
                             per_block=lambda i: (int(draws[i]), size, [seed, _PHASE_CORESET_DRAWS, 0, i]),
                             skip=lambda i: draws[i] == 0)
        done = [res for res in results if res is not None]
        self._passes_before_polish = blocks.n_passes
        return np.concatenate([res[0] for res in done]), np.concatenate([res[1] for res in done])

    def _polish(self, blocks: RowBlocks, centres: npt.NDArray[Any], tol: float,
                max_passes: int) -> Tuple[npt.NDArray[Any], List[float]]:
        """Lloyd passes on the full data; a step is kept only if the exact objective did not rise.

        Each centre moves to the weighted mean of the rows it attracts, or with
        ``metric="cosine"`` to the direction of their sum (the unit vector of
        largest summed cosine, as the mean is of least squared distance).
        """
        dtype = centres.dtype
        cost, attracted, sums, _, _ = blocks.totals(centres, with_sums=True)
        history = [cost]
        for _ in range(max_passes):
            assert sums is not None
            if blocks.metric == "cosine":
                moved = _directions(sums, attracted, centres).astype(dtype)
            else:
                moved = np.where(attracted[:, None] > 0, sums / np.where(attracted > 0, attracted, 1.0)[:, None],
                                 centres).astype(dtype)
            if np.array_equal(moved, centres):
                break
            new_cost, new_attracted, new_sums, _, _ = blocks.totals(moved, with_sums=True)
            if new_cost > cost:  # only rounding can do this: keep the centres already evaluated
                break
            gain = cost - new_cost
            centres, cost, attracted, sums = moved, new_cost, new_attracted, new_sums
            history.append(cost)
            if gain <= tol * history[-2]:
                break
        return np.ascontiguousarray(centres), history

    # ---- using a fitted model ------------------------------------------

    def _fitted_centres(self) -> npt.NDArray[Any]:
        centres = self.__dict__.get("cluster_centers_")
        if centres is None:
            raise smartigan.NotFittedError("this KMeans is not fitted yet; call fit(X) first")
        return centres  # type: ignore[no-any-return]

    def _rows_for(self, X: Any, known_lengths: bool = False) -> Tuple[Any, bool]:
        """``X`` as rows to label (whose lengths need not be known) or to score (they must)."""
        centres = self._fitted_centres()
        rows, local = as_dask_rows(X, known_lengths=known_lengths)
        if rows.shape[1] != centres.shape[1]:
            raise ValueError(
                f"X has {rows.shape[1]} features, but this KMeans was fitted with {centres.shape[1]} features"
            )
        return rows, local

    def _metric_fitted(self) -> str:
        # Models pickled before the metric existed were fitted by the Euclidean loss.
        return str(self.__dict__.get("_fitted_metric", "euclidean"))

    def _labels(self, rows: Any, centres: npt.NDArray[Any]) -> Any:
        return rows.map_blocks(_blocks.labels_of, dask.delayed(centres, pure=True), self._metric_fitted(),
                               dtype=np.int64, drop_axis=1)

    def predict(self, X: Any) -> Any:
        """Nearest centre of each row (``metric="cosine"``: of largest cosine): a
        lazy dask array for dask input, a NumPy array for NumPy input."""
        rows, local = self._rows_for(X)
        centres = self._fitted_centres()
        if local:
            return _blocks.labels_of(rows.compute(), centres, self._metric_fitted())
        return self._labels(rows, centres)

    def transform(self, X: Any) -> Any:
        """Euclidean distance (``metric="cosine"``: ``1 - cos``) from each row to
        each centre, shape (n, n_clusters), lazy for dask input."""
        rows, local = self._rows_for(X)
        centres = self._fitted_centres()
        metric = self._metric_fitted()
        if local:
            return _blocks.distances_of(rows.compute(), centres, metric)
        return rows.map_blocks(_blocks.distances_of, dask.delayed(centres, pure=True), metric, dtype=centres.dtype,
                               chunks=(rows.chunks[0], (centres.shape[0],)))

    def score(self, X: Any, y: Any = None, sample_weight: Any = None) -> float:
        """Minus the (weighted) sum of squared distances (``metric="cosine"``: of
        ``1 - cos``) of ``X``'s rows to their nearest centre (computed now)."""
        rows, _ = self._rows_for(X, known_lengths=True)  # the blocks' offsets name the rows of any NaN
        centres = self._fitted_centres()
        metric = self._metric_fitted()
        if metric == "cosine":
            rows = rows.map_blocks(_blocks.unit_rows, dtype=rows.dtype)
        rows = rows.astype(centres.dtype)
        weights = as_dask_weights(sample_weight, rows)
        cost, _, _, _, _ = RowBlocks(rows, weights, metric).totals(centres, with_sums=False)
        return -cost

    def fit_predict(self, X: Any, y: Any = None, sample_weight: Any = None) -> Any:
        """Fit, then return the labels (lazy dask array for dask input, NumPy for NumPy input)."""
        self.fit(X, sample_weight=sample_weight)
        if isinstance(X, da.Array) or is_dask_dataframe(X):
            return self.labels_
        return self.labels_.compute()

