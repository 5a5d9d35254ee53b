"""Clusters of bounded size (issue 61): smartigan's `size_min`/`size_max`
against k-means-constrained (its defaults: k-means++ starts, 10 of them, a
min-cost-flow assignment per Lloyd iteration), and the bounded fit's time
against the unconstrained default.

Cells (balanced bounds, `floor(n/k)` to `ceil(n/k)` rows a cluster):

* blobs 20,000 x 16, k = 50 (peers.py's blobs: centres uniform in [0, 5]^16,
  unit noise, so they overlap), three seeds;
* pendigits (10,992 x 16, k = 10) and letter (20,000 x 16, k = 26) from
  `mssc_data/`, real data whose classes are of unequal size, three seeds;
* W2's recipe, 100,000 x 32, k = 100: one seed; k-means-constrained stopped
  after `--limit` seconds where it has not finished;
* W5's recipe (unit embeddings with Zipf-sized clusters, float32), a quarter
  (25,000 x 384, k = 256) by default: the balanced fit against the
  unconstrained default (bounds that bind hard), no peer.

Every objective is recomputed here in float64 from the labels (cluster
means); the bounds are checked on every result. Bounds that do not bind
(`size_min=1, size_max=n`) are timed against the unconstrained fit on the
first cell, and their labels compared.

    python benches/sizes.py                 # writes results/sizes-2core.md and .json
    python benches/sizes.py --quick         # small sizes (benches/out/)
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from peers import make_blobs, make_embeddings  # noqa: E402

import smartigan  # noqa: E402


def load_mssc(name: str) -> np.ndarray:
    return np.loadtxt(HERE / "mssc_data" / f"{name}.csv.gz", delimiter=",", skiprows=1, ndmin=2)


def sse(x: np.ndarray, labels: np.ndarray, k: int) -> float:
    x = x.astype(np.float64)
    total = 0.0
    for j in range(k):
        rows = x[labels == j]
        if len(rows):
            total += float(((rows - rows.mean(axis=0)) ** 2).sum())
    return total


def balanced(n: int, k: int) -> tuple[int, int]:
    return n // k, -(-n // k)


def check_sizes(labels: np.ndarray, k: int, lo: int, hi: int) -> bool:
    sizes = np.bincount(labels, minlength=k)
    return bool(sizes.min() >= lo and sizes.max() <= hi)


def ours(x: np.ndarray, k: int, seed: int, **bounds: Any) -> Dict[str, Any]:
    t = time.perf_counter()
    r = smartigan.cluster(x, k, seed=seed, **bounds)
    return dict(time=time.perf_counter() - t, labels=r.labels, restarts=len(r.restart_objectives),
                converged=bool(r.converged))


def _kmc_child(x: np.ndarray, k: int, seed: int, lo: int, hi: int, out: Any) -> None:
    from k_means_constrained import KMeansConstrained
    t = time.perf_counter()
    km = KMeansConstrained(n_clusters=k, size_min=lo, size_max=hi, random_state=seed).fit(x)
    out.put(dict(time=time.perf_counter() - t, labels=np.asarray(km.labels_, dtype=np.int64)))


def kmc(x: np.ndarray, k: int, seed: int, limit: float) -> Optional[Dict[str, Any]]:
    """k-means-constrained's defaults in a forked process, stopped after
    `limit` seconds (None then)."""
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    lo, hi = balanced(len(x), k)
    p = ctx.Process(target=_kmc_child, args=(x, k, seed, lo, hi, q))
    p.start()
    try:
        res = q.get(timeout=limit)
    except Exception:
        res = None
    if p.is_alive():
        p.terminate()
    p.join()
    return res


def run_cell(name: str, x: np.ndarray, k: int, seeds: List[int], limit: float, peer: bool,
             log: Any) -> Dict[str, Any]:
    n = len(x)
    lo, hi = balanced(n, k)
    cell: Dict[str, Any] = dict(name=name, n=n, d=x.shape[1], k=k, dtype=str(x.dtype), bounds=[lo, hi], runs=[])
    for s in seeds:
        row: Dict[str, Any] = dict(seed=s)
        b = ours(x, k, s, size_min="balanced", size_max="balanced")
        row["ours"] = dict(time=b["time"], sse=sse(x, b["labels"], k), met=check_sizes(b["labels"], k, lo, hi),
                           restarts=b["restarts"], converged=b["converged"])
        f = ours(x, k, s)
        row["free"] = dict(time=f["time"], sse=sse(x, f["labels"], k),
                           smallest=int(np.bincount(f["labels"], minlength=k).min()),
                           largest=int(np.bincount(f["labels"], minlength=k).max()))
        if peer:
            r = kmc(x, k, s, limit)
            row["kmc"] = None if r is None else dict(time=r["time"], sse=sse(x, r["labels"], k),
                                                     met=check_sizes(r["labels"], k, lo, hi))
        log(f"{name} seed {s}: " + json.dumps({key: {kk: (round(vv, 4) if isinstance(vv, float) else vv)
                                                     for kk, vv in v.items()}
                                               if isinstance(v, dict) else v
                                               for key, v in row.items() if key != 'seed'}))
        cell["runs"].append(row)
    return cell


def cosine_cell(name: str, x: np.ndarray, k: int, seed: int, log: Any) -> Dict[str, Any]:
    """metric="cosine": the balanced fit against the unconstrained one (no peer takes bounds with cosine)."""
    n = len(x)
    lo, hi = balanced(n, k)
    t = time.perf_counter()
    b = smartigan.cluster(x, k, seed=seed, metric="cosine", size_min="balanced", size_max="balanced")
    tb = time.perf_counter() - t
    t = time.perf_counter()
    f = smartigan.cluster(x, k, seed=seed, metric="cosine")
    tf = time.perf_counter() - t
    cell = dict(name=name, n=n, d=x.shape[1], k=k, seed=seed, time=tb, loss=b.objective, met=check_sizes(b.labels, k, lo, hi),
                free_time=tf, free_loss=f.objective, smallest=int(f.cluster_sizes.min()), largest=int(f.cluster_sizes.max()))
    log(f"{name}: {cell}")
    return cell


def loose_check(x: np.ndarray, k: int, seed: int, turns: int) -> Dict[str, Any]:
    """Bounds that do not bind against none: same labels, and the times."""
    free_t, loose_t, same = [], [], True
    for _ in range(turns):
        t = time.perf_counter()
        a = smartigan.cluster(x, k, seed=seed)
        free_t.append(time.perf_counter() - t)
        t = time.perf_counter()
        b = smartigan.cluster(x, k, seed=seed, size_min=1, size_max=len(x))
        loose_t.append(time.perf_counter() - t)
        same &= bool(np.array_equal(a.labels, b.labels) and a.objective == b.objective)
    return dict(free=float(np.median(free_t)), loose=float(np.median(loose_t)), identical=same, turns=turns)


def median(v: List[float]) -> float:
    return float(np.median(v)) if v else float("nan")


def render(report: Dict[str, Any]) -> str:
    out = ["# Bounded sizes: smartigan against k-means-constrained (issue 61)", "",
           f"Command: `{report['command']}`. Host: {report['host']}; {report['versions']}. "
           f"Code measured: {report['commit']}. Ran {report['when']}, 1-minute load average "
           f"{report['load'][0]:.1f} before and {report['load'][1]:.1f} after. Balanced bounds "
           "(`floor(n/k)` to `ceil(n/k)` rows a cluster). Objective: the sum of squared distances to the "
           "cluster means, recomputed here from each tool's labels. Times: medians over the seeds of one call "
           "each; k-means-constrained with its defaults (10 k-means++ starts, up to 300 iterations, each a "
           "min-cost-flow assignment), stopped after the time limit where it had not finished.", "",
           "| cell | n × d, k | smartigan balanced: time (s) | restarts | objective | bounds met | k-means-constrained: time (s) "
           "| objective vs smartigan's | bounds met | time ratio (k-m-c / smartigan) | unconstrained default: "
           "time (s), objective vs balanced, cluster sizes |",
           "|---|---|---:|---:|---:|---|---:|---:|---|---:|---|"]
    verdicts = []
    for c in report["cells"]:
        runs = c["runs"]
        t_ours = median([r["ours"]["time"] for r in runs])
        s_ours = median([r["ours"]["sse"] for r in runs])
        met = all(r["ours"]["met"] for r in runs)
        peers = [r.get("kmc") for r in runs if "kmc" in r]
        if peers and all(p is not None for p in peers):
            t_k = median([p["time"] for p in peers])
            rel = [100 * (p["sse"] / r["ours"]["sse"] - 1) for p, r in zip(peers, runs)]
            kcol = (f"{t_k:.2f} | {' / '.join(f'{v:+.3f} %' for v in rel)} | "
                    f"{'yes' if all(p['met'] for p in peers) else 'NO'} | {t_k / t_ours:.1f}")
            lower = all(r["ours"]["sse"] < p["sse"] * (1 - 1e-12) for p, r in zip(peers, runs))
            tied = all(abs(r["ours"]["sse"] / p["sse"] - 1) <= 1e-9 for p, r in zip(peers, runs))
            verdicts.append(f"{c['name']}: objective {'lower on every seed' if lower else 'tied on every seed' if tied else 'NOT lower on every seed'} "
                            f"({', '.join(f'{v:+.3f} %' for v in rel)} for k-means-constrained); "
                            f"k-means-constrained {t_k / t_ours:.1f}x smartigan's time")
        elif peers:
            kcol = f"> {report['limit']:.0f} (stopped) | — | — | > {report['limit'] / t_ours:.0f}"
            verdicts.append(f"{c['name']}: k-means-constrained did not finish in {report['limit']:.0f} s; "
                            f"smartigan {t_ours:.2f} s")
        else:
            kcol = "— | — | — | —"
        t_free = median([r["free"]["time"] for r in runs])
        s_free = median([r["free"]["sse"] for r in runs])
        sizes = f"{min(r['free']['smallest'] for r in runs)}–{max(r['free']['largest'] for r in runs)}"
        restarts = "/".join(str(r["ours"]["restarts"]) for r in runs)
        out.append(f"| {c['name']} | {c['n']:,} × {c['d']}, {c['k']} | {t_ours:.3f} | {restarts} | {s_ours:.7g} | "
                   f"{'yes' if met else 'NO'} | {kcol} | {t_free:.3f}, {100 * (s_free / s_ours - 1):+.3f} %, "
                   f"{sizes} |")
        if c["name"].startswith("W5"):
            verdicts.append(f"{c['name']}: balanced {t_ours:.2f} s against the unconstrained default's "
                            f"{t_free:.2f} s ({t_ours / t_free:.2f}x; target at most 3x)")
    out += [""]
    for c in report.get("cosine", []):
        out += ["## `metric=\"cosine\"` with balanced bounds", "",
                f"{c['name']} ({c['n']:,} × {c['d']}, k = {c['k']}, seed {c['seed']}): balanced {c['time']:.3f} s, "
                f"loss {c['loss']:.6g}, bounds met: {'yes' if c['met'] else 'NO'}; unconstrained {c['free_time']:.3f} s "
                f"({c['time'] / c['free_time']:.2f}x), loss {100 * (c['free_loss'] / c['loss'] - 1):+.3f} % of the "
                f"balanced one, cluster sizes {c['smallest']}–{c['largest']}.", ""]
    if "loose" in report:
        lo = report["loose"]
        out += ["## Bounds that do not bind", "",
                f"`size_min=1, size_max=n` against no bounds on {report['loose_cell']}, {lo['turns']} turns: "
                f"median {lo['loose']:.4f} s against {lo['free']:.4f} s ({lo['loose'] / lo['free']:.2f}x); "
                f"labels and objective identical: {'yes' if lo['identical'] else 'NO'}.", ""]
    out += ["## Targets", ""] + [f"- {v}" for v in verdicts] + [""]
    return "\n".join(out)


def host() -> str:
    try:
        model = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name"))
    except (OSError, StopIteration):
        model = platform.processor()
    return f"{model}, {os.cpu_count()} cores"


def commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True,
                              text=True).stdout.strip()
    except OSError:
        return "not recorded"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--limit", type=float, default=300.0, help="seconds k-means-constrained gets per call")
    ap.add_argument("--w5-scale", type=float, default=0.25, help="share of W5's 100,000 rows (1 = all)")
    ap.add_argument("--only-w5", action="store_true", help="only the W5 cells (no peer runs)")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    import k_means_constrained
    import sklearn
    seeds = [0] if args.quick else [0, 1, 2]
    scale = 0.1 if args.quick else 1.0
    out = args.out or (HERE / "out" / "sizes-quick.md" if args.quick else HERE / "results" / "sizes-2core.md")
    out.parent.mkdir(parents=True, exist_ok=True)

    def log(msg: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')} load {os.getloadavg()[0]:.1f}] {msg}", flush=True)

    load0 = os.getloadavg()[0]
    cells = []
    loose: Optional[Dict[str, Any]] = None
    if not args.only_w5:
        blobs = make_blobs(int(20_000 * scale), 16, 50, 11)
        cells.append(run_cell("blobs", blobs, 50, seeds, args.limit, True, log))
        loose = loose_check(blobs, 50, 0, 3)
        log(f"loose bounds: {loose}")
        for name, k in (("pendigits", 10), ("letter", 26)):
            x = load_mssc(name)
            if args.quick:
                x = x[: len(x) // 10]
            cells.append(run_cell(name, x, k, seeds, args.limit, True, log))
        w2 = make_blobs(int(100_000 * scale), 32, 100, 12)
        cells.append(run_cell("W2 recipe", w2, 100, seeds[:1], args.limit, True, log))
    n5 = int(100_000 * (0.02 if args.quick else args.w5_scale))
    w5 = make_embeddings(n5, 384, 256)
    cells.append(run_cell(f"W5 recipe ({n5:,} rows)", w5, 256, seeds[:1], args.limit, False, log))
    cosine = [cosine_cell(f"W5 recipe ({n5:,} rows)", w5, 256, 0, log)]
    report = dict(command="python benches/sizes.py " + " ".join(sys.argv[1:]), host=host(),
                  versions=f"Python {platform.python_version()}, smartigan {smartigan.__version__}, "
                           f"k-means-constrained {k_means_constrained.__version__}, scikit-learn {sklearn.__version__}",
                  commit=commit(), when=time.strftime("%Y-%m-%d %H:%M"), load=[load0, os.getloadavg()[0]],
                  limit=args.limit, cells=cells, cosine=cosine, loose_cell="the blobs cell (seed 0)",
                  **({"loose": loose} if loose else {}))
    out.with_suffix(".json").write_text(json.dumps(report, indent=1, default=lambda v: v.tolist()))
    out.write_text(render(report))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
