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

import warnings

from . import _core
from ._api import ClusterResult, fields_equal
from ._arrays import as_csr, as_weights, is_sparse
from ._checks import choice, integer, is_integer, positive
from ._criteria import (
    CRITERIA,
    DEFAULT_CRITERIA,
    GAP_REFERENCE_KINDS,
    GAP_REFERENCES,
    GAP_SAMPLE,
    GAP_STREAM,
    NEED_LABELS,
    REFERENCE_FIT,
    SILHOUETTE_SAMPLE,
    PathData,
    criteria_values,
    effective_count,
    gap_choice,
    gap_statistic,
    reference_log_objective,
    reference_sets,
)
from ._params import PARAMETERS, InitArg, Method, Metric, NInit, Parameter, SizeBound, Tol, core_params, front_end

__all__ = ["PathResult", "cluster_path", "CLUSTER_PATH", "Progress", "AUTO_N_CLUSTERS", "K_RANGE", "CRITERION",
           "chosen_k"]

#: ``progress(done, total)``: how far :func:`cluster_path` has got, in units
#: of work (a k of one pass of the data's path; with the gap statistic, a k
#: of every reference path too).
Progress = Callable[[int, int], Any]


@dataclass(frozen=True, eq=False)
class PathResult:
    """The outcome of :func:`cluster_path`: a solution for every k of a range.

    Attributes
    ----------
    ks : ndarray of int64
        The numbers of clusters asked for, increasing (the path ran through
        every k from the first to the last; only these are kept).
    objectives : ndarray of float64
        The objective at every k (never rises with k; see
        docs/choosing-k.md).
    criteria : dict of str to ndarray of float64
        Each criterion computed, one value per k (NaN where it is not
        defined, e.g. silhouette at k = 1): ``"elbow"`` (the normalised
        curve's distance below its chord), ``"calinski_harabasz"``,
        ``"davies_bouldin"``, ``"silhouette"`` and ``"gap"``. The elbow and
        the gap statistic's rule compare neighbours: they read the ks
        returned, each with the next one returned.
    suggested : dict of str to int or None
        The k each criterion suggests: the elbow's largest distance to the
        chord, the largest Calinski-Harabasz, the smallest Davies-Bouldin,
        the largest silhouette, and for the gap statistic the smallest k with
        ``Gap(k) >= Gap(k') - s(k')``, k' the next k of ``ks`` (k + 1 for
        consecutive ks). None where the criterion suggests
        no k of the range (no elbow: the curve is nowhere below its chord;
        gap: the rule holds for no k below ``ks[-1]``).
    seed : int
        The seed of the path (and of the criteria's samples and references).
    gap_standard_errors : ndarray of float64 or None
        ``s(k) = sd(k) * sqrt(1 + 1/B)`` of the gap statistic, with ``sd``
        the standard deviation (divisor B) of the references' log objectives.
    reference_log_objectives : ndarray of float64 of shape (B, len(ks)) or None
        ``log W*(k)`` of each reference data set, for as many points as the
        data (see the ``gap_sample`` parameter of :func:`cluster_path`).
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

        Raises ``ValueError`` for a k not in ``ks``, or when the path was
        computed with ``keep="summaries"``.
        """
        k = integer("k", k)
        index = int(np.searchsorted(self.ks, k))
        if index == self.ks.size or self.ks[index] != k:
            raise ValueError(f"invalid k: {k} (the path kept k = {shown_ks(self.ks)})")
        stored = self._results[index]
        if stored is None:
            raise ValueError("this path kept summaries only (keep='summaries'); run cluster_path with keep='all'")
        return stored

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={k}" for name, k in self.suggested.items())
        return (
            f"PathResult(ks={shown_ks(self.ks)}, "
            f"objective {self.objectives[0]:.6g} -> {self.objectives[-1]:.6g}, "
            f"suggested: {shown or 'nothing computed'}, seed={self.seed})"
        )


def shown_ks(ks: Any) -> str:
    """``ks`` as a reader writes them: ``2..30`` where consecutive, else listed."""
    values = [int(k) for k in ks]
    if len(values) >= 2 and values == list(range(values[0], values[-1] + 1)):
        return f"{values[0]}..{values[-1]}"
    return ", ".join(map(str, values))


def _ks(name: str, ks: Any) -> Tuple[int, ...]:
    """``ks`` as a tuple of increasing integers: a non-empty range of positive
    step, or a sequence of strictly increasing integers (each at least 1 is
    the core's check, which names the range it runs through)."""
    if isinstance(ks, range):
        if ks.step < 1 or len(ks) == 0:
            raise ValueError(f"invalid {name}: {ks!r} (must be a non-empty range of increasing k)")
        return tuple(ks)
    if isinstance(ks, (str, bytes)) or not isinstance(ks, Iterable):
        raise TypeError(f"{name} must be a range or a sequence of increasing integers, got {ks!r}")
    values = list(ks)
    for v in values:
        if not is_integer(v):
            raise TypeError(f"{name} must hold integers, got {v!r} ({type(v).__name__})")
    if not values or any(int(b) <= int(a) for a, b in zip(values, values[1:])):
        raise ValueError(f"invalid {name}: {values!r} (must be strictly increasing integers, e.g. range(2, 31) "
                         "or [2, 4, 8, 16])")
    return tuple(int(v) for v in values)


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
    Parameter("ks", "range or sequence of increasing integers", range(2, 31),
              "The numbers of clusters, e.g. ``range(2, 31)`` or ``[2, 4, 8, 16, 32]``.",
              "The path runs through every k from the first to the last (each k grows from the one before) "
              "and keeps those asked for: a grid costs what its whole range does. Criteria that compare "
              "neighbours (the elbow, the gap statistic's rule) compare each k kept with the next one kept. "
              'Include 1 to let the gap statistic answer "no clusters".', check=_ks),
    "seed",
    "sample_weight",
    "n_threads",
    Parameter("criteria", "sequence of str or None", DEFAULT_CRITERIA,
              'Which of ``"elbow"``, ``"calinski_harabasz"``, ``"davies_bouldin"``, ``"silhouette"`` and '
              '``"gap"`` to compute (default: the first three; None: none).',
              "The default three cost O(n_samples x n_features) per k, little beside the path. The silhouette "
              "costs ``silhouette_sample`` x n_samples distances per k, the gap statistic B more paths on "
              "at most ``gap_sample`` points each: on large data each costs about as much as the path, or "
              "more (docs/choosing-k.md).", check=_criteria),
    Parameter("gap_references", "int", GAP_REFERENCES,
              "B, the reference data sets of the gap statistic, each clustered by a path over the same ks.",
              "Each reference path runs one restart at the first k, then splits and Hartigan sweeps, whatever "
              "the data's path does: on data without groups the path's refinement gains little.",
              check=positive),
    Parameter("gap_sample", "int", GAP_SAMPLE,
              "The most points a reference data set of the gap statistic has.",
              "Data of at most this many points get references of their size. Larger data get references of "
              "this many points, whose solutions are scored both on their own points and on as many fresh "
              "reference points, the two combined into the objective a reference of the data's size would "
              "have (a fitted objective is as much below the population's as a fresh sample's is above, to "
              "first order): a reference path then costs the same whatever the size of the data.",
              check=positive),
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
              "of every path, with the units of work done (a k of one pass of the data's path, then a k of "
              "each reference path of the gap statistic); the command line draws its progress bar from it. "
              "An exception it raises stops the call.", check=_progress),
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
                  '``"auto"`` fits every k so only where the whole range is a small problem, and gives the '
                  "smallest k one restart each elsewhere. ``\"fast\"`` runs the path as ``refine=False`` does.",
        "tol": "Here a number applies to every descent of the path. ``\"auto\"`` searches at 0 on small "
               "problems and at ``1e-4`` above them, then continues every k's solution until no point moves, "
               "so every k ends a local optimum. On large, heavily overlapping data (embeddings) that last "
               "pass is most of the time; ``tol=2e-5``, where :func:`cluster` stops by default there, took "
               "about a quarter of the time at a few thousandths of a per cent higher (docs/choosing-k.md).",
    },
)


class _Report:
    """The user's ``progress`` callback over the data's path and the gap
    statistic's references: the data's path reports its own units (its
    total known from its first report); then each reference path its
    progress as a share of ``ref_units`` units (the number of k it runs
    through), so that the total is known from the first report on."""

    def __init__(self, progress: Optional[Progress], n_refs: int, ref_units: int) -> None:
        self.progress, self.n_refs, self.ref_units = progress, n_refs, ref_units
        self.data_total = 0

    def data(self) -> Optional[Progress]:
        progress = self.progress
        if progress is None:
            return None

        def report(done: int, total: int) -> None:
            self.data_total = total
            progress(done, total + self.n_refs * self.ref_units)

        return report

    def reference(self, index: int) -> Optional[Progress]:
        progress = self.progress
        if progress is None:
            return None
        units, before = self.ref_units, self.data_total + index * self.ref_units
        total = self.data_total + self.n_refs * units

        def report(done: int, ref_total: int) -> None:
            progress(before + done * units // max(ref_total, 1), total)

        return report


def _optimism_share(sample: Any, data: PathData) -> float:
    """``(1 - m/n) / 2`` for a reference fitted on ``sample`` (m) and data of
    n points, both effective numbers of points (:func:`effective_count`):
    the share of the way from a sample's fitted log objective to its scored
    one at which a reference of the data's size lies
    (:func:`smartigan._criteria.reference_log_objective`)."""
    m = float(sample.points.shape[0]) if sample.weights is None else effective_count(sample.weights)
    n = effective_count(data.w)
    return max(0.0, 1.0 - m / n) / 2.0 if n > 0 else 0.0


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
    gap_sample: int = CLUSTER_PATH["gap_sample"].default,
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
    With ``refine`` (default) the path then refines itself: where the whole
    range searched is a small problem (``n_samples * n_features * k <=
    2**20`` up to its last k), and at every k when ``n_init`` is given, the
    usual fit at each k replaces the grown solution where it ends lower
    (where only the smallest k are small problems, each of them gets one
    restart instead, the usual fit's first); from five k past the
    last (searched, not returned) down, each k is also reached by merging
    two clusters of the ``k + 1`` solution; from the first k up, each k
    is grown again where the one below improved; and on larger problems the
    smallest k (while they sum to at most a sixteenth of the k searched) get
    one more draw, one restart, compared once both are finished, on the
    threads the path's one-at-a-time descents leave idle; whatever is
    lowest is kept.
    So the objective never rises with k, each k costs a few descents rather
    than a multi-start fit, and every k's solution is a Hartigan local
    optimum (the default ``tol="auto"`` searches with descents stopped early
    on large problems, then finishes every k by sweeps until no point
    moves). The default criteria cost little beside the path; the
    silhouette and the gap statistic are computed when named.

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
    own = CLUSTER_PATH.check(dict(ks=ks, criteria=criteria, gap_references=gap_references, gap_sample=gap_sample,
                                  gap_reference=gap_reference, silhouette_sample=silhouette_sample, keep=keep,
                                  progress=progress))
    asked = own["ks"]
    k_min, k_max = asked[0], asked[-1]
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
    n_refs = own["gap_references"] if "gap" in names else 0
    report = _Report(progress, n_refs, k_max - k_min + 1)
    out = _core.fit_path(data.points, k_min, k_max, params, keep == "all", sample_weight=data.raw_weights,
                         progress=report.data())
    # The steps of the ks asked for (the core ran through every k between).
    index = [k - k_min for k in asked]
    steps = [out.steps[i] for i in index]
    path_seed = int(out.seed)
    k_values = np.array([s.k for s in steps], dtype=np.int64)
    objectives = np.array([s.objective for s in steps], dtype=np.float64)
    # As ClusterResults (the arrays are shared, not copied), so that a
    # PathResult pickles as a ClusterResult does.
    results = tuple(None if s.clustering is None else ClusterResult._from_core(s.clustering) for s in steps)

    values, suggested = criteria_values(names, data, k_values, objectives, results, own["silhouette_sample"],
                                        path_seed)
    gap_se = reference_log = None
    if n_refs:
        kind = gap_reference or ("permute" if data.sparse else "pca")
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([path_seed, GAP_STREAM])))
        ref_params = core_params(k=max(k_min, 1), **{**fit_settings, "seed": path_seed, **REFERENCE_FIT})
        size = own["gap_sample"]
        logs = []
        for b in range(n_refs):
            fitted, scored = reference_sets(data, kind, rng, size)
            if metric == "cosine":
                for reference in (fitted, scored):
                    if reference is not None:
                        _check_directions(reference.points, kind, b)
            ref_out = _core.fit_path(as_csr(fitted.points) if data.sparse else fitted.points, k_min, k_max,
                                     ref_params, scored is not None, sample_weight=fitted.weights,
                                     progress=report.reference(b))
            ref_steps = [ref_out.steps[i] for i in index]
            with np.errstate(divide="ignore"):
                log_fitted = np.log([s.objective * fitted.scale for s in ref_steps])
                log_scored = None if scored is None else np.log([scored.cost(s.clustering.centroids)
                                                                 for s in ref_steps])
            share = 0.0 if scored is None else _optimism_share(fitted, data)
            logs.append(reference_log_objective(log_fitted, log_scored, share))
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


# -- the estimators' n_clusters="auto" (scikit-learn's and Dask's) -----------------------


def _n_clusters_or_auto(name: str, value: Any) -> Union[int, str]:
    if isinstance(value, str):
        if value != "auto":
            raise ValueError(f"invalid {name}: {value!r} (must be a positive integer or 'auto')")
        return value
    return integer(name, value, least=1)


def _estimator_ks(name: str, value: Any) -> Tuple[int, ...]:
    """``k_range`` as the ks tried: a pair ``(k_min, k_max)`` (both included,
    whatever the pair's type), a range, or another sequence of increasing k
    (the core checks them against the data)."""
    if isinstance(value, range):
        return _ks(name, value)
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise TypeError(f"{name} must be a pair (k_min, k_max), a range or a sequence of increasing k, got {value!r}")
    values = list(value)
    if len(values) != 2:
        return _ks(name, values)
    k_min, k_max = integer(f"{name}[0]", values[0], least=1), integer(f"{name}[1]", values[1], least=1)
    if k_min > k_max:
        raise ValueError(f"invalid {name}: {value!r} (k_min must be at most k_max)")
    return tuple(range(k_min, k_max + 1))


_CHOSEN_K = 'With ``n_clusters="auto"``'

#: ``n_clusters`` of the estimators, where ``"auto"`` chooses k along a path.
AUTO_N_CLUSTERS = PARAMETERS["n_clusters"].but(type='int or "auto"', check=_n_clusters_or_auto)
#: The numbers of clusters an estimator's ``n_clusters="auto"`` tries.
K_RANGE = Parameter(
    "k_range", "(int, int), range or sequence of int", (2, 10),
    f'{_CHOSEN_K}, the numbers of clusters tried: a pair ``(k_min, k_max)``, both included, a ``range`` or '
    "a sequence of increasing k.",
    "A pair is always read as its two ends; a grid such as ``range(2, 41, 2)`` costs what its whole range "
    "does (see :func:`smartigan.cluster_path`'s ``ks``).", check=_estimator_ks)
#: What chooses k for an estimator's ``n_clusters="auto"``.
CRITERION = Parameter(
    "criterion", '{"elbow", "calinski_harabasz", "davies_bouldin", "silhouette", "gap"}', "elbow",
    f"{_CHOSEN_K}, what chooses k (defined in :func:`smartigan.cluster_path`).",
    '``"elbow"``, the knee of the log objective, costs nothing beyond the path, nor do '
    '``"calinski_harabasz"`` and ``"davies_bouldin"``; ``"silhouette"`` and ``"gap"`` (10 reference paths '
    "on at most 2000 points each) cost about as much as the path on large data, or more. ``\"gap\"`` is the "
    "one criterion that can answer 1 (with 1 in the range). Where the criterion suggests no k of the range, "
    'the largest k is used for ``"gap"`` (the gap still rises at the end of the range) and the smallest for '
    "the others, with a ``UserWarning`` saying so (the elbow, for one, needs three k).",
    check=lambda name, value: choice(name, value, CRITERIA))


def _no_suggestion(criterion: str, ks: Sequence[int]) -> str:
    """Why ``criterion`` can suggest no k of ``ks`` (see :attr:`PathResult.suggested`)."""
    if criterion == "elbow":
        return "the elbow needs at least three k" if len(ks) < 3 else "the log objective is nowhere below its chord"
    if criterion == "gap":
        return "the gap statistic still rises at the end of the range"
    return "it is undefined at every k of the range"


def chosen_k(path: PathResult, criterion: str, stacklevel: int = 2) -> int:
    """The k an estimator fits for ``criterion`` on ``path``: its suggestion,
    or, where it suggests none, the largest k for ``"gap"`` and the smallest
    for the others, with a ``UserWarning`` (at ``stacklevel`` above the caller)."""
    ks = [int(k) for k in path.ks]
    suggested = path.suggested[criterion]
    if suggested is not None:
        return suggested
    fallback = ks[-1] if criterion == "gap" else ks[0]
    warnings.warn(f"criterion {criterion!r} suggests no k in {shown_ks(ks)} ({_no_suggestion(criterion, ks)}); "
                  f"fitted k={fallback}, the {'largest' if criterion == 'gap' else 'smallest'} of k_range "
                  "(path_ holds the criterion's values)", UserWarning, stacklevel=stacklevel + 1)
    return fallback
