"""The ``smartigan`` command line: ``demo`` (the paper's Table 1 on the
embedded Iris data) and ``fit`` (cluster a CSV or .npy file)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Optional, Sequence

import numpy as np
import numpy.typing as npt

from . import __version__, _api
from .datasets import load_iris

# Table 1 of Clément & Steinerberger (Iris, mean over 500 random-partition runs).
PAPER_IRIS = {
    3: (96.88, 78.85, 79.23),
    4: (80.82, 57.97, 59.16),
    5: (77.02, 51.37, 49.28),
    10: (55.61, 29.86, 28.18),
    20: (21.68, 17.38, 16.76),
}

# The protocol that reproduces the paper's Hartigan and Smartigan rows
# (benches/PAPER.md): random partitions, at most 10 sweeps, no polish, and a
# factor of 1.40, 1.35, ..., 0.95 in sweeps 0..9.
PAPER_PROTOCOL = dict(init="random-partition", n_iter=10, polish=False)
PAPER_SCHEDULE = (1.4, 0.9)


def _demo(args: argparse.Namespace) -> int:
    X, _ = load_iris()
    runs = args.runs
    print(f"smartigan {__version__} demo: Fisher's Iris data ({X.shape[0]} points in R^{X.shape[1]})")
    print(f"Mean k-means objective over {runs} runs per cell under the paper's protocol "
          "(random partition, at most 10 sweeps); paper's Table 1 values in brackets.")
    print(f"The last column is one call of smartigan.cluster(X, k) with default settings "
          f"(method={_api.DEFAULT_METHOD!r}, init={_api.DEFAULT_INIT!r}, n_init={_api.DEFAULT_N_INIT}).\n")
    header = f"{'k':>3}  {'Lloyd':>17}  {'Hartigan':>17}  {'Smartigan':>17}  {'default cluster()':>17}  {'time':>7}"
    print(header)
    print("-" * len(header))
    total = time.perf_counter()
    for k in args.k:
        t0 = time.perf_counter()
        cells = []
        for method in ("lloyd", "hartigan", "smartigan"):
            r = _api.cluster(X, k, method, seed=args.seed, n_init=runs, schedule=PAPER_SCHEDULE,
                             **PAPER_PROTOCOL)  # type: ignore[arg-type]
            cells.append(float(r.restart_objectives.mean()))
        best = _api.cluster(X, k, seed=args.seed).objective
        elapsed = time.perf_counter() - t0
        paper = PAPER_IRIS.get(k)
        text = [f"{v:8.2f} [{p:6.2f}]" if paper else f"{v:8.2f} [  -   ]"
                for v, p in zip(cells, paper or (0.0, 0.0, 0.0))]
        print(f"{k:>3}  {text[0]:>17}  {text[1]:>17}  {text[2]:>17}  {best:>17.2f}  {elapsed:>6.2f}s")
    print(f"\ntotal {time.perf_counter() - total:.2f}s. Lower is better. The paper's Lloyd row is not "
          "reproducible by standard Lloyd (see benches/PAPER.md).")
    return 0


def read_matrix(path: str) -> npt.NDArray[np.float64]:
    """Reads a ``.npy`` file, or a CSV with an optional header row."""
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"no such file: {path}")
    if p.suffix == ".npy":
        return np.load(p, allow_pickle=False)  # type: ignore[no-any-return]
    with p.open() as f:
        first = f.readline()
    delimiter = "," if "," in first else None
    try:
        [float(v) for v in first.replace(",", " ").split()]
        skip = 0
    except ValueError:
        skip = 1  # the first row is a header
    data = np.loadtxt(p, delimiter=delimiter, skiprows=skip, ndmin=2)
    return data


def _fit(args: argparse.Namespace) -> int:
    X = read_matrix(args.data)
    t0 = time.perf_counter()
    r = _api.cluster(X, args.k, args.method, args.n_iter, args.seed, init=args.init, n_init=args.n_init,
                     n_threads=args.threads)
    elapsed = time.perf_counter() - t0
    sizes = np.bincount(r.labels, minlength=args.k)
    print(f"{X.shape[0]} points, {X.shape[1]} features, k={args.k}, method={args.method}")
    print(f"objective   {r.objective:.10g}")
    print(f"sweeps      {r.n_sweeps} (converged: {r.converged})")
    print(f"restarts    {r.restart_objectives.shape[0]} (best: #{r.best_restart}, seed {r.seed})")
    print(f"time        {elapsed:.3f}s")
    print(f"sizes       {' '.join(str(s) for s in sizes)}")
    if args.out:
        np.savetxt(f"{args.out}.labels.csv", r.labels, fmt="%d")
        np.savetxt(f"{args.out}.centroids.csv", r.centroids, delimiter=",", fmt="%.17g")
        print(f"wrote {args.out}.labels.csv and {args.out}.centroids.csv")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="smartigan", description="k-means that actually minimises the objective")
    parser.add_argument("--version", action="version", version=f"smartigan {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    demo = sub.add_parser("demo", help="the paper's Table 1 on the embedded Iris data")
    demo.add_argument("--runs", type=int, default=500, help="runs per cell (default 500, as in the paper)")
    demo.add_argument("-k", type=int, nargs="+", default=[3, 5, 10, 20], help="cluster counts (default 3 5 10 20)")
    demo.add_argument("--seed", type=int, default=0)
    demo.set_defaults(func=_demo)

    fit = sub.add_parser("fit", help="cluster a CSV or .npy file")
    fit.add_argument("data", help="CSV (header detected) or .npy file, one point per row")
    fit.add_argument("-k", type=int, required=True, help="number of clusters")
    fit.add_argument("--method", default=_api.DEFAULT_METHOD, choices=["lloyd", "hartigan", "smartigan"])
    fit.add_argument("--init", default=_api.DEFAULT_INIT, choices=["k-means++", "random-partition", "forgy"])
    fit.add_argument("--n-iter", type=int, default=_api.DEFAULT_N_ITER)
    fit.add_argument("--n-init", type=int, default=_api.DEFAULT_N_INIT)
    fit.add_argument("--seed", type=int, default=None)
    fit.add_argument("--threads", type=int, default=None)
    fit.add_argument("--out", metavar="PREFIX", help="write PREFIX.labels.csv and PREFIX.centroids.csv")
    fit.set_defaults(func=_fit)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except (ValueError, TypeError, OSError) as exc:
        print(f"smartigan: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("smartigan: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
