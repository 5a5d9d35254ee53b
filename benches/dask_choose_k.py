#!/usr/bin/env python3
"""Benchmark: choosing k at Dask scale (issue 62). Not run in CI.

``smartigan.dask.KMeans(n_clusters="auto", k_range=(2, 40))`` (a path over
k on the coreset, its chosen k polished on the full data) against dask-ml's
``KMeans(n_clusters=20)`` fitted at the true k alone, on 2,000,000 x 32
points in 20 well-separated Gaussian groups (``sklearn.datasets.make_blobs``'
recipe: centres uniform in [-10, 10]^32, sigma 1), float32, on a
``LocalCluster`` of 2 worker processes with 1 thread each. The data are
drawn in the workers, block by block, from a seed, and persisted there
before either fit starts, so that every pass of either tool reads memory.

    python benches/dask_choose_k.py              # the full size: writes benches/results/dask-choose-k.md and .json
    python benches/dask_choose_k.py --quick      # 200,000 rows, for a small shared host
    python benches/dask_choose_k.py --rows 1000000 --criteria elbow,calinski_harabasz

Every fit runs once per tool, ours first, in this one process (a fresh
cluster for the run); times are wall-clock, and on a host shared with other
jobs they are noisy (the report gives the load average). Both tools' centres
are scored by one evaluator on the persisted data (a pass of float64
squared distances to the nearest centre). dask-ml is a benchmark-only
dependency (``pip install dask-ml``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any, Dict, List

# This folder holds a script named like the package (dask.py): keep it off
# the import path, or `import dask` would import that script.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

import numpy as np  # noqa: E402

SEED = 2062
FEATURES = 32
GROUPS = 20
ROWS = 2_000_000
QUICK_ROWS = 200_000
BLOCK_ROWS = 100_000
K_RANGE = (2, 40)


def blob_block(block_id: Any, seed: int, rows: int, d: int, groups: int) -> np.ndarray:
    """One block of ``groups`` Gaussian groups (centres uniform in [-10, 10]^d, sigma 1), float32."""
    centres = np.random.default_rng(seed).uniform(-10.0, 10.0, size=(groups, d))
    rng = np.random.default_rng([seed, block_id[0]])
    return (centres[rng.integers(0, groups, size=rows)] + rng.standard_normal((rows, d))).astype(np.float32)


def block_objective(x: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """The block's float64 objective against ``centres`` (nearest centre, exact squared distance)."""
    x64, c64 = x.astype(np.float64), centres.astype(np.float64)
    dots = x64 @ c64.T
    nearest = np.argmin((c64 * c64).sum(axis=1)[None, :] - 2.0 * dots, axis=1)
    diff = x64 - c64[nearest]
    return np.array([float(np.einsum("ij,ij->", diff, diff))])


def objective(X: Any, centres: np.ndarray) -> float:
    import math

    parts = X.map_blocks(block_objective, centres, dtype=np.float64, drop_axis=1, chunks=(1,)).compute()
    return math.fsum(parts.tolist())


def host() -> Dict[str, Any]:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(), "numpy": np.__version__,
            "load_at_start": os.getloadavg()[0]}


def run(rows: int, criteria: List[str], log: Any) -> Dict[str, Any]:
    import dask.array as da
    import distributed

    from smartigan.dask import KMeans

    report: Dict[str, Any] = {"rows": rows, "features": FEATURES, "groups": GROUPS, "k_range": list(K_RANGE),
                              "host": host(), "ours": {}}
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                       dashboard_address=None, memory_limit="4GiB",
                                       scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})
    with distributed.Client(cluster) as client:
        n_blocks = rows // BLOCK_ROWS
        X = da.map_blocks(blob_block, seed=SEED, rows=BLOCK_ROWS, d=FEATURES, groups=GROUPS,
                          chunks=((BLOCK_ROWS,) * n_blocks, (FEATURES,)), dtype=np.float32).persist()
        distributed.wait(X)
        log(f"data: {rows} x {FEATURES} float32 persisted in {len(client.scheduler_info()['workers'])} workers")
        for criterion in criteria:
            started = time.perf_counter()
            model = KMeans("auto", k_range=K_RANGE, criterion=criterion, random_state=SEED).fit(X)
            seconds = time.perf_counter() - started
            report["ours"][criterion] = dict(
                seconds=seconds, chosen=model.n_clusters_, suggested=model.path_.suggested[criterion],
                timings={k: round(v, 3) for k, v in model.timings_.items()}, coreset=model.coreset_size_,
                n_passes=model.n_passes_, inertia=model.inertia_, objective=objective(X, model.cluster_centers_),
                path_objectives=model.path_.objectives.tolist(),
                values=[None if not np.isfinite(v) else float(v) for v in model.path_.criteria[criterion]])
            log(f"ours ({criterion}): k={model.n_clusters_} in {seconds:.1f}s {model.timings_}")
        try:
            from dask_ml.cluster import KMeans as DaskMLKMeans
        except ImportError:
            log("dask-ml is not installed: its row is left out")
        else:
            started = time.perf_counter()
            theirs = DaskMLKMeans(n_clusters=GROUPS, random_state=SEED).fit(X)
            seconds = time.perf_counter() - started
            report["dask_ml"] = dict(seconds=seconds, n_iter=int(getattr(theirs, "n_iter_", -1)),
                                     objective=objective(X, np.asarray(theirs.cluster_centers_)))
            log(f"dask-ml KMeans({GROUPS}): {seconds:.1f}s")
        # The same k fitted by ours alone, for the cost of choosing k.
        started = time.perf_counter()
        fixed = KMeans(GROUPS, random_state=SEED).fit(X)
        report["ours_fixed"] = dict(seconds=time.perf_counter() - started, objective=objective(X, fixed.cluster_centers_),
                                    timings={k: round(v, 3) for k, v in fixed.timings_.items()})
        log(f"ours KMeans({GROUPS}): {report['ours_fixed']['seconds']:.1f}s")
    cluster.close()
    return report


def render(report: Dict[str, Any]) -> str:
    h = report["host"]
    rows = report["rows"]
    L = ["# Choosing k at Dask scale (issue 62)", ""]
    L.append(f"Regenerate with `python benches/dask_choose_k.py{' --quick' if rows == QUICK_ROWS else ''}"
             f"{'' if rows in (ROWS, QUICK_ROWS) else f' --rows {rows}'}` (dask-ml installed). Host: {h['cpu']}, "
             f"{h['cores']} cores, load average {h['load_at_start']:.1f} at the start, Python {h['python']}, "
             f"numpy {h['numpy']}; a `LocalCluster` of 2 worker processes, 1 thread each; the run took "
             f"{report['minutes']:.1f} min.")
    L.append("")
    L.append(f"Data: {rows:,} x {report['features']} float32 in {report['groups']} Gaussian groups (centres "
             "uniform in [-10, 10]^32, sigma 1), drawn in the workers and persisted there before the fits. "
             f"`ours` is `smartigan.dask.KMeans(\"auto\", k_range={tuple(report['k_range'])}, criterion=...)`: "
             "k-means|| and a coreset for the largest k, the path over k on the coreset, the chosen k polished "
             f"on the full data. `dask-ml` is `dask_ml.cluster.KMeans(n_clusters={report['groups']})` with its "
             "defaults, fitted at the true k alone. Objectives: one float64 evaluator over the data.")
    L.append("")
    L.append("| run | k | time (s) | vs dask-ml at the true k | objective | stages (s) |")
    L.append("|---|---|---|---|---|---|")
    dml = report.get("dask_ml")
    for criterion, r in report["ours"].items():
        ratio = f"{r['seconds'] / dml['seconds']:.2f}x" if dml else "-"
        stages = ", ".join(f"{k} {v:.1f}" for k, v in r["timings"].items())
        L.append(f"| ours, {criterion} | {r['chosen']} | {r['seconds']:.1f} | {ratio} | {r['objective']:.6g} | "
                 f"{stages} |")
    f = report["ours_fixed"]
    ratio = f"{f['seconds'] / dml['seconds']:.2f}x" if dml else "-"
    L.append(f"| ours, k = {report['groups']} given | {report['groups']} | {f['seconds']:.1f} | {ratio} | "
             f"{f['objective']:.6g} | {', '.join(f'{k} {v:.1f}' for k, v in f['timings'].items())} |")
    if dml:
        L.append(f"| dask-ml | {report['groups']} | {dml['seconds']:.1f} | 1.00x | {dml['objective']:.6g} | "
                 f"{dml['n_iter']} Lloyd iterations |")
    L.append("")
    notes = Path(__file__).resolve().parent / "results" / "dask-choose-k-notes.md"
    if notes.exists():
        L += ["## Notes", "", notes.read_text().strip(), ""]
    return "\n".join(L)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help=f"{QUICK_ROWS:,} rows instead of {ROWS:,}")
    ap.add_argument("--rows", type=int, help="rows (a multiple of 100,000)")
    ap.add_argument("--criteria", default="elbow", help="comma-separated criteria of ours (default elbow)")
    ap.add_argument("--out", default=str(_HERE / "results" / "dask-choose-k.md"))
    ap.add_argument("--from-json", help="re-render a saved report")
    args = ap.parse_args()
    out = Path(args.out)
    if args.from_json:
        out.write_text(render(json.loads(Path(args.from_json).read_text())) + "\n")
        return
    rows = args.rows or (QUICK_ROWS if args.quick else ROWS)
    t0 = time.time()

    def log(msg: str) -> None:
        print(f"[{time.time() - t0:7.1f}s] {msg}", flush=True)

    report = run(rows, [c.strip() for c in args.criteria.split(",") if c.strip()], log)
    report["minutes"] = (time.time() - t0) / 60
    out.with_suffix(".json").write_text(json.dumps(report, indent=1))
    out.write_text(render(report) + "\n")
    log(f"wrote {out}")


if __name__ == "__main__":
    main()
