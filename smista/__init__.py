"""smista: decide what kind of work a coding-agent request is, and which model serves it.

The public names below are imported lazily (PEP 562) so that ``import smista``
and the ``smista`` command start in milliseconds: the pydantic models load
only when first used. This is a deliberate departure from eager re-exports
(structlog/httpx style): measured on the 2-core CI machine, ``import smista``
takes ~140 ms in a fresh interpreter (``python -c pass``: ~70 ms) and importing
every public name ~2 s, because the names bring in pydantic, rapidfuzz and
tomllib, which every CLI start would then pay. ``tests/test_public_api.py`` and
``tests/test_exported_members.py`` check that every name in ``__all__``
resolves, is documented and is defined where the table says.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from smista._edge.lazy import lazy_getattr

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    "Classification": "smista.core.result",
    "ClassificationConfig": "smista.core.rules",
    "ClassificationRule": "smista.core.rules",
    "Classifier": "smista.core.classifier",
    "Confidence": "smista.core.intent",
    "ConfigError": "smista.core.errors",
    "DefaultRoute": "smista.core.routing",
    "Explanation": "smista.core.explain",
    "IntentSource": "smista.core.intent",
    "KeywordHit": "smista.core.fuzzy",
    "NoRouteError": "smista.core.errors",
    "Preview": "smista.decision.preview",
    "RoutingDecision": "smista.core.routing",
    "RoutingPolicy": "smista.core.routing",
    "RoutingRule": "smista.core.routing",
    "Settings": "smista.config.settings",
    "SmistaError": "smista.core.errors",
    "TaskIntent": "smista.core.intent",
    "Turn": "smista.core.turns",
    "TurnError": "smista.core.turns",
    "TurnResult": "smista.core.turnclassify",
    "TurnSettings": "smista.core.turnrules",
    "TierDecision": "smista.tiers.request",
    "TierOutcome": "smista.tiers.outcomes",
    "TierRequest": "smista.tiers.request",
    "TierRouter": "smista.tiers.router",
    "TiersConfig": "smista.tiers.model",
    "UnknownIntentError": "smista.core.errors",
    "Workspace": "smista.core.workspace",
    "build_preview": "smista.decision.preview",
    "classify": "smista.api",
    "classify_turn": "smista.api",
    "context_kinds": "smista.core.workspace",
    "default_classifier": "smista.config.defaults",
    "default_config": "smista.config.defaults",
    "fuzzy_cap": "smista.core.fuzzy",
    "load_config": "smista.config.load",
    "load_settings": "smista.config.settings",
    "load_tiers": "smista.tiers.loader",
    "match_keyword": "smista.core.fuzzy",
    "parse_config": "smista.config.load",
    "parse_settings": "smista.config.settings",
    "route": "smista.core.routing",
    "tokenize": "smista.core.tokenizer",
    "touched_files": "smista.core.workspace",
}

__all__ = [
    "Classification",
    "ClassificationConfig",
    "ClassificationRule",
    "Classifier",
    "Confidence",
    "ConfigError",
    "DefaultRoute",
    "Explanation",
    "IntentSource",
    "KeywordHit",
    "NoRouteError",
    "Preview",
    "RoutingDecision",
    "RoutingPolicy",
    "RoutingRule",
    "Settings",
    "SmistaError",
    "TaskIntent",
    "TierDecision",
    "TierOutcome",
    "TierRequest",
    "TierRouter",
    "TiersConfig",
    "Turn",
    "TurnError",
    "TurnResult",
    "TurnSettings",
    "UnknownIntentError",
    "Workspace",
    "__version__",
    "build_preview",
    "classify",
    "classify_turn",
    "context_kinds",
    "default_classifier",
    "default_config",
    "fuzzy_cap",
    "load_config",
    "load_settings",
    "load_tiers",
    "match_keyword",
    "parse_config",
    "parse_settings",
    "route",
    "tokenize",
    "touched_files",
]

if TYPE_CHECKING:
    from smista.api import classify, classify_turn
    from smista.config.defaults import default_classifier, default_config
    from smista.config.load import load_config, parse_config
    from smista.config.settings import Settings, load_settings, parse_settings
    from smista.core.classifier import Classifier
    from smista.core.errors import ConfigError, NoRouteError, SmistaError, UnknownIntentError
    from smista.core.explain import Explanation
    from smista.core.fuzzy import KeywordHit, fuzzy_cap, match_keyword
    from smista.core.intent import Confidence, IntentSource, TaskIntent
    from smista.core.result import Classification
    from smista.core.routing import DefaultRoute, RoutingDecision, RoutingPolicy, RoutingRule, route
    from smista.core.rules import ClassificationConfig, ClassificationRule
    from smista.core.tokenizer import tokenize
    from smista.core.turnclassify import TurnResult
    from smista.core.turnrules import TurnSettings
    from smista.core.turns import Turn, TurnError
    from smista.core.workspace import Workspace, context_kinds, touched_files
    from smista.decision.preview import Preview, build_preview
    from smista.tiers.loader import load_tiers
    from smista.tiers.model import TiersConfig
    from smista.tiers.outcomes import TierOutcome
    from smista.tiers.request import TierDecision, TierRequest
    from smista.tiers.router import TierRouter


__getattr__ = lazy_getattr(__name__, _EXPORTS, globals())


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
