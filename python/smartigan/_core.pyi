"""Type stubs for the compiled extension ``smartigan._core`` (src/py.rs)."""

from typing import Any, Optional, Tuple, final

import numpy as np
import numpy.typing as npt

__all__ = ["Params", "auto_n_init", "kmeans_plusplus", "fit", "predict", "transform", "fit_sparse", "predict_sparse", "transform_sparse", "Run", "__version__", "MAX_N_ITER", "DEFAULT_METHOD", "DEFAULT_N_ITER", "DEFAULT_MAX_ITER", "AUTO_N_INIT_SMALL", "AUTO_N_INIT_LARGE", "AUTO_SMALL_PROBLEM", "DEFAULT_INIT", "DEFAULT_SCHEDULE", "DEFAULT_POLISH", "DEFAULT_REFINE", "DEFAULT_TOL"]
__version__: str
MAX_N_ITER: int
DEFAULT_METHOD: str
DEFAULT_N_ITER: int
DEFAULT_MAX_ITER: int
AUTO_N_INIT_SMALL: int
AUTO_N_INIT_LARGE: int
AUTO_SMALL_PROBLEM: int
DEFAULT_INIT: str
DEFAULT_SCHEDULE: Tuple[float, float]
DEFAULT_POLISH: bool
DEFAULT_REFINE: bool
DEFAULT_TOL: float

@final
class Params:
    def __new__(
        cls,
        k: int,
        method: str,
        n_iter: Optional[int],
        seed: Optional[int],
        init: str,
        init_centroids: Optional[npt.NDArray[np.float64]],
        n_init: Optional[int],
        schedule: Tuple[float, float],
        polish: bool,
        refine: bool,
        n_threads: Optional[int],
        tol: float = 0.0,
    ) -> Params: ...

def fit(
    x: npt.NDArray[Any],
    params: Params,
    sample_weight: Optional[npt.NDArray[np.float64]] = None,
) -> dict[str, Any]: ...
def fit_sparse(
    n_cols: int,
    indptr: npt.NDArray[np.uintp],
    indices: npt.NDArray[np.uintp],
    data: npt.NDArray[Any],
    params: Params,
    sample_weight: Optional[npt.NDArray[np.float64]] = None,
) -> dict[str, Any]: ...
def predict_sparse(
    n_cols: int,
    indptr: npt.NDArray[np.uintp],
    indices: npt.NDArray[np.uintp],
    data: npt.NDArray[Any],
    centroids: npt.NDArray[Any],
) -> npt.NDArray[np.int64]: ...
def transform_sparse(
    n_cols: int,
    indptr: npt.NDArray[np.uintp],
    indices: npt.NDArray[np.uintp],
    data: npt.NDArray[Any],
    centroids: npt.NDArray[Any],
) -> npt.NDArray[Any]: ...
def auto_n_init(n_samples: int, n_features: int, k: int) -> int: ...
def kmeans_plusplus(
    x: npt.NDArray[Any],
    params: Params,
    sample_weight: Optional[npt.NDArray[np.float64]] = None,
) -> npt.NDArray[np.int64]: ...
def predict(x: npt.NDArray[Any], centroids: npt.NDArray[Any]) -> npt.NDArray[np.int64]: ...
def transform(x: npt.NDArray[Any], centroids: npt.NDArray[Any]) -> npt.NDArray[Any]: ...

@final
class Run:
    def __new__(
        cls,
        x: npt.NDArray[Any],
        params: Params,
        sample_weight: Optional[npt.NDArray[np.float64]] = None,
    ) -> Run: ...
    def step(self) -> bool: ...
    def finish(self) -> None: ...
    @property
    def finished(self) -> bool: ...
    def current(self) -> dict[str, Any]: ...
