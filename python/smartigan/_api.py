"""The Python front end: :func:`cluster`, the stateful :class:`Clusterer`
and its result :class:`ClusterResult`.

:class:`Clusterer`'s signature is the parameter list of :func:`cluster`
(:data:`PARAMETERS`): its checks, its conversion to the core's parameter
object, ``repr`` and the scikit-learn estimator all read it. Both take
their defaults and the documentation of their parameters from the
parameter table (:mod:`smartigan._params`); :func:`cluster` fits a
Clusterer, as scikit-learn's ``k_means`` wraps ``KMeans``, and
tests/python/test_params.py keeps both signatures equal to the table. Data
are converted by :mod:`smartigan._arrays`; every value check of the core's
parameters (ranges, allowed names, shapes, NaN) happens once, in the Rust
core."""

from __future__ import annotations

import inspect
import math
import threading
from dataclasses import dataclass, fields
from typing import Any, Callable, Optional, Tuple, cast

import numpy as np
import numpy.typing as npt

from . import _core
from ._arrays import FloatArray, as_csr, as_data, as_points, as_weights, cast_to, is_sparse
from ._params import InitArg, InitName, Method, Metric, NInit, Tol, core_params, front_end

__all__ = [
    "ClusterResult",
    "Clusterer",
    "NotFittedError",
    "cluster",
    "kmeans_plusplus",
    "fit_stepwise",
    "PARAMETERS",
    "CLUSTER",
    "CLUSTERER",
    "KMEANS_PLUSPLUS",
    "Method",
    "InitName",
]


class NotFittedError(ValueError, AttributeError):
    """Raised when a fitted attribute or method is used before ``fit``."""


def same_value(a: Any, b: Any) -> bool:
    """Whether two fields of a result hold the same value: arrays of the same
    shape and dtype with equal elements (NaN equal to NaN), dicts and tuples
    element by element, anything else by ``==``. The equality of
    :class:`ClusterResult` and :class:`~smartigan.PathResult`."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)) or a.shape != b.shape or a.dtype != b.dtype:
            return False
        return bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_value(a[key], b[key]) for key in a)
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return bool(a == b)


def fields_equal(a: Any, b: Any) -> bool:
    """Whether two dataclass instances of the same class hold the same value in every field."""
    return all(same_value(getattr(a, f.name), getattr(b, f.name)) for f in fields(a))


@dataclass(frozen=True, eq=False)
class ClusterResult:
    """The outcome of :func:`cluster` (the best of all restarts).

    Attributes
    ----------
    labels : ndarray of int64, shape (n_samples,)
        Cluster of each point, in ``0..k``; no cluster is empty.
    centroids : ndarray, shape (k, n_features), dtype of X
        The mean of each cluster (``metric="cosine"``: its direction, the
        normalised sum of its rows' directions).
    objective : float
        Sum of squared distances to the centroids (``metric="cosine"``: of
        ``1 - cos``), recomputed from ``labels`` and ``centroids`` as
        returned.
    cluster_sizes : ndarray of int64, shape (k,)
        Points in each cluster (R's ``size``); all positive.
    cluster_objectives : ndarray of float64, shape (k,)
        Each cluster's share of ``objective`` from the same distances (R's
        ``withinss``); they add up to ``objective`` up to rounding.
    n_sweeps : int
        Lloyd iterations or Hartigan/Smartigan sweeps of the best restart
        (Smartigan: schedule and polishing sweeps), including the
        re-converging steps of merge-split refinement (``refine=True``).
    converged : bool
        Whether the last sweep moved nothing, or moved points without
        lowering the objective (rounding noise, e.g. between clusters of
        identical points) while no point had a move beating rounding
        error, or (with ``tol > 0``) lowered the objective by less than the
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
    schedule_start : float or None
        Smartigan: the acceptance factor of the best restart's first sweep.
        It is ``schedule[0]`` unless the schedule adapted to the data
        (larger problems with ``n_iter=None``), which lowers it where nearly
        every point would pass the relaxed test, so that the schedule
        explores instead of walking at random. None for Lloyd and Hartigan.
    metric : str
        The metric minimised, ``"euclidean"`` or ``"cosine"``.

    Results compare equal when every field is equal, arrays by value (NaN
    equal to NaN); they have no hash (arrays have none).
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
    # Last, with defaults: results pickled before they existed read these.
    schedule_start: Optional[float] = None
    metric: str = "euclidean"

    def __eq__(self, other: object) -> bool:
        """Field by field, arrays by value (see :func:`same_value`)."""
        if other.__class__ is not self.__class__:
            return NotImplemented
        return fields_equal(self, other)

    # Equal results must hash alike, and arrays have no hash: results have none.
    __hash__ = None  # type: ignore[assignment]

    @classmethod
    def _from_core(cls, result: _core.Clustering) -> "ClusterResult":
        """The core's result object, field by field (the two have the same fields)."""
        return cls(**{field.name: getattr(result, field.name) for field in fields(cls)})

    def __repr__(self) -> str:
        k, d = self.centroids.shape
        return (
            f"ClusterResult(objective={self.objective:.6g}, k={k}, n_features={d}, "
            f"n_samples={self.labels.shape[0]}, n_sweeps={self.n_sweeps}, converged={self.converged}, "
            f"n_init={self.restart_objectives.shape[0]}, seed={self.seed})"
        )


#: The parameters of :func:`cluster`, and of :class:`Clusterer` (the same, without the data).
CLUSTER = front_end("smartigan.cluster", "X", "k", "method", "n_iter", "seed", "init", "metric", "n_init", "schedule",
                    "polish", "refine", "n_threads", "sample_weight", "tol")
CLUSTERER = front_end("smartigan.Clusterer", *(p for p in CLUSTER.parameters if p.name not in ("X", "sample_weight")))


@CLUSTER.document
def cluster(
    X: npt.ArrayLike,
    k: int,
    method: Method = CLUSTER["method"].default,
    n_iter: Optional[int] = CLUSTER["n_iter"].default,
    seed: Optional[int] = CLUSTER["seed"].default,
    *,
    init: InitArg = CLUSTER["init"].default,
    metric: Metric = CLUSTER["metric"].default,
    n_init: NInit = CLUSTER["n_init"].default,
    schedule: Tuple[float, float] = CLUSTER["schedule"].default,
    polish: bool = CLUSTER["polish"].default,
    refine: bool = CLUSTER["refine"].default,
    n_threads: Optional[int] = CLUSTER["n_threads"].default,
    sample_weight: Optional[npt.ArrayLike] = CLUSTER["sample_weight"].default,
    tol: Tol = CLUSTER["tol"].default,
) -> ClusterResult:
    """Cluster the rows of ``X`` into ``k`` groups.

    Parameters
    ----------
    {parameters}

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
    model = Clusterer(k, method, n_iter, seed, init=init, metric=metric, n_init=n_init, schedule=schedule, polish=polish,
                      refine=refine, n_threads=n_threads, tol=tol)
    return model.fit(X, sample_weight)._result()


KMEANS_PLUSPLUS = front_end("smartigan.kmeans_plusplus", "X", "k", "seed", "sample_weight", "n_threads", notes={
    "seed": 'The rows chosen are the start of restart 0 of ``cluster(X, k, seed=seed)`` with '
            '``init="k-means++"``.',
    "sample_weight": "Here rows are drawn by weight times squared distance, so a row of weight 0 is never chosen.",
})


@KMEANS_PLUSPLUS.document
def kmeans_plusplus(
    X: npt.ArrayLike,
    k: int,
    seed: Optional[int] = KMEANS_PLUSPLUS["seed"].default,
    *,
    sample_weight: Optional[npt.ArrayLike] = KMEANS_PLUSPLUS["sample_weight"].default,
    n_threads: Optional[int] = KMEANS_PLUSPLUS["n_threads"].default,
) -> Tuple[FloatArray, npt.NDArray[np.int64]]:
    """Greedy k-means++ centres, without clustering (as scikit-learn's ``kmeans_plusplus``).

    Each centre after the first is the best, by the potential it leaves, of
    ``2 + floor(ln k)`` rows drawn with probability proportional to their
    (weighted) squared distance to the nearest centre so far.

    Parameters
    ----------
    {parameters}

    Returns
    -------
    centers : ndarray of shape (k, n_features)
        The chosen rows, dense, in ``X``'s dtype (float32 or float64).
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
    points = as_points(X)
    params = core_params(k=k, seed=seed, n_init=1, n_threads=n_threads)
    indices = _core.kmeans_plusplus(points, params, sample_weight=as_weights(sample_weight))
    if isinstance(points, _core.CsrMatrix):
        sparse_rows: Any = X
        rows = np.asarray(sparse_rows.tocsr()[indices].toarray())
        return cast(FloatArray, rows.astype(np.float32 if rows.dtype == np.float32 else np.float64)), indices
    return points[indices], indices


_FITTED = ("labels_", "centroids_", "objective_", "cluster_sizes_", "cluster_objectives_", "n_sweeps_",
           "converged_", "history_", "moves_", "restart_objectives_", "seed_", "n_features_in_")


@CLUSTERER.document
class Clusterer:
    """A stateful k-means model: fit once, then predict and transform.

    Takes the parameters of :func:`cluster` but the data. After :meth:`fit`
    the attributes ``labels_``, ``centroids_``, ``objective_``,
    ``cluster_sizes_``, ``cluster_objectives_``, ``n_sweeps_``,
    ``converged_``, ``history_``, ``moves_``, ``restart_objectives_``,
    ``seed_``, ``n_features_in_`` and ``result_`` are set.

    The fit can also be driven one sweep at a time: :meth:`start` draws the
    starts, :meth:`step` advances every restart by one sweep (the fitted
    attributes then show the best restart so far) and :meth:`finish` runs to
    the end. Stepping to the end gives exactly what :meth:`fit` gives.

    Parameters
    ----------
    {parameters}

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
        method: Method = CLUSTERER["method"].default,
        n_iter: Optional[int] = CLUSTERER["n_iter"].default,
        seed: Optional[int] = CLUSTERER["seed"].default,
        *,
        init: InitArg = CLUSTERER["init"].default,
        metric: Metric = CLUSTERER["metric"].default,
        n_init: NInit = CLUSTERER["n_init"].default,
        schedule: Tuple[float, float] = CLUSTERER["schedule"].default,
        polish: bool = CLUSTERER["polish"].default,
        refine: bool = CLUSTERER["refine"].default,
        n_threads: Optional[int] = CLUSTERER["n_threads"].default,
        tol: Tol = CLUSTERER["tol"].default,
    ) -> None:
        self.k = k
        self.method = method
        self.n_iter = n_iter
        self.seed = seed
        self.init = init
        self.metric = metric
        self.n_init = n_init
        self.schedule = schedule
        self.polish = polish
        self.refine = refine
        self.n_threads = n_threads
        self.tol = tol
        self._run: Optional[_core.Run] = None
        # Serialises fit/start/step/finish: a Clusterer shared between
        # threads then behaves as if the calls were made one after another.
        self._lock = threading.Lock()
        self.result_: Optional[ClusterResult] = None

    def _params(self) -> _core.Params:
        return core_params(**{name: getattr(self, name) for name in PARAMETERS})

    def _set_result(self, result: _core.Clustering) -> None:
        self.result_ = ClusterResult._from_core(result)

    def _result(self) -> ClusterResult:
        """``result_``, or NotFittedError before a fit."""
        if self.result_ is None:
            raise NotFittedError("this Clusterer is not fitted yet; call fit(X) or start(X) first")
        return self.result_

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
            weights = as_weights(sample_weight)
            self._set_result(_core.fit(as_points(X), params, sample_weight=weights))
        return self

    def fit_predict(self, X: npt.ArrayLike, sample_weight: Optional[npt.ArrayLike] = None) -> npt.NDArray[np.int64]:
        """Fit, then return ``labels_``."""
        return self.fit(X, sample_weight).labels_  # type: ignore[no-any-return]

    def start(self, X: npt.ArrayLike, sample_weight: Optional[npt.ArrayLike] = None) -> "Clusterer":
        """Draw every restart's start on ``X`` for step-wise fitting. Returns self.

        ``X`` (dense or sparse) is referenced, not copied (for float32/float64
        C-ordered input, and CSR input in canonical form): do not modify it
        until the run is finished. Ctrl-C stops the drawing between two
        restarts' starts (``KeyboardInterrupt``; no run is kept).
        """
        data = as_points(X)
        params, weights = self._params(), as_weights(sample_weight)
        with self._lock:
            self._run = _core.Run(data, params, sample_weight=weights)
            self._set_result(self._run.current())
        return self

    def _require_run(self) -> _core.Run:
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

    def _apply(self, Y: Any, operation: Callable[[Any, FloatArray, str], Any]) -> Any:
        """``operation(Y, centroids, metric)`` (``_core.predict`` or ``_core.transform``) after checking ``Y``."""
        centroids, metric = self.centroids_, self._result().metric
        n_features = int(np.shape(Y)[1]) if is_sparse(Y) and len(np.shape(Y)) == 2 else None
        if n_features is None:
            data = as_data(Y, "Y")
            n_features = data.shape[1]
        if n_features != centroids.shape[1]:
            raise ValueError(
                f"Y has {n_features} features, but this Clusterer was fitted with {centroids.shape[1]} features"
            )
        if is_sparse(Y):
            return operation(as_csr(Y, "Y", centroids.dtype), centroids, metric)
        return operation(cast_to(data, centroids.dtype, "Y"), centroids, metric)

    def predict(self, Y: npt.ArrayLike) -> npt.NDArray[np.int64]:
        """Index of the nearest centroid for each row of ``Y`` (dense or sparse); by the
        largest cosine for a fit with ``metric="cosine"``."""
        return self._apply(Y, _core.predict)  # type: ignore[no-any-return]

    def transform(self, Y: npt.ArrayLike) -> FloatArray:
        """Distance from each row of ``Y`` to each centroid, shape (n, k): Euclidean, or
        ``1 - cos`` for a fit with ``metric="cosine"``."""
        return self._apply(Y, _core.transform)  # type: ignore[no-any-return]

    def __getstate__(self) -> dict[str, Any]:
        if self._run is not None:
            raise TypeError("cannot pickle a Clusterer while a step-wise run is in progress; call finish() first")
        return {k: v for k, v in self.__dict__.items() if k not in ("_run", "_lock")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for name in ("tol", "metric"):  # pickled before they existed
            self.__dict__.setdefault(name, CLUSTERER[name].default)
        self._run = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        params = ", ".join(f"{name}={getattr(self, name)!r}" for name in PARAMETERS)
        return f"Clusterer({params})"


#: The parameters of :class:`Clusterer` (and :func:`cluster`), in the order of its signature.
PARAMETERS: Tuple[str, ...] = tuple(inspect.signature(Clusterer).parameters)


def fit_stepwise(model: Clusterer, X: Any, report: Callable[[int, Clusterer], None],
                 sample_weight: Any = None) -> ClusterResult:
    """Fits ``model`` on ``X`` one sweep at a time, calling ``report(sweep, model)``
    after the starts are drawn (sweep 0) and after every sweep but the last;
    the fitted attributes then show the best restart so far. The result is
    bit-for-bit that of ``model.fit(X, sample_weight)``.

    >>> import numpy as np
    >>> X = np.array([[0.0], [0.2], [4.0], [4.4]])
    >>> lowest = []
    >>> result = fit_stepwise(Clusterer(2, seed=0), X, lambda sweep, m: lowest.append(m.objective_))
    >>> result.objective == Clusterer(2, seed=0).fit(X).objective_ and len(lowest) >= 1
    True
    """
    model.start(X, sample_weight=sample_weight)
    report(0, model)
    sweep = 0
    while model.step():
        sweep += 1
        report(sweep, model)
    return model._result()
