"""The Python front end: type coercion, result objects and the stateful
:class:`Clusterer`. Every value check (ranges, allowed names, shapes, NaN)
happens once, in the Rust core; this module only turns Python objects into
the types the core takes and raises ``TypeError`` for objects of the wrong
kind."""

from __future__ import annotations

import numbers
import threading
from dataclasses import dataclass
from typing import Any, Literal, Optional, Sequence, Tuple, Union

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
DEFAULT_N_ITER: int = _core.DEFAULT_N_ITER
DEFAULT_N_INIT: int = _core.DEFAULT_N_INIT
DEFAULT_INIT: str = _core.DEFAULT_INIT
DEFAULT_SCHEDULE: Tuple[float, float] = tuple(_core.DEFAULT_SCHEDULE)  # type: ignore[assignment]

_I64 = 2**63


class NotFittedError(ValueError, AttributeError):
    """Raised when a fitted attribute or method is used before ``fit``."""


def as_data(X: Any, name: str = "X") -> FloatArray:
    """``X`` as a C-contiguous 2-d float32/float64 array.

    float32 and float64 C-contiguous arrays pass through without a copy;
    other layouts are copied, integer data becomes float64, and complex,
    boolean, float16, object and string data are rejected with ``TypeError``.
    """
    if hasattr(X, "toarray") and hasattr(X, "nnz"):
        raise TypeError(f"{name} is a sparse matrix; sparse input is not supported yet, pass {name}.toarray()")
    try:
        arr = np.asarray(X)
    except (ValueError, TypeError) as exc:
        raise TypeError(f"{name} could not be converted to a numeric array: {exc}") from None
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
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-d array (n_samples, n_features), got {arr.ndim}-d array of shape {arr.shape}")
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    return np.ascontiguousarray(arr)


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


def _core_args(
    k: Any,
    method: Any,
    n_iter: Any,
    seed: Any,
    init: Any,
    n_init: Any,
    schedule: Any,
    polish: Any,
    n_threads: Any,
) -> dict[str, Any]:
    """Keyword arguments for ``_core.fit``/``_core.Run``, with types checked."""
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
    if not isinstance(polish, (bool, np.bool_)):
        raise TypeError(f"polish must be True or False, got {polish!r}")
    return dict(
        k=_int_param("k", k),
        method=method,
        n_iter=_int_param("n_iter", n_iter),
        seed=_seed(seed),
        init=init_name,
        init_centroids=init_centroids,
        n_init=_int_param("n_init", n_init),
        schedule=(float(start), float(end)),
        polish=bool(polish),
        n_threads=None if n_threads is None else _int_param("n_threads", n_threads),
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
    n_sweeps : int
        Lloyd iterations or Hartigan/Smartigan sweeps of the best restart.
    converged : bool
        Whether the last sweep moved nothing, or moved points without
        lowering the objective (rounding noise, e.g. between clusters of
        identical points). For Hartigan and polished Smartigan: no single
        point can be moved to lower the objective by more than rounding error.
    history : ndarray of float64
        Objective after each sweep.
    moves : ndarray of int64
        Points moved in each sweep.
    initial_objective : float
        Objective of the best restart's starting partition.
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
    n_sweeps: int
    converged: bool
    history: npt.NDArray[np.float64]
    moves: npt.NDArray[np.int64]
    initial_objective: float
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
    n_iter: int = DEFAULT_N_ITER,
    seed: Optional[int] = None,
    *,
    init: InitArg = DEFAULT_INIT,
    n_init: int = DEFAULT_N_INIT,
    schedule: Tuple[float, float] = DEFAULT_SCHEDULE,
    polish: bool = True,
    n_threads: Optional[int] = None,
) -> ClusterResult:
    """Cluster the rows of ``X`` into ``k`` groups.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Real data. float32/float64 C-ordered arrays are used without a copy.
    k : int
        Number of clusters, ``1 <= k <= n_samples``.
    method : {"smartigan", "hartigan", "lloyd"}
        ``"lloyd"``: nearest-centroid iterations. ``"hartigan"``: single-point
        transfers in a random order each sweep. ``"smartigan"``: Hartigan with
        an acceptance factor falling along ``schedule`` (the paper's variant).
    n_iter : int
        Lloyd iterations / Hartigan sweeps at most; for Smartigan the length
        of the schedule.
    seed : int or None
        Seed in ``[0, 2**64)``. Same seed, data and version give bit-identical
        results for any ``n_threads``. ``None`` draws one (see ``result.seed``).
    init : {"k-means++", "random-partition", "forgy"} or array of shape (k, n_features)
        How each restart starts.
    n_init : int
        Independent restarts, run in parallel; the lowest objective wins.
    schedule : (float, float)
        Smartigan's acceptance factor at the first sweep and, in the limit, at
        sweep ``n_iter``: ``start - (start - end) * t / n_iter``.
    polish : bool
        Finish Smartigan with Hartigan sweeps until nothing moves.
    n_threads : int or None
        Threads for this call (default: all cores).

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
    data = as_data(X)
    out = _core.fit(data, **_core_args(k, method, n_iter, seed, init, n_init, schedule, polish, n_threads))
    return ClusterResult(**out)


_FITTED = ("labels_", "centroids_", "objective_", "n_sweeps_", "converged_", "history_", "moves_",
           "restart_objectives_", "seed_", "n_features_in_")


class Clusterer:
    """A stateful k-means model: fit once, then predict and transform.

    Takes the same parameters as :func:`cluster`. After :meth:`fit` the
    attributes ``labels_``, ``centroids_``, ``objective_``, ``n_sweeps_``,
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
        n_iter: int = DEFAULT_N_ITER,
        seed: Optional[int] = None,
        *,
        init: InitArg = DEFAULT_INIT,
        n_init: int = DEFAULT_N_INIT,
        schedule: Tuple[float, float] = DEFAULT_SCHEDULE,
        polish: bool = True,
        n_threads: Optional[int] = None,
    ) -> None:
        self.k = k
        self.method = method
        self.n_iter = n_iter
        self.seed = seed
        self.init = init
        self.n_init = n_init
        self.schedule = schedule
        self.polish = polish
        self.n_threads = n_threads
        self._run: Any = None
        # Serialises fit/start/step/finish: a Clusterer shared between
        # threads then behaves as if the calls were made one after another.
        self._lock = threading.Lock()
        self.result_: Optional[ClusterResult] = None

    def _args(self) -> dict[str, Any]:
        return _core_args(self.k, self.method, self.n_iter, self.seed, self.init, self.n_init,
                          self.schedule, self.polish, self.n_threads)

    def _set_result(self, out: dict[str, Any], n_features: int) -> None:
        self.result_ = ClusterResult(**out)
        self._n_features_in = n_features

    def __getattr__(self, name: str) -> Any:
        # Only reached when normal lookup fails: fitted attributes live in result_.
        if name in _FITTED:
            result = self.__dict__.get("result_")
            if result is None:
                raise NotFittedError(f"this Clusterer is not fitted yet; call fit(X) or start(X) first (no {name})")
            if name == "n_features_in_":
                # From the result itself, so it always matches centroids_.
                return result.centroids.shape[1]
            return getattr(result, name.rstrip("_"))
        raise AttributeError(f"'Clusterer' object has no attribute '{name}'")

    def fit(self, X: npt.ArrayLike) -> "Clusterer":
        """Cluster ``X`` (see :func:`cluster`) and keep the result. Returns self."""
        data = as_data(X)
        with self._lock:
            self._run = None
            self._set_result(_core.fit(data, **self._args()), data.shape[1])
        return self

    def fit_predict(self, X: npt.ArrayLike) -> npt.NDArray[np.int64]:
        """Fit, then return ``labels_``."""
        return self.fit(X).labels_  # type: ignore[no-any-return]

    def start(self, X: npt.ArrayLike) -> "Clusterer":
        """Draw every restart's start on ``X`` for step-wise fitting. Returns self.

        ``X`` is referenced, not copied (for float32/float64 C-ordered input):
        do not modify it until the run is finished.
        """
        data = as_data(X)
        with self._lock:
            self._run = _core.Run(data, **self._args())
            self._set_result(self._run.current(), data.shape[1])
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
            self._set_result(run.current(), self._n_features_in)
            if not running:
                self._run = None
            return running

    def finish(self) -> "Clusterer":
        """Run the step-wise fit to its end. Returns self."""
        with self._lock:
            run = self._require_run()
            run.finish()
            self._set_result(run.current(), self._n_features_in)
            self._run = None
        return self

    @property
    def running(self) -> bool:
        """Whether a step-wise run is in progress."""
        return self._run is not None

    def _check_new_data(self, Y: npt.ArrayLike) -> tuple[FloatArray, FloatArray]:
        centroids = self.centroids_
        data = as_data(Y, "Y")
        if data.shape[1] != centroids.shape[1]:
            raise ValueError(
                f"Y has {data.shape[1]} features, but this Clusterer was fitted with {centroids.shape[1]} features"
            )
        if data.dtype != centroids.dtype:
            data = data.astype(centroids.dtype)
        return data, centroids

    def predict(self, Y: npt.ArrayLike) -> npt.NDArray[np.int64]:
        """Index of the nearest centroid for each row of ``Y``."""
        data, centroids = self._check_new_data(Y)
        return _core.predict(data, centroids)

    def transform(self, Y: npt.ArrayLike) -> FloatArray:
        """Euclidean distance from each row of ``Y`` to each centroid, shape (n, k)."""
        data, centroids = self._check_new_data(Y)
        return _core.transform(data, centroids)

    def __getstate__(self) -> dict[str, Any]:
        if self._run is not None:
            raise TypeError("cannot pickle a Clusterer while a step-wise run is in progress; call finish() first")
        return {k: v for k, v in self.__dict__.items() if k not in ("_run", "_lock")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._run = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        params = ", ".join(f"{p}={getattr(self, p)!r}" for p in
                           ("k", "method", "n_iter", "seed", "init", "n_init", "schedule", "polish", "n_threads"))
        return f"Clusterer({params})"
