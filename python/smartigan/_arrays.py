"""Data coercion: Python objects as the arrays the core reads.

Dense data becomes a C-contiguous float32/float64 array (without a copy
where it already is one), SciPy sparse matrices a ``_core.CsrMatrix``, sample
weights a float64 vector. Non-real data is a ``TypeError`` here; values
(NaN, shapes against ``k``, negative weights) are checked by the core, and
by :func:`check_weight_values` for the weights that no core call reads. The
index arrays of sparse input are checked here, before SciPy's own routines,
which trust them, touch them (:func:`check_sparse_structure`).
Shared by the front end, both estimators and the plots.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Tuple, Union, cast

import numpy as np
import numpy.typing as npt

from . import _core
from ._checks import is_real

__all__ = ["FloatArray", "as_data", "as_csr", "as_points", "as_weights", "cast_to", "check_sparse_structure",
           "check_weight_dtype", "check_weight_values", "is_sparse"]

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


def check_sparse_structure(X: Any, name: str = "X") -> None:
    """``ValueError`` naming ``name`` if the index arrays of the sparse matrix
    ``X`` do not describe a matrix of its shape; nothing for dense ``X``.

    SciPy's compiled routines (format conversion, ``sum_duplicates``, even
    ``has_canonical_format``) index memory through ``indptr``/``indices``
    (COO: ``row``/``col``) without checking them, so a corrupt matrix crashes
    the process there. Every path that hands sparse input to SciPy calls this
    first. It reads the arrays only (SciPy's ``check_format`` would prune and
    recast them in place) and takes O(nnz) time. CSR, CSC, BSR and COO are
    checked; other formats (LIL, DOK, DIA) are converted by Python code, and
    :func:`as_csr` checks the CSR that results.

    >>> import scipy.sparse as sp
    >>> C = sp.csr_matrix(np.eye(3))
    >>> C.indptr[1] = 5
    >>> check_sparse_structure(C)
    Traceback (most recent call last):
    ValueError: X is not a valid CSR matrix: indptr decreases at row 1 (indptr[1]=5, indptr[2]=2)
    """
    if not is_sparse(X):
        return
    shape = tuple(X.shape)
    if len(shape) != 2:
        raise ValueError(f"{name} must be 2-d, got shape {shape}")
    fmt = getattr(X, "format", None)
    n_rows, n_cols = (int(v) for v in shape)
    if fmt == "csr":
        _check_compressed(X, name, "CSR", (n_rows, n_cols), ("row", "column"))
    elif fmt == "csc":
        _check_compressed(X, name, "CSC", (n_cols, n_rows), ("column", "row"))
    elif fmt == "bsr":
        block_rows, block_cols = (int(v) for v in X.blocksize)
        if block_rows < 1 or block_cols < 1 or n_rows % block_rows or n_cols % block_cols:
            raise ValueError(f"{name} is not a valid BSR matrix: its shape {shape} is not a whole number of "
                             f"{block_rows}x{block_cols} blocks")
        _check_compressed(X, name, "BSR", (n_rows // block_rows, n_cols // block_cols), ("block row", "block column"))
    elif fmt == "coo":
        what = f"{name} is not a valid COO matrix"
        row, col = _index_array(X.row, what, "row"), _index_array(X.col, what, "col")
        n_stored = np.shape(X.data)[0] if np.ndim(X.data) else 0
        if not row.shape[0] == col.shape[0] == n_stored:
            raise ValueError(f"{what}: row, col and data differ in length ({row.shape[0]}, {col.shape[0]}, "
                             f"{n_stored})")
        _check_indices(row, n_rows, what, "row")
        _check_indices(col, n_cols, what, "column")


def _index_array(values: Any, what: str, array_name: str) -> npt.NDArray[Any]:
    arr = np.asarray(values)
    if arr.ndim != 1 or arr.dtype.kind not in "iu":
        raise ValueError(f"{what}: {array_name} must be a 1-d integer array, got {arr.dtype} of shape {arr.shape}")
    return arr


def _check_indices(indices: npt.NDArray[Any], bound: int, what: str, kind: str) -> None:
    """Every entry of ``indices`` in ``0..bound``, or ValueError naming the first that is not."""
    # Two reductions on the way through; the mask only to name a bad entry.
    if indices.size == 0 or (indices.min() >= 0 and indices.max() < bound):
        return
    at = int(np.argmax((indices < 0) | (indices >= bound)))
    raise ValueError(f"{what}: {kind} index {int(indices[at])} of stored entry {at} is outside 0..{bound - 1}")


def _check_compressed(X: Any, name: str, fmt: str, shape: Tuple[int, int], axes: Tuple[str, str]) -> None:
    """The checks of a compressed format of ``shape`` (major, minor): ``indptr``
    (one entry more than the major axis has: rows for CSR, columns for CSC,
    block rows for BSR) starts at 0, never decreases and ends within the
    stored entries, whose ``indices`` lie in ``0..minor``; ``axes`` names the
    two axes in messages."""
    (n_major, n_minor), (major, minor) = shape, axes
    what = f"{name} is not a valid {fmt} matrix"
    indptr = _index_array(X.indptr, what, "indptr")
    indices = _index_array(X.indices, what, "indices")
    data_shape = np.shape(X.data)
    n_stored = data_shape[0] if data_shape else 0
    if indptr.shape[0] != n_major + 1:
        raise ValueError(f"{what}: indptr has {indptr.shape[0]} entries, expected {n_major + 1}")
    if indices.shape[0] != n_stored:
        raise ValueError(f"{what}: indices and data differ in length ({indices.shape[0]} and {n_stored})")
    if indptr[0] != 0:
        raise ValueError(f"{what}: indptr must start with 0, got {int(indptr[0])}")
    decreasing = indptr[1:] < indptr[:-1]
    if decreasing.any():
        at = int(np.argmax(decreasing))
        raise ValueError(f"{what}: indptr decreases at {major} {at} "
                         f"(indptr[{at}]={int(indptr[at])}, indptr[{at + 1}]={int(indptr[at + 1])})")
    nnz = int(indptr[-1])
    if nnz > n_stored:
        raise ValueError(f"{what}: indptr ends at {nnz}, beyond the {n_stored} stored entries")
    _check_indices(indices[:nnz], n_minor, what, minor)


def as_csr(X: Any, name: str = "X", dtype: Optional[np.dtype[Any]] = None) -> _core.CsrMatrix:
    """A SciPy sparse matrix in canonical CSR form, as the core reads it.

    CSC, COO and other formats are converted to CSR; duplicate entries are
    summed (on a copy); ``data`` of float32/float64 is used without a copy
    (converted to ``dtype`` if given, see :func:`cast_to`). A matrix whose
    index arrays are inconsistent is refused with ``ValueError`` before any
    SciPy routine reads them (:func:`check_sparse_structure`).
    """
    check_sparse_structure(X, name)
    csr = X.tocsr()
    if csr is not X:
        check_sparse_structure(csr, name)
    if not csr.has_canonical_format:
        csr = csr.copy()
        csr.sum_duplicates()
    data = cast(FloatArray, np.ascontiguousarray(_real_dtype(np.asarray(csr.data), f"{name}.data")))
    if dtype is not None:
        indptr_of, indices_of = csr.indptr, csr.indices

        def row_and_column(entry: int) -> Tuple[int, int]:
            return int(np.searchsorted(indptr_of, entry, side="right")) - 1, int(indices_of[entry])

        data = cast_to(data, dtype, name, row_and_column)
    indptr = np.ascontiguousarray(csr.indptr, dtype=np.uintp)
    indices = np.ascontiguousarray(csr.indices, dtype=np.uintp)
    return _core.CsrMatrix(int(csr.shape[1]), indptr, indices, data)


def cast_to(values: FloatArray, dtype: np.dtype[Any], name: str,
            locate: Optional[Callable[[int], Tuple[int, int]]] = None) -> FloatArray:
    """``values`` in ``dtype`` (float32 or float64), without a copy if they are.

    A finite float64 value beyond float32's range would become infinite in
    the cast, and the core would then report an infinite entry the caller
    never gave; it is refused here with ``ValueError`` naming its row and
    column (``locate`` maps a flat index of ``values`` to them; default: the
    index in the 2-d ``values``).

    >>> cast_to(np.array([[1.0, 1e39]]), np.dtype(np.float32), "Y")
    Traceback (most recent call last):
    ValueError: Y holds 1e+39 at row 0, column 1, out of float32's range (largest 3.402823e+38) for this float32 model, which casts its input to float32; refit it on float64 data for values this large
    """
    target = np.dtype(dtype)
    if values.dtype == target:
        return values
    with np.errstate(over="ignore"):
        converted = values.astype(target)
    if target.itemsize < values.dtype.itemsize and np.isinf(converted).any():
        overflowed = np.isinf(converted) & np.isfinite(values)
        if overflowed.any():
            flat = int(np.argmax(overflowed.ravel()))
            row, column = locate(flat) if locate else (int(i) for i in np.unravel_index(flat, values.shape))
            raise ValueError(
                f"{name} holds {values.ravel()[flat]:g} at row {row}, column {column}, out of {target}'s range "
                f"(largest {np.finfo(target).max:.7g}) for this {target} model, which casts its input to "
                f"{target}; refit it on float64 data for values this large")
    return cast(FloatArray, converted)


def as_points(X: Any) -> Union[FloatArray, _core.CsrMatrix]:
    """``X`` as the core's points argument: dense (:func:`as_data`) or sparse (:func:`as_csr`)."""
    return as_csr(X) if is_sparse(X) else as_data(X)


def as_weights(sample_weight: Any, n_rows: Optional[int] = None) -> Optional[npt.NDArray[np.float64]]:
    """``sample_weight`` as a contiguous 1-d float64 array (or None): its kind and shape.

    ``TypeError`` for a sparse matrix or anything but real numbers (booleans
    included, see :func:`check_weight_dtype`); ``ValueError`` for an array
    that is not 1-d or, where ``n_rows`` is given, has another length. Given
    ``n_rows``, a single number is that weight on every row. The values are
    the core's to check, or :func:`check_weight_values`' where no core call
    reads them.

    >>> as_weights([1, 2]).dtype
    dtype('float64')
    >>> as_weights(0.5, n_rows=3).tolist()
    [0.5, 0.5, 0.5]
    """
    if sample_weight is None:
        return None
    if is_sparse(sample_weight):
        raise TypeError("sample_weight must be a dense 1-d array, got a sparse matrix")
    if n_rows is not None and is_real(sample_weight):
        return np.full(n_rows, float(sample_weight))
    try:
        w = np.asarray(sample_weight)
    except (ValueError, TypeError) as exc:
        raise TypeError(f"sample_weight could not be converted to a numeric array: {exc}") from None
    check_weight_dtype(w.dtype)
    if w.ndim != 1:
        raise ValueError(f"sample_weight must be a 1-d array, got shape {w.shape}")
    if n_rows is not None and w.shape[0] != n_rows:
        raise ValueError(f"sample_weight must have shape ({n_rows},) to match X, got shape {w.shape}")
    return np.ascontiguousarray(w, dtype=np.float64)


def check_weight_dtype(dtype: np.dtype[Any]) -> None:
    """``TypeError`` unless weights of ``dtype`` are real numbers (integers or floats)."""
    if dtype.kind not in "iuf":
        raise TypeError(f"sample_weight must be real numbers, got dtype {dtype}")


def check_weight_values(weights: npt.NDArray[np.float64], first_row: int = 0, block: Optional[int] = None,
                        some_positive: bool = False) -> npt.NDArray[np.float64]:
    """``weights``, or ``ValueError`` naming the first that is NaN, infinite or
    negative and its row (``first_row`` is the row of ``weights[0]``; ``block``
    names the block of rows they belong to, where the data come in blocks),
    and with ``some_positive``, where every weight is zero.

    >>> check_weight_values(np.array([1.0, -2.0]), first_row=10)
    Traceback (most recent call last):
    ValueError: invalid sample_weight: -2.0 at row 11 (weights must be finite and non-negative)
    """
    bad = ~(np.isfinite(weights) & (weights >= 0))
    if bad.any():
        at = int(np.flatnonzero(bad)[0])
        where = "" if block is None else f" of block {block}"
        raise ValueError(f"invalid sample_weight: {float(weights[at])!r} at row {first_row + at}{where} "
                         "(weights must be finite and non-negative)")
    if some_positive and not (weights > 0).any():
        raise ValueError("invalid sample_weight: every weight is zero (at least one must be positive)")
    return weights
