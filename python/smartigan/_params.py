"""The parameter table: every parameter of the Python front ends once, with
its name, default, check and documentation, and the one conversion to the
core's parameter object (:func:`core_params`).

:data:`PARAMETERS` holds the parameters that several front ends share (the
core's, the data, the weights, the estimators' ``random_state``); a front
end's own parameters are declared beside it. Each front end lists its
parameters once, as a :class:`FrontEnd`, in the order of its signature:
its defaults are the table's, its docstring's Parameters section is
written from the table (:meth:`FrontEnd.document`), and it checks its
arguments through the table's checks (:meth:`FrontEnd.check`).
tests/python/test_params.py compares every front end's signature and
docstring with the table.

The names, defaults and rules come from the compiled core (``_core``). The
checks (:mod:`smartigan._checks`) raise ``TypeError`` for objects of the
wrong kind and ``ValueError`` where Python alone can tell (integers beyond
64 bits, an unknown ``n_init`` string); the core checks the ranges and
names of its own parameters.
"""

from __future__ import annotations

import dataclasses
import inspect
import textwrap
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Literal, Mapping, Optional, Tuple, TypeVar, Union

import numpy as np
import numpy.typing as npt

from . import _core
from ._arrays import as_data, as_weights
from ._checks import flag, int64, is_integer, is_real, positive, random_state, seed

__all__ = [
    "METHODS",
    "INITS",
    "METRICS",
    "Method",
    "Metric",
    "InitName",
    "InitArg",
    "NInit",
    "Tol",
    "SizeBound",
    "Parameter",
    "FrontEnd",
    "PARAMETERS",
    "REQUIRED",
    "auto_budget",
    "sample_rows",
    "best_budget",
    "auto_tol",
    "default_n_iter",
    "core_params",
    "front_end",
]

#: The method names, in the core's order (``lloyd``, ``hartigan``, ``smartigan``).
METHODS: Tuple[str, ...] = tuple(_core.METHODS)
#: The named initialisations, in the core's order.
INITS: Tuple[str, ...] = tuple(_core.INITS)
#: The metrics, in the core's order (``euclidean``, ``cosine``).
METRICS: Tuple[str, ...] = tuple(_core.METRICS)

# Type checkers need the names spelled out; tests/python/test_params.py
# checks that these are METHODS, INITS and METRICS.
Method = Literal["lloyd", "hartigan", "smartigan"]
Metric = Literal["euclidean", "cosine"]
InitName = Literal["random-partition", "forgy", "k-means++"]
InitArg = Union[InitName, str, npt.ArrayLike]
NInit = Union[int, Literal["auto", "best", "fast"]]
#: The names ``n_init`` takes besides a count.
N_INIT_NAMES: Tuple[str, ...] = ("auto", "best", "fast")
_N_INIT_WORDS = ", ".join(map(repr, N_INIT_NAMES[:-1])) + f" or {N_INIT_NAMES[-1]!r}"
Tol = Union[float, Literal["auto"]]
SizeBound = Union[None, int, Literal["balanced"], npt.ArrayLike]

DEFAULT_METHOD: str = _core.DEFAULT_METHOD
DEFAULT_METRIC: str = _core.DEFAULT_METRIC
#: ``n_iter=None`` (default) means ``DEFAULT_N_ITER`` sweeps of Smartigan's
#: schedule (where ``n_samples * n_features * k`` exceeds ``AUTO_SMALL_PROBLEM``,
#: ``DEFAULT_N_ITER_LARGE``, or ``DEFAULT_N_ITER`` when the first sweep moves
#: more than ``SCHEDULE_OVERLAP_SHARE`` and at most ``SCHEDULE_RANDOM_WALK_SHARE``
#: of the points), or at most ``DEFAULT_MAX_ITER`` Lloyd iterations / Hartigan sweeps.
DEFAULT_N_ITER: int = _core.DEFAULT_N_ITER
DEFAULT_N_ITER_LARGE: int = _core.DEFAULT_N_ITER_LARGE
SCHEDULE_OVERLAP_SHARE: float = _core.SCHEDULE_OVERLAP_SHARE
SCHEDULE_RANDOM_WALK_SHARE: float = _core.SCHEDULE_RANDOM_WALK_SHARE
#: There, too, the schedule's start is lowered to the factor below which this
#: share of the points' move ratios lie at the start, where that is below
#: ``schedule[0]`` (``ClusterResult.schedule_start`` reports the start used).
SCHEDULE_START_SHARE: float = _core.SCHEDULE_START_SHARE
DEFAULT_MAX_ITER: int = _core.DEFAULT_MAX_ITER
#: ``"auto"``: restarts while their work stays within :func:`auto_budget`;
#: ``"best"``: the best-effort search (a population of restarts and their children);
#: ``"fast"``: one descent by the exact move rule, without refinement.
DEFAULT_N_INIT: NInit = "auto"
AUTO_SMALL_PROBLEM: int = _core.AUTO_SMALL_PROBLEM
DEFAULT_INIT: str = _core.DEFAULT_INIT
DEFAULT_SCHEDULE: Tuple[float, float] = tuple(_core.DEFAULT_SCHEDULE)  # type: ignore[assignment]
DEFAULT_POLISH: bool = _core.DEFAULT_POLISH
DEFAULT_REFINE: bool = _core.DEFAULT_REFINE
#: ``"auto"``: 0 (descend until nothing moves) while ``n_samples * n_features * k``
#: is at most ``AUTO_SMALL_PROBLEM``, else ``AUTO_TOL_LARGE`` (see :func:`auto_tol`).
DEFAULT_TOL: Tol = "auto"
AUTO_TOL_LARGE: float = _core.AUTO_TOL_LARGE
#: ``n_init="fast"``'s tolerance where ``n_samples * n_features * k`` exceeds ``AUTO_SMALL_PROBLEM``.
FAST_TOL: float = _core.FAST_TOL

def auto_budget(n_samples: int, n_features: int, k: int) -> float:
    """The work ``n_init="auto"`` may spend on data of this shape, in passes
    over the data (one pass: ``n_samples * (n_features * k + 32)``
    multiply-adds; a restart costs its k-means++ start, ``3 + ln k`` passes,
    or its sample's share of ``2 + ln k`` plus one where it is drawn on a
    sample (see ``init``),
    and one pass per sweep or refinement step).

    The larger of 25 passes (about one restart on large problems, what
    scikit-learn's default spends there) and a fixed work of ``2**28``
    multiply-adds while ``n_samples * n_features * k <= 2**20`` (many
    candidates on small problems), falling as ``1 / (n_samples * n_features
    * k)`` to ``2**26`` at ``2**22``; a merge-split proposal counts as the
    passes its splits read. The first restart always runs; where
    :func:`sample_rows` gives a sample, a candidate descended on it first
    (four restarts on the sample, the best descended again on all rows)
    runs beside it, outside the budget. Four restarts, then children of the
    best, run while the work done, plus what a candidate of the next kind
    has cost on average, stays within the budget, until 48 children in a row
    have not lowered the objective, or, once a sixteenth of the budget is
    spent, at least 12 and at least as many as the candidates that ran
    before the best one was found. Where the four restarts end at one
    objective (within a relative ``1e-9``: a solved problem) no child runs.
    Where the candidates' objectives lie more than 0.1 % apart (a rugged
    landscape), the budget is at least 75 passes. Where the sample holds at
    least 512 rows per cluster on a problem of ``2**24`` and more, the whole
    search runs on the sample instead (with this budget, eight passes over
    the sample for each over all rows) and its best, descended once on all
    rows, is the result.

    >>> auto_budget(100_000, 32, 100)
    25.0
    >>> round(auto_budget(150, 4, 3))
    40672
    """
    return float(_core.auto_budget(*_sizes(n_samples, n_features, k)))


def sample_rows(n_samples: int, n_features: int, k: int) -> Optional[int]:
    """The rows of the uniform sample on which ``n_init="auto"`` descends a
    candidate before it descends it on all rows, or ``None`` where it runs
    none: an eighth of the rows, at least 32 per cluster, where
    ``2**21 <= n_samples * n_features * k < 2**24`` and that is at most a
    quarter of the rows; from ``2**24`` up, an eighth of the rows where that
    is at least 512 per cluster, and the search then runs on the sample
    (see :func:`auto_budget`).

    >>> sample_rows(20_000, 16, 10)
    2500
    >>> sample_rows(245_057, 3, 25)
    30632
    >>> sample_rows(100_000, 384, 256) is None
    True
    >>> sample_rows(1_000, 16, 10) is None
    True
    """
    rows = _core.sample_rows(*_sizes(n_samples, n_features, k))
    return None if rows is None else int(rows)


def best_budget(n_samples: int, n_features: int, k: int) -> float:
    """The most work ``n_init="best"`` spends on data of this shape, in passes
    over the data (as :func:`auto_budget` counts them): a hundred times
    :func:`auto_budget`. The search usually ends before, once 48 children
    in a row have not lowered its best objective.

    >>> best_budget(100_000, 32, 100)
    2500.0
    """
    return float(_core.best_budget(*_sizes(n_samples, n_features, k)))


def _sizes(n_samples: int, n_features: int, k: int) -> List[int]:
    sizes = [int64(name, v) for name, v in (("n_samples", n_samples), ("n_features", n_features), ("k", k))]
    for name, v in zip(("n_samples", "n_features", "k"), sizes):
        if v < 0:
            raise ValueError(f"invalid {name}: {v} (must be non-negative)")
    return sizes


def auto_tol(n_samples: int, n_features: int, k: int) -> float:
    """The relative tolerance ``tol="auto"`` uses for data of this shape.

    0 (every descent runs until no point moves) while one pass costs at most
    ``AUTO_SMALL_PROBLEM`` multiply-adds, ``AUTO_TOL_LARGE`` above it: there a
    descent stops once a step lowers the objective by less than that share.

    >>> auto_tol(150, 4, 3), auto_tol(100_000, 32, 100)
    (0.0, 2e-05)
    """
    return _core.auto_tol(*_sizes(n_samples, n_features, k))


def default_n_iter(method: str, n_samples: Optional[int] = None, n_features: Optional[int] = None,
                   k: Optional[int] = None) -> int:
    """What ``n_iter=None`` means for ``method``: Smartigan's schedule length,
    or the cap on Lloyd iterations and Hartigan sweeps. Given the data's
    shape and ``k``, for that shape: Smartigan's schedule is
    ``DEFAULT_N_ITER_LARGE`` sweeps above ``AUTO_SMALL_PROBLEM``
    multiply-adds per pass (one refined restart escapes there instead),
    until its first sweep: where that sweep moves more than
    ``SCHEDULE_OVERLAP_SHARE`` and at most ``SCHEDULE_RANDOM_WALK_SHARE`` of
    the points (overlapping clusters), the schedule runs ``DEFAULT_N_ITER``.
    Its start adapts there too (``SCHEDULE_START_SHARE``).

    >>> default_n_iter("smartigan"), default_n_iter("lloyd")
    (20, 300)
    >>> default_n_iter("smartigan", 100_000, 32, 100)
    5
    """
    if n_samples is None or n_features is None or k is None:
        return _core.default_n_iter(method)
    n, d, kk = _sizes(n_samples, n_features, k)
    return _core.default_n_iter(method, (n, d, kk))



# -- the checks of the core's parameters ---------------------------------------------


def _method(name: str, method: Any) -> str:
    if not isinstance(method, str):
        names = ", ".join(map(repr, METHODS[:-1])) + f" or {METHODS[-1]!r}"
        raise TypeError(f"{name} must be a string ({names}), got {method!r}")
    return method


def _metric(name: str, metric: Any) -> str:
    if not isinstance(metric, str):
        raise TypeError(f"{name} must be a string ({' or '.join(map(repr, METRICS))}), got {metric!r}")
    return metric


def _init(name: str, init: Any) -> Union[str, npt.NDArray[np.float64]]:
    if isinstance(init, str):
        return init
    return np.ascontiguousarray(as_data(init, name), dtype=np.float64)


def _schedule(name: str, schedule: Any) -> Tuple[float, float]:
    try:
        start, end = schedule
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a pair (start, end) of numbers, got {schedule!r}") from None
    for v in (start, end):
        if not is_real(v):
            raise TypeError(f"{name} must be a pair (start, end) of numbers, got {schedule!r}")
    return float(start), float(end)


def _tol(name: str, tol: Any) -> Union[float, str]:
    """``"auto"`` as it is, else a float (the core checks its range)."""
    if isinstance(tol, str):
        if tol == "auto":
            return tol
        raise ValueError(f"invalid {name}: {tol!r} (must be a number >= 0 or 'auto')")
    if not is_real(tol):
        raise TypeError(f"{name} must be a number >= 0 or 'auto', got {tol!r} ({type(tol).__name__})")
    return float(tol)


def _optional_int64(name: str, value: Any) -> Optional[int]:
    return None if value is None else int64(name, value)


def _n_init(name: str, n_init: Any) -> Union[int, str]:
    """``"auto"``, ``"best"`` or ``"fast"`` as they are (the core reads them), else a checked integer."""
    if isinstance(n_init, str):
        if n_init in N_INIT_NAMES:
            return n_init
        raise ValueError(f"invalid {name}: {n_init!r} (must be a positive integer, {_N_INIT_WORDS})")
    if not is_integer(n_init):
        raise TypeError(f"{name} must be an integer, {_N_INIT_WORDS}, got {n_init!r} ({type(n_init).__name__})")
    return int64(name, n_init)


def _size_bound(name: str, bound: Any) -> Union[None, int, str, List[int]]:
    """``None``, ``"balanced"``, an integer, or a sequence of integers as a
    list (the core checks the values against ``k`` and the data)."""
    if bound is None or (isinstance(bound, str) and bound == "balanced"):
        return bound
    if isinstance(bound, str):
        raise ValueError(f"invalid {name}: {bound!r} (must be an integer, a sequence of k integers or 'balanced')")
    if is_integer(bound):
        return int64(name, bound)
    try:
        values = np.asarray(bound)
    except (TypeError, ValueError):
        values = np.asarray(None)
    if values.ndim != 1 or values.dtype.kind not in "iu":
        raise TypeError(f"{name} must be an integer, a sequence of k integers, 'balanced' or None, got {bound!r}")
    return [int64(f"{name}[{j}]", v) for j, v in enumerate(values.tolist())]


def _weights(name: str, sample_weight: Any) -> Optional[npt.NDArray[np.float64]]:
    return as_weights(sample_weight)


def _optional_positive(name: str, value: Any) -> Optional[int]:
    return None if value is None else positive(name, value)


# -- the table -----------------------------------------------------------------------

#: The default of a parameter that has none (``inspect.Parameter.empty``).
REQUIRED: Any = inspect.Parameter.empty

Check = Callable[[str, Any], Any]


@dataclass(frozen=True)
class Parameter:
    """One parameter: its name, type (as docstrings write it), default, check
    and meaning. ``summary`` is one line (the command line's help starts
    with it); ``details`` completes it in docstrings."""

    name: str
    type: str
    default: Any
    summary: str
    details: str = ""
    #: ``check(name, value)``: the value as the front end uses it, or
    #: ``TypeError``/``ValueError`` naming ``name``. None: checked elsewhere
    #: (the data, coerced by :mod:`smartigan._arrays`).
    check: Optional[Check] = field(default=None, repr=False, compare=False)

    def validate(self, value: Any) -> Any:
        """``value`` through this parameter's check (as it is where there is none)."""
        return value if self.check is None else self.check(self.name, value)

    def but(self, **changes: Any) -> "Parameter":
        """This parameter with ``changes`` (another name, default or type in one front end)."""
        return dataclasses.replace(self, **changes)

    @property
    def doc(self) -> str:
        """The meaning: ``summary``, then ``details``."""
        return f"{self.summary} {self.details}".strip()

    def heading(self) -> str:
        """The docstring line ``name : type, default=...``."""
        if self.default is REQUIRED:
            return f"{self.name} : {self.type}"
        shown = f'"{self.default}"' if isinstance(self.default, str) else repr(self.default)
        return f"{self.name} : {self.type}, default={shown}"


def _power(n: int) -> str:
    """``n`` as ``2**e`` (the problem-size thresholds are powers of two)."""
    e = n.bit_length() - 1
    return f"2**{e}" if n == 1 << e else str(n)


_SMALL = _power(AUTO_SMALL_PROBLEM)
_PP_ROWS = _core.PLUS_PLUS_ROWS_PER_CENTRE

#: The parameters that several front ends share, by name: the core's (in
#: the order their checks run in :func:`core_params`, which decides which of
#: several wrong settings is reported), the data, the weights, and the
#: estimators' ``random_state``, ``n_clusters`` and ``max_iter``.
PARAMETERS: Dict[str, Parameter] = {p.name: p for p in (
    Parameter(
        "method", '{"smartigan", "hartigan", "lloyd"}', DEFAULT_METHOD,
        'The algorithm: ``"lloyd"``, nearest-centroid iterations; ``"hartigan"``, single-point transfers in '
        'a random order each sweep; ``"smartigan"``, Hartigan with an acceptance factor falling along '
        '``schedule`` (the paper\'s variant).',
        check=_method),
    Parameter(
        "metric", '{"euclidean", "cosine"}', DEFAULT_METRIC,
        'What is minimised: ``"euclidean"``, the sum of squared distances to the cluster means (k-means); '
        '``"cosine"``, the sum of ``1 - cos`` between each row and its cluster\'s direction (spherical '
        'k-means).',
        "With ``\"cosine\"`` rows are compared by direction alone (each is scaled to unit length, and a "
        "row of length zero is an error), centroids are unit vectors (the normalised sums of their rows' "
        "directions), every method and option applies with this loss in place of the squared distance, "
        "and ``predict`` and ``transform`` use the largest cosine and the cosine distance. See "
        "docs/cosine.md.",
        check=_metric),
    Parameter(
        "init", '{"k-means++", "random-partition", "forgy"} or array of shape (k, n_features)', DEFAULT_INIT,
        "How each restart starts: greedy k-means++ seeding, every point in a random cluster (the paper's "
        "start), distinct rows as centroids (Forgy), or the given centroids.",
        f"On large problems (at least {_core.LARGE_PROBLEM_ROWS:,} rows and ``n_samples * n_features * k "
        f">= {_power(_core.LARGE_PROBLEM_WORK)}``, where ``{_PP_ROWS} * k`` rows are at most half of them) "
        f"k-means++ draws its centres from a uniform sample of ``{_PP_ROWS} * k`` rows of positive weight, "
        "then assigns every row; :func:`~smartigan.kmeans_plusplus` always uses every row.",
        check=_init),
    Parameter(
        "schedule", "(float, float)", DEFAULT_SCHEDULE,
        "Smartigan's acceptance factor at the first sweep and, in the limit, at sweep ``n_iter``: "
        "``start - (start - end) * t / n_iter``.",
        f"With ``n_iter=None`` where ``n_samples * n_features * k`` exceeds {_SMALL}, the start is lowered "
        f"to the factor below which {SCHEDULE_START_SHARE:.0%} of a sample of points would move, where "
        "that is below ``start`` (never below ``end``); the result's ``schedule_start`` reports the start "
        "used.",
        check=_schedule),
    Parameter(
        "polish", "bool", DEFAULT_POLISH,
        "Finish Smartigan with Hartigan sweeps until no point moves.",
        check=flag),
    Parameter(
        "refine", "bool", DEFAULT_REFINE,
        "After each restart converges, try merge-split moves and keep them where they lower the objective.",
        "A move merges the two clusters whose merge costs least, splits the cluster a 2-means split helps "
        "most and re-converges with the method's own steps. It repairs the \"two groups under one centroid, "
        "one group under two\" optima that no single-point move can leave. Dense and sparse input alike.",
        check=flag),
    Parameter(
        "tol", 'float or "auto"', DEFAULT_TOL,
        "Early stop of every descent: a step that lowers the objective by at most ``tol`` times the "
        "objective ends it, reported as converged.",
        "Steps are Lloyd iterations, Hartigan sweeps, Smartigan's polishing sweeps (its schedule always "
        "runs) and refinement's re-converging steps; with ``tol > 0`` refinement also tries only "
        "merge-split moves that lower the objective by themselves. ``0`` runs until no point moves, so "
        "every Hartigan or polished Smartigan result is a local optimum for single-point moves. "
        f"``\"auto\"``: 0 while ``n_samples * n_features * k`` is at most {_SMALL}, else {AUTO_TOL_LARGE} "
        f"({FAST_TOL} with ``n_init=\"fast\"``; :func:`smartigan._params.auto_tol`): on overlapping "
        "clusters a full descent's last hundreds of sweeps gain a few hundredths of a per cent. Relative to the objective, unlike scikit-learn's "
        "``tol`` (a centroid shift scaled by the data's variance), so it does not depend on the data's "
        "scale.",
        check=_tol),
    Parameter(
        "k", "int", REQUIRED,
        "Number of clusters, from 1 to ``n_samples``.",
        check=int64),
    Parameter(
        "n_iter", "int or None", None,
        "Smartigan's schedule length; for Lloyd and Hartigan a cap on iterations or sweeps, which stop "
        "earlier once nothing changes.",
        f"``None``: a schedule of {DEFAULT_N_ITER} sweeps, or {DEFAULT_N_ITER_LARGE} where "
        f"``n_samples * n_features * k`` exceeds {_SMALL} unless the first sweep moves more than "
        f"{SCHEDULE_OVERLAP_SHARE:.0%} and at most {SCHEDULE_RANDOM_WALK_SHARE:.0%} of the points (overlapping "
        "clusters, where the long schedule pays), polishing sweeps on top; for Lloyd and Hartigan "
        f"{DEFAULT_MAX_ITER} (scikit-learn's ``max_iter``); see :func:`smartigan._params.default_n_iter`. "
        "With ``refine=True`` a restart that converged before the cap (Smartigan: after its schedule and "
        "polish) then takes at most as many merge-split refinement steps again (at least 50), counted in "
        "its sweeps.",
        check=_optional_int64),
    Parameter(
        "seed", "int or None", None,
        "Seed in ``[0, 2**64)``; where none is given one is drawn, and reported as the result's ``seed``.",
        "The same seed, data and version give bit-identical results for any ``n_threads``.",
        check=seed),
    Parameter(
        "n_init", 'int, "auto", "best" or "fast"', DEFAULT_N_INIT,
        'Restarts, run in parallel; the lowest objective wins. ``"auto"``: as many as a budget of work '
        'allows; ``"best"``: a best-effort search; ``"fast"``: one descent, for about the time of one '
        'Lloyd run.',
        '``"auto"`` runs restarts while their work, counted in passes over the data, stays within '
        ":func:`smartigan._params.auto_budget` (four restarts, then children of the best while they "
        "lower the objective, on small problems; about one restart on large ones), and runs no child "
        "where the four restarts end at one objective. ``\"best\"`` searches for the "
        "lowest objective it can find: ten restarts, then generations of eight children (a member's "
        "centroids partly moved to costly points, descended and refined) until 48 children in a row "
        "lower nothing, within :func:`smartigan._params.best_budget` passes. ``\"fast\"`` runs one "
        "restart without merge-split refinement (whatever ``refine`` says), Smartigan's relaxed schedule "
        "skipped (its Hartigan polish alone, ``n_iter`` capping its sweeps as for Hartigan; Lloyd and "
        "Hartigan as they are), and with ``tol=\"auto\"`` "
        f"ends it once a step gains at most {FAST_TOL} of the objective (0 while ``n_samples * n_features * k`` "
        f"is at most {_SMALL}), where a sweep's gain has fallen to a few hundredths of what the first "
        "sweeps gained. The restarts run depend on the data and the seed, never on the threads or the machine.",
        check=_n_init),
    Parameter(
        "n_threads", "int or None", None,
        "The most threads this call uses (all cores where none is given); results do not depend on it.",
        "No more are started than the machine runs at once.",
        check=_optional_int64),
    Parameter(
        "size_min", 'int, array-like of k ints, "balanced" or None', None,
        "The fewest rows each cluster may hold: one number for every cluster, one per cluster (in label "
        'order), or ``"balanced"`` (``n_samples // k``). Rows are counted, with or without ``sample_weight``.',
        "Bounds that bind are met exactly by every result: each restart starts from a feasible assignment "
        "and descends by transfers that keep the bounds, by optimal assignments within the bounds at fixed "
        "centroids and by swaps of two rows between clusters, until none of them lowers the objective (every "
        "swap checked where ``tol`` is 0), with either ``metric`` (docs/bounded-sizes.md). Merge-split refinement is skipped "
        "there; ``predict`` stays nearest-centroid. ``None``, like bounds every clustering meets (a minimum "
        "of at most 1), changes nothing: the fit is the unconstrained one, bit for bit. Bounds no clustering "
        "can meet raise ``ValueError`` before any work; ``method=\"lloyd\"`` takes no bounds that bind.",
        check=_size_bound),
    Parameter(
        "size_max", 'int, array-like of k ints, "balanced" or None', None,
        "The most rows each cluster may hold: one number for every cluster, one per cluster, or "
        '``"balanced"`` (``ceil(n_samples / k)``); rows are counted, as for ``size_min``.',
        "A maximum of at least ``n_samples - k + 1`` binds nothing (no fit gives a cluster more rows).",
        check=_size_bound),
    Parameter(
        "X", "array-like or SciPy sparse matrix of shape (n_samples, n_features)", REQUIRED,
        "The data, one point per row: real numbers, dense or sparse.",
        "float32 and float64 C-ordered arrays are used without a copy; other real data become float64. "
        "Sparse input (CSR; CSC, COO and others are converted) is read without densifying it, in "
        "O(nnz * k) per sweep; centroids come back dense."),
    Parameter(
        "sample_weight", "array-like of shape (n_samples,) or None", None,
        "Non-negative weight of each row.",
        "The objective becomes the weighted sum of squared distances, centroids are weighted means, "
        "Hartigan's transfer test uses cluster weights and k-means++ samples by weight times squared "
        "distance; an integer weight acts like repeating the row. Zero weights are allowed (such points "
        "join their nearest centroid); at least ``k`` weights must be positive.",
        check=_weights),
    Parameter(
        "random_state", "int, numpy.random.RandomState, numpy.random.Generator or None", None,
        "Where the seed comes from: an int in ``[0, 2**64)`` is the seed itself, as ``seed`` of "
        ":func:`smartigan.cluster`.",
        "A ``RandomState`` or ``Generator`` gives one draw per fit, advancing its state; ``None`` draws "
        "from NumPy's global random state, as scikit-learn does. The seed used is ``seed_``; results do "
        "not depend on ``n_threads``.",
        check=random_state),
)}
# The estimators' (scikit-learn's) names for two of them; they check the
# lower bound themselves, so that a message names the estimator's parameter.
PARAMETERS["n_clusters"] = PARAMETERS["k"].but(name="n_clusters", default=8, check=positive)
PARAMETERS["max_iter"] = PARAMETERS["n_iter"].but(name="max_iter", check=_optional_positive)

# The settings of the core's parameter object, in the order of their checks.
_CORE = ("method", "metric", "init", "schedule", "polish", "refine", "tol", "k", "n_iter", "seed", "n_init", "n_threads",
         "size_min", "size_max")


def core_params(**settings: Any) -> _core.Params:
    """The core's parameter object for ``settings`` (named as the arguments
    of :func:`smartigan.cluster`, ``k`` required), with their Python types
    checked; settings left out keep the core's defaults.

    >>> params = core_params(k=3, method="lloyd", n_init="auto")
    >>> core_params(k=2.5)
    Traceback (most recent call last):
    TypeError: k must be an integer, got 2.5 (float)
    """
    unknown = sorted(settings.keys() - set(_CORE))
    if unknown:
        raise TypeError(f"unknown parameters: {', '.join(unknown)}")
    checked = {name: PARAMETERS[name].validate(settings[name]) for name in _CORE if name in settings}
    if checked.get("tol") == "auto":
        checked["tol"] = None  # the core's "auto": it chooses by the data's shape
    return _core.Params(**checked)


# -- front ends ----------------------------------------------------------------------

_T = TypeVar("_T")
#: Where a docstring's Parameters section is written from the table.
PLACEHOLDER = "{parameters}"
_WIDTH = 100
_NBSP = "\u00a0"


@dataclass(frozen=True)
class FrontEnd:
    """The parameters of one front end, in its signature's order.

    ``notes`` adds, to a shared parameter's meaning, what it does in this
    front end alone.
    """

    name: str
    parameters: Tuple[Parameter, ...]
    notes: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        names = [p.name for p in self.parameters]
        stray = set(self.notes) - set(names)
        if len(set(names)) != len(names) or stray:
            raise ValueError(f"{self.name}: a parameter named twice in {names}, or notes for parameters it does "
                             f"not have: {sorted(stray)}")

    def __getitem__(self, name: str) -> Parameter:
        for p in self.parameters:
            if p.name == name:
                return p
        raise KeyError(name)

    @property
    def names(self) -> Tuple[str, ...]:
        return tuple(p.name for p in self.parameters)

    def entry(self, name: str, indent: str = "") -> str:
        """The docstring entry of ``name``: heading, then meaning and note, wrapped."""
        p = self[name]
        text = f"{p.doc} {self.notes.get(name, '')}".strip()
        # Lines break between words, never inside a ``literal``.
        parts = text.split("``")
        text = "``".join(part.replace(" ", _NBSP) if i % 2 else part for i, part in enumerate(parts))
        body = textwrap.fill(text, _WIDTH - len(indent), initial_indent="    ", subsequent_indent="    ",
                             break_long_words=False, break_on_hyphens=False).replace(_NBSP, " ")
        return textwrap.indent(f"{p.heading()}\n{body}", indent)

    def document(self, obj: _T) -> _T:
        """``obj`` with the line ``{parameters}`` of its docstring replaced by
        the entries of every parameter, in order (a decorator)."""
        if obj.__doc__ is None:
            return obj  # docstrings stripped (python -OO)
        lines = obj.__doc__.split("\n")
        at = [i for i, line in enumerate(lines) if line.strip() == PLACEHOLDER]
        if len(at) != 1:
            raise ValueError(f"{self.name}: its docstring needs one line {PLACEHOLDER}")
        indent = lines[at[0]][: len(lines[at[0]]) - len(lines[at[0]].lstrip())]
        entries = "\n".join(self.entry(p.name, indent) for p in self.parameters)
        lines[at[0]] = entries
        obj.__doc__ = "\n".join(lines)
        return obj

    def check(self, values: Mapping[str, Any]) -> Dict[str, Any]:
        """Every value of ``values`` (named as this front end names them)
        through its parameter's check, in signature order; the checked
        values by name."""
        out: Dict[str, Any] = {}
        for p in self.parameters:
            if p.name in values:
                out[p.name] = p.validate(values[p.name])
        return out


def front_end(name: str, *parameters: Union[str, Parameter], notes: Optional[Mapping[str, str]] = None) -> FrontEnd:
    """A :class:`FrontEnd` of table parameters (by name) and its own (as :class:`Parameter`)."""
    return FrontEnd(name, tuple(PARAMETERS[p] if isinstance(p, str) else p for p in parameters), dict(notes or {}))
