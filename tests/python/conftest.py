import signal
from typing import Iterator

import numpy as np
import pytest


@pytest.fixture(scope="session", autouse=True)
def ctrl_c_raises() -> Iterator[None]:
    """The Ctrl-C tests send SIGINT to this process. A shell starts background
    jobs (`cmd &`) with SIGINT ignored, and Python then keeps ignoring it, so
    install the handler an interactive run has."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def blobs(n: int = 300, d: int = 3, centres: int = 5, spread: float = 1.0, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    c = rng.uniform(0, 5, size=(centres, d))
    return c[np.arange(n) % centres] + rng.normal(scale=spread, size=(n, d))


@pytest.fixture
def X() -> np.ndarray:
    return blobs()
