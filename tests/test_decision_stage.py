"""DecisionStage orchestration: new-task override, abstention gate, ledger, fail-open reasons.

The evaluator here is an in-process implementation of the provider-neutral
protocol (the HTTP providers are tested against a real server elsewhere).
"""

from __future__ import annotations

import asyncio
import json
import logging

import pytest

from smista.core.decisionresult import Usage
from smista.core.errors import EvaluatorTimeout, EvaluatorUnavailable
from smista.decision.contract import Answer, DecisionRequest, DecisionResponse
from smista.decision.ledger import UsageLedger
from smista.decision.stage import DecisionOutcome, DecisionStage
from smista.decision.state import Conversation, Message


class Scripted:
    """Answers every request with a fixed response, or raises a fixed error."""

    def __init__(self, reply: DecisionResponse | Exception, delay_s: float = 0.0) -> None:
        self.reply = reply
        self.delay_s = delay_s
        self.requests: list[DecisionRequest] = []

    @property
    def id(self) -> str:
        return "scripted"

    async def evaluate(self, request: DecisionRequest) -> DecisionResponse:
        self.requests.append(request)
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        if isinstance(self.reply, Exception):
            raise self.reply
        return self.reply


def keen_response(
    category: str = "standard",
    p: float = 0.62,
    confidence: float = 0.4,
    consequential: float = 0.81,
    new_task: float = 0.1,
) -> DecisionResponse:
    """Spec A.11 TestClassifierBuildsPayloadAndParsesResult's fake reply (+ new_task)."""
    return DecisionResponse(
        model="jev-test",
        answers={
            "category": Answer(
                type="choice", choice=category, probabilities={category: p}, confidence=confidence
            ),
            "consequential": Answer(type="noul", noul=consequential),
            "new_task": Answer(type="noul", noul=new_task),
        },
        usage=Usage(input_tokens=12, output_tokens=3),
    )


KEEN_INPUT = Conversation(
    cwd="/work",
    git_branch="main",
    history=(Message(role="user", content="hello"), Message(role="assistant", content="hi")),
    message="implement it",
)


def run(stage: DecisionStage, conversation: Conversation = KEEN_INPUT) -> DecisionOutcome:
    return asyncio.run(stage.classify(conversation))


def test_keen_builds_payload_and_parses_result() -> None:
    """Spec A.11: standard / 0.62 / 0.81 / jev-test; the state holds the three messages."""
    evaluator = Scripted(keen_response())
    outcome = run(DecisionStage(evaluator, model="model", min_confidence=0.3))
    assert outcome.status == "ok"
    result = outcome.result
    assert result is not None
    assert (result.category, result.probability, result.consequential) == ("standard", 0.62, 0.81)
    assert result.model == "jev-test"
    [request] = evaluator.requests
    assert request.model == "model"
    state = json.loads(request.state)
    assert len(state["messages"]) == 3
    assert state["messages"][2]["content"] == "implement it"
    assert set(request.questions) == {"category", "consequential", "new_task"}


def test_new_task_is_one_without_a_previous_user_task() -> None:
    """The evaluator's new-task estimate is overridden to 1 when no user task precedes."""
    evaluator = Scripted(keen_response(confidence=0.9, new_task=0.1))
    first = run(DecisionStage(evaluator, model="m"), Conversation(message="implement it"))
    assert first.result is not None
    assert first.result.new_task == 1.0
    only_assistant = Conversation(
        history=(Message(role="assistant", content="How can I help?"),), message="fix it"
    )
    second = run(DecisionStage(evaluator, model="m"), only_assistant)
    assert second.result is not None
    assert second.result.new_task == 1.0
    later = run(DecisionStage(evaluator, model="m"), KEEN_INPUT)
    assert later.result is not None
    assert later.result.new_task == 0.1


def test_low_confidence_abstains_but_is_reported() -> None:
    """Keen's 0.4 confidence is below the default 0.5 gate: a result, but no signal."""
    outcome = run(DecisionStage(Scripted(keen_response()), model="m"))
    assert outcome.status == "abstained"
    assert outcome.result is not None
    assert outcome.signal is None
    assert outcome.reason == "decision abstained: confidence 0.40 is below min_confidence 0.50"


@pytest.mark.parametrize(
    ("confidence", "threshold", "status"),
    [
        (0.5, 0.5, "ok"),  # strict: equal does not abstain
        (0.4999, 0.5, "abstained"),
        (0.5, 0.0, "ok"),  # <= 0 means 0.5
        (0.49, -1.0, "abstained"),
        (1.0, 1.5, "ok"),  # > 1 means 1
        (0.99, 1.5, "abstained"),
        (0.7, 0.8, "abstained"),
        (0.7, 0.5, "ok"),
    ],
)
def test_abstention_gate_uses_the_clamped_threshold(
    confidence: float, threshold: float, status: str
) -> None:
    """The gate is smista.core.abstain: strict less-than, clamped threshold."""
    stage = DecisionStage(
        Scripted(keen_response(confidence=confidence)), model="m", min_confidence=threshold
    )
    assert run(stage).status == status


def test_usage_goes_to_the_ledger_for_valid_results_only() -> None:
    """Valid (even abstained) results are recorded; failures are not."""
    ledger = UsageLedger()
    ok = DecisionStage(Scripted(keen_response(confidence=0.9)), model="m", ledger=ledger)
    run(ok)
    run(ok)
    run(DecisionStage(Scripted(keen_response(confidence=0.1)), model="m", ledger=ledger))
    run(DecisionStage(Scripted(EvaluatorUnavailable("down")), model="m", ledger=ledger))
    assert ledger.calls("scripted", "jev-test") == 3
    assert ledger.total == Usage(input_tokens=36, output_tokens=9)
    assert "36" in repr(ledger)


def test_the_ledger_stays_bounded_whatever_models_the_upstream_names() -> None:
    """The model a reply names is the upstream's to choose: a ledger keeps at most
    KEYS_LIMIT keys of cut names, counting the rest under (provider, OTHER), and loses no
    usage."""
    from smista.decision.ledger import KEYS_LIMIT, MODEL_CHARS, OTHER

    ledger = UsageLedger()
    one = Usage(input_tokens=2, output_tokens=1)
    for i in range(KEYS_LIMIT * 3):
        ledger.record("upstream", f"model-{i}-" + "x" * 1000, one)
    entries = ledger.entries()
    assert len(entries) == KEYS_LIMIT + 1
    assert all(len(model) <= MODEL_CHARS for _, model in entries)
    assert ledger.calls("upstream", OTHER) == KEYS_LIMIT * 2
    assert ledger.calls("upstream", "model-0-" + "x" * 1000) == 1  # (cut as recorded)
    assert ledger.total == Usage(input_tokens=2 * 3 * KEYS_LIMIT, output_tokens=3 * KEYS_LIMIT)


def test_evaluator_errors_fail_open() -> None:
    """An evaluator error becomes 'decision unavailable: <its message>'."""
    outcome = run(DecisionStage(Scripted(EvaluatorTimeout("timeout after 3s")), model="m"))
    assert outcome == DecisionOutcome(
        status="unavailable", reason="decision unavailable: timeout after 3s", provider="scripted"
    )


def test_stage_deadline_fails_open() -> None:
    """An optional whole-call deadline on top of the provider's own timeouts."""
    stage = DecisionStage(Scripted(keen_response(), delay_s=5), model="m", timeout_s=0.05)
    outcome = run(stage)
    assert outcome.reason == "decision unavailable: timeout after 0.05s"


def test_oversized_current_message_skips_the_call() -> None:
    """The evaluator is never asked; the reason says the state is too large."""
    evaluator = Scripted(keen_response())
    outcome = run(
        DecisionStage(evaluator, model="m", max_state_bytes=100),
        Conversation(message="x" * 200),
    )
    assert outcome.status == "unavailable"
    assert outcome.reason is not None
    assert outcome.reason.startswith("decision unavailable: state too large: the current message")
    assert evaluator.requests == []


def test_protocol_validation_applies_to_any_evaluator() -> None:
    """A custom evaluator answering an extra question is rejected like a provider would be."""
    reply = keen_response(confidence=0.9)
    extra = reply.model_copy(
        update={"answers": {**reply.answers, "x": Answer(type="noul", noul=1)}}
    )
    outcome = run(DecisionStage(Scripted(extra), model="m"))
    assert outcome.reason == (
        "decision unavailable: answer count does not match request (3 questions, 4 answers)"
    )


def test_state_info_is_reported() -> None:
    """How many bytes and messages were sent, and how many were dropped."""
    outcome = run(DecisionStage(Scripted(keen_response(confidence=0.9)), model="m"))
    assert outcome.state is not None
    assert (outcome.state.messages, outcome.state.dropped, outcome.state.budget) == (3, 0, 81920)


def test_failures_are_logged_on_the_smista_decision_logger(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """One warning with provider and reason."""
    caplog.set_level(logging.DEBUG, logger="smista.decision")
    run(DecisionStage(Scripted(EvaluatorUnavailable("connection refused")), model="m"))
    assert [(r.name, r.levelname, r.getMessage()) for r in caplog.records] == [
        ("smista.decision", "WARNING", "decision unavailable (scripted): connection refused")
    ]


def test_sync_wrapper() -> None:
    """classify_sync gives the same outcome as the coroutine."""
    stage = DecisionStage(Scripted(keen_response(confidence=0.9)), model="m")
    assert stage.classify_sync(KEEN_INPUT) == run(stage)


def test_stage_needs_a_model() -> None:
    """An empty model id is a programming error, raised at construction."""
    with pytest.raises(ValueError, match="decision model is required"):
        DecisionStage(Scripted(keen_response()), model="  ")


def test_outcome_descriptions() -> None:
    """One-line summaries for each status."""
    ok = run(DecisionStage(Scripted(keen_response(confidence=0.9)), model="m"))
    assert ok.describe() == (
        "standard (p=0.62, confidence 0.90) · consequential p=0.81 · new task p=0.10 "
        "[jev-test via scripted]"
    )
    assert DecisionOutcome.disabled().describe() == "decision disabled"
    assert DecisionOutcome.unavailable("x").describe() == "decision unavailable: x"
    low = run(DecisionStage(Scripted(keen_response()), model="m"))
    assert low.describe().endswith(
        "- decision abstained: confidence 0.40 is below min_confidence 0.50"
    )
