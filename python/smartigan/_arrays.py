"""Data coercion: Python objects as the arrays the core reads.

Dense data becomes a C-contiguous float32/float64 array (without a copy
where it already is one), SciPy sparse matrices a ``_core.CsrMatrix``, sample
weights a float64 vector. Non-real data is a ``TypeError`` here; values
(NaN, shapes against ``k``, negative weights) are checked by the core.
Shared by the front end, the scikit-learn estimator and the plots.
"""

from __future__ import annotations

from typing import Any, Optional, Union, cast

import numpy as np
import numpy.typing as npt

from . import _core

__all__ = ["FloatArray", "as_data", "as_csr", "as_points", "as_weights", "is_sparse"]

FloatArray = Union[npt.NDArray[np.float32], npt.NDArray[np.float64]]


def as_data(X: Any, name: str = "X") -> FloatArray:
    """``X`` as a C-contiguous 2-d float32/float64 array.

    float32 and float64 C-contiguous arrays pass through without a copy;
    other layouts are copied, integer data becomes float64, and complex,
    boolean, float16, object and string data are rejected with ``TypeError``.

    >>> as_data([[1, 2], [3, 4]]).dtype
    dtype('float64')
    """
    if is_sparse(X):
        raise TypeError(f"{name} must be dense here; pass {name}.toarray()")
    try:
        arr = np.asarray(X)
    except (ValueError, TypeError) as exc:
        raise TypeError(f"{name} could not be converted to a numeric array: {exc}") from None
    arr = _real_dtype(arr, name)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-d array (n_samples, n_features), got {arr.ndim}-d array of shape {arr.shape}")
    return cast(FloatArray, np.ascontiguousarray(arr))


def _real_dtype(arr: npt.NDArray[Any], name: str) -> FloatArray:
    """``arr`` as native-endian float32/float64, or TypeError for non-real data."""
    kind = arr.dtype.kind
    if kind == "c":
        raise TypeError(f"{name} has complex dtype {arr.dtype}; k-means needs real numbers")
    if kind == "b":
        raise TypeError(f"{name} has boolean dtype; convert it explicitly, e.g. {name}.astype(np.float64)")
    if kind in "OUSVMm":
        raise TypeError(f"{name} has dtype {arr.dtype} ({'object' if kind == 'O' else 'non-numeric'}); expected real numbers")
    if arr.dtype == np.float16:
        raise TypeError(f"{name} has dtype float16, which is not supported; use {name}.astype(np.float32)")
    if kind in "iu" or (kind == "f" and arr.dtype.itemsize > 8):
        arr = arr.astype(np.float64)
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    return arr


def is_sparse(X: Any) -> bool:
    """Whether ``X`` is a SciPy sparse matrix or array (without importing SciPy)."""
    return hasattr(X, "tocsr") and hasattr(X, "nnz") and hasattr(X, "shape")


def as_csr(X: Any, name: str = "X", dtype: Optional[np.dtype[Any]] = None) -> _core.CsrMatrix:
    """A SciPy sparse matrix in canonical CSR form, as the core reads it.

    CSC, COO and other formats are converted to CSR; duplicate entries are
    summed (on a copy); ``data`` of float32/float64 is used without a copy
    (converted to ``dtype`` if given).
    """
    csr = X.tocsr()
    if len(csr.shape) != 2:
        raise ValueError(f"{name} must be 2-d, got shape {csr.shape}")
    if not csr.has_canonical_format:
        csr = csr.copy()
        csr.sum_duplicates()
    data = cast(FloatArray, np.ascontiguousarray(_real_dtype(np.asarray(csr.data), f"{name}.data")))
    if dtype is not None and data.dtype != dtype:
        data = data.astype(dtype)
    indptr = np.ascontiguousarray(csr.indptr, dtype=np.uintp)
    indices = np.ascontiguousarray(csr.indices, dtype=np.uintp)
    return _core.CsrMatrix(int(csr.shape[1]), indptr, indices, data)


def as_points(X: Any) -> Union[FloatArray, _core.CsrMatrix]:
    """``X`` as the core's points argument: dense (:func:`as_data`) or sparse (:func:`as_csr`)."""
    return as_csr(X) if is_sparse(X) else as_data(X)


def as_weights(sample_weight: Any) -> Optional[npt.NDArray[np.float64]]:
    """``sample_weight`` as a contiguous 1-d float64 array (or None).

    >>> as_weights([1, 2]).dtype
    dtype('float64')
    """
    if sample_weight is None:
        return None
    try:
        w = np.asarray(sample_weight)
    except (ValueError, TypeError) as exc:
        raise TypeError(f"sample_weight could not be converted to a numeric array: {exc}") from None
    if w.dtype.kind not in "iuf":
        raise TypeError(f"sample_weight must be real numbers, got dtype {w.dtype}")
    if w.ndim != 1:
        raise ValueError(f"sample_weight must be a 1-d array, got shape {w.shape}")
    return np.ascontiguousarray(w, dtype=np.float64)
