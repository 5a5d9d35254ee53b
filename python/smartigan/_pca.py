"""Principal components, once: the axes that :class:`smartigan.plot.Projection`
draws data on and that the gap statistic's ``"pca"`` references are drawn
in (:func:`smartigan._criteria.reference_data`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np
import numpy.typing as npt

__all__ = ["PrincipalAxes"]


@dataclass(frozen=True)
class PrincipalAxes:
    """The (weighted) principal axes of a set of points.

    Attributes
    ----------
    mean : ndarray of shape (d,)
        The points' (weighted) mean.
    axes : ndarray of shape (m, d)
        Orthonormal rows, by increasing spread (the order of
        ``numpy.linalg.eigh``): ``m = d`` where there are at least as many
        points as features, else ``m = n`` (the points span no more).
    spreads : ndarray of shape (m,)
        The (weighted) sum of squares of the centred points along each
        axis: the eigenvalues of their scatter matrix.

    Examples
    --------
    >>> pca = PrincipalAxes.fit(np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 1.0], [2.0, 1.0]]))
    >>> np.abs(pca.axes).round(6).tolist(), pca.spreads.round(6).tolist()
    ([[0.0, 1.0], [1.0, 0.0]], [1.0, 4.0])
    """

    mean: npt.NDArray[np.float64]
    axes: npt.NDArray[np.float64]
    spreads: npt.NDArray[np.float64]

    @classmethod
    def fit(cls, x: npt.NDArray[np.float64], weights: Optional[npt.NDArray[np.float64]] = None) -> "PrincipalAxes":
        """The axes of the rows of ``x`` (float64, shape (n, d)), each weighted by ``weights`` (default 1).

        With at least as many rows as columns, from the eigenvectors of the
        weighted scatter matrix (d x d); with fewer, from the singular
        vectors of the weighted centred rows (n x d), which costs no d x d
        matrix on wide data.
        """
        n, d = x.shape
        w = np.ones(n) if weights is None else weights
        mean = np.average(x, axis=0, weights=w)
        centered = x - mean
        if n >= d:
            spreads, vectors = np.linalg.eigh((centered * w[:, None]).T @ centered)
            # A view of eigh's vectors, not a copy: a copy in another layout
            # can round differently in the products, and the gap statistic's
            # references are pinned bit for bit (tests/python/test_path.py).
            return cls(mean, vectors.T, spreads)
        _, singular, rows = np.linalg.svd(centered * np.sqrt(w)[:, None], full_matrices=False)
        return cls(mean, rows[::-1], singular[::-1] ** 2)

    def scores(self, y: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """The coordinates of the rows of ``y`` along the axes, about the mean: shape (len(y), m)."""
        return np.asarray((y - self.mean) @ self.axes.T, dtype=np.float64)

    def points(self, scores: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """The points at coordinates ``scores`` along the axes (the inverse of :meth:`scores`)."""
        return np.asarray(scores @ self.axes + self.mean, dtype=np.float64)
