"""
On a Dask cluster
=================

:class:`smartigan.dask.KMeans` fits data held as a Dask array, chunk by
chunk on the workers, for data larger than one machine's memory. Here the
cluster is a :class:`~distributed.LocalCluster` on this machine, started and
closed by the script; on a real cluster only the ``Client`` changes.
"""

# %%
import logging

import dask.array as da
import numpy as np
from dask.distributed import Client, LocalCluster

from smartigan.dask import KMeans

# An in-process cluster logs its workers' comings and goings; keep errors only.
logging.getLogger("distributed").setLevel(logging.ERROR)

rng = np.random.default_rng(0)
centres = rng.uniform(-10, 10, size=(6, 5))
points = centres[rng.integers(6, size=60_000)] + rng.normal(size=(60_000, 5))

with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None,
                  silence_logs="error") as cluster, Client(cluster):
    X = da.from_array(points, chunks=(10_000, 5))
    model = KMeans(n_clusters=6, random_state=0).fit(X)
    labels = model.predict(X).compute()

print("objective:", round(float(model.inertia_), 1))
print("cluster sizes:", np.bincount(labels))
