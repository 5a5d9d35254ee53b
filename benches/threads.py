#!/usr/bin/env python3
"""One fit on every core (issue 59): how the default fit, one Hartigan
restart and Lloyd scale with the thread count, against scikit-learn's
default ``KMeans(k)`` on the same threads; and what deciding sweeps in
rounds does to the objective, against a build that sweeps one point at a
time.

    python benches/threads.py                                  # 1 and 2 threads, W2 and a quarter of W5
    python benches/threads.py --threads 1,2,4,8,16 --workloads W2,W5,W5q,W4
    python benches/threads.py --only quality --sequential-site DIR --workloads W2,W3,W4,W5q

Scaling: every fit runs in this process; for each repetition the thread
counts are visited in alternating order, each fit once per count, so that
the host's load drifts onto every cell alike. smartigan gets
``n_threads=t``; scikit-learn runs under ``threadpoolctl.threadpool_limits(t)``.
Times are medians; the speed-up of a fit is its median at the fewest
threads over its median at the most. Labels are compared across thread
counts (smartigan's must be identical).

Quality: ``DIR`` holds an installed smartigan that sweeps one point at a
time everywhere (built from a commit before rounds; ``pip install --target
DIR --no-deps WHEEL``); the default fit of each seed runs in a fresh
process of each build, and the objectives are compared seed by seed.

Writes ``--out`` (Markdown) and its ``.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from statistics import mean, median
from typing import Any, Callable, Dict, List, Tuple

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from peers import WORKLOADS, make_data, objective, this_machine  # noqa: E402

import smartigan  # noqa: E402

#: Workloads beyond peers.WORKLOADS: a quarter of W5 (the size issue 59
#: quotes for one default fit).
EXTRA = {"W5q": ("W5", dict(n=25_000, d=384, k=256))}

FITS: Dict[str, Dict[str, Any]] = {
    "smartigan default": {},
    "hartigan, one restart": dict(method="hartigan", n_init=1, refine=False),
    "lloyd, one restart": dict(method="lloyd", n_init=1, refine=False),
}
SKLEARN = "scikit-learn default"


def workload(name: str) -> Tuple[np.ndarray, int]:
    recipe, spec = EXTRA[name] if name in EXTRA else (name, WORKLOADS[name])
    return make_data(recipe, dict(spec)), spec["k"]


def timed(fit: Callable[[], Tuple[np.ndarray, np.ndarray]], x: np.ndarray) -> Dict[str, Any]:
    start = time.perf_counter()
    labels, centres = fit()
    took = time.perf_counter() - start
    return dict(time=took, objective=objective(x, labels, centres), labels=labels)


def scaling(names: List[str], threads: List[int], reps: int, seed: int, log: Callable[[str], None]) -> Dict[str, Any]:
    from sklearn.cluster import KMeans
    from threadpoolctl import threadpool_limits

    rows: Dict[str, Any] = {}
    for name in names:
        x, k = workload(name)
        KMeans(min(k, 20), random_state=0).fit(x[:2000])  # starts scikit-learn's thread pools
        runs: Dict[str, Dict[int, List[Dict[str, Any]]]] = {f: {t: [] for t in threads} for f in [*FITS, SKLEARN]}
        for rep in range(reps):
            for t in (threads if rep % 2 == 0 else threads[::-1]):
                for label, kwargs in FITS.items():
                    def ours(kwargs: Dict[str, Any] = kwargs, t: int = t) -> Tuple[np.ndarray, np.ndarray]:
                        r = smartigan.cluster(x, k, seed=seed + rep, n_threads=t, **kwargs)
                        return r.labels, r.centroids
                    runs[label][t].append(timed(ours, x))

                def sklearn(t: int = t) -> Tuple[np.ndarray, np.ndarray]:
                    with threadpool_limits(limits=t):
                        m = KMeans(k, random_state=seed + rep).fit(x)
                    return m.labels_, m.cluster_centers_
                runs[SKLEARN][t].append(timed(sklearn, x))
            log(f"{name}: rep {rep + 1}/{reps} done")
        row: Dict[str, Any] = dict(n=x.shape[0], d=x.shape[1], k=k, dtype=str(x.dtype), fits={})
        for label, by_t in runs.items():
            same = all(np.array_equal(by_t[threads[0]][r]["labels"], by_t[t][r]["labels"])
                       for r in range(reps) for t in threads[1:])
            row["fits"][label] = dict(
                times={t: [r["time"] for r in by_t[t]] for t in threads},
                median={t: median(r["time"] for r in by_t[t]) for t in threads},
                objective={t: mean(r["objective"] for r in by_t[t]) for t in threads},
                same_labels_across_threads=same)
        rows[name] = row
        fits = row["fits"]
        log(f"{name}: " + "; ".join(
            f"{label} " + " ".join(f"{t}t {fits[label]['median'][t]:.3f}s" for t in threads) for label in fits))
    return rows


QUALITY_CHILD = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from peers import make_data, objective
import smartigan
recipe, spec, seed = sys.argv[2], json.loads(sys.argv[3]), int(sys.argv[4])
x = make_data(recipe, spec)
r = smartigan.cluster(x, spec["k"], seed=seed)
print(json.dumps(dict(objective=objective(x, r.labels, r.centroids), version=smartigan.__file__)))
"""


def quality(names: List[str], seeds: int, site: str, rounds_site: str,
            log: Callable[[str], None]) -> Dict[str, Any]:
    builds = {"sequential": site, "rounds": rounds_site}
    rows: Dict[str, Any] = {}
    for name in names:
        recipe, spec = EXTRA[name] if name in EXTRA else (name, WORKLOADS[name])
        objectives: Dict[str, List[float]] = {b: [] for b in builds}
        for seed in range(seeds):
            for build in (builds if seed % 2 == 0 else list(builds)[::-1]):
                env = dict(os.environ, PYTHONPATH=builds[build])
                out = subprocess.run([sys.executable, "-c", QUALITY_CHILD, str(HERE), recipe, json.dumps(spec),
                                      str(seed)], env=env, capture_output=True, text=True, check=True)
                objectives[build].append(json.loads(out.stdout.strip().splitlines()[-1])["objective"])
        seq, rnd = objectives["sequential"], objectives["rounds"]
        rows[name] = dict(spec=spec, objectives=objectives,
                          mean_change=(mean(rnd) - mean(seq)) / mean(seq),
                          worst_change=max((r - s) / s for r, s in zip(rnd, seq)),
                          best_known=min(seq + rnd))
        log(f"{name}: sequential mean {mean(seq):.7g}, rounds mean {mean(rnd):.7g} "
            f"({100 * rows[name]['mean_change']:+.4f} %)")
    return rows


def report(args: argparse.Namespace, scale: Dict[str, Any], qual: Dict[str, Any], took: float) -> str:
    host = this_machine()
    lines = [f"# One fit on every core (issue 59)", "",
             f"*Generated by `python benches/threads.py {' '.join(sys.argv[1:])}` on "
             f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} ({host['cpu']}, {host['cores']} logical CPUs; "
             f"Python {host['python']}, smartigan {smartigan.__version__}, 1-minute load before "
             f"{args.load_before:.2f}) in {took / 60:.1f} minutes. Edit `benches/threads.py`, not this file.*", ""]
    threads = args.threads
    if scale:
        lines += ["## Scaling", "",
                  f"Medians over {args.reps} repetitions, seeds {args.seed}..{args.seed + args.reps - 1}; "
                  "objectives are means over the same seeds, recomputed in float64.", "",
                  "| workload | fit | " + " | ".join(f"{t} thread{'s' if t > 1 else ''} (s)" for t in threads)
                  + f" | speed-up {threads[0]}→{threads[-1]} | × scikit-learn at {threads[-1]} | objective "
                  "| same labels for every thread count |",
                  "|---|---|" + "---:|" * len(threads) + "---:|---:|---:|---|"]
        for name, row in scale.items():
            fits = row["fits"]
            sk = fits[SKLEARN]["median"][threads[-1]]
            for label, f in fits.items():
                med = f["median"]
                lines.append(
                    f"| {name} ({row['n']:,} × {row['d']}, k = {row['k']}, {row['dtype']}) | {label} | "
                    + " | ".join(f"{med[t]:.3f}" for t in threads)
                    + f" | {med[threads[0]] / med[threads[-1]]:.2f}x | {med[threads[-1]] / sk:.2f} | "
                    f"{f['objective'][threads[-1]]:,.6g} | {'yes' if f['same_labels_across_threads'] else 'no'} |")
        lines.append("")
    if qual:
        lines += ["## Rounds against one point at a time", "",
                  f"The default fit, seeds 0..{args.seeds - 1}, this build against `{args.sequential_site}` "
                  "(sweeps one point at a time). Objectives recomputed in float64.", "",
                  "| workload | sequential: mean objective | rounds: mean objective | change of the mean "
                  "| worst seed | rounds above the best known by (worst) |",
                  "|---|---:|---:|---:|---:|---:|"]
        for name, row in qual.items():
            seq, rnd = row["objectives"]["sequential"], row["objectives"]["rounds"]
            gap = max(r / row["best_known"] - 1 for r in rnd)
            lines.append(f"| {name} | {mean(seq):,.7g} | {mean(rnd):,.7g} | {100 * row['mean_change']:+.4f} % | "
                         f"{100 * row['worst_change']:+.4f} % | {100 * gap:.4f} % |")
        lines.append("")
    return "\n".join(lines)


def plot(scale: Dict[str, Any], threads: List[int], path: Path) -> None:
    """Speed-up over one thread against the thread count, one panel per
    workload, one line per fit (matplotlib, if installed)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, axes = plt.subplots(1, len(scale), figsize=(4.5 * len(scale), 4), squeeze=False)
    for ax, (name, row) in zip(axes[0], scale.items()):
        for label, f in row["fits"].items():
            med = f["median"]
            ys = [med[threads[0]] / med[t] for t in threads]
            ax.plot(threads, ys, marker="o", label=label)
        ax.plot(threads, [t / threads[0] for t in threads], color="grey", linestyle=":", label="linear")
        ax.set_xscale("log", base=2)
        ax.set_xticks(threads, [str(t) for t in threads])
        ax.set_xlabel("threads")
        ax.set_ylabel(f"speed-up over {threads[0]} thread{'s' if threads[0] > 1 else ''}")
        ax.set_title(f"{name} ({row['n']:,} x {row['d']}, k = {row['k']})")
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workloads", default="W2,W5q")
    ap.add_argument("--threads", default="1,2", type=lambda s: [int(t) for t in s.split(",")])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", choices=["scaling", "quality"], default=None)
    ap.add_argument("--sequential-site", default=None, help="an installed smartigan that sweeps one point at a time")
    ap.add_argument("--seeds", type=int, default=8, help="seeds of the quality comparison")
    ap.add_argument("--rounds-site", default=str(HERE.parent / "python"),
                    help="the build that sweeps in rounds (default: this checkout's python/)")
    ap.add_argument("--out", default=str(HERE / "results" / "threads-2core.md"))
    args = ap.parse_args()
    args.load_before = os.getloadavg()[0]
    names = args.workloads.split(",")
    started = time.perf_counter()
    log = lambda s: print(s, flush=True)  # noqa: E731
    scale = scaling(names, args.threads, args.reps, args.seed, log) if args.only != "quality" else {}
    qual = {}
    if args.only != "scaling" and args.sequential_site:
        qual = quality(names, args.seeds, args.sequential_site, args.rounds_site, log)
    out = Path(args.out)
    out.write_text(report(args, scale, qual, time.perf_counter() - started) + "\n")
    if scale:
        plot(scale, args.threads, out.with_suffix(".png"))
    for row in scale.values():
        for f in row["fits"].values():
            f["times"] = {str(t): v for t, v in f["times"].items()}
            f["median"] = {str(t): v for t, v in f["median"].items()}
            f["objective"] = {str(t): v for t, v in f["objective"].items()}
    out.with_suffix(".json").write_text(json.dumps(dict(scaling=scale, quality=qual, host=this_machine()), indent=1))
    print(out.read_text())


if __name__ == "__main__":
    main()
