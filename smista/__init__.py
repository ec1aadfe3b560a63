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

from smista._lazy import lazy_getattr

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    "Classification": "smista.result",
    "ClassificationConfig": "smista.rules",
    "ClassificationRule": "smista.rules",
    "Classifier": "smista.classifier",
    "Confidence": "smista.intent",
    "ConfigError": "smista.errors",
    "DefaultRoute": "smista.routing",
    "Explanation": "smista.explain",
    "IntentSource": "smista.intent",
    "KeywordHit": "smista.fuzzy",
    "NoRouteError": "smista.errors",
    "Preview": "smista.preview",
    "RoutingDecision": "smista.routing",
    "RoutingPolicy": "smista.routing",
    "RoutingRule": "smista.routing",
    "Settings": "smista.settings",
    "SmistaError": "smista.errors",
    "TaskIntent": "smista.intent",
    "Turn": "smista.turns",
    "TurnError": "smista.turns",
    "TurnResult": "smista.turnclassify",
    "TurnSettings": "smista.turnrules",
    "TierDecision": "smista.tiers.request",
    "TierOutcome": "smista.tiers.outcomes",
    "TierRequest": "smista.tiers.request",
    "TierRouter": "smista.tiers.router",
    "TiersConfig": "smista.tiers.model",
    "UnknownIntentError": "smista.errors",
    "Workspace": "smista.workspace",
    "build_preview": "smista.preview",
    "classify": "smista.api",
    "classify_turn": "smista.api",
    "context_kinds": "smista.workspace",
    "default_classifier": "smista.defaults",
    "default_config": "smista.defaults",
    "fuzzy_cap": "smista.fuzzy",
    "load_config": "smista.config",
    "load_settings": "smista.settings",
    "load_tiers": "smista.tiers.loader",
    "match_keyword": "smista.fuzzy",
    "parse_config": "smista.config",
    "parse_settings": "smista.settings",
    "route": "smista.routing",
    "tokenize": "smista.tokenizer",
    "touched_files": "smista.workspace",
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
    from smista.classifier import Classifier
    from smista.config import load_config, parse_config
    from smista.defaults import default_classifier, default_config
    from smista.errors import ConfigError, NoRouteError, SmistaError, UnknownIntentError
    from smista.explain import Explanation
    from smista.fuzzy import KeywordHit, fuzzy_cap, match_keyword
    from smista.intent import Confidence, IntentSource, TaskIntent
    from smista.preview import Preview, build_preview
    from smista.result import Classification
    from smista.routing import DefaultRoute, RoutingDecision, RoutingPolicy, RoutingRule, route
    from smista.rules import ClassificationConfig, ClassificationRule
    from smista.settings import Settings, load_settings, parse_settings
    from smista.tiers.loader import load_tiers
    from smista.tiers.model import TiersConfig
    from smista.tiers.outcomes import TierOutcome
    from smista.tiers.request import TierDecision, TierRequest
    from smista.tiers.router import TierRouter
    from smista.tokenizer import tokenize
    from smista.turnclassify import TurnResult
    from smista.turnrules import TurnSettings
    from smista.turns import Turn, TurnError
    from smista.workspace import Workspace, context_kinds, touched_files


__getattr__ = lazy_getattr(__name__, _EXPORTS, globals())


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
