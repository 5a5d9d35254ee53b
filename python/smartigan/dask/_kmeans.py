"""The estimator: k-means|| seeding, a sensitivity-sampled coreset, weighted
Smartigan on the client, then Lloyd passes on the full data.

Every pass over the data is one ``dask.compute`` of one task per row block
(functions in :mod:`._blocks`); the per-block results come back to the client
as a list in block order and are added there in that order, never by a
reduction tree whose shape could depend on the scheduler. See docs/dask.md.
"""

from __future__ import annotations

import math
import numbers
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

import smartigan

from . import _blocks

try:
    import dask as _dask_mod
    import dask.array as _da_mod
except ImportError as _import_error:  # pragma: no cover - exercised only without dask
    raise ImportError(
        "smartigan.dask needs dask; install it with `pip install 'smartigan[dask]'` "
        f"(or `pip install 'dask[array]' distributed`). Original error: {_import_error}"
    ) from _import_error

# dask's own annotations are partial; the estimator treats its objects as Any.
dask: Any = _dask_mod
da: Any = _da_mod

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


def _seed_from_random_state(random_state: Any) -> int:
    """A 64-bit seed: an int is used as is; a Generator/RandomState gives one draw; None draws fresh entropy."""
    if random_state is None:
        return int(np.random.SeedSequence().entropy) % 2**64  # type: ignore[arg-type]
    if isinstance(random_state, (bool, np.bool_)):
        raise TypeError(f"random_state must be an int, None, a RandomState or a Generator, got {random_state!r}")
    if isinstance(random_state, numbers.Integral):
        seed = int(random_state)
        if not 0 <= seed < 2**64:
            raise ValueError(f"invalid random_state: {seed} (an integer seed must be in [0, 2**64))")
        return seed
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2**63 - 1, dtype=np.int64))
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**63 - 1, dtype=np.int64))
    raise TypeError(
        f"random_state must be an int, None, a numpy.random.Generator or a RandomState, got {random_state!r} "
        f"({type(random_state).__name__})"
    )


def _int_at_least(name: str, value: Any, low: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r} ({type(value).__name__})")
    if value < low:
        raise ValueError(f"invalid {name}: {value} (must be at least {low})")
    return int(value)


def _real_at_least(name: str, value: Any, low: float, strict: bool) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {value!r} ({type(value).__name__})")
    v = float(value)
    if not math.isfinite(v) or v < low or (strict and v == low):
        raise ValueError(f"invalid {name}: {value!r} (must be a finite number {'>' if strict else '>='} {low})")
    return v


def _float_dtype(dtype: np.dtype[Any], name: str) -> np.dtype[Any]:
    """The float dtype data of ``dtype`` is clustered in, or TypeError."""
    kind = dtype.kind
    if kind == "f" and dtype.itemsize in (4, 8):
        return np.dtype(dtype.type)
    if kind in "iu" or (kind == "f" and dtype.itemsize > 8):
        return np.dtype(np.float64)
    if dtype == np.float16:
        raise TypeError(f"{name} has dtype float16, which is not supported; use {name}.astype(np.float32)")
    raise TypeError(f"{name} has dtype {dtype}; expected real numbers (float32, float64 or integers)")


def _is_dask_dataframe(X: Any) -> bool:
    return hasattr(X, "to_dask_array") and hasattr(X, "dtypes") and hasattr(X, "npartitions")


def _numeric_frame(X: Any, name: str) -> Any:
    """The dask DataFrame ``X`` with every column a NumPy number: pandas'
    nullable integers and floats (``Int64``, ``Float64``, ...) become float64
    (a missing value becomes NaN, reported with its row when a block is
    read); anything else (text, categories, booleans, dates) is a
    ``TypeError`` naming the column."""
    casts = {}
    for column, dtype in X.dtypes.items():
        if isinstance(dtype, np.dtype):
            if dtype.kind not in "iuf":
                raise TypeError(f"{name} column {column!r} has dtype {dtype}; every column must be numeric")
        elif getattr(dtype, "kind", "O") in "iuf":  # a pandas extension dtype holding numbers
            casts[column] = "float64"
        else:
            raise TypeError(f"{name} column {column!r} has dtype {dtype}; every column must be numeric")
    return X.astype(casts) if casts else X


def as_dask_rows(X: Any, name: str = "X", known_lengths: bool = True) -> Tuple[Any, bool]:
    """``X`` as a 2-d float dask array chunked along rows only, and whether it came in as NumPy.

    Dask DataFrames become arrays with known partition lengths (one pass over
    them); feature-axis chunks are merged, since each task needs whole rows.
    """
    from_numpy = False
    if _is_dask_dataframe(X):
        arr = _numeric_frame(X, name).to_dask_array(lengths=known_lengths)
    elif isinstance(X, da.Array):
        arr = X
    else:
        if hasattr(X, "tocsr") and hasattr(X, "nnz"):
            raise TypeError(f"{name} must be dense; sparse matrices are not supported by smartigan.dask")
        try:
            local = np.asarray(X)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} could not be converted to a numeric array: {exc}") from None
        if local.ndim != 2:
            raise ValueError(f"{name} must be a 2-d array (n_samples, n_features), got shape {local.shape}")
        if local.shape[1] == 0:  # before dask chunks it (its "auto" chunks divide by the row's size)
            raise ValueError(f"{name} has 0 features; need at least one")
        local = local.astype(_float_dtype(local.dtype, name), copy=False)
        arr = da.from_array(np.ascontiguousarray(local), chunks=("auto", -1))
        from_numpy = True
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-d array (n_samples, n_features), got shape {arr.shape}")
    if arr.shape[1] == 0:
        raise ValueError(f"{name} has 0 features; need at least one")
    dtype = _float_dtype(np.dtype(arr.dtype), name)
    if dtype != arr.dtype:
        arr = arr.astype(dtype)
    if known_lengths and any(math.isnan(c) for c in arr.chunks[0]):
        raise ValueError(
            f"{name} has unknown chunk sizes along its rows; call {name}.compute_chunk_sizes() first "
            "(or pass a dask DataFrame, whose partition lengths are computed here)"
        )
    if len(arr.chunks[1]) > 1:
        arr = arr.rechunk({1: -1})
    return arr, from_numpy


def as_dask_weights(sample_weight: Any, rows: Any) -> Optional[Any]:
    """``sample_weight`` as a 1-d float64 dask array chunked like ``rows``' rows (values are checked per block)."""
    if sample_weight is None:
        return None
    n = rows.shape[0]
    if isinstance(sample_weight, numbers.Real) and not isinstance(sample_weight, (bool, np.bool_)):
        return da.full(n, float(sample_weight), chunks=(rows.chunks[0],), dtype=np.float64)
    if _is_dask_dataframe(sample_weight) or hasattr(sample_weight, "to_dask_array"):
        sample_weight = sample_weight.to_dask_array(lengths=True)
    if isinstance(sample_weight, da.Array):
        weights = sample_weight
    else:
        try:
            local = np.asarray(sample_weight)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"sample_weight could not be converted to a numeric array: {exc}") from None
        weights = local
    if weights.dtype.kind not in "iuf" or weights.dtype == np.float16:
        raise TypeError(f"sample_weight must be real numbers, got dtype {weights.dtype}")
    if isinstance(weights, da.Array) and weights.ndim == 1 and any(math.isnan(c) for c in weights.chunks[0]):
        raise ValueError("sample_weight has unknown chunk sizes; call sample_weight.compute_chunk_sizes() first")
    if weights.ndim != 1 or weights.shape[0] != n:
        raise ValueError(f"sample_weight must have shape ({n},) to match X, got shape {weights.shape}")
    if isinstance(weights, da.Array):
        return weights.astype(np.float64).rechunk((rows.chunks[0],))
    return da.from_array(np.ascontiguousarray(weights, dtype=np.float64), chunks=(rows.chunks[0],))


class _Blocks:
    """The row blocks of one data set (and of its weights), and the passes over them.

    Counts the passes and the bytes that come back to the client.
    """

    def __init__(self, rows: Any, weights: Optional[Any]) -> None:
        self.rows = rows
        self.x = list(rows.to_delayed().ravel())
        self.w: List[Any] = [None] * len(self.x) if weights is None else list(weights.to_delayed().ravel())
        sizes = np.array(rows.chunks[0], dtype=np.int64)
        self.sizes = sizes
        self.offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        self.n_passes = 0
        self.bytes_gathered = 0

    def compute(self, tasks: Sequence[Any]) -> List[Any]:
        results = list(dask.compute(*tasks))
        self.bytes_gathered += sum(_nbytes(r) for r in results)
        return results

    def run(self, fn: Callable[..., Any], *args: Any, per_block: Optional[Callable[[int], Sequence[Any]]] = None,
            skip: Optional[Callable[[int], bool]] = None) -> List[Any]:
        """``fn(x_block, w_block, index, offset, *args, *per_block(index))`` for every block, in block order.

        NumPy arguments are put in the graph once and shared by all tasks.
        Blocks for which ``skip(index)`` is true are not read (their result is None).
        """
        shared = [dask.delayed(a, pure=True) if isinstance(a, np.ndarray) and a.size > 64 else a for a in args]
        task = dask.delayed(fn, pure=True)
        tasks: List[Any] = []
        indices: List[int] = []
        for i, (xb, wb) in enumerate(zip(self.x, self.w)):
            if self.sizes[i] == 0 or (skip is not None and skip(i)):
                continue
            extra = per_block(i) if per_block is not None else ()
            tasks.append(task(xb, wb, i, int(self.offsets[i]), *shared, *extra))
            indices.append(i)
        self.n_passes += 1
        out: List[Any] = [None] * len(self.x)
        for i, result in zip(indices, self.compute(tasks)):
            out[i] = result
        return out

    def totals(self, centres: npt.NDArray[Any], with_sums: bool) -> Tuple[float, npt.NDArray[np.float64],
                                                                           Optional[npt.NDArray[np.float64]],
                                                                           List[float], List[npt.NDArray[np.float64]]]:
        """Cost, weight per centre and (optionally) sums per centre over all blocks, added in block order.

        Also returns the per-block costs and weights (for the coreset's block shares).
        """
        k, d = centres.shape
        results = self.run(_blocks.assignment_totals, centres, with_sums)
        block_costs: List[float] = []
        block_weights: List[npt.NDArray[np.float64]] = []
        weights = np.zeros(k)
        sums = np.zeros((k, d)) if with_sums else None
        for result in results:
            if result is None:
                block_costs.append(0.0)
                block_weights.append(np.zeros(k))
                continue
            cost, attracted, block_sums = result
            block_costs.append(cost)
            block_weights.append(attracted)
            weights += attracted
            if sums is not None:
                sums += block_sums
        return math.fsum(block_costs), weights, sums, block_costs, block_weights


class _Clock:
    """Wall-clock seconds of each stage of a fit (reported in ``timings_``)."""

    def __init__(self) -> None:
        self.laps: Dict[str, float] = {}
        self._last = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.laps[name] = now - self._last
        self._last = now


def _nbytes(obj: Any) -> int:
    if isinstance(obj, np.ndarray):
        return int(obj.nbytes)
    if isinstance(obj, (tuple, list)):
        return sum(_nbytes(o) for o in obj)
    return 8


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
    n_clusters : int, default=8
        Number of clusters, ``1 <= n_clusters <= n_samples``.
    method : {"smartigan", "hartigan", "lloyd"} or None, default=None
        The method run on the coreset (``None``: smartigan.cluster's default, Smartigan).
    n_init : int or "auto", default="auto"
        Restarts on the coreset (as :func:`smartigan.cluster`).
    max_iter : int or None, default=None
        Smartigan's schedule length (or the Lloyd/Hartigan cap) on the
        coreset, as in :class:`smartigan.sklearn.KMeans`.
    random_state : int, Generator, RandomState or None, default=None
        An int in ``[0, 2**64)`` is the seed itself; the seed used is ``seed_``.
    n_threads : int or None, default=None
        Threads for the coreset fit on the client (default: all cores).
    schedule, polish, refine : default None
        Passed to :func:`smartigan.cluster` for the coreset fit when given
        (``None``: its defaults).
    tol : float, default=1e-4
        Polishing stops after a Lloyd pass that lowered the full-data
        objective by less than ``tol`` times its previous value. (A relative
        gain in the objective, unlike scikit-learn's ``tol``.) ``0`` runs
        until a pass gains nothing.
    max_polish_passes : int, default=100
        Cap on the Lloyd passes over the full data.
    coreset_size : int or None, default=None
        Rows drawn for the coreset; ``None``: ``200 * n_clusters``, at most
        ``2e7 / n_clusters`` and at least 20,000 (:func:`default_coreset_size`).
        When the data have at most this many rows, they are clustered
        whole on the client instead.
    oversampling : float, default=2.0
        k-means|| draws ``ceil(oversampling * n_clusters)`` rows per round
        (dask-ml's ``oversampling_factor`` is a count, not a multiple of k).
    init_rounds : int, default=2
        k-means|| sampling rounds.

    Attributes
    ----------
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
        Centres, in the data's dtype (float32 or float64).
    labels_ : dask array of int64, shape (n_samples,)
        Nearest centre of each training row (lazy: computing it reads the data again).
    inertia_ : float
        The exact full-data objective of ``cluster_centers_`` (weighted sum
        of squared distances to the nearest centre, float64, correctly
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
    """

    def __init__(
        self,
        n_clusters: int = 8,
        *,
        method: Optional[str] = None,
        n_init: Union[int, str] = "auto",
        max_iter: Optional[int] = None,
        random_state: Any = None,
        n_threads: Optional[int] = None,
        schedule: Optional[Tuple[float, float]] = None,
        polish: Optional[bool] = None,
        refine: Optional[bool] = None,
        tol: float = 1e-4,
        max_polish_passes: int = 100,
        coreset_size: Optional[int] = None,
        oversampling: float = 2.0,
        init_rounds: int = 2,
    ) -> None:
        self.n_clusters = n_clusters
        self.method = method
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

    def __repr__(self) -> str:
        params = ("n_clusters", "method", "n_init", "max_iter", "random_state", "n_threads", "schedule", "polish",
                  "refine", "tol", "max_polish_passes", "coreset_size", "oversampling", "init_rounds")
        return "KMeans(" + ", ".join(f"{p}={getattr(self, p)!r}" for p in params) + ")"

    # ---- fitting -----------------------------------------------------

    def _cluster_kwargs(self, seed: int) -> Dict[str, Any]:
        kwargs: Dict[str, Any] = {"seed": seed, "n_init": self.n_init}
        for name, value in (("method", self.method), ("n_iter", self.max_iter), ("n_threads", self.n_threads),
                            ("schedule", self.schedule), ("polish", self.polish), ("refine", self.refine)):
            if value is not None:
                kwargs[name] = value
        return kwargs

    def fit(self, X: Any, y: Any = None, sample_weight: Any = None) -> "KMeans":
        """Cluster ``X`` (dask array, dask DataFrame or NumPy array). Returns self.

        ``sample_weight`` (NumPy or dask, shape (n_samples,)) gives each row a
        non-negative weight; ``y`` is ignored.
        """
        k = _int_at_least("n_clusters", self.n_clusters, 1)
        tol = _real_at_least("tol", self.tol, 0.0, strict=False)
        max_polish = _int_at_least("max_polish_passes", self.max_polish_passes, 0)
        oversampling = _real_at_least("oversampling", self.oversampling, 0.0, strict=True)
        rounds = _int_at_least("init_rounds", self.init_rounds, 1)
        size = None if self.coreset_size is None else _int_at_least("coreset_size", self.coreset_size, k)
        seed = _seed_from_random_state(self.random_state)
        rows, from_numpy = as_dask_rows(X)
        n_length_passes = 1 if _is_dask_dataframe(X) else 0
        weights = as_dask_weights(sample_weight, rows)
        if n_length_passes == 0 and sample_weight is not None and _is_dask_dataframe(sample_weight):
            n_length_passes = 1
        n, d = (int(s) for s in rows.shape)
        if n < k:
            raise ValueError(f"invalid n_clusters: {k} (X has only {n} rows; n_clusters must be <= n_samples)")
        if from_numpy:
            rows = rows.persist()
            if weights is not None:
                weights = weights.persist()
        blocks = _Blocks(rows, weights)
        blocks.n_passes = n_length_passes
        dtype = np.dtype(rows.dtype)
        coreset_size = size if size is not None else default_coreset_size(k)
        kwargs = self._cluster_kwargs(seed)

        if weights is not None:
            totals = blocks.compute([dask.delayed(_blocks.weight_totals, pure=True)(wb, i, int(blocks.offsets[i]))
                                     for i, wb in enumerate(blocks.w)])
            n_positive = sum(t[1] for t in totals)
            if n_positive < k:
                raise ValueError(
                    f"invalid n_clusters: {k} (sample_weight has only {n_positive} positive weights; "
                    "need at least n_clusters)"
                )
        clock = _Clock()
        if n <= coreset_size:
            result = self._fit_whole(blocks, rows, weights, k, kwargs)
            clock.lap("client_fit")
            self.n_candidates_ = 0
            self.seeding_inertia_ = math.nan
            self.coreset_size_ = 0
        else:
            first = self._first_centre(blocks, weights, seed, n)
            candidates, candidate_weights, a_centres = self._seed(blocks, first, k, oversampling, rounds, seed, kwargs)
            clock.lap("seeding")
            coreset_rows, coreset_weights = self._coreset(blocks, a_centres, coreset_size, seed)
            clock.lap("coreset")
            result = smartigan.cluster(coreset_rows, k, sample_weight=coreset_weights, **kwargs)
            clock.lap("client_fit")
            self.n_candidates_ = int(candidates.shape[0])
            self.coreset_size_ = int(coreset_rows.shape[0])
        centres, history = self._polish(blocks, result.centroids.astype(dtype), tol, max_polish)
        clock.lap("polish")
        self.timings_ = clock.laps

        self.coreset_result_ = result
        self.cluster_centers_ = centres
        self.inertia_ = float(history[-1])
        self.history_ = np.array(history)
        self.n_iter_ = blocks.n_passes - self._passes_before_polish
        self.n_passes_ = blocks.n_passes
        self.bytes_gathered_ = blocks.bytes_gathered
        self.seed_ = seed
        self.n_features_in_ = d
        self.labels_ = self._labels(rows, centres)
        return self

    def _fit_whole(self, blocks: _Blocks, rows: Any, weights: Optional[Any], k: int,
                   kwargs: Dict[str, Any]) -> smartigan.ClusterResult:
        """Small data: gather it and run smartigan.cluster on all of it (one pass)."""
        parts = [p for p in blocks.run(_gather_block) if p is not None]
        local = np.concatenate([p[0] for p in parts])
        local_weights = None if weights is None else np.concatenate([p[1] for p in parts])
        self._passes_before_polish = blocks.n_passes
        return smartigan.cluster(local, k, sample_weight=local_weights, **kwargs)

    def _first_centre(self, blocks: _Blocks, weights: Optional[Any], seed: int, n: int) -> npt.NDArray[Any]:
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
            totals = np.array([t[0] for t in blocks.compute([
                dask.delayed(_blocks.weight_totals, pure=True)(wb, i, int(blocks.offsets[i]))
                for i, wb in enumerate(blocks.w)])])
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

    def _seed(self, blocks: _Blocks, first: npt.NDArray[Any], k: int, oversampling: float, rounds: int, seed: int,
              kwargs: Dict[str, Any]) -> Tuple[npt.NDArray[Any], npt.NDArray[np.float64], npt.NDArray[Any]]:
        """k-means|| candidates, their weights, and the candidates clustered to k centres."""
        per_round = max(1, math.ceil(oversampling * k))
        candidates = first
        self.seeding_history_: List[float] = []
        for r in range(rounds):
            def stream(i: int, r: int = r) -> Tuple[List[int]]:
                return ([seed, _PHASE_KMEANS_PARALLEL, r, i],)

            results = blocks.run(_blocks.kmeans_parallel_round, candidates, per_round, per_block=stream)
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

    def _coreset(self, blocks: _Blocks, centres: npt.NDArray[Any], size: int,
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
        results = blocks.run(_blocks.sensitivity_sample, centres, cost, safe, n_nonempty,
                             per_block=lambda i: (int(draws[i]), size, [seed, _PHASE_CORESET_DRAWS, 0, i]),
                             skip=lambda i: draws[i] == 0)
        done = [res for res in results if res is not None]
        self._passes_before_polish = blocks.n_passes
        return np.concatenate([res[0] for res in done]), np.concatenate([res[1] for res in done])

    def _polish(self, blocks: _Blocks, centres: npt.NDArray[Any], tol: float,
                max_passes: int) -> Tuple[npt.NDArray[Any], List[float]]:
        """Lloyd passes on the full data; a step is kept only if the exact objective did not rise."""
        dtype = centres.dtype
        cost, attracted, sums, _, _ = blocks.totals(centres, with_sums=True)
        history = [cost]
        for _ in range(max_passes):
            assert sums is not None
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

    def _labels(self, rows: Any, centres: npt.NDArray[Any]) -> Any:
        return rows.map_blocks(_blocks.labels_of, dask.delayed(centres, pure=True), dtype=np.int64, drop_axis=1)

    def predict(self, X: Any) -> Any:
        """Nearest centre of each row: a lazy dask array for dask input, a NumPy array for NumPy input."""
        rows, local = self._rows_for(X)
        centres = self._fitted_centres()
        if local:
            return _blocks.labels_of(rows.compute(), centres)
        return self._labels(rows, centres)

    def transform(self, X: Any) -> Any:
        """Euclidean distance from each row to each centre, shape (n, n_clusters), lazy for dask input."""
        rows, local = self._rows_for(X)
        centres = self._fitted_centres()
        if local:
            return _blocks.distances_of(rows.compute(), centres)
        return rows.map_blocks(_blocks.distances_of, dask.delayed(centres, pure=True), dtype=centres.dtype,
                               chunks=(rows.chunks[0], (centres.shape[0],)))

    def score(self, X: Any, y: Any = None, sample_weight: Any = None) -> float:
        """Minus the (weighted) sum of squared distances of ``X``'s rows to their nearest centre (computed now)."""
        rows, _ = self._rows_for(X, known_lengths=True)  # the blocks' offsets name the rows of any NaN
        centres = self._fitted_centres()
        rows = rows.astype(centres.dtype)
        weights = as_dask_weights(sample_weight, rows)
        cost, _, _, _, _ = _Blocks(rows, weights).totals(centres, with_sums=False)
        return -cost

    def fit_predict(self, X: Any, y: Any = None, sample_weight: Any = None) -> Any:
        """Fit, then return the labels (lazy dask array for dask input, NumPy for NumPy input)."""
        self.fit(X, sample_weight=sample_weight)
        if isinstance(X, da.Array) or _is_dask_dataframe(X):
            return self.labels_
        return self.labels_.compute()


def _gather_block(x: Any, w: Optional[Any], index: int, offset: int) -> Tuple[npt.NDArray[Any], Optional[npt.NDArray[np.float64]]]:
    """The checked block itself (for data small enough to cluster whole on the client)."""
    return _blocks.as_block(x, w, index, offset)
