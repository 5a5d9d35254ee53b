"""A scikit-learn compatible estimator: :class:`smartigan.sklearn.KMeans`.

Install the optional dependency with ``pip install smartigan[sklearn]``.
The estimator follows scikit-learn's conventions (``fit``/``predict``/
``transform``, fitted attributes ending in ``_``, ``random_state``), so it
works in :class:`~sklearn.pipeline.Pipeline`, :class:`~sklearn.model_selection.GridSearchCV`,
:func:`~sklearn.base.clone` and with :mod:`pickle`. Importing :mod:`smartigan`
does not import scikit-learn; only importing this module does.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

try:
    import scipy.sparse as _sparse  # type: ignore[import-untyped,unused-ignore]
    from sklearn.base import (  # type: ignore[import-untyped,unused-ignore]
        BaseEstimator,
        ClassNamePrefixFeaturesOutMixin,
        ClusterMixin,
        TransformerMixin,
    )
    from sklearn.utils.validation import check_is_fitted  # type: ignore[import-untyped,unused-ignore]
except ImportError as _import_error:  # pragma: no cover - exercised only without scikit-learn
    raise ImportError(
        "smartigan.sklearn needs scikit-learn; install it with `pip install 'smartigan[sklearn]'` "
        f"(or `pip install scikit-learn`). Original error: {_import_error}"
    ) from _import_error

try:  # scikit-learn >= 1.6
    from sklearn.utils.validation import validate_data as _validate_data  # type: ignore[import-untyped,unused-ignore]
except ImportError:  # pragma: no cover - scikit-learn < 1.6

    def _validate_data(estimator: Any, X: Any, *, reset: bool = True, **kwargs: Any) -> Any:
        return estimator._validate_data(X, reset=reset, **kwargs)


from . import _api, _core, _params, _path
from ._arrays import FloatArray, as_points, as_weights, check_sparse_structure, check_weight_values, is_sparse
from ._checks import choice, flag, integer

__all__ = ["KMeans"]

# The core's names, and scikit-learn's "random" for Forgy.
_NAMED_INITS = _params.INITS + ("random",)
# scikit-learn's `algorithm` values: both name an implementation of Lloyd's algorithm.
_SKLEARN_ALGORITHMS = ("lloyd", "elkan")

_FLOATS = [np.float64, np.float32]


def _method(name: str, value: Any) -> Optional[str]:
    return None if value is None else _params.PARAMETERS["method"].validate(value)


def _init(name: str, value: Any) -> Any:
    """A named init, a callable, or centroids as an array."""
    if isinstance(value, str):
        return choice(name, value, _NAMED_INITS)
    return value if callable(value) else _params.PARAMETERS["init"].validate(value)


def _verbose(name: str, value: Any) -> int:
    return integer(name, int(value) if isinstance(value, (bool, np.bool_)) else value, least=0)


_P = _params.PARAMETERS

#: The estimator's parameters: the table's, under scikit-learn's names where
#: it has its own, and those of the estimator alone.
KMEANS = _params.front_end(
    "smartigan.sklearn.KMeans",
    _path.AUTO_N_CLUSTERS,
    _P["method"].but(type='{"smartigan", "hartigan", "lloyd"} or None', default=None, check=_method),
    _P["init"].but(type='{"k-means++", "random", "forgy", "random-partition"}, array of shape '
                        "(n_clusters, n_features) or callable", check=_init),
    "metric",
    "n_init",
    "max_iter",
    "random_state",
    "n_threads",
    "schedule",
    "polish",
    "refine",
    "tol",
    "size_min",
    "size_max",
    _params.Parameter(
        "verbose", "int", 0,
        "``0``: silent; otherwise progress goes to standard output.",
        "The lowest objective among the restarts after the starts and after every sweep (the fit is then "
        "stepped, with exactly the result of a silent fit), then how it ended. Sparse ``X`` cannot be "
        "stepped and prints the end only.", check=_verbose),
    _params.Parameter(
        "copy_x", "bool", True,
        "Accepted for scikit-learn compatibility; either value is honoured, since ``X`` is never modified.",
        "scikit-learn's ``copy_x=False`` allows centring ``X`` in place; here the data are only read.",
        check=flag),
    _params.Parameter(
        "algorithm", '{"lloyd", "elkan"} or None', None,
        "scikit-learn's choice between two implementations of Lloyd's algorithm, accepted so that code "
        "written for it runs unchanged.",
        'Either value fits with ``method="lloyd"`` (the same iterations; this Lloyd is exact and '
        "accelerated by bounds, like Elkan's). ``None`` leaves the choice to ``method``. Given together "
        'with a ``method`` other than ``"lloyd"`` it raises ``ValueError``.',
        check=lambda name, value: choice(name, value, _SKLEARN_ALGORITHMS + (None,))),
    _path.K_RANGE,
    _path.CRITERION,
    notes={
        "n_clusters": '``"auto"`` chooses it: one :func:`smartigan.cluster_path` call fits every k of '
                      "``k_range``, ``criterion`` suggests one, and that k's solution of the path is the fitted "
                      "model (``n_clusters_`` and ``path_`` say which k and why; see docs/choosing-k.md).",
        "method": '``None``: ``"smartigan"``, or ``"lloyd"`` when ``algorithm`` is given.',
        "init": '``"random"`` (scikit-learn\'s name) is ``"forgy"``. A callable is called once as '
                "``init(X, n_clusters, random_state)`` and must return the centroids.",
        "n_init": '``"auto"`` means 1 for an array or callable ``init``, as in scikit-learn. With '
                  '``n_clusters="auto"`` an integer or ``"best"`` also fits every k of ``k_range`` so (see '
                  ":func:`smartigan.cluster_path`).",
    },
)


def _print_progress(sweep: int, model: _api.Clusterer) -> None:
    """``verbose`` output: the lowest objective among the restarts after the
    starts (sweep 0) and after every sweep."""
    if sweep == 0:
        restarts = len(model.restart_objectives_)
        started = "1 restart" if restarts == 1 else f"{restarts} restarts"
        print(f"initialization complete: {started} started, lowest objective {model.objective_:.10g}")
    else:
        # Smartigan's early sweeps may raise it: they explore.
        print(f"sweep {sweep}: lowest objective among the restarts {model.objective_:.10g}")


@KMEANS.document
class KMeans(ClassNamePrefixFeaturesOutMixin, TransformerMixin, ClusterMixin, BaseEstimator):  # type: ignore[misc,unused-ignore]
    """K-means clustering with Lloyd, Hartigan or Smartigan, scikit-learn style.

    A drop-in replacement for :class:`sklearn.cluster.KMeans` whose default
    method, Smartigan (Clément & Steinerberger), reaches lower objectives
    than Lloyd's algorithm. See ``docs/migration.md`` for the parameter
    mapping.

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
        Centroids, in the dtype of the training data (float32 or float64).
    labels_ : ndarray of int64, shape (n_samples,)
        Cluster of each training point; no cluster is empty.
    inertia_ : float
        Sum of (weighted) squared distances of the training points to their
        centroids (``metric="cosine"``: of ``1 - cos``).
    n_iter_ : int
        Iterations or sweeps of the best restart, including those of
        merge-split refinement.
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of str, one per feature
        Column names seen during ``fit``; only set when ``X`` has string
        column names (a pandas DataFrame, for example).
    seed_ : int
        The seed used; ``random_state=seed_`` repeats the fit exactly.
    converged_ : bool
        Whether the best restart's last sweep moved no point.
    history_ : ndarray of float64
        Inertia after each sweep of the best restart.
    n_clusters_ : int
        The number of clusters fitted: ``n_clusters``, or the k chosen by
        ``criterion`` with ``n_clusters="auto"``.
    path_ : smartigan.PathResult or None
        With ``n_clusters="auto"``, the path over ``k_range`` with its
        objectives, the criterion's values and suggestion; else None.


    Examples
    --------
    >>> import numpy as np
    >>> from smartigan.sklearn import KMeans
    >>> X = np.array([[1.0, 2.0], [1.0, 4.0], [1.0, 0.0],
    ...               [10.0, 2.0], [10.0, 4.0], [10.0, 0.0]])
    >>> km = KMeans(n_clusters=2, random_state=0).fit(X)
    >>> bool(km.labels_[0] == km.labels_[1] == km.labels_[2] != km.labels_[3])
    True
    >>> km.predict([[0.0, 0.0], [12.0, 3.0]]).tolist() == [km.labels_[0], km.labels_[3]]
    True
    >>> float(km.inertia_)
    16.0
    >>> km.get_feature_names_out().tolist()
    ['kmeans0', 'kmeans1']

    Choosing k (four groups of points):

    >>> rng = np.random.default_rng(0)
    >>> blobs = np.repeat([[0, 0], [8, 0], [0, 8], [8, 8]], 40, axis=0) + rng.normal(size=(160, 2))
    >>> auto = KMeans(n_clusters="auto", k_range=(2, 8), random_state=0).fit(blobs)
    >>> auto.n_clusters_, auto.cluster_centers_.shape
    (4, (4, 2))
    """

    def __init__(
        self,
        n_clusters: Union[int, str] = KMEANS["n_clusters"].default,
        *,
        method: Optional[str] = KMEANS["method"].default,
        init: Union[str, npt.ArrayLike, Callable[..., Any]] = KMEANS["init"].default,
        metric: _params.Metric = KMEANS["metric"].default,
        n_init: Union[int, str] = KMEANS["n_init"].default,
        max_iter: Optional[int] = KMEANS["max_iter"].default,
        random_state: Union[int, np.random.RandomState, np.random.Generator, None] = KMEANS["random_state"].default,
        n_threads: Optional[int] = KMEANS["n_threads"].default,
        schedule: Tuple[float, float] = KMEANS["schedule"].default,
        polish: bool = KMEANS["polish"].default,
        refine: bool = KMEANS["refine"].default,
        tol: _params.Tol = KMEANS["tol"].default,
        size_min: _params.SizeBound = KMEANS["size_min"].default,
        size_max: _params.SizeBound = KMEANS["size_max"].default,
        verbose: int = KMEANS["verbose"].default,
        copy_x: bool = KMEANS["copy_x"].default,
        algorithm: Optional[str] = KMEANS["algorithm"].default,
        k_range: Union[Tuple[int, int], range, Sequence[int]] = KMEANS["k_range"].default,
        criterion: str = KMEANS["criterion"].default,
    ) -> None:
        self.n_clusters = n_clusters
        self.method = method
        self.init = init
        self.metric = metric
        self.n_init = n_init
        self.max_iter = max_iter
        self.random_state = random_state
        self.n_threads = n_threads
        self.schedule = schedule
        self.polish = polish
        self.refine = refine
        self.tol = tol
        self.size_min = size_min
        self.size_max = size_max
        self.verbose = verbose
        self.copy_x = copy_x
        self.algorithm = algorithm
        self.k_range = k_range
        self.criterion = criterion

    # -- tags ---------------------------------------------------------------

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        tags.input_tags.sparse = True
        return tags

    def _more_tags(self) -> dict[str, Any]:  # scikit-learn < 1.6
        return {"preserves_dtype": [np.float64, np.float32]}

    # -- fitting ------------------------------------------------------------

    def _resolve_init(self, init: Any, X: np.ndarray, seed: int) -> Tuple[Any, bool]:
        """The core's ``init`` argument for the checked ``init``, and whether it is explicit centroids."""
        if isinstance(init, str):
            return ("forgy" if init == "random" else init), False
        if callable(init):
            init = init(X, self.n_clusters, np.random.RandomState(seed % 2**32))
        centers = np.asarray(init, dtype=np.float64)
        if centers.shape != (self.n_clusters, X.shape[1]):
            raise ValueError(
                f"init array has shape {centers.shape}, expected (n_clusters, n_features) = "
                f"({self.n_clusters}, {X.shape[1]})"
            )
        return centers, True

    def fit(self, X: npt.ArrayLike, y: Any = None, sample_weight: Optional[npt.ArrayLike] = None) -> "KMeans":
        """Compute the clustering.

        Parameters
        ----------
        X : array-like or SciPy sparse matrix of shape (n_samples, n_features)
            Training data. float32 stays float32; other real types become
            float64. A sparse matrix (CSR; other formats are converted) is
            clustered without densifying it; the centroids come back dense.
        y : Ignored
            Present for API consistency.
        sample_weight : array-like of shape (n_samples,) or None
            Non-negative weight of each row: centroids are weighted means and
            ``inertia_`` is the weighted objective.

        Returns
        -------
        self : KMeans
            The fitted estimator.

        Raises
        ------
        TypeError
            For parameters or weights of the wrong kind (checked as every
            front end checks them, see :mod:`smartigan._params`).
        ValueError
            For parameter values out of range, NaN/infinite data, fewer
            samples than clusters, or invalid weights (wrong shape, negative,
            all zero).

        Examples
        --------
        >>> import numpy as np
        >>> from smartigan.sklearn import KMeans
        >>> X = np.array([[0.0], [0.5], [9.0], [9.5]])
        >>> km = KMeans(n_clusters=2, random_state=3).fit(X)
        >>> sorted(km.cluster_centers_.ravel().tolist())
        [0.25, 9.25]
        """
        check_sparse_structure(X)  # before scikit-learn converts it with SciPy
        data: Any = _validate_data(self, X, dtype=_FLOATS, order="C", accept_sparse="csr",
                                   ensure_min_samples=1)
        checked = KMEANS.check(self.get_params(deep=False))
        ks = checked["k_range"] if checked["n_clusters"] == "auto" else None
        n_clusters = ks[-1] if ks is not None else checked["n_clusters"]
        n_samples = data.shape[0]
        if n_samples < n_clusters:
            what = "the largest k of k_range" if ks is not None else "n_clusters"
            raise ValueError(f"n_samples={n_samples} should be >= {what}={n_clusters}.")
        weights = as_weights(sample_weight, n_samples)
        if weights is not None:
            check_weight_values(weights, some_positive=True)
        if ks is not None and (checked["size_min"] is not None or checked["size_max"] is not None):
            raise ValueError("size_min and size_max need a fixed n_clusters: n_clusters='auto' fits a path over "
                             "k_range, whose solutions no size bound survives")
        if ks is not None and not isinstance(checked["init"], str):
            raise ValueError("n_clusters='auto' needs a named init ('k-means++', 'random', 'random-partition'); "
                             "an array or callable init fixes the number of clusters")
        seed = checked["random_state"]
        init, explicit = self._resolve_init(checked["init"], data, seed)
        # scikit-learn's n_init="auto": one start where the centroids are given.
        n_init = 1 if explicit and self.n_init == "auto" else self.n_init
        # The parameters named as in Clusterer pass through as given, but for
        # those resolved above.
        settings = {name: getattr(self, name) for name in _api.PARAMETERS if name in KMEANS.names}
        settings.update(k=n_clusters, method=self._resolve_method(), n_iter=self.max_iter, seed=seed, init=init,
                        n_init=n_init)
        self.path_: Optional[_path.PathResult] = None
        if ks is not None:
            result = self._fit_auto(data, ks, settings, weights, checked["verbose"])
        else:
            result = self._fit_one(data, settings, weights, checked["verbose"])
        self.n_clusters_ = int(result.centroids.shape[0])
        self.cluster_centers_: FloatArray = result.centroids
        self.labels_: npt.NDArray[np.int64] = result.labels
        self.inertia_ = float(result.objective)
        # predict, transform and score use the metric fitted, whatever set_params changes later.
        self._fitted_metric = result.metric
        self.n_iter_ = int(result.n_sweeps)
        self.seed_ = int(result.seed)
        self.converged_ = bool(result.converged)
        self.history_ = result.history
        return self

    def _fit_one(self, data: Any, settings: dict[str, Any], weights: Any, verbose: int) -> _api.ClusterResult:
        """The fit at one k (``settings`` as :class:`smartigan.Clusterer` takes them)."""
        model = _api.Clusterer(**settings)
        if verbose and not is_sparse(data):
            result = _api.fit_stepwise(model, data, _print_progress, sample_weight=weights)
        else:
            result = model.fit(data, sample_weight=weights)._result()
        if verbose:
            ended = "converged" if result.converged else "stopped at the sweep limit"
            print(f"{ended} after {result.n_sweeps} sweeps of the best restart "
                  f"(#{result.best_restart}); objective {result.objective:.10g}")
        return result

    def _fit_auto(self, data: Any, ks: Tuple[int, ...], settings: dict[str, Any], weights: Any,
                  verbose: int) -> _api.ClusterResult:
        """``n_clusters="auto"``: the path over ``ks``, and its solution at the k ``criterion`` suggests."""
        criterion = self.criterion
        settings = {name: value for name, value in settings.items() if name not in ("k", "size_min", "size_max")}
        path = _path.cluster_path(data, ks, criteria=(criterion,), sample_weight=weights, **settings)
        suggested = _path.chosen_k(path, criterion, stacklevel=3)
        if verbose:
            print(f"{criterion} suggests k={path.suggested[criterion]} in {ks[0]}..{ks[-1]}; fitted k={suggested}")
        self.path_ = path
        return path.result(suggested)

    def _resolve_method(self) -> Any:
        """The method to fit with, from the checked ``method`` and ``algorithm``
        (the method's own value is checked by the core, naming it)."""
        method, algorithm = self.method, self.algorithm
        if algorithm is None:
            return _params.DEFAULT_METHOD if method is None else method
        if method is not None and method != "lloyd":
            raise ValueError(f"algorithm={algorithm!r} asks for Lloyd's algorithm but method={method!r}; "
                             "give one of them, or method='lloyd'")
        return "lloyd"

    def fit_predict(self, X: npt.ArrayLike, y: Any = None, sample_weight: Optional[npt.ArrayLike] = None) -> npt.NDArray[np.int64]:
        """Fit, then return the cluster of each training point (``labels_``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data.
        y : Ignored
            Present for API consistency.
        sample_weight : array-like of shape (n_samples,) or None
            See :meth:`fit`.

        Returns
        -------
        labels : ndarray of int64, shape (n_samples,)

        Examples
        --------
        >>> from smartigan.sklearn import KMeans
        >>> labels = KMeans(n_clusters=2, random_state=0).fit_predict([[0.0], [0.1], [5.0], [5.1]])
        >>> bool(labels[0] == labels[1] != labels[2] == labels[3])
        True
        """
        labels: npt.NDArray[np.int64] = self.fit(X, sample_weight=sample_weight).labels_
        return labels

    # -- using a fitted model -------------------------------------------------

    def _test_data(self, X: npt.ArrayLike) -> Tuple[Any, np.ndarray]:
        check_is_fitted(self)
        check_sparse_structure(X)
        data: Any = _validate_data(self, X, dtype=_FLOATS, order="C", accept_sparse="csr", reset=False)
        centers: np.ndarray = self.cluster_centers_
        dtype = np.result_type(data.dtype, centers.dtype)
        if _sparse.issparse(data):
            return data.astype(dtype), np.ascontiguousarray(centers, dtype=dtype)
        return (np.ascontiguousarray(data, dtype=dtype), np.ascontiguousarray(centers, dtype=dtype))

    def _metric_fitted(self) -> str:
        # Estimators pickled before the metric existed were fitted by the Euclidean loss.
        return str(self.__dict__.get("_fitted_metric", "euclidean"))

    def _nearest(self, data: Any, centers: np.ndarray) -> npt.NDArray[np.int64]:
        return _core.predict(as_points(data), centers, self._metric_fitted())

    def predict(self, X: npt.ArrayLike) -> npt.NDArray[np.int64]:
        """Index of the nearest centroid for each row of ``X`` (for a fit with
        ``metric="cosine"``, of the largest cosine).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            New data.

        Returns
        -------
        labels : ndarray of int64, shape (n_samples,)

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before ``fit``.
        ValueError
            If ``X`` has a different number of features than the training
            data, or (``metric="cosine"``) a row of length zero.

        Examples
        --------
        >>> from smartigan.sklearn import KMeans
        >>> km = KMeans(n_clusters=2, random_state=0).fit([[0.0], [0.1], [5.0], [5.1]])
        >>> km.predict([[0.2], [4.0]]).tolist() == [km.labels_[0], km.labels_[2]]
        True
        """
        data, centers = self._test_data(X)
        return self._nearest(data, centers)

    def transform(self, X: npt.ArrayLike) -> np.ndarray:
        """Euclidean distance from each row of ``X`` to each centroid (for a
        fit with ``metric="cosine"``, the cosine distance ``1 - cos``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            New data.

        Returns
        -------
        distances : ndarray of shape (n_samples, n_clusters)
            In float32 if both ``X`` and the training data were float32,
            float64 otherwise.

        Examples
        --------
        >>> from smartigan.sklearn import KMeans
        >>> km = KMeans(n_clusters=2, random_state=0).fit([[0.0], [2.0], [10.0], [12.0]])
        >>> sorted(km.transform([[1.0]]).ravel().tolist())
        [0.0, 10.0]
        """
        data, centers = self._test_data(X)
        return _core.transform(as_points(data), centers, self._metric_fitted())

    def score(self, X: npt.ArrayLike, y: Any = None, sample_weight: Optional[npt.ArrayLike] = None) -> float:
        """Opposite of the (weighted) k-means objective of ``X`` on the centroids
        (for a fit with ``metric="cosine"``, of the spherical one).

        Higher is better, as scikit-learn's model selection expects.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            New data.
        y : Ignored
            Present for API consistency.
        sample_weight : array-like of shape (n_samples,) or None
            Non-negative weights of the rows, checked as in :meth:`fit`
            (a wrong shape, NaN, infinite or negative weights raise
            ``ValueError``), except that all may be zero here.

        Returns
        -------
        score : float
            ``-sum(w_i * min_j ||x_i - c_j||^2)``; with ``metric="cosine"``,
            ``-sum(w_i * min_j (1 - cos(x_i, c_j)))``.

        Examples
        --------
        >>> from smartigan.sklearn import KMeans
        >>> km = KMeans(n_clusters=2, random_state=0).fit([[0.0], [2.0], [10.0], [12.0]])
        >>> km.score([[0.0], [2.0], [10.0], [12.0]]) == -km.inertia_
        True
        >>> km.score([[3.0]])
        -4.0
        """
        data, centers = self._test_data(X)
        labels = self._nearest(data, centers)
        if self._metric_fitted() == "cosine":
            sq = _cosine_losses(data, centers, labels)
        elif _sparse.issparse(data):
            # ‖x − c‖² = ‖x‖² − 2·x·c + ‖c‖², without densifying x.
            c = centers.astype(np.float64)[labels]
            x = data.astype(np.float64)
            sq = (np.asarray(x.multiply(x).sum(axis=1)).ravel() - 2 * np.asarray(x.multiply(c).sum(axis=1)).ravel()
                  + np.einsum("ij,ij->i", c, c))
            sq = np.maximum(sq, 0.0)
        else:
            diff = data.astype(np.float64) - centers.astype(np.float64)[labels]
            sq = np.einsum("ij,ij->i", diff, diff)
        weights = as_weights(sample_weight, data.shape[0])
        if weights is not None:
            sq = sq * check_weight_values(weights)
        return -float(sq.sum())

    @property
    def _n_features_out(self) -> int:
        """Number of output features of ``transform`` (one per cluster)."""
        return int(self.cluster_centers_.shape[0])


def _cosine_losses(data: Any, centers: np.ndarray, labels: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
    """``1 - cos`` of every row of ``data`` (dense or CSR) and its centroid, in
    float64. Dense rows: as ``||u - c||^2 / 2`` between the unit vectors
    ``u`` and ``c``, the form the core's objective takes (``1 - u.c`` loses
    the digits of rows close to their centroid); sparse rows, which are not
    densified: as ``1 - u.c``. A row of length zero has no cosine:
    ``_core.predict`` has refused it before this runs."""
    c = centers.astype(np.float64)
    c = c / np.linalg.norm(c, axis=1, keepdims=True)
    c = c[labels]
    if _sparse.issparse(data):
        x = data.astype(np.float64)
        norms = np.sqrt(np.asarray(x.multiply(x).sum(axis=1)).ravel())
        cos = np.asarray(x.multiply(c).sum(axis=1)).ravel() / norms
        return np.asarray(np.maximum(1.0 - cos, 0.0), dtype=np.float64)
    u = data.astype(np.float64)
    u = u / np.linalg.norm(u, axis=1, keepdims=True)
    diff = u - c
    return np.asarray(0.5 * np.einsum("ij,ij->i", diff, diff), dtype=np.float64)
