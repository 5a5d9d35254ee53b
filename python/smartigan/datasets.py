"""Data shipped inside the package (so the demo needs no download)."""

from __future__ import annotations

from importlib import resources

import numpy as np
import numpy.typing as npt

__all__ = ["load_iris"]


def load_iris() -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """Fisher's Iris data: 150 × 4 features (cm) and species codes 0/1/2.

    Provenance: ``sklearn.datasets.load_iris()`` (identical to R's
    ``datasets::iris``); UCI Machine Learning Repository, CC BY 4.0.

    Examples
    --------
    >>> X, y = load_iris()
    >>> X.shape, int(y.max())
    ((150, 4), 2)
    """
    text = resources.files("smartigan").joinpath("data/iris.csv").read_text()
    table = np.loadtxt(text.splitlines(), delimiter=",", skiprows=1)
    return np.ascontiguousarray(table[:, :4]), table[:, 4].astype(np.int64)
