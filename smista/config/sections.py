"""The registry of config-file sections that have a model: name -> pydantic model.

Pure data. ``smista check`` validates every registered section it finds and
``smista schema`` builds the config file's JSON Schema from this table, so
describing a new section is one line here. Sections listed in
:data:`smista.config.load.SECTIONS` but not (yet) registered are accepted as
tables and reported as unchecked. Must never perform I/O.
"""

from __future__ import annotations

from pydantic import BaseModel

from smista.core.routing import RoutingPolicy
from smista.core.rules import ClassificationConfig
from smista.decision.config import DecisionConfig
from smista.tiers.model import TiersConfig

__all__ = ["SECTION_MODELS"]

SECTION_MODELS: dict[str, type[BaseModel]] = {
    "classification": ClassificationConfig,
    "routing": RoutingPolicy,
    "decision": DecisionConfig,
    "tiers": TiersConfig,
}
"""Top-level table name -> the model validating it (one line per section)."""
