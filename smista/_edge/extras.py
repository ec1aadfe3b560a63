"""The optional extras: which modules each one brings, and how to install one.

Owns the single table of extras (``llm``, ``server``, ``testing``, ``ray``,
``litellm``, ``mcp``: every extra of pyproject.toml, which
``tests/test_first_hour.py`` checks) and the install hint every message uses.
smista is not on a package index, so the hint installs from a checkout
(``pip install '.[server]'``). Looks modules up with
:func:`importlib.util.find_spec` and never imports them.
"""

from __future__ import annotations

import importlib.util

__all__ = ["EXTRAS", "extra_of", "install_hint", "installed_extras"]

EXTRAS: dict[str, tuple[str, ...]] = {
    "llm": ("httpx",),
    "server": ("starlette", "uvicorn"),
    "testing": ("hypothesis",),
    "ray": ("ray", "pandas", "pyarrow"),
    "litellm": ("litellm",),
    "mcp": ("mcp",),
}
"""extra -> the top-level modules it installs."""


def extra_of(module: str) -> str | None:
    """The extra that installs top-level ``module`` (``None`` if none does)."""
    top = module.split(".")[0]
    return next((extra for extra, mods in EXTRAS.items() if top in mods), None)


def install_hint(extra: str) -> str:
    """The command that installs ``extra`` from a smista checkout."""
    return f"pip install '.[{extra}]' (from the smista checkout)"


def installed_extras() -> dict[str, bool]:
    """extra -> whether every module it brings is importable."""
    return {
        extra: all(importlib.util.find_spec(mod) is not None for mod in mods)
        for extra, mods in EXTRAS.items()
    }
