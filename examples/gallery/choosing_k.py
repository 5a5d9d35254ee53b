"""
Choosing k
==========

:func:`smartigan.cluster_path` fits every k of a range in one call, each fit
started from the one before it, and computes the criteria for choosing k
(the elbow, Calinski-Harabasz, Davies-Bouldin, the silhouette and the gap
statistic). :func:`smartigan.plot.path_figure` draws the objective and every
criterion against k, with each criterion's suggestion marked.
"""

# %%
import smartigan
from smartigan.plot import path_figure

X, species = smartigan.datasets.load_iris()
path = smartigan.cluster_path(X, range(1, 11), seed=0)
print(path.suggested)

# %%
fig = path_figure(path, title="Iris: the objective and the criteria against k")
