#!/usr/bin/env python3
"""Draws docs/choosing-k-iris.png, the picture of docs/choosing-k.md: the
embedded Iris data written as CSV, then

    smartigan choose-k iris.csv --k 1:12 --seed 0 --criteria elbow,calinski_harabasz,davies_bouldin,silhouette,gap \
        --plot docs/choosing-k-iris.png

(needs the package built, e.g. `maturin develop --release`, and matplotlib).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np

from smartigan.cli import main
from smartigan.datasets import load_iris

ROOT = Path(__file__).resolve().parent.parent


def run() -> int:
    X, _ = load_iris()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "iris.csv"
        np.savetxt(data, X, delimiter=",", fmt="%.17g",
                   header="sepal length,sepal width,petal length,petal width", comments="")
        return main(["choose-k", str(data), "--k", "1:12", "--seed", "0", "--progress", "never",
                     "--criteria", "elbow,calinski_harabasz,davies_bouldin,silhouette,gap",
                     "--plot", str(ROOT / "docs" / "choosing-k-iris.png")])


if __name__ == "__main__":
    sys.exit(run())
