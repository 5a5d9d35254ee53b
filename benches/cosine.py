#!/usr/bin/env python3
"""Spherical k-means (``metric="cosine"``) against its peers (issue 60).

    python benches/cosine.py --quick                    # a smoke run on small sizes (benches/out/)
    python benches/cosine.py --parts c,d,a-quarter,b,a-full --turns 3
    python benches/cosine.py --render benches/results/cosine-2core.json

The parts, each written into the report as it ends (``--parts`` runs some of
them and keeps the others from the JSON at ``--out``):

a-quarter, a-full
    W5 (``default.py``'s embeddings: unit-length float32 rows, 384
    dimensions, k = 256) on 25,000 rows and on 100,000: the default cosine
    fit against faiss' spherical k-means (25 iterations on all points, one
    start) and scikit-learn's default ``KMeans(k)`` on the L2-normalised
    rows; beside them (part e) our Euclidean default on the same rows.
    Then where the default's time goes: its k-means++ start and each of its
    sweeps timed one by one.
b
    A TF-IDF-like CSR matrix (documents from topics over Zipf term
    frequencies, 50-200 terms each, L2-normalised), k = 100: the default
    cosine fit against scikit-learn's ``KMeans(k)`` and soyclustering's
    ``SphericalKMeans`` (where it imports), with our Euclidean default (e).
c
    One Hartigan restart on W5's quarter ends at a spherical local optimum:
    every single-row move is evaluated exactly, in float64.
d
    The paper's data sets (Iris, cats, Breast Cancer Wisconsin at the
    paper's k): the default's spherical loss against the best of 100
    restarts of each method; with the "normalise, then Euclidean k-means"
    workaround (e) scored the same way.

The contenders of a cell alternate in turns, in an order rotated from turn to
turn, every turn with its own seed; the report gives medians. Every loss is
recomputed here in float64 from the rows scaled to unit length:

- *own*: sum over rows of 1 - cos(row, its cluster's centre scaled to unit
  length), with the labels and centres the tool returned;
- *nearest*: the same, each row taken to the centre of largest cosine;
- *partition*: the spherical loss of the returned labels with their best
  centres, sum over clusters of (rows - length of the sum of their rows).

Writes ``benches/results/cosine-2core.md`` and ``.json`` (``--quick``:
``benches/out/cosine-quick.*``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from statistics import median
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import numpy as np
import scipy.sparse as sp

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "paper"))
from default import have_faiss, workload  # noqa: E402  (W5's recipe and the warm-up)
from peers import WORKLOADS, make_data, this_machine  # noqa: E402
from common import load as load_paper  # noqa: E402  (benches/paper: the paper's data sets)
from reproduce import PAPER_TABLES  # noqa: E402

import smartigan  # noqa: E402
from smartigan import _core, _params  # noqa: E402

Points = Any  # a dense array or a CSR matrix
Fit = Callable[[Points, int, int], Tuple[np.ndarray, np.ndarray, Dict[str, Any]]]

PARTS = ("c", "d", "a-quarter", "b", "a-full")

#: The sizes of the full run and of ``--quick`` (a smoke check, not a measurement).
SIZES: Dict[str, Dict[str, Any]] = {
    "full": dict(w5_quarter=0.25, w5_full=1.0, w5_k=256, docs=100_000, terms=30_000, doc_k=100,
                 check_scale=0.25, check_k=256, paper_seeds=5, paper_restarts=100, paper_cells=None),
    "quick": dict(w5_quarter=0.03, w5_full=0.06, w5_k=32, docs=4_000, terms=3_000, doc_k=20,
                  check_scale=0.03, check_k=32, paper_seeds=2, paper_restarts=10,
                  paper_cells=[("iris", 3), ("cats", 5), ("breast_cancer", 10)]),
}

# The TF-IDF-like corpus: shares and exponents of its generator (see make_corpus).
TERMS_PER_DOC = (50, 200)
TOPIC_SHARE = 0.5
BACKGROUND_ZIPF = 1.07
TOPIC_ZIPF = 1.2


# --------------------------------------------------------------------------
# data


def w5(scale: float, k: int, seed: int) -> Tuple[Dict[str, int], np.ndarray]:
    """W5 (default.py's recipe) with n scaled; ``k`` replaces W5's 256 only
    in the quick run, where the full k would not be quick."""
    if k == WORKLOADS["W5"]["k"]:
        return workload("W5", scale, seed)
    spec = dict(WORKLOADS["W5"], n=int(WORKLOADS["W5"]["n"] * scale), k=k)
    return spec, make_data("W5", spec)


def zipf_cdf(weights: np.ndarray) -> np.ndarray:
    c = np.cumsum(weights)
    return c / c[-1]


def make_corpus(n_docs: int, n_terms: int, topics: int, seed: int) -> sp.csr_matrix:
    """A TF-IDF-like corpus, L2-normalised CSR float64.

    Every term has a background frequency by Zipf's law (exponent
    ``BACKGROUND_ZIPF`` over the term's rank); every topic ranks all terms
    in its own random order and weights them by Zipf's law again
    (``TOPIC_ZIPF``). A document belongs to one topic (uniform); its length
    in distinct terms is uniform in ``TERMS_PER_DOC``; its words are drawn
    one by one, from its topic with probability ``TOPIC_SHARE`` and from
    the background otherwise, until it has that many distinct terms. Term
    counts become sublinear TF (1 + ln count) times smoothed IDF
    (ln((1 + n) / (1 + df)) + 1), and rows are scaled to unit length.
    """
    rng = np.random.default_rng(seed)
    ranks = np.arange(1, n_terms + 1, dtype=np.float64)
    background = zipf_cdf(ranks ** -BACKGROUND_ZIPF)
    topic_weights = ranks ** -TOPIC_ZIPF
    topic_cdfs = np.empty((topics, n_terms))
    for t in range(topics):
        topic_cdfs[t] = zipf_cdf(topic_weights[np.argsort(rng.permutation(n_terms))])
    topic_of = rng.integers(0, topics, n_docs)
    lengths = rng.integers(TERMS_PER_DOC[0], TERMS_PER_DOC[1] + 1, n_docs)
    indptr = np.zeros(n_docs + 1, dtype=np.int64)
    indices: List[np.ndarray] = []
    counts: List[np.ndarray] = []
    for i in range(n_docs):
        want = int(lengths[i])
        words = np.empty(0, dtype=np.int64)
        while True:
            draw = 2 * want
            from_topic = rng.random(draw) < TOPIC_SHARE
            u = rng.random(draw)
            new = np.where(from_topic, np.searchsorted(topic_cdfs[topic_of[i]], u),
                           np.searchsorted(background, u))
            words = np.concatenate([words, np.minimum(new, n_terms - 1)])
            terms, first, count = np.unique(words, return_index=True, return_counts=True)
            if terms.size >= want:
                break
        # The first `want` distinct terms in the order they were drawn; their
        # counts over all the words drawn (a few words past the last one kept).
        keep = np.sort(np.argsort(first, kind="stable")[:want])
        indices.append(terms[keep])
        counts.append(count[keep])
        indptr[i + 1] = indptr[i] + want
    x = sp.csr_matrix((np.concatenate(counts).astype(np.float64), np.concatenate(indices), indptr),
                      shape=(n_docs, n_terms))
    x.data = 1.0 + np.log(x.data)
    df = np.bincount(x.indices, minlength=n_terms)
    x = x @ sp.diags(np.log((1.0 + n_docs) / (1.0 + df)) + 1.0)
    x = sp.csr_matrix(x)
    norms = np.sqrt(np.asarray(x.multiply(x).sum(axis=1)).ravel())
    x = sp.csr_matrix(sp.diags(1.0 / norms) @ x)
    x.sort_indices()
    return x


# --------------------------------------------------------------------------
# scoring


def unit(rows: Points) -> Points:
    """Rows in float64 scaled to unit length (dense or CSR)."""
    if sp.issparse(rows):
        r = sp.csr_matrix(rows, dtype=np.float64)
        norms = np.sqrt(np.asarray(r.multiply(r).sum(axis=1)).ravel())
        return sp.csr_matrix(sp.diags(1.0 / norms) @ r)
    r = np.asarray(rows, dtype=np.float64)
    return r / np.linalg.norm(r, axis=1, keepdims=True)


def chunks(n: int, size: int = 8192) -> Iterator[slice]:
    for s in range(0, n, size):
        yield slice(s, min(n, s + size))


def label_sums(xu: Points, labels: np.ndarray, k: int) -> np.ndarray:
    """Sum of the unit rows of each cluster, (k, d) float64."""
    n = xu.shape[0]
    member = sp.csr_matrix((np.ones(n), (labels, np.arange(n))), shape=(k, n))
    sums = member @ xu
    return np.asarray(sums.toarray() if sp.issparse(sums) else sums, dtype=np.float64)


def spherical_scores(x: Points, labels: np.ndarray, centres: np.ndarray) -> Dict[str, float]:
    """The three losses of the module's docstring, float64."""
    labels = np.asarray(labels, dtype=np.int64)
    c = np.asarray(centres, dtype=np.float64)
    norms = np.linalg.norm(c, axis=1, keepdims=True)
    cu = np.where(norms > 0, c / np.where(norms > 0, norms, 1.0), 0.0)
    own = nearest = 0.0
    for s in chunks(x.shape[0]):
        xu = unit(x[s])
        cos = np.asarray(xu @ cu.T)
        own += float(np.sum(1.0 - cos[np.arange(cos.shape[0]), labels[s]]))
        nearest += float(np.sum(1.0 - cos.max(axis=1)))
    return dict(own=own, nearest=nearest, partition=partition_loss(unit(x), labels, c.shape[0]))


def partition_loss(xu: Points, labels: np.ndarray, k: int) -> float:
    """sum over clusters of (rows - |sum of their unit rows|): the loss of
    the labels with each centre the direction of its rows' sum."""
    return float(xu.shape[0] - np.linalg.norm(label_sums(xu, labels, k), axis=1).sum())


# --------------------------------------------------------------------------
# the contenders


def ours(**opts: Any) -> Fit:
    def fit(x: Points, k: int, seed: int) -> Tuple[np.ndarray, np.ndarray, Dict[str, Any]]:
        r = smartigan.cluster(x, k, seed=seed, **opts)
        return r.labels, r.centroids, dict(
            sweeps=int(r.n_sweeps), restarts=int(len(r.restart_objectives)), refinements=int(r.refinements),
            converged=bool(r.converged), reported=float(r.objective),
            schedule_start=None if r.schedule_start is None else float(r.schedule_start))
    return fit


def sklearn_default() -> Fit:
    def fit(x: Points, k: int, seed: int) -> Tuple[np.ndarray, np.ndarray, Dict[str, Any]]:
        from sklearn.cluster import KMeans
        km = KMeans(k, random_state=seed).fit(x)
        return km.labels_, km.cluster_centers_, dict(iterations=int(km.n_iter_))
    return fit


def faiss_spherical() -> Fit:
    def fit(x: Points, k: int, seed: int) -> Tuple[np.ndarray, np.ndarray, Dict[str, Any]]:
        import faiss
        x32 = np.ascontiguousarray(x, dtype=np.float32)
        # max_points_per_centroid = n: faiss never subsamples.
        km = faiss.Kmeans(x.shape[1], k, niter=25, spherical=True, seed=seed % 2**31,
                          max_points_per_centroid=x.shape[0])
        km.train(x32)
        _, lab = km.assign(x32)
        return lab.ravel().astype(np.int64), km.centroids, dict(iterations=25)
    return fit


@contextmanager
def numpy_aliases() -> Iterator[None]:
    """NumPy 1's ``np.int``, which soyclustering 0.2.0 still calls (NumPy 2
    removed it), for the length of one fit."""
    added = not hasattr(np, "int")
    if added:
        np.int = int  # type: ignore[attr-defined]
    try:
        yield
    finally:
        if added:
            del np.int  # type: ignore[attr-defined]


def have_soyclustering() -> bool:
    try:
        with numpy_aliases():
            import soyclustering  # noqa: F401
        return True
    except ImportError:
        return False


def soyclustering_default() -> Fit:
    def fit(x: Points, k: int, seed: int) -> Tuple[np.ndarray, np.ndarray, Dict[str, Any]]:
        import warnings
        with numpy_aliases(), warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # its use of a deprecated scikit-learn helper
            from soyclustering import SphericalKMeans
            m = SphericalKMeans(n_clusters=k, random_state=seed).fit(x)
        return np.asarray(m.labels_), np.asarray(m.cluster_centers_), {}
    return fit


def timed(fit: Fit, x: Points, k: int, seed: int) -> Dict[str, Any]:
    t0 = time.perf_counter()
    labels, centres, extra = fit(x, k, seed)
    spent = time.perf_counter() - t0
    return dict(time=spent, seed=seed, **spherical_scores(x, labels, centres), **extra)


def summary(runs: List[Dict[str, Any]]) -> Dict[str, Any]:
    out: Dict[str, Any] = {key: median(r[key] for r in runs) for key in ("time", "own", "nearest", "partition")}
    out["runs"] = runs
    return out


def compare(x: Points, k: int, contenders: List[Tuple[str, Fit]], turns: int, seed: int,
            log: Callable[[str], None], save: Callable[[Dict[str, Any]], None],
            after_first: Optional[Callable[[Dict[str, Any]], None]] = None) -> Dict[str, Any]:
    """Every contender once a turn, the order rotated from turn to turn;
    `save` gets the cell after every turn (what a stopped run leaves), and
    `after_first` may add to the cell after the first turn."""
    runs: Dict[str, List[Dict[str, Any]]] = {name: [] for name, _ in contenders}
    loads: List[float] = []
    cell: Dict[str, Any] = {}
    for turn in range(turns):
        shift = turn % len(contenders)
        for name, fit in contenders[shift:] + contenders[:shift]:
            loads.append(os.getloadavg()[0])
            r = timed(fit, x, k, seed + turn)
            runs[name].append(r)
            log(f"  turn {turn}: {name}: {r['time']:.2f} s, own {r['own']:.6g}, nearest {r['nearest']:.6g}")
        extra = {key: cell[key] for key in cell if key not in ("turns", "load", "contenders")}
        cell = dict(turns=turn + 1, load=dict(min=min(loads), max=max(loads), median=median(loads)),
                    contenders={name: summary(rs) for name, rs in runs.items() if rs}, **extra)
        if turn == 0 and after_first is not None:
            after_first(cell)
        save(cell)
    return cell


# --------------------------------------------------------------------------
# parts


def profile_default(x: np.ndarray, k: int, seed: int, reference: Dict[str, Any]) -> Dict[str, Any]:
    """The default's one restart (one, as the default ran on W5: its budget
    buys a single restart there) stepped by hand: the k-means++ start (the
    Run's construction), then every sweep or refinement step timed alone;
    and scikit-learn's k-means++ start on the same rows."""
    params = _params.core_params(k=k, metric="cosine", seed=seed, n_init=1)
    t0 = time.perf_counter()
    run = _core.Run(x, params)
    start = time.perf_counter() - t0
    steps: List[float] = []
    while True:
        t0 = time.perf_counter()
        going = run.step()
        steps.append(time.perf_counter() - t0)
        if not going:
            break
    r = run.current()
    from sklearn.cluster import kmeans_plusplus
    t0 = time.perf_counter()
    kmeans_plusplus(np.asarray(x), k, random_state=seed)
    sk_start = time.perf_counter() - t0
    return dict(seed=seed, start=start, steps=steps, objective=float(r.objective), n_sweeps=int(r.n_sweeps),
                refinements=int(r.refinements), same_as_default=bool(float(r.objective) == reference.get("reported")),
                sklearn_start=sk_start, load=os.getloadavg()[0])


def part_a(scale: float, k: int, turns: int, seed: int, log: Callable[[str], None],
           save: Callable[[Dict[str, Any]], None]) -> Dict[str, Any]:
    spec, x = w5(scale, k, seed)
    xn = np.ascontiguousarray(unit(x).astype(np.float32))  # the L2-normalised rows scikit-learn gets
    contenders: List[Tuple[str, Fit]] = [("smartigan cosine default", ours(metric="cosine")),
                                         ("scikit-learn KMeans(k)", sklearn_default())]
    if have_faiss():
        contenders.append(("faiss spherical, 25 iterations", faiss_spherical()))
    contenders.append(("smartigan euclidean default", ours()))
    head = dict(n=int(x.shape[0]), d=int(x.shape[1]), k=k, dtype=str(x.dtype), faiss=have_faiss())
    log(f"a: W5 n={x.shape[0]} k={k}")

    def profile(cell: Dict[str, Any]) -> None:
        # After the first turn, so that a run stopped before its last turn has it.
        first = cell["contenders"]["smartigan cosine default"]["runs"][0]
        log("a: profile of the default's restart")
        cell["profile"] = p = profile_default(xn, k, first["seed"], first)
        log(f"  k-means++ {p['start']:.2f} s, {len(p['steps'])} steps {sum(p['steps']):.2f} s, "
            f"scikit-learn's k-means++ {p['sklearn_start']:.2f} s")

    cell = compare(xn, k, contenders, turns, seed, log, lambda c: save(dict(head, **c)), profile)
    out = dict(head, **cell)
    save(out)
    return out


def part_b(n_docs: int, n_terms: int, k: int, turns: int, seed: int, log: Callable[[str], None],
           save: Callable[[Dict[str, Any]], None]) -> Dict[str, Any]:
    t0 = time.perf_counter()
    x = make_corpus(n_docs, n_terms, k, seed)
    made = time.perf_counter() - t0
    per_doc = np.diff(x.indptr)
    head = dict(n=n_docs, d=n_terms, k=k, nnz=int(x.nnz), terms_per_doc=[int(per_doc.min()), int(per_doc.max())],
                columns_used=int(np.unique(x.indices).size), generated_s=made,
                soyclustering=have_soyclustering())
    log(f"b: corpus {n_docs} x {n_terms}, nnz {x.nnz}, generated in {made:.1f} s")
    from sklearn.cluster import KMeans
    KMeans(min(k, 10), random_state=seed).fit(x[:2000])  # start scikit-learn's thread pools
    contenders: List[Tuple[str, Fit]] = [("smartigan cosine default", ours(metric="cosine")),
                                         ("scikit-learn KMeans(k)", sklearn_default())]
    if head["soyclustering"]:
        contenders.append(("soyclustering SphericalKMeans", soyclustering_default()))
    contenders.append(("smartigan euclidean default", ours()))
    cell = compare(x, k, contenders, turns, seed, log, lambda c: save(dict(head, **c)))
    out = dict(head, **cell)
    save(out)
    return out


def move_deltas(xu: np.ndarray, labels: np.ndarray, k: int) -> Dict[str, Any]:
    """The exact change of the spherical loss sum_j (W_j - |s_j|) for moving
    each row to each other cluster (unit weights), float64, in chunks.

    Moving a unit row x from a to b changes the loss by
    (|s_a| - |s_a - x|) + (|s_b| - |s_b + x|); each difference of norms is
    written as (difference of squares) / (sum of norms), which does not
    cancel when |s| is large:
    |s_a| - |s_a - x| = (2 x.s_a - 1) / (|s_a| + |s_a - x|),
    |s_b| - |s_b + x| = -(2 x.s_b + 1) / (|s_b| + |s_b + x|).
    """
    sums = label_sums(xu, labels, k)
    norm = np.linalg.norm(sums, axis=1)
    lowest, where, improving, tiny = np.inf, (-1, -1), 0, 0
    for s in chunks(xu.shape[0], 4096):
        g = xu[s] @ sums.T
        rows = np.arange(g.shape[0])
        a = labels[s]
        ga = g[rows, a]
        leave = (2.0 * ga - 1.0) / (norm[a] + np.sqrt(np.maximum(norm[a] ** 2 - 2.0 * ga + 1.0, 0.0)))
        join = -(2.0 * g + 1.0) / (norm[None, :] + np.sqrt(norm[None, :] ** 2 + 2.0 * g + 1.0))
        delta = leave[:, None] + join
        delta[rows, a] = np.inf  # staying is no move
        improving += int(np.count_nonzero(delta < 0.0))
        tiny += int(np.count_nonzero(delta < -1e-9))
        i, j = np.unravel_index(np.argmin(delta), delta.shape)
        if delta[i, j] < lowest:
            lowest, where = float(delta[i, j]), (int(s.start + i), int(j))
    return dict(lowest_delta=lowest, lowest_at=where, improving_moves=improving, improving_below_1e9=tiny,
                loss=float(xu.shape[0] - norm.sum()))


def part_c(scale: float, k: int, seed: int, log: Callable[[str], None]) -> Dict[str, Any]:
    spec, x = w5(scale, k, seed)
    xu = unit(x)
    out: Dict[str, Any] = dict(n=int(x.shape[0]), d=int(x.shape[1]), k=k, dtype=str(x.dtype), runs={})
    for label, opts in (("tol='auto' (default)", {}), ("tol=0", dict(tol=0.0))):
        t0 = time.perf_counter()
        r = smartigan.cluster(x, k, method="hartigan", n_init=1, metric="cosine", seed=seed, **opts)
        spent = time.perf_counter() - t0
        check = move_deltas(xu, r.labels, k)
        out["runs"][label] = dict(time=spent, converged=bool(r.converged), n_sweeps=int(r.n_sweeps),
                                  refinements=int(r.refinements), reported=float(r.objective),
                                  empty_clusters=int(np.count_nonzero(np.bincount(r.labels, minlength=k) == 0)),
                                  **check)
        log(f"c: {label}: converged {r.converged}, {r.n_sweeps} sweeps, {spent:.1f} s, loss {check['loss']:.9g} "
            f"(reported {r.objective:.9g}), improving moves {check['improving_moves']}, "
            f"lowest delta {check['lowest_delta']:.3g}")
    out["auto_tol"] = _params.auto_tol(x.shape[0], x.shape[1], k)
    return out


def part_d(cells: Optional[List[Tuple[str, int]]], seeds: int, restarts: int, log: Callable[[str], None],
           save: Callable[[Dict[str, Any]], None]) -> Dict[str, Any]:
    from sklearn.cluster import KMeans
    if cells is None:
        cells = [(name, k) for name, spec in PAPER_TABLES.items() for k in spec["ks"]]
    out: Dict[str, Any] = dict(seeds=seeds, restarts=restarts, cells={})
    for name, k in cells:
        x = load_paper(name)
        xu = unit(x)

        def loss(labels: np.ndarray) -> float:
            return partition_loss(xu, labels, k)

        defaults = []
        for s in range(seeds):
            t0 = time.perf_counter()
            r = smartigan.cluster(x, k, metric="cosine", seed=s)
            defaults.append(dict(seed=s, loss=loss(r.labels), time=time.perf_counter() - t0,
                                 restarts=int(len(r.restart_objectives))))
        search = {}
        for method in ("lloyd", "hartigan", "smartigan"):
            t0 = time.perf_counter()
            r = smartigan.cluster(x, k, method=method, metric="cosine", n_init=restarts, seed=1000)
            search[method] = dict(loss=loss(r.labels), time=time.perf_counter() - t0)
        workaround = {}
        for s in range(seeds):
            for label, labels, centres in (
                    ("scikit-learn KMeans(k) on unit rows", *_sk_labels(KMeans, xu, k, s)),
                    ("smartigan euclidean default on unit rows", *_our_labels(xu, k, s))):
                sc = spherical_scores(xu, labels, centres)
                workaround.setdefault(label, []).append(dict(seed=s, own=sc["own"], partition=sc["partition"]))
        best = min([d["loss"] for d in defaults] + [v["loss"] for v in search.values()])
        out["cells"][f"{name} k={k}"] = dict(data=name, k=k, n=int(x.shape[0]), d=int(x.shape[1]), best=best,
                                             defaults=defaults, search=search, workaround=workaround)
        worst = max(d["loss"] for d in defaults)
        log(f"d: {name} k={k}: best {best:.6g}, default worst {100 * (worst / best - 1):.4f} %")
        save(out)
    return out


def _sk_labels(kmeans: Any, xu: np.ndarray, k: int, seed: int) -> Tuple[np.ndarray, np.ndarray]:
    m = kmeans(k, random_state=seed).fit(xu)
    return m.labels_, m.cluster_centers_


def _our_labels(xu: np.ndarray, k: int, seed: int) -> Tuple[np.ndarray, np.ndarray]:
    r = smartigan.cluster(xu, k, seed=seed)
    return r.labels, r.centroids


# --------------------------------------------------------------------------
# report


def pct(value: float, best: float) -> str:
    return "0" if value == best else f"{100 * (value / best - 1):+.3f} %"


def render_compare(title: str, cell: Dict[str, Any], note: str) -> List[str]:
    c = cell["contenders"]
    ours_ = c["smartigan cosine default"]
    sk = c["scikit-learn KMeans(k)"]
    lines = [f"### {title}", "",
             f"n = {cell['n']:,}, d = {cell['d']:,}, k = {cell['k']}; {cell['turns']} turn(s), medians; "
             f"1-minute load average during the cell {cell['load']['min']:.1f}–{cell['load']['max']:.1f} "
             f"(median {cell['load']['median']:.1f}). {note}", "",
             "| contender | time (s) | × scikit-learn's time | own (loss) | own vs ours | nearest | partition | notes |",
             "|---|---:|---:|---:|---:|---:|---:|---|"]
    for name, v in c.items():
        r0 = v["runs"][0]
        notes = []
        if "sweeps" in r0:
            notes.append("sweeps " + "/".join(str(r["sweeps"]) for r in v["runs"]))
            notes.append("restarts " + "/".join(str(r["restarts"]) for r in v["runs"]))
            notes.append("refinements " + "/".join(str(r["refinements"]) for r in v["runs"]))
        if "iterations" in r0:
            notes.append("iterations " + "/".join(str(r["iterations"]) for r in v["runs"]))
        times = ", ".join(f"{r['time']:.1f}" for r in v["runs"])
        lines.append(f"| {name} | {v['time']:.2f} ({times}) | {v['time'] / sk['time']:.2f} | {v['own']:.6g} | "
                     f"{pct(v['own'], ours_['own'])} | {v['nearest']:.6g} | {v['partition']:.6g} | "
                     f"{'; '.join(notes)} |")
    lines.append("")
    return lines


def render_profile(cell: Dict[str, Any]) -> List[str]:
    p = cell["profile"]
    ours_ = cell["contenders"]["smartigan cosine default"]
    sk = cell["contenders"]["scikit-learn KMeans(k)"]
    steps = p["steps"]
    total = p["start"] + sum(steps)
    first = steps[0] if steps else 0.0
    rest = sorted(steps[1:]) if len(steps) > 1 else [0.0]
    sk_iters = median(r["iterations"] for r in sk["runs"])
    return [
        f"Where the default's time goes (its restart, seed {p['seed']}, stepped by hand at load "
        f"{p['load']:.1f}; the result {'equals' if p['same_as_default'] else 'differs from'} the timed "
        f"default fit's): k-means++ start **{p['start']:.2f} s** ({100 * p['start'] / total:.0f} %), "
        f"{len(steps)} steps (sweeps, polish and refinement steps; the result counts {p['n_sweeps']} sweeps "
        f"and {p['refinements']} refinements) **{sum(steps):.2f} s** ({100 * sum(steps) / total:.0f} %): "
        f"the first {first:.2f} s, the others median {median(rest):.2f} s. Total {total:.2f} s against the "
        f"timed fit's median {ours_['time']:.2f} s. scikit-learn's own k-means++ on the same rows: "
        f"{p['sklearn_start']:.2f} s; its fit ran a median of {sk_iters:g} Lloyd iterations in "
        f"{sk['time']:.2f} s" + (
            f", so about {(sk['time'] - p['sklearn_start']) / max(sk_iters, 1):.2f} s per iteration."
            if sk["time"] > p["sklearn_start"] else
            " (less than its start alone took here: the host's load, not a cost that can be split)."), ""]


def render(report: Dict[str, Any]) -> str:
    m = report["machine"]
    parts = report["parts"]
    lines = ["# Spherical k-means (metric=\"cosine\") against its peers (issue 60)", "",
             f"Command: `{report['command']}`. Host: {m['cpu']}, {m['cores']} cores shared with other jobs; "
             f"Python {m['python']}, {report['versions']}. Code measured: {report.get('commit', 'not recorded')}. "
             "Each part below states when it ran and the load average during it. Losses are recomputed from "
             "each tool's labels and centres in float64 on the rows scaled to unit length: *own* = sum of "
             "1 - cos(row, its own centre scaled to unit length), *nearest* = the same with every row at the "
             "centre of largest cosine, *partition* = the spherical loss of the labels with their best centres. "
             "Targets are compared on *own*; times are medians of the turns, each contender once a turn in a "
             "rotating order.", ""]
    for key, title in (("a-quarter", "(a) W5, a quarter: 25,000 rows"), ("a-full", "(a) W5: 100,000 rows")):
        if key in parts:
            cell = parts[key]
            lines += render_compare(title, cell, f"Ran {cell.get('when', '?')}.")
            if "profile" in cell:
                lines += render_profile(cell)
            lines += targets_a(cell)
    if "b" in parts:
        cell = parts["b"]
        soy = ("soyclustering 0.2.0 (its defaults: `similar_cut` start, 10 iterations; one thread) with NumPy 1's "
               "`np.int` restored for its one use" if cell.get("soyclustering") else "soyclustering did not import")
        lines += render_compare(
            "(b) TF-IDF-like sparse corpus", cell,
            f"Ran {cell.get('when', '?')}. {cell['nnz']:,} nonzeros, {cell['terms_per_doc'][0]}–"
            f"{cell['terms_per_doc'][1]} terms a document, {cell['columns_used']:,} terms used; CSR float64. "
            f"{soy}. spherecluster: see the notes.")
        ours_ = cell["contenders"]["smartigan cosine default"]
        sk = cell["contenders"]["scikit-learn KMeans(k)"]
        lines += [f"Default against scikit-learn: time × {ours_['time'] / sk['time']:.2f}, loss (own) "
                  f"{pct(ours_['own'], sk['own'])} relative to scikit-learn's.", ""]
    if "c" in parts:
        c = parts["c"]
        lines += ["### (c) One Hartigan restart ends at a spherical local optimum", "",
                  f"W5's recipe, n = {c['n']:,}, k = {c['k']}, `method=\"hartigan\", n_init=1, metric=\"cosine\"`; "
                  f"every row's move to each of the other {c['k'] - 1} clusters evaluated exactly in float64 "
                  f"(`move_deltas`). `tol=\"auto\"` is {c['auto_tol']:g} at this size. Ran {c.get('when', '?')}.", "",
                  "| run | converged | sweeps | refinements | time (s) | loss (recomputed) | reported | "
                  "moves that lower the loss | of them by more than 1e-9 | lowest change |",
                  "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for label, r in c["runs"].items():
            lines.append(f"| {label} | {r['converged']} | {r['n_sweeps']} | {r['refinements']} | {r['time']:.1f} | "
                         f"{r['loss']:.9g} | {r['reported']:.9g} | {r['improving_moves']} | "
                         f"{r['improving_below_1e9']} | {r['lowest_delta']:.3g} |")
        lines.append("")
    if "d" in parts:
        lines += render_d(parts["d"])
    lines += ["## Targets", ""] + [f"- {t}" for t in report.get("verdicts", [])] + [""]
    return "\n".join(lines)


def targets_a(cell: Dict[str, Any]) -> List[str]:
    c = cell["contenders"]
    ours_ = c["smartigan cosine default"]
    out = []
    for peer in ("scikit-learn KMeans(k)", "faiss spherical, 25 iterations"):
        if peer in c:
            v = c[peer]
            out.append(f"loss below {peer}'s: {'yes' if ours_['own'] < v['own'] else 'NO'} "
                       f"({ours_['own']:.6g} against {v['own']:.6g}, {pct(ours_['own'], v['own'])}; against "
                       f"its nearest-centre score {pct(ours_['own'], v['nearest'])})")
    ratio = ours_["time"] / c["scikit-learn KMeans(k)"]["time"]
    out.append(f"time at most scikit-learn's: {'yes' if ratio <= 1 else 'NO'} (× {ratio:.2f})")
    return ["Targets of this cell: " + "; ".join(out) + ".", ""]


def render_d(d: Dict[str, Any]) -> List[str]:
    lines = ["### (d) Small data: the default against the best of 100 restarts", "",
             f"The paper's data sets, raw features, cosine loss (partition loss of the labels). Default: "
             f"`cluster(X, k, metric=\"cosine\", seed=s)` for s = 0..{d['seeds'] - 1}; the best: the lowest of "
             f"those and of `n_init={d['restarts']}` with each method. Workaround (e): the rows scaled to unit "
             "length, then Euclidean k-means, scored by its own centres scaled to unit length (*own*) and by "
             f"its partition; worst of the seeds. Ran {d.get('when', '?')}.", "",
             "| cell | best loss | found by | default: worst excess | median excess | restarts (median) | "
             "time (median, ms) | scikit-learn on unit rows: own / partition (worst) | smartigan euclidean on unit "
             "rows: own / partition (worst) |",
             "|---|---:|---|---:|---:|---:|---:|---:|---:|"]
    for key, c in d["cells"].items():
        best = c["best"]
        # Ties up to rounding: the same partition summed in another order.
        finders = [m for m, v in c["search"].items() if v["loss"] <= best * (1 + 1e-12)]
        if any(x["loss"] <= best * (1 + 1e-12) for x in c["defaults"]):
            finders.append("default")
        ex = [100 * (x["loss"] / best - 1) for x in c["defaults"]]
        wk = c["workaround"]
        sk = wk["scikit-learn KMeans(k) on unit rows"]
        eu = wk["smartigan euclidean default on unit rows"]
        lines.append(
            f"| {key} | {best:.6g} | {', '.join(finders) or '-'} | {max(ex):.4f} % | {median(ex):.4f} % | "
            f"{median(x['restarts'] for x in c['defaults']):g} | {1000 * median(x['time'] for x in c['defaults']):.1f} | "
            f"{pct(max(x['own'] for x in sk), best)} / {pct(max(x['partition'] for x in sk), best)} | "
            f"{pct(max(x['own'] for x in eu), best)} / {pct(max(x['partition'] for x in eu), best)} |")
    lines.append("")
    return lines


def verdicts(parts: Dict[str, Any]) -> List[str]:
    out = []
    for key in ("a-quarter", "a-full", "b"):
        if key in parts:
            out.append(f"({key[0]}) {key}: " + targets_a(parts[key])[0])
    if "c" in parts:
        for label, r in parts["c"]["runs"].items():
            ok = r["converged"] and r["improving_moves"] == 0
            out.append(f"(c) {label}: {'local optimum' if ok else 'NOT a local optimum'} (converged "
                       f"{r['converged']}, {r['improving_moves']} improving moves, lowest change "
                       f"{r['lowest_delta']:.3g})")
    if "d" in parts:
        worst = max(100 * (x["loss"] / c["best"] - 1) for c in parts["d"]["cells"].values() for x in c["defaults"])
        out.append(f"(d) default within 0.1 % of the best of the restarts on every cell and seed: "
                   f"{'yes' if worst <= 0.1 else 'NO'} (worst {worst:.4f} %)")
    return out


# --------------------------------------------------------------------------


def commit() -> str:
    import subprocess
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True,
                              text=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "../src", "../python"], cwd=HERE,
                               capture_output=True, text=True).stdout.strip()
        return head + (" (with uncommitted changes to the library)" if dirty else "")
    except OSError:
        return "not recorded"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small sizes, a smoke check (writes benches/out/)")
    ap.add_argument("--parts", default=",".join(PARTS), help=f"comma-separated, of {', '.join(PARTS)}")
    ap.add_argument("--turns", type=int, default=3, help="turns of the big cells (a, b)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=None, help="the report (.md; its .json beside it)")
    ap.add_argument("--render", type=Path, default=None, help="re-render this JSON without measuring")
    args = ap.parse_args()

    size = SIZES["quick" if args.quick else "full"]
    out = args.out or (HERE / "out" / "cosine-quick.md" if args.quick else HERE / "results" / "cosine-2core.md")
    out.parent.mkdir(parents=True, exist_ok=True)
    jpath = out.with_suffix(".json")
    if args.render:
        report = json.loads(args.render.read_text())
        report["verdicts"] = verdicts(report["parts"])
        out.write_text(render(report))
        return
    report = json.loads(jpath.read_text()) if jpath.exists() and not args.quick else {"parts": {}}
    import sklearn
    versions = f"smartigan {smartigan.__version__}, scikit-learn {sklearn.__version__}, NumPy {np.__version__}"
    if have_faiss():
        import faiss
        versions += f", faiss {faiss.__version__}"
    report.update(machine=this_machine(), versions=versions, commit=commit(),
                  command="python benches/cosine.py " + " ".join(sys.argv[1:]))

    def write() -> None:
        report["verdicts"] = verdicts(report["parts"])
        jpath.write_text(json.dumps(report, indent=1))
        out.write_text(render(report))

    def log(msg: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')} load {os.getloadavg()[0]:.1f}] {msg}", flush=True)

    def saver(key: str) -> Callable[[Dict[str, Any]], None]:
        stamp = time.strftime("%Y-%m-%d %H:%M")

        def save(cell: Dict[str, Any]) -> None:
            report["parts"][key] = dict(cell, when=stamp)
            write()
        return save

    for part in [p.strip() for p in args.parts.split(",") if p.strip()]:
        if part not in PARTS:
            sys.exit(f"--parts: unknown part {part!r} (one of {', '.join(PARTS)})")
        save = saver(part)
        if part == "c":
            save(part_c(size["check_scale"], size["check_k"], args.seed, log))
        elif part == "d":
            part_d(size["paper_cells"], size["paper_seeds"], size["paper_restarts"], log, save)
        elif part == "a-quarter":
            part_a(size["w5_quarter"], size["w5_k"], args.turns, args.seed, log, save)
        elif part == "a-full":
            part_a(size["w5_full"], size["w5_k"], args.turns, args.seed, log, save)
        elif part == "b":
            part_b(size["docs"], size["terms"], size["doc_k"], args.turns, args.seed, log, save)
    write()
    print(f"wrote {out} and {jpath}")


if __name__ == "__main__":
    main()
