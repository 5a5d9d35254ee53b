"""
Balanced clusters
=================

``size_min`` and ``size_max`` bound every cluster's size; ``"balanced"``
for both asks for sizes that differ by at most one row. The fit then
minimises the k-means objective among partitions that keep the bounds.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np

import smartigan
from smartigan.plot import plot_clustering

rng = np.random.default_rng(1)
# Three groups of very unequal sizes.
X = np.vstack([rng.normal((0, 0), 0.6, size=(500, 2)),
               rng.normal((4, 0), 0.6, size=(150, 2)),
               rng.normal((2, 3), 0.6, size=(50, 2))])

free = smartigan.cluster(X, 3, seed=0)
balanced = smartigan.cluster(X, 3, size_min="balanced", size_max="balanced", seed=0)
print("sizes without bounds:", free.cluster_sizes, "objective", round(float(free.objective), 1))
print("sizes when balanced: ", balanced.cluster_sizes, "objective", round(float(balanced.objective), 1))

# %%
fig, axes = plt.subplots(1, 2, figsize=(9, 4))
plot_clustering(X, free.labels, free.centroids, ax=axes[0], title="no bounds")
plot_clustering(X, balanced.labels, balanced.centroids, ax=axes[1], title='size_min = size_max = "balanced"')
fig.tight_layout()
