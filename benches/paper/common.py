"""Shared pieces of the paper benchmark: the data sets, the paper's synthetic
generator, the two protocols, and small statistics helpers.

Kept free of any plotting or report code so that the test suite can import
nothing from here and still agree with it (the tests re-derive the protocol
on purpose, see tests/python/test_paper.py)."""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Dict, Iterable, List, Sequence, Tuple

import numpy as np

import smartigan

DATA_DIR = Path(__file__).resolve().parent / "data"

# Feature columns only: the files carry a trailing `label` column that the
# paper drops (cats: Sex; iris: species; BCW: diagnosis).
DATASETS = ("iris", "cats", "breast_cancer")


def load(name: str) -> np.ndarray:
    """Numeric features of one of the paper's data sets, unscaled, float64."""
    path = DATA_DIR / f"{name}.csv"
    with path.open() as fh:
        header = fh.readline().strip().split(",")
    table = np.loadtxt(path, delimiter=",", skiprows=1, usecols=range(len(header) - 1))
    assert header[-1] == "label", f"{path}: last column should be the label"
    return np.ascontiguousarray(table, dtype=np.float64)


# The paper protocol that reproduces Tables 1-3 (see results/paper.md): random
# partition, a fresh permutation per sweep shared by both methods (same seed),
# at most 10 sweeps, stop after a sweep without a move, no Hartigan polish,
# Smartigan factor 1.5 - 0.5*(t+2)/10 for t = 0..9.
PAPER_TABLE = dict(init="random-partition", n_iter=10, schedule=(1.4, 0.9), polish=False, refine=False)

# The synthetic tables' protocol: factor max(1.5 - 0.5*i/10, 1) for sweeps
# i = 1..10, i.e. 1.45 ... 1.00; the max() never binds within 10 sweeps.
PAPER_SYNTH = dict(n_iter=10, schedule=(1.45, 0.95), polish=False, refine=False)


def restarts(X: np.ndarray, k: int, method: str, n: int, seed: int, **kw) -> Tuple[np.ndarray, float]:
    """Final objectives of `n` independent restarts and the wall time of the
    call. Restart i with the same seed starts from the same partition and
    visits points in the same orders for Hartigan and Smartigan."""
    objs, wall, _ = timed_restarts(X, k, method, n, seed, **kw)
    return objs, wall


def timed_restarts(X: np.ndarray, k: int, method: str, n: int, seed: int, **kw) -> Tuple[np.ndarray, float, float]:
    """`restarts` plus the CPU time of the whole process during the call
    (all threads). With n_threads=1 this is the single-core cost of the
    call; unlike wall time it does not grow when other jobs share the cores,
    which they did on the machine this benchmark was written on."""
    # The paper's methods as printed: merge-split refinement (ours, on by
    # default in `cluster`) only where a caller asks for it.
    kw.setdefault("refine", False)
    c0, t0 = time.process_time(), time.perf_counter()
    r = smartigan.cluster(X, k, method, seed=seed, n_init=n, **kw)
    t1, c1 = time.perf_counter(), time.process_time()
    return np.asarray(r.restart_objectives), t1 - t0, c1 - c0


def generate(rng: np.random.Generator, n: int, d: int, k: int, kind: str) -> np.ndarray:
    """The paper's synthetic point sets. `kind` "small" draws k centres in
    [0,3]^d with covariance 0.3 I; "large" draws them in [0,5]^d with 0.1 I.
    Each point first picks a uniformly random cluster, so sizes vary."""
    side, var = {"small": (3.0, 0.3), "large": (5.0, 0.1)}[kind]
    centres = rng.uniform(0.0, side, size=(k, d))
    which = rng.integers(0, k, size=n)
    return np.ascontiguousarray(centres[which] + rng.normal(0.0, math.sqrt(var), size=(n, d)))


def mean_se(values: Sequence[float]) -> Tuple[float, float]:
    """Mean and standard error of the mean (0 for a single value)."""
    v = np.asarray(values, dtype=float)
    if v.size < 2:
        return float(v.mean()), 0.0
    return float(v.mean()), float(v.std(ddof=1) / math.sqrt(v.size))


def expected_best_of(samples: Iterable[float], m: int) -> float:
    """E[min of m draws without replacement] from the empirical sample: the
    exact expectation of what `cluster(..., n_init=m)` returns when its m
    restarts are m of the N measured ones. With ascending x_(1..N),
    P(min = x_(i)) = C(N-i, m-1)/C(N, m)."""
    x = np.sort(np.asarray(list(samples), dtype=float))
    N = x.size
    if not 1 <= m <= N:
        raise ValueError(f"m={m} must be in 1..{N}")
    # Weights via logs of binomials: C(N-i, m-1) for i = 1..N, 0 when N-i < m-1.
    i = np.arange(1, N + 1)
    w = np.zeros(N)
    ok = N - i >= m - 1
    lg = math.lgamma
    logc = np.array([lg(N - j + 1) - lg(m) - lg(N - j - m + 2) if good else -np.inf
                     for j, good in zip(i, ok)])
    logc -= lg(N + 1) - lg(m + 1) - lg(N - m + 1)
    w[ok] = np.exp(logc[ok])
    return float(np.dot(w, x) / w.sum())


def fmt(x: float, digits: int = 3) -> str:
    return f"{x:.{digits}f}"


Cell = Dict[str, object]
