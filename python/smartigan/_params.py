"""Parameters: the core's names and defaults, the Python type checks, and
the one conversion to the core's parameter object (:func:`core_params`).

Every name and default here comes from the compiled core (``_core``); the
front end (:mod:`smartigan._api`), the scikit-learn estimator and the
command line take them from this module. The checks raise ``TypeError``
for objects of the wrong kind and ``ValueError`` only where Python alone
can tell (integers beyond 64 bits, an unknown ``n_init`` string); ranges and
names are checked by the core.
"""

from __future__ import annotations

import numbers
from typing import Any, Callable, Dict, List, Literal, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

from . import _core
from ._arrays import as_data

__all__ = [
    "METHODS",
    "INITS",
    "Method",
    "InitName",
    "InitArg",
    "NInit",
    "Tol",
    "auto_budget",
    "auto_tol",
    "default_n_iter",
    "core_params",
    "integer",
]

#: The method names, in the core's order (``lloyd``, ``hartigan``, ``smartigan``).
METHODS: Tuple[str, ...] = tuple(_core.METHODS)
#: The named initialisations, in the core's order.
INITS: Tuple[str, ...] = tuple(_core.INITS)

# Type checkers need the names spelled out; tests/python/test_params.py
# checks that these are METHODS and INITS.
Method = Literal["lloyd", "hartigan", "smartigan"]
InitName = Literal["random-partition", "forgy", "k-means++"]
InitArg = Union[InitName, str, npt.ArrayLike]
NInit = Union[int, Literal["auto", "best"]]
Tol = Union[float, Literal["auto"]]

DEFAULT_METHOD: str = _core.DEFAULT_METHOD
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
#: ``"best"``: the best-effort search (a population of restarts and their children).
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

_I64 = 2**63


def _is_integer(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def integer(name: str, value: Any) -> int:
    """``value`` as an int, or ``TypeError`` naming ``name`` (booleans are not integers).

    >>> integer("k", 3), integer("k", np.int32(3))
    (3, 3)
    """
    if not _is_integer(value):
        raise TypeError(f"{name} must be an integer, got {value!r} ({type(value).__name__})")
    return int(value)


def _int64(name: str, value: Any) -> int:
    """An integer the core's 64-bit arguments can hold (the core checks its range)."""
    v = integer(name, value)
    if not -_I64 <= v < _I64:
        raise ValueError(f"invalid {name}: {v} (out of range)")
    return v


def _seed(seed: Any) -> Optional[int]:
    if seed is None:
        return None
    if not _is_integer(seed):
        raise TypeError(f"seed must be an integer in [0, 2**64) or None, got {seed!r} ({type(seed).__name__})")
    s = int(seed)
    if not 0 <= s < 2**64:
        raise ValueError(f"invalid seed: {s} (must be in [0, 2**64) or None)")
    return s


def auto_budget(n_samples: int, n_features: int, k: int) -> float:
    """The work ``n_init="auto"`` may spend on data of this shape, in passes
    over the data (one pass: ``n_samples * (n_features * k + 32)``
    multiply-adds; a restart costs its k-means++ start, ``3 + ln k`` passes,
    and one pass per sweep or refinement step).

    The larger of ``2**26`` multiply-adds (what a fit may cost whatever its
    size: many restarts on small problems) and 25 passes (about one restart
    on large ones, what scikit-learn's default spends there). The first
    restart always runs; more run while the work done, plus what a restart
    has cost on average, stays within the budget, until three restarts end
    at the lowest objective.

    >>> auto_budget(100_000, 32, 100)
    25.0
    >>> round(auto_budget(150, 4, 3))
    10168
    """
    return float(_core.auto_budget(*_sizes(n_samples, n_features, k)))


def _sizes(n_samples: int, n_features: int, k: int) -> List[int]:
    sizes = [_int64(name, v) for name, v in (("n_samples", n_samples), ("n_features", n_features), ("k", k))]
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


def _method(method: Any) -> str:
    if not isinstance(method, str):
        names = ", ".join(map(repr, METHODS[:-1])) + f" or {METHODS[-1]!r}"
        raise TypeError(f"method must be a string ({names}), got {method!r}")
    return method


def _init(init: Any) -> Union[str, npt.NDArray[np.float64]]:
    if isinstance(init, str):
        return init
    return np.ascontiguousarray(as_data(init, "init"), dtype=np.float64)


def _schedule(schedule: Any) -> Tuple[float, float]:
    try:
        start, end = schedule
    except (TypeError, ValueError):
        raise TypeError(f"schedule must be a pair (start, end) of numbers, got {schedule!r}") from None
    for v in (start, end):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real):
            raise TypeError(f"schedule must be a pair (start, end) of numbers, got {schedule!r}")
    return float(start), float(end)


def _flag(name: str) -> Callable[[Any], bool]:
    def check(flag: Any) -> bool:
        if not isinstance(flag, (bool, np.bool_)):
            raise TypeError(f"{name} must be True or False, got {flag!r}")
        return bool(flag)

    return check


def _tol(tol: Any) -> Optional[float]:
    """``None`` for ``"auto"`` (the core then chooses by the data's shape), else a float."""
    if isinstance(tol, str):
        if tol == "auto":
            return None
        raise ValueError(f"invalid tol: {tol!r} (must be a number >= 0 or 'auto')")
    if isinstance(tol, (bool, np.bool_)) or not isinstance(tol, numbers.Real):
        raise TypeError(f"tol must be a number >= 0 or 'auto', got {tol!r} ({type(tol).__name__})")
    return float(tol)


def _optional_int64(name: str) -> Callable[[Any], Optional[int]]:
    def check(value: Any) -> Optional[int]:
        return None if value is None else _int64(name, value)

    return check


def _n_init(n_init: Any) -> Union[int, str]:
    """``"auto"`` or ``"best"`` as they are (the core reads them), else a checked integer."""
    if isinstance(n_init, str):
        if n_init in ("auto", "best"):
            return n_init
        raise ValueError(f"invalid n_init: {n_init!r} (must be a positive integer, 'auto' or 'best')")
    if not _is_integer(n_init):
        raise TypeError(f"n_init must be an integer, 'auto' or 'best', got {n_init!r} ({type(n_init).__name__})")
    return _int64("n_init", n_init)


# The check of each setting, by name. They run in this order, which decides
# which of several wrong settings is reported.
_CHECKS: Dict[str, Callable[[Any], Any]] = {
    "method": _method,
    "init": _init,
    "schedule": _schedule,
    "polish": _flag("polish"),
    "refine": _flag("refine"),
    "tol": _tol,
    "k": lambda k: _int64("k", k),
    "n_iter": _optional_int64("n_iter"),
    "seed": _seed,
    "n_init": _n_init,
    "n_threads": _optional_int64("n_threads"),
}


def core_params(**settings: Any) -> _core.Params:
    """The core's parameter object for ``settings`` (named as the arguments
    of :func:`smartigan.cluster`, ``k`` required), with their Python types
    checked; settings left out keep the core's defaults.

    >>> params = core_params(k=3, method="lloyd", n_init="auto")
    >>> core_params(k=2.5)
    Traceback (most recent call last):
    TypeError: k must be an integer, got 2.5 (float)
    """
    unknown = sorted(settings.keys() - _CHECKS.keys())
    if unknown:
        raise TypeError(f"unknown parameters: {', '.join(unknown)}")
    checked = {name: check(settings[name]) for name, check in _CHECKS.items() if name in settings}
    return _core.Params(**checked)
