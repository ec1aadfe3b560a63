"""``POST /v1/tier``: the tier decision for a delegated sub-agent task.

I/O edge (the ``llm`` tier classifier, when configured, calls its endpoint).
A thin adapter over :class:`smista.tiers.TierRouter`: one router lives for the
whole process, so its classification cache and history survive reloads (the
router keeps the cache only when the classifier model, prompt and tier ids are
unchanged). Each load validates the ``[tiers]`` table of ``--config`` (the
shipped tier pack when there is none); a broken table fails the load and the
running configuration stays. The validated config is switched into the router
only in :meth:`TierEndpoint.commit`, after the new state is in service;
routes already in flight finish on the config they started with. The answer
is the router's decision, the same object ``smista tier --json`` prints.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr

from smista.core.classifier import Classifier
from smista.server.models import ContextKind
from smista.server.plugins import Handled, RequestContext
from smista.tiers.loader import tiers_or_shipped
from smista.tiers.model import TiersConfig
from smista.tiers.outcomes import TierOutcome
from smista.tiers.request import TierRequest
from smista.tiers.router import TierRouter

__all__ = ["ENDPOINT", "TierAnswer", "TierBody", "TierEndpoint"]


class TierBody(BaseModel):
    """A delegated task to route (``smista tier``'s inputs)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task: StrictStr | None = None
    solution_space: StrictStr | None = None
    role: StrictStr | None = None
    model: StrictStr | None = None
    contexts: tuple[ContextKind, ...] = Field(default=(), fail_fast=True)


class TierAnswer(BaseModel):
    """The router's decision (``TierDecision``); ``model`` null leaves the task as is."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    timestamp: float
    outcome: TierOutcome
    reason: StrictStr
    selected_tier: StrictStr | None
    model: StrictStr | None
    mapped_model: StrictStr | None
    classifier: StrictStr
    classifier_model: StrictStr | None
    classifier_tier: StrictStr | None
    classifier_reason: StrictStr | None
    fallback_reason: StrictStr | None
    task_preview: StrictStr
    solution_space_preview: StrictStr
    model_role: StrictStr | None
    requested_model: StrictStr | None
    latency_ms: float
    cached: StrictBool


@dataclass(frozen=True, slots=True)
class TierRuntime:
    """The process's router and the config this generation switches it to."""

    router: TierRouter
    config: TiersConfig


class TierEndpoint:
    """The ``/v1/tier`` endpoint."""

    name = "tier"
    path = "/v1/tier"
    summary = "Choose the model tier for a delegated sub-agent task."
    request_model = TierBody
    response_model = TierAnswer
    prompt_fields = ("task", "solution_space")
    error_statuses: Mapping[int, str] = {}

    def build(
        self,
        document: Mapping[str, Any],
        source: str | None,
        classifier: Classifier,  # noqa: ARG002 - tiers have their own rules
        previous: Any,
    ) -> TierRuntime:
        config = tiers_or_shipped(document, source)
        if isinstance(previous, TierRuntime):
            return TierRuntime(previous.router, config)
        from smista.tiers.http import client_from_config

        return TierRuntime(TierRouter(config, completer_factory=client_from_config), config)

    def commit(self, runtime: TierRuntime) -> None:
        if runtime.router.config is not runtime.config:
            runtime.router.reload(runtime.config)

    async def handle(self, runtime: TierRuntime, request: Any, ctx: RequestContext) -> Handled:
        body: TierBody = request
        decision = await runtime.router.route(
            TierRequest(
                task=body.task,
                solution_space=body.solution_space,
                role=body.role,
                model=body.model,
                contexts=frozenset(body.contexts),
            )
        )
        data = decision.as_dict()
        log: dict[str, object] = {
            key: data[key]
            for key in (
                "outcome",
                "selected_tier",
                "model",
                "classifier",
                "classifier_tier",
                "model_role",
                "latency_ms",
                "cached",
            )
        }
        log["task_chars"] = len(body.task or "")
        if ctx.log_prompts:
            log["task"] = body.task
            log["solution_space"] = body.solution_space
        return Handled(TierAnswer.model_validate(data), log)


ENDPOINT = TierEndpoint()
