"""
Cosine similarity on embeddings
===============================

Embeddings from a text or image model are compared by direction, not
length. ``metric="cosine"`` runs spherical k-means: each centroid is a unit
direction and the objective is the sum of ``1 - cos(x, centroid)``. The rows
need no normalising first, and their lengths do not change the result.
"""

# %%
import numpy as np

import smartigan

rng = np.random.default_rng(0)
n_topics, dim = 8, 64
topics = rng.normal(size=(n_topics, dim))
topic = rng.integers(n_topics, size=3000)
# Directions scattered around their topic's, lengths that vary widely (as
# raw embeddings' do): the lengths say nothing about the topic.
X = (topics[topic] + 0.8 * rng.normal(size=(3000, dim))) * rng.uniform(0.5, 5.0, size=(3000, 1))
X = X.astype(np.float32)

result = smartigan.cluster(X, n_topics, metric="cosine", seed=0)
print("objective (sum of 1 - cos):", round(float(result.objective), 2))
print("centroid lengths:", np.round(np.linalg.norm(result.centroids, axis=1), 6))

# %%
# Each topic should come out as one cluster: the contingency table of topics
# against clusters has one large entry per row.
table = np.zeros((n_topics, n_topics), dtype=int)
np.add.at(table, (topic, result.labels), 1)
print(table)
print("share of rows in their topic's majority cluster:", table.max(axis=1).sum() / len(X))

# %%
# Scaling every row by a different positive factor changes nothing.
scaled = X * rng.uniform(0.1, 10.0, size=(len(X), 1)).astype(np.float32)
again = smartigan.cluster(scaled, n_topics, metric="cosine", seed=0)
print("same labels after rescaling the rows:", bool(np.array_equal(again.labels, result.labels)))
