#!/usr/bin/env python3
"""Embeddings at faiss's speed: the time and objective of every contender on
embeddings-like workloads, Euclidean and cosine, with a time-objective
picture per workload.

    python benches/embeddings.py                          # every workload (long: tens of minutes)
    python benches/embeddings.py --scale 0.1 --reps 1     # a smoke run on a tenth of every n
    python benches/embeddings.py --workloads E128-1024,E128-1024-cos

Workloads: W5's recipe (100,000 x 384 float32, k = 256), the same recipe at
128 features (k = 256, 1,024, 4,096; one million rows at k = 1,024), each
also with ``metric="cosine"`` (suffix ``-cos``). Contenders, as users call
them:

* scikit-learn ``KMeans(k)`` (one k-means++ run); on ``-cos`` workloads the
  usual workaround, ``KMeans`` on the L2-normalised rows;
* faiss ``Kmeans(d, k)`` with its defaults (25 iterations on a sample of
  256 points per centroid) and with every point (``max_points_per_centroid
  = n``); on ``-cos`` workloads ``spherical=True``;
* smartigan's default ``cluster(X, k)`` (with the workload's metric), its
  Lloyd with one start, one Smartigan restart without refinement, and the
  fast setting ``n_init="fast"`` (one exact descent).

Every fit runs in this process on the same array, contenders interleaved rep
by rep; times are medians of ``--reps`` (a fit over a minute runs once).
Objectives are recomputed here in float64 from each fit's labels and
centres: the sum of squared distances, or with ``-cos`` the sum of
``1 - cos`` against the centres scaled to unit length. Writes
``benches/results/embeddings-2core.md``, its ``.json`` and one ``.png``
per workload (named after ``--out``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from statistics import median
from typing import Any, Callable, Dict, List, Tuple

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from default import have_faiss  # noqa: E402
from peers import make_embeddings, this_machine  # noqa: E402

import smartigan  # noqa: E402

#: name: (n, d, k); a ``-cos`` twin of each compares by cosine.
WORKLOADS = {
    "W5": (100_000, 384, 256),
    "E128-256": (100_000, 128, 256),
    "E128-1024": (100_000, 128, 1_024),
    "E128-4096": (100_000, 128, 4_096),
    "E1M-1024": (1_000_000, 128, 1_024),
}
#: A fit slower than this runs once, whatever ``--reps`` says.
ONCE_SECONDS = 60.0

Fit = Callable[[np.ndarray, int, int], Tuple[np.ndarray, np.ndarray]]


def unit(a: np.ndarray) -> np.ndarray:
    a = np.asarray(a, dtype=np.float64)
    return a / np.linalg.norm(a, axis=1, keepdims=True)


def objective(x: np.ndarray, labels: np.ndarray, centres: np.ndarray, cosine: bool) -> float:
    """The workload's objective of `labels` and `centres`, in float64, in blocks."""
    c = unit(centres) if cosine else np.asarray(centres, dtype=np.float64)
    total = 0.0
    for s in range(0, x.shape[0], 65536):
        xs = x[s:s + 65536].astype(np.float64)
        if cosine:
            total += float(np.sum(1.0 - np.einsum("ij,ij->i", unit(xs), c[labels[s:s + 65536]])))
        else:
            diff = xs - c[labels[s:s + 65536]]
            total += float(np.einsum("ij,ij->", diff, diff))
    return total


def ours(cosine: bool, **opts: Any) -> Fit:
    metric = "cosine" if cosine else "euclidean"

    def fit(x: np.ndarray, k: int, seed: int) -> Tuple[np.ndarray, np.ndarray]:
        r = smartigan.cluster(x, k, seed=seed, metric=metric, **opts)
        return r.labels, r.centroids
    return fit


def sklearn_default(cosine: bool) -> Fit:
    def fit(x: np.ndarray, k: int, seed: int) -> Tuple[np.ndarray, np.ndarray]:
        from sklearn.cluster import KMeans
        rows = unit(x).astype(x.dtype) if cosine else x
        km = KMeans(k, random_state=seed).fit(rows)
        return km.labels_, km.cluster_centers_
    return fit


def faiss_kmeans(cosine: bool, every_point: bool) -> Fit:
    def fit(x: np.ndarray, k: int, seed: int) -> Tuple[np.ndarray, np.ndarray]:
        import faiss
        x32 = np.ascontiguousarray(x, dtype=np.float32)
        extra = dict(max_points_per_centroid=x.shape[0]) if every_point else {}
        km = faiss.Kmeans(x.shape[1], k, seed=seed % 2**31, spherical=cosine, **extra)
        km.train(x32)
        # The index faiss trained against: inner products with `spherical`
        # (the nearest direction), squared distances otherwise.
        _, lab = km.index.search(x32, 1)
        return lab.ravel().astype(np.int64), km.centroids
    return fit


def contenders(cosine: bool) -> List[Tuple[str, Fit]]:
    out: List[Tuple[str, Fit]] = [("scikit-learn KMeans(k)", sklearn_default(cosine))]
    if have_faiss():
        out.append(("faiss Kmeans(d, k)", faiss_kmeans(cosine, every_point=False)))
        out.append(("faiss, every point", faiss_kmeans(cosine, every_point=True)))
    out += [
        ("smartigan default", ours(cosine)),
        ("smartigan lloyd, 1 start", ours(cosine, method="lloyd", n_init=1, refine=False)),
        ("smartigan, 1 restart, refine=False", ours(cosine, n_init=1, refine=False)),
        ('smartigan n_init="fast"', ours(cosine, n_init="fast")),
    ]
    return out


def run_workload(name: str, scale: float, reps: int, seed: int, log: Callable[[str], None]) -> Dict[str, Any]:
    base, cosine = name.removesuffix("-cos"), name.endswith("-cos")
    n, d, k = WORKLOADS[base]
    n = max(4 * k, int(n * scale))
    x = make_embeddings(n, d, k)
    rows: Dict[str, List[Dict[str, float]]] = {}
    once = set()
    for rep in range(reps):
        for label, fit in contenders(cosine):
            if label in once:
                continue
            t0 = time.perf_counter()
            labels, centres = fit(x, k, seed + rep)
            spent = time.perf_counter() - t0
            rows.setdefault(label, []).append(dict(time=spent, objective=objective(x, labels, centres, cosine)))
            if spent > ONCE_SECONDS:
                once.add(label)
            log(f"{name} rep {rep + 1}: {label}: {spent:.2f} s")
    table = {label: dict(time=median(r["time"] for r in runs), objective=median(r["objective"] for r in runs),
                         runs=len(runs)) for label, runs in rows.items()}
    ref = table["scikit-learn KMeans(k)"]
    for row in table.values():
        row["time_vs_sklearn"] = row["time"] / ref["time"]
        row["objective_vs_sklearn"] = row["objective"] / ref["objective"]
    faiss_all = table.get("faiss, every point")
    if faiss_all:
        for row in table.values():
            row["time_vs_faiss_all"] = row["time"] / faiss_all["time"]
    return dict(n=n, d=d, k=k, metric="cosine" if cosine else "euclidean", dtype=str(x.dtype), rows=table)


def plot(name: str, result: Dict[str, Any], path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    markers = "osD^vP*X"
    for (label, row), marker in zip(result["rows"].items(), markers):
        ax.scatter(row["time"], row["objective_vs_sklearn"], s=40, marker=marker, label=label, alpha=0.8)
    ax.legend(fontsize=7, loc="best")
    ax.set_xscale("log")
    ax.set_xlabel("seconds (median)")
    ax.set_ylabel("objective / scikit-learn's")
    ax.set_title(f"{name}: {result['n']:,} x {result['d']}, k = {result['k']}, {result['metric']}")
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_report(report: Dict[str, Any], path: Path) -> None:
    lines = ["# Embeddings: smartigan against faiss and scikit-learn", "",
             f"Host: {report['host']}. `python benches/embeddings.py {report['args']}`; smartigan "
             f"{report['version']}. Times are medians of the reps (each row says how many), objectives "
             "recomputed in float64 (cosine: sum of `1 - cos`), both also as ratios to scikit-learn's "
             "default and the times to faiss with every point.", ""]
    for name, res in report["workloads"].items():
        lines += [f"## {name}: {res['n']:,} x {res['d']} {res['dtype']}, k = {res['k']}, {res['metric']}", "",
                  "| contender | seconds | vs sklearn | vs faiss (every point) | objective | vs sklearn | runs |",
                  "|---|---:|---:|---:|---:|---:|---:|"]
        for label, row in res["rows"].items():
            vs_faiss = f"{row['time_vs_faiss_all']:.2f}x" if "time_vs_faiss_all" in row else "-"
            lines.append(f"| {label} | {row['time']:.3f} | {row['time_vs_sklearn']:.2f}x | {vs_faiss} | "
                         f"{row['objective']:.6g} | {row['objective_vs_sklearn']:.4f} | {row['runs']} |")
        lines += ["", f"![{name}]({path.stem}-{name}.png)", ""]
    path.write_text("\n".join(lines))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    names = [w for base in WORKLOADS for w in (base, base + "-cos")]
    ap.add_argument("--workloads", default=",".join(names), help="comma-separated, of: " + ", ".join(names))
    ap.add_argument("--scale", type=float, default=1.0, help="every n times this (at least 4 rows per cluster)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=HERE / "results" / "embeddings-2core.md")
    args = ap.parse_args()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    chosen = [w for w in args.workloads.split(",") if w]
    unknown = [w for w in chosen if w not in names]
    if unknown:
        ap.error(f"--workloads: unknown {', '.join(unknown)}")

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    report: Dict[str, Any] = dict(host=this_machine().get("cpu", "unknown"), version=smartigan.__version__,
                                  args=" ".join(sys.argv[1:]), workloads={})
    for name in chosen:
        report["workloads"][name] = run_workload(name, args.scale, args.reps, args.seed, log)
        plot(name, report["workloads"][name], args.out.with_name(f"{args.out.stem}-{name}.png"))
        args.out.with_suffix(".json").write_text(json.dumps(report, indent=1))
        write_report(report, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
