"""k-means on Dask: :class:`smartigan.dask.KMeans`, for data that do not fit one machine.

Install the optional dependencies with ``pip install 'smartigan[dask]'``.
The estimator takes dask arrays, dask DataFrames and NumPy arrays; it runs
on whatever scheduler is active (a ``distributed.Client`` when one exists,
else Dask's local threads). Importing :mod:`smartigan` does not import Dask;
only importing this module does. The design and its guarantees: docs/dask.md.
"""

from ._kmeans import KMeans

__all__ = ["KMeans"]
