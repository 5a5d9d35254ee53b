"""Choosing k: a path of solutions over a range of k in one call
(:func:`cluster_path`, :class:`PathResult`; see docs/choosing-k.md).

The path itself is computed by the Rust core (``_core.fit_path``): the usual
fit at ``k_min``, then each next k by splitting the cluster whose 2-means
split lowers the objective most and re-converging with Hartigan sweeps,
refined by merges from the k above, so the objective never rises with k.
The criteria users read from it are :mod:`smartigan._criteria`'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterable, Literal, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

from . import _core
from ._api import ClusterResult, fields_equal
from ._arrays import as_csr, as_weights, is_sparse
from ._checks import choice, integer, is_integer, positive
from ._criteria import (
    CRITERIA,
    GAP_REFERENCE_KINDS,
    GAP_REFERENCES,
    GAP_STREAM,
    NEED_LABELS,
    SILHOUETTE_SAMPLE,
    PathData,
    criteria_values,
    gap_choice,
    gap_statistic,
    reference_data,
)
from ._params import InitArg, Method, Metric, NInit, Parameter, SizeBound, Tol, core_params, front_end

__all__ = ["PathResult", "cluster_path", "CLUSTER_PATH", "Progress"]

#: ``progress(done, total)``: how far :func:`cluster_path` has got, in units
#: of work (a k of one pass of a path; with the gap statistic, of every
#: reference path too).
Progress = Callable[[int, int], Any]


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
    metric : str
        The metric minimised, ``"euclidean"`` or ``"cosine"`` (then the
        objectives are sums of ``1 - cos``).

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
    # Last, with a default: paths pickled before it existed read "euclidean".
    metric: str = "euclidean"

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


def _k_range(name: str, ks: Any) -> Tuple[int, int]:
    """``ks`` as ``(k_min, k_max)``: a range of step 1 or consecutive increasing integers."""
    if isinstance(ks, range):
        if ks.step != 1 or len(ks) == 0:
            raise ValueError(f"invalid {name}: {ks!r} (must be a non-empty range of consecutive k, step 1)")
        return ks.start, ks.stop - 1
    if isinstance(ks, (str, bytes)) or not isinstance(ks, Iterable):
        raise TypeError(f"{name} must be a range or a sequence of consecutive integers, got {ks!r}")
    values = list(ks)
    for v in values:
        if not is_integer(v):
            raise TypeError(f"{name} must hold integers, got {v!r} ({type(v).__name__})")
    if not values or any(int(b) != int(a) + 1 for a, b in zip(values, values[1:])):
        raise ValueError(f"invalid {name}: {values!r} (must be consecutive increasing integers, e.g. range(2, 31))")
    return int(values[0]), int(values[-1])


def _criteria(name: str, criteria: Any) -> Tuple[str, ...]:
    """The criteria named, in :data:`CRITERIA`'s order."""
    if criteria is None:
        return ()
    if isinstance(criteria, str):
        criteria = (criteria,)
    try:
        names = tuple(criteria)
    except TypeError:
        raise TypeError(f"{name} must be a sequence of names from {CRITERIA}, got {criteria!r}") from None
    for n in names:
        if n not in CRITERIA:
            raise ValueError(f"invalid {name}: {n!r} (allowed: {', '.join(map(repr, CRITERIA))})")
    return tuple(n for n in CRITERIA if n in names)


def _progress(name: str, progress: Any) -> Optional[Progress]:
    if progress is not None and not callable(progress):
        raise TypeError(f"{name} must be a callable progress(done, total) or None, got {progress!r}")
    return progress  # type: ignore[no-any-return]


_FIRST_K = "As for :func:`cluster`, for the fit at the first k."

#: The parameters of :func:`cluster_path`.
CLUSTER_PATH = front_end(
    "smartigan.cluster_path",
    "X",
    Parameter("ks", "range or sequence of consecutive integers", range(2, 31),
              "The numbers of clusters, e.g. ``range(2, 31)``.",
              'Include 1 to let the gap statistic answer "no clusters".', check=_k_range),
    "seed",
    "sample_weight",
    "n_threads",
    Parameter("criteria", "sequence of str or None", CRITERIA,
              'Which of ``"elbow"``, ``"calinski_harabasz"``, ``"davies_bouldin"``, ``"silhouette"`` and '
              '``"gap"`` to compute (default: all; None: none).', check=_criteria),
    Parameter("gap_references", "int", GAP_REFERENCES,
              "B, the reference data sets of the gap statistic, each clustered by the same path (the gap "
              "statistic costs B more paths).", check=positive),
    Parameter("gap_reference", '{"pca", "box", "permute"} or None', None,
              "Where the gap statistic's reference points come from.",
              'Uniform in the box of the data\'s principal components (``"pca"``, rotated back; Tibshirani et '
              "al.'s choice (b), rotation-invariant as k-means is), uniform in the bounding box of the "
              'features (``"box"``), or the data with each column\'s values permuted across the rows '
              '(``"permute"``: the features keep their values, and lose the dependence clusters are made '
              'of). None: ``"pca"`` for dense ``X``, ``"permute"`` for sparse ``X``, whose references then '
              "stay sparse (as many stored values as ``X``); the two boxes would be dense, n_samples x "
              "n_features, and are refused for sparse ``X``.",
              check=lambda name, value: choice(name, value, GAP_REFERENCE_KINDS + (None,))),
    Parameter("silhouette_sample", "int", SILHOUETTE_SAMPLE,
              "Up to this many points the silhouette is exact; above it, the mean silhouette of a seeded "
              "uniform sample of this many points, each computed exactly against all points.",
              check=positive),
    Parameter("keep", '{"all", "summaries"}', "all",
              'What is kept of every k: ``"all"``, its labels and centroids (for :meth:`PathResult.result`, '
              'Davies-Bouldin and the silhouette); ``"summaries"``, its objective.',
              check=lambda name, value: choice(name, value, ("all", "summaries"))),
    Parameter("progress", "callable or None", None,
              "``progress(done, total)``, told how far the call has got.",
              "Called from the calling thread about every 50 ms while the work advances and once at the end "
              "of every path, with the units of work done (a k of one pass of a path; the gap statistic's "
              "reference paths included); the command line draws its progress bar from it. An exception it "
              "raises stops the call.", check=_progress),
    "method", "n_iter", "init", "metric", "n_init", "schedule", "polish", "refine", "tol", "size_min", "size_max",
    notes={
        "seed": "It also seeds the silhouette's sample and the gap statistic's reference data.",
        "sample_weight": "Here at least ``max(ks)`` weights must be positive. The criteria weight every point "
                         "by its weight (N in Calinski-Harabasz is the effective number of points, "
                         "``(sum w)**2 / sum w**2``), and multiplying every weight by the same constant "
                         "changes no criterion.",
        "method": _FIRST_K + " Later k are reached by Hartigan sweeps whatever the method.",
        "n_iter": _FIRST_K,
        "size_min": "Not taken by a path over k (anything but ``None`` is a ``ValueError``): fit the chosen k "
                    "with bounds.",
        "size_max": "Not taken by a path over k, as ``size_min``.",
        "init": _FIRST_K,
        "metric": "Here for every k of the path and for the criteria: with ``\"cosine\"`` the objectives are "
                  "sums of ``1 - cos``, Calinski-Harabasz compares them with the loss at k = 1 (``sum w - "
                  "||sum w u||``, ``u`` the unit rows), Davies-Bouldin and the silhouette measure the "
                  "distance ``||u - v|| = sqrt(2 (1 - cos))`` between unit rows and centroids, and the gap "
                  "statistic draws its references from the unit rows and clusters them by the same loss (a "
                  "``\"permute\"`` reference with a row of zeros, possible for sparse data, is a "
                  "``ValueError``). See docs/choosing-k.md.",
        "schedule": _FIRST_K,
        "polish": _FIRST_K,
        "refine": "Here it also turns the path's own refinement on or off.",
        "n_init": 'Here for the fit at the first k; an integer or ``"best"`` (with ``refine``) also fits every k '
                  "so, as a loop of :func:`cluster` calls would, and keeps the path's solution only where it is "
                  "lower: on large data below the number of groups, where many optima lie within tenths of a "
                  "per cent and a path is one draw among them, this buys quality at the cost of the loop. "
                  '``"auto"`` fits every k only where the problem is small.',
        "tol": "Here a number applies to every descent of the path. ``\"auto\"`` searches at 0 on small "
               "problems and at ``1e-4`` above them, then continues every k's solution until no point moves, "
               "so every k ends a local optimum. On large, heavily overlapping data (embeddings) that last "
               "pass is most of the time; ``tol=2e-5``, where :func:`cluster` stops by default there, took "
               "about a quarter of the time at a few thousandths of a per cent higher (docs/choosing-k.md).",
    },
)


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



@CLUSTER_PATH.document
def cluster_path(
    X: npt.ArrayLike,
    ks: Union[range, Sequence[int]] = CLUSTER_PATH["ks"].default,
    *,
    seed: Optional[int] = CLUSTER_PATH["seed"].default,
    sample_weight: Optional[npt.ArrayLike] = CLUSTER_PATH["sample_weight"].default,
    n_threads: Optional[int] = CLUSTER_PATH["n_threads"].default,
    criteria: Optional[Sequence[str]] = CLUSTER_PATH["criteria"].default,
    gap_references: int = CLUSTER_PATH["gap_references"].default,
    gap_reference: Optional[Literal["pca", "box", "permute"]] = CLUSTER_PATH["gap_reference"].default,
    silhouette_sample: int = CLUSTER_PATH["silhouette_sample"].default,
    keep: Literal["all", "summaries"] = CLUSTER_PATH["keep"].default,
    progress: Optional[Progress] = CLUSTER_PATH["progress"].default,
    method: Method = CLUSTER_PATH["method"].default,
    n_iter: Optional[int] = CLUSTER_PATH["n_iter"].default,
    init: InitArg = CLUSTER_PATH["init"].default,
    metric: Metric = CLUSTER_PATH["metric"].default,
    n_init: NInit = CLUSTER_PATH["n_init"].default,
    schedule: Tuple[float, float] = CLUSTER_PATH["schedule"].default,
    polish: bool = CLUSTER_PATH["polish"].default,
    refine: bool = CLUSTER_PATH["refine"].default,
    tol: Tol = CLUSTER_PATH["tol"].default,
    size_min: SizeBound = CLUSTER_PATH["size_min"].default,
    size_max: SizeBound = CLUSTER_PATH["size_max"].default,
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
    {parameters}

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
    for name, bound in (("size_min", size_min), ("size_max", size_max)):
        if bound is not None:
            raise ValueError(f"invalid {name}: {bound!r} (cluster_path takes no size bounds: a path over k grows "
                             "each k from the one before by splits and merges, which no bound survives; fit the "
                             "chosen k with smartigan.cluster(..., size_min=..., size_max=...))")
    own = CLUSTER_PATH.check(dict(ks=ks, criteria=criteria, gap_references=gap_references,
                                  gap_reference=gap_reference, silhouette_sample=silhouette_sample, keep=keep,
                                  progress=progress))
    k_min, k_max = own["ks"]
    names = own["criteria"]
    if keep == "summaries":
        for name in names:
            if name in NEED_LABELS:
                raise ValueError(f"criterion {name!r} needs every k's labels: use keep='all' (got keep='summaries')")
    if gap_reference in ("pca", "box") and is_sparse(X) and "gap" in names:
        raise ValueError(f"gap_reference={gap_reference!r} needs dense X (its references would be dense, "
                         "n_samples x n_features); use 'permute', the default for sparse X")
    # Every parameter of cluster() but k and the data, as given; the core
    # fits the first k with them (its k is ks[0]: the placeholder below is
    # replaced, and a bad ks is reported by the core).
    fit_settings = dict(method=method, n_iter=n_iter, seed=seed, init=init, metric=metric, n_init=n_init,
                        schedule=schedule, polish=polish, refine=refine, n_threads=n_threads, tol=tol)
    params = core_params(k=max(k_min, 1), **fit_settings)
    data = PathData(X, as_weights(sample_weight), metric)
    n_refs = own["gap_references"]
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

    values, suggested = criteria_values(names, data, k_values, objectives, results, own["silhouette_sample"],
                                        path_seed)
    gap_se = reference_log = None
    if "gap" in names:
        kind = gap_reference or ("permute" if data.sparse else "pca")
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([path_seed, GAP_STREAM])))
        ref_params = core_params(k=max(k_min, 1), **{**fit_settings, "seed": path_seed})
        logs = []
        for b in range(n_refs):
            ref = reference_data(data, kind, rng)
            if metric == "cosine":
                _check_directions(ref, kind, b)
            ref_out = _core.fit_path(as_csr(ref) if data.sparse else ref, k_min, k_max, ref_params, False,
                                     sample_weight=data.raw_weights, progress=report.path(1 + b))
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
        metric=metric,
    )


def _check_directions(reference: Any, kind: str, index: int) -> None:
    """ValueError where a gap reference drawn from unit rows has a row of zeros
    (``"permute"`` can leave one: every column's draw missing the row), which
    ``metric="cosine"`` cannot cluster: it has no direction."""
    nonzero = (reference.getnnz(axis=1) if is_sparse(reference)
               else np.count_nonzero(reference, axis=1))
    empty = np.flatnonzero(np.asarray(nonzero) == 0)
    if empty.size:
        raise ValueError(
            f"criterion 'gap' with metric='cosine' and gap_reference={kind!r}: reference data set {index} has "
            f"{empty.size} rows of zeros (row {int(empty[0])} first), which have no direction; the data are too "
            "sparse for this reference: leave 'gap' out of the criteria (or use gap_reference='pca' for dense X)")
