"""Facts stated once: the version (``smista.__version__``) and the shipped packs' location."""

from __future__ import annotations

import tomllib
from importlib.metadata import version

import smista
from smista.config import _shipped, defaults, rulecache
from tests.conftest import ROOT


def test_the_installed_metadata_version_is_smista_version() -> None:
    """pip, ``smista --version`` and the rule cache's key all say the same version."""
    assert version("smista") == smista.__version__
    assert rulecache.__version__ == smista.__version__  # type: ignore[attr-defined]


def test_pyproject_takes_the_version_from_the_package() -> None:
    """The version is written once, in smista/__init__.py; pyproject reads it (hatch)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"]
    assert project["project"]["dynamic"] == ["version"]
    assert project["tool"]["hatch"]["version"]["path"] == "smista/__init__.py"


def test_the_default_pack_path_has_one_source() -> None:
    """The cache path (pydantic-free) and the config path find the same shipped file."""
    assert (
        rulecache.default_pack_path()
        == defaults.shipped_rules_path()
        == (_shipped.shipped_rules_path("default"))
    )
    assert rulecache.default_pack_path().is_file()
    assert defaults.rules_dir() == _shipped.rules_dir()
    assert (defaults.rules_dir() / "tiers.toml").is_file()
