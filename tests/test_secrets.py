"""No API key in any answer, log or exception: a real loopback server echoes it every way.

The redactor is tested on its own (every encoding), then the decision providers
and the llm tier classifier are run against ``tests.decision_server``, whose
``echo_*`` faults send back the key smista really sent (reason phrase, body,
model output) in one encoding each. The leak check is independent of the
redactor: it looks for every echo form and for any 10-character piece of the key.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from smista._edge.secrets import Redactor, check_key, register
from smista.core.errors import ConfigError
from smista.decision.config import DecisionConfig
from smista.decision.providers import build_stage
from smista.decision.state import Conversation, Message
from smista.tiers.http import ChatCompletionsClient, client_from_config
from smista.tiers.model import TiersConfig
from smista.tiers.request import TierRequest
from smista.tiers.router import TierRouter
from tests.decision_server import FAULTS, base_url_for, decision_server, key_echoes, refused_url

KEY = "sk-live-Q7vX2pLm9RtZ4wKc/+Jd8Hn3"
ENV = {"SMISTA_LEAK_KEY": KEY}
PROVIDERS = ("systemone", "openai")
ECHOES = [f for f in FAULTS if f.startswith("echo_")]

CONVERSATION = Conversation(
    cwd="/work",
    git_branch="main",
    history=(Message(role="user", content="hello"),),
    message="implement it",
)


def leaks(text: str, key: str = KEY) -> list[str]:
    """Every form of ``key`` found in ``text`` (an independent check, not the redactor)."""
    found = [name for name, form in key_echoes(key).items() if form.lower() in text.lower()]
    squashed = "".join(text.split()).lower()
    for start in range(len(key) - 9):
        if key[start : start + 10].lower() in squashed:
            found.append(f"piece {start}")
            break
    return found


def test_the_leak_check_finds_every_echo() -> None:
    """The check this suite relies on does see each form (so the tests can fail)."""
    for name, form in key_echoes(KEY).items():
        assert leaks(f"error: {form} !"), name


@pytest.mark.parametrize("name", sorted(key_echoes(KEY)))
def test_the_redactor_masks_every_encoding(name: str) -> None:
    form = key_echoes(KEY)[name]
    text = f"prefix {form} suffix"
    masked = Redactor([KEY])(text)
    assert "***" in masked
    assert not leaks(masked), (name, masked)
    assert masked.startswith("prefix ")
    assert masked.endswith(" suffix")


def test_the_redactor_leaves_other_text_alone() -> None:
    redactor = Redactor([KEY, "ollama"])
    text = "unknown cause, the ollama server; ollamas are not keys"
    assert redactor(text) == "unknown cause, the *** server; ollamas are not keys"
    assert repr(redactor) == "Redactor(<keys hidden>)"


@pytest.mark.parametrize(
    ("key", "why"),
    [
        ("sk-\u00e9t\u00e9", "non-ASCII"),
        ("sk-abc\r\nX-Evil: 1", "control"),
        ("sk abc", "space"),
        ("", "empty"),
    ],
)
def test_keys_that_cannot_travel_in_a_header_are_refused(key: str, why: str) -> None:
    problem = check_key(key)
    assert problem is not None
    assert why in problem
    assert key[3:] not in problem or not key[3:]


@pytest.fixture
def all_logs(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.DEBUG)
    return caplog


def stage_for(provider: str, url: str, **options: Any) -> Any:
    config = DecisionConfig(
        enabled=True,
        provider=provider,
        base_url=base_url_for(provider, url),
        model="jev",
        api_key_env="SMISTA_LEAK_KEY",
        timeout_s=5.0,
        **options,
    )
    stage = build_stage(config, environ=ENV)
    assert stage is not None
    return stage


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("fault", ECHOES)
def test_no_decision_answer_or_log_carries_an_echoed_key(
    provider: str, fault: str, all_logs: pytest.LogCaptureFixture
) -> None:
    with decision_server(fault=fault, expected_key=KEY) as (url, server):
        outcome = stage_for(provider, url).classify_sync(CONVERSATION)
    assert server.requests, "the server was reached"
    assert outcome.status != "ok" or fault == "echo_model"
    texts = [outcome.reason or "", outcome.model_dump_json(), all_logs.text]
    for text in texts:
        assert not leaks(text), (fault, text[:400])


def tier_router(url: str, key_env: str = "SMISTA_LEAK_KEY") -> TierRouter:
    config = TiersConfig.model_validate(
        {
            "classifier": "llm",
            "models": {"cheap": "m/cheap", "normal": "m/normal", "hard": "m/hard"},
            "llm": {"model": "m/classifier", "endpoint": f"{url}/v1", "api_key_env": key_env},
        }
    )
    return TierRouter(config, completer_factory=client_from_config)


TASK = TierRequest(task="Fix the pagination off-by-one", solution_space="slice end")


@pytest.mark.parametrize("fault", [f for f in ECHOES if f != "echo_model"])
def test_no_tier_decision_or_log_carries_an_echoed_key(
    fault: str, all_logs: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SMISTA_LEAK_KEY", KEY)
    with decision_server(fault=fault, expected_key=KEY) as (url, server):
        decision = tier_router(url).route_sync(TASK)
    assert server.requests
    assert decision.outcome.value == "classifier_failed"
    text = json.dumps(decision.as_dict(), default=str)
    assert not leaks(text), text
    assert not leaks(all_logs.text)


@pytest.mark.parametrize(
    "content",
    [
        f"Bearer {KEY}",  # invalid output, quoted in the reason
        KEY,  # an echoed key that would become the unknown tier
        json.dumps({"tier": "hard", "reason": f"because {KEY}"}),  # a reason with it
    ],
)
def test_model_output_that_echoes_the_key_is_redacted(
    content: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SMISTA_LEAK_KEY", KEY)
    with decision_server(canned={"choices": [{"message": {"content": content}}]}) as (url, _):
        decision = tier_router(url).route_sync(TASK)
    text = json.dumps(decision.as_dict(), default=str)
    assert not leaks(text), text


@pytest.mark.parametrize("key", ["sk-caf\u00e9-0123456789", "sk-01234\x0156789"])
def test_a_bad_key_is_a_config_error_at_build_time(key: str) -> None:
    config = DecisionConfig(
        enabled=True,
        provider="openai",
        base_url="http://127.0.0.1:9/v1",
        model="m",
        api_key_env="SMISTA_BAD_KEY",
    )
    with pytest.raises(ConfigError) as info:
        build_stage(config, environ={"SMISTA_BAD_KEY": key})
    assert "printable ASCII" in str(info.value)
    assert key.strip() not in str(info.value)
    tiers = TiersConfig.model_validate(
        {"classifier": "llm", "llm": {"endpoint": "http://127.0.0.1:9/v1", "api_key_env": "K"}}
    )
    with pytest.raises(ConfigError) as tier_info:
        client_from_config(tiers.llm, {"K": key})
    assert "printable ASCII" in str(tier_info.value)
    assert key.strip() not in str(tier_info.value)


def test_a_registered_key_is_masked_in_log_records() -> None:
    """The logging filter catches a key in a formatted argument too."""
    from smista._edge.secrets import RedactingFilter

    register(KEY)
    record = logging.LogRecord("smista", logging.ERROR, __file__, 1, "got %s", (KEY,), None)
    assert RedactingFilter().filter(record)
    assert record.getMessage() == "got ***"


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_gzip_bomb_fails_as_too_large(provider: str) -> None:
    """Decoded size is enforced while streaming: 64 MiB of zeros stops at the 1 MiB cap."""
    with decision_server(fault="gzip_bomb") as (url, server):
        outcome = stage_for(provider, url).classify_sync(CONVERSATION)
    assert server.requests
    assert outcome.status == "unavailable"
    assert outcome.reason is not None
    assert "too large" in outcome.reason


def test_a_gzip_bomb_fails_the_tier_classifier(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SMISTA_LEAK_KEY", KEY)
    with decision_server(fault="gzip_bomb") as (url, _):
        decision = tier_router(url).route_sync(TASK)
    assert decision.outcome.value == "classifier_failed"
    assert "exceeds" in (decision.reason or "")


def test_gzip_replies_under_the_cap_are_decoded() -> None:
    body = json.dumps({"choices": [{"message": {"content": "ok"}}]}).encode()
    import gzip

    def answer(_request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200, content=gzip.compress(body), headers={"Content-Encoding": "gzip"}
        )

    client = ChatCompletionsClient(
        "http://upstream.invalid/v1", "m", transport=httpx.MockTransport(answer)
    )
    assert asyncio.run(client.complete("s", "u", 5.0)) == "ok"


@pytest.mark.parametrize("provider", PROVIDERS)
def test_the_key_can_travel_in_another_header(provider: str) -> None:
    """``api_key_header = "x-api-key"`` sends the raw key there and no Authorization."""
    with decision_server(expected_key=KEY, key_header="x-api-key") as (url, server):
        outcome = stage_for(provider, url, api_key_header="x-api-key").classify_sync(CONVERSATION)
    assert outcome.status == "ok", outcome.reason
    headers = {k.lower(): v for k, v in server.requests[0].headers.items()}
    assert headers["x-api-key"] == KEY
    assert "authorization" not in headers


@pytest.mark.parametrize("provider", PROVIDERS)
def test_one_connection_serves_many_calls(provider: str) -> None:
    """The evaluator keeps one long-lived client: later calls reuse its connection."""

    async def three(stage: Any) -> list[str]:
        try:
            return [(await stage.classify(CONVERSATION)).status for _ in range(3)]
        finally:
            await stage.aclose()

    with decision_server(expected_key=KEY) as (url, server):
        statuses = asyncio.run(three(stage_for(provider, url)))
    assert statuses == ["ok", "ok", "ok"]
    assert len({r.peer for r in server.requests}) == 1


def test_a_mock_transport_replaces_the_network() -> None:
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"choices": [{"message": {"content": "cheap"}}]})

    client = ChatCompletionsClient(
        "http://upstream.invalid/v1",
        "m",
        api_key=KEY,
        key_header="api-key",
        transport=httpx.MockTransport(answer),
    )
    assert asyncio.run(client.complete("s", "u", 5.0)) == "cheap"
    assert seen[0].headers["api-key"] == KEY
    assert seen[0].url == "http://upstream.invalid/v1/chat/completions"


def test_mixed_encodings_are_masked_too() -> None:
    """Each character of the key escaped its own way (seeded), with whitespace between."""
    import random
    from urllib.parse import quote

    rng = random.Random(1313)
    redactor = Redactor([KEY])
    forms: list[Callable[[str], str]] = [
        lambda c: c,
        lambda c: c.swapcase(),
        lambda c: f"\\u{ord(c):04x}",
        lambda c: f"\\u{ord(c):04X}",
        lambda c: quote(c, safe=""),
        lambda c: f"%{ord(c):02x}",
        lambda c: "\\" + c if c in '"/\\' else c,
    ]
    for _ in range(300):
        echo = ""
        for char in KEY:
            echo += rng.choice(forms)(char) + rng.choice(["", "", " ", "\n  ", "\t"])
        text = json.dumps({"error": "x" * rng.randrange(50)}) + echo + " tail"
        masked = redactor(text)
        assert "***" in masked, echo
        assert not leaks(masked), (echo, masked)


PASSWORD = "pw-Zq8Lr2Vx7Nc4"


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("where", ["base_url", "proxy"])
def test_a_password_in_a_decision_url_reaches_no_answer_or_log(
    provider: str, where: str, all_logs: pytest.LogCaptureFixture
) -> None:
    """``http://user:password@host`` is a credential too: the unreachable-endpoint reason,
    the outcome and the logs show the host, never the password."""
    refused = refused_url()
    with_password = refused.replace("http://", f"http://smista:{PASSWORD}@")
    config = DecisionConfig(
        enabled=True,
        provider=provider,
        base_url=base_url_for(provider, with_password if where == "base_url" else refused),
        proxy=with_password if where == "proxy" else None,
        model="jev",
        api_key_env="SMISTA_LEAK_KEY",
        timeout_s=5.0,
    )
    stage = build_stage(config, environ=ENV)
    assert stage is not None
    outcome = stage.classify_sync(CONVERSATION)
    assert outcome.status == "unavailable"
    for text in [outcome.reason or "", outcome.model_dump_json(), all_logs.text, repr(stage)]:
        assert not leaks(text, PASSWORD), text[:400]


def test_a_password_in_the_tier_endpoint_reaches_no_decision_or_log(
    all_logs: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SMISTA_LEAK_KEY", KEY)
    url = refused_url().replace("http://", f"http://smista:{PASSWORD}@")
    decision = tier_router(url).route_sync(TASK)
    assert decision.outcome.value == "classifier_failed"
    text = json.dumps(decision.as_dict(), default=str)
    assert not leaks(text, PASSWORD), text
    assert not leaks(all_logs.text, PASSWORD)


def test_a_key_beyond_ascii_is_masked_and_breaks_no_later_key() -> None:
    """A password in a URL's userinfo may hold any character: it is masked as it is and
    base64-encoded as its UTF-8, and a later key registers as before (a key the redactor
    refused once left every later register() failing)."""
    import base64

    from smista._edge.secrets import redact, register_url

    password = "łódź-Zq8Lr2Vx7Nc4-pässwört"
    register_url("https://user:%C5%82%C3%B3d%C5%BA-Zq8Lr2Vx7Nc4-p%C3%A4ssw%C3%B6rt@example.test")
    later = "sk-later-Q7vX2pLm9RtZ4wKc0000"
    register(later)
    encoded = base64.b64encode(f"user:{password}".encode()).decode()
    for text in (f"a {password} b", f"Basic {encoded}", f"x {later} y"):
        masked = redact(text)
        assert "***" in masked
        assert password not in masked
        assert later not in masked
