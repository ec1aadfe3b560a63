"""Loading rule files straight into the compiled matcher, for the command line.

I/O edge. ``load_rules(path)`` returns the :class:`CompiledRules` of a rules
file (``None``: the shipped default pack), validating it with the same models
and messages as :func:`smista.load_config`.
"""

from __future__ import annotations

from pathlib import Path

from smista.engine import CompiledRules

__all__ = ["load_rules"]


def load_rules(path: str | Path | None) -> CompiledRules:
    """The compiled rules of ``path`` (or of the shipped default pack)."""
    from smista.classifier import compile_rules
    from smista.config import load_config
    from smista.defaults import default_config

    config = default_config() if path is None else load_config(path)
    return compile_rules(config)
