"""A scikit-learn compatible estimator: :class:`smartigan.sklearn.KMeans`.

Install the optional dependency with ``pip install smartigan[sklearn]``.
The estimator follows scikit-learn's conventions (``fit``/``predict``/
``transform``, fitted attributes ending in ``_``, ``random_state``), so it
works in :class:`~sklearn.pipeline.Pipeline`, :class:`~sklearn.model_selection.GridSearchCV`,
:func:`~sklearn.base.clone` and with :mod:`pickle`. Importing :mod:`smartigan`
does not import scikit-learn; only importing this module does.
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any, Callable, Optional, Tuple, Union

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
from ._arrays import FloatArray, as_points, check_sparse_structure, is_sparse

__all__ = ["KMeans"]

# The core's names, and scikit-learn's "random" for Forgy.
_NAMED_INITS = _params.INITS + ("random",)
# scikit-learn's `algorithm` values: both name an implementation of Lloyd's algorithm.
_SKLEARN_ALGORITHMS = ("lloyd", "elkan")

_FLOATS = [np.float64, np.float32]


def _seed_from_random_state(random_state: Any) -> int:
    """The core's 64-bit seed for a scikit-learn style ``random_state``.

    An integer in ``[0, 2**64)`` is used as the seed itself, so
    ``KMeans(random_state=s)`` and ``smartigan.cluster(X, k, seed=s)`` start
    from the same restarts. A ``RandomState`` or ``Generator`` (and ``None``,
    which means NumPy's global ``RandomState`` as in scikit-learn) supplies one
    draw, advancing its state.
    """
    if random_state is None:
        random_state = np.random.mtrand._rand
    if isinstance(random_state, (bool, np.bool_)):
        raise ValueError(f"random_state must be an int, None, a RandomState or a Generator, got {random_state!r}")
    if isinstance(random_state, numbers.Integral):
        seed = int(random_state)
        if not 0 <= seed < 2**64:
            raise ValueError(f"random_state={seed} is out of range; an integer seed must be in [0, 2**64)")
        return seed
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**63 - 1, dtype=np.int64))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2**63 - 1, dtype=np.int64))
    raise ValueError(
        f"random_state must be an int, None, a numpy.random.RandomState or a numpy.random.Generator, "
        f"got {random_state!r} ({type(random_state).__name__})"
    )


def _positive_int(name: str, value: Any) -> int:
    v = _params.integer(name, value)
    if v < 1:
        raise ValueError(f"{name}={value} is invalid; it must be at least 1")
    return v


def _check_weights(sample_weight: Any, n_samples: int, all_zero_ok: bool = False) -> Optional[npt.NDArray[np.float64]]:
    """``sample_weight`` as a float64 array of shape (n_samples,), or None.

    Raises ``ValueError`` (scikit-learn's convention) for a wrong shape,
    NaN/infinite or negative weights, or all-zero weights unless
    ``all_zero_ok`` (scoring with all-zero weights is defined: the score is 0).
    """
    if sample_weight is None:
        return None
    if _sparse.issparse(sample_weight):
        raise TypeError("sample_weight must be a dense 1-d array, got a sparse matrix")
    if isinstance(sample_weight, numbers.Real) and not isinstance(sample_weight, (bool, np.bool_)):
        w = np.full(n_samples, float(sample_weight))
    else:
        try:
            w = np.asarray(sample_weight, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"sample_weight could not be converted to an array of floats: {exc}") from None
    if w.ndim != 1 or w.shape[0] != n_samples:
        raise ValueError(f"sample_weight must have shape ({n_samples},) to match X, got shape {w.shape}")
    if not np.all(np.isfinite(w)):
        raise ValueError("sample_weight contains NaN or infinity")
    if np.any(w < 0):
        raise ValueError("sample_weight must be non-negative")
    if not all_zero_ok and not np.any(w > 0):
        raise ValueError("sample_weight is all zero; at least one weight must be positive")
    return np.ascontiguousarray(w)


def _no_suggestion(criterion: str, ks: range) -> str:
    """Why ``criterion`` can suggest no k of ``ks`` (see :attr:`smartigan.PathResult.suggested`)."""
    if criterion == "elbow":
        return "the elbow needs at least three k" if len(ks) < 3 else "the log objective is nowhere below its chord"
    if criterion == "gap":
        return "the gap statistic still rises at the end of the range"
    return "it is undefined at every k of the range"


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


class KMeans(ClassNamePrefixFeaturesOutMixin, TransformerMixin, ClusterMixin, BaseEstimator):  # type: ignore[misc,unused-ignore]
    """K-means clustering with Lloyd, Hartigan or Smartigan, scikit-learn style.

    A drop-in replacement for :class:`sklearn.cluster.KMeans` whose default
    method, Smartigan (Clément & Steinerberger), reaches lower objectives
    than Lloyd's algorithm. See ``docs/migration.md`` for the parameter
    mapping.

    Parameters
    ----------
    n_clusters : int or "auto", default=8
        Number of clusters, ``1 <= n_clusters <= n_samples``. ``"auto"``
        chooses it: one :func:`smartigan.cluster_path` call fits every k of
        ``k_range``, ``criterion`` suggests one, and that k's solution of
        the path is the fitted model (``n_clusters_`` and ``path_`` say which
        k and why; see docs/choosing-k.md).
    k_range : (int, int) or range, default=(2, 10)
        With ``n_clusters="auto"``, the numbers of clusters tried: a pair
        ``(k_min, k_max)``, both included, or a ``range`` of step 1.
    criterion : {"elbow", "calinski_harabasz", "davies_bouldin", "silhouette", "gap"}, default="elbow"
        With ``n_clusters="auto"``, what chooses k (defined in
        :func:`smartigan.cluster_path`): ``"elbow"``, the knee of the log
        objective, costs nothing beyond the path; ``"gap"`` clusters 10
        reference data sets by the same path and is the one criterion that
        can answer 1 (with 1 in the range). Where the criterion suggests no
        k of the range, the largest k is used for ``"gap"`` (the gap still
        rises at the end of the range) and the smallest for the others, with
        a ``UserWarning`` saying so (the elbow, for one, needs three k).
    method : {"smartigan", "hartigan", "lloyd"} or None, default=None
        ``"lloyd"``: nearest-centroid iterations (scikit-learn's algorithm).
        ``"hartigan"``: single-point transfers. ``"smartigan"``: Hartigan with
        an acceptance factor falling along ``schedule``. ``None``:
        ``"smartigan"``, or ``"lloyd"`` when ``algorithm`` is given.
    init : {"k-means++", "random", "forgy", "random-partition"}, array of shape (n_clusters, n_features) or callable, default="k-means++"
        How each restart starts. ``"random"`` (scikit-learn's name) is the
        same as ``"forgy"``: ``n_clusters`` distinct rows of ``X`` as
        centroids. ``"random-partition"`` puts every point in a random
        cluster (the paper's start). A callable is called once as
        ``init(X, n_clusters, random_state)`` and must return the centroids.
    n_init : int or "auto", default="auto"
        Independent restarts, run in parallel; the lowest objective wins.
        ``"auto"`` means 1 for an array or callable ``init``, otherwise
        ``smartigan.cluster``'s ``"auto"`` (20 restarts while
        ``n_samples * n_features * n_clusters <= 2**20``, else 1). With
        ``n_clusters="auto"`` an integer also fits every k of ``k_range``
        with that many restarts (see :func:`smartigan.cluster_path`).
    max_iter : int or None, default=None
        For Smartigan the length of the acceptance-factor schedule (``None``:
        20, or 5 where ``n_samples * n_features * n_clusters > 2**20``;
        polishing sweeps come on top); for Lloyd and Hartigan a cap on
        iterations / sweeps, which stop as soon as nothing changes (``None``:
        300, as in scikit-learn). With ``refine=True``, a restart that
        converged before the cap (Smartigan: after its schedule and polish)
        then takes at most as many merge-split refinement steps again (at
        least 50 are allowed); ``n_iter_`` counts them.
    random_state : int, RandomState, Generator or None, default=None
        An int in ``[0, 2**64)`` is the seed itself (the same seed as
        ``smartigan.cluster(..., seed=random_state)``). A ``RandomState`` or
        ``Generator`` gives one draw; ``None`` draws from NumPy's global
        random state, as scikit-learn does. The seed used is stored in
        ``seed_``; results do not depend on ``n_threads``.
    n_threads : int or None, default=None
        The most threads fitting uses (default: all cores); no more are
        started than the machine runs at once.
    schedule : (float, float), default=(1.5, 1.0)
        Smartigan's acceptance factor at the first sweep and, in the limit,
        at sweep ``max_iter``.
    polish : bool, default=True
        Finish Smartigan with Hartigan sweeps until no point moves.
    refine : bool, default=True
        After each restart converges, try merge-split moves (merge two
        nearby clusters, split a spread-out one, re-converge) and keep those
        that lower the inertia (see ``smartigan.cluster``).
    tol : float or "auto", default="auto"
        Early stop of every descent: an iteration or (polishing) sweep that
        lowers the inertia by at most ``tol`` times the inertia ends it.
        ``"auto"``: 0 (until no point moves, so Hartigan results are local
        optima) on small problems, ``2e-5`` when ``n_samples * n_features *
        n_clusters`` exceeds 2**20 (see ``smartigan.cluster``). Relative to the
        inertia, not scikit-learn's centroid shift scaled by the variance.
    verbose : int, default=0
        ``0``: silent. Otherwise progress goes to standard output: the lowest
        objective among the restarts after the starts and after every sweep
        (the fit is then stepped, with exactly the result of a silent fit),
        then how it ended. Sparse ``X`` cannot be stepped and prints the end only.
    copy_x : bool, default=True
        Accepted for scikit-learn compatibility; either value is honoured,
        since ``X`` is never modified (scikit-learn's ``copy_x=False`` allows
        centring ``X`` in place; here the data are only read).
    algorithm : {"lloyd", "elkan"} or None, default=None
        scikit-learn's choice between two implementations of Lloyd's
        algorithm, accepted so that code written for it runs unchanged: either
        value fits with ``method="lloyd"`` (the same iterations; this Lloyd is
        exact and accelerated by bounds, like Elkan's). ``None`` leaves the
        choice to ``method``. Given together with a ``method`` other than
        ``"lloyd"`` it raises ``ValueError``.

    Attributes
    ----------
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
        Centroids, in the dtype of the training data (float32 or float64).
    labels_ : ndarray of int64, shape (n_samples,)
        Cluster of each training point; no cluster is empty.
    inertia_ : float
        Sum of (weighted) squared distances of the training points to their
        centroids.
    n_iter_ : int
        Iterations or sweeps of the best restart, including those of
        merge-split refinement.
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of str, shape (n_features_in_,)
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
        n_clusters: Union[int, str] = 8,
        *,
        method: Optional[str] = None,
        init: Union[str, npt.ArrayLike, Callable[..., Any]] = _params.DEFAULT_INIT,
        n_init: Union[int, str] = "auto",
        max_iter: Optional[int] = None,
        random_state: Union[int, np.random.RandomState, np.random.Generator, None] = None,
        n_threads: Optional[int] = None,
        schedule: Tuple[float, float] = _params.DEFAULT_SCHEDULE,
        polish: bool = _params.DEFAULT_POLISH,
        refine: bool = _params.DEFAULT_REFINE,
        tol: _params.Tol = _params.DEFAULT_TOL,
        verbose: int = 0,
        copy_x: bool = True,
        algorithm: Optional[str] = None,
        k_range: Union[Tuple[int, int], range] = (2, 10),
        criterion: str = "elbow",
    ) -> None:
        self.n_clusters = n_clusters
        self.method = method
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.random_state = random_state
        self.n_threads = n_threads
        self.schedule = schedule
        self.polish = polish
        self.refine = refine
        self.tol = tol
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

    def _resolve_init(self, X: np.ndarray, seed: int) -> Tuple[Any, bool]:
        """The core's ``init`` argument, and whether it is explicit centroids."""
        init = self.init
        if isinstance(init, str):
            if init not in _NAMED_INITS:
                raise ValueError(
                    f"init={init!r} is not supported; use 'k-means++', 'random' (alias 'forgy'), "
                    "'random-partition', an array of shape (n_clusters, n_features) or a callable"
                )
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
        ValueError
            For invalid parameters, NaN/infinite data, fewer samples than
            clusters, or invalid weights (wrong shape, negative, all zero).

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
        auto = isinstance(self.n_clusters, str) and self.n_clusters == "auto"
        if isinstance(self.n_clusters, str) and not auto:
            raise ValueError(f"n_clusters={self.n_clusters!r} is invalid; use a positive integer or 'auto'")
        ks = self._k_range() if auto else None
        n_clusters = ks[-1] if ks is not None else _positive_int("n_clusters", self.n_clusters)
        max_iter = None if self.max_iter is None else _positive_int("max_iter", self.max_iter)
        n_samples = data.shape[0]
        if n_samples < n_clusters:
            what = "the largest k of k_range" if auto else "n_clusters"
            raise ValueError(f"n_samples={n_samples} should be >= {what}={n_clusters}.")
        weights = _check_weights(sample_weight, n_samples)
        seed = _seed_from_random_state(self.random_state)
        if auto and not isinstance(self.init, str):
            raise ValueError("n_clusters='auto' needs a named init ('k-means++', 'random', 'random-partition'); "
                             "an array or callable init fixes the number of clusters")
        init, explicit = self._resolve_init(data, seed)
        n_init = self.n_init
        if isinstance(n_init, str):
            if n_init not in ("auto", "best"):
                raise ValueError(f"n_init={n_init!r} is invalid; use a positive integer, 'auto' or 'best'")
            n_init = 1 if explicit else n_init
        else:
            n_init = _positive_int("n_init", n_init)
        verbose = self.verbose
        if isinstance(verbose, (bool, np.bool_)):
            verbose = int(verbose)
        if not isinstance(verbose, numbers.Integral):
            raise TypeError(f"verbose must be an integer, got {verbose!r} ({type(verbose).__name__})")
        if verbose < 0:
            raise ValueError(f"verbose={verbose} is invalid; it must be at least 0")
        if not isinstance(self.copy_x, (bool, np.bool_)):
            raise TypeError(f"copy_x must be True or False, got {self.copy_x!r}")
        # The parameters named as in Clusterer pass through as given, but for
        # those resolved above.
        settings = {name: getattr(self, name) for name in _api.PARAMETERS if name in self._get_param_names()}
        settings.update(k=n_clusters, method=self._resolve_method(), n_iter=max_iter, seed=seed, init=init,
                        n_init=n_init)
        self.path_: Optional[_path.PathResult] = None
        if ks is not None:
            result = self._fit_auto(data, ks, settings, weights, verbose)
        else:
            result = self._fit_one(data, settings, weights, verbose)
        self.n_clusters_ = int(result.centroids.shape[0])
        self.cluster_centers_: FloatArray = result.centroids
        self.labels_: npt.NDArray[np.int64] = result.labels
        self.inertia_ = float(result.objective)
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

    def _k_range(self) -> range:
        """``k_range`` as a range of step 1 (checked; the core checks it against the data)."""
        k_range = self.k_range
        if isinstance(k_range, range):
            if k_range.step != 1 or len(k_range) == 0:
                raise ValueError(f"k_range={k_range!r} is invalid; a range must be non-empty with step 1")
            return k_range
        try:
            k_min, k_max = k_range
        except (TypeError, ValueError):
            raise ValueError(f"k_range={k_range!r} is invalid; use a pair (k_min, k_max) or a range") from None
        k_min, k_max = _positive_int("k_range[0]", k_min), _positive_int("k_range[1]", k_max)
        if k_min > k_max:
            raise ValueError(f"k_range={k_range!r} is invalid; k_min must be at most k_max")
        return range(k_min, k_max + 1)

    def _fit_auto(self, data: Any, ks: range, settings: dict[str, Any], weights: Any,
                  verbose: int) -> _api.ClusterResult:
        """``n_clusters="auto"``: the path over ``ks``, and its solution at the k ``criterion`` suggests."""
        criterion = self.criterion
        if not isinstance(criterion, str) or criterion not in _path.CRITERIA:
            raise ValueError(f"criterion={criterion!r} is invalid; use one of {', '.join(map(repr, _path.CRITERIA))}")
        settings = {name: value for name, value in settings.items() if name != "k"}
        path = _path.cluster_path(data, ks, criteria=(criterion,), sample_weight=weights, **settings)
        suggested = path.suggested[criterion]
        if suggested is None:
            suggested = ks[-1] if criterion == "gap" else ks[0]
            warnings.warn(f"criterion {criterion!r} suggests no k in {ks[0]}..{ks[-1]} ({_no_suggestion(criterion, ks)}); "
                          f"fitted k={suggested}, the {'largest' if criterion == 'gap' else 'smallest'} of k_range "
                          "(path_ holds the criterion's values)", UserWarning, stacklevel=3)
        if verbose:
            print(f"{criterion} suggests k={path.suggested[criterion]} in {ks[0]}..{ks[-1]}; fitted k={suggested}")
        self.path_ = path
        return path.result(suggested)

    def _resolve_method(self) -> Any:
        """The method to fit with, from ``method`` and ``algorithm`` (the
        method's own value is checked by the core, naming it)."""
        method, algorithm = self.method, self.algorithm
        if algorithm is None:
            return _params.DEFAULT_METHOD if method is None else method
        if not isinstance(algorithm, str) or algorithm not in _SKLEARN_ALGORITHMS:
            raise ValueError(f"algorithm={algorithm!r} is invalid; use 'lloyd', 'elkan' "
                             "(scikit-learn's two implementations of Lloyd's algorithm) or None")
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

    @staticmethod
    def _nearest(data: Any, centers: np.ndarray) -> npt.NDArray[np.int64]:
        return _core.predict(as_points(data), centers)

    def predict(self, X: npt.ArrayLike) -> npt.NDArray[np.int64]:
        """Index of the nearest centroid for each row of ``X``.

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
            If ``X`` has a different number of features than the training data.

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
        """Euclidean distance from each row of ``X`` to each centroid.

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
        return _core.transform(as_points(data), centers)

    def score(self, X: npt.ArrayLike, y: Any = None, sample_weight: Optional[npt.ArrayLike] = None) -> float:
        """Opposite of the (weighted) k-means objective of ``X`` on the centroids.

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
            ``-sum(w_i * min_j ||x_i - c_j||^2)``.

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
        if _sparse.issparse(data):
            # ‖x − c‖² = ‖x‖² − 2·x·c + ‖c‖², without densifying x.
            c = centers.astype(np.float64)[labels]
            x = data.astype(np.float64)
            sq = (np.asarray(x.multiply(x).sum(axis=1)).ravel() - 2 * np.asarray(x.multiply(c).sum(axis=1)).ravel()
                  + np.einsum("ij,ij->i", c, c))
            sq = np.maximum(sq, 0.0)
        else:
            diff = data.astype(np.float64) - centers.astype(np.float64)[labels]
            sq = np.einsum("ij,ij->i", diff, diff)
        weights = _check_weights(sample_weight, data.shape[0], all_zero_ok=True)
        if weights is not None:
            sq = sq * weights
        return -float(sq.sum())

    @property
    def _n_features_out(self) -> int:
        """Number of output features of ``transform`` (one per cluster)."""
        return int(self.cluster_centers_.shape[0])
