"""Grounding checks: the confidence package's test tables (spec C.7), its heuristics (C.3),
classifier-response parsing (C.4), and properties."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from smista.core import abstain
from smista.core.grounding import (
    ABSTAIN_THRESHOLD,
    DEFAULT_CLASSIFIER_THRESHOLD,
    PLACEHOLDER_PREFIXES,
    PLACEHOLDER_VALUES,
    Report,
    evaluate,
    is_placeholder,
    parse_classifier_response,
    should_abstain,
    should_abstain_at,
    to_float,
)

CASES: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "grounding_cases.json").read_text("utf-8")
)


@pytest.mark.parametrize("case", CASES["evaluate"], ids=[c["name"] for c in CASES["evaluate"]])
def test_evaluate_table(case: dict[str, Any]) -> None:
    """Each Evaluate case gives the expected score, keys, reason and abstention."""
    report = evaluate(case["params"], case["required"])
    if "score" in case:
        assert report.score == case["score"]
    if "abstain" in case:
        assert report.should_abstain is case["abstain"]
    if "missing" in case:
        assert list(report.missing_keys) == case["missing"]
    if "weak" in case:
        assert list(report.weak_keys) == case["weak"]
    if "reason" in case:
        assert report.reason == case["reason"]
    for fragment in case.get("reason_contains", []):
        assert fragment in report.reason


@pytest.mark.parametrize(
    ("key", "value"),
    [(g["key"], v) for g in CASES["weak_single_key"] for v in g["values"]],
)
def test_single_placeholder_abstains_and_is_the_one_weak_key(key: str, value: str) -> None:
    """PlaceholderTokens / NewPlaceholderEntries / eval scenarios: abstain, one weak key."""
    report = evaluate({key: value}, [key])
    assert report.should_abstain
    assert report.weak_keys == (key,)
    assert report.missing_keys == ()
    assert report.score == 0.0


@pytest.mark.parametrize(("value", "weak"), CASES["is_placeholder"])
def test_is_placeholder_table(value: str, weak: bool) -> None:
    """The heuristics' consequences, including Go's whitespace and lowercasing."""
    assert is_placeholder(value) is weak


@pytest.mark.parametrize("value", CASES["non_strings"])
def test_non_strings_are_never_placeholders(value: object) -> None:
    """null, false, 0, arrays and objects are trusted."""
    assert not is_placeholder(value)
    assert evaluate({"k": value}, ["k"]).score == 1.0


def test_every_listed_placeholder_is_weak_in_any_case_and_padding() -> None:
    """Every exact entry and prefix is caught, whatever the case and surrounding spaces."""
    for value in PLACEHOLDER_VALUES:
        assert is_placeholder(f"  {value.upper()}\t")
    for prefix in PLACEHOLDER_PREFIXES:
        assert is_placeholder(prefix.upper() + "rest")
    assert len(PLACEHOLDER_VALUES) == 33
    assert len(PLACEHOLDER_PREFIXES) == 17


def test_thresholds_locked_at_half() -> None:
    """AbstainThreshold and DefaultClassifierThreshold are 0.5; the gate is shared."""
    assert ABSTAIN_THRESHOLD == 0.5
    assert DEFAULT_CLASSIFIER_THRESHOLD == 0.5
    assert should_abstain is abstain.should_abstain
    assert should_abstain_at is abstain.should_abstain_at
    assert not should_abstain(0.5)
    assert should_abstain(0.49999)


def test_report_defaults_and_dict() -> None:
    """No required keys: score 1.0 with empty lists and reason."""
    report = evaluate({}, None)
    assert report == Report(1.0)
    assert report.as_dict() == {"score": 1.0, "missing_keys": [], "weak_keys": [], "reason": ""}


@pytest.mark.parametrize("case", CASES["parse"], ids=[c["name"] for c in CASES["parse"]])
def test_parse_classifier_response_table(case: dict[str, Any]) -> None:
    """ParseClassifierResponse cases: signal and clamped score, or (1.0, False)."""
    score, ok = parse_classifier_response(case["input"])
    assert ok is case["ok"]
    assert math.isclose(score, case["score"], abs_tol=1e-9)


@pytest.mark.parametrize(
    ("score", "threshold", "expected"),
    [c[1:] for c in CASES["should_abstain_at"]],
    ids=[c[0] for c in CASES["should_abstain_at"]],
)
def test_should_abstain_at_table(score: float, threshold: float, expected: bool) -> None:
    """ShouldAbstainAt cases, with the <= 0 and > 1 clamps."""
    assert should_abstain_at(score, threshold) is expected


def test_nan_threshold_never_abstains() -> None:
    """A NaN threshold never abstains."""
    assert not should_abstain_at(0.0, math.nan)


@pytest.mark.parametrize(("value", "expected", "ok"), CASES["to_float"])
def test_to_float_table(value: object, expected: float, ok: bool) -> None:
    """toFloat: numbers (not booleans), JSON-number strings, and null-as-zero."""
    assert to_float(value) == (expected, ok)


def test_deep_nesting_follows_go_limit() -> None:
    """Go accepts up to 10000 nested containers; deeper input is no signal, never an error."""
    deep = "[" * 9999 + "]" * 9999
    assert parse_classifier_response('{"x":' + deep + ',"confidence":0.25}') == (0.25, True)
    deeper = "[" * 10000 + "]" * 10000
    assert parse_classifier_response('{"x":' + deeper + ',"confidence":0.25}') == (1.0, False)


# -- properties -------------------------------------------------------------

json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=12,
)
keys = st.text(max_size=6)
placeholder_strings = st.sampled_from(sorted(PLACEHOLDER_VALUES)) | st.builds(
    lambda p, rest: p + rest, st.sampled_from(PLACEHOLDER_PREFIXES), st.text(max_size=5)
)


@given(st.dictionaries(keys, json_values, max_size=6), st.lists(keys, max_size=8))
def test_score_is_always_in_unit_interval(params: dict[str, Any], required: list[str]) -> None:
    """Scores lie in [0, 1]; keys are partitioned per required occurrence."""
    report = evaluate(params, required)
    assert 0.0 <= report.score <= 1.0
    assert len(report.missing_keys) + len(report.weak_keys) <= len(required)
    assert set(report.missing_keys).isdisjoint(params)


@given(
    st.dictionaries(keys, json_values, max_size=6),
    st.lists(keys, min_size=1, max_size=8),
    st.data(),
)
def test_adding_placeholders_never_raises_the_score(
    params: dict[str, Any], required: list[str], data: st.DataObject
) -> None:
    """Replacing any value (or filling a missing key) with a placeholder never helps."""
    before = evaluate(params, required).score
    key = data.draw(st.sampled_from(required) | keys)
    worse = {**params, key: data.draw(placeholder_strings)}
    assert is_placeholder(worse[key])
    after = evaluate(worse, required).score
    if key in params and is_placeholder(params[key]):
        assert after == before
    else:
        assert after <= before


@given(st.text())
def test_parse_never_raises_on_text(text: str) -> None:
    """Any text gives a score in [0, 1]; no signal is always exactly (1.0, False)."""
    score, ok = parse_classifier_response(text)
    assert 0.0 <= score <= 1.0
    if not ok:
        assert score == 1.0


@given(json_values, json_values)
def test_parse_agrees_with_json_on_valid_documents(confidence: Any, other: Any) -> None:
    """For JSON Python can write, the Go-rules decoder finds the same confidence."""
    text = json.dumps({"other": other, "confidence": confidence})
    score, ok = parse_classifier_response(text)
    if isinstance(confidence, bool) or confidence is None:
        assert (score, ok) == (1.0, False)
    elif isinstance(confidence, (int, float)) and not isinstance(confidence, bool):
        if math.isinf(float(confidence)) or _overflows(other):
            assert (score, ok) == (1.0, False)
        else:
            assert ok
            assert score == abstain.clamp_score(float(confidence))


def _overflows(value: Any) -> bool:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return False
    if isinstance(value, float):
        return math.isinf(value)
    if isinstance(value, int):
        try:
            float(value)
        except OverflowError:
            return True
        return False
    items = value.values() if isinstance(value, dict) else value
    return any(_overflows(v) for v in items)


@given(st.text(max_size=12))
def test_parse_of_string_confidence_never_raises(inner: str) -> None:
    """A string confidence is read as Go reads it, never with an exception."""
    score, ok = parse_classifier_response(json.dumps({"confidence": inner}))
    assert 0.0 <= score <= 1.0
    _, valid = to_float(inner)
    assert ok is valid


def test_an_integer_beyond_float64_is_not_a_confidence() -> None:
    """An int too large for a float64 is refused ((0.0, False)), as Go's decoder refuses it."""
    assert to_float(10**400) == (0.0, False)
    assert to_float(2**53) == (float(2**53), True)


def test_a_reply_that_is_not_text_carries_no_signal() -> None:
    """No reply at all (None, or a non-string from a loose caller) is "no signal"."""
    assert parse_classifier_response(None) == (1.0, False)
    assert parse_classifier_response(b'{"confidence": 0.2}') == (1.0, False)  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ['{"confidence" 0.3}', '{"confidence"', '{"confidence":0.3,"x"}'])
def test_a_key_without_its_colon_is_malformed(text: str) -> None:
    """Go rejects an object key not followed by ':'; the reply then carries no signal."""
    assert parse_classifier_response(text) == (1.0, False)


@pytest.mark.parametrize(
    "text", ['{"confidence": -}', '{"confidence": -Infinity}', '{"confidence": -.5}']
)
def test_a_minus_sign_without_digits_is_malformed(text: str) -> None:
    """A '-' that starts no JSON number (Go and JavaScript both reject it): the reply
    carries no signal. (Stated here: the property test above drew such a document when
    run alone, not in a whole-suite run, whose draws differ.)"""
    assert parse_classifier_response(text) == (1.0, False)
