"""The only place where :mod:`smartigan.dask` calls the private extension.

Every call into ``smartigan._core`` made by the Dask estimator goes through
the two functions below, so that a rename in the bindings is a one-file fix
here. Both run on the workers, one block at a time; the Rust kernels release
the GIL and compute every squared distance in float64, so a block's labels do
not depend on the thread count or on which worker runs it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from .. import _core

__all__ = ["nearest", "distances"]


def nearest(x: npt.NDArray[Any], centres: npt.NDArray[Any], metric: str = "euclidean") -> npt.NDArray[np.int64]:
    """Index of the nearest centre for each row of ``x`` (ties to the lowest
    index); with ``metric="cosine"``, of the largest cosine.

    ``x`` and ``centres`` must share a dtype (float32 or float64); ``x`` is
    C-contiguous and finite, and for ``"cosine"`` has no row of length zero
    (the callers check all of these).
    """
    if x.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    return np.asarray(_core.predict(x, centres, metric), dtype=np.int64)


def distances(x: npt.NDArray[Any], centres: npt.NDArray[Any], metric: str = "euclidean") -> npt.NDArray[Any]:
    """Euclidean distance (``metric="cosine"``: ``1 - cos``) from each row of
    ``x`` to each centre, shape (n, k), in ``x``'s dtype."""
    if x.shape[0] == 0:
        return np.zeros((0, centres.shape[0]), dtype=x.dtype)
    return np.asarray(_core.transform(x, centres, metric))
