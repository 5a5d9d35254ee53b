#!/usr/bin/env python3
"""Two builds of smartigan against each other: the same fits, alternating
between the builds turn by turn so that both see the same machine load;
medians of each fit's times, their ratio, and whether the results are the
same bit for bit.

    python benches/ab.py OLD_SITE NEW_SITE [--turns 5] [--quick]

OLD_SITE and NEW_SITE are folders holding an installed ``smartigan``
(``pip install --target DIR --no-deps WHEEL``). Each turn runs every fit in
a fresh process of each build (in alternating order), timing each fit as
the least of its repetitions within the turn. Only fits whose parameters
both builds understand belong here: every fit gives its ``n_init``
explicitly, so a change of the default's restarts does not enter a
comparison of the engine, except the rows named "default" (``--only
default``), which compare the default's search.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from statistics import median

# name: (recipe, k, keyword arguments of smartigan.cluster)
FITS = {
    "W1 smartigan n_init=1": ("blobs 10000 16 20", 20, {"n_init": 1}),
    "W1 smartigan n_init=10": ("blobs 10000 16 20", 20, {"n_init": 10}),
    # The default's search itself (when a change of it is what is compared).
    "W1 smartigan default": ("blobs 10000 16 20", 20, {}),
    "noise smartigan default": ("noise 20000 32", 20, {}),
    "W2/4 smartigan n_init=1": ("blobs 25000 32 100", 100, {"n_init": 1}),
    "W2/4 hartigan n_init=1, refine=False": ("blobs 25000 32 100", 100,
                                             {"method": "hartigan", "n_init": 1, "refine": False}),
    "W2/4 lloyd n_init=1": ("blobs 25000 32 100", 100, {"method": "lloyd", "n_init": 1}),
    "noise smartigan n_init=1": ("noise 20000 32", 20, {"n_init": 1}),
    "embeddings/16 float32 n_init=1": ("embeddings 6250 384 64", 64, {"n_init": 1}),
    "sparse counts n_init=1": ("sparse 20000 2000", 20, {"n_init": 1}),
    "W2-like smartigan n_init=1": ("blobs 100000 32 100", 100, {"n_init": 1}),
    "W5-like float32 smartigan n_init=1": ("embeddings 100000 384 256", 256, {"n_init": 1}),
    "W5/4-like float32 cosine n_init=1": ("embeddings 25000 384 256", 256, {"n_init": 1, "metric": "cosine"}),
    "sparse counts cosine n_init=1": ("sparse 20000 2000", 20, {"n_init": 1, "metric": "cosine"}),
    "E128/3 cosine n_init=1, refine=False": ("embeddings 30000 128 256", 256,
                                             {"n_init": 1, "metric": "cosine", "refine": False}),
    "E128/3 cosine lloyd n_init=1": ("embeddings 30000 128 256", 256,
                                     {"method": "lloyd", "n_init": 1, "metric": "cosine"}),
    "E128/3 cosine default": ("embeddings 30000 128 256", 256, {"metric": "cosine"}),
    "weighted W1 n_init=4": ("weighted 10000 16 20", 20, {"n_init": 4}),
}
QUICK = ["W1 smartigan n_init=1", "noise smartigan n_init=1", "sparse counts n_init=1"]
# The engine on the large workloads (a minute a turn): --only W2,W5


CHILD = r"""
import hashlib, json, sys, time
import numpy as np
import smartigan

def data(recipe):
    kind, *sizes = recipe.split()
    rng = np.random.default_rng(7)
    if kind in ("blobs", "weighted"):
        n, d, k = map(int, sizes)
        c = rng.uniform(0, 10, size=(k, d))
        x = c[rng.integers(0, k, n)] + rng.normal(size=(n, d))
        w = rng.uniform(0.5, 2.0, n) if kind == "weighted" else None
        return x, w
    if kind == "noise":
        n, d = map(int, sizes)
        return rng.normal(size=(n, d)), None
    if kind == "embeddings":
        n, d, k = map(int, sizes)
        c = rng.normal(size=(k, d)).astype(np.float32)
        x = c[rng.integers(0, k, n)] + 1.2 * rng.normal(size=(n, d)).astype(np.float32)
        return x / np.linalg.norm(x, axis=1, keepdims=True), None
    if kind == "sparse":
        import scipy.sparse as sp
        n, d = map(int, sizes)
        m = sp.random(n, d, density=0.01, random_state=7, format="csr")
        m.data = np.ceil(m.data * 5)
        return m, None
    raise ValueError(recipe)

fits = json.loads(sys.argv[1])
reps = int(sys.argv[2])
out = {}
cache = {}
for name, (recipe, k, kw) in fits.items():
    if recipe not in cache:
        cache[recipe] = data(recipe)
    x, w = cache[recipe]
    best = float("inf")
    for _ in range(reps):
        t = time.perf_counter()
        r = smartigan.cluster(x, k, seed=3, sample_weight=w, **kw)
        best = min(best, time.perf_counter() - t)
    out[name] = dict(seconds=best, objective=r.objective.hex(), labels=hashlib.sha256(r.labels.tobytes()).hexdigest(),
                     n_sweeps=r.n_sweeps)
print(json.dumps(out))
"""


def run(site: str, fits: dict, reps: int) -> dict:
    env = dict(os.environ, PYTHONPATH=site)
    out = subprocess.run([sys.executable, "-c", CHILD, json.dumps(fits), str(reps)], env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--turns", type=int, default=5)
    ap.add_argument("--reps", type=int, default=2, help="repetitions of each fit within a turn (the least counts)")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", default="", help="comma-separated substrings: only the fits whose names hold one")
    args = ap.parse_args()
    fits = {name: FITS[name] for name in (QUICK if args.quick else FITS)}
    if args.only:
        fits = {name: f for name, f in fits.items() if any(part in name for part in args.only.split(","))}
    times = {name: {"old": [], "new": []} for name in fits}
    same = {name: True for name in fits}
    for turn in range(args.turns):
        order = ("old", "new") if turn % 2 == 0 else ("new", "old")
        results = {which: run(getattr(args, which), fits, args.reps) for which in order}
        for name in fits:
            for which in ("old", "new"):
                times[name][which].append(results[which][name]["seconds"])
            a, b = results["old"][name], results["new"][name]
            same[name] &= (a["objective"], a["labels"], a["n_sweeps"]) == (b["objective"], b["labels"], b["n_sweeps"])
        print(f"turn {turn + 1}/{args.turns} done", file=sys.stderr)
    print("| fit | old (s) | new (s) | new / old | same result |")
    print("|---|---:|---:|---:|---|")
    for name in fits:
        o, n = median(times[name]["old"]), median(times[name]["new"])
        print(f"| {name} | {o:.4f} | {n:.4f} | {n / o:.3f} | {'yes' if same[name] else '**no**'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
