"""docs/architecture.md names every file of the crate and of the Python package,
so that a newcomer's map of the tree is complete (issue 56)."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_module_is_on_the_architecture_page():
    page = (ROOT / "docs" / "architecture.md").read_text()
    missing = []
    for path in sorted((ROOT / "src").rglob("*.rs")):
        rel = path.relative_to(ROOT / "src")
        # A folder's files may be named within its row: `sparse/` ... `csr.rs`.
        named = str(rel) in page or (len(rel.parts) > 1 and f"`{rel.parts[-2]}/`" in page and
                                     f"`{rel.name}`" in page)
        if not named and rel.name != "lib.rs":
            missing.append(f"src/{rel}")
    for path in sorted((ROOT / "python" / "smartigan").rglob("*.py")):
        rel = path.relative_to(ROOT / "python" / "smartigan")
        if rel.name in ("__init__.py", "__main__.py"):
            continue
        if f"`{rel.name}`" not in page and f"`{rel.stem}`" not in page and str(rel) not in page:
            missing.append(f"python/smartigan/{rel}")
    assert not missing, f"not on docs/architecture.md: {missing}"
