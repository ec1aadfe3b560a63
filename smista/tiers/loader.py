"""Reading ``[tiers]`` from TOML, the shipped tier pack, and ready-made routers.

I/O edge: reads files (through :mod:`smista.config.load`) and, for the ``llm``
classifier, wires in the HTTP client of :mod:`smista.tiers.http`. Loading
raises :class:`~smista.core.errors.ConfigError` naming the file, the key path and
what was expected; :func:`router_from_file` never raises: a bad file gives a
router whose routing is disabled, carrying that error. A config file without
a ``[tiers]`` table means the shipped pack (:func:`tiers_or_shipped`).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from smista.config.load import load_document, parse_document, validate_section
from smista.core.errors import ConfigError
from smista.tiers.model import TiersConfig, config_problems
from smista.tiers.router import TierRouter

__all__ = [
    "default_tiers",
    "load_tiers",
    "parse_tiers",
    "reload_from_file",
    "router_from_file",
    "shipped_tiers_path",
    "tiers_from_document",
    "tiers_or_shipped",
]


def tiers_from_document(data: Mapping[str, Any], source: str | None = None) -> TiersConfig:
    """The validated ``[tiers]`` table of a parsed document."""
    if "tiers" not in data:
        raise ConfigError([("", "expected a [tiers] table")], source)
    config = validate_section(TiersConfig, data["tiers"], "tiers", source)
    problems = config_problems(config)
    if problems:
        raise ConfigError([(f"tiers.{path}", msg) for path, msg in problems], source)
    return config


def tiers_or_shipped(data: Mapping[str, Any], source: str | None = None) -> TiersConfig:
    """The ``[tiers]`` of a config document, or the shipped pack when it has none.

    The one rule for a config file without ``[tiers]``, used by ``smista tier
    --config``, :func:`router_from_file` and ``POST /v1/tier`` alike.
    """
    return tiers_from_document(data, source) if "tiers" in data else default_tiers()


def parse_tiers(text: str, source: str | None = None) -> TiersConfig:
    """``[tiers]`` of TOML text."""
    return tiers_from_document(parse_document(text, source), source)


def load_tiers(path: str | Path) -> TiersConfig:
    """``[tiers]`` of a TOML file (a tier pack or a full smista config)."""
    return tiers_from_document(load_document(path), str(path))


def shipped_tiers_path() -> Path:
    """The shipped tier pack, ``rules/tiers.toml``."""
    from smista.config.defaults import shipped_rules_path

    return shipped_rules_path("tiers")


@cache
def default_tiers() -> TiersConfig:
    """The shipped tier pack's config (rules classifier, tiers cheap/normal/hard)."""
    return load_tiers(shipped_tiers_path())


def _load(path: str | Path | None) -> TiersConfig | ConfigError:
    try:
        return default_tiers() if path is None else tiers_or_shipped(load_document(path), str(path))
    except ConfigError as exc:
        return exc


def router_from_file(path: str | Path | None = None, **options: Any) -> TierRouter:
    """A router over ``path`` (``None``: the shipped pack) with the HTTP client wired in.

    Never raises for a bad file: the router is disabled and ``router.error``
    says why. ``options`` go to :class:`TierRouter`.
    """
    from smista.tiers.http import client_from_config

    options.setdefault("completer_factory", client_from_config)
    return TierRouter(_load(path), **options)


def reload_from_file(router: TierRouter, path: str | Path | None = None) -> ConfigError | None:
    """Re-read ``path`` into ``router`` (see :meth:`TierRouter.reload`); the error, if any."""
    return router.reload(_load(path))
