"""The decision contract and the task-complexity parser: every rejection has a precise reason."""

from __future__ import annotations

import math
from typing import Any

import pytest

from smista.core.decisionresult import Complexity, Usage
from smista.core.errors import EvaluatorResponseError
from smista.decision.contract import (
    Answer,
    DecisionRequest,
    DecisionResponse,
    Question,
    response_from_json,
    validate_response,
)
from smista.decision.state import Conversation, bound_state
from smista.decision.taskcomplexity import build_request, parse_result, task_complexity_questions


def choice(choice: str = "standard", p: float = 0.82, confidence: float | None = 0.74) -> Answer:
    return Answer(type="choice", choice=choice, probabilities={choice: p}, confidence=confidence)


def noul(value: float | None) -> Answer:
    return Answer(type="noul", noul=value)


def response(**answers: Answer | None) -> DecisionResponse:
    base: dict[str, Answer | None] = {
        "category": choice(),
        "consequential": noul(0.25),
        "new_task": noul(0.1),
    }
    base.update(answers)
    return DecisionResponse(
        model="jev-test",
        answers={k: v for k, v in base.items() if v is not None},
        usage=Usage(input_tokens=12, output_tokens=3),
    )


REQUEST = build_request("jev", bound_state(Conversation(message="implement it")))


def test_the_three_questions() -> None:
    """category (choice over three tiers), consequential and new_task (noul)."""
    questions = task_complexity_questions()
    assert list(questions) == ["category", "consequential", "new_task"]
    assert questions["category"].type == "choice"
    assert list(questions["category"].criteria or {}) == ["simple", "standard", "complex"]
    assert questions["consequential"].type == "noul"
    assert questions["consequential"].criteria is None
    assert questions["new_task"].type == "noul"
    assert "answer 1" in questions["new_task"].instructions
    for q in questions.values():
        assert q.instructions


def test_rubrics_treat_messages_as_data() -> None:
    """The category rubric tells the model to ignore instructions inside messages."""
    text = task_complexity_questions()["category"].instructions
    assert "not instructions" in text
    assert "not how" in text


def test_parse_success() -> None:
    """All seven fields of a successful result."""
    result = parse_result(response())
    assert result.category is Complexity.STANDARD
    assert (result.probability, result.confidence) == (0.82, 0.74)
    assert (result.consequential, result.new_task) == (0.25, 0.1)
    assert result.model == "jev-test"
    assert result.usage == Usage(input_tokens=12, output_tokens=3)


PARSE_FAILURES: list[tuple[dict[str, Any], str]] = [
    ({"category": None}, "missing category answer"),
    ({"category": noul(0.5)}, "missing category answer"),
    ({"consequential": None}, "missing consequential answer"),
    ({"consequential": choice()}, "missing consequential answer"),
    ({"new_task": None}, "missing new_task answer"),
    ({"new_task": Answer(type="score", score=1, confidence=1)}, "missing new_task answer"),
    ({"category": choice("Standard")}, "invalid task complexity category 'Standard'"),
    ({"category": choice("trivial")}, "invalid task complexity category 'trivial'"),
    (
        {
            "category": Answer(
                type="choice", choice="simple", probabilities={"complex": 0.9}, confidence=0.5
            )
        },
        "no probability for the selected category 'simple'",
    ),
    ({"category": choice(p=1.2)}, "probability of 'standard' 1.2 is not a probability in [0, 1]"),
    (
        {"category": choice(p=math.nan)},
        "probability of 'standard' nan is not a probability in [0, 1]",
    ),
    (
        {"category": choice(confidence=-0.1)},
        "category confidence -0.1 is not a probability in [0, 1]",
    ),
    (
        {"category": choice(confidence=None)},
        "category confidence None is not a probability in [0, 1]",
    ),
    ({"consequential": noul(math.inf)}, "consequential inf is not a probability in [0, 1]"),
    ({"new_task": noul(1.0000001)}, "new_task 1.0000001 is not a probability in [0, 1]"),
    ({"new_task": noul(None)}, "new_task None is not a probability in [0, 1]"),
]


@pytest.mark.parametrize(("answers", "reason"), PARSE_FAILURES)
def test_parse_rejections_in_order(answers: dict[str, Any], reason: str) -> None:
    """Spec A.7's checks (plus new_task), each with its own message."""
    with pytest.raises(EvaluatorResponseError) as info:
        parse_result(response(**answers))
    assert str(info.value) == reason


def test_boundary_probabilities_are_valid() -> None:
    """0 and 1 are probabilities."""
    result = parse_result(
        response(
            category=choice(p=1.0, confidence=0.0), consequential=noul(0.0), new_task=noul(1.0)
        )
    )
    assert (result.probability, result.confidence, result.new_task) == (1.0, 0.0, 1.0)


# ---------------------------------------------------------------------------
# protocol validation (every provider)


VALIDATION_FAILURES: list[tuple[dict[str, Any], str]] = [
    ({"extra": noul(0.5)}, "answer count does not match request (3 questions, 4 answers)"),
    ({"new_task": None, "other": noul(0.5)}, "missing answer 'new_task'"),
    ({"consequential": choice()}, "answer 'consequential' has type 'choice', expected 'noul'"),
    (
        {"category": Answer(type="choice", choice="", probabilities={"a": 1}, confidence=1)},
        "answer 'category' has no choice",
    ),
    (
        {"category": Answer(type="choice", choice="simple", probabilities={}, confidence=1)},
        "answer 'category' has no probabilities",
    ),
    ({"category": choice(confidence=None)}, "answer 'category' has no confidence"),
    (
        {"category": choice(confidence=2.0)},
        "answer 'category' confidence 2.0 is not a probability in [0, 1]",
    ),
    (
        {
            "category": Answer(
                type="choice",
                choice="simple",
                probabilities={"simple": 0.5, "complex": -1.0},
                confidence=1,
            )
        },
        "answer 'category' probability of 'complex' (-1.0) is not in [0, 1]",
    ),
    ({"new_task": noul(None)}, "answer 'new_task' has no noul value"),
    ({"new_task": noul(math.nan)}, "answer 'new_task' noul nan is not a probability in [0, 1]"),
]


@pytest.mark.parametrize(("answers", "reason"), VALIDATION_FAILURES)
def test_protocol_validation(answers: dict[str, Any], reason: str) -> None:
    """Spec A.3 validateResponse: count, presence, type agreement, probabilities."""
    with pytest.raises(EvaluatorResponseError) as info:
        validate_response(REQUEST, response(**answers))
    assert str(info.value) == reason


def test_score_answers() -> None:
    """A score must be finite and carry a probability confidence."""
    request = DecisionRequest(
        model="m", state="{}", questions={"s": Question(type="score", instructions="how much")}
    )
    ok = DecisionResponse(model="m", answers={"s": Answer(type="score", score=7.5, confidence=0.5)})
    validate_response(request, ok)
    for bad, reason in [
        (
            Answer(type="score", score=math.inf, confidence=0.5),
            "answer 's' score inf is not a finite number",
        ),
        (
            Answer(type="score", score=1, confidence=None),
            "answer 's' confidence None is not a probability in [0, 1]",
        ),
    ]:
        with pytest.raises(
            EvaluatorResponseError, match=reason.replace("[", r"\[").replace("]", r"\]")
        ):
            validate_response(request, DecisionResponse(model="m", answers={"s": bad}))


def test_request_state_must_be_json() -> None:
    """Keen: 'decision state must be valid JSON'."""
    with pytest.raises(ValueError, match="decision state must be valid JSON"):
        DecisionRequest(model="m", state="{not json", questions={})
    with pytest.raises(ValueError, match="decision state must be valid JSON"):
        DecisionRequest(model="m", state="NaN", questions={})


def test_request_model_is_required() -> None:
    """Keen: 'decision model is required'."""
    with pytest.raises(ValueError, match="model"):
        DecisionRequest(model="", state="{}", questions={})


WIRE_FAILURES: list[tuple[Any, str]] = [
    ([], "invalid response: expected a JSON object"),
    ({"model": "m"}, "invalid response: answers is missing"),
    ({"model": "m", "answers": None}, "invalid response: answers is missing"),
    (
        {"model": "", "answers": {}},
        "invalid response: model: string should have at least 1 character",
    ),
    ({"answers": {}}, "invalid response: model is missing"),
    (
        {"model": "m", "answers": {"a": {"noul": 0.5}}},
        "invalid response: answers.a.type is missing",
    ),
    (
        {"model": "m", "answers": {"a": {"type": "noul", "noul": True}}},
        "invalid response: answers.a.noul: expected a number, got true",
    ),
    (
        {"model": "m", "answers": {"a": {"type": "noul", "noul": "0.5"}}},
        'invalid response: answers.a.noul: expected a number, got "0.5"',
    ),
    (
        {"model": "m", "answers": {}, "usage": {"input_tokens": "many"}},
        'invalid response: usage.input_tokens: expected an integer, got "many"',
    ),
    ({"model": "m", "answers": []}, "invalid response: answers: expected an object, got []"),
    (  # a lone surrogate (JSON's \ud800) stays escaped: the reason always encodes
        {"model": "m", "answers": {"a": {"type": "noul", "noul": "\ud800high"}}},
        'invalid response: answers.a.noul: expected a number, got "\\ud800high"',
    ),
    (
        {"model": "m", "answers": {"a": {"type": "noul", "noul": "élevé"}}},
        'invalid response: answers.a.noul: expected a number, got "élevé"',
    ),
]


@pytest.mark.parametrize(("data", "reason"), WIRE_FAILURES)
def test_wire_response_rejections(data: Any, reason: str) -> None:
    """Wrong shapes and wrong types are named precisely."""
    with pytest.raises(EvaluatorResponseError) as info:
        response_from_json(data)
    assert str(info.value) == reason
    str(info.value).encode("utf-8")  # (a reason reaches JSON answers and logs)


def test_wire_response_defaults_usage_and_ignores_extras() -> None:
    """Missing usage is zero; unknown fields (legend etc.) are tolerated."""
    parsed = response_from_json(
        {
            "model": "m",
            "answers": {"a": {"type": "noul", "noul": 1, "legend": {"k": "v"}, "extra": 1}},
            "id": "x",
        }
    )
    assert parsed.usage == Usage()
    assert parsed.answers["a"].noul == 1.0


def test_absurdly_nested_json_is_just_invalid() -> None:
    """Nesting deep enough to exhaust the recursion limit is a ValueError, not a crash."""
    from smista.decision.contract import loads_strict

    with pytest.raises(ValueError, match="nested too deeply"):
        loads_strict("[" * 200_000 + "]" * 200_000)
