"""Reading data files: CSV (delimiter and header detected), ``.npy`` and
Parquet, from a file, a pipe or standard input (``-``), with messages that
point at the line, row and column of a bad value.

Every input is opened once and read from start to end once, so a pipe
(``cat data.csv | smartigan fit - -k 3``, ``/dev/stdin``, a named pipe)
reads as the file it carries. The number of columns of a CSV file is that
of its first row, read whole, however long that row is: nothing is
inferred from a sample of the file.
"""

from __future__ import annotations

import csv
import inspect
import io
import itertools
import os
import stat
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Dict, Iterable, Iterator, List, Literal, Optional, Sequence, Tuple

import numpy as np
import numpy.typing as npt

from .errors import CliError

__all__ = ["FORMATS", "STDIN", "Table", "read_table", "read_matrix", "import_pyarrow"]

#: The file formats read (``--input-format``) and written (``--format``).
FORMATS = ("csv", "npy", "parquet")

#: The data argument that names standard input.
STDIN = "-"

#: CSV files are read as UTF-8; a byte-order mark that some programs (Excel's
#: "CSV UTF-8") write first is dropped, not kept in the first column's name.
CSV_ENCODING = "utf-8-sig"

#: The delimiters detected, in the order they are tried.
CSV_DELIMITERS = (",", "\t", ";", "|")

#: Lines (neither blank nor comments) that the delimiter is detected from.
#: They are read whole and then parsed with the rest: no line is cut short,
#: and the column count comes from the first row, never from this sample.
SNIFF_LINES = 20

#: The "delimiter" of a one-column file: the ASCII unit separator, which a
#: text file never holds, so that a field is never split (a CSV parser needs
#: some delimiter; a field holding this character would be split and
#: reported as a row with too many fields).
_ONE_COLUMN = "\x1f"

#: Cells converted to numbers at a time (one NumPy call per block of rows).
_CELLS_PER_BLOCK = 1 << 18

#: Bytes read at a time from a stream that cannot be mapped.
_STREAM_CHUNK = 1 << 24


@dataclass(frozen=True)
class Table:
    """Numeric data read from a file.

    Attributes
    ----------
    data : ndarray of float64, shape (n_samples, n_features)
        One point per row.
    names : list of str or None
        Column names (from a CSV header or Parquet schema), if any. Repeated
        names are kept as they are (the writers tell them apart).
    skipped_lines : int or None
        CSV only: lines before the first data row (header and anything
        above it); None otherwise.
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


@dataclass(frozen=True)
class _Source:
    """Where the data come from: a path, or standard input."""

    path: Optional[Path]  # None: standard input
    name: str  # as messages call it

    @property
    def seekable_file(self) -> bool:
        """A regular file (which can be mapped and measured), not a pipe or a terminal."""
        if self.path is None:
            return False
        try:
            return stat.S_ISREG(self.path.stat().st_mode)
        except OSError:
            return False

    def open_binary(self) -> BinaryIO:
        if self.path is None:
            # Standard input's descriptor, left open when this file object closes.
            return open(sys.stdin.fileno(), "rb", closefd=False)
        return self.path.open("rb")


def _detect_format(path: Optional[Path], fmt: str) -> str:
    if fmt != "auto":
        return fmt
    if path is None:
        return "csv"
    suffix = path.suffix.lower()
    if suffix == ".npy":
        return "npy"
    if suffix in (".parquet", ".pq"):
        return "parquet"
    return "csv"


def _is_number(field: str) -> bool:
    """Whether ``field`` is a number as the reader reads one (Python's ``float``)."""
    try:
        float(field)
    except ValueError:
        return False
    return True


def _column(c: int, names: Optional[Sequence[str]]) -> str:
    """Column ``c`` as messages name it: its 0-based index, and its name if it has one."""
    return f"column {c}" + (f" ({names[c]!r})" if names is not None and c < len(names) else "")


def _duplicates(names: Sequence[str], name: str) -> List[int]:
    return [i for i, n in enumerate(names) if n == name]


def _select_columns(names: Optional[List[str]], n_cols: int, columns: Optional[str]) -> List[int]:
    """Column indices for ``--columns`` (names or 0-based indices, comma-separated).

    A name that more than one column carries is ambiguous and refused (its
    columns are then chosen by index); a column may be chosen twice.
    """
    if columns is None:
        return list(range(n_cols))
    chosen = []
    for item in (c.strip() for c in columns.split(",")):
        if not item:
            continue
        if names is not None and item in names:
            same = _duplicates(names, item)
            if len(same) > 1:
                listed = ", ".join(map(str, same[:-1])) + f" and {same[-1]}"
                raise CliError(f"--columns: {item!r} names columns {listed}; use 0-based indices to choose")
            chosen.append(same[0])
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


# ---- CSV ----------------------------------------------------------------------------


def _is_comment(line: str) -> bool:
    return line.lstrip().startswith("#")


class _Counted:
    """The lines a CSV parser takes from ``lines``, counted and kept (for messages)."""

    def __init__(self, lines: Iterator[str]) -> None:
        self._lines = lines
        self.taken: List[str] = []

    def __iter__(self) -> "_Counted":
        return self

    def __next__(self) -> str:
        line = next(self._lines)
        self.taken.append(line)
        return line


def _csv_reader(lines: Iterable[str], delimiter: str) -> Iterator[List[str]]:
    """RFC 4180 records: fields quoted with ``"``, a doubled ``""`` a quote,
    delimiters and line breaks allowed inside quotes; spaces after a
    delimiter are skipped; text after a closing quote is an error."""
    return csv.reader(lines, delimiter=delimiter, quotechar='"', doublequote=True, skipinitialspace=True,
                      strict=True)


def _records(sample: Sequence[str], delimiter: Optional[str]) -> List[List[str]]:
    """The records of the sample lines (the last record may be cut off: left out)."""
    if delimiter is None:
        return [line.split() for line in sample]
    records = []
    try:
        for record in csv.reader(sample, delimiter=delimiter, quotechar='"', skipinitialspace=True):
            records.append(record)
    except csv.Error:  # a quoted field running past the sample
        pass
    return records


def _field_counts(sample: Sequence[str], delimiter: Optional[str]) -> List[int]:
    """Fields per record of the sample lines (the last record may be cut off: left out)."""
    return [len(record) for record in _records(sample, delimiter)]


def _ends_with_delimiter(records: Sequence[Sequence[str]]) -> bool:
    """Whether every record after the first has one field more than the
    first, and that field empty: data rows written with a delimiter after
    their last field, under a header written without one."""
    return len(records) > 1 and all(len(r) == len(records[0]) + 1 and r[-1].strip() == "" for r in records[1:])


def _sniff_delimiter(sample: Sequence[str]) -> Optional[str]:
    """The delimiter of the non-blank, non-comment ``sample`` lines: one of
    ``, TAB ; |``, None for runs of whitespace, or a one-column file's.

    A delimiter splitting every record into the same number of fields, more
    than one, wins (in the order above, quotes respected); then one that
    ends every record after the first with an empty field beyond the first
    record's (``a,b,c`` over ``1,2,3,``: the reader drops that field); then
    whitespace, under the first rule; then a delimiter that splits the first
    record and most of the others alike (the rows that differ are reported
    as such when the file is read); otherwise the file has one column.
    """
    if not sample:
        return _ONE_COLUMN
    records = {d: _records(sample, d) for d in CSV_DELIMITERS}
    counts = {d: [len(r) for r in records[d]] for d in CSV_DELIMITERS}
    for d in CSV_DELIMITERS:
        if counts[d] and len(set(counts[d])) == 1 and counts[d][0] > 1:
            return d
    for d in CSV_DELIMITERS:
        if _ends_with_delimiter(records[d]):
            return d
    spaces = _field_counts(sample, None)
    if len(set(spaces)) == 1 and spaces[0] > 1:
        return None
    for d in CSV_DELIMITERS:
        c = counts[d]
        if c and c[0] > 1 and 2 * c.count(c[0]) > len(c):
            return d
    return _ONE_COLUMN


def _delimiter_option(delimiter: str) -> Optional[str]:
    """``--delimiter`` as the reader takes it: one character, or None for whitespace."""
    if delimiter in ("\\t", "tab"):
        return "\t"
    if delimiter in (" ", "space", "whitespace"):
        return None
    if len(delimiter) != 1 or delimiter in "\"\r\n":
        raise CliError(f"--delimiter must be one character (or 'tab', 'whitespace'), got {delimiter!r}")
    return delimiter


def _quoting_problem(text: str, delimiter: str) -> Tuple[int, Optional[str]]:
    """The 0-based column of the first quoting error in the record ``text``, and what it is (None: none found).

    Follows the parser's rules (:func:`_csv_reader`): a field that starts
    with a quote ends at a lone quote, which a delimiter or the line's end
    must follow.
    """
    column, state = 0, "start"
    for ch in text:
        if state == "start":
            if ch == " ":
                continue
            state = "quoted" if ch == '"' else "plain"
            if ch == delimiter:
                column, state = column + 1, "start"
        elif state == "plain":
            if ch == delimiter:
                column, state = column + 1, "start"
        elif state == "quoted":
            if ch == '"':
                state = "closed"
        else:  # closed: after a quote inside a quoted field
            if ch == '"':
                state = "quoted"
            elif ch == delimiter:
                column, state = column + 1, "start"
            elif ch not in "\r\n":
                return column, "malformed quoting: text after a closing quote (a quote inside a quoted field is " \
                               'written twice: "a ""b"" c")'
    if state == "quoted":
        return column, "a quoted field is not closed (its closing quote is missing)"
    return column, None


_LOADTXT_HAS_QUOTECHAR = "quotechar" in inspect.signature(np.loadtxt).parameters  # numpy >= 1.23


class _CsvRows:
    """The data rows of a CSV file as float64, converted a block of rows at a
    time, every row checked: its number of fields, its numbers, their
    finiteness; a problem raises ``CliError`` naming the line, the data row
    and the column.

    A row is either a line without quotes, kept as text (its fields are the
    delimiter's pieces), or a record the CSV parser read (quoted fields). A
    block of lines alone is converted by ``np.loadtxt``'s C parser; if that
    refuses anything, or the block holds parsed records, every cell is
    converted by ``float`` (through NumPy), which also decides what a number
    is (``np.loadtxt`` reads a subset of what ``float`` reads, to the same
    values), so the answer never depends on the path a block took.
    """

    def __init__(self, name: str, delimiter: Optional[str], n_cols: int, usecols: List[int],
                 names: Optional[List[str]]) -> None:
        self.name, self.delimiter, self.n_cols, self.usecols, self.names = name, delimiter, n_cols, usecols, names
        self.block_rows = max(1, _CELLS_PER_BLOCK // max(n_cols, 1))
        self.all_columns = usecols == list(range(n_cols))
        self.entries: List[Any] = []  # str (a line) or list of str (a parsed record)
        self.lines: List[int] = []
        self.only_lines = True
        self.blocks: List[npt.NDArray[np.float64]] = []
        self.n_rows = 0
        # Whether the data rows end with a delimiter the header lacks (an
        # empty field beyond its columns, dropped): the first data row
        # decides, and every other must then end so too. None: undecided.
        self.trailing: Optional[bool] = None if names is not None and delimiter is not None else False

    def where(self, line: int, row: int, column: int) -> str:
        return f"{self.name}: line {line} (data row {row}), {_column(column, self.names)}"

    def fields(self, entry: Any) -> List[str]:
        if not isinstance(entry, str):
            return list(entry)
        return _split_line(entry, self.delimiter)

    def add(self, entry: Any, n_fields: int, line: int) -> None:
        """Row ``entry`` (a line's text without its end, or a parsed record) of ``n_fields`` fields."""
        if self.trailing is not False:
            rest, last = self._without_last_field(entry) if n_fields == self.n_cols + 1 else (entry, None)
            ends = last is not None and last.strip() == ""
            if self.trailing is None:
                self.trailing = ends
            if self.trailing:
                if not ends:
                    self._no_trailing_delimiter(last, n_fields, line)
                entry, n_fields = rest, self.n_cols
        if n_fields != self.n_cols:
            self._wrong_length(n_fields, line)
        self.entries.append(entry)
        self.lines.append(line)
        if not isinstance(entry, str):
            self.only_lines = False
        if len(self.entries) >= self.block_rows:
            self.flush()

    def _without_last_field(self, entry: Any) -> Tuple[Any, str]:
        """Row ``entry`` without its last field, and that field."""
        if isinstance(entry, str):
            assert self.delimiter is not None  # a row ends with a delimiter only where there is one
            rest, _, last = entry.rpartition(self.delimiter)
            return rest, last
        return entry[:-1], str(entry[-1])

    def _no_trailing_delimiter(self, last: Optional[str], n_fields: int, line: int) -> None:
        row = self.n_rows + len(self.entries)
        before = (f"the data rows before have the header's {self.n_cols} fields and a delimiter after them "
                  "(an empty last field)")
        if last is not None:  # a field beyond the header's, not empty
            raise CliError(f"{self.where(line, row, self.n_cols)} is {last.strip()!r}, "
                           f"a field beyond the header's {self.n_cols}, where {before}; every row needs the same "
                           "number of columns")
        raise CliError(f"{self.where(line, row, min(n_fields, self.n_cols))}: the row ends after {n_fields} "
                       f"fields, where {before}; every row needs the same number of columns")

    def _wrong_length(self, n_fields: int, line: int) -> None:
        row = self.n_rows + len(self.entries)
        if n_fields < self.n_cols:
            raise CliError(f"{self.where(line, row, n_fields)}: the row ends after {n_fields} fields, "
                           f"but the first row has {self.n_cols}; every row needs the same number of columns")
        raise CliError(f"{self.where(line, row, self.n_cols)}: a field beyond the {self.n_cols} of the first row "
                       f"({n_fields} fields here); every row needs the same number of columns")

    def flush(self) -> None:
        if not self.entries:
            return
        block = self._loadtxt() if self.only_lines else None
        if block is None:
            cells = [self.fields(e) for e in self.entries]
            if not self.all_columns:
                cells = [[row[c] for c in self.usecols] for row in cells]
            try:
                block = np.array(cells, dtype=np.float64).reshape(len(cells), len(self.usecols))
            except ValueError:
                raise CliError(self._bad_number(cells)) from None
        finite = np.isfinite(block)
        if not finite.all():
            i, j = (int(v) for v in np.argwhere(~finite)[0])
            raise CliError(f"{self.where(self.lines[i], self.n_rows + i, self.usecols[j])} is {block[i, j]}; "
                           "k-means needs finite numbers")
        self.blocks.append(block)
        self.n_rows += len(self.entries)
        self.entries, self.lines, self.only_lines = [], [], True

    def _loadtxt(self) -> Optional[npt.NDArray[np.float64]]:
        """The block by ``np.loadtxt``, or None where it refuses a cell (the caller then finds out why)."""
        extra: Dict[str, Any] = {"quotechar": None} if _LOADTXT_HAS_QUOTECHAR else {}
        delimiter = self.delimiter
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                block = np.loadtxt(self.entries, delimiter=delimiter, usecols=self.usecols, dtype=np.float64,
                                   comments=None, ndmin=2, **extra)
        except (ValueError, IndexError):
            return None
        if block.shape != (len(self.entries), len(self.usecols)):
            return None
        return np.asarray(block, dtype=np.float64)

    def _bad_number(self, cells: List[List[str]]) -> str:
        """The first cell that the conversion refused, found with the same conversion."""
        for i, row in enumerate(cells):
            for j, cell in enumerate(row):
                try:
                    np.array([cell], dtype=np.float64)
                except ValueError:
                    where = self.where(self.lines[i], self.n_rows + i, self.usecols[j])
                    if cell.strip() == "":
                        return f"{where} is empty. Fill or drop missing values."
                    return f"{where} is not a number: {cell!r}. Select numeric columns with --columns."
        return f"{self.name}: lines {self.lines[0]}..{self.lines[-1]} could not be read as numbers"

    def data(self) -> npt.NDArray[np.float64]:
        self.flush()
        if not self.blocks:
            return np.empty((0, len(self.usecols)))
        return np.concatenate(self.blocks) if len(self.blocks) > 1 else self.blocks[0]


def _split_line(text: str, delimiter: Optional[str]) -> List[str]:
    """The fields of a line without quotes (as the CSV parser would read them)."""
    if delimiter is None:
        return text.split()
    return [field.lstrip(" ") for field in text.split(delimiter)]


def _read_csv(source: _Source, columns: Optional[str], header: Optional[bool], delimiter: Optional[str]) -> Table:
    with io.TextIOWrapper(source.open_binary(), encoding=CSV_ENCODING, newline="") as f:
        # The first lines, read whole, for the delimiter; they are then
        # parsed with the rest of the stream, from which nothing is read twice.
        sample_lines: List[str] = []
        if delimiter is None:
            sample: List[str] = []
            for line in f:
                sample_lines.append(line)
                if line.strip() and not _is_comment(line):
                    sample.append(line)
                    if len(sample) == SNIFF_LINES:
                        break
            chosen = _sniff_delimiter(sample)
        else:
            chosen = _delimiter_option(delimiter)
        limit = csv.field_size_limit()
        csv.field_size_limit(2**31 - 1)  # a header name or a field as long as the line it is on
        try:
            return _parse_csv(source.name, itertools.chain(sample_lines, f), chosen, columns, header)
        finally:
            csv.field_size_limit(limit)


def _parse_csv(name: str, stream: Iterator[str], delimiter: Optional[str], columns: Optional[str],
               header: Optional[bool]) -> Table:
    """Parse the lines of ``stream``: blank lines and ``#`` comment lines
    (between rows) skipped, a line with a quote parsed as a CSV record (which
    may go on over more lines), any other line split at the delimiter."""
    quoting = delimiter is not None  # whitespace-separated files have no quoting
    rows: Optional[_CsvRows] = None
    names: Optional[List[str]] = None
    notes: Tuple[str, ...] = ()
    skipped = 0
    lineno = 0
    any_text = False
    for line in stream:
        lineno += 1
        start = lineno
        if line.isspace():
            continue
        any_text = True
        if line[0] == "#" or (line[0] in " \t" and _is_comment(line)):
            continue
        entry: Any
        if quoting and '"' in line:
            taken = _Counted(itertools.chain([line], stream))
            try:
                entry = next(_csv_reader(taken, delimiter))  # type: ignore[arg-type]
            except csv.Error as exc:
                place = "the header" if rows is None else f"data row {rows.n_rows + len(rows.entries)}"
                column, what = _quoting_problem("".join(taken.taken), delimiter)  # type: ignore[arg-type]
                if what is None:
                    raise CliError(f"{name}: line {start} ({place}) could not be read as CSV: {exc}") from None
                raise CliError(f"{name}: line {start} ({place}), column {column}: {what}") from None
            lineno += len(taken.taken) - 1
            n_fields = len(entry)
        else:
            entry = line.rstrip("\r\n")
            n_fields = len(entry.split()) if delimiter is None else entry.count(delimiter) + 1
        if rows is not None:
            rows.add(entry, n_fields, start)
            continue
        # The first row: a header or data, and the number of columns.
        first = entry if not isinstance(entry, str) else _split_line(entry, delimiter)
        if header is None:
            header = not all(_is_number(v) for v in first)
        n_cols = len(first)
        if header:
            names = [v.strip() for v in first]
        if columns is None and names is not None and names[0] == "" and n_cols > 1:
            # pandas' DataFrame.to_csv() writes the index as an unnamed first column.
            columns = ",".join(str(c) for c in range(1, n_cols))
            notes = ("the first column has no name (a pandas index?) and is not used; "
                     "choose columns explicitly with --columns",)
        rows = _CsvRows(name, delimiter, n_cols, _select_columns(names, n_cols, columns), names)
        skipped = lineno if header else start - 1
        if not header:
            rows.add(entry, n_fields, start)
    if rows is None:
        raise CliError(f"{name} holds only blank or comment lines" if any_text else f"{name} is empty")
    data = rows.data()
    if data.shape[0] == 0:
        raise CliError(f"{name} has a header but no data rows")
    return Table(data, [names[c] for c in rows.usecols] if names else None, skipped, notes)


# ---- .npy ---------------------------------------------------------------------------


def _npy_header(f: BinaryIO, name: str) -> Tuple[Tuple[int, ...], bool, np.dtype[Any]]:
    """The shape, Fortran order and dtype of the ``.npy`` stream ``f``, read from its header alone.

    ``np.load`` trusts the header: a 900-byte file claiming a (200000, 100000)
    shape makes it allocate 160 GB before it reads anything. Here the header
    is read alone (NumPy parses it as a literal, never executing or
    unpickling anything); the caller checks the data's length against it
    before any allocation.
    """
    try:
        version = np.lib.format.read_magic(f)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
        else:
            raise CliError(f"{name}: .npy format version {version[0]}.{version[1]} is not read; "
                           "save the array with numpy.save")
    except ValueError as exc:
        raise CliError(f"{name} is not a plain numeric .npy file ({exc})") from None
    if dtype.hasobject:
        raise CliError(f"{name} is not a plain numeric .npy file: it holds Python objects, which are never "
                       "unpickled; save a numeric array")
    if any(n < 0 for n in shape):
        raise CliError(f"{name}: its header claims the shape {shape}, with a negative size")
    return shape, bool(fortran), dtype


def _size_mismatch(name: str, dtype: np.dtype[Any], shape: Tuple[int, ...], expected: int, stored: int) -> CliError:
    return CliError(f"{name}: its header claims {dtype} data of shape {shape}, {expected} bytes, but the file "
                    f"holds {stored} bytes after the header; the file is truncated or corrupt")


def _read_at_most(f: BinaryIO, limit: int) -> bytes:
    """Up to ``limit`` bytes of ``f``, read in pieces (never allocating ``limit`` at once)."""
    parts: List[bytes] = []
    total = 0
    while total < limit:
        piece = f.read(min(_STREAM_CHUNK, limit - total))
        if not piece:
            break
        parts.append(piece)
        total += len(piece)
    return b"".join(parts)


def _read_npy(source: _Source, columns: Optional[str]) -> Table:
    name = source.name
    with source.open_binary() as f:
        shape, fortran, dtype = _npy_header(f, name)
        expected = int(np.prod(shape, dtype=object)) * dtype.itemsize
        if source.seekable_file:
            offset = f.tell()
            stored = os.fstat(f.fileno()).st_size - offset
            if stored != expected:
                raise _size_mismatch(name, dtype, shape, expected, stored)
        else:
            payload = _read_at_most(f, expected + 1)  # one byte more: trailing data
            if len(payload) != expected:
                stored = len(payload)
                while len(payload) > expected and payload:  # count what follows, without keeping it
                    payload = f.read(_STREAM_CHUNK)
                    stored += len(payload)
                raise _size_mismatch(name, dtype, shape, expected, stored)
        if dtype.names is not None:
            raise CliError(f"{name} holds a structured array; save a plain 2-d numeric array instead")
        if dtype.kind not in "iuf":
            raise CliError(f"{name} has dtype {dtype}; expected real numbers (integer or float)")
        if len(shape) not in (1, 2):
            raise CliError(f"{name} holds a {len(shape)}-d array of shape {shape}; expected (n_samples, n_features)")
        if 0 in shape:
            raise CliError(f"{name} holds no data (shape {shape})")
        order: Literal["F", "C"] = "F" if fortran else "C"
        # The size is checked, so mapping the file reads exactly its data; the
        # one copy made is the float64 table below.
        arr: npt.NDArray[Any]
        if source.seekable_file:
            arr = np.memmap(f, dtype=dtype, mode="r", offset=offset, shape=shape, order=order)
        else:
            arr = np.frombuffer(payload, dtype=dtype).reshape(shape, order=order)
        if arr.ndim == 1:
            arr = arr[:, None]
        usecols = _select_columns(None, arr.shape[1], columns)
        return Table(np.ascontiguousarray(arr[:, usecols], dtype=np.float64), None)


# ---- Parquet ------------------------------------------------------------------------


def import_pyarrow(purpose: str) -> Any:
    try:
        import pyarrow  # type: ignore[import-not-found,import-untyped,unused-ignore]
        import pyarrow.parquet  # type: ignore[import-not-found,import-untyped,unused-ignore]
    except ImportError:
        raise CliError(f"{purpose} Parquet needs pyarrow, which is not installed: pip install pyarrow") from None
    return pyarrow


def _read_parquet(source: _Source, columns: Optional[str]) -> Table:
    pa = import_pyarrow("reading")
    name = source.name
    try:
        if source.seekable_file:
            table = pa.parquet.read_table(source.path)
        else:
            # A Parquet file ends with its index: a stream is read whole first.
            with source.open_binary() as f:
                table = pa.parquet.read_table(pa.BufferReader(_read_at_most(f, 1 << 62)))
    except MemoryError:  # pyarrow's ArrowMemoryError is also an ArrowException
        raise  # reported by read_table
    except (pa.lib.ArrowException, OSError) as exc:
        raise CliError(f"{name} could not be read as Parquet: {exc}") from None
    names = list(table.column_names)
    usecols = _select_columns(names, len(names), columns)
    cols = []
    for c in usecols:
        col = table.column(c)
        if not (pa.types.is_integer(col.type) or pa.types.is_floating(col.type)):
            raise CliError(f"{name}: column {names[c]!r} has type {col.type}, not numeric. "
                           "Select numeric columns with --columns.")
        if col.null_count:
            raise CliError(f"{name}: column {names[c]!r} has {col.null_count} missing values; fill or drop them")
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

    The input is opened once and read once, so pipes and standard input
    work as files do.

    Parameters
    ----------
    path : str
        The file, a pipe (``/dev/stdin``, a named pipe), or ``"-"`` for
        standard input.
    fmt : {"auto", "csv", "npy", "parquet"}
        ``"auto"`` picks by suffix: ``.npy``, ``.parquet``/``.pq``, anything
        else (standard input too) as CSV.
    columns : str, optional
        Comma-separated column names or 0-based indices to keep.
    header : bool or None
        Whether a CSV's first row is a header; ``None`` detects it (a first
        row with any non-numeric field is a header).
    delimiter : str or None
        CSV delimiter (one character; ``"tab"``, ``"whitespace"``); ``None``
        detects ``,``, tab, ``;``, ``|`` or whitespace.

    Returns
    -------
    Table

    Raises
    ------
    CliError
        For a missing or unreadable file, a CSV row with another number of
        fields than the first, malformed quoting, non-numeric, missing or
        non-finite values (naming the line, the data row and the column),
        or Parquet without pyarrow.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "points.csv")
    >>> _ = open(path, "w").write("x,y\\n0,1\\n2,3.5\\n")
    >>> t = read_table(path)
    >>> t.names, t.data.tolist()
    (['x', 'y'], [[0.0, 1.0], [2.0, 3.5]])
    """
    if path == STDIN:
        source = _Source(None, "standard input")
    else:
        p = Path(path)
        if not p.exists():
            raise CliError(f"no such file: {path}")
        if p.is_dir():
            raise CliError(f"{path} is a directory, not a data file")
        source = _Source(p, path)
    kind = _detect_format(source.path, fmt)
    try:
        if kind == "npy":
            table = _read_npy(source, columns)
        elif kind == "parquet":
            table = _read_parquet(source, columns)
        else:
            table = _read_csv(source, columns, header, delimiter)
    except UnicodeDecodeError:
        raise CliError(f"{source.name} is not a text CSV file; for binary formats use a .npy or .parquet suffix "
                       "or --input-format") from None
    except MemoryError:
        # An honest file too large for this machine (lying .npy headers are
        # refused before any allocation).
        raise CliError(f"{source.name}: not enough memory to read it as a table of float64 values") from None
    except OSError as exc:
        raise CliError(f"{source.name} could not be read: {exc.strerror or exc}") from None
    data = table.data
    if data.size == 0:
        raise CliError(f"{source.name} holds no data (shape {data.shape})")
    bad = np.argwhere(~np.isfinite(data))
    if bad.size:  # .npy and Parquet (a CSV file's values are checked as they are read, with their lines)
        r, c = (int(v) for v in bad[0])
        raise CliError(f"{source.name}: row {r}, {_column(c, table.names)} is {data[r, c]}; "
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
