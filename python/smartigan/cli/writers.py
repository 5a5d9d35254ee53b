"""Writing results: labels and centroids as CSV, ``.npy`` or Parquet, and
the checks that let a run fail before its fit rather than after.

Every column given is written: repeated column names are told apart as
pandas does (:func:`unique_names`). A file that cannot be written is
reported with its name, and a file left half-written (a full disk) is
removed.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import IO, Any, Callable, Iterator, List, Optional, Sequence, Tuple

import numpy as np
import numpy.typing as npt

from .._api import ClusterResult
from .errors import CliError
from .readers import import_pyarrow

__all__ = ["check_writable", "output_paths", "require_plot", "unique_names", "renaming_note", "write_outputs",
           "write_table", "writing"]

#: A table's columns in order: (name, values).
Columns = Sequence[Tuple[str, npt.NDArray[Any]]]


def check_writable(path: str, what: str) -> None:
    """``CliError`` naming ``path`` unless a file can be written there now.

    The path must not be a directory, its directory must exist, an existing
    file must be writable, and a probe file must take one byte in that
    directory (so that a read-only or full file system is found before the
    fit, not after it). The probe is removed; ``path`` is not touched.
    """
    p = Path(path)
    if p.is_dir():
        raise CliError(f"{what}: {path} is a directory; name a file")
    parent = p.parent
    if not parent.is_dir():
        raise CliError(f"{what}: directory {str(parent)!r} does not exist")
    if p.exists() and not os.access(p, os.W_OK):
        raise CliError(f"{what}: {path} is not writable")
    try:
        fd, probe = tempfile.mkstemp(dir=parent, prefix=".smartigan-probe-")
    except OSError as exc:
        raise CliError(f"{what}: cannot write {path}: {exc.strerror or exc}") from None
    try:
        os.write(fd, b"\0")
        os.fsync(fd)
    except OSError as exc:
        raise CliError(f"{what}: cannot write {path}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
        os.remove(probe)


@contextlib.contextmanager
def writing(path: str, what: str) -> Iterator[None]:
    """Turn an ``OSError`` of the block into a ``CliError`` naming ``path``,
    removing what the block left of a file that was not there before."""
    existed = os.path.lexists(path)
    try:
        yield
    except OSError as exc:
        if not existed and os.path.isfile(path):
            os.remove(path)
        raise CliError(f"{what}: could not write {path}: {exc.strerror or exc}") from None


def require_plot(path: str) -> None:
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise CliError("--plot needs matplotlib, which is not installed: pip install 'smartigan[plot]'") from None
    suffix = Path(path).suffix.lower().lstrip(".")
    known = Figure().canvas.get_supported_filetypes()
    if suffix not in known:
        raise CliError(f"--plot {path}: unknown picture format {suffix or '(no suffix)'!r}; "
                       f"use a suffix among {', '.join('.' + k for k in sorted(known))}")


def output_paths(out: str, fmt: str, kinds: Tuple[str, str] = ("labels", "centroids")) -> Tuple[str, str]:
    """The labels and centroids files (or two other ``kinds``) that ``--out OUT`` names.

    OUT is a prefix (``run1`` gives ``run1.labels.csv``), or a folder when it
    ends with a path separator or is an existing directory (``results/``
    gives ``results/labels.csv``, not the hidden ``results/.labels.csv``).

    >>> output_paths("run1", "csv")
    ('run1.labels.csv', 'run1.centroids.csv')
    >>> output_paths("results" + os.sep, "npy") == (os.path.join("results", "labels.npy"),
    ...                                            os.path.join("results", "centroids.npy"))
    True
    """
    separators = tuple(sep for sep in (os.sep, os.altsep) if sep)
    if out.endswith(separators) or Path(out).is_dir():
        return str(Path(out) / f"{kinds[0]}.{fmt}"), str(Path(out) / f"{kinds[1]}.{fmt}")
    return f"{out}.{kinds[0]}.{fmt}", f"{out}.{kinds[1]}.{fmt}"


def unique_names(names: Sequence[str]) -> List[str]:
    """``names`` with repeats told apart as pandas does: the first ``a`` stays
    ``a``, later ones become ``a.1``, ``a.2``, ..., skipping any name the
    columns already have.

    >>> unique_names(["a", "a", "b", "a.1"])
    ['a', 'a.2', 'b', 'a.1']
    """
    taken = set(names)
    seen: set[str] = set()
    out = []
    for name in names:
        if name not in seen:
            seen.add(name)
            out.append(name)
            continue
        suffix = 1
        while f"{name}.{suffix}" in taken:
            suffix += 1
        new = f"{name}.{suffix}"
        taken.add(new)
        out.append(new)
    return out


def renaming_note(names: Sequence[str]) -> Optional[str]:
    """What to tell the user when :func:`unique_names` renames columns; None when it does not.

    >>> renaming_note(["x", "x"])
    'repeated column names are written as x, x.1'
    """
    unique = unique_names(names)
    if unique == list(names):
        return None
    return f"repeated column names are written as {', '.join(unique)}"


def _csv_field(text: str) -> str:
    """A header field as RFC 4180 writes it, quoted where the reader would otherwise
    split, strip or skip it (a delimiter, a quote, a line break, surrounding
    space, a leading ``#``)."""
    if text != text.strip() or text.startswith("#") or any(c in text for c in ',"\r\n'):
        return '"' + text.replace('"', '""') + '"'
    return text


def write_table(path: str, fmt: str, columns: Columns) -> List[str]:
    """One table, ``columns`` as (name, values) in order, every one of them
    written: CSV with a header row (numbers with 17 significant digits, so
    they read back exactly), Parquet with the column names, ``.npy`` as a
    2-d array with the columns in order. Repeated names are told apart
    (:func:`unique_names`); returns the names written.

    Raises ``CliError`` naming ``path`` if it cannot be written (a partial
    file is removed).
    """
    names = unique_names([name for name, _ in columns])
    table = np.column_stack([values for _, values in columns])
    with writing(path, "--out"):
        if fmt == "parquet":
            pa = import_pyarrow("writing")
            arrow = pa.table({name: values for name, (_, values) in zip(names, columns)})
            _write_file(path, "wb", lambda f: pa.parquet.write_table(arrow, f))
        elif fmt == "npy":
            _write_file(path, "wb", lambda f: np.save(f, table))
        else:
            header = ",".join(_csv_field(name) for name in names)
            _write_file(path, "w", lambda f: np.savetxt(f, table, delimiter=",", fmt="%.17g", header=header,
                                                        comments=""))
    return names


def _write_file(path: str, mode: str, write: Callable[[IO[Any]], Any]) -> None:
    """Open ``path`` once and let ``write`` fill it; on a failure after the
    file was opened (so truncated: its old content is gone), remove it."""
    f = open(path, mode, newline="") if "b" not in mode else open(path, mode)
    try:
        with f:
            write(f)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(path)
        raise


def write_outputs(out: str, fmt: str, result: ClusterResult, names: Optional[List[str]]) -> List[str]:
    """Write the labels and centroids that ``--out`` names; returns the files written."""
    d = result.centroids.shape[1]
    cols = names if names is not None else [f"x{i}" for i in range(d)]
    labels_path, centroids_path = output_paths(out, fmt)
    if fmt == "npy":
        with writing(labels_path, "--out"):
            _write_file(labels_path, "wb", lambda f: np.save(f, result.labels))
        with writing(centroids_path, "--out"):
            _write_file(centroids_path, "wb", lambda f: np.save(f, result.centroids))
    else:
        write_table(labels_path, fmt, [("label", result.labels)])
        write_table(centroids_path, fmt, [(c, result.centroids[:, i]) for i, c in enumerate(cols)])
    return [labels_path, centroids_path]
