"""The one import of Dask for :mod:`smartigan.dask`, with the install hint
where it is missing. Dask's own annotations are partial; the package treats
its objects as ``Any``."""

from __future__ import annotations

from typing import Any

try:
    import dask as _dask_mod
    import dask.array as _da_mod
except ImportError as _import_error:  # pragma: no cover - exercised only without dask
    raise ImportError(
        "smartigan.dask needs dask; install it with `pip install 'smartigan[dask]'` "
        f"(or `pip install 'dask[array]' distributed`). Original error: {_import_error}"
    ) from _import_error

__all__ = ["dask", "da"]

dask: Any = _dask_mod
da: Any = _da_mod
