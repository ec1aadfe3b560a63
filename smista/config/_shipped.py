"""Where the shipped rule packs live: the one place that knows.

In a wheel the packs are package data in ``smista/_rules/`` (pyproject's
``force-include``); in a source checkout they are the repository's ``rules/``.
Standard library only, and no file is read here (only ``is_dir``), so both the
pydantic-free cache path (:mod:`smista.config.rulecache`) and :mod:`smista.config.defaults`
use it.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["rules_dir", "shipped_rules_path"]


def rules_dir() -> Path:
    """Directory holding the shipped rule packs."""
    package = Path(__file__).resolve().parent.parent  # smista/, this file is smista/config/
    packaged = package / "_rules"
    if packaged.is_dir():
        return packaged
    return package.parent / "rules"


def shipped_rules_path(name: str = "default") -> Path:
    """Path of a shipped pack, e.g. ``default`` -> ``.../default.toml``."""
    return rules_dir() / f"{name}.toml"
