"""The checks of single values that every front end shares: one integer
check, one number check, one seed check (and the estimators'
``random_state`` on top of it), flags and names.

Each takes the parameter's name and the value, returns the value in the
form the caller uses, and raises ``TypeError`` for an object of the wrong
kind or ``ValueError`` for a value out of range, naming the parameter and
the value. The parameter table (:mod:`smartigan._params`) attaches them to
the parameters; sample weights are checked with the data, by
:func:`smartigan._arrays.as_weights` and
:func:`smartigan._arrays.check_weight_values`.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Optional, Sequence

import numpy as np

__all__ = ["is_integer", "is_real", "integer", "positive", "int64", "number", "flag", "seed", "random_state", "choice",
           "SEED_BOUND"]

#: Seeds are integers in ``[0, SEED_BOUND)``: the core's 64-bit seeds.
SEED_BOUND = 2**64
_I64 = 2**63


def is_integer(value: Any) -> bool:
    """Whether ``value`` is an integer (Python or NumPy); booleans are not."""
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def is_real(value: Any) -> bool:
    """Whether ``value`` is a real number (Python or NumPy); booleans are not."""
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def integer(name: str, value: Any, least: Optional[int] = None) -> int:
    """``value`` as an int, at least ``least`` where one is given.

    >>> integer("k", 3), integer("k", np.int32(3))
    (3, 3)
    >>> integer("init_rounds", 0, least=1)
    Traceback (most recent call last):
    ValueError: invalid init_rounds: 0 (must be at least 1)
    >>> integer("k", True)
    Traceback (most recent call last):
    TypeError: k must be an integer, got True (bool)
    """
    if not is_integer(value):
        raise TypeError(f"{name} must be an integer, got {value!r} ({type(value).__name__})")
    v = int(value)
    if least is not None and v < least:
        raise ValueError(f"invalid {name}: {v} (must be at least {least})")
    return v


def positive(name: str, value: Any) -> int:
    """``value`` as an int of at least 1 (:func:`integer` with ``least=1``)."""
    return integer(name, value, least=1)


def int64(name: str, value: Any) -> int:
    """An integer that the core's 64-bit arguments can hold (the core checks its range)."""
    v = integer(name, value)
    if not -_I64 <= v < _I64:
        raise ValueError(f"invalid {name}: {v} (out of range)")
    return v


def number(name: str, value: Any, least: float, strict: bool = False) -> float:
    """``value`` as a finite float, at least ``least`` (above it with ``strict``).

    >>> number("oversampling", 2, 0.0, strict=True)
    2.0
    >>> number("tol", float("nan"), 0.0)
    Traceback (most recent call last):
    ValueError: invalid tol: nan (must be a finite number >= 0.0)
    """
    if not is_real(value):
        raise TypeError(f"{name} must be a number, got {value!r} ({type(value).__name__})")
    v = float(value)
    if not math.isfinite(v) or v < least or (strict and v == least):
        raise ValueError(f"invalid {name}: {value!r} (must be a finite number {'>' if strict else '>='} {least})")
    return v


def flag(name: str, value: Any) -> bool:
    """``value`` as a bool; only ``True`` and ``False`` (Python or NumPy) are flags."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def seed(name: str, value: Any) -> Optional[int]:
    """A seed: ``None`` (draw one) or an integer in ``[0, 2**64)``.

    >>> seed("seed", None), seed("seed", np.uint64(2**64 - 1))
    (None, 18446744073709551615)
    >>> seed("seed", -1)
    Traceback (most recent call last):
    ValueError: invalid seed: -1 (must be in [0, 2**64) or None)
    """
    if value is None:
        return None
    if not is_integer(value):
        raise TypeError(f"{name} must be an integer in [0, 2**64) or None, got {value!r} ({type(value).__name__})")
    s = int(value)
    if not 0 <= s < SEED_BOUND:
        raise ValueError(f"invalid {name}: {s} (must be in [0, 2**64) or None)")
    return s


def random_state(name: str, value: Any) -> int:
    """The seed for a scikit-learn style ``random_state``.

    An integer is checked as :func:`seed` checks it and used as the seed
    itself, so that ``random_state=s`` and ``seed=s`` start from the same
    restarts. A ``numpy.random.RandomState`` or ``numpy.random.Generator``
    gives one draw, advancing its state; ``None`` draws from NumPy's global
    ``RandomState``, as scikit-learn does (``np.random.seed`` then repeats
    the fit).

    >>> random_state("random_state", 7)
    7
    >>> a = random_state("random_state", np.random.RandomState(0))
    >>> a == random_state("random_state", np.random.RandomState(0))
    True
    >>> random_state("random_state", True)
    Traceback (most recent call last):
    TypeError: random_state must be an integer in [0, 2**64), a numpy.random.RandomState, a numpy.random.Generator or None, got True (bool)
    """
    if value is None:
        value = np.random.mtrand._rand
    if isinstance(value, np.random.RandomState):
        return int(value.randint(0, _I64 - 1, dtype=np.int64))
    if isinstance(value, np.random.Generator):
        return int(value.integers(0, _I64 - 1, dtype=np.int64))
    if not is_integer(value):
        raise TypeError(f"{name} must be an integer in [0, 2**64), a numpy.random.RandomState, a "
                        f"numpy.random.Generator or None, got {value!r} ({type(value).__name__})")
    s = int(value)
    if not 0 <= s < SEED_BOUND:
        raise ValueError(f"invalid {name}: {s} (must be in [0, 2**64))")
    return s


def choice(name: str, value: Any, allowed: Sequence[Optional[str]]) -> Optional[str]:
    """``value`` if it is one of the names ``allowed`` (``None`` only where allowed).

    >>> choice("keep", "all", ("all", "summaries"))
    'all'
    >>> choice("keep", "some", ("all", "summaries"))
    Traceback (most recent call last):
    ValueError: invalid keep: 'some' (allowed: 'all', 'summaries')
    """
    names = ", ".join(map(repr, allowed))
    if value is None and None in allowed:
        return None
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one of {names}, got {value!r} ({type(value).__name__})")
    if value not in allowed:
        raise ValueError(f"invalid {name}: {value!r} (allowed: {names})")
    return value
