"""A short check of an installed smartigan, run by the release tests in each fresh virtualenv.

Usage: python wheel_smoke.py EXPECTED_VERSION [--no-sklearn]
       python wheel_smoke.py compare DIGEST.json...

The first form fails (non-zero exit) unless the package reports EXPECTED_VERSION
(Cargo.toml's), its results keep their documented guarantees and a fit is the same
with one and two threads. It prints one JSON line of digests (hashes of the labels
and centroids, the objectives' exact bits). The second form fails unless the saved
digests of several runs agree: one wheel on every interpreter, one source built by
any route, on any CPU path, must give bit-identical results.

Runs on every CPython from 3.9, so it uses nothing newer.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from importlib import metadata
from typing import Any


def digest(labels: Any, centroids: Any, objective: float) -> dict:
    import numpy as np

    return {
        "labels": hashlib.sha256(np.ascontiguousarray(labels, dtype=np.int64).tobytes()).hexdigest()[:16],
        "centroids": hashlib.sha256(np.ascontiguousarray(centroids).tobytes()).hexdigest()[:16],
        "objective": float(objective).hex(),
    }


def check(condition: bool, what: str) -> None:
    if not condition:
        sys.exit(f"wheel_smoke: FAILED: {what}")


def results_only(run: dict) -> dict:
    """The digests of one run without the versions of Python, numpy and scikit-learn."""
    kept = {k: v for k, v in run.items() if k not in ("python", "numpy")}
    if kept.get("sklearn"):
        kept["sklearn"] = {k: v for k, v in kept["sklearn"].items() if k != "version"}
    return kept


def compare(paths: list) -> None:
    runs = {}
    for path in paths:
        with open(path) as f:
            runs[path] = results_only(json.load(f))
    reference_path, reference = next(iter(runs.items()))
    for path, run in runs.items():
        theirs = dict(reference)
        mine = dict(run)
        # A run without scikit-learn has nothing to compare there.
        if mine.get("sklearn") is None or theirs.get("sklearn") is None:
            mine.pop("sklearn", None)
            theirs.pop("sklearn", None)
        check(mine == theirs, f"{path} differs from {reference_path}:\n{mine}\n{theirs}")
    names = ", ".join(os.path.splitext(os.path.basename(path))[0] for path in runs)
    print(f"identical results in {len(runs)} runs: {names}")


def smoke(expected_version: str, with_sklearn: bool) -> None:
    # Imported here so that `compare` needs neither numpy nor smartigan.
    import numpy as np

    import smartigan

    check(smartigan.__version__ == expected_version,
          f"smartigan.__version__ is {smartigan.__version__!r}, Cargo.toml says {expected_version!r}")
    check(metadata.version("smartigan") == expected_version,
          f"the installed distribution is version {metadata.version('smartigan')!r}, expected {expected_version!r}")

    X, _ = smartigan.datasets.load_iris()
    report: dict = {"python": "%d.%d" % sys.version_info[:2], "numpy": np.__version__}
    for method in ("lloyd", "hartigan", "smartigan"):
        results = [smartigan.cluster(X, 5, method, seed=7, n_init=4, n_threads=t) for t in (1, 2)]
        r = results[0]
        recomputed = float(((X - r.centroids[r.labels]) ** 2).sum())
        check(r.labels.min() == 0 and r.labels.max() == 4, f"{method}: labels outside 0..4 or a cluster empty")
        check(abs(recomputed - r.objective) <= 1e-9 * recomputed,
              f"{method}: objective {r.objective!r} but {recomputed!r} recomputed from labels and centroids")
        check(all(np.array_equal(getattr(r, f), getattr(results[1], f)) for f in ("labels", "centroids")),
              f"{method}: one and two threads gave different results")
        report[method] = digest(r.labels, r.centroids, r.objective)
    # Blobs large enough for the blocked sweeps, where the AVX2/AVX-512 kernels
    # are chosen at run time; RandomState's stream is the same in every numpy.
    rs = np.random.RandomState(0)
    centres = rs.normal(scale=4.0, size=(24, 16))
    blobs = centres[rs.randint(0, 24, size=4000)] + rs.normal(size=(4000, 16))
    for dtype in (np.float64, np.float32):
        r = smartigan.cluster(blobs.astype(dtype), 24, seed=3, n_init=2)
        check(r.centroids.dtype == dtype, f"{np.dtype(dtype).name} input gave {r.centroids.dtype} centroids")
        report["blobs-" + np.dtype(dtype).name] = digest(r.labels, r.centroids, r.objective)

    try:
        if not with_sklearn:
            raise ImportError("--no-sklearn")
        import sklearn
    except ImportError:
        report["sklearn"] = None
    else:
        from smartigan.sklearn import KMeans

        km = KMeans(n_clusters=5, random_state=7).fit(X)
        check(np.array_equal(km.predict(X), km.labels_), "KMeans.predict(X) differs from labels_ after fit(X)")
        check(km.transform(X).shape == (150, 5), "KMeans.transform(X) has the wrong shape")
        report["sklearn"] = dict(digest(km.labels_, km.cluster_centers_, km.inertia_), version=sklearn.__version__)
    print(json.dumps(report, sort_keys=True))


def main() -> None:
    if sys.argv[1] == "compare":
        compare(sys.argv[2:])
    else:
        smoke(sys.argv[1], with_sklearn="--no-sklearn" not in sys.argv[2:])


if __name__ == "__main__":
    main()
