"""A preview of one request: classification, decision outcome, routing, model switch.

Pure orchestration over inputs it is given: it classifies (deterministic
rules), takes a decision outcome someone else computed (or none), routes, and
applies the switch policy. It performs no I/O and calls no model; running the
decision stage is the caller's job (see ``smista preview``).

:class:`Preview` is the JSON shape of ``smista preview --json`` and of the
HTTP ``/v1/preview`` endpoint::

    {"classification": {...original wire form...},
     "touched_files": [...],
     "decision": {"status", "reason", "provider", "result", "state"},
     "routing": {"intent", "provider", "model", "fallbacks", "matched_rule",
                 "rule_index", "effort", "reason", "override_used", "fallback_used"},
     "switch": null | {"switched", "model", "active_model", "active_tier",
                       "target_model", "target_tier", "rule", "reason"}}
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    SerializerFunctionWrapHandler,
    field_serializer,
    model_serializer,
)

from smista.core.classifier import Classifier
from smista.core.intent import TaskIntent
from smista.core.result import Classification
from smista.core.routing import RoutingDecision, RoutingPolicy, route
from smista.core.rules import ClassificationConfig
from smista.core.turnclassify import TurnInfo
from smista.core.workspace import Workspace, touched_files
from smista.decision.stage import DecisionOutcome
from smista.decision.state import Conversation, Message
from smista.decision.switch import SwitchConfig, SwitchDecision, decide_switch

__all__ = ["Preview", "build_preview", "conversation_for"]


class Preview(BaseModel):
    """Everything smista would decide for one request."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    classification: Classification
    touched_files: tuple[str, ...] = ()
    decision: DecisionOutcome
    routing: RoutingDecision
    switch: SwitchDecision | None = None
    turn: TurnInfo | None = None
    """What the turn was read as, when a whole turn was previewed (else absent)."""

    @model_serializer(mode="wrap")
    def _without_absent_turn(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if data.get("turn") is None:
            data.pop("turn", None)
        return data

    @field_serializer("classification")
    def _classification_wire(self, value: Classification) -> dict[str, object]:
        return value.to_wire()

    def to_json_dict(self) -> dict[str, Any]:
        """The JSON object (stable key set; classification in the original wire form)."""
        return self.model_dump(mode="json")


def conversation_for(
    text: str,
    *,
    history: Sequence[Message] = (),
    workspace: Workspace | None = None,
    cwd: str | None = None,
) -> Conversation:
    """The decision-stage input for ``text`` (``cwd`` defaults to the workspace root)."""
    root = cwd if cwd is not None else (workspace.root if workspace is not None else None)
    branch = workspace.git_branch if workspace is not None else None
    return Conversation(
        cwd=root or "", git_branch=branch or "", history=tuple(history), message=text
    )


def build_preview(
    text: str,
    *,
    classification: ClassificationConfig | Classifier,
    routing: RoutingPolicy,
    switch: SwitchConfig | None = None,
    decision: DecisionOutcome | None = None,
    command: TaskIntent | str | None = None,
    contexts: Iterable[str] = (),
    workspace: Workspace | None = None,
    explicit_model: str | None = None,
    active_model: str | None = None,
    result: Classification | None = None,
    turn: TurnInfo | None = None,
) -> Preview:
    """Classify, route and (with a switch config) apply the switch policy.

    ``result`` is a classification made already (a whole turn's, see
    :mod:`smista.core.turnclassify`), used instead of classifying ``text``; ``turn``
    is reported as the answer's ``turn``.

    Raises :class:`~smista.core.errors.NoRouteError` when nothing routes, as the
    original's preview does.
    """
    classifier = (
        classification if isinstance(classification, Classifier) else Classifier(classification)
    )
    outcome = decision if decision is not None else DecisionOutcome.disabled()
    if result is None:
        result = classifier.classify(text, command=command, contexts=contexts, workspace=workspace)
    files = tuple(touched_files(workspace))
    routed = route(
        result,
        routing,
        touched_files=files,
        decision=outcome.signal,
        explicit_model=explicit_model,
    )
    switched = decide_switch(active_model, switch, outcome.signal) if switch is not None else None
    return Preview(
        classification=result,
        touched_files=files,
        decision=outcome,
        routing=routed,
        switch=switched,
        turn=turn,
    )
