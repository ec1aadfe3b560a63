"""``POST /v1/route``: which model should serve this request body (for gateways like CCR).

I/O edge (HTTP), a thin adapter over :class:`smista.hosts.engine.HostEngine`.
The body is a whole model request as a gateway holds it: an Anthropic Messages
body (what claude-code-router hands its custom router as ``req.body``), an
OpenAI chat body, or a Responses body; keys other than the message fields are
ignored. The turn model reads the current user turn (harness noise stripped,
follow-ups resolved) and the service's ``[routing]`` policy (from ``--config``)
routes it on the deterministic rules; the decision model is never called here,
so rules with decision conditions are skipped.

The answer is ``{"model": "provider,model", "model_ref": "provider/model",
"intent", "confidence", "reason", ...}``, with ``model`` in
claude-code-router's ``provider,model`` form. When smista has no opinion,
``model`` is ``null`` and ``reason`` says why: a housekeeping call (titles,
summaries: let the gateway's background route take it), a turn without user
text, a body that already names a ``provider,model`` (the user's own
``/model`` choice), no routing policy, or no rule matched and no default
route. A malformed message list is a 422 ``invalid_request`` naming the key
path; a current user text over the service's prompt limit a 422
``prompt_too_large``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr, WithJsonSchema

from smista.config.settings import settings_from_document
from smista.core.classifier import Classifier
from smista.core.intent import Confidence, TaskIntent
from smista.core.routing import RoutingDecision, RoutingPolicy
from smista.core.turns import PAYLOAD_SCHEMA, TurnError
from smista.hosts._turn import turn_from_body
from smista.hosts.engine import HostDecision, HostEngine, policy_or_none
from smista.server.errors import ApiError
from smista.server.plugins import Handled, RequestContext

__all__ = ["ENDPOINT", "RouteAnswer", "RouteBody", "RouteEndpoint", "ccr_model"]


_BODY_SCHEMA: dict[str, Any] = {
    "anyOf": [
        {**branch, "properties": {"model": {"type": ["string", "null"]}, **branch["properties"]}}
        for branch in PAYLOAD_SCHEMA["anyOf"][1:]  # type: ignore[index]
    ]
}
"""The turn parser's own schema of a request object (``messages`` or ``input``)."""


def _described(text: str) -> WithJsonSchema:
    return WithJsonSchema({"description": text})


class RouteBody(BaseModel):
    """A model request body: Anthropic Messages or OpenAI chat (``messages``), or Responses.

    The message keys are checked by the turn parser (whose schema the OpenAPI
    document shows), not here; only the keys the client sent are handed on.
    """

    model_config = ConfigDict(frozen=True, extra="ignore", json_schema_extra=_BODY_SCHEMA)

    model: StrictStr | None = Field(
        default=None,
        description="The requested model; a 'provider,model' value is the user's own choice "
        "and gets no opinion.",
    )
    messages: Annotated[Any, _described("Anthropic Messages or OpenAI chat messages.")] = None
    system: Annotated[Any, _described("Anthropic top-level system prompt.")] = None
    input: Annotated[Any, _described("Responses API input (a string or items).")] = None
    instructions: Annotated[Any, _described("Responses API instructions.")] = None


class RouteAnswer(BaseModel):
    """smista's routing opinion; ``model`` is ``null`` for "no opinion"."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: StrictStr | None = Field(
        description="The routed model as claude-code-router's 'provider,model', or null."
    )
    model_ref: StrictStr | None = Field(description="The routed model as 'provider/model'.")
    fallbacks: tuple[StrictStr, ...] = Field(description="Fallbacks, as 'provider,model'.")
    intent: TaskIntent | None = Field(description="The turn's intent (null when skipped).")
    confidence: Confidence | None
    reason: StrictStr = Field(description="Why this model, or why no opinion.")
    classification_reason: StrictStr | None = Field(description="Why this intent.")
    matched_rule: StrictStr | None = Field(description="The routing rule that matched.")
    housekeeping: StrictStr | None = Field(description="The housekeeping kind, if any.")
    follow_up: StrictBool = Field(description="The intent came from an earlier user turn.")


def ccr_model(ref: str) -> str:
    """``provider/model`` -> claude-code-router's ``provider,model``."""
    provider, _, model = ref.partition("/")
    return f"{provider},{model}"


def _payload(body: RouteBody) -> dict[str, Any]:
    """The message keys exactly as the client sent them."""
    keys = ("messages", "system", "input", "instructions")
    return {key: getattr(body, key) for key in keys if key in body.model_fields_set}


def _no_opinion(why: str, decision: HostDecision | None = None) -> RouteAnswer:
    c = decision.classification if decision is not None else None
    found = decision.housekeeping if decision is not None else None
    return RouteAnswer(
        model=None,
        model_ref=None,
        fallbacks=(),
        intent=c.intent if c is not None else None,
        confidence=c.confidence if c is not None else None,
        reason=why,
        classification_reason=c.reason if c is not None else None,
        matched_rule=None,
        housekeeping=found.kind if found is not None else None,
        follow_up=decision.result.follow_up if decision is not None else False,
    )


def _answer(decision: HostDecision, routed: RoutingDecision) -> RouteAnswer:
    c = decision.result.classification
    return RouteAnswer(
        model=ccr_model(routed.model_ref),
        model_ref=routed.model_ref,
        fallbacks=tuple(ccr_model(f) for f in routed.fallbacks),
        intent=c.intent,
        confidence=c.confidence,
        reason=routed.reason,
        classification_reason=c.reason,
        matched_rule=routed.matched_rule,
        housekeeping=None,
        follow_up=decision.result.follow_up,
    )


@dataclass(frozen=True, slots=True)
class RouteRuntime:
    """One generation's routing policy (``None``: no ``[routing]`` rules or default)."""

    routing: RoutingPolicy | None


class RouteEndpoint:
    """The ``/v1/route`` endpoint."""

    name = "route"
    path = "/v1/route"
    summary = "The model a gateway should use for a request body (claude-code-router form)."
    request_model = RouteBody
    response_model = RouteAnswer
    prompt_fields: tuple[str, ...] = ()
    error_statuses: Mapping[int, str] = {}  # 422s (invalid_request, prompt_too_large) are common

    def build(
        self,
        document: Mapping[str, Any],
        source: str | None,
        classifier: Classifier,  # noqa: ARG002 - the service's rules are used per request
        previous: Any,  # noqa: ARG002 - nothing to carry over
    ) -> RouteRuntime:
        return RouteRuntime(policy_or_none(settings_from_document(document, source).routing))

    def commit(self, runtime: RouteRuntime) -> None:
        """Nothing to switch: each generation has its own immutable runtime."""

    async def handle(self, runtime: RouteRuntime, request: Any, ctx: RequestContext) -> Handled:
        body: RouteBody = request
        payload = _payload(body)
        engine = HostEngine(ctx.classifier, runtime.routing)
        try:
            # Bodies are whole agent contexts (often hundreds of KB): read them off the loop.
            result = await asyncio.to_thread(engine.classify, turn_from_body(payload))
        except TurnError as exc:
            raise ApiError(
                422,
                "invalid_request",
                "request body does not match the schema",
                [(exc.loc or "(body)", exc.detail)],
            ) from None
        limit = ctx.max_prompt_chars
        if limit is not None and len(result.turn.text) > limit:
            raise ApiError(
                422,
                "prompt_too_large",
                f"prompt is longer than {limit} characters",
                [("messages", f"{len(result.turn.text)} characters; at most {limit} are allowed")],
            )
        decision = engine.route(result)
        if decision.skipped is not None:
            answer = _no_opinion(decision.skipped, decision)
        elif body.model is not None and "," in body.model:
            answer = _no_opinion(f"the request already names '{body.model}'", decision)
        elif decision.routing is None:
            answer = _no_opinion(decision.no_route or "nothing routes", decision)
        else:
            answer = _answer(decision, decision.routing)
        fields: dict[str, object] = {
            "intent": answer.intent.value if answer.intent is not None else None,
            "model": answer.model_ref,
            "no_opinion": answer.model is None,
            "housekeeping": answer.housekeeping,
            "prompt_chars": len(result.turn.text),
        }
        if ctx.log_prompts:
            fields["prompt"] = result.turn.text
        return Handled(answer, fields)


ENDPOINT = RouteEndpoint()
