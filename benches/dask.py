"""Benchmark: smartigan.dask.KMeans against dask-ml's KMeans and in-memory smartigan.cluster().

Not part of CI. Data are W2's overlapping Gaussian blobs (centres uniform in
[0, 5]^32, sigma 1; the generator of benches/peers.py, drawn chunk by chunk),
stored as one .npy file per chunk (read with allow_pickle=False). Every run
is a fresh process with a fresh LocalCluster of 2 worker processes with 1
thread each and a memory limit; every run's centres are then scored by ONE
evaluator (float64, exact nearest centre) so that objectives compare.

Commands (see benches/results/dask.md for the ones used and the results):

    python benches/dask.py generate --rows 1000000 --out benches/out/dask-1M
    python benches/dask.py run --data benches/out/dask-1M --k 100 --tool ours --out benches/out/runs
    <dask-ml venv>/bin/python benches/dask.py run --data ... --tool dask-ml --out ...
    python benches/dask.py evaluate --out benches/out/runs          # fills in the objectives
    python benches/dask.py table --out benches/out/runs             # markdown table
    python benches/dask.py tune --rows 1000000 --k 100 --seeding  # coreset sizes (docs/dask.md)
    python benches/dask.py all --daskml-python target/daskml-venv/bin/python   # everything above
        (--cells ROWS:K:TOOL,...;... picks the runs; --memory-limit, --timeout per run)

Tools: ``ours`` (smartigan.dask.KMeans, defaults), ``dask-ml`` (dask_ml.cluster.KMeans,
defaults), ``dask-ml-2k`` (its oversampling_factor raised to 2k), ``in-memory``
(smartigan.cluster on the whole array in this process, default parameters).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

# This file is named like the package it benchmarks: drop its own folder from
# the import path, or `import dask` would import this script.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

import numpy as np  # noqa: E402

SEED = 2026
N_FEATURES = 32
BLOBS = 100  # W2's number of generating blobs, for every k
CHUNK_ROWS = 125_000
LOAD_COUNTER = "loads.count"
# The cells run by `all`, in order of importance (each run has a timeout).
DEFAULT_CELLS = ("1000000:100:ours,dask-ml,dask-ml-2k,in-memory;17500000:100:ours,dask-ml;"
                 "1000000:1000:ours,dask-ml")


# --------------------------------------------------------------------------
# data on disk


def generate(out: Path, rows: int) -> None:
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(SEED)
    centres = rng.uniform(0.0, 5.0, size=(BLOBS, N_FEATURES))
    n_chunks = math.ceil(rows / CHUNK_ROWS)
    for i in range(n_chunks):
        size = min(CHUNK_ROWS, rows - i * CHUNK_ROWS)
        chunk_rng = np.random.default_rng([SEED, i])
        block = centres[chunk_rng.integers(0, BLOBS, size=size)] + chunk_rng.standard_normal((size, N_FEATURES))
        np.save(out / f"chunk-{i:05d}.npy", block.astype(np.float32), allow_pickle=False)
    manifest = {"rows": rows, "features": N_FEATURES, "chunk_rows": CHUNK_ROWS, "chunks": n_chunks,
                "dtype": "float32", "seed": SEED, "generator": "W2 blobs: centres U[0,5]^32, sigma 1, 100 blobs"}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1))
    (out / LOAD_COUNTER).write_bytes(b"")


def load_chunk(path: str, counter: str) -> np.ndarray:
    """One chunk from disk; appends a byte to ``counter`` so that passes over the data can be counted."""
    fd = os.open(counter, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    try:
        os.write(fd, b".")
    finally:
        os.close(fd)
    return np.load(path, allow_pickle=False)


def load(data: Path) -> Any:
    import dask
    import dask.array as da

    manifest = json.loads((data / "manifest.json").read_text())
    parts = []
    for i in range(manifest["chunks"]):
        size = min(manifest["chunk_rows"], manifest["rows"] - i * manifest["chunk_rows"])
        part = dask.delayed(load_chunk, pure=True)(str(data / f"chunk-{i:05d}.npy"), str(data / LOAD_COUNTER))
        parts.append(da.from_delayed(part, shape=(size, manifest["features"]), dtype=np.float32))
    return da.concatenate(parts)


def load_local(data: Path) -> np.ndarray:
    manifest = json.loads((data / "manifest.json").read_text())
    return np.concatenate([np.load(data / f"chunk-{i:05d}.npy", allow_pickle=False)
                           for i in range(manifest["chunks"])])


def chunk_loads(data: Path) -> int:
    return (data / LOAD_COUNTER).stat().st_size


# --------------------------------------------------------------------------
# one run


class PeakWorkerMemory:
    """Polls every worker's resident set size; keeps the largest seen."""

    def __init__(self, client: Any, interval: float = 0.2) -> None:
        self.client, self.interval, self.peak = client, interval, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)
        self._thread.start()

    def _poll(self) -> None:
        while not self._stop.is_set():
            try:
                sizes = self.client.run(_rss, on_error="ignore")
                self.peak = max([self.peak, *[v for v in sizes.values() if isinstance(v, int)]])
            except Exception:  # a worker restarting: poll again
                pass
            self._stop.wait(self.interval)

    def stop(self) -> int:
        self._stop.set()
        self._thread.join()
        return self.peak


def _rss() -> int:
    import psutil

    return int(psutil.Process().memory_info().rss)


def run(tool: str, data: Path, k: int, memory_limit: str, out: Path) -> Dict[str, Any]:
    manifest = json.loads((data / "manifest.json").read_text())
    name = f"{data.name}-k{k}-{tool}"
    record: Dict[str, Any] = {"name": name, "tool": tool, "data": data.name, "rows": manifest["rows"], "k": k,
                              "memory_limit": memory_limit, "data_bytes": manifest["rows"] * N_FEATURES * 4}
    if tool == "in-memory":
        import resource

        import smartigan

        X = load_local(data)
        start = time.perf_counter()
        result = smartigan.cluster(X, k, seed=SEED)
        record.update(wall_s=time.perf_counter() - start, passes=None, bytes_gathered=None,
                      peak_memory=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
                      reported_objective=result.objective, n_iter=result.n_sweeps)
        centres = result.centroids
    else:
        from distributed import Client, LocalCluster

        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, memory_limit=memory_limit,
                               host="127.0.0.1", dashboard_address=None,
                               scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})
        client = Client(cluster)
        X = load(data)
        loads_before = chunk_loads(data)
        monitor = PeakWorkerMemory(client)
        start = time.perf_counter()
        if tool == "ours":
            from smartigan.dask import KMeans

            model = KMeans(k, random_state=SEED).fit(X)
            extra = {"passes_reported": model.n_passes_, "bytes_gathered": model.bytes_gathered_,
                     "n_iter": model.n_iter_, "coreset_size": model.coreset_size_,
                     "n_candidates": model.n_candidates_, "reported_objective": model.inertia_,
                     "stage_s": model.timings_, "history": model.history_.tolist()}
        else:
            from dask_ml.cluster import KMeans as DaskMLKMeans

            kwargs = {"oversampling_factor": 2 * k} if tool == "dask-ml-2k" else {}
            model = DaskMLKMeans(n_clusters=k, random_state=SEED, **kwargs).fit(X)
            extra = {"bytes_gathered": None, "n_iter": int(model.n_iter_),
                     "reported_objective": float(model.inertia_)}
        record["wall_s"] = time.perf_counter() - start
        record["peak_memory"] = monitor.stop()
        record["passes"] = (chunk_loads(data) - loads_before) / manifest["chunks"]
        record.update(extra)
        centres = np.asarray(model.cluster_centers_)
        client.close()
        cluster.close()
    out.mkdir(parents=True, exist_ok=True)
    np.save(out / f"{name}.centres.npy", np.ascontiguousarray(centres), allow_pickle=False)
    (out / f"{name}.json").write_text(json.dumps(record, indent=1))
    return record


# --------------------------------------------------------------------------
# one evaluator for every tool


def chunk_objective(x: np.ndarray, centres: np.ndarray) -> float:
    """Exact float64 objective of one chunk: nearest centre found with BLAS in
    float64, then the squared distance to it recomputed as a sum of squared
    differences and added with math.fsum."""
    x64 = x.astype(np.float64)
    c64 = centres.astype(np.float64)
    total = []
    for start in range(0, x64.shape[0], 16_384):
        part = x64[start:start + 16_384]
        approx = (part * part).sum(axis=1)[:, None] - 2.0 * part @ c64.T + (c64 * c64).sum(axis=1)[None, :]
        nearest = approx.argmin(axis=1)
        diff = part - c64[nearest]
        total.append(math.fsum((diff * diff).sum(axis=1)))
    return math.fsum(total)


def evaluate(out: Path, data_root: Path) -> None:
    import dask

    for path in sorted(out.glob("*.json")):
        record = json.loads(path.read_text())
        if "objective" in record or "error" in record:
            continue
        centres = np.load(out / f"{record['name']}.centres.npy", allow_pickle=False)
        X = load(data_root / record["data"])
        parts = [dask.delayed(chunk_objective)(block, centres) for block in X.to_delayed().ravel()]
        with dask.config.set(scheduler="threads", num_workers=2):
            record["objective"] = math.fsum(dask.compute(*parts))
        path.write_text(json.dumps(record, indent=1))
        print(f"{record['name']}: {record['objective']:.6e}", flush=True)


def table(out: Path) -> str:
    records = [json.loads(p.read_text()) for p in sorted(out.glob("*.json"))]
    order = {"ours": 0, "dask-ml": 1, "dask-ml-2k": 2, "in-memory": 3}
    records.sort(key=lambda r: (r["rows"], r["k"], order.get(r["tool"], 9)))
    lines = ["| rows | k | tool | wall s | objective | vs dask-ml | vs in-memory | passes | Lloyd/polish iterations | "
             "peak worker RSS MiB | gathered MiB |",
             "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in records:
        peers = {p["tool"]: p for p in records if p["rows"] == r["rows"] and p["k"] == r["k"]}

        def rel(tool: str) -> str:
            p = peers.get(tool)
            if p is None or "objective" not in p or "objective" not in r or p is r:
                return ""
            return f"{100 * (r['objective'] / p['objective'] - 1):+.2f} %"

        if "error" in r:
            lines.append(f"| {r['rows']:,} | {r['k']} | {r['tool']} | {r['error']} | | | | | | | |")
            continue
        mib = lambda v: "" if v is None else f"{v / 2**20:.0f}"  # noqa: E731
        passes = "" if r.get("passes") is None else f"{r['passes']:.0f}"
        lines.append(
            f"| {r['rows']:,} | {r['k']} | {r['tool']} | {r['wall_s']:.0f} | {r.get('objective', float('nan')):.5e} | "
            f"{rel('dask-ml')} | {rel('in-memory')} | {passes} | {r.get('n_iter', '')} | "
            f"{mib(r.get('peak_memory'))}{' (process)' if r['tool'] == 'in-memory' else ''} | "
            f"{'n/a' if r['tool'].startswith('dask-ml') else mib(r.get('bytes_gathered'))} |"
        )
    return "\n".join(lines)


# --------------------------------------------------------------------------
# the coreset-size measurement of docs/dask.md


def tune(rows: int, k: int, sizes: List[int], extra: List[Dict[str, Any]]) -> None:
    """Fits with several coreset sizes on W2-style blobs held in memory (Dask's
    thread pool, 2 threads): the full-data objective of the coreset fit before
    polishing (``history_[0]``) and after, per size."""
    import dask
    import dask.array as da

    from smartigan.dask import KMeans

    rng = np.random.default_rng(1)
    centres = rng.uniform(0.0, 5.0, size=(BLOBS, N_FEATURES))
    X = (centres[rng.integers(0, BLOBS, size=rows)] + rng.standard_normal((rows, N_FEATURES))).astype(np.float32)
    with dask.config.set(scheduler="threads", num_workers=2):
        Xd = da.from_array(X, chunks=(CHUNK_ROWS, N_FEATURES)).persist()
        for params in [{"coreset_size": m} for m in sizes] + extra:
            start = time.perf_counter()
            model = KMeans(k, random_state=0, **params).fit(Xd)
            print(params, f"wall {time.perf_counter() - start:.1f} s, objective {model.inertia_:.6e}, "
                  f"coreset fit on the full data {model.history_[0]:.6e}, seeding centres {model.seeding_inertia_:.6e}, "
                  f"passes {model.n_passes_}, polishing passes {model.n_iter_}, stages (s) "
                  f"{ {name: round(v, 1) for name, v in model.timings_.items()} }", flush=True)


# --------------------------------------------------------------------------
# everything


def run_all(args: argparse.Namespace) -> None:
    root, out = Path(args.data_root), Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    plan: List[tuple] = []
    for cell in args.cells.split(";"):
        rows_text, k_text, tools = cell.split(":")
        rows = int(rows_text)
        data = root / f"dask-{rows // 1_000_000}M" if rows % 1_000_000 == 0 else root / f"dask-{rows}"
        if not (data / "manifest.json").exists():
            generate(data, rows)
        for tool in tools.split(","):
            plan.append((data, int(k_text), tool, args.memory_limit))
    for data, k, tool, memory_limit in plan:
        name = f"{data.name}-k{k}-{tool}"
        if (out / f"{name}.json").exists():
            continue
        python = args.daskml_python if tool.startswith("dask-ml") else sys.executable
        command = [python, __file__, "run", "--data", str(data), "--k", str(k), "--tool", tool,
                   "--memory-limit", memory_limit, "--out", str(out)]
        print("$", " ".join(command), flush=True)
        try:
            subprocess.run(command, check=True, timeout=args.timeout)
        except (subprocess.TimeoutExpired, subprocess.CalledProcessError) as exc:
            reason = f"no result: timed out after {args.timeout} s" if isinstance(exc, subprocess.TimeoutExpired) \
                else f"no result: exit status {exc.returncode}"
            manifest = json.loads((data / "manifest.json").read_text())
            (out / f"{name}.json").write_text(json.dumps({"name": name, "tool": tool, "data": data.name, "k": k,
                                                          "rows": manifest["rows"], "error": reason}))
        print(json.loads((out / f"{name}.json").read_text()), flush=True)
    evaluate(out, root)
    print(table(out))


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("generate")
    g.add_argument("--rows", type=int, required=True)
    g.add_argument("--out", required=True)
    r = sub.add_parser("run")
    r.add_argument("--data", required=True)
    r.add_argument("--k", type=int, required=True)
    r.add_argument("--tool", choices=("ours", "dask-ml", "dask-ml-2k", "in-memory"), required=True)
    r.add_argument("--memory-limit", default="1GiB")
    r.add_argument("--out", required=True)
    e = sub.add_parser("evaluate")
    e.add_argument("--out", required=True)
    e.add_argument("--data-root", default="benches/out")
    t = sub.add_parser("table")
    t.add_argument("--out", required=True)
    a = sub.add_parser("all")
    a.add_argument("--daskml-python", required=True)
    a.add_argument("--data-root", default="benches/out")
    a.add_argument("--out", default="benches/out/dask-runs")
    a.add_argument("--cells", default=DEFAULT_CELLS,
                   help="ROWS:K:TOOL,TOOL;... run in this order (default: %(default)s)")
    a.add_argument("--memory-limit", default="1GiB")
    a.add_argument("--timeout", type=int, default=600)
    u = sub.add_parser("tune")
    u.add_argument("--rows", type=int, default=1_000_000)
    u.add_argument("--k", type=int, default=100)
    u.add_argument("--sizes", default="5000,10000,20000,50000", help="coreset sizes, comma-separated")
    u.add_argument("--seeding", action="store_true", help="also oversampling=1 and init_rounds=1, 3 at 200k draws")
    args = parser.parse_args(argv)
    if args.command == "tune":
        extra: List[Dict[str, Any]] = []
        if args.seeding:
            extra = [{"coreset_size": 200 * args.k, "oversampling": 1.0}, {"coreset_size": 200 * args.k, "init_rounds": 1},
                     {"coreset_size": 200 * args.k, "init_rounds": 3}]
        tune(args.rows, args.k, [int(m) for m in args.sizes.split(",")], extra)
    elif args.command == "generate":
        generate(Path(args.out), args.rows)
    elif args.command == "run":
        print(json.dumps(run(args.tool, Path(args.data), args.k, args.memory_limit, Path(args.out))), flush=True)
    elif args.command == "evaluate":
        evaluate(Path(args.out), Path(args.data_root))
    elif args.command == "table":
        print(table(Path(args.out)))
    else:
        run_all(args)


if __name__ == "__main__":
    main()
