"""``mypy --strict`` on the typed example and on the Python front-end modules
of the ecosystem (CLI, plots, scikit-learn estimator); the example also runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "typed_usage.py"
PACKAGE = ROOT / "python" / "smartigan"
MODULES = sorted((PACKAGE / "cli").glob("*.py")) + [PACKAGE / name for name in ("plot.py", "sklearn.py")]


def test_example_runs():
    res = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert "smartigan: objective" in res.stdout


def test_mypy_strict(tmp_path):
    pytest.importorskip("mypy")
    cmd = [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache"),
           str(EXAMPLE), *map(str, MODULES)]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert res.returncode == 0, res.stdout + res.stderr
    assert f"Success: no issues found in {len(MODULES) + 1} source files" in res.stdout


def test_mypy_catches_a_type_error(tmp_path):
    # The check above can fail: a wrong call into the typed API is reported.
    pytest.importorskip("mypy")
    bad = tmp_path / "bad.py"
    bad.write_text("import smartigan\nr = smartigan.cluster([[0.0]], k='three')\nx: str = r.objective\n")
    res = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache"), str(bad)],
                         capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert res.returncode == 1
    assert 'Argument "k" to "cluster" has incompatible type "str"' in res.stdout
    assert 'Incompatible types in assignment (expression has type "float", variable has type "str")' in res.stdout
