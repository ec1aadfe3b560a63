"""build_preview(): classification + decision outcome + routing + switch (spec §9.5 as data)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from smista.core.decisionresult import Complexity, DecisionResult
from smista.core.errors import NoRouteError
from smista.core.routing import RoutingPolicy
from smista.core.rules import ClassificationConfig
from smista.core.workspace import Workspace
from smista.decision.preview import Preview, build_preview, conversation_for
from smista.decision.stage import DecisionOutcome
from smista.decision.switch import SwitchConfig

REFACTOR_RULES = ClassificationConfig.model_validate(
    {"default_intent": "chat", "rules": [{"intent": "edit", "keywords": ["refactor"]}]}
)
AUTH_ROUTING = RoutingPolicy.model_validate(
    {
        "default": {"model": "ollama/mock-local"},
        "rules": [
            {
                "name": "auth edits use Claude",
                "intent": "edit",
                "paths": ["src/auth/**"],
                "model": "anthropic/claude-sonnet",
            }
        ],
    }
)


def test_resolver_names_the_matched_rule() -> None:
    """resolver.rs: classification edit, routing edit, matched rule 'auth edits use Claude'."""
    got = build_preview(
        "refactor the auth middleware",
        classification=REFACTOR_RULES,
        routing=AUTH_ROUTING,
        workspace=Workspace(referenced_paths=("src/auth/login.rs",)),
    )
    assert got.classification.intent == "edit"
    assert got.classification.reason == "keyword 'refactor' matched rule 0"
    assert got.classification.confidence == "medium"
    assert got.routing.intent == "edit"
    assert got.routing.matched_rule == "auth edits use Claude"
    assert got.touched_files == ("src/auth/login.rs",)


def test_preview_with_an_explicit_command() -> None:
    """web/routes/preview.rs: command edit; rule 'edits ask before writing' (intent edit)."""
    routing = RoutingPolicy.model_validate(
        {
            "default": {"model": "ollama/mock-local"},
            "rules": [{"name": "edits ask before writing", "intent": "edit", "model": "ollama/m"}],
        }
    )
    got = build_preview("anything", classification=REFACTOR_RULES, routing=routing, command="edit")
    assert got.routing.intent == "edit"
    assert got.routing.matched_rule == "edits ask before writing"
    assert got.classification.source == "explicit"


def test_preview_of_the_default_route() -> None:
    """'hello' with no rules: chat/inferred/low, routed to ollama/mock-local."""
    got = build_preview(
        "hello",
        classification=ClassificationConfig(),
        routing=RoutingPolicy.model_validate({"default": {"model": "ollama/mock-local"}}),
    )
    assert got.classification.to_wire() == {
        "intent": "chat",
        "source": "inferred",
        "reason": "no rule matched; default intent 'chat'",
        "confidence": "low",
    }
    assert got.routing.model_ref == "ollama/mock-local"
    assert got.decision.status == "disabled"
    assert got.switch is None


def test_no_route_propagates() -> None:
    """As in the original, a preview that cannot route fails as a whole."""
    with pytest.raises(NoRouteError):
        build_preview("hello", classification=ClassificationConfig(), routing=RoutingPolicy())


RESULT = DecisionResult(
    category=Complexity.COMPLEX,
    probability=0.9,
    confidence=0.8,
    consequential=0.9,
    new_task=0.7,
    model="jev",
)
TIERED = RoutingPolicy.model_validate(
    {
        "default": {"model": "ollama/mock-local"},
        "rules": [{"name": "hard", "complexity": "complex", "model": "anthropic/opus"}],
    }
)
SWITCH = SwitchConfig(simple="m/s", standard="m/m", complex="m/l")


def tiered_preview(outcome: DecisionOutcome, **extra: Any) -> Preview:
    """'hello' under TIERED routing and SWITCH, the host on m/s, with ``outcome``."""
    return build_preview(
        "hello",
        classification=ClassificationConfig(),
        routing=TIERED,
        switch=SWITCH,
        decision=outcome,
        active_model="m/s",
        **extra,
    )


def test_usable_decision_feeds_routing_and_switch() -> None:
    """An ok outcome matches complexity rules and drives the switch policy."""
    outcome = DecisionOutcome(status="ok", provider="systemone", result=RESULT)
    got = tiered_preview(outcome)
    assert got.routing.matched_rule == "hard"
    assert got.switch is not None
    assert got.switch.switched
    assert got.switch.model == "m/l"


def test_abstained_or_unavailable_decision_is_no_signal() -> None:
    """Neither routing nor switching acts on an abstained result."""
    for outcome in (
        DecisionOutcome(status="abstained", reason="decision abstained: ...", result=RESULT),
        DecisionOutcome.unavailable("timeout after 5s", "systemone"),
    ):
        got = tiered_preview(outcome)
        assert got.routing.matched_rule is None
        assert got.switch is not None
        assert not got.switch.switched


def test_json_shape_is_stable() -> None:
    """The JSON object /v1/preview will return verbatim."""
    outcome = DecisionOutcome(status="ok", provider="systemone", result=RESULT)
    got = tiered_preview(outcome, workspace=Workspace(git_diff="diff --git a/x.py b/x.py"))
    data = got.to_json_dict()
    assert list(data) == ["classification", "touched_files", "decision", "routing", "switch"]
    assert list(data["decision"]) == ["status", "reason", "provider", "result", "state"]
    assert list(data["decision"]["result"]) == [
        "category",
        "probability",
        "confidence",
        "consequential",
        "new_task",
        "model",
        "usage",
    ]
    assert list(data["routing"]) == [
        "intent",
        "provider",
        "model",
        "fallbacks",
        "matched_rule",
        "rule_index",
        "effort",
        "reason",
        "override_used",
        "fallback_used",
    ]
    assert list(data["switch"]) == [
        "switched",
        "model",
        "active_model",
        "active_tier",
        "target_model",
        "target_tier",
        "rule",
        "reason",
    ]
    assert data["touched_files"] == ["x.py"]
    assert "matched_rule" not in data["classification"]
    json.dumps(data)  # plain JSON types only


def test_conversation_for_reads_the_workspace() -> None:
    """cwd from the workspace root (or given), branch from the workspace."""
    c = conversation_for("go", workspace=Workspace(root="/repo", git_branch="main"))
    assert (c.cwd, c.git_branch, c.message) == ("/repo", "main", "go")
    assert conversation_for("go", cwd="/else").cwd == "/else"
    assert conversation_for("go").cwd == ""
