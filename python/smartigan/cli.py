"""The ``smartigan`` command line.

* ``smartigan demo``: the paper's Table 1 on the embedded Iris data (about a
  second).
* ``smartigan fit DATA -k K``: cluster a CSV, ``.npy`` or Parquet file, print
  a summary, optionally write labels and centroids (``--out``) and a picture
  (``--plot``).
* ``smartigan compare DATA -k K``: Lloyd, Hartigan and Smartigan side by side
  from the same starts.

Exit status: 0 on success, 2 for usage and data errors (bad options,
unreadable or non-numeric data, ``k`` larger than the data, a missing
optional dependency), 130 when interrupted; anything else is a bug.
"""

from __future__ import annotations

import argparse
import csv
import inspect
import json
import os
import shutil
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, TextIO, Tuple, Union

import numpy as np
import numpy.typing as npt

from . import __version__, _api, _params
from .datasets import load_iris

__all__ = ["main", "build_parser", "read_table", "read_matrix", "Table", "Progress", "CliError"]

METHODS = ("lloyd", "hartigan", "smartigan")
INITS = ("k-means++", "random-partition", "forgy")
FORMATS = ("csv", "npy", "parquet")

# Table 1 of Clément & Steinerberger (Iris, mean over 500 random-partition runs).
PAPER_IRIS = {
    3: (96.88, 78.85, 79.23),
    4: (80.82, 57.97, 59.16),
    5: (77.02, 51.37, 49.28),
    10: (55.61, 29.86, 28.18),
    20: (21.68, 17.38, 16.76),
}

# The protocol that reproduces the paper's Hartigan and Smartigan rows
# (benches/PAPER.md): random partitions, at most 10 sweeps, no polish, and a
# factor of 1.40, 1.35, ..., 0.95 in sweeps 0..9.
PAPER_PROTOCOL = dict(init="random-partition", n_iter=10, polish=False, refine=False)
PAPER_SCHEDULE = (1.4, 0.9)


class CliError(Exception):
    """A usage or data error: printed without a traceback, exit status 2.

    Examples
    --------
    >>> str(CliError("no such file: x.csv"))
    'no such file: x.csv'
    """


# ---------------------------------------------------------------------------
# reading data


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
    with path.open(newline="") as f:
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
    with path.open(newline="") as f:
        for lineno, line in enumerate(f, start=1):
            if lineno <= skip or not line.strip() or line.lstrip().startswith("#"):
                continue
            seen += 1
            if seen == row:
                return lineno
    return 0


def _read_csv(path: Path, columns: Optional[str], header: Optional[bool], delimiter: Optional[str]) -> Table:
    with path.open(newline="") as f:
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
                              dtype=np.float64, comments="#", **extra)
    except (ValueError, IndexError):
        raise CliError(_locate_csv_problem(path, delimiter, skip, usecols, n_cols, names)) from None
    if data.shape[0] == 0:
        raise CliError(f"{path} has a header but no data rows")
    return Table(data, [names[c] for c in usecols] if names else None, skip, notes)


def _read_npy(path: Path, columns: Optional[str]) -> Table:
    try:
        arr = np.load(path, allow_pickle=False)
    except ValueError as exc:
        raise CliError(f"{path} is not a plain numeric .npy file ({exc})") from None
    if not isinstance(arr, np.ndarray):
        raise CliError(f"{path} is not a .npy array")
    if arr.dtype.names is not None:
        raise CliError(f"{path} holds a structured array; save a plain 2-d numeric array instead")
    if arr.dtype.kind not in "iuf":
        raise CliError(f"{path} has dtype {arr.dtype}; expected real numbers (integer or float)")
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise CliError(f"{path} holds a {arr.ndim}-d array of shape {arr.shape}; expected (n_samples, n_features)")
    usecols = _select_columns(None, arr.shape[1], columns)
    return Table(np.ascontiguousarray(arr[:, usecols], dtype=np.float64), None)


def _pyarrow(purpose: str) -> Any:
    try:
        import pyarrow  # type: ignore[import-not-found,import-untyped,unused-ignore]
        import pyarrow.parquet  # type: ignore[import-not-found,import-untyped,unused-ignore]
    except ImportError:
        raise CliError(f"{purpose} Parquet needs pyarrow, which is not installed: pip install pyarrow") from None
    return pyarrow


def _read_parquet(path: Path, columns: Optional[str]) -> Table:
    pa = _pyarrow("reading")
    table = pa.parquet.read_table(path)
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


# ---------------------------------------------------------------------------
# progress


class Progress:
    """A one-line progress bar on a terminal; silent otherwise.

    Parameters
    ----------
    label : str
        Shown before the bar (the method).
    total : int
        Sweeps expected (``n_iter``); the bar shows extra sweeps as ``beyond``.
    n_init : int
        Number of restarts (run in parallel, shown in the line).
    stream : text stream, optional
        Default ``sys.stderr``.
    mode : {"auto", "always", "never"}
        ``"auto"`` draws only when ``stream`` is a terminal (and ``TERM`` is
        not ``dumb``), and only once the run has taken ``delay`` seconds.
    delay : float
        Seconds before the first draw in ``"auto"`` mode, so quick runs stay
        silent.
    beyond : str
        What sweeps past ``total`` are doing (Smartigan's polishing sweeps,
        the re-converging steps of merge-split refinement).

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> bar = Progress("smartigan", total=4, n_init=2, stream=out, mode="always")
    >>> bar.update(2, 12.5)
    >>> bar.close()
    >>> "sweep 2/4" in out.getvalue() and "2 restarts" in out.getvalue()
    True
    >>> quiet = io.StringIO()
    >>> Progress("lloyd", 4, 1, stream=quiet, mode="auto").update(1, 3.0)
    >>> quiet.getvalue()
    ''
    """

    def __init__(self, label: str, total: int, n_init: int, stream: Optional[TextIO] = None,
                 mode: str = "auto", delay: float = 0.5, beyond: str = "polishing") -> None:
        self.label = label
        self.beyond = beyond
        self.total = max(int(total), 1)
        self.n_init = n_init
        self.stream = stream if stream is not None else sys.stderr
        if mode == "always":
            self.enabled, self.delay = True, 0.0
        elif mode == "never":
            self.enabled, self.delay = False, 0.0
        else:
            isatty = getattr(self.stream, "isatty", None)
            self.enabled = bool(isatty and isatty()) and os.environ.get("TERM") != "dumb"
            self.delay = delay
        self.start = time.perf_counter()
        self.last_draw = -1.0
        self.drawn = False

    def update(self, sweep: int, objective: float) -> None:
        """Redraw (at most 10 times a second) after ``sweep`` sweeps with the best ``objective``."""
        if not self.enabled:
            return
        now = time.perf_counter() - self.start
        if now < self.delay or (self.drawn and now - self.last_draw < 0.1):
            return
        self.last_draw = now
        self.drawn = True
        width = 20
        filled = int(width * min(sweep, self.total) / self.total)
        bar = "#" * filled + "-" * (width - filled)
        phase = f"sweep {sweep}/{self.total}" if sweep <= self.total else f"sweep {sweep}, {self.beyond}"
        restarts = f"{self.n_init} restart{'s' if self.n_init != 1 else ''}"
        line = f"{self.label} [{bar}] {phase} | {restarts} | best {objective:.6g} | {now:.1f}s"
        cols = shutil.get_terminal_size((100, 20)).columns
        self.stream.write("\r" + line[: cols - 1].ljust(cols - 1))
        self.stream.flush()

    def close(self) -> None:
        """Erase the bar (if one was drawn)."""
        if self.drawn:
            cols = shutil.get_terminal_size((100, 20)).columns
            self.stream.write("\r" + " " * (cols - 1) + "\r")
            self.stream.flush()


def _run(X: npt.NDArray[np.float64], k: int, method: str, args: argparse.Namespace,
         seed: Optional[int]) -> Tuple[_api.ClusterResult, float]:
    """One fit, stepped with a progress bar when one can be shown; returns (result, seconds)."""
    kwargs: Dict[str, Any] = dict(init=args.init, n_init=args.n_init, n_threads=args.threads, refine=args.refine,
                                  tol=args.tol)
    expected = args.n_iter or (_params.DEFAULT_N_ITER if method == "smartigan" else _params.DEFAULT_MAX_ITER)
    beyond = "polishing or refining" if args.refine else "polishing"
    bar = Progress(method, expected, args.n_init, mode=args.progress, beyond=beyond)
    t0 = time.perf_counter()
    if not bar.enabled:
        result = _api.cluster(X, k, method, args.n_iter, seed, **kwargs)  # type: ignore[arg-type]
        return result, time.perf_counter() - t0
    # Stepping gives bit-for-bit the result of cluster() (see Clusterer).
    model = _api.Clusterer(k, method, args.n_iter, seed, **kwargs)  # type: ignore[arg-type]
    model.start(X)
    sweeps = 0
    try:
        while model.step():
            sweeps += 1
            bar.update(sweeps, model.objective_)
    finally:
        bar.close()
    assert model.result_ is not None
    return model.result_, time.perf_counter() - t0


# ---------------------------------------------------------------------------
# writing results


def _check_writable(path: str, what: str) -> None:
    parent = Path(path).parent
    if not parent.is_dir():
        raise CliError(f"{what}: directory {str(parent)!r} does not exist")


def _require_plot(path: str) -> None:
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise CliError("--plot needs matplotlib, which is not installed: pip install 'smartigan[plot]'") from None
    suffix = Path(path).suffix.lower().lstrip(".")
    known = Figure().canvas.get_supported_filetypes()
    if suffix not in known:
        raise CliError(f"--plot {path}: unknown picture format {suffix or '(no suffix)'!r}; "
                       f"use a suffix among {', '.join('.' + k for k in sorted(known))}")


def _write_outputs(prefix: str, fmt: str, result: _api.ClusterResult, names: Optional[List[str]]) -> List[str]:
    d = result.centroids.shape[1]
    cols = names if names is not None else [f"x{i}" for i in range(d)]
    labels_path, centroids_path = f"{prefix}.labels.{fmt}", f"{prefix}.centroids.{fmt}"
    if fmt == "npy":
        np.save(labels_path, result.labels)
        np.save(centroids_path, result.centroids)
    elif fmt == "parquet":
        pa = _pyarrow("writing")
        pa.parquet.write_table(pa.table({"label": result.labels}), labels_path)
        pa.parquet.write_table(pa.table({c: result.centroids[:, i] for i, c in enumerate(cols)}), centroids_path)
    else:
        np.savetxt(labels_path, result.labels, fmt="%d", header="label", comments="")
        header = ",".join(f'"{c}"' if ("," in c or '"' in c) else c for c in cols)
        np.savetxt(centroids_path, result.centroids, delimiter=",", fmt="%.17g", header=header, comments="")
    return [labels_path, centroids_path]


# ---------------------------------------------------------------------------
# commands


def _load(args: argparse.Namespace) -> Table:
    header = {"auto": None, "yes": True, "no": False}[args.header]
    table = read_table(args.data, args.input_format, columns=args.columns, header=header, delimiter=args.delimiter)
    for note in table.notes:
        print(f"smartigan {args.command}: note: {note}", file=sys.stderr)
    return table


def _preflight(args: argparse.Namespace) -> None:
    """Fail before the (possibly long) fit for problems we can see up front."""
    if args.k < 1:
        raise CliError(f"-k must be at least 1, got {args.k}")
    if args.plot:
        _require_plot(args.plot)
        _check_writable(args.plot, "--plot")
    if getattr(args, "out", None):
        _check_writable(args.out, "--out")
        if args.format == "parquet":
            _pyarrow("writing")


def _fit(args: argparse.Namespace) -> int:
    _preflight(args)
    table = _load(args)
    X = table.data
    n, d = X.shape
    _resolve_n_init(args, n, d)
    if args.k > n:
        raise CliError(f"-k {args.k} is larger than the number of points ({n}) in {args.data}")
    result, elapsed = _run(X, args.k, args.method, args, args.seed)
    sizes = result.cluster_sizes
    written = _write_outputs(args.out, args.format, result, table.names) if args.out else []
    if args.plot:
        from . import plot

        plot.save(X, {args.method: result}, args.plot, feature_names=table.names,
                  title=f"{Path(args.data).name}: k={args.k}, {args.method}")
        written.append(args.plot)
    ro = result.restart_objectives
    if args.json:
        summary = dict(data=args.data, n_samples=n, n_features=d, k=args.k, method=args.method, init=args.init,
                       n_init=args.n_init, n_iter=args.n_iter, seed=result.seed, objective=result.objective,
                       sweeps=result.n_sweeps, converged=result.converged, best_restart=result.best_restart,
                       restart_objectives=ro.tolist(), seconds=elapsed, sizes=sizes.tolist(), written=written)
        print(json.dumps(summary))
        return 0
    print(f"data        {args.data}: {n} points, {d} features"
          + (f" ({', '.join(table.names)})" if table.names and d <= 8 else ""))
    print(f"method      {args.method} (init {args.init}, {args.n_init} restarts, n_iter {args.n_iter or 'default'}, seed {result.seed})")
    print(f"objective   {result.objective:.10g}")
    print(f"sweeps      {result.n_sweeps} ({'converged' if result.converged else 'stopped at the sweep limit'})")
    print(f"restarts    best #{result.best_restart}; objectives min {ro.min():.6g}, median {np.median(ro):.6g}, "
          f"max {ro.max():.6g}")
    print(f"time        {elapsed:.3f}s")
    print(f"sizes       {' '.join(str(s) for s in sizes)}")
    for path in written:
        print(f"wrote       {path}")
    return 0


def _compare(args: argparse.Namespace) -> int:
    _preflight(args)
    table = _load(args)
    X = table.data
    n, d = X.shape
    _resolve_n_init(args, n, d)
    if args.k > n:
        raise CliError(f"-k {args.k} is larger than the number of points ({n}) in {args.data}")
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    unknown = [m for m in methods if m not in METHODS]
    if unknown or not methods:
        raise CliError(f"--methods: unknown method {', '.join(map(repr, unknown)) or '(none)'}; "
                       f"choose from {', '.join(METHODS)}")
    # One seed for every method: restart i starts from the same partition and
    # visits points in the same orders whatever the method (paired starts).
    seed = args.seed if args.seed is not None else int(np.random.SeedSequence().generate_state(1, np.uint64)[0])
    results: Dict[str, _api.ClusterResult] = {}
    times: Dict[str, float] = {}
    for m in methods:
        results[m], times[m] = _run(X, args.k, m, args, seed)
    ref = methods[0]
    rows = []
    for m in methods:
        r = results[m]
        rel = 100.0 * (r.objective / results[ref].objective - 1.0) if results[ref].objective > 0 else 0.0
        rows.append(dict(method=m, objective=r.objective, vs=rel, mean=float(r.restart_objectives.mean()),
                         sweeps=r.n_sweeps, converged=r.converged, seconds=times[m]))
    pairs = []
    for a, b in zip(methods, methods[1:]):
        diff = results[b].restart_objectives - results[a].restart_objectives
        tol = 1e-12 * np.maximum(np.abs(results[a].restart_objectives), 1.0)
        pairs.append(dict(first=a, second=b, better=int(np.sum(diff < -tol)), tied=int(np.sum(np.abs(diff) <= tol)),
                          worse=int(np.sum(diff > tol))))
    if args.plot:
        from . import plot

        plot.save(X, results, args.plot, feature_names=table.names,
                  title=f"{Path(args.data).name}: k={args.k}, {args.n_init} paired restarts, seed {seed}")
    if args.json:
        print(json.dumps(dict(data=args.data, n_samples=n, n_features=d, k=args.k, seed=seed, init=args.init,
                              n_init=args.n_init, n_iter=args.n_iter, methods=rows, paired=pairs,
                              written=[args.plot] if args.plot else [])))
        return 0
    print(f"{args.data}: {n} points, {d} features, k={args.k}, init {args.init}, {args.n_init} restarts "
          f"per method from the same starts (seed {seed})\n")
    head = f"{'method':<10} {'best objective':>16} {'vs ' + ref:>10} {'mean of restarts':>17} {'sweeps':>7} {'converged':>9} {'time':>8}"
    print(head)
    print("-" * len(head))
    for row in rows:
        print(f"{row['method']:<10} {row['objective']:>16.8g} {row['vs']:>+9.2f}% {row['mean']:>17.8g} "
              f"{row['sweeps']:>7} {('yes' if row['converged'] else 'no'):>9} {row['seconds']:>7.3f}s")
    print()
    for p in pairs:
        print(f"restart by restart, {p['second']} vs {p['first']}: better in {p['better']}, "
              f"tied in {p['tied']}, worse in {p['worse']} of {args.n_init}")
    if args.plot:
        print(f"\nwrote {args.plot}")
    return 0


def _demo(args: argparse.Namespace) -> int:
    X, _ = load_iris()
    runs = args.runs
    print(f"smartigan {__version__} demo: Fisher's Iris data ({X.shape[0]} points in R^{X.shape[1]})")
    print(f"Mean k-means objective over {runs} runs per cell under the paper's protocol "
          "(random partition, at most 10 sweeps); paper's Table 1 values in brackets.")
    print(f"The last column is one call of smartigan.cluster(X, k) with default settings "
          f"(method={_params.DEFAULT_METHOD!r}, init={_params.DEFAULT_INIT!r}, n_init={_params.DEFAULT_N_INIT!r}: "
          f"{_params.auto_n_init(X.shape[0], X.shape[1], max(args.k))} restarts here).\n")
    header = f"{'k':>3}  {'Lloyd':>17}  {'Hartigan':>17}  {'Smartigan':>17}  {'default cluster()':>17}  {'time':>7}"
    print(header)
    print("-" * len(header))
    total = time.perf_counter()
    for k in args.k:
        t0 = time.perf_counter()
        cells = []
        for method in METHODS:
            r = _api.cluster(X, k, method, seed=args.seed, n_init=runs, schedule=PAPER_SCHEDULE,  # type: ignore[arg-type]
                             **PAPER_PROTOCOL)  # type: ignore[arg-type]
            cells.append(float(r.restart_objectives.mean()))
        best = _api.cluster(X, k, seed=args.seed).objective
        elapsed = time.perf_counter() - t0
        paper = PAPER_IRIS.get(k)
        text = [f"{v:8.2f} [{p:6.2f}]" if paper else f"{v:8.2f} [  -   ]"
                for v, p in zip(cells, paper or (0.0, 0.0, 0.0))]
        print(f"{k:>3}  {text[0]:>17}  {text[1]:>17}  {text[2]:>17}  {best:>17.2f}  {elapsed:>6.2f}s")
    print(f"\ntotal {time.perf_counter() - total:.2f}s. Lower is better. The paper's Lloyd row is not "
          "reproducible by standard Lloyd (see benches/PAPER.md).")
    return 0


# ---------------------------------------------------------------------------
# parser


def _resolve_n_init(args: argparse.Namespace, n: int, d: int) -> None:
    """Replace ``--n-init auto`` by its count, so that progress, tables and JSON show it."""
    if args.n_init == "auto":
        args.n_init = _params.auto_n_init(n, d, args.k)


def _n_init_arg(text: str) -> Union[int, str]:
    return "auto" if text == "auto" else _positive(text)


def _positive(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {v}")
    return v


def _tol(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {text!r}") from None
    if not (v >= 0 and v != float("inf")):
        raise argparse.ArgumentTypeError(f"expected a finite number >= 0, got {text}")
    return v


def _seed(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer in [0, 2**64), got {text!r}") from None
    if not 0 <= v < 2**64:
        raise argparse.ArgumentTypeError(f"expected an integer in [0, 2**64), got {v}")
    return v


def _add_data_options(p: argparse.ArgumentParser, method: bool) -> None:
    p.add_argument("data", help="CSV (delimiter and header detected), .npy or .parquet file, one point per row")
    p.add_argument("-k", type=_positive, required=True, help="number of clusters")
    if method:
        p.add_argument("--method", default=_params.DEFAULT_METHOD, choices=METHODS,
                       help=f"algorithm (default {_params.DEFAULT_METHOD})")
    p.add_argument("--init", default=_params.DEFAULT_INIT, choices=INITS,
                   help=f"how each restart starts (default {_params.DEFAULT_INIT})")
    p.add_argument("--n-iter", type=_positive, default=None,
                   help=f"Smartigan's schedule length (default {_params.DEFAULT_N_ITER}); for lloyd and "
                        f"hartigan a cap on iterations/sweeps (default {_params.DEFAULT_MAX_ITER})")
    p.add_argument("--n-init", type=_n_init_arg, default=_params.DEFAULT_N_INIT,
                   help="restarts, run in parallel; the best is kept (default auto: "
                        f"{_params.AUTO_N_INIT_SMALL} while n*d*k <= 2**20, else {_params.AUTO_N_INIT_LARGE})")
    p.add_argument("--tol", type=_tol, default=_params.DEFAULT_TOL,
                   help="stop a descent once an iteration moves the centroids by at most TOL times the data's "
                        "mean variance (scikit-learn's tol; default 0: until no point moves)")
    p.add_argument("--no-refine", dest="refine", action="store_false",
                   help="skip the merge-split refinement after convergence (the paper's methods as printed)")
    p.add_argument("--seed", type=_seed, default=None, help="seed in [0, 2**64) (default: random, printed)")
    p.add_argument("--threads", type=_positive, default=None, help="threads (default: all cores)")
    p.add_argument("--plot", metavar="FILE.png", help="draw the clustering and objective per sweep (needs matplotlib)")
    p.add_argument("--input-format", default="auto", choices=("auto",) + FORMATS,
                   help="format of DATA (default: from the suffix; anything but .npy/.parquet is CSV)")
    p.add_argument("--columns", metavar="COLS", help="comma-separated column names or 0-based indices to use")
    p.add_argument("--header", default="auto", choices=("auto", "yes", "no"),
                   help="whether the CSV's first row is a header (default: detected)")
    p.add_argument("--delimiter", help="CSV delimiter (default: detected among , TAB ; | and whitespace)")
    p.add_argument("--progress", default="auto", choices=("auto", "always", "never"),
                   help="progress bar on stderr (default: on a terminal, for runs longer than half a second)")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``smartigan`` command.

    Returns
    -------
    argparse.ArgumentParser

    Examples
    --------
    >>> args = build_parser().parse_args(["fit", "data.csv", "-k", "3", "--method", "lloyd"])
    >>> args.k, args.method, args.format
    (3, 'lloyd', 'csv')
    """
    parser = argparse.ArgumentParser(
        prog="smartigan",
        description="k-means that actually minimises the objective: Lloyd, Hartigan and Smartigan.",
        epilog="Exit status: 0 success, 2 usage or data error, 130 interrupted.",
    )
    parser.add_argument("--version", action="version", version=f"smartigan {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="{demo,fit,compare}")

    demo = sub.add_parser("demo", help="the paper's Table 1 on the embedded Iris data (about a second)")
    demo.add_argument("--runs", type=_positive, default=500, help="runs per cell (default 500, as in the paper)")
    demo.add_argument("-k", type=_positive, nargs="+", default=[3, 5, 10, 20], help="cluster counts (default 3 5 10 20)")
    demo.add_argument("--seed", type=_seed, default=0)
    demo.set_defaults(func=_demo)

    fit = sub.add_parser("fit", help="cluster a CSV, .npy or Parquet file",
                         description="Cluster the rows of DATA and print a summary.")
    _add_data_options(fit, method=True)
    fit.add_argument("--out", metavar="PREFIX", help="write PREFIX.labels.EXT and PREFIX.centroids.EXT")
    fit.add_argument("--format", default="csv", choices=FORMATS,
                     help="format of the --out files (default csv; parquet needs pyarrow)")
    fit.set_defaults(func=_fit)

    cmp_ = sub.add_parser("compare", help="Lloyd, Hartigan and Smartigan side by side from the same starts",
                          description="Run several methods with the same seed, hence the same starting "
                                      "partitions, and compare their objectives restart by restart.")
    _add_data_options(cmp_, method=False)
    cmp_.add_argument("--methods", default=",".join(METHODS),
                      help="comma-separated methods, first is the reference (default lloyd,hartigan,smartigan)")
    cmp_.set_defaults(func=_compare)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the ``smartigan`` command with ``argv`` (default ``sys.argv[1:]``).

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments without the program name.

    Returns
    -------
    int
        Exit status: 0 success, 2 usage or data error, 130 interrupted.
        (Invalid options make argparse exit with status 2 via SystemExit.)

    Examples
    --------
    >>> main(["demo", "--runs", "5", "-k", "3"])  # doctest: +ELLIPSIS
    smartigan ... demo: Fisher's Iris data (150 points in R^4)
    ...
    0
    """
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except CliError as exc:
        print(f"smartigan {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (``smartigan fit ... | head``): stop quietly.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except (ValueError, TypeError, OSError) as exc:
        print(f"smartigan {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("smartigan: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
