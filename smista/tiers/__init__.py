"""Tier routing for delegated sub-agent tasks: which model capability a task needs.

The pure names are imported eagerly; the edge names (file loading, the HTTP
client) load on first use (PEP 562), so importing this package performs no
I/O and pulls in neither TOML parsing nor httpx.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from smista._edge.lazy import lazy_getattr
from smista.tiers.cache import CACHE_CHARS, CACHE_SIZE, CachedTier, CacheKey, TierCache, cache_key
from smista.tiers.model import (
    DEFAULT_MODELS,
    DEFAULT_TIER,
    LlmClassifierConfig,
    TierRule,
    TiersConfig,
    config_problems,
)
from smista.tiers.outcomes import OUTCOME_LABELS, TierOutcome
from smista.tiers.parse import ParsedTier, normalize_tier, parse_tier_output
from smista.tiers.prompt import DEFAULT_PROMPT, normalize_prompt, preview, render_prompt
from smista.tiers.request import (
    Completer,
    TierDecision,
    TierRequest,
    effective_role,
    explicit_model_preserved,
)
from smista.tiers.router import HISTORY_SIZE, CompleterFactory, TierRouter

_EDGE: dict[str, str] = {
    "ChatCompletionsClient": "smista.tiers.http",
    "client_from_config": "smista.tiers.http",
    "default_tiers": "smista.tiers.loader",
    "load_tiers": "smista.tiers.loader",
    "parse_tiers": "smista.tiers.loader",
    "reload_from_file": "smista.tiers.loader",
    "router_from_file": "smista.tiers.loader",
}

__all__ = [
    "CACHE_CHARS",
    "CACHE_SIZE",
    "DEFAULT_MODELS",
    "DEFAULT_PROMPT",
    "DEFAULT_TIER",
    "HISTORY_SIZE",
    "OUTCOME_LABELS",
    "CacheKey",
    "CachedTier",
    "ChatCompletionsClient",
    "Completer",
    "CompleterFactory",
    "LlmClassifierConfig",
    "ParsedTier",
    "TierCache",
    "TierDecision",
    "TierOutcome",
    "TierRequest",
    "TierRouter",
    "TierRule",
    "TiersConfig",
    "cache_key",
    "client_from_config",
    "config_problems",
    "default_tiers",
    "effective_role",
    "explicit_model_preserved",
    "load_tiers",
    "normalize_prompt",
    "normalize_tier",
    "parse_tier_output",
    "parse_tiers",
    "preview",
    "reload_from_file",
    "render_prompt",
    "router_from_file",
]

if TYPE_CHECKING:
    from smista.tiers.http import ChatCompletionsClient, client_from_config
    from smista.tiers.loader import (
        default_tiers,
        load_tiers,
        parse_tiers,
        reload_from_file,
        router_from_file,
    )


__getattr__ = lazy_getattr(__name__, _EDGE, globals())
