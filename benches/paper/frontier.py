"""Part 2 of the benchmark: objective reached against time for every
(method, init, n_iter, polish) and, through order statistics, every n_init;
the choice of `cluster()`'s defaults from that frontier; and a check of the
compiled defaults by real calls.

Measuring n_init by order statistics instead of by separate calls: a call with
n_init = m returns the best of m independent restarts, so from N measured
restarts of one configuration the expected result of n_init = m is the
expected minimum of m of them (common.expected_best_of), and its cost is m
restarts. One pass of N restarts thus gives the whole n_init axis. The
defaults check at the end confirms this with real calls."""

from __future__ import annotations

import math
import time
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np

import smartigan
from common import DATASETS, expected_best_of, generate, load, mean_se, restarts, timed_restarts
from reproduce import PAPER_TABLES, half_ulp

INITS = ("k-means++", "random-partition", "forgy")
N_ITERS = (10, 20, 50, 100, 300)
N_INITS = (1, 2, 3, 5, 8, 10, 15, 20, 30, 50)
LIBRARY_SCHEDULE = (1.5, 1.0)  # the paper's 3/2 - t/(2 N_iter); see "schedule" below


def config_name(c: dict) -> str:
    if c["method"] == "smartigan":
        return f"smartigan/{c['init']}/{c['n_iter']}/{'polish' if c['polish'] else 'no-polish'}"
    return f"{c['method']}/{c['init']}/{c['n_iter']}"


def grid(kind: str) -> List[dict]:
    """All configurations of one cell. For Lloyd and Hartigan n_iter is only
    a cap (they stop when nothing moves); polish only exists for Smartigan.
    "full" (paper cells) has everything; "large" (the larger synthetic sets)
    drops Lloyd/Hartigan caps other than 10, 20 and 300 and the unpolished
    Smartigan schedules of 50+ sweeps, which end at a factor within 1 % of 1
    and measured the same as the polished ones on the paper cells; "quick"
    keeps Smartigan's n_iter 10, 20 and 50 only."""
    n_iters = (10, 20, 50) if kind == "quick" else N_ITERS
    caps = N_ITERS if kind == "full" else (10, 20, 300)
    out = []
    for init in INITS:
        for method in ("lloyd", "hartigan"):
            for n_iter in caps:
                out.append(dict(method=method, init=init, n_iter=n_iter, polish=False))
        for n_iter in n_iters:
            for polish in (False, True):
                if kind != "full" and not polish and n_iter >= 50:
                    continue
                out.append(dict(method="smartigan", init=init, n_iter=n_iter, polish=polish))
    return out


def paper_cells() -> List[dict]:
    """The 15 (data set, k) cells of Tables 1-3, with the paper's Smartigan
    mean as the bar the defaults must clear."""
    cells = []
    for name in DATASETS:
        spec = PAPER_TABLES[name]
        for col, k in enumerate(spec["ks"]):
            printed = spec["smartigan"][col]
            # "Below the paper's value" is judged at the printed precision:
            # for k = 2 the printed value is the global optimum itself
            # (rounded), which nothing can undercut strictly.
            cells.append(dict(key=f"{name} k={k}", data=name, k=k, paper=True, paper_printed=printed,
                              scale=spec["scale"], paper_smartigan=float(printed) * spec["scale"],
                              paper_smartigan_bar=(float(printed) + half_ulp(printed)) * spec["scale"]))
    return cells


# Larger synthetic sets, from the paper's generator but ~10-35x more points
# and d = 10: one overlapping ("small distance") and one separated ("large
# distance") case.
LARGE_SETS = (
    dict(key="synthetic small-distance n=5000 d=10 k=30", n=5000, d=10, k=30, kind="small"),
    dict(key="synthetic large-distance n=5000 d=10 k=30", n=5000, d=10, k=30, kind="large"),
)


def large_cells() -> List[dict]:
    return [dict(key=s["key"], data=None, k=s["k"], paper=False, spec=s) for s in LARGE_SETS]


def cell_data(cell: dict) -> np.ndarray:
    if cell["data"] is not None:
        return load(cell["data"])
    s = cell["spec"]
    return generate(np.random.default_rng([7, s["n"], s["d"], s["k"], s["kind"] == "large"]),
                    s["n"], s["d"], s["k"], s["kind"])


def measure_config(X: np.ndarray, k: int, c: dict, n_min: int, n_max: int, budget_s: float,
                   seed: int) -> dict:
    """N restarts of one configuration on one thread, N chosen from a short
    probe so that the pass takes about `budget_s` (between n_min and n_max).
    Cost per restart: single-thread CPU time, the median of the pass and two
    repeats of ~50 ms; a pass longer than a second is its own median (it
    already spans hundreds of sweeps). Wall time of the pass is kept too."""
    # The frontier was measured before merge-split refinement existed; its
    # configurations stay unrefined so recorded runs remain comparable.
    kw = dict(init=c["init"], n_iter=c["n_iter"], polish=c["polish"], schedule=LIBRARY_SCHEDULE,
              n_threads=1, refine=False)
    n = n_max
    if n_min < n_max:
        probe_n = min(4, n_min)
        _, _, c_probe = timed_restarts(X, k, c["method"], probe_n, seed + 1, **kw)
        n = int(min(n_max, max(n_min, budget_s / max(c_probe / probe_n, 1e-9))))
    objs, wall, cpu = timed_restarts(X, k, c["method"], n, seed, **kw)
    per = [cpu / n]
    if cpu < 1.0:
        rep = max(1, min(n, int(0.05 / max(cpu / n, 1e-9))))
        for r in range(2):
            _, _, t = timed_restarts(X, k, c["method"], rep, seed + 2 + r, **kw)
            per.append(t / rep)
    return dict(config=c, name=config_name(c), n=n, n_first=n, objs=objs, t_restart=float(np.median(per)),
                wall_restart=wall / n)


def run_frontier(quick: bool, log=print) -> dict:
    """Measures every configuration on every cell. Returns per-cell records
    with the raw restart objectives (kept in memory only)."""
    cells = paper_cells() + large_cells()
    if quick:
        keep = {"iris k=10", "cats k=20", "breast_cancer k=5"}
        cells = [c for c in cells if c["key"] in keep or not c["paper"]][:4]
    out = []
    for ci, cell in enumerate(cells):
        t0 = time.perf_counter()
        X = cell_data(cell)
        big = not cell["paper"]
        configs = grid("quick" if quick else ("large" if big else "full"))
        if big:
            n_min, n_max, budget = (3, 3, 0.5) if quick else (8, 8, 1.0)
        else:
            n_min, n_max, budget = (20, 60, 0.1) if quick else (50, 200, 0.4)
        runs = [measure_config(X, cell["k"], c, n_min, n_max, budget, 1000 + 17 * ci)
                for c in configs]
        # The reference cost unit: one converged Lloyd restart from k-means++
        # (what scikit-learn's KMeans does per init), measured in this pass.
        ref = next(r["t_restart"] for r in runs if r["name"] == f"lloyd/k-means++/300")
        best = min(float(r["objs"].min()) for r in runs)
        out.append(dict(cell=cell, X_shape=X.shape, runs=runs, ref_t=ref, best=best,
                        seconds=time.perf_counter() - t0))
        log(f"  frontier {cell['key']}: {len(runs)} configs, {time.perf_counter() - t0:.1f}s")
    return dict(cells=out)


def deep_search(frontier: dict, quick: bool, log=print) -> None:
    """A longer search for the best objective of each cell (Smartigan from
    k-means++, polished, many restarts on all cores), so that "within 0.5 %
    of the best we ever found" is measured against a strong reference, not
    only the frontier's own restarts. Paper cells use the longest schedule
    measured; the larger synthetic sets, where a 300-sweep restart costs about
    a second, use 50 sweeps and spend the budget on restarts instead."""
    for rec in frontier["cells"]:
        cell = rec["cell"]
        X = cell_data(cell)
        runs = [r for r in rec["runs"] if r["name"].startswith("smartigan/k-means++/") and r["config"]["polish"]]
        if cell["paper"]:
            pick = max(runs, key=lambda r: r["config"]["n_iter"])
        else:
            pick = min(runs, key=lambda r: abs(r["config"]["n_iter"] - 50))
        budget = 0.5 if quick else (3.0 if cell["paper"] else 15.0)
        n = int(min(2000, max(4, budget / max(pick["t_restart"], 1e-9))))
        t0 = time.perf_counter()
        r = smartigan.cluster(X, cell["k"], "smartigan", pick["config"]["n_iter"], 424242,
                              init="k-means++", n_init=n, polish=True, schedule=LIBRARY_SCHEDULE)
        rec["deep"] = dict(n=n, n_iter=pick["config"]["n_iter"], best=float(r.objective))
        rec["best"] = min(rec["best"], float(r.objective))
        log(f"  deep search {cell['key']}: {n} restarts, {time.perf_counter() - t0:.1f}s")


def summarise(frontier: dict) -> None:
    """Adds, per run, the expected best-of-m excess over the cell's best and
    the cost of m restarts relative to the reference unit."""
    for rec in frontier["cells"]:
        best = rec["best"]
        for r in rec["runs"]:
            r["excess"] = {}
            for m in N_INITS:
                # Only m ≤ N/2: the expected best of m out of N restarts
                # leans on the few lowest samples, and at m = N it is just
                # the sample minimum, an optimistic estimate.
                if 2 * m <= r["n"]:
                    r["excess"][m] = 100.0 * (expected_best_of(r["objs"], m) / best - 1.0)
            r["mean_excess"] = 100.0 * (float(np.mean(r["objs"])) / best - 1.0)
            r["rel_cost"] = r["t_restart"] / rec["ref_t"]


def candidates(frontier: dict, target_pct: float) -> List[dict]:
    """Every (configuration, n_init) evaluated on all paper cells: its worst
    and mean excess, whether it beats the paper's Smartigan mean everywhere,
    and its cost as a geometric mean over all cells (the larger synthetic
    sets included) of m·t_restart / t_ref."""
    recs = frontier["cells"]
    paper = [r for r in recs if r["cell"]["paper"]]
    names = [r["name"] for r in paper[0]["runs"]]
    out = []
    for name in names:
        for m in N_INITS:
            worst, total, beats, ok = -math.inf, 0.0, True, True
            for rec in paper:
                run = next(x for x in rec["runs"] if x["name"] == name)
                if m not in run["excess"]:
                    ok = False
                    break
                e = run["excess"][m]
                worst = max(worst, e)
                total += e
                expected = rec["best"] * (1 + e / 100.0)
                beats &= expected < rec["cell"]["paper_smartigan_bar"]
            if not ok:
                continue
            costs = []
            for rec in recs:
                run = next((x for x in rec["runs"] if x["name"] == name), None)
                if run is None:
                    costs = None
                    break
                costs.append(m * run["rel_cost"])
            out.append(dict(name=name, m=m, worst=worst, mean=total / len(paper), beats_paper=beats,
                            cost=float(np.exp(np.mean(np.log(costs)))) if costs else math.nan,
                            cost_all_cells=costs is not None,
                            meets=beats and worst <= target_pct))
    return out


# When these defaults were chosen, `n_iter` was one default for all methods:
# Smartigan's schedule length, but also the cap on Lloyd iterations and
# Hartigan sweeps when a user changed only the method. A cap of 10 measurably
# stopped Lloyd before convergence (results/paper.md §4.5, "the shared cap"), hence
# this floor. Since then Lloyd and Hartigan default to a cap of 300, so the
# floor only keeps the choice comparable with the recorded runs.
MIN_DEFAULT_N_ITER = 20


def eligible(c: dict) -> bool:
    """Whether a configuration may become the default at all. Unpolished
    Smartigan is excluded: its result need not be Hartigan-stable (a single
    point move could still lower the objective), a guarantee the library
    documents through `converged` and that polishing buys for a few percent
    of the time (results/paper.md §4.3). So is n_iter below MIN_DEFAULT_N_ITER."""
    return not c["name"].endswith("/no-polish") and _parse(c["name"])[2] >= MIN_DEFAULT_N_ITER


# A measured default is replaced only when the rule's cheapest choice costs
# clearly less: near-ties flip with timing noise from run to run, and a
# default that changes with every rerun of a benchmark helps nobody.
KEEP_WITHIN = 1.10


def choose(cands: List[dict], compiled: Optional[Tuple[str, int]] = None) -> Optional[dict]:
    """The cheapest eligible candidate that meets the target on every paper
    cell and was timed on every cell (including the larger synthetic sets);
    but the compiled defaults `(name, n_init)` if they meet the rule too and
    cost at most KEEP_WITHIN times as much."""
    good = [c for c in cands if c["meets"] and c["cost_all_cells"] and eligible(c)]
    if not good:
        return None
    best = min(good, key=lambda c: c["cost"])
    if compiled:
        cur = next((c for c in good if (c["name"], c["m"]) == compiled), None)
        if cur is not None and cur["cost"] <= KEEP_WITHIN * best["cost"]:
            return cur
    return best


def refine(frontier: dict, cands: List[dict], target_pct: float, quick: bool, log=print) -> List[str]:
    """Second stage of the choice. The first pass ranks hundreds of
    (configuration, n_init) pairs from 50-200 restarts each, and the cheapest
    pair that clears a bar is partly the one whose estimate came out lucky.
    The few configurations near the front are therefore measured again with
    many more restarts (new seeds, all cores; their time per restart is kept
    from the first pass) before the final choice."""
    pool = sorted((c for c in cands if c["cost_all_cells"] and eligible(c) and c["worst"] <= 2 * target_pct),
                  key=lambda c: c["cost"])
    names: List[str] = []
    for c in pool:
        # Configurations more than twice as dear as the cheapest near-front
        # pair cannot become the choice by a re-estimate; skip their cost.
        if c["cost"] > 2 * pool[0]["cost"]:
            break
        if c["name"] not in names:
            names.append(c["name"])
        if len(names) == (2 if quick else 4):
            break
    for name in names:
        t0 = time.perf_counter()
        method, init, n_iter, pol = _parse(name)
        for rec in frontier["cells"]:
            if not rec["cell"]["paper"]:
                continue
            run = next(r for r in rec["runs"] if r["name"] == name)
            extra = 100 if quick else 400
            o, _ = restarts(load(rec["cell"]["data"]), rec["cell"]["k"], method, extra, 5000 + run["n"],
                            init=init, n_iter=n_iter, polish=pol, schedule=LIBRARY_SCHEDULE, refine=False)
            run["objs"] = np.concatenate([run["objs"], o])
            run["n"] = run["objs"].size
            run["refined"] = True
            rec["best"] = min(rec["best"], float(o.min()))
        log(f"  refined {name}: {time.perf_counter() - t0:.1f}s")
    return names


def pareto(points: Iterable[Tuple[float, float]]) -> List[Tuple[float, float]]:
    """Lower-left envelope of (time, excess) points: the best excess reachable
    within each time."""
    pts = sorted(points)
    out: List[Tuple[float, float]] = []
    for t, e in pts:
        if not out or e < out[-1][1]:
            out.append((t, e))
    return out


def method_frontiers(rec: dict) -> Dict[str, List[Tuple[float, float]]]:
    """Per method, the Pareto envelope over its configurations and n_init."""
    out: Dict[str, List[Tuple[float, float]]] = {}
    for method in ("lloyd", "hartigan", "smartigan"):
        pts = [(m * r["t_restart"], e) for r in rec["runs"] if r["config"]["method"] == method
               for m, e in r["excess"].items()]
        out[method] = pareto(pts)
    return out


# -------------------------------------------------------------- defaults check
def check_defaults(frontier: dict, seeds_paper: int, seeds_large: int, log=print) -> dict:
    """Real calls of `smartigan.cluster(X, k, seed=s)` with every other
    argument left at its default, on every cell; beside them, in the same
    loop, scikit-learn's recipe (Lloyd from k-means++, n_init=10, run to
    convergence) for a time ratio and a quality reference. Raw values only;
    `finalize` turns them into excesses over the final best-known objective."""
    from smartigan import _params

    defaults = dict(method=_params.DEFAULT_METHOD, init=_params.DEFAULT_INIT, n_iter=_params.DEFAULT_N_ITER,
                    # A budget of work (restarts, then children of the best).
                    n_init="auto", schedule=tuple(_params.DEFAULT_SCHEDULE),
                    polish=_default_polish(), refine=_params.DEFAULT_REFINE)
    rows = []
    for rec in frontier["cells"]:
        cell = rec["cell"]
        X = cell_data(cell)
        seeds = seeds_paper if cell["paper"] else seeds_large
        objs, lobjs, t_def, t_lloyd = [], [], [], []
        for s in range(seeds):
            # Interleaved, so that load changes on this shared machine hit
            # both timings alike.
            t0 = time.perf_counter()
            objs.append(smartigan.cluster(X, cell["k"], seed=s).objective)
            t_def.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            lobjs.append(smartigan.cluster(X, cell["k"], "lloyd", 300, s, init="k-means++",
                                           n_init=10).objective)
            t_lloyd.append(time.perf_counter() - t0)
        rec["best"] = min(rec["best"], min(objs), min(lobjs))
        rows.append(dict(rec=rec, objs=np.array(objs), lloyd_objs=np.array(lobjs),
                         t_default=float(np.median(t_def)), t_lloyd=float(np.median(t_lloyd))))
        log(f"  defaults {cell['key']}: mean {np.mean(objs):.6g}, "
            f"time ratio vs Lloyd k-means++ x10: {np.median(t_def) / np.median(t_lloyd):.2f}")
    return dict(defaults=defaults, rows=rows)


def defaults_table(check: dict) -> List[dict]:
    """Per cell: mean/worst objective of the default call, its excess over the
    best-known objective, the paper comparison and the time ratio."""
    out = []
    for r in check["rows"]:
        rec = r["rec"]
        best = rec["best"]
        m, se = mean_se(r["objs"])
        lm, _ = mean_se(r["lloyd_objs"])
        row = dict(key=rec["cell"]["key"], paper=rec["cell"]["paper"], seeds=len(r["objs"]),
                   mean=m, se=se, worst=float(r["objs"].max()), best=best,
                   excess_mean=100 * (m / best - 1), excess_worst=100 * (r["objs"].max() / best - 1),
                   lloyd_mean=lm, lloyd_excess=100 * (lm / best - 1),
                   t_default=r["t_default"], t_lloyd=r["t_lloyd"],
                   time_ratio=r["t_default"] / r["t_lloyd"])
        if rec["cell"]["paper"]:
            row["paper_smartigan"] = rec["cell"]["paper_smartigan"]
            row["paper_printed"] = _printed(rec["cell"])
            row["beats_paper"] = m < rec["cell"]["paper_smartigan_bar"]
        out.append(row)
    return out


def _printed(cell: dict) -> str:
    """The paper's Smartigan value as printed, with its scale."""
    return cell["paper_printed"] + (f" ×{cell['scale']:.0e}" if cell["scale"] != 1 else "")


def _default_polish() -> bool:
    import inspect

    return bool(inspect.signature(smartigan.cluster).parameters["polish"].default)


SCHEDULES = ((1.5, 1.0), (1.4, 0.9), (1.25, 1.0), (2.0, 1.0))


def schedule_sensitivity(frontier: dict, chosen: dict, quick: bool) -> dict:
    """The chosen (init, n_iter, polish) under other schedules, on the paper
    cells: is the paper's (1.5, 1.0) a reasonable default? Raw objectives;
    see `schedule_table`."""
    method, init, n_iter, pol = _parse(chosen["name"])
    out: dict = dict(name=chosen["name"], m=chosen["m"], rows=[])
    if method != "smartigan":
        return out
    for sch in SCHEDULES:
        per = []
        for rec in frontier["cells"]:
            if not rec["cell"]["paper"]:
                continue
            X = cell_data(rec["cell"])
            o, _ = restarts(X, rec["cell"]["k"], "smartigan", 60 if quick else 150, 99, init=init,
                            n_iter=n_iter, polish=pol, schedule=sch)
            rec["best"] = min(rec["best"], float(o.min()))
            per.append((rec, o))
        out["rows"].append(dict(schedule=sch, per=per))
    return out


def schedule_table(sens: dict) -> List[dict]:
    m = sens["m"]
    out = []
    for row in sens["rows"]:
        per = row["per"]
        ex_m = [100 * (expected_best_of(o, m) / r["best"] - 1) for r, o in per]
        single = [100 * (o.mean() / r["best"] - 1) for r, o in per]
        out.append(dict(schedule=row["schedule"], worst=max(ex_m), mean_m=float(np.mean(ex_m)),
                        single=float(np.mean(single))))
    return out


def _parse(name: str) -> Tuple[str, str, int, bool]:
    parts = name.split("/")
    if parts[0] == "smartigan":
        return parts[0], parts[1], int(parts[2]), parts[3] == "polish"
    return parts[0], parts[1], int(parts[2]), False
