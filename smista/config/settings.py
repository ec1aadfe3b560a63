"""One smista config file -> one :class:`Settings` (classification, routing, decision).

I/O edge: reads the file through :func:`smista.config.load.load_document` and
validates each section with :func:`smista.config.load.validate_section`, so every
error names the file, the TOML key path (``routing.rules[2].paths[0]``) and
what was expected. Beyond structure it reports the semantic problems of
``[routing]`` (invalid globs, duplicate rule names, ambiguous rule pairs, bad
fallbacks) and of an enabled ``[decision]`` (missing provider, base URL, model
or key variable). It never reads the API key itself.

A file without ``[classification]`` gets the shipped default rules; without
``[routing]`` an empty policy (so ``route()`` raises ``NoRouteError``);
without ``[decision]`` a disabled stage. ``[tiers]`` is accepted and left to
its own loader.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from smista.config.load import load_document, parse_document, validate_section
from smista.core.errors import ConfigError
from smista.core.routing import RoutingPolicy
from smista.core.rules import ClassificationConfig
from smista.decision.config import DecisionConfig

__all__ = ["Settings", "load_settings", "parse_settings", "settings_from_document"]


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything a config file says, validated."""

    classification: ClassificationConfig
    routing: RoutingPolicy
    decision: DecisionConfig
    source: str | None = None


def load_settings(path: str | Path) -> Settings:
    """Read and validate the config file at ``path``."""
    return settings_from_document(load_document(path), str(path))


def parse_settings(text: str, source: str | None = None) -> Settings:
    """Validate config TOML text (``source`` names it in errors)."""
    return settings_from_document(parse_document(text, source), source)


def settings_from_document(data: Mapping[str, Any], source: str | None = None) -> Settings:
    """Validate an already-parsed config document."""
    if "classification" in data:
        classification = validate_section(
            ClassificationConfig, data["classification"], "classification", source
        )
    else:
        from smista.config.defaults import default_config

        classification = default_config()
    routing = validate_section(RoutingPolicy, data.get("routing", {}), "routing", source)
    decision = validate_section(DecisionConfig, data.get("decision", {}), "decision", source)
    problems = [(f"routing.{loc}", msg) for loc, msg in routing.problems()]
    problems += [(f"decision.{loc}", msg) for loc, msg in decision.problems()]
    if problems:
        raise ConfigError(problems, source)
    return Settings(classification, routing, decision, source)
