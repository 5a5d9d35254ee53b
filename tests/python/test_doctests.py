"""The Examples sections of the CLI, plot and scikit-learn modules run as doctests."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest


@pytest.mark.parametrize("module, needs", [
    ("smartigan.cli", None),
    ("smartigan.plot", "matplotlib"),
    ("smartigan.sklearn", "sklearn"),
])
def test_doctests(module, needs, tmp_path, monkeypatch):
    if needs:
        pytest.importorskip(needs)
    if needs == "matplotlib":
        import matplotlib

        matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    mod = importlib.import_module(module)
    # A package (the CLI) keeps its examples in its modules.
    names = [info.name for info in pkgutil.iter_modules(getattr(mod, "__path__", []), f"{module}.")]
    attempted = 0
    for part in [mod, *map(importlib.import_module, names)]:
        result = doctest.testmod(part, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        assert result.failed == 0, part.__name__
        attempted += result.attempted
    assert attempted >= 5, f"{module} should document its public functions with examples"


def test_every_public_function_has_an_example():
    missing = []
    for module in ("smartigan.cli", "smartigan.plot", "smartigan.sklearn"):
        try:
            mod = importlib.import_module(module)
        except ImportError:
            continue
        for name in mod.__all__:
            obj = getattr(mod, name)
            doc = obj.__doc__ or ""
            if "Examples" not in doc:
                missing.append(f"{module}.{name}")
            for attr, member in vars(obj).items() if isinstance(obj, type) else ():
                if attr.startswith("_") or not callable(member) or isinstance(member, type):
                    continue
                # Progress.update/close are shown in the Progress class example
                if "Examples" not in (member.__doc__ or "") and attr not in ("update", "close"):
                    missing.append(f"{module}.{name}.{attr}")
    assert missing == []
