"""Reading data files: CSV (delimiter and header detected), ``.npy`` and
Parquet, with messages that point at the line and column of a bad value."""

from __future__ import annotations

import csv
import inspect
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
import numpy.typing as npt

from .errors import CliError

__all__ = ["FORMATS", "Table", "read_table", "read_matrix", "import_pyarrow"]

#: The file formats read (``--input-format``) and written (``--format``).
FORMATS = ("csv", "npy", "parquet")

#: CSV files are read as UTF-8; a byte-order mark that some programs (Excel's
#: "CSV UTF-8") write first is dropped, not kept in the first column's name.
CSV_ENCODING = "utf-8-sig"


@dataclass(frozen=True)
class Table:
    """Numeric data read from a file.

    Attributes
    ----------
    data : ndarray of float64, shape (n_samples, n_features)
        One point per row.
    names : list of str or None
        Column names (from a CSV header or Parquet schema), if any.
    skipped_lines : int or None
        CSV only: lines before the first data row (header and anything
        above it), so that messages can point into the file; None otherwise.
    notes : tuple of str
        Things the reader decided on its own that the user should know
        (printed on stderr by the command line).

    Examples
    --------
    >>> t = Table(np.zeros((2, 3)), ["a", "b", "c"], 1)
    >>> t.data.shape, t.names
    ((2, 3), ['a', 'b', 'c'])
    """

    data: npt.NDArray[np.float64]
    names: Optional[List[str]]
    skipped_lines: Optional[int] = None
    notes: Tuple[str, ...] = ()


def _detect_format(path: Path, fmt: str) -> str:
    if fmt != "auto":
        return fmt
    suffix = path.suffix.lower()
    if suffix == ".npy":
        return "npy"
    if suffix in (".parquet", ".pq"):
        return "parquet"
    return "csv"


def _is_number(field: str) -> bool:
    try:
        float(field)
    except ValueError:
        return False
    return True


def _sniff_delimiter(sample: str) -> Optional[str]:
    """The CSV delimiter of ``sample``: one of ``, ; TAB |``, or None for whitespace."""
    lines = [ln for ln in sample.splitlines() if ln.strip() and not ln.lstrip().startswith("#")][:20]
    if not lines:
        return None
    for delim in (",", "\t", ";", "|"):
        counts = {ln.count(delim) for ln in lines[:-1] or lines}
        if len(counts) == 1 and counts != {0}:
            return delim
    return None


def _split(line: str, delimiter: Optional[str]) -> List[str]:
    if delimiter is None:
        return line.split()
    return [f.strip() for f in next(csv.reader([line], delimiter=delimiter))]


def _select_columns(names: Optional[List[str]], n_cols: int, columns: Optional[str]) -> List[int]:
    """Column indices for ``--columns`` (names or 0-based indices, comma-separated)."""
    if columns is None:
        return list(range(n_cols))
    chosen = []
    for item in (c.strip() for c in columns.split(",")):
        if not item:
            continue
        if names is not None and item in names:
            chosen.append(names.index(item))
        elif item.lstrip("-").isdigit():
            i = int(item)
            if not 0 <= i < n_cols:
                raise CliError(f"--columns: index {i} is out of range; the data has {n_cols} columns (0..{n_cols - 1})")
            chosen.append(i)
        else:
            known = f"; columns are: {', '.join(names)}" if names else " (the data has no header, use 0-based indices)"
            raise CliError(f"--columns: no column named {item!r}{known}")
    if not chosen:
        raise CliError("--columns selects no column")
    return chosen


def _locate_csv_problem(path: Path, delimiter: Optional[str], skip: int, usecols: List[int],
                        n_cols: int, names: Optional[List[str]]) -> str:
    """A message pointing at the first cell ``np.loadtxt`` could not read."""
    with path.open(newline="", encoding=CSV_ENCODING) as f:
        for lineno, line in enumerate(f, start=1):
            if lineno <= skip or not line.strip() or line.lstrip().startswith("#"):
                continue
            fields = _split(line.rstrip("\r\n"), delimiter)
            if len(fields) != n_cols:
                return (f"{path}: line {lineno} has {len(fields)} fields, but the first row has {n_cols}; "
                        "every row needs the same number of columns")
            for c in usecols:
                if not _is_number(fields[c]):
                    col = f"column {c}" + (f" ({names[c]!r})" if names else "")
                    what = "is empty" if fields[c] == "" else f"is not a number: {fields[c]!r}"
                    hint = " Select numeric columns with --columns." if fields[c] != "" else " Fill or drop missing values."
                    return f"{path}: line {lineno}, {col} {what}.{hint}"
    return f"{path}: could not be read as a numeric table"


_LOADTXT_QUOTECHAR = "quotechar" in inspect.signature(np.loadtxt).parameters  # numpy >= 1.23


def _data_line(path: Path, skip: int, row: int) -> int:
    """1-based line of data row ``row`` (blank and comment lines do not count as rows)."""
    seen = -1
    with path.open(newline="", encoding=CSV_ENCODING) as f:
        for lineno, line in enumerate(f, start=1):
            if lineno <= skip or not line.strip() or line.lstrip().startswith("#"):
                continue
            seen += 1
            if seen == row:
                return lineno
    return 0


def _read_csv(path: Path, columns: Optional[str], header: Optional[bool], delimiter: Optional[str]) -> Table:
    with path.open(newline="", encoding=CSV_ENCODING) as f:
        sample = f.read(64 * 1024)
    if not sample.strip():
        raise CliError(f"{path} is empty")
    if delimiter is None:
        delimiter = _sniff_delimiter(sample)
    elif delimiter in ("\\t", "tab"):
        delimiter = "\t"
    lines = sample.splitlines()
    first_idx = next((i for i, ln in enumerate(lines) if ln.strip() and not ln.lstrip().startswith("#")), None)
    if first_idx is None:
        raise CliError(f"{path} holds only blank or comment lines")
    first = _split(lines[first_idx], delimiter)
    if header is None:
        header = not all(_is_number(v) for v in first)
    names = [v.strip().strip('"') for v in first] if header else None
    skip = first_idx + 1 if header else first_idx
    n_cols = len(first)
    notes: Tuple[str, ...] = ()
    if columns is None and names is not None and names[0] == "" and n_cols > 1:
        # pandas' DataFrame.to_csv() writes the index as an unnamed first column.
        columns = ",".join(str(c) for c in range(1, n_cols))
        notes = ("the first column has no name (a pandas index?) and is not used; "
                 "choose columns explicitly with --columns",)
    usecols = _select_columns(names, n_cols, columns)
    extra: Dict[str, Any] = {"quotechar": '"'} if _LOADTXT_QUOTECHAR else {}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # "input contained no data": reported below
            data = np.loadtxt(path, delimiter=delimiter, skiprows=skip, usecols=usecols, ndmin=2,
                              dtype=np.float64, comments="#", encoding=CSV_ENCODING, **extra)
    except (ValueError, IndexError):
        raise CliError(_locate_csv_problem(path, delimiter, skip, usecols, n_cols, names)) from None
    if data.shape[0] == 0:
        raise CliError(f"{path} has a header but no data rows")
    return Table(data, [names[c] for c in usecols] if names else None, skip, notes)


def _npy_header(path: Path) -> Tuple[Tuple[int, ...], np.dtype[Any]]:
    """The shape and dtype of the ``.npy`` file ``path``, with the data's
    size checked against the file's length.

    ``np.load`` trusts the header: a 900-byte file claiming a (200000, 100000)
    shape makes it allocate 160 GB before it reads anything. Here the header
    is read alone (NumPy parses it as a literal, never executing or
    unpickling anything), and a file whose data is not exactly as long as
    the header's shape and dtype say is refused before any allocation.
    """
    with path.open("rb") as f:
        try:
            version = np.lib.format.read_magic(f)
            if version == (1, 0):
                shape, _, dtype = np.lib.format.read_array_header_1_0(f)
            elif version == (2, 0):
                shape, _, dtype = np.lib.format.read_array_header_2_0(f)
            else:
                raise CliError(f"{path}: .npy format version {version[0]}.{version[1]} is not read; "
                               "save the array with numpy.save")
        except ValueError as exc:
            raise CliError(f"{path} is not a plain numeric .npy file ({exc})") from None
        offset = f.tell()
    if dtype.hasobject:
        raise CliError(f"{path} is not a plain numeric .npy file: it holds Python objects, which are never "
                       "unpickled; save a numeric array")
    if any(n < 0 for n in shape):
        raise CliError(f"{path}: its header claims the shape {shape}, with a negative size")
    expected = int(np.prod(shape, dtype=object)) * dtype.itemsize
    stored = path.stat().st_size - offset
    if stored != expected:
        raise CliError(f"{path}: its header claims {dtype} data of shape {shape}, {expected} bytes, but the file "
                       f"holds {stored} bytes after the header; the file is truncated or corrupt")
    return shape, dtype


def _read_npy(path: Path, columns: Optional[str]) -> Table:
    shape, dtype = _npy_header(path)
    if dtype.names is not None:
        raise CliError(f"{path} holds a structured array; save a plain 2-d numeric array instead")
    if dtype.kind not in "iuf":
        raise CliError(f"{path} has dtype {dtype}; expected real numbers (integer or float)")
    if len(shape) not in (1, 2):
        raise CliError(f"{path} holds a {len(shape)}-d array of shape {shape}; expected (n_samples, n_features)")
    if 0 in shape:
        raise CliError(f"{path} holds no data (shape {shape})")
    # The size is checked, so mapping the file reads exactly its data; the
    # one copy made is the float64 table below.
    arr = np.load(path, mmap_mode="r", allow_pickle=False)
    if arr.ndim == 1:
        arr = arr[:, None]
    usecols = _select_columns(None, arr.shape[1], columns)
    return Table(np.ascontiguousarray(arr[:, usecols], dtype=np.float64), None)


def import_pyarrow(purpose: str) -> Any:
    try:
        import pyarrow  # type: ignore[import-not-found,import-untyped,unused-ignore]
        import pyarrow.parquet  # type: ignore[import-not-found,import-untyped,unused-ignore]
    except ImportError:
        raise CliError(f"{purpose} Parquet needs pyarrow, which is not installed: pip install pyarrow") from None
    return pyarrow


def _read_parquet(path: Path, columns: Optional[str]) -> Table:
    pa = import_pyarrow("reading")
    try:
        table = pa.parquet.read_table(path)
    except MemoryError:  # pyarrow's ArrowMemoryError is also an ArrowException
        raise  # reported by read_table
    except (pa.lib.ArrowException, OSError) as exc:
        raise CliError(f"{path} could not be read as Parquet: {exc}") from None
    names = list(table.column_names)
    usecols = _select_columns(names, len(names), columns)
    cols = []
    for c in usecols:
        col = table.column(c)
        if not (pa.types.is_integer(col.type) or pa.types.is_floating(col.type)):
            raise CliError(f"{path}: column {names[c]!r} has type {col.type}, not numeric. "
                           "Select numeric columns with --columns.")
        if col.null_count:
            raise CliError(f"{path}: column {names[c]!r} has {col.null_count} missing values; fill or drop them")
        cols.append(col.to_numpy().astype(np.float64))
    data = np.column_stack(cols) if cols else np.empty((table.num_rows, 0))
    return Table(np.ascontiguousarray(data), [names[c] for c in usecols])


def read_table(
    path: str,
    fmt: str = "auto",
    *,
    columns: Optional[str] = None,
    header: Optional[bool] = None,
    delimiter: Optional[str] = None,
) -> Table:
    """Read a numeric table from CSV, ``.npy`` or Parquet.

    Parameters
    ----------
    path : str
        The file.
    fmt : {"auto", "csv", "npy", "parquet"}
        ``"auto"`` picks by suffix: ``.npy``, ``.parquet``/``.pq``, anything
        else as CSV.
    columns : str, optional
        Comma-separated column names or 0-based indices to keep.
    header : bool or None
        Whether a CSV's first row is a header; ``None`` detects it (a first
        row with any non-numeric field is a header).
    delimiter : str or None
        CSV delimiter; ``None`` detects ``,``, tab, ``;``, ``|`` or
        whitespace.

    Returns
    -------
    Table

    Raises
    ------
    CliError
        For a missing or unreadable file, non-numeric or missing values
        (naming the line and column), a ragged CSV, or Parquet without
        pyarrow.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "points.csv")
    >>> _ = open(path, "w").write("x,y\\n0,1\\n2,3.5\\n")
    >>> t = read_table(path)
    >>> t.names, t.data.tolist()
    (['x', 'y'], [[0.0, 1.0], [2.0, 3.5]])
    """
    p = Path(path)
    if not p.exists():
        raise CliError(f"no such file: {path}")
    if p.is_dir():
        raise CliError(f"{path} is a directory, not a data file")
    kind = _detect_format(p, fmt)
    try:
        if kind == "npy":
            table = _read_npy(p, columns)
        elif kind == "parquet":
            table = _read_parquet(p, columns)
        else:
            table = _read_csv(p, columns, header, delimiter)
    except UnicodeDecodeError:
        raise CliError(f"{path} is not a text CSV file; for binary formats use a .npy or .parquet suffix "
                       "or --input-format") from None
    except MemoryError:
        # An honest file too large for this machine (lying .npy headers are
        # refused before any allocation).
        raise CliError(f"{path}: not enough memory to read it as a table of float64 values") from None
    data = table.data
    if data.size == 0:
        raise CliError(f"{path} holds no data (shape {data.shape})")
    bad = np.argwhere(~np.isfinite(data))
    if bad.size:
        r, c = (int(v) for v in bad[0])
        line = _data_line(p, table.skipped_lines, r) if table.skipped_lines is not None else 0
        where = f"line {line}" if line else f"row {r}"
        col = table.names[c] if table.names else str(c)
        raise CliError(f"{path}: {where}, column {col} is {data[r, c]}; "
                       f"k-means needs finite numbers ({len(bad)} non-finite values in all)")
    return table


def read_matrix(path: str) -> npt.NDArray[np.float64]:
    """The data of :func:`read_table` (suffix-detected format, detected header).

    Parameters
    ----------
    path : str
        A CSV, ``.npy`` or Parquet file.

    Returns
    -------
    ndarray of float64, shape (n_samples, n_features)

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "m.npy")
    >>> np.save(path, np.eye(2))
    >>> read_matrix(path).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    return read_table(path).data
