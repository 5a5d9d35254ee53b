"""Writing results: labels and centroids as CSV, ``.npy`` or Parquet, and
the checks that let a run fail before its fit rather than after."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import numpy as np

from .._api import ClusterResult
from .errors import CliError
from .readers import import_pyarrow

__all__ = ["check_writable", "require_plot", "write_outputs"]


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


def write_outputs(prefix: str, fmt: str, result: ClusterResult, names: Optional[List[str]]) -> List[str]:
    d = result.centroids.shape[1]
    cols = names if names is not None else [f"x{i}" for i in range(d)]
    labels_path, centroids_path = f"{prefix}.labels.{fmt}", f"{prefix}.centroids.{fmt}"
    if fmt == "npy":
        np.save(labels_path, result.labels)
        np.save(centroids_path, result.centroids)
    elif fmt == "parquet":
        pa = import_pyarrow("writing")
        pa.parquet.write_table(pa.table({"label": result.labels}), labels_path)
        pa.parquet.write_table(pa.table({c: result.centroids[:, i] for i, c in enumerate(cols)}), centroids_path)
    else:
        np.savetxt(labels_path, result.labels, fmt="%d", header="label", comments="")
        header = ",".join(f'"{c}"' if ("," in c or '"' in c) else c for c in cols)
        np.savetxt(centroids_path, result.centroids, delimiter=",", fmt="%.17g", header=header, comments="")
    return [labels_path, centroids_path]
