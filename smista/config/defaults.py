"""The shipped default rule pack (``rules/default.toml``).

I/O edge: reads a package data file once and caches the result. In a wheel
the packs live in ``smista/_rules/``; in a source checkout they are read from
the repository's ``rules/`` directory.

:func:`default_classifier` is the cold path of ``smista.classify``: it takes the
compiled rules from :func:`smista.config.rulecache.load_rules` (the precompiled
``_default_pack`` while the pack file is unchanged), so it parses no TOML and
imports no pydantic; :func:`default_config` (TOML read and validated by the
pydantic models) is built only when something asks for the classifier's
``config``. Importing this module loads neither.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from smista.config._shipped import rules_dir, shipped_rules_path
from smista.core.classifier import Classifier

if TYPE_CHECKING:
    from smista.core.rules import ClassificationConfig

__all__ = ["default_classifier", "default_config", "rules_dir", "shipped_rules_path"]


@cache
def default_config() -> ClassificationConfig:
    """The ``[classification]`` of the shipped default pack."""
    from smista.config.load import load_config

    return load_config(shipped_rules_path())


@cache
def default_classifier() -> Classifier:
    """A shared classifier over the shipped default pack."""
    from smista.config.rulecache import load_rules

    return Classifier.from_rules(load_rules(None), default_config)
