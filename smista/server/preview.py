"""``POST /v1/preview``: classification, decision outcome, routing and model switch.

I/O edge (calls the decision model when ``[decision] enabled = true``). A thin
adapter over :func:`smista.decision.preview.build_preview`, exactly what ``smista
preview --json`` prints. Each load validates ``[routing]`` and ``[decision]``
of ``--config`` with :func:`smista.config.settings.settings_from_document` and builds
the decision stage (a missing API key variable is a config error then, never
per request); the classification is the service's own rules, the same ones
``/v1/classify`` answers with. The stage fails open: an unreachable or
misbehaving decision model gives ``decision.status = "unavailable"`` and the
route comes from the rules alone. Token usage accumulates in one ledger across
reloads. No route (no rule matched and no default route) is a 422 ``no_route``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictBool, StrictStr

from smista.config.settings import settings_from_document
from smista.core.classifier import Classifier
from smista.core.errors import NoRouteError, RoutingError
from smista.core.intent import TaskIntent
from smista.core.result import Classification
from smista.core.routing import RoutingDecision, RoutingPolicy
from smista.core.turnclassify import TurnInfo, TurnResult
from smista.core.workspace import Workspace
from smista.decision.ledger import UsageLedger
from smista.decision.preview import Preview, build_preview, conversation_for
from smista.decision.stage import DecisionOutcome, DecisionStage
from smista.decision.state import messages_from_records
from smista.decision.switch import SwitchConfig, SwitchDecision
from smista.server.errors import ApiError
from smista.server.models import ContextKind
from smista.server.plugins import Handled, RequestContext
from smista.server.turns import TextOrMessages, request_turn

__all__ = ["ENDPOINT", "HistoryRecord", "PreviewAnswer", "PreviewBody", "PreviewEndpoint"]

MODEL_REF = r"^[^/]+/[\s\S]+$"


def _model_ref(value: str) -> str:
    """``value`` if it matches :data:`MODEL_REF` (the schema's pattern), else a readable error."""
    provider, _, model = value.partition("/")
    if not provider or not model:
        raise ValueError("explicit_model must be 'provider/model', e.g. 'anthropic/claude-sonnet'")
    return value


ExplicitModel = Annotated[
    StrictStr, AfterValidator(_model_ref), Field(json_schema_extra={"pattern": MODEL_REF})
]


class HistoryRecord(BaseModel):
    """An earlier message; only ``user`` and ``assistant`` text reaches the decision model."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: StrictStr
    content: StrictStr


class PreviewBody(TextOrMessages):
    """One request to preview (``smista preview``'s inputs)."""

    command: TaskIntent | None = Field(default=None, description="An explicit intent.")
    contexts: tuple[ContextKind, ...] = Field(
        default=(), description="Available context kinds.", fail_fast=True
    )
    workspace: Workspace | None = Field(
        default=None, description="Working-tree snapshot; its files feed routing path globs."
    )
    explicit_model: ExplicitModel | None = Field(
        default=None, description="A provider/model override; bypasses the routing rules."
    )
    active_model: StrictStr | None = Field(
        default=None, description="The host's current chat model (for the switch policy)."
    )
    history: tuple[HistoryRecord, ...] = Field(
        default=(), description="Earlier messages, oldest first.", fail_fast=True
    )
    skip_decision: StrictBool = Field(
        default=False, description="Do not call the decision model for this request."
    )


class PreviewAnswer(BaseModel):
    """The answer's shape (``smista.decision.preview.Preview``; classification in wire form)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    classification: Classification
    touched_files: tuple[str, ...]
    decision: DecisionOutcome
    routing: RoutingDecision
    switch: SwitchDecision | None
    turn: TurnInfo | None = Field(
        default=None, description="What the turn was read as (only when messages was given)."
    )


@dataclass(frozen=True, slots=True)
class PreviewRuntime:
    """One generation's routing policy, switch policy and decision stage."""

    routing: RoutingPolicy
    switch: SwitchConfig | None
    stage: DecisionStage | None
    ledger: UsageLedger


class PreviewEndpoint:
    """The ``/v1/preview`` endpoint."""

    name = "preview"
    path = "/v1/preview"
    summary = "Classification, decision outcome, routing and model switch for a request."
    request_model = PreviewBody
    response_model = PreviewAnswer
    prompt_fields = ("text",)
    error_statuses: Mapping[int, str] = {
        422: "no_route: no routing rule matched and there is no default route.",
    }

    def build(
        self,
        document: Mapping[str, Any],
        source: str | None,
        classifier: Classifier,  # noqa: ARG002 - the service's rules are used per request
        previous: Any,
    ) -> PreviewRuntime:
        settings = settings_from_document(document, source)
        ledger = previous.ledger if isinstance(previous, PreviewRuntime) else UsageLedger()
        stage = None
        if settings.decision.enabled:
            from smista.decision.providers import build_stage

            stage = build_stage(settings.decision, ledger=ledger, source=source)
        return PreviewRuntime(settings.routing, settings.decision.switch, stage, ledger)

    def commit(self, runtime: PreviewRuntime) -> None:
        """Nothing to switch: each generation has its own immutable runtime."""

    async def handle(self, runtime: PreviewRuntime, request: Any, ctx: RequestContext) -> Handled:
        body: PreviewBody = request
        text = body.text or ""
        found: TurnResult | None = None
        records = [r.model_dump() for r in body.history]
        if body.messages is not None:
            turn = request_turn(ctx.classifier, body.messages)
            _check_turn_text(turn.text, ctx)
            found = ctx.classifier.classify_turn(
                turn, command=body.command, contexts=body.contexts, workspace=body.workspace
            )
            text = turn.text
            if not records:
                records = [{"role": "user", "content": h} for h in turn.history]
        outcome = DecisionOutcome.disabled()
        if runtime.stage is not None and body.skip_decision:
            outcome = DecisionOutcome.skipped()
        elif runtime.stage is not None:
            history = messages_from_records(records)
            conversation = conversation_for(text, history=history, workspace=body.workspace)
            outcome = await runtime.stage.classify(conversation)
        try:
            preview = build_preview(
                text,
                classification=ctx.classifier,
                routing=runtime.routing,
                switch=runtime.switch,
                decision=outcome,
                command=body.command,
                contexts=body.contexts,
                workspace=body.workspace,
                explicit_model=body.explicit_model,
                active_model=body.active_model,
                result=found.classification if found is not None else None,
                turn=found.info() if found is not None else None,
            )
        except NoRouteError as exc:
            raise ApiError(422, NoRouteError.code, str(exc)) from None
        except RoutingError as exc:
            raise ApiError(
                422, "invalid_request", str(exc), [("explicit_model", str(exc))]
            ) from None
        return Handled(preview, _log_fields(preview, text, ctx))


def _log_fields(preview: Preview, text: str, ctx: RequestContext) -> dict[str, object]:
    c, r = preview.classification, preview.routing
    fields: dict[str, object] = {
        "intent": c.intent.value,
        "source": c.source.value,
        "matched_rule": c.matched_rule,
        "confidence": c.confidence.value if c.confidence is not None else None,
        "route": f"{r.provider}/{r.model}",
        "route_rule": r.matched_rule,
        "override_used": r.override_used,
        "decision_status": preview.decision.status,
        "switched": preview.switch.switched if preview.switch is not None else None,
        "prompt_chars": len(text),
    }
    if preview.turn is not None:
        fields["turn"] = {
            "format": preview.turn.format,
            "follow_up": preview.turn.follow_up,
            "housekeeping": preview.turn.housekeeping,
        }
    if ctx.log_prompts:
        fields["prompt"] = text
    return fields


def _check_turn_text(text: str, ctx: RequestContext) -> None:
    limit = ctx.max_prompt_chars
    if limit is not None and len(text) > limit:
        raise ApiError(
            422,
            "prompt_too_large",
            f"prompt is longer than {limit} characters",
            [("messages", f"{len(text)} characters; at most {limit} are allowed")],
        )


ENDPOINT = PreviewEndpoint()
