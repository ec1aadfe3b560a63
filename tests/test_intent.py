"""TaskIntent, IntentSource, Confidence and Classification: the original's type tests (spec §9.4)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from smista import (
    Classification,
    ClassificationConfig,
    ClassificationRule,
    Confidence,
    IntentSource,
    TaskIntent,
    UnknownIntentError,
)

ALL = ["chat", "plan", "edit", "review", "summarize", "prompt", "skill"]


def test_intents_are_the_seven_lowercase_names() -> None:
    """Exactly seven intents, in the original's order, lowercase on the wire."""
    assert [i.value for i in TaskIntent] == ALL


def test_summarize_serializes_lowercase() -> None:
    """Summarize serializes to "summarize"."""
    c = ClassificationConfig(default_intent=TaskIntent.SUMMARIZE)
    assert c.model_dump(mode="json")["default_intent"] == "summarize"


def test_review_deserializes() -> None:
    """ "review" deserializes to Review."""
    assert ClassificationRule.model_validate({"intent": "review"}).intent is TaskIntent.REVIEW


@pytest.mark.parametrize("value", ["deploy", "Chat", "REVIEW", " chat", ""])
def test_wire_json_is_case_sensitive_and_closed(value: str) -> None:
    """Unknown names and other casings fail to deserialize, as serde does."""
    with pytest.raises(ValidationError):
        ClassificationRule.model_validate_json(json.dumps({"intent": value}))


@pytest.mark.parametrize("intent", list(TaskIntent))
def test_every_variant_round_trips(intent: TaskIntent) -> None:
    """JSON and str/parse round trips; str() equals the wire string."""
    rule = ClassificationRule(intent=intent)
    assert ClassificationRule.model_validate_json(rule.model_dump_json()) == rule
    assert str(intent) == intent.value
    assert TaskIntent.parse(str(intent)) is intent


@pytest.mark.parametrize(
    ("text", "intent"), [("Plan", "plan"), ("REVIEW", "review"), ("sUmMaRiZe", "summarize")]
)
def test_parse_is_case_insensitive(text: str, intent: str) -> None:
    """Text a person typed is read case-insensitively, as the original's FromStr."""
    assert TaskIntent.parse(text) == intent


def test_parse_unknown_names_the_value_and_allowed_names() -> None:
    """An unknown name is a clear error with the lowercased value and the allowed names."""
    with pytest.raises(UnknownIntentError) as info:
        TaskIntent.parse("Deploy")
    assert info.value.value == "deploy"
    message = str(info.value)
    assert "'deploy'" in message
    assert all(name in message for name in ALL)


def test_parse_does_not_unicode_fold() -> None:
    """Only ASCII letters are folded (the original uses to_ascii_lowercase)."""
    with pytest.raises(UnknownIntentError):
        TaskIntent.parse("CHAT\u0130")


def test_default_intent_is_chat() -> None:
    """The default config's default intent is chat and it has no rules."""
    assert ClassificationConfig() == ClassificationConfig.model_validate({})
    assert ClassificationConfig().default_intent is TaskIntent.CHAT
    assert ClassificationConfig().rules == ()


def test_rule_defaults() -> None:
    """A rule gets priority 1000 and empty condition lists by default."""
    rule = ClassificationRule.model_validate({"intent": "edit", "keywords": ["fix"]})
    assert rule.priority == 1000
    assert rule.requires_any_context == ()


def test_config_round_trips() -> None:
    """A config with a full rule round-trips through JSON."""
    data = {
        "default_intent": "chat",
        "rules": [
            {
                "intent": "review",
                "priority": 10,
                "keywords": ["review", "audit"],
                "requires_any_context": ["git_diff"],
            }
        ],
    }
    config = ClassificationConfig.model_validate(data)
    assert config.model_dump(mode="json") == data
    assert ClassificationConfig.model_validate_json(config.model_dump_json()) == config


def test_inferred_result_serializes_with_all_fields() -> None:
    """An inferred result keeps matched_rule and confidence and round-trips."""
    result = Classification(
        intent=TaskIntent.REVIEW,
        source=IntentSource.INFERRED,
        reason="keyword 'review' matched rule 0",
        matched_rule=0,
        confidence=Confidence.HIGH,
    )
    wire = result.to_wire()
    assert wire == {
        "intent": "review",
        "source": "inferred",
        "reason": "keyword 'review' matched rule 0",
        "matched_rule": 0,
        "confidence": "high",
    }
    assert list(wire) == ["intent", "source", "reason", "matched_rule", "confidence"]
    assert Classification.model_validate(wire) == result


def test_explicit_result_omits_optional_fields() -> None:
    """matched_rule and confidence are absent when None."""
    result = Classification(
        intent=TaskIntent.CHAT, source=IntentSource.EXPLICIT, reason="explicit --intent flag"
    )
    assert result.model_dump(mode="json", exclude_none=True) == {
        "intent": "chat",
        "source": "explicit",
        "reason": "explicit --intent flag",
    }


@given(
    st.sampled_from(list(TaskIntent)),
    st.sampled_from(list(IntentSource)),
    st.text(),
    st.none() | st.integers(0, 10**6),
    st.none() | st.sampled_from(list(Confidence)),
)
def test_classification_round_trips(intent, source, reason, rule, confidence) -> None:
    """Any classification survives a JSON round trip."""
    result = Classification(
        intent=intent, source=source, reason=reason, matched_rule=rule, confidence=confidence
    )
    assert Classification.model_validate_json(result.model_dump_json(exclude_none=True)) == result
