"""The commands, ``fit``, ``compare``, ``choose-k`` and ``demo``: each takes
the parsed arguments and returns the exit status."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np
import numpy.typing as npt

from .. import _api, _core, _path
from .._core import __version__
from .._params import DEFAULT_INIT, DEFAULT_METHOD, DEFAULT_N_INIT, METHODS, default_n_iter
from ..datasets import load_iris
from .errors import CliError
from .progress import Progress
from .readers import Table, import_pyarrow, read_table
from .writers import check_writable, output_paths, renaming_note, require_plot, write_outputs, write_table, writing

__all__ = ["fit", "compare", "choose_k", "demo"]

# Table 1 of Clément & Steinerberger (Iris, mean over 500 random-partition runs).
PAPER_IRIS = {
    3: (96.88, 78.85, 79.23),
    4: (80.82, 57.97, 59.16),
    5: (77.02, 51.37, 49.28),
    10: (55.61, 29.86, 28.18),
    20: (21.68, 17.38, 16.76),
}

# The protocol that reproduces the paper's Hartigan and Smartigan rows
# (benches/results/paper.md): random partitions, at most 10 sweeps, no polish, and a
# factor of 1.40, 1.35, ..., 0.95 in sweeps 0..9.
PAPER_PROTOCOL = dict(init="random-partition", n_iter=10, polish=False, refine=False)
PAPER_SCHEDULE = (1.4, 0.9)


def _size_bounds(args: argparse.Namespace) -> Tuple[Any, Any]:
    """``size_min`` and ``size_max`` from ``--size-min``, ``--size-max`` and ``--balanced``."""
    if args.balanced:
        if args.size_min is not None or args.size_max is not None:
            raise ValueError("--balanced sets both size bounds: give it without --size-min and --size-max")
        return "balanced", "balanced"
    return args.size_min, args.size_max


def _size_options(args: argparse.Namespace) -> str:
    """The options that set the size bounds, as given (for messages)."""
    if args.balanced:
        return "--balanced"
    given = [(option, bound) for option, bound in (("--size-min", args.size_min), ("--size-max", args.size_max))
             if bound is not None]
    return " ".join(f"{option} {bound if not isinstance(bound, list) else ','.join(map(str, bound))}"
                    for option, bound in given)


def _bounds_bind(size_min: Any, size_max: Any, n: int, k: int) -> bool:
    """Whether size bounds for ``k`` clusters of ``n`` rows bind (the core's
    rule): only then does a fit keep them, and Lloyd's method cannot."""
    return bool(_core.Params(k, size_min=size_min, size_max=size_max).bounds_bind(n))


def fit_once(X: npt.NDArray[np.float64], k: int, method: str, args: argparse.Namespace,
             seed: Optional[int]) -> Tuple[_api.ClusterResult, float]:
    """One fit, stepped with a progress bar when one can be shown; returns (result, seconds)."""
    size_min, size_max = _size_bounds(args)
    model = _api.Clusterer(k, method, args.n_iter, seed, init=args.init, metric=args.metric,  # type: ignore[arg-type]
                           n_init=args.n_init, n_threads=args.threads, refine=args.refine, tol=args.tol,
                           size_min=size_min, size_max=size_max)
    expected = args.n_iter or default_n_iter(method, X.shape[0], X.shape[1], k)
    beyond = "polishing or refining" if args.refine else "polishing"
    if args.n_iter is None and expected != default_n_iter(method):
        # A larger problem's short schedule, which its first sweep may lengthen.
        beyond = "schedule, " + beyond
    bar = Progress(method, expected, args.n_init, mode=args.progress, beyond=beyond)

    def report(sweep: int, model: _api.Clusterer) -> None:
        if sweep:  # the bar counts sweeps from the first
            bar.update(sweep, model.objective_)

    t0 = time.perf_counter()
    if not bar.enabled:
        result = model.fit(X)._result()
    else:
        # Stepping gives bit-for-bit the result of fit() (see Clusterer).
        try:
            result = _api.fit_stepwise(model, X, report)
        finally:
            bar.close()
    return result, time.perf_counter() - t0


def _load(args: argparse.Namespace) -> Table:
    header = {"auto": None, "yes": True, "no": False}[args.header]
    table = read_table(args.data, args.input_format, columns=args.columns, header=header, delimiter=args.delimiter)
    for note in table.notes:
        print(f"smartigan {args.command}: note: {note}", file=sys.stderr)
    return table


#: The two files that ``--out`` names, per command.
OUTPUT_KINDS = {"fit": ("labels", "centroids"), "choose-k": ("criteria", "labels")}


def _preflight(args: argparse.Namespace, k: int) -> None:
    """Fail before the (possibly long) fit for problems we can see up front,
    every file to be written among them (:func:`check_writable`)."""
    if k < 1:
        raise CliError(f"-k must be at least 1, got {k}")
    if args.plot:
        require_plot(args.plot)
        check_writable(args.plot, "--plot")
    if getattr(args, "out", None):
        if args.format == "parquet":
            import_pyarrow("writing")
        for path in output_paths(args.out, args.format, OUTPUT_KINDS[args.command]):
            check_writable(path, "--out")


def _json(summary: Dict[str, Any]) -> str:
    """``summary`` as strict JSON: NaN and infinities, which JSON has no
    words for, are written as null (``json.dumps`` would write ``NaN``)."""
    return json.dumps(_finite_or_none(summary), allow_nan=False)


def _finite_or_none(value: Any) -> Any:
    if isinstance(value, float):
        return value if np.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite_or_none(v) for key, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite_or_none(v) for v in value]
    return value


def _prepare(args: argparse.Namespace, k: Optional[int] = None) -> Table:
    """The data of ``fit``, ``compare`` and ``choose-k`` (whose largest k is
    ``k``), after the checks that need no fit.

    """
    k_most = args.k if k is None else k
    _preflight(args, k_most)
    table = _load(args)
    n, d = table.data.shape
    if k_most > n:
        raise CliError(f"-k {k_most} is larger than the number of points ({n}) in {args.data}")
    return table


def fit(args: argparse.Namespace) -> int:
    table = _prepare(args)
    X = table.data
    n, d = X.shape
    result, elapsed = fit_once(X, args.k, args.method, args, args.seed)
    sizes = result.cluster_sizes
    written = write_outputs(args.out, args.format, result, table.names) if args.out else []
    note = renaming_note(table.names) if args.out and table.names and args.format != "npy" else None
    if note:
        print(f"smartigan {args.command}: note: {note}", file=sys.stderr)
    if args.plot:
        from .. import plot

        with writing(args.plot, "--plot"):
            plot.save(X, {args.method: result}, args.plot, feature_names=table.names,
                      title=f"{Path(args.data).name}: k={args.k}, {args.method}")
        written.append(args.plot)
    ro = result.restart_objectives
    if args.json:
        summary = dict(data=args.data, n_samples=n, n_features=d, k=args.k, method=args.method,
                       metric=result.metric, init=args.init, n_init=args.n_init, n_iter=args.n_iter,
                       seed=result.seed, objective=result.objective,
                       sweeps=result.n_sweeps, converged=result.converged, best_restart=result.best_restart,
                       restart_objectives=ro.tolist(), seconds=elapsed, sizes=sizes.tolist(), written=written)
        print(_json(summary))
        return 0
    print(f"data        {args.data}: {n} points, {d} features"
          + (f" ({', '.join(table.names)})" if table.names and d <= 8 else ""))
    print(f"method      {args.method} (init {args.init}, metric {result.metric}, {len(ro)} restarts "
          f"(n_init {args.n_init}), n_iter {args.n_iter or 'default'}, seed {result.seed})")
    print(f"objective   {result.objective:.10g}")
    print(f"sweeps      {result.n_sweeps} ({'converged' if result.converged else 'stopped at the sweep limit'})")
    print(f"restarts    best #{result.best_restart}; objectives min {ro.min():.6g}, median {np.median(ro):.6g}, "
          f"max {ro.max():.6g}")
    print(f"time        {elapsed:.3f}s")
    print(f"sizes       {' '.join(str(s) for s in sizes)}")
    for path in written:
        print(f"wrote       {path}")
    return 0


def compare(args: argparse.Namespace) -> int:
    table = _prepare(args)
    X = table.data
    n, d = X.shape
    given = args.methods is not None
    methods = [m.strip() for m in args.methods.split(",") if m.strip()] if given else list(METHODS)
    unknown = [m for m in methods if m not in METHODS]
    if unknown or not methods:
        raise CliError(f"--methods: unknown method {', '.join(map(repr, unknown)) or '(none)'}; "
                       f"choose from {', '.join(METHODS)}")
    if "lloyd" in methods and _bounds_bind(*_size_bounds(args), n, args.k):
        keeping = [m for m in METHODS if m != "lloyd"]
        if given:
            raise CliError(f"--methods {args.methods}: compare was asked for lloyd under size bounds "
                           f"({_size_options(args)}), which lloyd cannot keep; choose methods that keep them, "
                           f"e.g. --methods {','.join(keeping)}")
        # The default names every method: compare those that keep the bounds.
        methods.remove("lloyd")
        print(f"smartigan {args.command}: note: size bounds ({_size_options(args)}) need "
              f"{' or '.join(keeping)}; lloyd skipped", file=sys.stderr)
    # One seed for every method: restart i starts from the same partition and
    # visits points in the same orders whatever the method (paired starts).
    seed = args.seed if args.seed is not None else int(np.random.SeedSequence().generate_state(1, np.uint64)[0])
    results: Dict[str, _api.ClusterResult] = {}
    times: Dict[str, float] = {}
    for m in methods:
        results[m], times[m] = fit_once(X, args.k, m, args, seed)
    ref = methods[0]
    rows = []
    for m in methods:
        r = results[m]
        rel = 100.0 * (r.objective / results[ref].objective - 1.0) if results[ref].objective > 0 else 0.0
        rows.append(dict(method=m, objective=r.objective, vs=rel, mean=float(r.restart_objectives.mean()),
                         sweeps=r.n_sweeps, converged=r.converged, seconds=times[m]))
    pairs = []
    for a, b in zip(methods, methods[1:]):
        # The candidates both ran: a search ("auto", "best") may end after
        # more of them for one method than for the other.
        both = min(results[a].restart_objectives.size, results[b].restart_objectives.size)
        first, second = results[a].restart_objectives[:both], results[b].restart_objectives[:both]
        diff = second - first
        tol = 1e-12 * np.maximum(np.abs(first), 1.0)
        pairs.append(dict(first=a, second=b, better=int(np.sum(diff < -tol)), tied=int(np.sum(np.abs(diff) <= tol)),
                          worse=int(np.sum(diff > tol))))
    if args.plot:
        from .. import plot

        with writing(args.plot, "--plot"):
            plot.save(X, results, args.plot, feature_names=table.names,
                      title=f"{Path(args.data).name}: k={args.k}, {args.n_init} paired restarts, seed {seed}")
    if args.json:
        print(_json(dict(data=args.data, n_samples=n, n_features=d, k=args.k, seed=seed, metric=args.metric,
                              init=args.init, n_init=args.n_init, n_iter=args.n_iter, methods=rows, paired=pairs,
                              written=[args.plot] if args.plot else [])))
        return 0
    print(f"{args.data}: {n} points, {d} features, k={args.k}, init {args.init}, metric {args.metric}, "
          f"{args.n_init} restarts per method from the same starts (seed {seed})\n")
    head = f"{'method':<10} {'best objective':>16} {'vs ' + ref:>10} {'mean of restarts':>17} {'sweeps':>7} {'converged':>9} {'time':>8}"
    print(head)
    print("-" * len(head))
    for row in rows:
        print(f"{row['method']:<10} {row['objective']:>16.8g} {row['vs']:>+9.2f}% {row['mean']:>17.8g} "
              f"{row['sweeps']:>7} {('yes' if row['converged'] else 'no'):>9} {row['seconds']:>7.3f}s")
    print()
    for p in pairs:
        print(f"restart by restart, {p['second']} vs {p['first']}: better in {p['better']}, "
              f"tied in {p['tied']}, worse in {p['worse']} of {args.n_init}")
    if args.plot:
        print(f"\nwrote {args.plot}")
    return 0


def _path_status(k_min: int, k_max: int, n_refs: int) -> Callable[[int, int], str]:
    """What the progress bar of ``choose-k`` says after ``done`` of ``total``
    units: which path (the data's, or a reference of the gap statistic), and
    which k it is growing, or that it is refining. The data's path comes
    first, each k of its growing one unit, then its refinement (``Progress``
    in src/control.rs); then each reference path, one unit per k of the
    range (``cluster_path``'s progress)."""
    n_ks = k_max - k_min + 1

    def status(done: int, total: int) -> str:
        data_units = total - n_refs * n_ks
        if done < data_units:
            return f"data: k={k_min + done}/{k_max}" if done < n_ks else "data: refining"
        index, unit = divmod(min(done - data_units, n_refs * n_ks - 1), n_ks)
        return f"gap reference {index + 1}/{n_refs}: k={k_min + unit}/{k_max}"

    return status


def choose_k(args: argparse.Namespace) -> int:
    ks = tuple(args.ks)
    k_min, k_max = ks[0], ks[-1]
    table = _prepare(args, k_max)
    X = table.data
    n, d = X.shape
    criteria = tuple(args.criteria)
    n_refs = args.gap_references if "gap" in criteria else 0
    bar = Progress("choose-k", 1, 1, mode=args.progress)
    status = _path_status(k_min, k_max, n_refs)

    def progress(done: int, total: int) -> None:
        bar.update_units(done, total, status(done, total))

    t0 = time.perf_counter()
    try:
        path = _path.cluster_path(X, ks, seed=args.seed, n_threads=args.threads,
                                  criteria=criteria, gap_references=args.gap_references, gap_sample=args.gap_sample,
                                  method=args.method, n_iter=args.n_iter, init=args.init, metric=args.metric,
                                  n_init=args.n_init,
                                  refine=args.refine, tol=args.tol, progress=progress if bar.enabled else None)
    finally:
        bar.close()
    elapsed = time.perf_counter() - t0
    columns: List[Tuple[str, npt.NDArray[Any]]] = [("k", path.ks), ("objective", path.objectives),
                                                   *path.criteria.items()]
    if path.gap_standard_errors is not None:
        columns.append(("gap_standard_error", path.gap_standard_errors))
    written: List[str] = []
    if args.out:
        criteria_file, labels_file = output_paths(args.out, args.format, OUTPUT_KINDS[args.command])
        write_table(criteria_file, args.format, columns)
        write_table(labels_file, args.format, [(f"k={k}", path.result(int(k)).labels) for k in path.ks])
        written += [criteria_file, labels_file]
    if args.plot:
        from .. import plot

        with writing(args.plot, "--plot"):
            plot.save_path(path, args.plot, title=f"{Path(args.data).name}: choosing k in {_path.shown_ks(ks)}")
        written.append(args.plot)
    if args.json:
        print(_json(dict(data=args.data, n_samples=n, n_features=d, ks=path.ks.tolist(),
                              objectives=path.objectives.tolist(), origins=list(path.origins),
                              criteria={name: values.tolist() for name, values in path.criteria.items()},
                              gap_standard_errors=None if path.gap_standard_errors is None
                              else path.gap_standard_errors.tolist(),
                              suggested=path.suggested, seed=path.seed, method=args.method, metric=path.metric,
                              seconds=elapsed,
                              written=written)))
        return 0
    print(f"data        {args.data}: {n} points, {d} features")
    print(f"path        k = {_path.shown_ks(ks)}, metric {path.metric}, first k by {args.method} (init {args.init}, "
          f"n_init {args.n_init}), seed {path.seed}, {elapsed:.3f}s"
          + (f" ({n_refs} gap reference paths)" if n_refs else ""))
    names = list(path.criteria)
    head = f"{'k':>4} {'objective':>14} {'origin':>7}" + "".join(f" {name:>{max(len(name), 10)}}" for name in names)
    print()
    print(head)
    print("-" * len(head))
    for i, k in enumerate(path.ks):
        cells = "".join(f" {_cell(path.criteria[name][i], path.suggested[name] == k):>{max(len(name), 10)}}"
                        for name in names)
        print(f"{int(k):>4} {path.objectives[i]:>14.8g} {path.origins[i]:>7}{cells}")
    print()
    shown = ", ".join(f"{name} {'-' if k is None else k}" for name, k in path.suggested.items())
    print(f"suggested   {shown or 'no criterion computed'}")
    for file in written:
        print(f"wrote       {file}")
    return 0


def _cell(value: float, suggested: bool) -> str:
    """A criterion's value in the table, starred where it gives the suggested k."""
    text = "-" if np.isnan(value) else f"{value:.5g}"
    return text + ("*" if suggested else " ")


def demo(args: argparse.Namespace) -> int:
    X, _ = load_iris()
    runs = args.runs
    print(f"smartigan {__version__} demo: Fisher's Iris data ({X.shape[0]} points in R^{X.shape[1]})")
    print(f"Mean k-means objective over {runs} runs per cell under the paper's protocol "
          "(random partition, at most 10 sweeps); paper's Table 1 values in brackets.")
    print(f"The last column is one call of smartigan.cluster(X, k) with default settings "
          f"(method={DEFAULT_METHOD!r}, init={DEFAULT_INIT!r}, n_init={DEFAULT_N_INIT!r}: "
          "restarts while their work stays within its budget).\n")
    header = f"{'k':>3}  {'Lloyd':>17}  {'Hartigan':>17}  {'Smartigan':>17}  {'default cluster()':>17}  {'time':>7}"
    print(header)
    print("-" * len(header))
    total = time.perf_counter()
    for k in args.k:
        t0 = time.perf_counter()
        cells = []
        for method in METHODS:
            r = _api.cluster(X, k, method, seed=args.seed, n_init=runs, schedule=PAPER_SCHEDULE,  # type: ignore[arg-type]
                             **PAPER_PROTOCOL)  # type: ignore[arg-type]
            cells.append(float(r.restart_objectives.mean()))
        best = _api.cluster(X, k, seed=args.seed).objective
        elapsed = time.perf_counter() - t0
        paper = PAPER_IRIS.get(k)
        text = [f"{v:8.2f} [{p:6.2f}]" if paper else f"{v:8.2f} [  -   ]"
                for v, p in zip(cells, paper or (0.0, 0.0, 0.0))]
        print(f"{k:>3}  {text[0]:>17}  {text[1]:>17}  {text[2]:>17}  {best:>17.2f}  {elapsed:>6.2f}s")
    print(f"\ntotal {time.perf_counter() - total:.2f}s. Lower is better. The paper's Lloyd row is not "
          "reproducible by standard Lloyd (see benches/results/paper.md).")
    return 0
