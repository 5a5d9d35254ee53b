#!/usr/bin/env python3
"""Build the documentation site: ``python scripts/build_docs.py [OUT]``.

Strict: a warning (a broken link or reference, a docstring that does not
parse, a gallery script that fails) fails the build. Needs the package
installed (``maturin develop --release``, or the wheel) and the site's
requirements (``pip install -r docs/requirements.txt``). Writes the site to
OUT (default ``target/docs-site``); open ``OUT/index.html``.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else ROOT / "target" / "docs-site"
    doctrees = ROOT / "target" / "docs-doctrees"
    # The gallery's pages are generated into docs/gallery on each build.
    for stale in (doctrees, ROOT / "docs" / "gallery"):
        shutil.rmtree(stale, ignore_errors=True)
    os.environ.setdefault("MPLBACKEND", "Agg")
    from sphinx.cmd.build import build_main

    args = ["-b", "html", "-W", "--keep-going", "-q", "-c", str(ROOT / "docs"),
            "-d", str(doctrees), str(ROOT), str(out)]
    status = build_main(args)
    if status == 0:
        print(f"site written to {out / 'index.html'}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
