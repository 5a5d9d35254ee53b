"""The client's side of the passes over the data: :class:`RowBlocks`, the row
blocks of one data set (and of its weights), runs one task per block with a
function of :mod:`._blocks` and brings the per-block results back in block
order, counting the passes and the bytes that come back.

Every pass is one ``dask.compute`` of one task per row block; the results
come back to the client as a list in block order and are added there in
that order, never by a reduction tree whose shape could depend on the
scheduler.
"""

from __future__ import annotations

import math
from typing import Any, Callable, List, Optional, Sequence, Tuple

import numpy as np
import numpy.typing as npt

from . import _blocks
from ._dask import dask

__all__ = ["RowBlocks"]


class RowBlocks:
    """The row blocks of one data set (and of its weights), and the passes over them.

    ``metric`` is how rows are compared with centres in every pass (with
    ``"cosine"`` the rows must already be unit rows, :func:`._blocks.unit_rows`).
    Counts the passes and the bytes that come back to the client.
    """

    def __init__(self, rows: Any, weights: Optional[Any], metric: str = "euclidean") -> None:
        self.rows = rows
        self.metric = metric
        self.x = list(rows.to_delayed().ravel())
        self.w: List[Any] = [None] * len(self.x) if weights is None else list(weights.to_delayed().ravel())
        sizes = np.array(rows.chunks[0], dtype=np.int64)
        self.sizes = sizes
        self.offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        self.n_passes = 0
        self.bytes_gathered = 0

    def compute(self, tasks: Sequence[Any]) -> List[Any]:
        results = list(dask.compute(*tasks))
        self.bytes_gathered += sum(_nbytes(r) for r in results)
        return results

    def run(self, fn: Callable[..., Any], *args: Any, per_block: Optional[Callable[[int], Sequence[Any]]] = None,
            skip: Optional[Callable[[int], bool]] = None) -> List[Any]:
        """``fn(x_block, w_block, index, offset, *args, *per_block(index))`` for every block, in block order.

        NumPy arguments are put in the graph once and shared by all tasks.
        Blocks for which ``skip(index)`` is true are not read (their result is None).
        """
        shared = [dask.delayed(a, pure=True) if isinstance(a, np.ndarray) and a.size > 64 else a for a in args]
        task = dask.delayed(fn, pure=True)
        tasks: List[Any] = []
        indices: List[int] = []
        for i, (xb, wb) in enumerate(zip(self.x, self.w)):
            if self.sizes[i] == 0 or (skip is not None and skip(i)):
                continue
            extra = per_block(i) if per_block is not None else ()
            tasks.append(task(xb, wb, i, int(self.offsets[i]), *shared, *extra))
            indices.append(i)
        self.n_passes += 1
        out: List[Any] = [None] * len(self.x)
        for i, result in zip(indices, self.compute(tasks)):
            out[i] = result
        return out

    def totals(self, centres: npt.NDArray[Any], with_sums: bool) -> Tuple[float, npt.NDArray[np.float64],
                                                                           Optional[npt.NDArray[np.float64]],
                                                                           List[float], List[npt.NDArray[np.float64]]]:
        """Cost, weight per centre and (optionally) sums per centre over all blocks, added in block order.

        Also returns the per-block costs and weights (for the coreset's block shares).
        """
        k, d = centres.shape
        results = self.run(_blocks.assignment_totals, centres, with_sums, self.metric)
        block_costs: List[float] = []
        block_weights: List[npt.NDArray[np.float64]] = []
        weights = np.zeros(k)
        sums = np.zeros((k, d)) if with_sums else None
        for result in results:
            if result is None:
                block_costs.append(0.0)
                block_weights.append(np.zeros(k))
                continue
            cost, attracted, block_sums = result
            block_costs.append(cost)
            block_weights.append(attracted)
            weights += attracted
            if sums is not None:
                sums += block_sums
        return math.fsum(block_costs), weights, sums, block_costs, block_weights

    def weight_totals(self) -> List[Tuple[float, int, float, float, float]]:
        """Per block of the weights: their total, how many are positive, the
        largest, and the total and the total of the squares of the weights
        divided by the largest (one pass; :func:`._blocks.weight_totals`)."""
        return self.compute([dask.delayed(_blocks.weight_totals, pure=True)(wb, i, int(self.offsets[i]))
                             for i, wb in enumerate(self.w)])


def _nbytes(obj: Any) -> int:
    if isinstance(obj, np.ndarray):
        return int(obj.nbytes)
    if isinstance(obj, (tuple, list)):
        return sum(_nbytes(o) for o in obj)
    return 8
