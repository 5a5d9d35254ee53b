"""Writing results: labels and centroids as CSV, ``.npy`` or Parquet, and
the checks that let a run fail before its fit rather than after."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
import numpy.typing as npt

from .._api import ClusterResult
from .errors import CliError
from .readers import import_pyarrow

__all__ = ["check_writable", "output_paths", "require_plot", "write_outputs", "write_table"]


def check_writable(path: str, what: str) -> None:
    parent = Path(path).parent
    if not parent.is_dir():
        raise CliError(f"{what}: directory {str(parent)!r} does not exist")


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


def write_table(path: str, fmt: str, columns: Dict[str, npt.NDArray[Any]]) -> None:
    """One table, ``columns`` by name: CSV with a header row (numbers with 17
    significant digits, so they read back exactly), Parquet with the column
    names, ``.npy`` as a 2-d array with the columns in order."""
    if fmt == "parquet":
        pa = import_pyarrow("writing")
        pa.parquet.write_table(pa.table(columns), path)
        return
    table = np.column_stack(list(columns.values()))
    if fmt == "npy":
        np.save(path, table)
        return
    header = ",".join(f'"{c}"' if ("," in c or '"' in c) else c for c in columns)
    np.savetxt(path, table, delimiter=",", fmt="%.17g", header=header, comments="")


def write_outputs(out: str, fmt: str, result: ClusterResult, names: Optional[List[str]]) -> List[str]:
    d = result.centroids.shape[1]
    cols = names if names is not None else [f"x{i}" for i in range(d)]
    labels_path, centroids_path = output_paths(out, fmt)
    if fmt == "npy":
        np.save(labels_path, result.labels)
        np.save(centroids_path, result.centroids)
    else:
        write_table(labels_path, fmt, {"label": result.labels})
        write_table(centroids_path, fmt, {c: result.centroids[:, i] for i, c in enumerate(cols)})
    return [labels_path, centroids_path]
