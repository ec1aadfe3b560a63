"""Building decision evaluators from ``[decision]``: the provider registry.

I/O edge: reads the API key from the environment variable the config names and
imports httpx (the ``llm`` extra) when a provider is built. Misconfiguration
(stage disabled, unknown provider, missing base URL or model, unset key
variable, a key that is not printable ASCII) raises
:class:`~smista.core.errors.ConfigError` here, at build time, and is never
swallowed per request. The key itself is never logged or echoed: it is
registered with :mod:`smista._edge.secrets` so every text that could carry it is
redacted.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any

from smista._edge.secrets import check_key
from smista.core.errors import ConfigError
from smista.decision.config import PROVIDERS, DecisionConfig
from smista.decision.contract import Evaluator
from smista.decision.ledger import UsageLedger
from smista.decision.stage import DecisionStage

__all__ = ["PROVIDERS", "build_evaluator", "build_stage"]


def _options(config: DecisionConfig, transport: Any) -> dict[str, Any]:
    return {
        "base_url": config.endpoint_base(),
        "timeout_s": config.timeout_s,
        "max_response_bytes": config.max_response_bytes,
        "key_header": config.api_key_header,
        "proxy": config.proxy,
        "transport": transport,
    }


def _systemone(config: DecisionConfig, key: str | None, transport: Any) -> Evaluator:
    from smista.decision.providers.systemone import SystemOneEvaluator

    if key is None:  # guarded by DecisionConfig.problems(); kept for direct callers
        raise ConfigError([("decision.api_key_env", "required for provider 'systemone'")])
    return SystemOneEvaluator(api_key=key, **_options(config, transport))


def _openai(config: DecisionConfig, key: str | None, transport: Any) -> Evaluator:
    from smista.decision.providers.openai_compat import OpenAICompatEvaluator

    return OpenAICompatEvaluator(api_key=key, **_options(config, transport))


_FACTORIES: dict[str, Callable[[DecisionConfig, str | None, Any], Evaluator]] = {
    "systemone": _systemone,
    "openai": _openai,
}


def _api_key(config: DecisionConfig, environ: Mapping[str, str], source: str | None) -> str | None:
    name = config.api_key_env
    if not name:
        return None
    value = environ.get(name, "").strip()
    if not value:
        raise ConfigError(
            [("decision.api_key_env", f"environment variable {name!r} is not set or is empty")],
            source,
        )
    problem = check_key(value)
    if problem:
        raise ConfigError(
            [
                (
                    "decision.api_key_env",
                    f"the key in {name!r} {problem}; an API key must be printable ASCII",
                )
            ],
            source,
        )
    return value


def build_evaluator(
    config: DecisionConfig,
    *,
    environ: Mapping[str, str] | None = None,
    source: str | None = None,
    transport: Any = None,
) -> Evaluator:
    """The evaluator ``config`` describes; raises ``ConfigError`` if it cannot be built.

    ``environ`` (default ``os.environ``) is where the key variable is looked
    up; ``source`` names the config file in errors; ``transport`` (an
    ``httpx.AsyncBaseTransport``, e.g. ``httpx.MockTransport``) replaces the
    network.
    """
    if not config.enabled:
        raise ConfigError([("decision.enabled", "the decision stage is disabled")], source)
    problems = config.problems()
    if problems:
        raise ConfigError([(f"decision.{loc}", msg) for loc, msg in problems], source)
    factory = _FACTORIES.get(config.provider or "")
    if factory is None:
        raise ConfigError(
            [
                (
                    "decision.provider",
                    f"unknown provider {config.provider!r}; expected one of: "
                    f"{', '.join(PROVIDERS)}",
                )
            ],
            source,
        )
    key = _api_key(config, os.environ if environ is None else environ, source)
    return factory(config, key, transport)


def build_stage(
    config: DecisionConfig,
    *,
    environ: Mapping[str, str] | None = None,
    ledger: UsageLedger | None = None,
    source: str | None = None,
    transport: Any = None,
) -> DecisionStage | None:
    """The decision stage ``config`` describes, or ``None`` when it is disabled."""
    if not config.enabled:
        return None
    evaluator = build_evaluator(config, environ=environ, source=source, transport=transport)
    return DecisionStage(
        evaluator,
        model=config.model or "",
        max_state_bytes=config.max_state_bytes,
        min_confidence=config.min_confidence,
        ledger=ledger,
    )
