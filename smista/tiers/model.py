"""The ``[tiers]`` configuration: tier ids, their models, and the classifier.

Pure data (pydantic v2, frozen, unknown keys rejected). Structure is checked
by the models; rules that relate one key to another (the default tier and the
rules name known tiers, the llm classifier has an endpoint ...) are checked
by :func:`config_problems`, which names the exact key path of each problem.
The loader (:mod:`smista.tiers.loader`) and the router both apply it, so a
config that fails it never routes.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    model_validator,
)

from smista.core.rules import DEFAULT_PRIORITY, MAX_PRIORITY
from smista.tiers.prompt import DEFAULT_PROMPT, normalize_prompt

__all__ = [
    "DEFAULT_MODELS",
    "DEFAULT_TIER",
    "LlmClassifierConfig",
    "TierRule",
    "TiersConfig",
    "config_problems",
]

_TIER_ID = re.compile(r"[A-Za-z0-9_-]+")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _tier_id(value: str) -> str:
    if not _TIER_ID.fullmatch(value):
        raise ValueError(f"invalid tier id {value!r}: use only letters, digits, '_' and '-'")
    return value


def _non_blank(value: str) -> str:
    stripped = value.strip()
    if not stripped:
        raise ValueError("expected a non-blank string")
    return stripped


def _prompt(value: str) -> str:
    if not value.strip():
        raise ValueError("expected a non-blank prompt")
    return normalize_prompt(value)


def _env_name(value: str) -> str:
    if not _ENV_NAME.fullmatch(value):
        raise ValueError(f"invalid environment variable name {value!r}")
    return value


_HEADER = re.compile(r"[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}")


def _header_name(value: str) -> str:
    if not _HEADER.fullmatch(value):
        raise ValueError(f"expected an HTTP header name, got {value!r}")
    return value


def _proxy_url(value: str) -> str:
    if not value.startswith(("http://", "https://")):
        raise ValueError(f"expected an http:// or https:// URL, got {value!r}")
    return value


TierId = Annotated[StrictStr, AfterValidator(_tier_id)]
ModelName = Annotated[StrictStr, AfterValidator(_non_blank)]
Priority = Annotated[StrictInt, Field(ge=0, le=MAX_PRIORITY)]
Millis = Annotated[StrictInt, Field(gt=0, le=3_600_000)]

DEFAULT_TIER = "normal"
DEFAULT_MODELS: dict[str, str] = {
    "cheap": "@task_cheap",
    "normal": "@task",
    "hard": "@task_hard",
}
"""The seed design's default tiers (model role aliases a host resolves)."""


class TierRule(BaseModel):
    """A classification rule whose label is a tier id (same shape, ``tier`` for ``intent``).

    ``keywords`` matches when any keyword is in the task or solution space
    (typo-tolerant, as for intents); ``requires_any_context`` when any named
    context kind is available. A rule with neither matches every task.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    tier: TierId
    priority: Priority = DEFAULT_PRIORITY
    keywords: tuple[StrictStr, ...] = ()
    requires_any_context: tuple[StrictStr, ...] = ()


class LlmClassifierConfig(BaseModel):
    """An OpenAI-compatible chat-completions model used as the tier classifier."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: ModelName = "@tiny"
    """Model name sent to the endpoint (stored trimmed)."""
    endpoint: StrictStr | None = None
    """Base URL (``http://host:port/v1``) or the full ``.../chat/completions`` URL."""
    api_key_env: Annotated[StrictStr, AfterValidator(_env_name)] | None = None
    """Name of the environment variable holding the API key (sent as a bearer token)."""
    api_key_header: Annotated[StrictStr, AfterValidator(_header_name)] = "Authorization"
    """The header the key travels in: ``Authorization`` carries ``Bearer <key>``,
    any other header (``x-api-key``, ``api-key``) the key itself."""
    proxy: Annotated[StrictStr, AfterValidator(_proxy_url)] | None = None
    """An explicit proxy URL; the environment's proxy settings are never used."""
    prompt: Annotated[StrictStr, AfterValidator(_prompt)] = DEFAULT_PROMPT
    """System prompt; ``{tiers}`` lists the tier ids (appended when absent)."""
    timeout_ms: Millis = 8000
    """Deadline for one classification, connection included."""
    connect_timeout_ms: Millis = 3000
    """Deadline for opening the connection (never more than ``timeout_ms``)."""
    cache: StrictBool = True
    """Remember classifications of identical inputs (256 entries and 8 Mi characters of
    request text, oldest evicted)."""
    max_tokens: Annotated[StrictInt, Field(gt=0, le=65_536)] = 256
    """Completion token budget asked of the model."""
    max_response_bytes: Annotated[StrictInt, Field(gt=0, le=64 << 20)] = 1 << 20
    """Largest response body read; a longer one is a classifier failure."""


class TiersConfig(BaseModel):
    """Everything ``[tiers]`` holds. Defaults are the seed design's."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    enabled: StrictBool = True
    default_tier: TierId = DEFAULT_TIER
    respect_explicit_model: StrictBool = True
    ids: tuple[TierId, ...] | None = None
    """The tiers the classifier chooses from, in order; default: the keys of ``models``."""
    models: dict[TierId, ModelName] = Field(default_factory=lambda: dict(DEFAULT_MODELS))
    """Tier id -> model. A tier listed in ``ids`` but not here is unmapped.
    Default: the seed's three tiers, unless ``ids`` is given (then none)."""
    classifier: Literal["rules", "llm"] = "rules"
    rules: tuple[TierRule, ...] = ()
    llm: LlmClassifierConfig = LlmClassifierConfig()

    @model_validator(mode="before")
    @classmethod
    def _no_default_models_with_ids(cls, data: Any) -> Any:
        # The default mapping names the default tiers; a config that lists its
        # own ids and no models has no mappings rather than foreign ones.
        if isinstance(data, dict) and "ids" in data and "models" not in data:
            return {**data, "models": {}}
        return data

    def problems(self) -> list[tuple[str, str]]:
        """Cross-key problems as ``(key path relative to [tiers], message)`` pairs."""
        return config_problems(self)

    @property
    def tier_ids(self) -> tuple[str, ...]:
        """The ordered tier vocabulary."""
        return self.ids if self.ids is not None else tuple(self.models)


def config_problems(config: TiersConfig, *, require_endpoint: bool = True) -> list[tuple[str, str]]:
    """Cross-key problems of ``config`` as ``(key path under tiers, message)`` pairs."""
    problems: list[tuple[str, str]] = []
    ids = config.tier_ids
    if config.ids is not None:
        seen: set[str] = set()
        for i, tier in enumerate(config.ids):
            if tier in seen:
                problems.append((f"ids[{i}]", f"duplicate tier id {tier!r}"))
            seen.add(tier)
        for tier in config.models:
            if tier not in seen:
                problems.append((f"models.{tier}", f"tier {tier!r} is not listed in tiers.ids"))
    if not ids:
        where = "ids" if config.ids is not None else "models"
        problems.append((where, "expected at least one tier"))
        return problems
    expected = ", ".join(ids)
    if config.default_tier not in ids:
        problems.append(
            (
                "default_tier",
                f"{config.default_tier!r} is not a tier; expected one of: {expected}",
            )
        )
    for i, rule in enumerate(config.rules):
        if rule.tier not in ids:
            problems.append(
                (f"rules[{i}].tier", f"{rule.tier!r} is not a tier; expected one of: {expected}")
            )
    if config.classifier == "llm" and require_endpoint:
        endpoint = config.llm.endpoint
        if endpoint is None:
            problems.append(("llm.endpoint", 'missing required key (classifier = "llm")'))
        elif not endpoint.startswith(("http://", "https://")):
            problems.append(
                ("llm.endpoint", f"expected an http:// or https:// URL, got {endpoint!r}")
            )
    return problems
