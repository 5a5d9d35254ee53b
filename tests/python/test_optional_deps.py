"""The optional extras stay optional: clear errors when they are missing,
and ``import smartigan`` never loads them."""

from __future__ import annotations

import subprocess
import sys


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_import_smartigan_loads_no_optional_dependency():
    res = _run("import sys, smartigan, smartigan.cli, smartigan.plot; "
               "print(sorted(m for m in ('sklearn', 'matplotlib', 'pyarrow', 'pandas', 'scipy') if m in sys.modules))")
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "[]"


def test_sklearn_module_without_scikit_learn():
    res = _run("import sys; sys.modules['sklearn'] = None\n"
               "try:\n    import smartigan.sklearn\nexcept ImportError as e:\n    print(e)\n")
    assert res.returncode == 0, res.stderr
    assert "smartigan.sklearn needs scikit-learn" in res.stdout
    assert "pip install 'smartigan[sklearn]'" in res.stdout


def test_cli_without_matplotlib_or_pyarrow_still_fits(tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("a,b\n0,0\n0,1\n5,5\n5,6\n")
    code = ("import sys; sys.modules['matplotlib'] = None; sys.modules['pyarrow'] = None\n"
            "from smartigan.cli import main\n"
            f"sys.exit(main(['fit', {str(data)!r}, '-k', '2', '--seed', '0']))\n")
    res = _run(code)
    assert res.returncode == 0, res.stderr
    assert "objective   1" in res.stdout
