"""What the workers run: one function per kind of pass, applied to one block.

Every function here takes one row block ``x`` of the data (a NumPy array),
its weights ``w`` (or ``None`` for unit weights), the block's position
(``index``, ``offset`` = global index of its first row) and small arguments
from the client (centres, seeds). It returns small NumPy results that the
client combines *in block order*, so the outcome does not depend on how many
workers or threads ran the blocks, or in which order they finished.

With ``metric="cosine"`` the rows are first scaled to unit length
(:func:`unit_rows`, mapped over the blocks), and every pass then works on
those unit rows: labels by the largest cosine, and each row's loss
``1 - cos = ||u - c||^2 / 2`` against unit centres, so that k-means||
draws by the spherical k-means++ distance and the coreset by the spherical
loss.

Determinism within a block: labels come from the Rust kernel (exact float64
distances, ties to the lowest index); per-row squared distances are summed
over the features by NumPy's reduction along a contiguous axis, whose order is
fixed by the index; per-cluster sums come from ``np.bincount``, which adds in
row order; block costs are ``math.fsum`` (correctly rounded, so independent of
any order). Random draws use a generator seeded by ``(seed, phase, round,
block index)``, never by the worker.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
import numpy.typing as npt

from .._arrays import check_weight_values
from . import _kernels

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
Block = npt.NDArray[Any]

# Rows converted to float64 at a time when measuring distances: bounds the
# temporary memory of a task by this many rows, whatever the chunk size.
DISTANCE_BATCH_ROWS = 65_536


def as_block(x: Any, w: Optional[Any], index: int, offset: int) -> Tuple[Block, Optional[F64]]:
    """The block as a C-contiguous float array and its weights, checked.

    Raises ValueError naming ``X`` (or ``sample_weight``), the first bad row
    and the block, for NaN/infinite data or NaN/infinite/negative weights.
    """
    block = np.ascontiguousarray(x)
    if block.ndim != 2:
        raise ValueError(f"X: block {index} has shape {block.shape}; expected a 2-d block of rows")
    if block.dtype not in (np.float32, np.float64):
        block = block.astype(np.float64)
    check_finite(block, index, offset)
    weights = None if w is None else check_weights(w, index, offset, block.shape[0])
    return block, weights


def check_finite(block: Block, index: int, offset: Optional[int]) -> None:
    """ValueError naming the first row of ``block`` with NaN or infinity: its
    global row (``offset`` is the block's first row), or, where the rows
    before the block are not counted (unknown chunk sizes), its row within
    block ``index``."""
    bad = ~np.isfinite(block).all(axis=1)
    if not bad.any():
        return
    row = int(np.flatnonzero(bad)[0])
    value = float(block[row][~np.isfinite(block[row])][0])
    if offset is None:
        where = (f"row {row} of block {index} (the global row is not known: the blocks' lengths are unknown; "
                 "call X.compute_chunk_sizes() to have it)")
    else:
        where = f"row {offset + row} (block {index}, rows {offset}..{offset + block.shape[0]})"
    raise ValueError(f"X contains NaN or infinity: {where}, value {value!r}")


def check_directions(block: Block, index: int, offset: Optional[int]) -> None:
    """ValueError naming the first row of ``block`` of length zero, which
    ``metric="cosine"`` cannot cluster or label (it has no direction), by its
    global row as :func:`check_finite` names rows."""
    zero = ~np.any(block != 0, axis=1)
    if not zero.any():
        return
    row = int(np.flatnonzero(zero)[0])
    if offset is None:
        where = (f"row {row} of block {index} (the global row is not known: the blocks' lengths are unknown; "
                 "call X.compute_chunk_sizes() to have it)")
    else:
        where = f"row {offset + row} (block {index}, rows {offset}..{offset + block.shape[0]})"
    raise ValueError(f"invalid X: a row of length zero at {where} (metric='cosine' needs every row to have a "
                     "positive length (drop or fill empty rows))")


def unit_rows(x: Any, block_info: Optional[Dict[Any, Any]] = None) -> Block:
    """The block's rows scaled to unit length, in its dtype (for ``map_blocks``,
    which passes ``block_info``): ``ValueError`` naming the global row for
    NaN or infinity, or for a row of length zero.

    Each row is divided by its largest magnitude, then by its length in
    float64, so that squaring huge or tiny entries neither overflows nor
    vanishes; the rows come out unit to the rounding of the dtype.
    """
    index, offset = _position(block_info)
    block = np.asarray(x)
    check_finite(block, index, offset)
    check_directions(block, index, offset)
    if block.shape[0] == 0:
        return np.ascontiguousarray(block)
    scaled = block.astype(np.float64)
    scaled /= np.max(np.abs(scaled), axis=1)[:, None]
    scaled /= np.sqrt(np.einsum("ij,ij->i", scaled, scaled))[:, None]
    return np.ascontiguousarray(scaled, dtype=block.dtype)


def _position(block_info: Optional[Dict[Any, Any]]) -> Tuple[int, Optional[int]]:
    """The block's index and first global row from ``map_blocks``' ``block_info``
    (None: one block, the whole array; a first row that is NaN: unknown)."""
    if not block_info:
        return 0, 0
    info = block_info[0]
    start = info["array-location"][0][0]
    return int(info["chunk-location"][0]), None if math.isnan(start) else int(start)


def check_weights(w: Any, index: int, offset: int, n_rows: Optional[int] = None) -> F64:
    """``w`` as float64, or ValueError for a length other than ``n_rows`` or for
    a weight that is NaN, infinite or negative (named with its row and block,
    as :func:`smartigan._arrays.check_weight_values` names it)."""
    weights = np.ascontiguousarray(w, dtype=np.float64)
    if n_rows is not None and weights.shape != (n_rows,):
        raise ValueError(
            f"sample_weight: block {index} has shape {weights.shape}, but X's block {index} has {n_rows} rows"
        )
    return check_weight_values(weights, first_row=offset, block=index)


def weight_totals(w: Any, index: int, offset: int) -> Tuple[float, int, float, float, float]:
    """Total weight, number of positive weights, largest weight, and the sum
    and the sum of squares of the weights divided by the largest (0 and 0
    where every weight is 0) in a block of ``sample_weight``.

    The sums of the scaled weights give the effective number of points
    whatever the weights' scale: the squares of weights such as 1e-200
    underflow to 0, and of 1e200 overflow, where those of the scaled
    weights lie in [0, 1]."""
    weights = check_weights(w, index, offset)
    largest = float(weights.max()) if weights.size else 0.0
    scaled = weights / largest if largest > 0 else np.zeros_like(weights)
    return (math.fsum(weights), int(np.count_nonzero(weights)), largest, math.fsum(scaled),
            math.fsum(scaled * scaled))


def row_at(x: Any, w: Optional[Any], index: int, offset: int, position: float) -> Block:
    """The row of the block at ``position``: a row index, or with weights the row
    whose cumulative-weight interval contains ``position`` (in ``[0, total)``)."""
    block, weights = as_block(x, w, index, offset)
    if weights is None:
        row = min(int(position), block.shape[0] - 1)
    else:
        cumulative = np.cumsum(weights)
        row = int(np.searchsorted(cumulative, position, side="right"))
        row = min(row, block.shape[0] - 1)
        while weights[row] == 0 and row > 0:  # rounding at the top end: step back to a positive weight
            row -= 1
    return np.array(block[row])


def nearest_loss(block: Block, centres: Block, metric: str) -> Tuple[I64, F64]:
    """Nearest centre of each row and the row's loss there, in float64: the
    squared distance, or with ``metric="cosine"`` (unit rows and centres)
    ``1 - cos``, as half the squared distance (which, unlike ``1 - u.c``,
    keeps its digits for rows close to their centre)."""
    labels = _kernels.nearest(block, centres, metric)
    wide = centres.astype(np.float64)
    dist = np.empty(block.shape[0], dtype=np.float64)
    for start in range(0, block.shape[0], DISTANCE_BATCH_ROWS):
        stop = min(start + DISTANCE_BATCH_ROWS, block.shape[0])
        diff = block[start:stop].astype(np.float64)
        diff -= wide[labels[start:stop]]
        np.square(diff, out=diff)
        dist[start:stop] = diff.sum(axis=1)
    if metric == "cosine":
        dist *= 0.5
    return labels, dist


def _weighted(dist: F64, weights: Optional[F64]) -> F64:
    return dist if weights is None else dist * weights


def assignment_totals(
    x: Any, w: Optional[Any], index: int, offset: int, centres: Block, with_sums: bool, metric: str
) -> Tuple[float, F64, Optional[F64]]:
    """One Lloyd-style pass over a block.

    Returns the block's cost (weighted loss at the nearest centre, see
    :func:`nearest_loss`), the weight each centre attracts, and
    (``with_sums``) the weighted sum of the rows each centre attracts,
    shape (k, d).
    """
    block, weights = as_block(x, w, index, offset)
    k = centres.shape[0]
    labels, dist = nearest_loss(block, centres, metric)
    cost = math.fsum(_weighted(dist, weights))
    attracted = np.bincount(labels, weights=weights, minlength=k).astype(np.float64)
    sums = None
    if with_sums:
        sums = np.empty((k, block.shape[1]), dtype=np.float64)
        for feature in range(block.shape[1]):
            column = block[:, feature].astype(np.float64)
            if weights is not None:
                column *= weights
            sums[:, feature] = np.bincount(labels, weights=column, minlength=k)
    return cost, attracted, sums


def kmeans_parallel_round(
    x: Any, w: Optional[Any], index: int, offset: int, centres: Block, n_draws: int, metric: str, entropy: List[int]
) -> Tuple[F64, I64, Block, float]:
    """This block's share of one k-means|| sampling round.

    k-means|| draws rows with probability proportional to ``w·d²(x, C)``
    (``metric="cosine"``: to ``w·(1 - cos)``, i.e. ``d²/2`` between unit rows).
    Here that is weighted sampling without replacement of ``n_draws`` rows
    by exponential keys (Efraimidis & Spirakis): each row gets the key
    ``log(u)/(w·d²)`` and the rows with the largest keys over *all* blocks
    form the sample, so each block only needs to send its own best
    ``n_draws``; the client keeps the global best. Rows at distance 0 (the
    candidates themselves) are never drawn. Returns keys, global row
    indices, the rows, and the block's cost.
    """
    block, weights = as_block(x, w, index, offset)
    _, dist = nearest_loss(block, centres, metric)
    mass = _weighted(dist, weights)
    cost = math.fsum(mass)
    rng = np.random.default_rng(entropy)
    uniform = rng.random(size=(block.shape[0],))
    keys = np.full(block.shape[0], -np.inf)
    positive = mass > 0
    # log(u) <= 0, so larger keys are nearer 0: rows with much mass win.
    keys[positive] = np.log(uniform[positive]) / mass[positive]
    n_keep = min(n_draws, int(np.count_nonzero(positive)))
    if n_keep == 0:
        return np.zeros(0), np.zeros(0, dtype=np.int64), block[:0].copy(), cost
    top = np.argpartition(-keys, n_keep - 1)[:n_keep] if n_keep < block.shape[0] else np.arange(block.shape[0])
    top = top[np.isfinite(keys[top])]
    top.sort()
    return keys[top], top.astype(np.int64) + offset, block[top].copy(), cost


def sensitivity_probabilities(
    dist: F64, labels: I64, weights: Optional[F64], total_cost: float, cluster_weights: F64, n_nonempty: int
) -> F64:
    """Each row's probability of being drawn for the coreset, before the block's share.

    The sensitivity bound of Feldman & Langberg for a solution A:
    ``p(x) = ½·w·d²(x, A)/cost(A) + ½·w/(|A|·W(cluster of x))``; the two
    halves each sum to ½ over the whole data, so the p(x) sum to 1.
    """
    w = np.ones_like(dist) if weights is None else weights
    uniform_part = w / (n_nonempty * cluster_weights[labels])
    if total_cost > 0:
        return 0.5 * (w * dist / total_cost) + 0.5 * uniform_part
    return uniform_part


def sensitivity_sample(
    x: Any,
    w: Optional[Any],
    index: int,
    offset: int,
    centres: Block,
    total_cost: float,
    cluster_weights: F64,
    n_nonempty: int,
    metric: str,
    n_draws: int,
    coreset_size: int,
    entropy: List[int],
) -> Tuple[Block, F64, I64]:
    """This block's ``n_draws`` of the coreset's ``coreset_size`` draws.

    The client drew how many of the draws fall in each block (multinomial by
    the blocks' total probabilities); here they are drawn within the block
    proportionally to ``p(x)``. A row drawn with probability ``p`` per draw
    gets weight ``w/(coreset_size·p)``, so the coreset's weighted cost is an
    unbiased estimate of the full cost of any set of centres.
    Returns the rows, their weights and their global indices.
    """
    block, weights = as_block(x, w, index, offset)
    if n_draws == 0 or block.shape[0] == 0:
        return block[:0].copy(), np.zeros(0), np.zeros(0, dtype=np.int64)
    labels, dist = nearest_loss(block, centres, metric)
    prob = sensitivity_probabilities(dist, labels, weights, total_cost, cluster_weights, n_nonempty)
    rng = np.random.default_rng(entropy)
    drawn = rng.choice(block.shape[0], size=n_draws, p=prob / prob.sum())
    drawn.sort()
    row_weights = (np.ones(n_draws) if weights is None else weights[drawn]) / (coreset_size * prob[drawn])
    return block[drawn].copy(), row_weights, drawn.astype(np.int64) + offset


def _rows_in(x: Any, centres: Block, metric: str, block_info: Optional[Dict[Any, Any]]) -> Block:
    """The block in the centres' dtype, its values checked (in the block's own
    dtype, before the cast; with ``metric="cosine"``, for rows of length zero too)."""
    index, offset = _position(block_info)
    check_finite(np.asarray(x), index, offset)
    if metric == "cosine":
        check_directions(np.asarray(x), index, offset)
    return np.ascontiguousarray(x, dtype=centres.dtype)


def labels_of(x: Any, centres: Block, metric: str = "euclidean",
              block_info: Optional[Dict[Any, Any]] = None) -> I64:
    """Nearest centre of each row, by ``metric`` (for ``map_blocks``, which passes ``block_info``)."""
    return _kernels.nearest(_rows_in(x, centres, metric, block_info), centres, metric)


def distances_of(x: Any, centres: Block, metric: str = "euclidean",
                 block_info: Optional[Dict[Any, Any]] = None) -> Block:
    """Distances to every centre, by ``metric`` (for ``map_blocks``, which passes ``block_info``)."""
    return _kernels.distances(_rows_in(x, centres, metric, block_info), centres, metric)
