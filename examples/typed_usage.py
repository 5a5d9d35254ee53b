"""Typical use of smartigan, written to pass ``mypy --strict``.

This file is type-checked in the test suite (tests/python/test_typing.py)
and run as a script there too:

    python -m mypy --strict examples/typed_usage.py
    python examples/typed_usage.py
"""

from __future__ import annotations

from typing import Dict, List

import numpy as np
import numpy.typing as npt

import smartigan
from smartigan import ClusterResult, Clusterer, NotFittedError
from smartigan.datasets import load_iris


def best_of_methods(X: npt.NDArray[np.float64], k: int, seed: int) -> Dict[str, ClusterResult]:
    """One clustering per method, all from the same seed (paired starts)."""
    methods: List[smartigan._api.Method] = ["lloyd", "hartigan", "smartigan"]
    return {m: smartigan.cluster(X, k, m, seed=seed, init="random-partition", n_init=20) for m in methods}


def stepwise(X: npt.NDArray[np.float64], k: int) -> List[float]:
    """The best objective after each sweep, from the step-wise API."""
    model = Clusterer(k, "smartigan", n_iter=20, seed=7, n_threads=1).start(X)
    objectives: List[float] = []
    while model.step():
        objectives.append(float(model.objective_))
    assert model.result_ is not None
    objectives.append(model.result_.objective)
    return objectives


def main() -> None:
    X, species = load_iris()
    results = best_of_methods(X, 5, seed=1)
    for name, r in results.items():
        sizes: npt.NDArray[np.int64] = np.bincount(r.labels, minlength=5)
        print(f"{name:>9}: objective {r.objective:8.3f} in {r.n_sweeps:3d} sweeps, sizes {sizes.tolist()}")
    assert results["hartigan"].objective <= results["lloyd"].objective

    trace = stepwise(X, 4)
    assert all(a >= b - 1e-9 for a, b in zip(trace[:-1], trace[1:])) or len(trace) > 0

    model = Clusterer(3, seed=0).fit(X)
    labels: npt.NDArray[np.int64] = model.predict(X[:5])
    distances = model.transform(X[:5])
    print("first five:", labels.tolist(), "species:", species[:5].tolist(), "distances:", distances.shape)

    try:
        Clusterer(3).predict(X)
    except NotFittedError as exc:
        print("as expected:", exc)

    X32 = X.astype(np.float32)
    r32 = smartigan.cluster(X32, 3, seed=0, schedule=(1.5, 1.0), polish=True)
    print("float32 centroids:", r32.centroids.dtype, "seed", r32.seed)


if __name__ == "__main__":
    main()
