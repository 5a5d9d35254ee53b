"""Coercion of the Dask estimator's inputs: dask arrays, dask DataFrames
and NumPy arrays as a 2-d float dask array chunked along rows only, and
sample weights chunked like it. Kinds and shapes are checked here, on the
client; values (NaN, negative weights) as each block is read
(:mod:`._blocks`)."""

from __future__ import annotations

import math
from typing import Any, Optional, Tuple

import numpy as np

from .._arrays import as_weights, check_weight_dtype
from .._checks import is_real
from ._dask import da

__all__ = ["as_dask_rows", "as_dask_weights", "is_dask_dataframe"]


def _float_dtype(dtype: np.dtype[Any], name: str) -> np.dtype[Any]:
    """The float dtype data of ``dtype`` is clustered in, or TypeError."""
    kind = dtype.kind
    if kind == "f" and dtype.itemsize in (4, 8):
        return np.dtype(dtype.type)
    if kind in "iu" or (kind == "f" and dtype.itemsize > 8):
        return np.dtype(np.float64)
    if dtype == np.float16:
        raise TypeError(f"{name} has dtype float16, which is not supported; use {name}.astype(np.float32)")
    raise TypeError(f"{name} has dtype {dtype}; expected real numbers (float32, float64 or integers)")


def is_dask_dataframe(X: Any) -> bool:
    return hasattr(X, "to_dask_array") and hasattr(X, "dtypes") and hasattr(X, "npartitions")


def _numeric_frame(X: Any, name: str) -> Any:
    """The dask DataFrame ``X`` with every column a NumPy number: pandas'
    nullable integers and floats (``Int64``, ``Float64``, ...) become float64
    (a missing value becomes NaN, reported with its row when a block is
    read); anything else (text, categories, booleans, dates) is a
    ``TypeError`` naming the column."""
    casts = {}
    for column, dtype in X.dtypes.items():
        if isinstance(dtype, np.dtype):
            if dtype.kind not in "iuf":
                raise TypeError(f"{name} column {column!r} has dtype {dtype}; every column must be numeric")
        elif getattr(dtype, "kind", "O") in "iuf":  # a pandas extension dtype holding numbers
            casts[column] = "float64"
        else:
            raise TypeError(f"{name} column {column!r} has dtype {dtype}; every column must be numeric")
    return X.astype(casts) if casts else X


def as_dask_rows(X: Any, name: str = "X", known_lengths: bool = True) -> Tuple[Any, bool]:
    """``X`` as a 2-d float dask array chunked along rows only, and whether it came in as NumPy.

    Dask DataFrames become arrays with known partition lengths (one pass over
    them); feature-axis chunks are merged, since each task needs whole rows.
    """
    from_numpy = False
    if is_dask_dataframe(X):
        arr = _numeric_frame(X, name).to_dask_array(lengths=known_lengths)
    elif isinstance(X, da.Array):
        arr = X
    else:
        if hasattr(X, "tocsr") and hasattr(X, "nnz"):
            raise TypeError(f"{name} must be dense; sparse matrices are not supported by smartigan.dask")
        try:
            local = np.asarray(X)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} could not be converted to a numeric array: {exc}") from None
        if local.ndim != 2:
            raise ValueError(f"{name} must be a 2-d array (n_samples, n_features), got shape {local.shape}")
        if local.shape[1] == 0:  # before dask chunks it (its "auto" chunks divide by the row's size)
            raise ValueError(f"{name} has 0 features; need at least one")
        local = local.astype(_float_dtype(local.dtype, name), copy=False)
        arr = da.from_array(np.ascontiguousarray(local), chunks=("auto", -1))
        from_numpy = True
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-d array (n_samples, n_features), got shape {arr.shape}")
    if arr.shape[1] == 0:
        raise ValueError(f"{name} has 0 features; need at least one")
    dtype = _float_dtype(np.dtype(arr.dtype), name)
    if dtype != arr.dtype:
        arr = arr.astype(dtype)
    if known_lengths and any(math.isnan(c) for c in arr.chunks[0]):
        raise ValueError(
            f"{name} has unknown chunk sizes along its rows; call {name}.compute_chunk_sizes() first "
            "(or pass a dask DataFrame, whose partition lengths are computed here)"
        )
    if len(arr.chunks[1]) > 1:
        arr = arr.rechunk({1: -1})
    return arr, from_numpy


def as_dask_weights(sample_weight: Any, rows: Any) -> Optional[Any]:
    """``sample_weight`` as a 1-d float64 dask array chunked like ``rows``' rows.

    NumPy weights and single numbers are checked as every front end checks
    them (:func:`smartigan._arrays.as_weights`); a single number stays lazy
    (``da.full``). The values are checked per block, as the blocks are read.
    """
    if sample_weight is None:
        return None
    n = rows.shape[0]
    chunks = (rows.chunks[0],)
    if is_real(sample_weight):
        return da.full(n, float(sample_weight), chunks=chunks, dtype=np.float64)
    if hasattr(sample_weight, "to_dask_array"):  # a dask DataFrame or Series
        sample_weight = sample_weight.to_dask_array(lengths=True)
    if not isinstance(sample_weight, da.Array):
        return da.from_array(as_weights(sample_weight, n), chunks=chunks)
    check_weight_dtype(np.dtype(sample_weight.dtype))
    if sample_weight.ndim == 1 and any(math.isnan(c) for c in sample_weight.chunks[0]):
        raise ValueError("sample_weight has unknown chunk sizes; call sample_weight.compute_chunk_sizes() first")
    if sample_weight.ndim != 1 or sample_weight.shape[0] != n:
        raise ValueError(f"sample_weight must have shape ({n},) to match X, got shape {sample_weight.shape}")
    return sample_weight.astype(np.float64).rechunk(chunks)
