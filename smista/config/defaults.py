"""The shipped default rule pack (``rules/default.toml``).

I/O edge: reads a package data file once and caches the parsed config. In a
wheel the packs live in ``smista/_rules/``; in a source checkout they are read
from the repository's ``rules/`` directory.
"""

from __future__ import annotations

from functools import cache

from smista.config._shipped import rules_dir, shipped_rules_path
from smista.config.load import load_config
from smista.core.classifier import Classifier
from smista.core.rules import ClassificationConfig

__all__ = ["default_classifier", "default_config", "rules_dir", "shipped_rules_path"]


@cache
def default_config() -> ClassificationConfig:
    """The ``[classification]`` of the shipped default pack."""
    return load_config(shipped_rules_path())


@cache
def default_classifier() -> Classifier:
    """A shared classifier over the shipped default pack."""
    return Classifier(default_config())
