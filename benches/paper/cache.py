"""The measurements of `run.py` kept as JSON between a run and a re-render.

JSON rather than pickle: reading a pickle runs whatever code it names, and
this project reads no data file that way. The measurements are nested dicts
(string or integer keys), lists, tuples, numbers, strings, booleans, None and
float64 arrays; what JSON has no form for is written as a tagged object:

* an array as ``{"__array__": [...], "dtype": ..., "shape": [...]}``;
* a tuple as ``{"__tuple__": [...]}``;
* a dict with a key that is not a string as ``{"__items__": [[key, value], ...]}``.

Floats keep their bits (JSON numbers are written with ``repr``; infinities
and NaN as Python's ``json`` writes them), so a re-render reproduces the
report exactly.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

TAGS = ("__array__", "__tuple__", "__items__")


def encode(value: Any) -> Any:
    """`value` in JSON's types, with the tags above."""
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in "fiub":
            raise TypeError(f"cache: arrays of dtype {value.dtype} are not kept")
        return {"__array__": value.ravel().tolist(), "dtype": value.dtype.str, "shape": list(value.shape)}
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, tuple):
        return {"__tuple__": [encode(v) for v in value]}
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value) and not any(k in TAGS for k in value):
            return {k: encode(v) for k, v in value.items()}
        return {"__items__": [[encode(k), encode(v)] for k, v in value.items()]}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"cache: values of type {type(value).__name__} are not kept")


def decode(value: Any) -> Any:
    """The inverse of :func:`encode`."""
    if isinstance(value, list):
        return [decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "__array__" in value:
        return np.array(value["__array__"], dtype=np.dtype(value["dtype"])).reshape(value["shape"])
    if "__tuple__" in value:
        return tuple(decode(v) for v in value["__tuple__"])
    if "__items__" in value:
        return {decode(k): decode(v) for k, v in value["__items__"]}
    return {k: decode(v) for k, v in value.items()}


def dump(value: Any, path: str | Path) -> None:
    Path(path).write_text(json.dumps(encode(value)))


def load(path: str | Path) -> Any:
    return decode(json.loads(Path(path).read_text()))
