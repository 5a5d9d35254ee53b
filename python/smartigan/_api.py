"""The Python front end: type coercion, result objects and the stateful
:class:`Clusterer`. Every value check (ranges, allowed names, shapes, NaN)
happens once, in the Rust core; this module only turns Python objects into
the types the core takes and raises ``TypeError`` for objects of the wrong
kind."""

from __future__ import annotations

import numbers
import threading
from dataclasses import dataclass
from typing import Any, Literal, Optional, Tuple, Union, cast

import numpy as np
import numpy.typing as npt

from . import _core

__all__ = [
    "ClusterResult",
    "Clusterer",
    "NotFittedError",
    "cluster",
    "Method",
    "InitName",
]

Method = Literal["lloyd", "hartigan", "smartigan"]
InitName = Literal["random-partition", "forgy", "k-means++"]
InitArg = Union[InitName, str, npt.ArrayLike]
FloatArray = Union[npt.NDArray[np.float32], npt.NDArray[np.float64]]

DEFAULT_METHOD: str = _core.DEFAULT_METHOD
#: ``n_iter=None`` (default) means ``DEFAULT_N_ITER`` sweeps of Smartigan's
#: schedule, or at most ``DEFAULT_MAX_ITER`` Lloyd iterations / Hartigan sweeps.
DEFAULT_N_ITER: int = _core.DEFAULT_N_ITER
DEFAULT_MAX_ITER: int = _core.DEFAULT_MAX_ITER
NInit = Union[int, Literal["auto"]]
#: ``"auto"``: ``AUTO_N_INIT_SMALL`` restarts while ``n_samples * n_features * k``
#: is at most ``AUTO_SMALL_PROBLEM``, else ``AUTO_N_INIT_LARGE`` (see :func:`auto_n_init`).
DEFAULT_N_INIT: NInit = "auto"
AUTO_N_INIT_SMALL: int = _core.AUTO_N_INIT_SMALL
AUTO_N_INIT_LARGE: int = _core.AUTO_N_INIT_LARGE
AUTO_SMALL_PROBLEM: int = _core.AUTO_SMALL_PROBLEM
DEFAULT_INIT: str = _core.DEFAULT_INIT
DEFAULT_SCHEDULE: Tuple[float, float] = tuple(_core.DEFAULT_SCHEDULE)  # type: ignore[assignment]
DEFAULT_POLISH: bool = _core.DEFAULT_POLISH
DEFAULT_REFINE: bool = _core.DEFAULT_REFINE
DEFAULT_TOL: float = _core.DEFAULT_TOL

_I64 = 2**63


class NotFittedError(ValueError, AttributeError):
    """Raised when a fitted attribute or method is used before ``fit``."""


def as_data(X: Any, name: str = "X") -> FloatArray:
    """``X`` as a C-contiguous 2-d float32/float64 array.

    float32 and float64 C-contiguous arrays pass through without a copy;
    other layouts are copied, integer data becomes float64, and complex,
    boolean, float16, object and string data are rejected with ``TypeError``.
    """
    if is_sparse(X):
        raise TypeError(f"{name} must be dense here; pass {name}.toarray()")
    try:
        arr = np.asarray(X)
    except (ValueError, TypeError) as exc:
        raise TypeError(f"{name} could not be converted to a numeric array: {exc}") from None
    arr = _real_dtype(arr, name)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-d array (n_samples, n_features), got {arr.ndim}-d array of shape {arr.shape}")
    return cast(FloatArray, np.ascontiguousarray(arr))


def _real_dtype(arr: npt.NDArray[Any], name: str) -> FloatArray:
    """``arr`` as native-endian float32/float64, or TypeError for non-real data."""
    kind = arr.dtype.kind
    if kind == "c":
        raise TypeError(f"{name} has complex dtype {arr.dtype}; k-means needs real numbers")
    if kind == "b":
        raise TypeError(f"{name} has boolean dtype; convert it explicitly, e.g. {name}.astype(np.float64)")
    if kind in "OUSVMm":
        raise TypeError(f"{name} has dtype {arr.dtype} ({'object' if kind == 'O' else 'non-numeric'}); expected real numbers")
    if arr.dtype == np.float16:
        raise TypeError(f"{name} has dtype float16, which is not supported; use {name}.astype(np.float32)")
    if kind in "iu" or (kind == "f" and arr.dtype.itemsize > 8):
        arr = arr.astype(np.float64)
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    return arr


def is_sparse(X: Any) -> bool:
    """Whether ``X`` is a SciPy sparse matrix or array (without importing SciPy)."""
    return hasattr(X, "tocsr") and hasattr(X, "nnz") and hasattr(X, "shape")


SparseArgs = Tuple[int, npt.NDArray[np.uintp], npt.NDArray[np.uintp], FloatArray]


def as_csr(X: Any, name: str = "X", dtype: Optional[np.dtype[Any]] = None) -> SparseArgs:
    """A SciPy sparse matrix as ``(n_cols, indptr, indices, data)`` in canonical CSR.

    CSC, COO and other formats are converted to CSR; duplicate entries are
    summed (on a copy); ``data`` of float32/float64 is used without a copy.
    """
    csr = X.tocsr()
    if len(csr.shape) != 2:
        raise ValueError(f"{name} must be 2-d, got shape {csr.shape}")
    if not csr.has_canonical_format:
        csr = csr.copy()
        csr.sum_duplicates()
    data = cast(FloatArray, np.ascontiguousarray(_real_dtype(np.asarray(csr.data), f"{name}.data")))
    if dtype is not None and data.dtype != dtype:
        data = data.astype(dtype)
    indptr = np.ascontiguousarray(csr.indptr, dtype=np.uintp)
    indices = np.ascontiguousarray(csr.indices, dtype=np.uintp)
    return int(csr.shape[1]), indptr, indices, data


def as_weights(sample_weight: Any) -> Optional[npt.NDArray[np.float64]]:
    """``sample_weight`` as a contiguous 1-d float64 array (or None)."""
    if sample_weight is None:
        return None
    try:
        w = np.asarray(sample_weight)
    except (ValueError, TypeError) as exc:
        raise TypeError(f"sample_weight could not be converted to a numeric array: {exc}") from None
    if w.dtype.kind not in "iuf":
        raise TypeError(f"sample_weight must be real numbers, got dtype {w.dtype}")
    if w.ndim != 1:
        raise ValueError(f"sample_weight must be a 1-d array, got shape {w.shape}")
    return np.ascontiguousarray(w, dtype=np.float64)


def _int_param(name: str, value: Any) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r} ({type(value).__name__})")
    v = int(value)
    if not -_I64 <= v < _I64:
        raise ValueError(f"invalid {name}: {v} (out of range)")
    return v


def _seed(seed: Any) -> Optional[int]:
    if seed is None:
        return None
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"seed must be an integer in [0, 2**64) or None, got {seed!r} ({type(seed).__name__})")
    s = int(seed)
    if not 0 <= s < 2**64:
        raise ValueError(f"invalid seed: {s} (must be in [0, 2**64) or None)")
    return s


def auto_n_init(n_samples: int, n_features: int, k: int) -> int:
    """The number of restarts ``n_init="auto"`` runs for data of this shape.

    Twenty while one pass costs at most ``AUTO_SMALL_PROBLEM`` multiply-adds
    (``n_samples * n_features * k``), where twenty restarts take a fraction
    of a second; four above it (refined restarts rarely differ there).

    >>> auto_n_init(150, 4, 3), auto_n_init(100_000, 32, 100)
    (20, 4)
    """
    sizes = [_int_param(name, v) for name, v in (("n_samples", n_samples), ("n_features", n_features), ("k", k))]
    for name, v in zip(("n_samples", "n_features", "k"), sizes):
        if v < 0:
            raise ValueError(f"invalid {name}: {v} (must be non-negative)")
    return _core.auto_n_init(*sizes)


def _n_init_param(n_init: Any) -> Optional[int]:
    """``None`` for ``"auto"`` (the core then chooses by the data's shape), else a checked integer."""
    if isinstance(n_init, str):
        if n_init == "auto":
            return None
        raise ValueError(f"invalid n_init: {n_init!r} (must be a positive integer or 'auto')")
    if isinstance(n_init, (bool, np.bool_)) or not isinstance(n_init, numbers.Integral):
        raise TypeError(f"n_init must be an integer or 'auto', got {n_init!r} ({type(n_init).__name__})")
    return _int_param("n_init", n_init)


def _core_params(
    k: Any,
    method: Any,
    n_iter: Any,
    seed: Any,
    init: Any,
    n_init: Any,
    schedule: Any,
    polish: Any,
    refine: Any,
    n_threads: Any,
    tol: Any = DEFAULT_TOL,
) -> _core.Params:
    """The core's parameter object, with Python types checked (values are checked by the core)."""
    if not isinstance(method, str):
        raise TypeError(f"method must be a string ('lloyd', 'hartigan' or 'smartigan'), got {method!r}")
    init_name, init_centroids = DEFAULT_INIT, None
    if isinstance(init, str):
        init_name = init
    else:
        init_centroids = np.ascontiguousarray(as_data(init, "init"), dtype=np.float64)
    try:
        start, end = schedule
    except (TypeError, ValueError):
        raise TypeError(f"schedule must be a pair (start, end) of numbers, got {schedule!r}") from None
    for v in (start, end):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real):
            raise TypeError(f"schedule must be a pair (start, end) of numbers, got {schedule!r}")
    for name, flag in (("polish", polish), ("refine", refine)):
        if not isinstance(flag, (bool, np.bool_)):
            raise TypeError(f"{name} must be True or False, got {flag!r}")
    if isinstance(tol, (bool, np.bool_)) or not isinstance(tol, numbers.Real):
        raise TypeError(f"tol must be a number >= 0, got {tol!r} ({type(tol).__name__})")
    return _core.Params(
        k=_int_param("k", k),
        method=method,
        n_iter=None if n_iter is None else _int_param("n_iter", n_iter),
        seed=_seed(seed),
        init=init_name,
        init_centroids=init_centroids,
        n_init=_n_init_param(n_init),
        schedule=(float(start), float(end)),
        polish=bool(polish),
        refine=bool(refine),
        n_threads=None if n_threads is None else _int_param("n_threads", n_threads),
        tol=float(tol),
    )


@dataclass(frozen=True)
class ClusterResult:
    """The outcome of :func:`cluster` (the best of all restarts).

    Attributes
    ----------
    labels : ndarray of int64, shape (n_samples,)
        Cluster of each point, in ``0..k``; no cluster is empty.
    centroids : ndarray, shape (k, n_features), dtype of X
        The mean of each cluster.
    objective : float
        Sum of squared distances to the centroids, recomputed from
        ``labels`` and ``centroids`` as returned.
    cluster_sizes : ndarray of int64, shape (k,)
        Points in each cluster (R's ``size``); all positive.
    cluster_objectives : ndarray of float64, shape (k,)
        Each cluster's share of ``objective`` from the same distances (R's
        ``withinss``); they add up to ``objective`` up to rounding.
    n_sweeps : int
        Lloyd iterations or Hartigan/Smartigan sweeps of the best restart.
    converged : bool
        Whether the last sweep moved nothing, or moved points without
        lowering the objective (rounding noise, e.g. between clusters of
        identical points) while no point had a move beating rounding
        error, or (with ``tol > 0``) moved the centroids by less than the
        tolerance. For Hartigan and polished Smartigan with ``tol=0``: no
        single point can be moved to lower the objective by more than
        rounding error.
    history : ndarray of float64
        Objective after each sweep.
    moves : ndarray of int64
        Points moved in each sweep.
    initial_objective : float
        Objective of the best restart's starting partition.
    refinements : int
        Merge-split moves that the best restart's refinement kept (0 with
        ``refine=False``).
    restart_objectives : ndarray of float64, shape (n_init,)
        Final objective of every restart.
    best_restart : int
        Index of the returned restart.
    seed : int
        The seed used; pass it back to repeat a ``seed=None`` run exactly.
    """

    labels: npt.NDArray[np.int64]
    centroids: FloatArray
    objective: float
    cluster_sizes: npt.NDArray[np.int64]
    cluster_objectives: npt.NDArray[np.float64]
    n_sweeps: int
    converged: bool
    history: npt.NDArray[np.float64]
    moves: npt.NDArray[np.int64]
    initial_objective: float
    refinements: int
    restart_objectives: npt.NDArray[np.float64]
    best_restart: int
    seed: int

    def __repr__(self) -> str:
        k, d = self.centroids.shape
        return (
            f"ClusterResult(objective={self.objective:.6g}, k={k}, n_features={d}, "
            f"n_samples={self.labels.shape[0]}, n_sweeps={self.n_sweeps}, converged={self.converged}, "
            f"n_init={self.restart_objectives.shape[0]}, seed={self.seed})"
        )


def cluster(
    X: npt.ArrayLike,
    k: int,
    method: Method = DEFAULT_METHOD,  # type: ignore[assignment]
    n_iter: Optional[int] = None,
    seed: Optional[int] = None,
    *,
    init: InitArg = DEFAULT_INIT,
    n_init: NInit = DEFAULT_N_INIT,
    schedule: Tuple[float, float] = DEFAULT_SCHEDULE,
    polish: bool = DEFAULT_POLISH,
    refine: bool = DEFAULT_REFINE,
    n_threads: Optional[int] = None,
    sample_weight: Optional[npt.ArrayLike] = None,
    tol: float = DEFAULT_TOL,
) -> ClusterResult:
    """Cluster the rows of ``X`` into ``k`` groups.

    Parameters
    ----------
    X : array-like or SciPy sparse matrix of shape (n_samples, n_features)
        Real data. float32/float64 C-ordered arrays are used without a copy.
        Sparse input (CSR; CSC/COO are converted) is clustered without
        densifying it, in O(nnz·k) per sweep; centroids come back dense.
    k : int
        Number of clusters, ``1 <= k <= n_samples``.
    method : {"smartigan", "hartigan", "lloyd"}
        ``"lloyd"``: nearest-centroid iterations. ``"hartigan"``: single-point
        transfers in a random order each sweep. ``"smartigan"``: Hartigan with
        an acceptance factor falling along ``schedule`` (the paper's variant).
    n_iter : int or None
        For Smartigan the length of the schedule (default ``None``:
        ``DEFAULT_N_ITER`` = 20 sweeps; polishing sweeps come on top). For
        Lloyd and Hartigan a cap on iterations / sweeps, which stop earlier
        as soon as nothing changes (default ``None``: ``DEFAULT_MAX_ITER`` =
        300, scikit-learn's ``max_iter``).
    seed : int or None
        Seed in ``[0, 2**64)``. Same seed, data and version give bit-identical
        results for any ``n_threads``. ``None`` draws one (see ``result.seed``).
    init : {"k-means++", "random-partition", "forgy"} or array of shape (k, n_features)
        How each restart starts.
    n_init : int or "auto"
        Independent restarts, run in parallel; the lowest objective wins.
        ``"auto"`` (default): 20 while ``n_samples * n_features * k`` is at
        most 2**20 (twenty restarts then take a fraction of a second), else
        4 (see :func:`auto_n_init`).
    schedule : (float, float)
        Smartigan's acceptance factor at the first sweep and, in the limit, at
        sweep ``n_iter``: ``start - (start - end) * t / n_iter``.
    polish : bool
        Finish Smartigan with Hartigan sweeps until nothing moves.
    refine : bool
        After each restart converges, try merge-split moves: merge the two
        clusters whose merge costs least, split the cluster a 2-means split
        helps most, re-converge with the method's own steps, and keep the
        result only if the objective fell. Repairs the "two groups under one
        centroid, one group under two" optima that no single-point move can
        leave. Dense and sparse input alike.
    n_threads : int or None
        Threads for this call (default: all cores).
    sample_weight : array-like of shape (n_samples,) or None
        Non-negative weight per row. The objective becomes the weighted sum
        of squared distances, centroids are weighted means, Hartigan's
        transfer test uses cluster weights, and k-means++ samples by
        weight times squared distance; an integer weight acts like repeating
        the row. Zero weights are allowed (such points join their nearest
        centroid); at least ``k`` weights must be positive.
    tol : float
        Early stop, as scikit-learn's ``tol``: a Lloyd iteration or Hartigan
        sweep (for Smartigan, a polishing sweep; the schedule always runs)
        that moves the centroids by at most ``tol`` times the mean
        per-feature variance of ``X`` (summed squared shifts) ends the
        descent, reported as converged. ``0`` (default) runs until no point
        moves, so every Hartigan or polished Smartigan result is a local
        optimum; a positive ``tol`` trades that for time.

    Returns
    -------
    ClusterResult

    Raises
    ------
    TypeError
        For data or parameters of the wrong type (complex, boolean, float16,
        object or string data; non-integer ``k``; ...).
    ValueError
        For values out of range, NaN or infinite data, wrong shapes and unknown
        names; the message names the parameter and the value.

    Examples
    --------
    >>> import numpy as np, smartigan
    >>> X = np.array([[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [5.0, 5.1]])
    >>> r = smartigan.cluster(X, 2, seed=0)
    >>> bool(r.labels[0] == r.labels[1] != r.labels[2])
    True
    >>> round(r.objective, 6)
    0.01
    """
    params = _core_params(k, method, n_iter, seed, init, n_init, schedule, polish, refine, n_threads, tol)
    return ClusterResult(**_fit(X, params, sample_weight))


def _fit(X: Any, params: _core.Params, sample_weight: Any) -> dict[str, Any]:
    """One call into the core, dense or sparse."""
    weights = as_weights(sample_weight)
    if is_sparse(X):
        return _core.fit_sparse(*as_csr(X), params, sample_weight=weights)
    return _core.fit(as_data(X), params, sample_weight=weights)


def kmeans_plusplus(
    X: npt.ArrayLike,
    k: int,
    seed: Optional[int] = None,
    *,
    sample_weight: Optional[npt.ArrayLike] = None,
    n_threads: Optional[int] = None,
) -> Tuple[FloatArray, npt.NDArray[np.int64]]:
    """Greedy k-means++ centres, without clustering (as scikit-learn's ``kmeans_plusplus``).

    Each centre after the first is the best, by the potential it leaves, of
    ``2 + floor(ln k)`` rows drawn with probability proportional to their
    (weighted) squared distance to the nearest centre so far.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Dense real data (float32/float64 C-ordered arrays are used without a
        copy). Sparse matrices are not supported here; :func:`cluster` seeds
        sparse input itself.
    k : int
        Number of centres, ``1 <= k <= n_samples``.
    seed : int or None
        Seed in ``[0, 2**64)``. The rows chosen are the start of restart 0 of
        ``cluster(X, k, seed=seed)`` with ``init="k-means++"``, for any
        ``n_threads``. ``None`` draws a seed.
    sample_weight : array-like of shape (n_samples,) or None
        Non-negative weight per row; rows are drawn by weight times squared
        distance, so a row of weight 0 is never chosen.
    n_threads : int or None
        Threads for this call (default: all cores).

    Returns
    -------
    centers : ndarray of shape (k, n_features)
        The chosen rows, in ``X``'s dtype (float32 or float64).
    indices : ndarray of shape (k,), int64
        Their row indices in ``X``, in the order chosen.

    Examples
    --------
    >>> import numpy as np, smartigan
    >>> X = np.array([[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 5.0]])
    >>> centers, indices = smartigan.kmeans_plusplus(X, 2, seed=0)
    >>> sorted(int(i) // 2 for i in indices)
    [0, 1]
    >>> bool((centers == X[indices]).all())
    True
    """
    if is_sparse(X):
        raise TypeError("kmeans_plusplus: X must be a dense array; sparse input is seeded by cluster() itself")
    data = as_data(X)
    params = _core_params(k, DEFAULT_METHOD, None, seed, DEFAULT_INIT, 1, DEFAULT_SCHEDULE,
                          DEFAULT_POLISH, DEFAULT_REFINE, n_threads)
    indices = _core.kmeans_plusplus(data, params, sample_weight=as_weights(sample_weight))
    return data[indices], indices


_FITTED = ("labels_", "centroids_", "objective_", "cluster_sizes_", "cluster_objectives_", "n_sweeps_",
           "converged_", "history_", "moves_", "restart_objectives_", "seed_", "n_features_in_")


class Clusterer:
    """A stateful k-means model: fit once, then predict and transform.

    Takes the same parameters as :func:`cluster`. After :meth:`fit` the
    attributes ``labels_``, ``centroids_``, ``objective_``, ``cluster_sizes_``,
    ``cluster_objectives_``, ``n_sweeps_``,
    ``converged_``, ``history_``, ``moves_``, ``restart_objectives_``,
    ``seed_``, ``n_features_in_`` and ``result_`` are set.

    The fit can also be driven one sweep at a time: :meth:`start` draws the
    starts, :meth:`step` advances every restart by one sweep (the fitted
    attributes then show the best restart so far) and :meth:`finish` runs to
    the end. Stepping to the end gives exactly what :meth:`fit` gives.

    Examples
    --------
    >>> import numpy as np, smartigan
    >>> X = np.array([[0.0], [0.2], [0.9], [4.0], [4.4], [5.0]])
    >>> model = smartigan.Clusterer(2, seed=1).start(X)
    >>> while model.step():
    ...     pass
    >>> model.labels_.tolist() == smartigan.Clusterer(2, seed=1).fit(X).labels_.tolist()
    True
    >>> model.predict([[0.1], [4.9]]).tolist() == [model.labels_[0], model.labels_[5]]
    True
    """

    def __init__(
        self,
        k: int,
        method: Method = DEFAULT_METHOD,  # type: ignore[assignment]
        n_iter: Optional[int] = None,
        seed: Optional[int] = None,
        *,
        init: InitArg = DEFAULT_INIT,
        n_init: NInit = DEFAULT_N_INIT,
        schedule: Tuple[float, float] = DEFAULT_SCHEDULE,
        polish: bool = DEFAULT_POLISH,
        refine: bool = DEFAULT_REFINE,
        n_threads: Optional[int] = None,
        tol: float = DEFAULT_TOL,
    ) -> None:
        self.k = k
        self.method = method
        self.n_iter = n_iter
        self.seed = seed
        self.init = init
        self.n_init = n_init
        self.schedule = schedule
        self.polish = polish
        self.refine = refine
        self.n_threads = n_threads
        self.tol = tol
        self._run: Any = None
        # Serialises fit/start/step/finish: a Clusterer shared between
        # threads then behaves as if the calls were made one after another.
        self._lock = threading.Lock()
        self.result_: Optional[ClusterResult] = None

    def _params(self) -> _core.Params:
        return _core_params(self.k, self.method, self.n_iter, self.seed, self.init, self.n_init,
                          self.schedule, self.polish, self.refine, self.n_threads, self.tol)

    def _set_result(self, out: dict[str, Any]) -> None:
        self.result_ = ClusterResult(**out)

    def __getattr__(self, name: str) -> Any:
        # Only reached when normal lookup fails: fitted attributes live in result_.
        if name in _FITTED:
            result = self.__dict__.get("result_")
            if result is None:
                raise NotFittedError(f"this Clusterer is not fitted yet; call fit(X) or start(X) first (no {name})")
            if name == "n_features_in_":
                # From the result itself, so it always matches centroids_.
                return int(result.centroids.shape[1])
            return getattr(result, name.rstrip("_"))
        raise AttributeError(f"'Clusterer' object has no attribute '{name}'")

    def fit(self, X: npt.ArrayLike, sample_weight: Optional[npt.ArrayLike] = None) -> "Clusterer":
        """Cluster ``X`` (see :func:`cluster`) and keep the result. Returns self."""
        params = self._params()
        with self._lock:
            self._run = None
            self._set_result(_fit(X, params, sample_weight))
        return self

    def fit_predict(self, X: npt.ArrayLike, sample_weight: Optional[npt.ArrayLike] = None) -> npt.NDArray[np.int64]:
        """Fit, then return ``labels_``."""
        return self.fit(X, sample_weight).labels_  # type: ignore[no-any-return]

    def start(self, X: npt.ArrayLike, sample_weight: Optional[npt.ArrayLike] = None) -> "Clusterer":
        """Draw every restart's start on ``X`` for step-wise fitting. Returns self.

        ``X`` is referenced, not copied (for float32/float64 C-ordered input):
        do not modify it until the run is finished. Sparse input is supported
        by :meth:`fit` but not step by step. Ctrl-C stops the drawing between
        two restarts' starts (``KeyboardInterrupt``; no run is kept).
        """
        if is_sparse(X):
            raise TypeError("step-wise fitting needs dense X; use fit() for sparse input, or X.toarray()")
        data = as_data(X)
        params, weights = self._params(), as_weights(sample_weight)
        with self._lock:
            self._run = _core.Run(data, params, sample_weight=weights)
            self._set_result(self._run.current())
        return self

    def _require_run(self) -> Any:
        if self._run is None:
            raise NotFittedError("no step-wise run in progress; call start(X) first")
        return self._run

    def step(self) -> bool:
        """Advance every unfinished restart by one sweep.

        Returns True while some restart is still running. The fitted
        attributes show the best restart so far.
        """
        with self._lock:
            run = self._require_run()
            running = bool(run.step())
            self._set_result(run.current())
            if not running:
                self._run = None
            return running

    def finish(self) -> "Clusterer":
        """Run the step-wise fit to its end. Returns self."""
        with self._lock:
            run = self._require_run()
            run.finish()
            self._set_result(run.current())
            self._run = None
        return self

    @property
    def running(self) -> bool:
        """Whether a step-wise run is in progress."""
        return self._run is not None

    def _apply(self, Y: Any, dense: Any, sparse: Any) -> Any:
        """Runs ``dense(Y, centroids)`` or ``sparse(*csr, centroids)`` after checking Y."""
        centroids = self.centroids_
        n_features = int(np.shape(Y)[1]) if is_sparse(Y) and len(np.shape(Y)) == 2 else None
        if n_features is None:
            data = as_data(Y, "Y")
            n_features = data.shape[1]
        if n_features != centroids.shape[1]:
            raise ValueError(
                f"Y has {n_features} features, but this Clusterer was fitted with {centroids.shape[1]} features"
            )
        if is_sparse(Y):
            return sparse(*as_csr(Y, "Y", centroids.dtype), centroids)
        return dense(data.astype(centroids.dtype, copy=False), centroids)

    def predict(self, Y: npt.ArrayLike) -> npt.NDArray[np.int64]:
        """Index of the nearest centroid for each row of ``Y`` (dense or sparse)."""
        return self._apply(Y, _core.predict, _core.predict_sparse)  # type: ignore[no-any-return]

    def transform(self, Y: npt.ArrayLike) -> FloatArray:
        """Euclidean distance from each row of ``Y`` to each centroid, shape (n, k)."""
        return self._apply(Y, _core.transform, _core.transform_sparse)  # type: ignore[no-any-return]

    def __getstate__(self) -> dict[str, Any]:
        if self._run is not None:
            raise TypeError("cannot pickle a Clusterer while a step-wise run is in progress; call finish() first")
        return {k: v for k, v in self.__dict__.items() if k not in ("_run", "_lock")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.__dict__.setdefault("tol", DEFAULT_TOL)  # pickled before tol existed
        self._run = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        params = ", ".join(f"{p}={getattr(self, p)!r}" for p in
                           ("k", "method", "n_iter", "seed", "init", "n_init", "schedule", "polish", "refine", "n_threads",
                            "tol"))
        return f"Clusterer({params})"
