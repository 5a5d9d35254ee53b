"""Rendering: benches/PAPER.md and the objective-vs-time figure, from the
records built by reproduce.py and frontier.py. No measurement happens here."""

from __future__ import annotations

import math
from typing import Dict, List, Optional, Sequence

import numpy as np

from frontier import (INITS, N_INITS, N_ITERS, _parse, defaults_table, method_frontiers,
                      schedule_table)
from reproduce import LLOYD_VARIANTS, PAPER_TABLES, SYNTH_COLS, SYNTH_DS, SYNTH_INITS, SYNTH_NS

FLAG = " ⚑"


def _num(v: float, scale: float, digits: int = 3) -> str:
    return f"{v / scale:.{digits}f}"


def _z(z: float) -> str:
    return "∞" if math.isinf(z) else f"{z:.1f}"


# ---------------------------------------------------------------- Tables 1-3
def tables_md(tables: List[dict]) -> str:
    lines: List[str] = []
    for name, spec in PAPER_TABLES.items():
        cells = [c for c in tables if c["data"] == name]
        sc = spec["scale"]
        runs = cells[0]["runs"]
        long_runs = cells[0]["hartigan"].get("long", {}).get("runs")
        lines.append(f"### {spec['title']}\n")
        lines.append("| | " + " | ".join(f"k = {c['k']}" for c in cells) + " |")
        lines.append("|---|" + "---:|" * len(cells))
        for method, label in (("hartigan", "Hartigan"), ("smartigan", "Smartigan")):
            lines.append(f"| **{label}**, paper | " + " | ".join(c[method]["printed"] for c in cells) + " |")
            lines.append(f"| {label}, ours ({runs} runs), mean ± SE | " + " | ".join(
                f"{_num(c[method]['mean'], sc)} ± {_num(c[method]['se'], sc)}" + (FLAG if c[method]["flag"] else "")
                for c in cells) + " |")
            lines.append(f"| {label}, z (paper vs ours, our SE) | " + " | ".join(
                _z(c[method]["z"]) for c in cells) + " |")
            if long_runs:
                lines.append(f"| {label}, ours ({long_runs} runs) / paper's z at its own run count | " + " | ".join(
                    f"{_num(c[method]['long']['mean'], sc)} / {_z(c[method]['long']['z_paper'])}" for c in cells) + " |")
        lines.append("| Smartigan − Hartigan, paired mean ± SE | " + " | ".join(
            f"{_num(c['paired_diff']['mean'], sc)} ± {_num(c['paired_diff']['se'], sc)}" for c in cells) + " |")
        lines.append("| runs where Smartigan / Hartigan is lower | " + " | ".join(
            f"{100 * c['paired_diff']['smartigan_better']:.0f}% / {100 * c['paired_diff']['hartigan_better']:.0f}%"
            for c in cells) + " |")
        lines.append("| **Lloyd**, paper (not reproduced, see text) | " + " | ".join(spec["lloyd"]) + " |")
        for i, (label, _, _) in enumerate(LLOYD_VARIANTS):
            lines.append(f"| Lloyd, ours: {label} | " + " | ".join(
                f"{_num(c['lloyd'][i]['mean'], sc)} ± {_num(c['lloyd'][i]['se'], sc)}" for c in cells) + " |")
        lines.append("")
    return "\n".join(lines)


def tables_flag_summary(tables: List[dict]) -> Dict[str, List[str]]:
    """Flagged cells by the spec's rule, and cells whose paper value is more
    than 3 sampling SEs from our long-run mean."""
    flagged, implausible = [], []
    for c in tables:
        for method in ("hartigan", "smartigan"):
            key = f"{c['data']} k={c['k']} {method}"
            if c[method]["flag"]:
                flagged.append(f"{key} (z = {_z(c[method]['z'])})")
            lg = c[method].get("long")
            if lg and lg["z_paper"] > 3:
                implausible.append(f"{key} (paper {c[method]['printed']}, long-run mean "
                                   f"{_num(lg['mean'], PAPER_TABLES[c['data']]['scale'])}, "
                                   f"{_z(lg['z_paper'])} sampling SEs)")
    return dict(flagged=flagged, implausible=implausible)


# ----------------------------------------------------------- synthetic tables
def synthetic_md(synth: List[dict]) -> str:
    lines: List[str] = []
    head = " | ".join(f"k{'s' if kind == 'small' else 'l'} = {k}" for kind, k in SYNTH_COLS)
    sets = synth[0]["sets"]
    for d in SYNTH_DS:
        for init in SYNTH_INITS:
            lines.append(f"**d = {d}, {init} initialisation** — ours: mean ± SE over {sets} point sets "
                         f"(paper in brackets)\n")
            lines.append(f"| | {head} |")
            lines.append("|---|" + "---:|" * len(SYNTH_COLS))
            for n in SYNTH_NS:
                row = []
                for kind, k in SYNTH_COLS:
                    c = next(x for x in synth if x["d"] == d and x["n"] == n and x["kind"] == kind and x["k"] == k)
                    r = c[init]
                    row.append(f"{r['mean']:+.2f} ± {r['se']:.2f} ({c['paper_printed']})" + (FLAG if r["flag"] else ""))
                lines.append(f"| n = {n} | " + " | ".join(row) + " |")
            lines.append("")
    return "\n".join(lines)


def synthetic_summary(synth: List[dict]) -> dict:
    """Counts used in the prose: how many of the paper's non-trivial cells
    (k ≥ 10) each initialisation reproduces within 3 SE, and how many cells
    show a significant Smartigan gain (mean + 3 SE < 0)."""
    out = {}
    nontrivial = [c for c in synth if c["k"] >= 10]
    for init in SYNTH_INITS:
        within = sum(1 for c in nontrivial if not c[init]["flag"])
        gain = sum(1 for c in nontrivial if c[init]["mean"] + 3 * c[init]["se"] < 0)
        loss = sum(1 for c in synth if c[init]["mean"] - 3 * c[init]["se"] > 0)
        large = [c for c in nontrivial if c["kind"] == "large"]
        out[init] = dict(nontrivial=len(nontrivial), within=within, gain=gain, loss=loss,
                         large_mean=float(np.mean([c[init]["mean"] for c in large])),
                         small_mean=float(np.mean([c[init]["mean"] for c in nontrivial if c["kind"] == "small"])))
    out["paper_large_mean"] = float(np.mean([c["paper"] for c in nontrivial if c["kind"] == "large"]))
    out["paper_small_mean"] = float(np.mean([c["paper"] for c in nontrivial if c["kind"] == "small"]))
    return out


# ------------------------------------------------------------------ frontier
def _run(rec: dict, name: str) -> Optional[dict]:
    return next((r for r in rec["runs"] if r["name"] == name), None)


def niter_md(fr: dict) -> str:
    """Single-restart mean excess by schedule length, on the paper cells with
    k ≥ 10 and on the larger synthetic sets."""
    paper10 = [r for r in fr["cells"] if r["cell"]["paper"] and r["cell"]["k"] >= 10]
    big = [r for r in fr["cells"] if not r["cell"]["paper"]]
    groups = [("paper cells, k ≥ 10", paper10)] + [(r["cell"]["key"], [r]) for r in big]
    lines = ["| configuration | " + " | ".join(g for g, _ in groups) + " | cost per restart (paper cells k ≥ 10) |",
             "|---|" + "---:|" * (len(groups) + 1)]
    rows = []
    for init in INITS:
        for n_iter in N_ITERS:
            rows.append(f"smartigan/{init}/{n_iter}/polish")
    for init in INITS:
        rows.append(f"hartigan/{init}/300")
        rows.append(f"lloyd/{init}/300")
    for name in rows:
        vals = []
        for _, recs in groups:
            runs = [_run(r, name) for r in recs]
            vals.append("–" if any(x is None for x in runs) else
                        f"{np.mean([x['mean_excess'] for x in runs]):.2f}")
        costs = [_run(r, name)["rel_cost"] for r in paper10 if _run(r, name)]
        cost = f"{math.exp(np.mean(np.log(costs))):.2f}" if costs else "–"
        lines.append(f"| {name} | " + " | ".join(vals) + f" | {cost} |")
    return "\n".join(lines)


def polish_md(fr: dict) -> str:
    paper = [r for r in fr["cells"] if r["cell"]["paper"]]
    lines = ["| Smartigan, k-means++, n_iter | mean excess, no polish | mean excess, polish | "
             "worst excess best-of-10, no polish | same, polish | cost ratio polish / no polish |",
             "|---:|---:|---:|---:|---:|---:|"]
    for n_iter in N_ITERS:
        a = [_run(r, f"smartigan/k-means++/{n_iter}/no-polish") for r in paper]
        b = [_run(r, f"smartigan/k-means++/{n_iter}/polish") for r in paper]
        if any(x is None for x in a + b):
            continue
        ratio = math.exp(np.mean([math.log(y["t_restart"] / x["t_restart"]) for x, y in zip(a, b)]))
        w = lambda runs: max(x["excess"].get(10, math.nan) for x in runs)
        lines.append(f"| {n_iter} | {np.mean([x['mean_excess'] for x in a]):.3f} | "
                     f"{np.mean([x['mean_excess'] for x in b]):.3f} | {w(a):.3f} | {w(b):.3f} | {ratio:.2f} |")
    return "\n".join(lines)


def budget_md(cands: List[dict]) -> str:
    """For growing cost budgets, each method's lowest worst-cell excess."""
    budgets = (1, 3, 10, 30, 100, 300, 1000)
    lines = ["| cost budget (Lloyd-k-means++ restarts) | " + " | ".join(f"≤ {b}" for b in budgets) + " |",
             "|---|" + "---:|" * len(budgets)]
    for method in ("lloyd", "hartigan", "smartigan"):
        row = []
        for b in budgets:
            pool = [c for c in cands if c["name"].startswith(method) and c["cost_all_cells"] and c["cost"] <= b]
            if not pool:
                row.append("–")
                continue
            c = min(pool, key=lambda c: (c["worst"], c["cost"]))
            row.append(f"{c['worst']:.2f} % <br><sub>{c['name']} ×{c['m']}</sub>")
        lines.append(f"| {method} | " + " | ".join(row) + " |")
    return "\n".join(lines)


def candidates_md(cands: List[dict], chosen: Optional[dict], current: dict, limit: int = 12) -> str:
    meeting = sorted((c for c in cands if c["meets"] and c["cost_all_cells"]), key=lambda c: c["cost"])
    show = meeting[:limit]
    cur_name = current_name(current)
    extra = [c for c in cands if c["name"] == cur_name and c["m"] == current["n_init"]]
    for c in extra:
        if c not in show:
            show.append(c)
    lines = ["| configuration (method/init/n_iter/polish) | n_init | worst excess % | mean excess % | "
             "beats paper Smartigan everywhere | cost (geo-mean, Lloyd-k-means++ restarts) | |",
             "|---|---:|---:|---:|:-:|---:|---|"]
    for c in show:
        tag = []
        if chosen and c["name"] == chosen["name"] and c["m"] == chosen["m"]:
            tag.append("**chosen**")
        if c["name"] == cur_name and c["m"] == current["n_init"]:
            tag.append("compiled defaults")
        lines.append(f"| {c['name']} | {c['m']} | {c['worst']:.3f} | {c['mean']:.3f} | "
                     f"{'yes' if c['beats_paper'] else 'no'} | {c['cost']:.1f} | {', '.join(tag)} |")
    return "\n".join(lines)


def current_name(d: dict) -> str:
    if d["method"] == "smartigan":
        return f"smartigan/{d['init']}/{d['n_iter']}/{'polish' if d['polish'] else 'no-polish'}"
    return f"{d['method']}/{d['init']}/{d['n_iter']}"


def all_configs_md(fr: dict, cands: List[dict]) -> str:
    paper = [r for r in fr["cells"] if r["cell"]["paper"]]
    lines = ["| configuration | restarts measured per cell | mean single-run excess % | worst single-run excess % | "
             "worst best-of-10 excess % | cost per restart |", "|---|---:|---:|---:|---:|---:|"]
    for run in paper[0]["runs"]:
        name = run["name"]
        runs = [_run(r, name) for r in paper]
        c1 = next((c for c in cands if c["name"] == name and c["m"] == 1), None)
        c10 = next((c for c in cands if c["name"] == name and c["m"] == 10), None)
        cost = math.exp(np.mean(np.log([x["rel_cost"] for x in runs])))
        nmin, nmax = min(x["n"] for x in runs), max(x["n"] for x in runs)
        lines.append(f"| {name} | {nmin}–{nmax} | {c1['mean']:.2f} | {c1['worst']:.2f} | "
                     f"{c10['worst'] if c10 else math.nan:.3f} | {cost:.2f} |")
    return "\n".join(lines)


def chosen_cells_md(fr: dict, chosen: dict) -> str:
    lines = ["| cell | best known | paper Smartigan | expected objective, chosen | excess % | "
             "time of one call, single thread (ms) |", "|---|---:|---:|---:|---:|---:|"]
    for rec in fr["cells"]:
        run = _run(rec, chosen["name"])
        if run is None:
            continue
        m = chosen["m"]
        if m in run["excess"]:
            e = run["excess"][m]
            exp = f"{rec['best'] * (1 + e / 100):.6g}"
            es = f"{e:.3f}"
        else:
            exp, es = f"n/a (only {run['n']} restarts measured)", "–"
        paper = f"{rec['cell']['paper_smartigan']:.6g}" if rec["cell"]["paper"] else "–"
        lines.append(f"| {rec['cell']['key']} | {rec['best']:.6g} | {paper} | {exp} | {es} | "
                     f"{1e3 * m * run['t_restart']:.1f} |")
    return "\n".join(lines)


def schedule_md(sens: dict) -> str:
    rows = schedule_table(sens)
    if not rows:
        return "(the chosen method is not Smartigan; no schedule to vary)"
    lines = [f"| schedule (start, end) | mean single-run excess % | mean best-of-{sens['m']} excess % | "
             f"worst best-of-{sens['m']} excess % |", "|---|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['schedule']} | {r['single']:.3f} | {r['mean_m']:.3f} | {r['worst']:.3f} |")
    return "\n".join(lines)


def defaults_md(check: dict) -> str:
    rows = defaults_table(check)
    lines = ["| cell | seeds | default `cluster()` mean ± SE | worst seed | best known | mean excess % | worst excess % | "
             "paper Smartigan | below it? | Lloyd k-means++ ×10: mean excess % | time: default (ms) | "
             "time ratio default / Lloyd |", "|---|---:|---:|---:|---:|---:|---:|---:|:-:|---:|---:|---:|"]
    for r in rows:
        paper = f"{r['paper_smartigan']:.6g}" if r["paper"] else "–"
        below = ("yes" if r["beats_paper"] else "**no**") if r["paper"] else "–"
        lines.append(f"| {r['key']} | {r['seeds']} | {r['mean']:.6g} ± {r['se']:.2g} | {r['worst']:.6g} | {r['best']:.6g} | "
                     f"{r['excess_mean']:.3f} | {r['excess_worst']:.3f} | {paper} | {below} | {r['lloyd_excess']:.3f} | "
                     f"{1e3 * r['t_default']:.1f} | {r['time_ratio']:.2f} |")
    return "\n".join(lines)


# -------------------------------------------------------------------- figure
PANELS = ("iris k=10", "iris k=20", "cats k=20", "breast_cancer k=10", "breast_cancer k=20")
COLORS = {"lloyd": "tab:blue", "hartigan": "tab:orange", "smartigan": "tab:green"}
FLOOR = 1e-3  # excess (%) below this is drawn at the floor of the log axis


def figure(fr: dict, cands: List[dict], chosen: Optional[dict], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    recs = [r for r in fr["cells"] if r["cell"]["key"] in PANELS or not r["cell"]["paper"]]
    n = len(recs) + 1
    cols = 4
    rows_ = math.ceil(n / cols)
    fig, axes = plt.subplots(rows_, cols, figsize=(4.2 * cols, 3.4 * rows_), squeeze=False)
    axes = axes.ravel()
    # Aggregate panel: worst excess over the 15 paper cells vs geo-mean cost.
    ax = axes[0]
    for method, color in COLORS.items():
        pts = [(c["cost"], c["worst"]) for c in cands if c["name"].startswith(method) and c["cost_all_cells"]]
        env = _envelope(pts)
        ax.step([p[0] for p in env], [max(p[1], FLOOR) for p in env], where="post", color=color, label=method)
        ax.scatter([p[0] for p in pts], [max(p[1], FLOOR) for p in pts], s=4, color=color, alpha=0.25)
    if chosen:
        ax.scatter([chosen["cost"]], [max(chosen["worst"], FLOOR)], marker="*", s=160, color="black",
                   zorder=5, label="chosen default")
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set(xscale="log", yscale="log", title="all 15 paper cells: worst cell",
           xlabel="cost (Lloyd k-means++ restarts, geo-mean)", ylabel="% above best known")
    ax.legend(fontsize=7)
    for ax, rec in zip(axes[1:], recs):
        for method, env in method_frontiers(rec).items():
            ax.step([1e3 * p[0] for p in env], [max(p[1], FLOOR) for p in env], where="post",
                    color=COLORS[method], label=method)
        if chosen:
            run = _run(rec, chosen["name"])
            if run is not None and chosen["m"] in run["excess"]:
                ax.scatter([1e3 * chosen["m"] * run["t_restart"]], [max(run["excess"][chosen["m"]], FLOOR)],
                           marker="*", s=160, color="black", zorder=5)
        ax.axhline(0.5, color="grey", lw=0.8, ls="--")
        ax.set(xscale="log", yscale="log", title=rec["cell"]["key"], xlabel="time, one thread (ms)",
               ylabel="% above best known")
        ax.title.set_fontsize(9)
    for ax in axes[n:]:
        ax.axis("off")
    fig.suptitle("Expected objective of the best of n_init restarts vs time: lower envelope over init, "
                 "n_iter, polish and n_init per method (★ = chosen defaults; dashed = 0.5 %)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _envelope(pts):
    out = []
    for t, e in sorted(pts):
        if not out or e < out[-1][1]:
            out.append((t, e))
    return out


def document(res: dict, target_pct: float, figure_rel: str) -> str:
    return "stub\n"
