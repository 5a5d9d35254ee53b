"""The built documentation site, opened in a headless Chromium.

Run after ``python scripts/build_docs.py`` (CI does): the site's folder is
``SMARTIGAN_DOCS_SITE`` (default ``target/docs-site``), the browser
``CHROMIUM`` (default ``chromium`` on the PATH, Debian's package). Pages are
loaded from ``file://`` URLs and their DOM read after their scripts ran
(``--dump-dom``), so the search page's results are the ones its JavaScript
found in the built index. Without a browser the tests are skipped, except
under CI (``CI`` set), where a missing browser fails them.
"""

from __future__ import annotations

import inspect
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SITE = Path(os.environ.get("SMARTIGAN_DOCS_SITE", ROOT / "target" / "docs-site")).resolve()
BROWSER = shutil.which(os.environ.get("CHROMIUM", "chromium"))


@pytest.fixture(scope="module")
def browser() -> str:
    if not SITE.joinpath("index.html").is_file():
        pytest.fail(f"no built site at {SITE}: run python scripts/build_docs.py first")
    if BROWSER is None:
        if os.environ.get("CI"):
            pytest.fail("CI needs chromium for the site's tests (apt-get install chromium)")
        pytest.skip("chromium is not installed")
    return BROWSER


def dom(browser: str, page: str, query: str = "") -> str:
    """The page's DOM once its scripts have run (up to 15 s of their time)."""
    url = SITE.joinpath(page).as_uri() + query
    out = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=15000",
         "--dump-dom", url],
        capture_output=True, text=True, timeout=120, check=True,
    )
    assert "<body" in out.stdout, out.stderr[-2000:]
    return out.stdout


def test_the_front_page_has_a_search_box_and_links_to_the_reference_and_gallery(browser: str) -> None:
    # The site's root forwards to the front page.
    assert "docs/index.html" in SITE.joinpath("index.html").read_text()
    page = dom(browser, "docs/index.html")
    assert re.search(r'<input[^>]*class="sidebar-search"[^>]*name="q"', page)
    for target in ("quickstart.html", "api/smartigan.html", "api/sklearn.html", "gallery/choosing_k.html"):
        assert f'href="{target}' in page, target


def test_the_api_page_documents_cluster_and_every_estimator_parameter(browser: str) -> None:
    page = dom(browser, "docs/api/smartigan.html")
    assert 'id="smartigan.cluster"' in page
    assert 'id="smartigan.Clusterer"' in page and 'id="smartigan.cluster_path"' in page
    from smartigan.sklearn import KMeans

    sklearn_page = dom(browser, "docs/api/sklearn.html")
    assert 'id="smartigan.sklearn.KMeans"' in sklearn_page
    missing = [p for p in inspect.signature(KMeans).parameters if f"<strong>{p}</strong>" not in sklearn_page]
    assert not missing, f"parameters of smartigan.sklearn.KMeans not on its page: {missing}"


def test_the_command_line_reference_shows_each_subcommands_help(browser: str) -> None:
    page = dom(browser, "docs/api/cli.html")
    for command in ("demo", "fit", "compare", "choose-k"):
        assert f"usage: smartigan {command}" in page, command


def test_a_gallery_page_shows_its_output_and_picture(browser: str) -> None:
    page = dom(browser, "docs/gallery/choosing_k.html")
    assert "{'elbow':" in page  # what the script printed
    images = re.findall(r'<img[^>]*src="([^"]*sphx_glr_choosing_k_\d+\.png)"', page)
    assert images, "no picture on the choosing-k page"
    picture = SITE.joinpath("docs/gallery", images[0]).resolve()
    data = picture.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000, picture


def test_the_search_finds_the_api_entry(browser: str) -> None:
    page = dom(browser, "search.html", "?q=cluster_path")
    assert "Search finished" in page
    assert 'href="docs/api/smartigan.html#smartigan.cluster_path"' in page
