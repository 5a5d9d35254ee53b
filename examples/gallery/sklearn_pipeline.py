"""
In a scikit-learn pipeline
==========================

:class:`smartigan.sklearn.KMeans` is a scikit-learn estimator: it takes
``sklearn.cluster.KMeans``'s parameters that apply, and works in pipelines,
grid searches, ``clone`` and ``set_output``.
"""

# %%
import numpy as np
from sklearn.cluster import KMeans as SklearnKMeans
from sklearn.metrics import adjusted_rand_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import smartigan
from smartigan.sklearn import KMeans

X, species = smartigan.datasets.load_iris()

pipe = make_pipeline(StandardScaler(), KMeans(n_clusters=3, random_state=0))
labels = pipe.fit_predict(X)
print("adjusted Rand index against the species:", round(adjusted_rand_score(species, labels), 3))

# %%
# The same pipeline with scikit-learn's own KMeans, and the objective each
# reaches on the scaled data (``inertia_``, lower is better).
theirs = make_pipeline(StandardScaler(), SklearnKMeans(n_clusters=8, random_state=0)).fit(X)
ours = make_pipeline(StandardScaler(), KMeans(n_clusters=8, random_state=0)).fit(X)
print("scikit-learn KMeans(8) inertia:", round(theirs[-1].inertia_, 3))
print("smartigan    KMeans(8) inertia:", round(ours[-1].inertia_, 3))
print("new rows are labelled by the nearest centroid:", ours.predict(np.array([[5.0, 3.4, 1.5, 0.2]])))
