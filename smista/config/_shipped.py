"""Where the shipped rule packs live: the one place that knows.

In a wheel the packs are package data in ``smista/_rules/`` (pyproject's
``force-include``); in a source checkout they are the repository's ``rules/``.
Standard library only, and no file is read here (only ``is_dir``), so both the
pydantic-free cache path (:mod:`smista.config.rulecache`) and :mod:`smista.config.defaults`
use it. :func:`shipped_rules_file` gives the path as a string without importing
:mod:`pathlib` (the cold start of ``smista.classify`` and ``smista classify``).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["rules_dir", "shipped_rules_file", "shipped_rules_path"]


def _rules_dir() -> str:
    # smista/, this file is smista/config/ (realpath: what Path.resolve() gives)
    package = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    packaged = os.path.join(package, "_rules")
    if os.path.isdir(packaged):
        return packaged
    return os.path.join(os.path.dirname(package), "rules")


def rules_dir() -> Path:
    """Directory holding the shipped rule packs."""
    from pathlib import Path

    return Path(_rules_dir())


def shipped_rules_file(name: str = "default") -> str:
    """Path of a shipped pack as a string, e.g. ``default`` -> ``.../default.toml``."""
    return os.path.join(_rules_dir(), f"{name}.toml")


def shipped_rules_path(name: str = "default") -> Path:
    """Path of a shipped pack, e.g. ``default`` -> ``.../default.toml``."""
    return rules_dir() / f"{name}.toml"
