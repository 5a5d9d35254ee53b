import numpy as np
import pytest


def blobs(n: int = 300, d: int = 3, centres: int = 5, spread: float = 1.0, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    c = rng.uniform(0, 5, size=(centres, d))
    return c[np.arange(n) % centres] + rng.normal(scale=spread, size=(n, d))


@pytest.fixture
def X() -> np.ndarray:
    return blobs()
