"""route(): precedence, reasons, path globs and decision conditions (the original's tests as data)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from smista.core.decisionresult import Complexity, DecisionResult
from smista.core.errors import NoRouteError, RoutingError
from smista.core.intent import Confidence, IntentSource, TaskIntent
from smista.core.result import Classification
from smista.core.routing import (
    DefaultRoute,
    Effort,
    RoutingDecision,
    RoutingPolicy,
    RoutingRule,
    Specificity,
    route,
)


def task(intent: str) -> Classification:
    return Classification(
        intent=TaskIntent(intent),
        source=IntentSource.INFERRED,
        reason="test",
        confidence=Confidence.LOW,
    )


def policy(data: dict[str, Any]) -> RoutingPolicy:
    return RoutingPolicy.model_validate(data)


def decision(
    category: str = "standard", consequential: float = 0.2, confidence: float = 0.9
) -> DecisionResult:
    return DecisionResult(
        category=Complexity(category),
        probability=0.9,
        confidence=confidence,
        consequential=consequential,
        new_task=0.1,
        model="jev",
    )


DEFAULT = {"model": "openai/gpt-5.5-mini"}


# ---------------------------------------------------------------------------
# the original policy matcher's tests


def test_explicit_override_bypasses_rules() -> None:
    """An explicit model wins outright: no fallbacks, no matched rule, reason names it."""
    routing = policy(
        {
            "default": DEFAULT,
            "rules": [{"name": "edits", "intent": "edit", "model": "ollama/llama3"}],
        }
    )
    got = route(
        task("edit"),
        routing,
        touched_files=["src/main.rs"],
        explicit_model="anthropic/claude-sonnet",
    )
    assert got == RoutingDecision(
        intent=TaskIntent.EDIT,
        provider="anthropic",
        model="claude-sonnet",
        reason="explicit model override 'anthropic/claude-sonnet'",
        override_used=True,
    )


def test_override_wins_even_when_a_rule_with_fallbacks_matches() -> None:
    """The override carries no fallback chain."""
    routing = policy(
        {
            "default": DEFAULT,
            "rules": [
                {
                    "name": "edits",
                    "intent": "edit",
                    "model": "ollama/llama3",
                    "fallbacks": ["ollama/backup"],
                }
            ],
        }
    )
    got = route(task("edit"), routing, explicit_model="anthropic/claude-sonnet")
    assert got.override_used
    assert got.fallbacks == ()
    assert got.matched_rule is None


def test_rule_on_intent_and_path() -> None:
    """The §7 example: model, fallbacks, rule name, reason, index."""
    routing = policy(
        {
            "default": DEFAULT,
            "rules": [
                {
                    "name": "auth edits use Claude",
                    "intent": "edit",
                    "paths": ["src/auth/**"],
                    "model": "anthropic/claude-sonnet",
                    "fallbacks": ["openai/gpt-5.5-thinking"],
                }
            ],
        }
    )
    got = route(task("edit"), routing, touched_files=["src/auth/login.rs"])
    assert (got.provider, got.model) == ("anthropic", "claude-sonnet")
    assert got.model_ref == "anthropic/claude-sonnet"
    assert got.fallbacks == ("openai/gpt-5.5-thinking",)
    assert got.matched_rule == "auth edits use Claude"
    assert got.reason == "rule 'auth edits use Claude' matched on intent and path"
    assert got.rule_index == 0
    assert not got.override_used
    assert not got.fallback_used
    assert got.effort is Effort.MEDIUM


def test_default_route_when_no_rule_matches() -> None:
    """Default model and fallbacks; reason names the default model."""
    routing = policy(
        {
            "default": {"model": "openai/gpt-5.5-mini", "fallbacks": ["ollama/qwen2.5-coder"]},
            "rules": [{"name": "auth", "paths": ["src/auth/**"], "model": "ollama/llama3"}],
        }
    )
    got = route(task("chat"), routing, touched_files=["docs/readme.md"])
    assert got.model_ref == "openai/gpt-5.5-mini"
    assert got.fallbacks == ("ollama/qwen2.5-coder",)
    assert got.matched_rule is None
    assert got.rule_index is None
    assert got.effort is None
    assert got.reason == "no rule matched; using the default route to 'openai/gpt-5.5-mini'"


def test_no_rule_and_no_default_is_no_route() -> None:
    """NoRouteError (API code no_route)."""
    routing = policy(
        {"rules": [{"name": "auth", "paths": ["src/auth/**"], "model": "ollama/llama3"}]}
    )
    with pytest.raises(NoRouteError) as info:
        route(task("chat"), routing, touched_files=["docs/readme.md"])
    assert info.value.code == "no_route"


def test_lower_priority_value_first() -> None:
    """Priority ascending; the matched index is the configuration index."""
    routing = policy(
        {
            "default": DEFAULT,
            "rules": [
                {"name": "late", "priority": 100, "intent": "edit", "model": "ollama/late"},
                {"name": "early", "priority": 10, "intent": "edit", "model": "ollama/early"},
            ],
        }
    )
    got = route(task("edit"), routing, touched_files=["src/main.rs"])
    assert (got.matched_rule, got.rule_index) == ("early", 1)


def test_priority_ties_broken_by_specificity() -> None:
    """At equal priority path+intent outranks intent-only."""
    routing = policy(
        {
            "default": DEFAULT,
            "rules": [
                {"name": "intent only", "priority": 10, "intent": "edit", "model": "ollama/broad"},
                {
                    "name": "path and intent",
                    "priority": 10,
                    "intent": "edit",
                    "paths": ["src/**"],
                    "model": "ollama/specific",
                },
            ],
        }
    )
    assert route(task("edit"), routing, touched_files=["src/main.rs"]).matched_rule == (
        "path and intent"
    )


def test_full_ties_broken_by_configuration_order() -> None:
    """Equal priority and specificity: the earlier rule wins (config validation flags the pair)."""
    routing = policy(
        {
            "default": DEFAULT,
            "rules": [
                {"name": "first", "priority": 10, "intent": "edit", "model": "ollama/first"},
                {"name": "second", "priority": 10, "intent": "edit", "model": "ollama/second"},
            ],
        }
    )
    got = route(task("edit"), routing, touched_files=["src/main.rs"])
    assert (got.matched_rule, got.rule_index) == ("first", 0)
    assert routing.problems() != []


def test_higher_precedence_rule_that_does_not_match_is_skipped() -> None:
    """A lower-priority-value rule whose path misses yields to the next."""
    routing = policy(
        {
            "default": DEFAULT,
            "rules": [
                {
                    "name": "auth only",
                    "priority": 10,
                    "paths": ["src/auth/**"],
                    "model": "ollama/auth",
                },
                {"name": "any edit", "priority": 20, "intent": "edit", "model": "ollama/edit"},
            ],
        }
    )
    assert route(task("edit"), routing, touched_files=["src/main.rs"]).matched_rule == "any edit"


@pytest.mark.parametrize(
    ("rule", "intent", "paths", "reason"),
    [
        ({"name": "catch all"}, "chat", ["anything.rs"], "rule 'catch all' matched as a catch-all"),
        (
            {"name": "kind", "intent": "review"},
            "review",
            ["src/main.rs"],
            "rule 'kind' matched on intent",
        ),
        (
            {"name": "paths", "paths": ["src/**"]},
            "chat",
            ["src/main.rs"],
            "rule 'paths' matched on path",
        ),
        (
            {"name": "both", "intent": "edit", "paths": ["src/**"]},
            "edit",
            ["src/x.rs"],
            "rule 'both' matched on intent and path",
        ),
    ],
)
def test_every_condition_shape_matches_with_its_reason(
    rule: dict[str, Any], intent: str, paths: list[str], reason: str
) -> None:
    """None, intent, path, path+intent: each matches when its conditions hold."""
    routing = policy({"default": DEFAULT, "rules": [{**rule, "model": "ollama/m"}]})
    got = route(task(intent), routing, touched_files=paths)
    assert got.matched_rule == rule["name"]
    assert got.reason == reason


@pytest.mark.parametrize(
    ("rule", "intent", "paths"),
    [
        ({"name": "intent", "intent": "edit"}, "chat", ["x.rs"]),
        ({"name": "path", "paths": ["src/**"]}, "chat", ["docs/x.md"]),
        (
            {"name": "intent ok, path miss", "intent": "edit", "paths": ["src/**"]},
            "edit",
            ["docs/x.md"],
        ),
        (
            {"name": "path ok, intent miss", "intent": "edit", "paths": ["src/**"]},
            "chat",
            ["src/x.rs"],
        ),
        ({"name": "no files", "paths": ["**"]}, "chat", []),
    ],
)
def test_a_failing_present_condition_falls_through_to_the_default(
    rule: dict[str, Any], intent: str, paths: list[str]
) -> None:
    """Conditions are AND-combined; any one failing means no match."""
    routing = policy({"default": DEFAULT, "rules": [{**rule, "model": "ollama/m"}]})
    assert route(task(intent), routing, touched_files=paths).matched_rule is None


def test_deterministic_across_calls() -> None:
    """The same input routes the same way twice."""
    routing = policy(
        {
            "default": DEFAULT,
            "rules": [{"name": "edits", "intent": "edit", "model": "ollama/llama3"}],
        }
    )
    assert route(task("edit"), routing) == route(task("edit"), routing)


# §9.1 routing-match tests (normalizer.rs)


def test_conditionless_rule_matches() -> None:
    """{"name":"any","model":"ollama/llama3"} matches anything."""
    rule = RoutingRule(name="any", model="ollama/llama3")
    assert rule.matches(TaskIntent.CHAT, [])


def test_auth_edits_rule_matches_only_edits_under_src_auth() -> None:
    """(edit, src/auth/login.rs) yes; (review, same) no; (edit, docs/readme.md) no."""
    rule = RoutingRule.model_validate(
        {"name": "auth edits", "intent": "edit", "paths": ["src/auth/**"], "model": "ollama/llama3"}
    )
    assert rule.matches(TaskIntent.EDIT, ["src/auth/login.rs"])
    assert not rule.matches(TaskIntent.REVIEW, ["src/auth/login.rs"])
    assert not rule.matches(TaskIntent.EDIT, ["docs/readme.md"])


def test_rule_with_an_invalid_glob_matches_nothing() -> None:
    """paths=["["] never matches, even with a default route to fall back to."""
    rule = RoutingRule(name="bad", paths=("[",), model="ollama/llama3")
    assert not rule.matches(TaskIntent.CHAT, ["["])
    routing = RoutingPolicy(default=DefaultRoute(model="a/b"), rules=(rule,))
    assert route(task("chat"), routing, touched_files=["x"]).matched_rule is None


# ---------------------------------------------------------------------------
# decision conditions (smista additions)


COMPLEX_RULES = {
    "default": DEFAULT,
    "rules": [
        {
            "name": "hard edits",
            "intent": "edit",
            "complexity": "complex",
            "model": "anthropic/opus",
        },
        {"name": "edits", "intent": "edit", "model": "ollama/coder"},
        {"name": "risky", "min_consequential": 0.7, "model": "anthropic/sonnet"},
    ],
}


def test_decision_rules_are_skipped_without_a_decision() -> None:
    """No decision result: complexity/min_consequential rules never match."""
    got = route(task("edit"), policy(COMPLEX_RULES))
    assert got.matched_rule == "edits"
    assert route(task("chat"), policy(COMPLEX_RULES)).matched_rule is None


def test_complexity_rule_matches_its_category_and_is_tried_first() -> None:
    """Same priority and rung: the rule with a decision condition is more specific."""
    routing = policy(COMPLEX_RULES)
    got = route(task("edit"), routing, decision=decision("complex"))
    assert got.matched_rule == "hard edits"
    assert got.reason == "rule 'hard edits' matched on intent with complexity 'complex'"
    assert route(task("edit"), routing, decision=decision("simple")).matched_rule == "edits"


def test_min_consequential_is_inclusive() -> None:
    """consequential >= min_consequential matches; just below does not."""
    routing = policy(COMPLEX_RULES)
    got = route(task("chat"), routing, decision=decision(consequential=0.7))
    assert got.matched_rule == "risky"
    assert got.reason == "rule 'risky' matched on consequentiality >= 0.7"
    below = route(task("chat"), routing, decision=decision(consequential=0.6999))
    assert below.matched_rule is None


def test_reason_with_both_decision_conditions_on_a_path_rule() -> None:
    """Decision conditions follow the original wording after 'with'."""
    rule = RoutingRule(
        name="n",
        paths=("src/**",),
        complexity=Complexity.SIMPLE,
        min_consequential=0.5,
        model="a/b",
    )
    assert rule.reason() == (
        "rule 'n' matched on path with complexity 'simple' and consequentiality >= 0.5"
    )
    both = RoutingRule(name="m", complexity=Complexity.COMPLEX, min_consequential=0.25, model="a/b")
    assert both.reason() == "rule 'm' matched on complexity 'complex' and consequentiality >= 0.25"


def test_specificity_ladder_ignores_decision_conditions() -> None:
    """The rung is the original's; decision conditions are a second, lower-order key."""
    assert RoutingRule(name="a", model="a/b").specificity is Specificity.DEFAULT
    assert (
        RoutingRule(name="a", intent=TaskIntent.EDIT, model="a/b").specificity is Specificity.INTENT
    )
    assert RoutingRule(name="a", paths=("x",), model="a/b").specificity is Specificity.PATH
    assert (
        RoutingRule(name="a", paths=("x",), intent=TaskIntent.EDIT, model="a/b").specificity
        is Specificity.PATH_INTENT
    )
    rule = RoutingRule(name="a", complexity=Complexity.SIMPLE, model="a/b")
    assert rule.specificity is Specificity.DEFAULT
    assert rule.decision_conditions == 1
    assert Specificity.PATH_INTENT > Specificity.PATH > Specificity.INTENT > Specificity.DEFAULT


def test_priority_still_beats_decision_specificity() -> None:
    """A lower priority value wins over a more specific rule."""
    routing = policy(
        {
            "rules": [
                {"name": "hard", "priority": 20, "complexity": "complex", "model": "a/hard"},
                {"name": "all", "priority": 10, "model": "a/all"},
            ]
        }
    )
    assert route(task("chat"), routing, decision=decision("complex")).matched_rule == "all"


def test_rung_beats_decision_conditions() -> None:
    """An intent rule outranks a catch-all with a complexity condition at equal priority."""
    routing = policy(
        {
            "rules": [
                {"name": "hard", "complexity": "complex", "model": "a/hard"},
                {"name": "edits", "intent": "edit", "model": "a/edit"},
            ]
        }
    )
    assert route(task("edit"), routing, decision=decision("complex")).matched_rule == "edits"


# ---------------------------------------------------------------------------
# model references and the explicit override


def test_invalid_explicit_model_is_a_routing_error() -> None:
    """'provider/model' is required."""
    with pytest.raises(RoutingError, match="expected 'provider/model'"):
        route(task("chat"), policy({"default": DEFAULT}), explicit_model="gpt-5")


def test_model_keeps_slashes_after_the_provider() -> None:
    """ollama/library/llama3 is provider ollama, model library/llama3."""
    got = route(task("chat"), policy({"default": {"model": "ollama/library/llama3"}}))
    assert (got.provider, got.model) == ("ollama", "library/llama3")


@pytest.mark.parametrize("bad", ["claude-sonnet", "/claude", "anthropic/", ""])
def test_malformed_model_references_are_rejected(bad: str) -> None:
    """A rule or default with a malformed model fails validation."""
    with pytest.raises(ValueError, match="provider/model"):
        RoutingRule(name="r", model=bad)


def test_wire_round_trip() -> None:
    """The policy survives model_dump -> model_validate."""
    routing = policy(COMPLEX_RULES)
    assert RoutingPolicy.model_validate(routing.model_dump()) == routing


# ---------------------------------------------------------------------------
# properties


_INTENTS = st.sampled_from(list(TaskIntent))
_RULES = st.lists(
    st.builds(
        lambda i, intent, paths, tier, prio: RoutingRule(
            name=f"r{i}",
            intent=intent,
            paths=tuple(paths),
            complexity=tier,
            priority=prio,
            model=f"p/m{i}",
        ),
        st.integers(0, 10_000),
        st.none() | _INTENTS,
        st.lists(st.sampled_from(["src/**", "*.md", "docs/*", "["]), max_size=2),
        st.none() | st.sampled_from(list(Complexity)),
        st.integers(0, 3),
    ),
    max_size=6,
)


@given(
    _RULES,
    _INTENTS,
    st.lists(st.sampled_from(["src/a.rs", "README.md", "docs/x"]), max_size=3),
    st.booleans(),
)
def test_route_is_total_with_a_default_route(
    rules: list[RoutingRule], intent: TaskIntent, files: list[str], with_decision: bool
) -> None:
    """With a default route every request gets a model, and a matched rule really matches."""
    routing = RoutingPolicy(default=DefaultRoute(model="d/default"), rules=tuple(rules))
    chosen = decision("complex") if with_decision else None
    got = route(task(intent.value), routing, touched_files=files, decision=chosen)
    assert got.intent is intent
    if got.rule_index is None:
        assert got.model_ref == "d/default"
        assert not any(r.matches(intent, files, chosen) for r in rules)
    else:
        winner = rules[got.rule_index]
        assert winner.matches(intent, files, chosen)
        assert got.model_ref == winner.model
        earlier = [
            r
            for i, r in enumerate(rules)
            if (*r.precedence(), i) < (*winner.precedence(), got.rule_index)
        ]
        assert not any(r.matches(intent, files, chosen) for r in earlier)
