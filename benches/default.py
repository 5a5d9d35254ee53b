#!/usr/bin/env python3
"""The default ``cluster(X, k)`` against scikit-learn's default ``KMeans(k)``
(one k-means++ run since 1.4), on the workloads of issue 28: W1-W4 (blobs),
W5 (embeddings: unit-normalised float32, overlapping, Zipf-sized clusters)
and structureless Gaussian noise; plus the time-quality picture on W2 and W5.

    python benches/default.py                       # everything (long; not for CI)
    python benches/default.py --scale 0.2 --reps 1  # a smoke run on a fifth of every n
    python benches/default.py --only tradeoff --tradeoff-workloads W5

Every fit runs in this process, one after the other, on the same array; the
two defaults alternate rep by rep and the medians are compared, so both see
the same machine load. Objectives are recomputed here in float64 from the
labels and centres each fit returns. scikit-learn and smartigan both use all
cores (OpenMP / rayon). faiss, if installed, is timed with 25 iterations on
all points (no subsampling), one start and three.

Writes ``benches/results/default-2core.md`` (tables, targets hit or missed),
its ``.json`` and, with the time-quality part, its ``.png`` (every file named
after ``--out``; benches/README.md lists the committed reports and their commands).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path
from statistics import median
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from peers import WORKLOADS, make_data, objective, this_machine  # noqa: E402

import smartigan  # noqa: E402
from smartigan import _core, _params  # noqa: E402

Fit = Callable[[np.ndarray, int, int], Tuple[np.ndarray, np.ndarray, Dict[str, Any]]]


def ours(**opts: Any) -> Fit:
    def fit(x: np.ndarray, k: int, seed: int) -> Tuple[np.ndarray, np.ndarray, Dict[str, Any]]:
        r = smartigan.cluster(x, k, seed=seed, **opts)
        return r.labels, r.centroids, dict(steps=int(r.n_sweeps), converged=bool(r.converged),
                                           refinements=int(r.refinements))
    return fit


def sklearn(n_init: int) -> Fit:
    def fit(x: np.ndarray, k: int, seed: int) -> Tuple[np.ndarray, np.ndarray, Dict[str, Any]]:
        from sklearn.cluster import KMeans
        km = KMeans(k, n_init=n_init, random_state=seed).fit(x)
        return km.labels_, km.cluster_centers_, dict(steps=int(km.n_iter_))
    return fit


def faiss_fit(nredo: int) -> Fit:
    def fit(x: np.ndarray, k: int, seed: int) -> Tuple[np.ndarray, np.ndarray, Dict[str, Any]]:
        import faiss
        x32 = np.ascontiguousarray(x, dtype=np.float32)
        km = faiss.Kmeans(x.shape[1], k, niter=25, nredo=nredo, seed=seed % 2**31,
                          max_points_per_centroid=x.shape[0])
        km.train(x32)
        _, lab = km.index.search(x32, 1)
        return lab.ravel().astype(np.int64), km.centroids, dict(steps=25 * nredo)
    return fit


def have_faiss() -> bool:
    try:
        import faiss  # noqa: F401
        return True
    except ImportError:
        return False


def timed(fit: Fit, x: np.ndarray, k: int, seed: int) -> Dict[str, Any]:
    t0 = time.perf_counter()
    labels, centres, extra = fit(x, k, seed)
    spent = time.perf_counter() - t0
    return dict(time=spent, objective=objective(x, labels, np.asarray(centres)), **extra)


def summary(runs: List[Dict[str, Any]]) -> Dict[str, Any]:
    out = dict(runs[0])
    out["time"] = median(r["time"] for r in runs)
    out["objective"] = median(r["objective"] for r in runs)
    out["times"] = [r["time"] for r in runs]
    return out


#: Most pairs of one row, however short its fits.
MAX_PAIRS = 401


def pair_stats(sk_runs: List[Dict[str, Any]], our_runs: List[Dict[str, Any]]) -> Dict[str, Any]:
    """The pairs' own ratios (ours / scikit-learn's, the two fits of a pair
    run back to back): how many, their median and quartiles, and in how many
    ours was the faster."""
    ratios = sorted(u["time"] / s["time"] for s, u in zip(sk_runs, our_runs))
    q = np.quantile(ratios, [0.25, 0.5, 0.75])
    return dict(count=len(ratios), q1=float(q[0]), median=float(q[1]), q3=float(q[2]),
                faster=sum(r < 1 for r in ratios))


def sweep_cost(x: np.ndarray, k: int, seed: int, sweeps: int = 12) -> float:
    """Median wall time of Hartigan sweeps 3..sweeps of one restart, stepped
    one at a time (the k-means++ start and the first, busiest sweeps left
    out)."""
    params = _params.core_params(k=k, method="hartigan", seed=seed, n_init=1, refine=False, tol=0.0)
    run = _core.Run(x, params)
    times = []
    for _ in range(sweeps):
        t0 = time.perf_counter()
        going = run.step()
        times.append(time.perf_counter() - t0)
        if not going:
            break
    return median(times[2:] or times)


#: Workloads whose float32 and float64 sweeps target 3 compares, and how
#: many turns each type gets (a W5 turn costs a k-means++ start and twelve
#: half-second sweeps).
SWEEP_WORKLOADS = ("W2", "W5")
SWEEP_TURNS = {"W2": 8, "W5": 3}


def sweep_costs(base: np.ndarray, k: int, seed: int, turns: int) -> Dict[str, List[float]]:
    """`sweep_cost` of `base` as float64 and as float32, alternating which
    goes first, `turns` times each."""
    xs = {dt: np.ascontiguousarray(base.astype(dt)) for dt in ("float64", "float32")}
    out: Dict[str, List[float]] = {dt: [] for dt in xs}
    for turn in range(turns):
        for dt in (("float64", "float32") if turn % 2 == 0 else ("float32", "float64")):
            out[dt].append(sweep_cost(xs[dt], k, seed))
    return out


def workload(name: str, scale: float, seed: int) -> Tuple[Dict[str, int], np.ndarray]:
    """Workload `name` with its n scaled (at least 4 points per cluster),
    after a small scikit-learn fit that starts its thread pools."""
    spec = dict(WORKLOADS[name])
    spec["n"] = max(spec["k"] * 4, int(spec["n"] * scale))
    x = make_data(name, spec)
    sklearn(1)(x[: min(len(x), 2000)], min(spec["k"], 20), seed)
    return spec, x


def defaults_table(names: List[str], dtypes: List[str], reps: int, scale: float, seed: int,
                   log: Callable[[str], None], partial: Path, pair_only: bool = False,
                   ten_starts: bool = True, pair_seconds: float = 0.0) -> Dict[str, Any]:
    rows: Dict[str, Any] = {}
    for name in names:
        spec, base = workload(name, scale, seed)
        for dtype in dtypes:
            x = np.ascontiguousarray(base.astype(dtype))
            k = spec["k"]
            row: Dict[str, Any] = dict(n=spec["n"], d=spec["d"], k=k, dtype=dtype)
            sk_runs, our_runs = [], []
            started = time.perf_counter()
            rep = 0
            # At least `reps` pairs, and more while the pairs have taken less
            # than `pair_seconds`: a fit of tens of milliseconds is one host
            # hiccup away from either verdict, and nine pairs of it span half
            # a second of the host's load; many pairs span several seconds.
            while rep < reps or (time.perf_counter() - started < pair_seconds and rep < MAX_PAIRS):
                # Alternate which goes first, so that neither always runs on a
                # machine the other has just warmed or loaded.
                pair = [("sk", sklearn(1)), ("ours", ours())]
                for tag, fit in (pair if rep % 2 == 0 else pair[::-1]):
                    (sk_runs if tag == "sk" else our_runs).append(timed(fit, x, k, seed + rep))
                rep += 1
            row["sklearn default"] = summary(sk_runs)
            row["smartigan default"] = summary(our_runs)
            row["pairs"] = pair_stats(sk_runs, our_runs)
            if not pair_only and ten_starts:
                row["sklearn n_init=10"] = timed(sklearn(10), x, k, seed)
            if not pair_only:
                row["smartigan n_init=1, refine=False"] = timed(ours(n_init=1, refine=False), x, k, seed)
                row["hartigan n_init=1, refine=False"] = timed(
                    ours(method="hartigan", n_init=1, refine=False), x, k, seed)
            rows[f"{name} {dtype}"] = row
            partial.write_text(json.dumps(rows, indent=1))  # what a run stopped early leaves
            log(f"{name} {dtype}: " + ", ".join(
                f"{label} {v['time']:.2f}s {v['objective']:.6g}" for label, v in row.items()
                if isinstance(v, dict) and label != "pairs"))
        if name in SWEEP_WORKLOADS and {"float32", "float64"} <= set(dtypes):
            # Target 3 compares the two types' sweeps: measured in turns, so
            # that the host's load drifts onto both alike.
            sweeps = sweep_costs(base, spec["k"], seed, SWEEP_TURNS[name])
            for dtype, costs in sweeps.items():
                rows[f"{name} {dtype}"]["sweep"] = median(costs)
                rows[f"{name} {dtype}"]["sweeps"] = costs
            log(f"{name} sweeps: " + ", ".join(f"{dt} {1000 * median(c):.1f} ms" for dt, c in sweeps.items()))
    return rows


def tradeoff(names: List[str], scale: float, seed: int, log: Callable[[str], None]) -> Dict[str, Any]:
    settings: List[Tuple[str, str, Fit]] = [
        ("smartigan", "default", ours()),
        ("smartigan", "n_init=2", ours(n_init=2)),
        ("smartigan", "n_init=4", ours(n_init=4)),
        ("smartigan", "lloyd n_init=1", ours(method="lloyd", n_init=1)),
        ("smartigan", "hartigan n_init=1", ours(method="hartigan", n_init=1)),
        ("smartigan", "smartigan n_init=1, refine=False", ours(n_init=1, refine=False)),
        ("smartigan", "tol=0, n_init=1", ours(n_init=1, tol=0.0)),
        ("scikit-learn", "n_init=1", sklearn(1)),
        ("scikit-learn", "n_init=3", sklearn(3)),
        ("scikit-learn", "n_init=10", sklearn(10)),
    ]
    if have_faiss():
        settings += [("faiss", "25 iterations", faiss_fit(1)), ("faiss", "25 iterations x 3", faiss_fit(3))]
    out: Dict[str, Any] = {}
    for name in names:
        spec, x = workload(name, scale, seed)
        points = []
        for peer, label, fit in settings:
            r = timed(fit, x, spec["k"], seed)
            points.append(dict(peer=peer, setting=label, time=r["time"], objective=r["objective"]))
            log(f"tradeoff {name}: {peer} {label} {r['time']:.2f}s {r['objective']:.6g}")
        out[name] = dict(n=spec["n"], d=spec["d"], k=spec["k"], dtype=str(x.dtype), points=points)
    return out


def plot(trade: Dict[str, Any], path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    fig, axes = plt.subplots(1, len(trade), figsize=(6.5 * len(trade), 4.8), squeeze=False)
    colours = {"smartigan": "tab:blue", "scikit-learn": "tab:orange", "faiss": "tab:green"}
    for ax, (name, t) in zip(axes[0], trade.items()):
        best = min(p["objective"] for p in t["points"])
        for p in t["points"]:
            ax.scatter(p["time"], 100 * (p["objective"] / best - 1), color=colours[p["peer"]], s=28)
        ax.set_xscale("log")
        # Plain numbers on the decades only: the log axis' minor labels
        # (2e-1, 3e-1, ...) overlap at this width.
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_xlabel("wall time (s, log scale)")
        ax.set_ylabel("objective above the lowest here (%)")
        ax.set_title(f"{name}: n={t['n']}, d={t['d']}, k={t['k']}, {t['dtype']}")
        for peer, c in colours.items():
            if any(p["peer"] == peer for p in t["points"]):
                ax.scatter([], [], color=c, label=peer)
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    # Labels last, once the layout has fixed where every point lands.
    for ax, t in zip(axes[0], trade.values()):
        best = min(p["objective"] for p in t["points"])
        label_points(ax, [(p["setting"], p["time"], 100 * (p["objective"] / best - 1)) for p in t["points"]])
    fig.savefig(path, dpi=110)


def label_points(ax: Any, points: List[Tuple[str, float, float]]) -> None:
    """Writes each label beside its point, raised a line at a time while it
    would overlap a label already written (settings whose points nearly
    coincide would otherwise print over each other)."""
    renderer = ax.figure.canvas.get_renderer()
    frame = ax.get_window_extent(renderer)
    taken: List[Any] = []
    for text, x, y in points:
        # Near the right edge the label goes to the point's left, inside.
        left = ax.transData.transform((x, y))[0] > frame.x0 + 0.8 * frame.width
        def write(lift: int, line: bool) -> Any:
            return ax.annotate(text, (x, y), fontsize=7, xytext=(-4 if left else 4, 3 + 9 * lift),
                               textcoords="offset points", ha="right" if left else "left",
                               arrowprops=dict(arrowstyle="-", lw=0.4, color="0.6") if line else None)
        for lift in range(12):
            # Tested without its line: a line's extent reaches the point.
            label = write(lift, False)
            box = label.get_window_extent(renderer).padded(2)
            if not any(box.overlaps(other) for other in taken) or lift == 11:
                break
            label.remove()
        if lift:
            # A lifted label gets a thin line to its point.
            label.remove()
            write(lift, True)
        taken.append(box)


def verdicts(rows: Dict[str, Any], trade: Dict[str, Any]) -> List[str]:
    lines = []
    for key, row in rows.items():
        sk, us = row["sklearn default"], row["smartigan default"]
        ratio = us["time"] / sk["time"]
        lower = us["objective"] <= sk["objective"] * (1 + 1e-9)
        pairs = row.get("pairs")
        spread = (f"; {pairs['count']} pairs, their own ratios {pairs['q1']:.2f}–{pairs['median']:.2f}–"
                  f"{pairs['q3']:.2f}× (quartiles), ours faster in {pairs['faster']}" if pairs else "")
        lines.append(f"- {key}: default / scikit-learn default time **{ratio:.2f}×**, objective "
                     f"{100 * (us['objective'] / sk['objective'] - 1):+.3f} % "
                     f"({'hit' if ratio <= 1 and lower else 'missed'}{spread}).")
    for key, row in rows.items():
        if key.split()[0] in ("W2", "W5") and "smartigan n_init=1, refine=False" in row:
            one = row["smartigan n_init=1, refine=False"]["time"] / row["sklearn default"]["time"]
            h = row["hartigan n_init=1, refine=False"]
            lines.append(f"- {key}: one Smartigan restart (n_init=1, refine=False) **{one:.2f}×** scikit-learn's "
                         f"default ({'hit' if one <= 2 else 'missed'}, target ≤ 2×); one Hartigan restart "
                         f"{'converged' if h['converged'] else 'did not converge'} in {h['steps']} sweeps.")
    for name in ("W2", "W5"):
        s32, s64 = rows.get(f"{name} float32", {}).get("sweep"), rows.get(f"{name} float64", {}).get("sweep")
        if s32 and s64:
            turns = len(rows[f"{name} float32"].get("sweeps", [s32]))
            lines.append(f"- {name}: a float32 Hartigan sweep {1000 * s32:.1f} ms, float64 {1000 * s64:.1f} ms "
                         f"(medians of {turns} alternating turns each; ratio {s32 / s64:.2f}; "
                         f"{'hit' if s32 < 0.95 * s64 else 'missed'}).")
    for name, t in trade.items():
        peers_pts = [p for p in t["points"] if p["peer"] != "smartigan"]
        sk1 = next(p for p in t["points"] if p["peer"] == "scikit-learn" and p["setting"] == "n_init=1")
        ok = True
        for p in peers_pts:
            if p["time"] < sk1["time"]:
                continue
            best_ours = min((q["objective"] for q in t["points"]
                             if q["peer"] == "smartigan" and q["time"] <= p["time"]), default=None)
            if best_ours is None or best_ours > p["objective"]:
                ok = False
                lines.append(f"- {name}: at {p['peer']} {p['setting']}'s time ({p['time']:.2f} s) none of our "
                             f"settings is lower ({'none as fast' if best_ours is None else f'{best_ours:.6g}'} vs "
                             f"{p['objective']:.6g}).")
        if ok:
            lines.append(f"- {name}: at every peer's time from scikit-learn's single run upward, one of our "
                         "settings in the picture is as fast and lower (hit).")
    return lines


def write_report(rep: Dict[str, Any], path: Path) -> None:
    m = rep["machine"]
    lines = [
        "# " + rep.get("title", "The default against scikit-learn's default (issue 28)"),
        "",
        f"*Generated by `python benches/default.py {rep['argv']}` on {rep['date']} "
        f"({m['cpu']}, {m['cores']} logical CPUs; Python {m['python']}, smartigan {rep['versions']['smartigan']}, "
        f"scikit-learn {rep['versions']['sklearn']}, numpy {rep['versions']['numpy']}"
        f"{', faiss ' + rep['versions']['faiss'] if rep['versions'].get('faiss') else ''}) in "
        f"{rep['minutes']:.1f} minutes{rep.get('note', '')}. Every fit uses all cores; times are wall seconds in one process"
        f"{', the two defaults alternating in pairs, medians of the pairs (short fits get more pairs, see the targets)' if rep['rows'] else ''}; "
        "objectives are recomputed in float64. "
        "Edit `benches/default.py`, not this file.*",
        "",
    ]
    if rep["rows"]:
        lines += ["## Default against default", "",
                  "| workload | n × d, k | fit | time (s) | × sklearn default | objective | vs sklearn default | steps |",
                  "|---|---|---|---:|---:|---:|---:|---:|"]
        for key, row in rep["rows"].items():
            sk = row["sklearn default"]
            for label, v in row.items():
                if not isinstance(v, dict) or label == "pairs":
                    continue
                conv = "" if "converged" not in v else ("" if v["converged"] else " (cap)")
                lines.append(f"| {key} | {row['n']:,} × {row['d']}, {row['k']} | {label} | {v['time']:.3f} | "
                             f"{v['time'] / sk['time']:.2f} | {v['objective']:,.6g} | "
                             f"{100 * (v['objective'] / sk['objective'] - 1):+.3f} % | {v['steps']}{conv} |")
        lines.append("")
    if rep["trade"]:
        lines += ["## Time and quality", "", f"![objective against time]({rep.get('picture', path.with_suffix('.png').name)})", "",
                  "| workload | peer | setting | time (s) | objective above the lowest here |",
                  "|---|---|---|---:|---:|"]
        for name, t in rep["trade"].items():
            best = min(p["objective"] for p in t["points"])
            for p in sorted(t["points"], key=lambda p: p["time"]):
                lines.append(f"| {name} | {p['peer']} | {p['setting']} | {p['time']:.3f} | "
                             f"{100 * (p['objective'] / best - 1):.3f} % |")
        lines.append("")
    lines += ["## Targets", ""] + verdicts(rep["rows"], rep["trade"]) + [""] + rep.get("notes", [])
    path.write_text("\n".join(lines))


def source_commit() -> str:
    """The commit of the checkout this script runs from, as
    ``" (commit abc1234)"``, marked ``+changes`` when src/ differs from it (the
    build measured may then not be that commit); ``""`` outside a checkout."""
    import subprocess

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=HERE, capture_output=True, text=True).stdout.strip()
    try:
        head = git("rev-parse", "--short", "HEAD")
        dirty = git("status", "--porcelain", "--", "../src")
    except OSError:
        return ""
    return f" (commit {head}{'+changes' if dirty else ''})" if head else ""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workloads", default="W1,W2,W3,W4,W5,noise")
    ap.add_argument("--dtypes", default="float64,float32")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--pair-seconds", type=float, default=5.0,
                    help="in the defaults table, keep alternating the two defaults past --reps until their "
                         f"pairs have taken this long (at most {MAX_PAIRS} pairs): short fits get many pairs")
    ap.add_argument("--scale", type=float, default=1.0, help="fraction of every workload's n")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", choices=["defaults", "tradeoff"], default=None)
    ap.add_argument("--pair-only", action="store_true",
                    help="in the defaults table, only the two defaults (no ten starts, no single restarts): "
                         "for a machine lent for minutes")
    ap.add_argument("--no-ten-starts", action="store_true",
                    help="in the defaults table, no scikit-learn n_init=10 (the single restarts stay): "
                         "target 2 on a machine lent for minutes")
    ap.add_argument("--tradeoff-workloads", default="W2,W5")
    ap.add_argument("--out", default=str(HERE / "results" / "default-2core.md"))
    ap.add_argument("--picture", default=None,
                    help="file name of the time-quality picture, written next to --out "
                         "(default: --out's name with .png)")
    ap.add_argument("--render", default=None, metavar="JSON",
                    help="only write the markdown (and picture) from a saved report's .json, e.g. one "
                         "measured on another machine")
    args = ap.parse_args()
    t0 = time.time()

    def log(msg: str) -> None:
        print(f"[{time.time() - t0:7.1f}s] {msg}", flush=True)

    names = args.workloads.split(",")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    args.picture = args.picture or out.with_suffix(".png").name
    if args.render:
        rep = json.loads(Path(args.render).read_text())
        if rep.get("trade"):
            rep["picture"] = args.picture
            plot(rep["trade"], out.parent / args.picture)
        write_report(rep, out)
        return
    if args.only == "tradeoff":
        rows = {}
    else:
        rows = defaults_table(names, args.dtypes.split(","), args.reps, args.scale, args.seed, log,
                              out.with_suffix(".partial.json"), args.pair_only, not args.no_ten_starts,
                              args.pair_seconds)
    trade = {} if args.only == "defaults" else tradeoff(args.tradeoff_workloads.split(","), args.scale,
                                                        args.seed, log)
    import sklearn as sk
    versions = dict(smartigan=f"{smartigan.__version__}{source_commit()}", sklearn=sk.__version__,
                    numpy=np.__version__)
    if have_faiss():
        import faiss
        versions["faiss"] = faiss.__version__
    rep = dict(argv=" ".join(sys.argv[1:]), date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
               machine=this_machine(), versions=versions, minutes=(time.time() - t0) / 60, rows=rows, trade=trade,
               platform=platform.platform())
    if trade:
        if not rows:
            rep["title"] = "Time and quality (issue 28)"
        rep["picture"] = args.picture
    out.with_suffix(".json").write_text(json.dumps(rep, indent=1))
    if trade:
        plot(trade, out.parent / args.picture)
    write_report(rep, out)
    log(f"wrote {out}")


if __name__ == "__main__":
    main()
