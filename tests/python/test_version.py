"""One version number for the crate and the Python package (Cargo.toml's).

pyproject.toml declares ``dynamic = ["version"]``, so maturin writes Cargo.toml's
version into the wheel's and the sdist's metadata, and the extension reports the
same one through ``env!("CARGO_PKG_VERSION")``.
"""

import re
from importlib import metadata
from pathlib import Path

import smartigan

REPOSITORY = Path(__file__).resolve().parents[2]


def cargo_version() -> str:
    manifest = (REPOSITORY / "Cargo.toml").read_text()
    package = re.search(r"^\[package\]\n(.*?)(?=^\[)", manifest, re.S | re.M)
    assert package is not None, "Cargo.toml has no [package] table"
    version = re.search(r'^version\s*=\s*"([^"]+)"', package.group(1), re.M)
    assert version is not None, "Cargo.toml's [package] has no version"
    return version.group(1)


def test_module_version_is_the_crates() -> None:
    assert smartigan.__version__ == cargo_version()


def test_installed_distribution_version_is_the_crates() -> None:
    assert metadata.version("smartigan") == cargo_version()


def test_pyproject_takes_the_version_from_cargo() -> None:
    pyproject = (REPOSITORY / "pyproject.toml").read_text()
    assert re.search(r'^dynamic\s*=\s*\[[^\]]*"version"', pyproject, re.M)
    assert not re.search(r"^version\s*=", pyproject, re.M), "pyproject.toml must not pin its own version"
