"""The llm tier classifier against a real chat-completions server on loopback:
wire format, API key handling, timeouts, faults and the size cap, all failing open."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import pytest

from smista.tiers import (
    ChatCompletionsClient,
    LlmClassifierConfig,
    TierOutcome,
    TierRequest,
    TierRouter,
    TiersConfig,
    client_from_config,
)
from smista.tiers.http import chat_completions_url
from tests.chat_server import ChatServer

KEY = "sk-test-5d1e0a7c9b"


def router_for(url: str, **llm: Any) -> TierRouter:
    config = TiersConfig.model_validate(
        {
            "classifier": "llm",
            "models": {
                "cheap": "router-test/cheap",
                "normal": "router-test/normal",
                "hard": "router-test/hard",
            },
            "llm": {"model": "router-test/classifier", "endpoint": url, **llm},
        }
    )
    return TierRouter(config, completer_factory=client_from_config)


REQUEST = TierRequest(
    task="Fix the pagination off-by-one", solution_space="one fix: slice end in paginate"
)


def test_routes_through_the_endpoint_with_the_wire_format(
    chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One POST to /chat/completions: model, system prompt, user message, bearer key."""
    monkeypatch.setenv("SMISTA_TEST_KEY", KEY)
    chat_server.reply = '{"tier":"hard","reason":"unknown cause"}'
    router = router_for(chat_server.url, api_key_env="SMISTA_TEST_KEY")
    decision = router.route_sync(REQUEST)
    assert (decision.outcome, decision.model, decision.reason) == (
        TierOutcome.ROUTED,
        "router-test/hard",
        "unknown cause",
    )
    (sent,) = chat_server.requests
    assert sent["path"] == "/v1/chat/completions"
    assert sent["headers"]["Authorization"] == f"Bearer {KEY}"
    body = sent["body"]
    assert body["model"] == "router-test/classifier"
    assert body["max_tokens"] == 256
    assert body["stream"] is False
    system, user = body["messages"]
    assert system["role"] == "system"
    assert "Tiers:\n- cheap\n- normal\n- hard\n" in system["content"]
    assert user == {
        "role": "user",
        "content": "Task:\nFix the pagination off-by-one\n\nSolution space:\none fix: slice end in paginate",
    }
    assert KEY not in repr(decision)
    assert KEY not in repr(client_from_config(router.config.llm))


def test_no_authorization_header_without_key(chat_server: ChatServer) -> None:
    """Without api_key_env nothing is sent in Authorization."""
    router_for(chat_server.url).route_sync(REQUEST)
    assert "Authorization" not in chat_server.requests[0]["headers"]


def test_missing_key_variable_fails_open_without_a_request(
    chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A named but unset key variable: classifier_failed, default tier, nothing sent."""
    monkeypatch.delenv("SMISTA_TEST_KEY", raising=False)
    decision = router_for(chat_server.url, api_key_env="SMISTA_TEST_KEY").route_sync(REQUEST)
    assert decision.outcome is TierOutcome.CLASSIFIER_FAILED
    assert decision.model == "router-test/normal"
    assert "SMISTA_TEST_KEY is not set" in decision.reason
    assert chat_server.requests == []


def test_scripted_classifier_like_the_seed_lifecycle(chat_server: ChatServer) -> None:
    """'hard' when the assignment mentions hard-task, else 'cheap' (seed lifecycle script)."""
    chat_server.reply = lambda user: "hard" if "hard-task" in user else "cheap"
    router = router_for(chat_server.url)
    hard = router.route_sync(
        TierRequest(
            task="hard-task-command", solution_space="Unknown cause; inspect synchronization paths"
        )
    )
    assert (hard.selected_tier, hard.model) == ("hard", "router-test/hard")
    cheap = router.route_sync(TierRequest(task="cheap-task-batch"))
    assert (cheap.selected_tier, cheap.model) == ("cheap", "router-test/cheap")
    assert len(chat_server.requests) == 2


def test_cache_spares_the_second_request(chat_server: ChatServer) -> None:
    """The same task twice reaches the endpoint once; a changed task asks again."""
    router = router_for(chat_server.url)
    first = router.route_sync(REQUEST)
    again = router.route_sync(REQUEST)
    assert not first.cached
    assert again.cached
    assert again.model == first.model
    assert len(chat_server.requests) == 1
    router.route_sync(TierRequest(task="another task"))
    assert len(chat_server.requests) == 2


@pytest.mark.parametrize(
    ("mode", "outcome", "fragment"),
    [
        ("slow", TierOutcome.CLASSIFIER_TIMEOUT, "timed out"),
        ("drip", TierOutcome.CLASSIFIER_TIMEOUT, "timed out"),
        ("status", TierOutcome.CLASSIFIER_FAILED, "HTTP 500"),
        ("close", TierOutcome.CLASSIFIER_FAILED, "connection closed"),
        ("garbage", TierOutcome.CLASSIFIER_FAILED, "not JSON"),
    ],
    ids=["timeout", "timeout-while-reading", "failure", "disconnect", "not-json"],
)
def test_faults_fall_back_to_default_tier(
    chat_server: ChatServer,
    monkeypatch: pytest.MonkeyPatch,
    mode: str,
    outcome: TierOutcome,
    fragment: str,
) -> None:
    """Timeouts and failures (the seed's timeout table) give the default tier's model."""
    monkeypatch.setenv("SMISTA_TEST_KEY", KEY)
    chat_server.mode = mode
    # Short deadline only where the deadline is the point; generous elsewhere (slow CI).
    timeout_ms = 300 if outcome is TierOutcome.CLASSIFIER_TIMEOUT else 20_000
    router = router_for(chat_server.url, timeout_ms=timeout_ms, api_key_env="SMISTA_TEST_KEY")
    decision = router.route_sync(REQUEST)
    assert decision.outcome is outcome
    assert decision.model == "router-test/normal"
    assert decision.selected_tier == "normal"
    assert fragment in decision.reason
    assert KEY not in repr(decision)
    assert len(router.cache) == 0


def test_key_echoed_across_the_snippet_cut_never_leaks(
    chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server echoing the key where the error snippet is cut leaks no part of it."""
    monkeypatch.setenv("SMISTA_TEST_KEY", KEY)
    chat_server.mode = "status"
    chat_server.pad = "x" * (200 - len("bad request from Bearer ") - 5)
    router = router_for(chat_server.url, api_key_env="SMISTA_TEST_KEY")
    decision = router.route_sync(REQUEST)
    assert decision.outcome is TierOutcome.CLASSIFIER_FAILED
    assert "HTTP 500" in decision.reason
    assert KEY[:5] not in decision.reason


def test_caller_abort_while_waiting(chat_server: ChatServer) -> None:
    """Cancelling the route mid-request propagates and records classifier_timeout."""
    chat_server.mode = "slow"
    router = router_for(chat_server.url)

    async def scenario() -> None:
        task = asyncio.create_task(router.route(REQUEST))
        while not chat_server.requests:
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(scenario())
    assert [d.outcome for d in router.history] == [TierOutcome.CLASSIFIER_TIMEOUT]


def test_connection_refused_fails_open() -> None:
    """Nothing listening: classifier_failed with a reason, default tier."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    decision = router_for(f"http://127.0.0.1:{port}/v1").route_sync(REQUEST)
    assert decision.outcome is TierOutcome.CLASSIFIER_FAILED
    assert "connection failed" in decision.reason
    assert decision.model == "router-test/normal"


@pytest.mark.parametrize("mode", ["huge", "huge_streamed"])
def test_response_size_cap(chat_server: ChatServer, mode: str) -> None:
    """A body over max_response_bytes is a failure, declared or streamed."""
    chat_server.mode = mode
    chat_server.size = 5000
    decision = router_for(chat_server.url, max_response_bytes=4096).route_sync(REQUEST)
    assert decision.outcome is TierOutcome.CLASSIFIER_FAILED
    assert "exceeds 4096 bytes" in decision.reason


@pytest.mark.parametrize(
    ("reply", "outcome"),
    [
        ("frontier", TierOutcome.UNKNOWN_TIER),
        ("I would say this needs care", TierOutcome.INVALID_CLASSIFIER_OUTPUT),
        ('```json\n{"tier": "cheap"}\n```', TierOutcome.ROUTED),
    ],
)
def test_reply_parsing_end_to_end(
    chat_server: ChatServer, reply: str, outcome: TierOutcome
) -> None:
    """What the model writes decides routed, unknown_tier or invalid_classifier_output."""
    chat_server.reply = reply
    assert router_for(chat_server.url).route_sync(REQUEST).outcome is outcome


def test_content_parts_are_joined(chat_server: ChatServer) -> None:
    """Content given as text parts is read too."""
    chat_server.mode = "parts"
    chat_server.reply = "hard"
    assert router_for(chat_server.url).route_sync(REQUEST).model == "router-test/hard"


def test_client_directly(chat_server: ChatServer) -> None:
    """The client returns the assistant text; repr never shows the key."""
    chat_server.reply = "normal"
    client = ChatCompletionsClient(chat_server.url + "/", "m", api_key=KEY)
    assert asyncio.run(client.complete("sys", "user", 5.0)) == "normal"
    assert KEY not in repr(client)
    assert "with API key" in repr(client)


def test_chat_completions_url() -> None:
    """A base URL gets /chat/completions; a full URL is kept."""
    assert chat_completions_url("http://h:1/v1") == "http://h:1/v1/chat/completions"
    assert chat_completions_url("http://h:1/v1/") == "http://h:1/v1/chat/completions"
    assert chat_completions_url("http://h/v1/chat/completions") == "http://h/v1/chat/completions"


def test_client_from_config_requires_endpoint() -> None:
    """Building a client without an endpoint is a config error naming the key."""
    from smista.core.errors import ConfigError

    with pytest.raises(ConfigError, match=r"tiers\.llm\.endpoint"):
        client_from_config(LlmClassifierConfig())
