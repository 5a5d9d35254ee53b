"""Type stubs for the compiled extension ``smartigan._core`` (src/py/)."""

from typing import Any, Callable, Final, Optional, Sequence, Tuple, Union, final

import numpy as np
import numpy.typing as npt

__all__ = [
    "Params",
    "Clustering",
    "CsrMatrix",
    "Run",
    "Path",
    "PathStep",
    "fit",
    "kmeans_plusplus",
    "predict",
    "transform",
    "fit_path",
    "auto_budget",
    "sample_rows",
    "best_budget",
    "auto_tol",
    "default_n_iter",
    "__version__",
    "METHODS",
    "INITS",
    "METRICS",
    "DEFAULT_METRIC",
    "MAX_N_ITER",
    "DEFAULT_METHOD",
    "DEFAULT_N_ITER",
    "DEFAULT_N_ITER_LARGE",
    "SCHEDULE_OVERLAP_SHARE",
    "SCHEDULE_RANDOM_WALK_SHARE",
    "SCHEDULE_START_SHARE",
    "DEFAULT_MAX_ITER",
    "AUTO_SMALL_PROBLEM",
    "DEFAULT_INIT",
    "DEFAULT_SCHEDULE",
    "DEFAULT_POLISH",
    "DEFAULT_REFINE",
    "AUTO_TOL_LARGE",
    "FAST_TOL",
    "PLUS_PLUS_ROWS_PER_CENTRE",
    "LARGE_PROBLEM_ROWS",
    "LARGE_PROBLEM_WORK",
]
__version__: str
METHODS: Tuple[str, ...]
INITS: Tuple[str, ...]
METRICS: Tuple[str, ...]
DEFAULT_METRIC: str
MAX_N_ITER: int
DEFAULT_METHOD: str
DEFAULT_N_ITER: int
DEFAULT_N_ITER_LARGE: int
SCHEDULE_OVERLAP_SHARE: float
SCHEDULE_RANDOM_WALK_SHARE: float
SCHEDULE_START_SHARE: float
DEFAULT_MAX_ITER: int
AUTO_SMALL_PROBLEM: int
DEFAULT_INIT: str
DEFAULT_SCHEDULE: Tuple[float, float]
DEFAULT_POLISH: bool
DEFAULT_REFINE: bool
AUTO_TOL_LARGE: float
FAST_TOL: float
PLUS_PLUS_ROWS_PER_CENTRE: int
LARGE_PROBLEM_ROWS: int
LARGE_PROBLEM_WORK: int

@final
class Params:
    def __new__(
        cls,
        k: int,
        *,
        method: str = ...,
        metric: str = ...,
        n_iter: Optional[int] = ...,
        seed: Optional[int] = ...,
        init: Union[str, npt.NDArray[np.float64]] = ...,
        n_init: Union[int, str, None] = ...,
        schedule: Tuple[float, float] = ...,
        polish: bool = ...,
        refine: bool = ...,
        n_threads: Optional[int] = ...,
        tol: Optional[float] = ...,
        size_min: Union[int, Sequence[int], str, None] = ...,
        size_max: Union[int, Sequence[int], str, None] = ...,
    ) -> Params: ...
    def bounds_bind(self, n: int) -> bool: ...

@final
class Clustering:
    labels: Final[npt.NDArray[np.int64]]
    centroids: Final[npt.NDArray[Any]]
    objective: Final[float]
    cluster_sizes: Final[npt.NDArray[np.int64]]
    cluster_objectives: Final[npt.NDArray[np.float64]]
    n_sweeps: Final[int]
    converged: Final[bool]
    history: Final[npt.NDArray[np.float64]]
    moves: Final[npt.NDArray[np.int64]]
    initial_objective: Final[float]
    refinements: Final[int]
    schedule_start: Final[Optional[float]]
    restart_objectives: Final[npt.NDArray[np.float64]]
    best_restart: Final[int]
    seed: Final[int]
    metric: Final[str]

@final
class CsrMatrix:
    def __new__(
        cls,
        n_cols: int,
        indptr: npt.NDArray[np.uintp],
        indices: npt.NDArray[np.uintp],
        data: npt.NDArray[Any],
    ) -> CsrMatrix: ...
    @property
    def n_cols(self) -> int: ...

_Points = Union[npt.NDArray[Any], CsrMatrix]

def fit(
    x: _Points,
    params: Params,
    sample_weight: Optional[npt.NDArray[np.float64]] = None,
) -> Clustering: ...
def kmeans_plusplus(
    x: _Points,
    params: Params,
    sample_weight: Optional[npt.NDArray[np.float64]] = None,
) -> npt.NDArray[np.int64]: ...
def predict(x: _Points, centroids: npt.NDArray[Any], metric: str = "euclidean") -> npt.NDArray[np.int64]: ...
def transform(x: _Points, centroids: npt.NDArray[Any], metric: str = "euclidean") -> npt.NDArray[Any]: ...
def auto_budget(n_samples: int, n_features: int, k: int) -> float: ...
def sample_rows(n_samples: int, n_features: int, k: int) -> Optional[int]: ...
def best_budget(n_samples: int, n_features: int, k: int) -> float: ...
def auto_tol(n_samples: int, n_features: int, k: int) -> float: ...

@final
class PathStep:
    k: Final[int]
    objective: Final[float]
    cluster_sizes: Final[npt.NDArray[np.int64]]
    cluster_objectives: Final[npt.NDArray[np.float64]]
    origin: Final[str]
    origin_index: Final[Optional[int]]
    n_sweeps: Final[int]
    converged: Final[bool]
    clustering: Final[Optional[Clustering]]

@final
class Path:
    steps: Final[Tuple[PathStep, ...]]
    seed: Final[int]

def fit_path(
    x: _Points,
    k_min: int,
    k_max: int,
    params: Params,
    keep_clusterings: bool = True,
    sample_weight: Optional[npt.NDArray[np.float64]] = None,
    progress: Optional[Callable[[int, int], Any]] = None,
) -> Path: ...
def default_n_iter(method: str, sizes: Optional[Tuple[int, int, int]] = None) -> int: ...

@final
class Run:
    def __new__(
        cls,
        x: _Points,
        params: Params,
        sample_weight: Optional[npt.NDArray[np.float64]] = None,
    ) -> Run: ...
    def step(self) -> bool: ...
    def finish(self) -> None: ...
    @property
    def finished(self) -> bool: ...
    def current(self) -> Clustering: ...
