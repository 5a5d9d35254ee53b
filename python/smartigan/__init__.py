"""smartigan: k-means that actually minimises the k-means objective.

Lloyd, Hartigan and Smartigan (Clément & Steinerberger) with a Rust core,
deterministic parallel multi-start, and exact objectives.

>>> import smartigan
>>> X, _ = smartigan.datasets.load_iris()
>>> result = smartigan.cluster(X, 3, seed=0)
>>> result.labels.shape
(150,)
"""

from . import datasets
from ._api import ClusterResult, Clusterer, NotFittedError, cluster, kmeans_plusplus
from ._core import __version__
from ._path import PathResult, cluster_path

__all__ = ["ClusterResult", "Clusterer", "NotFittedError", "PathResult", "cluster", "cluster_path", "datasets",
           "kmeans_plusplus", "__version__"]
