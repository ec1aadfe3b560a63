"""Decision providers against a real loopback server: both protocols, every fault fails open."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from smista.core.decisionresult import Complexity
from smista.core.errors import ConfigError, EvaluatorResponseError
from smista.decision.config import DecisionConfig
from smista.decision.contract import DecisionRequest, Question
from smista.decision.ledger import UsageLedger
from smista.decision.providers import build_evaluator, build_stage
from smista.decision.providers.systemone import SystemOneEvaluator
from smista.decision.stage import DecisionStage
from smista.decision.state import Conversation, Message
from smista.decision.switch import SwitchConfig
from tests.decision_server import base_url_for, decision_server, refused_url

KEY = "sk-test-Zq8rT1-secret-value"
ENV = {"SMISTA_TEST_KEY": KEY}
PROVIDERS = ("systemone", "openai")


def make_stage(
    provider: str,
    url: str,
    *,
    timeout_s: float = 15.0,
    max_response_bytes: int = 65536,
    ledger: UsageLedger | None = None,
    key_env: str | None = "SMISTA_TEST_KEY",
) -> DecisionStage:
    config = DecisionConfig(
        enabled=True,
        provider=provider,
        base_url=base_url_for(provider, url),
        model="jev",
        api_key_env=key_env,
        timeout_s=timeout_s,
        max_response_bytes=max_response_bytes,
    )
    stage = build_stage(config, environ=ENV, ledger=ledger)
    assert stage is not None
    return stage


CONVERSATION = Conversation(
    cwd="/work",
    git_branch="main",
    history=(Message(role="user", content="hello"), Message(role="assistant", content="hi")),
    message="implement it",
)


@pytest.fixture
def all_logs(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    """Capture every logger (httpx and httpcore included) at DEBUG."""
    caplog.set_level(logging.DEBUG)
    return caplog


@pytest.mark.parametrize("provider", PROVIDERS)
def test_round_trip_gives_a_validated_result(provider: str, all_logs: Any) -> None:
    """A healthy server yields an ok outcome with the parsed result and recorded usage."""
    ledger = UsageLedger()
    with decision_server(expected_key=KEY) as (url, server):
        outcome = make_stage(provider, url, ledger=ledger).classify_sync(CONVERSATION)
    assert outcome.status == "ok", outcome.reason
    result = outcome.signal
    assert result is not None
    assert (result.category, result.probability, result.confidence) == ("standard", 0.82, 0.74)
    assert (result.consequential, result.new_task) == (0.25, 0.1)
    assert result.model == "jev-test"
    assert (result.usage.input_tokens, result.usage.output_tokens) == (12, 3)
    assert ledger.entries() == {(provider, "jev-test"): result.usage}
    assert outcome.state is not None
    assert outcome.state.messages == 3
    assert len(server.requests) == 1
    assert server.requests[0].headers["Authorization"] == f"Bearer {KEY}"
    assert KEY not in all_logs.text


def test_systemone_request_wire_format() -> None:
    """POST /v1/systemone with sorted keys, the questions and the state as a JSON object."""
    with decision_server(expected_key=KEY) as (url, server):
        make_stage("systemone", url).classify_sync(CONVERSATION)
    sent = server.requests[0]
    assert sent.path == "/v1/systemone"
    assert sent.headers["Content-Type"] == "application/json"
    body = sent.body
    assert list(body) == ["model", "questions", "state"]
    assert body["model"] == "jev"
    assert {q: v["type"] for q, v in body["questions"].items()} == {
        "category": "choice",
        "consequential": "noul",
        "new_task": "noul",
    }
    assert set(body["questions"]["category"]["criteria"]) == {"simple", "standard", "complex"}
    assert "criteria" not in body["questions"]["consequential"]
    assert body["state"] == {
        "cwd": "/work",
        "git_branch": "main",
        "messages": [
            {"content": "hello", "role": "user"},
            {"content": "hi", "role": "assistant"},
            {"content": "implement it", "role": "user"},
        ],
    }
    assert KEY not in str(body)


def test_openai_request_wire_format() -> None:
    """POST {base}/chat/completions asking for a JSON object; the state travels as data."""
    with decision_server() as (url, server):
        make_stage("openai", url).classify_sync(CONVERSATION)
    sent = server.requests[0]
    assert sent.path == "/v1/chat/completions"
    body = sent.body
    assert body["model"] == "jev"
    assert body["temperature"] == 0
    assert body["response_format"] == {"type": "json_object"}
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert "implement it" in body["messages"][1]["content"]


def test_openai_without_key_sends_no_authorization() -> None:
    """A local OpenAI-compatible server needs no key; none is sent."""
    with decision_server() as (url, server):
        outcome = make_stage("openai", url, key_env=None).classify_sync(CONVERSATION)
    assert outcome.status == "ok"
    assert "Authorization" not in server.requests[0].headers


def test_openai_reply_in_a_code_fence_is_accepted() -> None:
    """A reply wrapped in a ```json fence is read like a bare one."""
    with decision_server(fault="fenced") as (url, _):
        outcome = make_stage("openai", url).classify_sync(CONVERSATION)
    assert outcome.status == "ok", outcome.reason


TIMEOUT_FAULTS = frozenset({"slow", "trickle"})
FAULT_REASONS: list[tuple[str, str, str]] = [
    ("systemone", "slow", "decision unavailable: timeout after 0.5s"),
    ("openai", "slow", "decision unavailable: timeout after 0.5s"),
    ("systemone", "trickle", "decision unavailable: timeout after 0.5s"),
    ("openai", "trickle", "decision unavailable: timeout after 0.5s"),
    (
        "systemone",
        "500",
        'decision unavailable: HTTP 500 Internal Server Error: {"error":"internal failure"}',
    ),
    (
        "openai",
        "500",
        'decision unavailable: HTTP 500 Internal Server Error: {"error":"internal failure"}',
    ),
    (
        "systemone",
        "401",
        'decision unavailable: HTTP 401 Unauthorized: {"error":"invalid api key"}',
    ),
    ("openai", "401", 'decision unavailable: HTTP 401 Unauthorized: {"error":"invalid api key"}'),
    ("systemone", "deep", "decision unavailable: response is not valid JSON (60000 bytes)"),
    ("openai", "deep", "decision unavailable: response is not valid JSON (60000 bytes)"),
    ("systemone", "malformed", "decision unavailable: response is not valid JSON (34 bytes)"),
    ("openai", "malformed", "decision unavailable: response is not valid JSON (34 bytes)"),
    (
        "systemone",
        "wrong_types",
        "decision unavailable: invalid response: answers.category.confidence: "
        'expected a number, got "high"',
    ),
    (
        "openai",
        "wrong_types",
        "decision unavailable: invalid response: choices[0].message.content is not a string",
    ),
    ("systemone", "huge", "decision unavailable: response too large (over 65536 bytes)"),
    ("openai", "huge", "decision unavailable: response too large (over 65536 bytes)"),
    ("systemone", "huge_chunked", "decision unavailable: response too large (over 65536 bytes)"),
    ("openai", "huge_chunked", "decision unavailable: response too large (over 65536 bytes)"),
    (
        "systemone",
        "invalid_answers",
        "decision unavailable: invalid task complexity category 'trivial'",
    ),
    (
        "openai",
        "invalid_answers",
        "decision unavailable: invalid task complexity category 'trivial'",
    ),
]


@pytest.mark.parametrize(
    ("provider", "fault", "reason"), FAULT_REASONS, ids=[f"{p}-{f}" for p, f, _ in FAULT_REASONS]
)
def test_every_fault_fails_open_with_a_precise_reason(
    provider: str, fault: str, reason: str, all_logs: Any
) -> None:
    """The stage returns 'decision unavailable: <why>', records no usage, leaks no key."""
    ledger = UsageLedger()
    # Only the faults that are a timeout get a short one: on a loaded machine a
    # loopback answer can take longer than 0.5 s and would read as a timeout.
    timeout_s = 0.5 if fault in TIMEOUT_FAULTS else 15.0
    with decision_server(fault=fault) as (url, _):
        stage = make_stage(provider, url, ledger=ledger, timeout_s=timeout_s)
        outcome = stage.classify_sync(CONVERSATION)
    assert outcome.status == "unavailable"
    assert outcome.result is None
    assert outcome.signal is None
    assert outcome.reason == reason
    assert outcome.provider == provider
    assert ledger.entries() == {}
    assert KEY not in all_logs.text
    assert reason.removeprefix("decision unavailable: ") in all_logs.text


@pytest.mark.parametrize("provider", PROVIDERS)
def test_connection_refused_fails_open(provider: str, all_logs: Any) -> None:
    """Nothing listening: the reason names the host and says the connection was refused."""
    url = refused_url()
    outcome = make_stage(provider, url).classify_sync(CONVERSATION)
    host = url.removeprefix("http://")
    assert outcome.status == "unavailable"
    assert outcome.reason == f"decision unavailable: cannot connect to {host}: connection refused"
    assert KEY not in all_logs.text


@pytest.mark.parametrize("provider", PROVIDERS)
def test_wrong_key_is_an_http_401(provider: str, all_logs: Any) -> None:
    """The server rejects a key it does not expect; neither key leaks."""
    with decision_server(expected_key="another-key") as (url, _):
        outcome = make_stage(provider, url).classify_sync(CONVERSATION)
    assert outcome.reason == 'decision unavailable: HTTP 401 Unauthorized: {"error":"unauthorized"}'
    assert KEY not in all_logs.text
    assert "another-key" not in (outcome.reason or "")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_key_echoed_by_the_server_is_redacted(provider: str, all_logs: Any) -> None:
    """Server text quoted in an error never carries the key."""
    with decision_server(fault="echo_key") as (url, _):
        outcome = make_stage(provider, url).classify_sync(CONVERSATION)
    assert outcome.reason is not None
    assert outcome.reason.startswith("decision unavailable: HTTP 400 Bad Request: ")
    assert "Bearer ***" in outcome.reason
    assert KEY not in outcome.reason
    assert KEY not in all_logs.text


def test_async_classify_runs_alongside_other_work() -> None:
    """classify() is a coroutine a host can gather with its own work."""

    async def main(url: str) -> tuple[str, str]:
        stage = make_stage("systemone", url)

        async def other() -> str:
            await asyncio.sleep(0)
            return "response generated"

        outcome, other_result = await asyncio.gather(stage.classify(CONVERSATION), other())
        return outcome.status, other_result

    with decision_server() as (url, _):
        assert asyncio.run(main(url)) == ("ok", "response generated")


def test_sync_wrapper_works_inside_a_running_loop() -> None:
    """classify_sync() called from within an event loop still returns an outcome."""

    async def main(url: str) -> str:
        return make_stage("systemone", url).classify_sync(CONVERSATION).status

    with decision_server() as (url, _):
        assert asyncio.run(main(url)) == "ok"


def test_reprs_hold_no_key() -> None:
    """Evaluators and stages print without their key."""
    stage = make_stage("systemone", "http://127.0.0.1:9")
    assert KEY not in repr(stage)
    assert KEY not in repr(stage.evaluator)
    assert KEY not in repr(vars(stage.evaluator))


# ---------------------------------------------------------------------------
# misconfiguration is a ConfigError at build time


def _config(**kw: Any) -> DecisionConfig:
    base: dict[str, Any] = {
        "enabled": True,
        "provider": "systemone",
        "base_url": "http://127.0.0.1:9",
        "model": "jev",
        "api_key_env": "SMISTA_TEST_KEY",
    }
    base.update(kw)
    return DecisionConfig(**base)


def test_missing_key_variable_is_a_config_error() -> None:
    """The named variable is unset: error names the key path and the variable, not a value."""
    with pytest.raises(ConfigError) as info:
        build_evaluator(_config(), environ={}, source="smista.toml")
    assert info.value.errors == [
        ("decision.api_key_env", "environment variable 'SMISTA_TEST_KEY' is not set or is empty")
    ]
    assert str(info.value).startswith("smista.toml: decision.api_key_env:")


def test_empty_key_variable_is_a_config_error() -> None:
    """A blank key counts as missing."""
    with pytest.raises(ConfigError, match="not set or is empty"):
        build_evaluator(_config(), environ={"SMISTA_TEST_KEY": "  "})


def test_systemone_requires_a_key_variable() -> None:
    """SystemOne always authenticates (Keen: 'no API key configured')."""
    with pytest.raises(ConfigError, match="required for provider 'systemone'"):
        build_evaluator(_config(api_key_env=None), environ=ENV)


def test_unknown_provider_is_a_config_error() -> None:
    """A provider outside the registry (only reachable by bypassing validation) is refused."""
    config = _config().model_copy(update={"provider": "liquid"})
    with pytest.raises(ConfigError, match="unknown provider 'liquid'"):
        build_evaluator(config, environ=ENV)


def test_disabled_stage_builds_nothing() -> None:
    """enabled = false: build_stage gives None and build_evaluator refuses."""
    assert build_stage(DecisionConfig(), environ=ENV) is None
    with pytest.raises(ConfigError, match="disabled"):
        build_evaluator(DecisionConfig(), environ=ENV)


def test_enabled_stage_lists_every_missing_key() -> None:
    """enabled with nothing else: provider, base_url and model are all reported."""
    with pytest.raises(ConfigError) as info:
        build_evaluator(DecisionConfig(enabled=True), environ=ENV)
    assert [loc for loc, _ in info.value.errors] == [
        "decision.provider",
        "decision.base_url",
        "decision.model",
    ]


def test_switch_config_is_independent_of_the_provider() -> None:
    """[decision.switch] loads with the stage disabled."""
    config = DecisionConfig(switch=SwitchConfig(simple="a/s", standard="a/m", complex="a/l"))
    assert config.switch is not None
    assert config.switch.model_for(Complexity.COMPLEX) == "a/l"


# ---------------------------------------------------------------------------
# Keen's evaluator tests (spec A.11), as data


def _evaluator(url: str, key: str) -> SystemOneEvaluator:
    return SystemOneEvaluator(base_url=url, api_key=key, timeout_s=15, max_response_bytes=1 << 20)


def test_keen_typesafe_evaluator_evaluate() -> None:
    """TestEvaluatorEvaluate: bearer key, model in body, parsed answers and usage."""
    canned = {
        "model": "test-model",
        "answers": {
            "category": {
                "type": "choice",
                "choice": "simple",
                "probabilities": {"simple": 0.8, "complex": 0.2},
                "confidence": 0.6,
            },
            "safe": {"type": "noul", "noul": 0.9},
        },
        "usage": {"input_tokens": 10, "output_tokens": 2},
    }
    request = DecisionRequest(
        model="test-model",
        state='{"message":"hello"}',
        questions={
            "category": Question(
                type="choice",
                instructions="category",
                criteria={"simple": "small", "complex": "large"},
            ),
            "safe": Question(type="noul", instructions="safe"),
        },
    )
    with decision_server(expected_key="test-key", canned=canned) as (url, server):
        response = asyncio.run(_evaluator(url, "test-key").evaluate(request))
    assert server.requests[0].path == "/v1/systemone"
    assert server.requests[0].headers["Authorization"] == "Bearer test-key"
    assert server.requests[0].body["model"] == "test-model"
    assert response.model == "test-model"
    assert response.answers["category"].choice == "simple"
    assert response.usage.input_tokens == 10


def test_keen_typesafe_evaluator_rejects_mismatched_answer_type() -> None:
    """TestEvaluatorRejectsMismatchedAnswerType: a noul answer to a choice question."""
    canned = {
        "model": "test-model",
        "answers": {"category": {"type": "noul", "noul": 0.9}},
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    request = DecisionRequest(
        model="test-model",
        state='"hello"',
        questions={
            "category": Question(type="choice", instructions="c", criteria={"simple": "small"})
        },
    )
    with decision_server(canned=canned) as (url, _), pytest.raises(EvaluatorResponseError):
        asyncio.run(_evaluator(url, "k").evaluate(request))


def test_keen_liquid_factory_evaluate() -> None:
    """TestFactoryEvaluate: a JSON-string state and one noul question."""
    canned = {
        "model": "d1",
        "answers": {"is_complaint": {"type": "noul", "noul": 0.99}},
        "usage": {"input_tokens": 84, "output_tokens": 0},
    }
    request = DecisionRequest(
        model="d1",
        state='"I have been waiting three weeks for my order."',
        questions={
            "is_complaint": Question(
                type="noul", instructions="Is this message a complaint from the customer?"
            )
        },
    )
    with decision_server(expected_key="liquid_test-key", canned=canned) as (url, server):
        response = asyncio.run(_evaluator(url, "liquid_test-key").evaluate(request))
    assert server.requests[0].body["state"] == "I have been waiting three weeks for my order."
    assert response.answers["is_complaint"].noul == 0.99
    assert response.usage.input_tokens == 84


def test_the_test_server_stays_quiet_when_a_client_hangs_up(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 15: a client that hangs up before the answer (its cap or timeout was
    reached) left a ``BrokenPipeError`` traceback on stderr from tests/decision_server.py."""
    import socket
    import struct

    with decision_server(fault="slow") as (url, behaviour):
        port = int(url.rsplit(":", 1)[1])
        sock = socket.create_connection(("127.0.0.1", port))
        sock.sendall(b"POST /v1/systemone HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\n{}")
        # Hang up with a reset while the server holds the answer back, then let it
        # answer: the write (or the read, if the reset came first) fails.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.close()
        behaviour.release.set()
        assert behaviour.hung_up.wait(30)
    assert "Traceback" not in capsys.readouterr().err
