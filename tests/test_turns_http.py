"""Turns on the HTTP API over real loopback: ``messages`` in classify, batch and preview."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("uvicorn")

from smista.config.defaults import default_classifier
from smista.config.settings import parse_settings
from smista.core.classifier import Classifier
from smista.core.workspace import Workspace
from smista.decision.preview import build_preview
from tests.live import LiveServer
from tests.preview_config import ROUTING

DATA = Path(__file__).resolve().parent / "data" / "turns"
CLASSIFIER = default_classifier()


def load(name: str) -> Any:
    return json.loads((DATA / name).read_text("utf-8"))


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    with LiveServer() as live:
        yield live


def wire_json(payload: dict[str, object]) -> bytes:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


@pytest.mark.parametrize(
    "fixture",
    [
        "claude_code_session.json",
        "claude_code_title.json",
        "openai_chat.json",
        "openai_responses.json",
    ],
)
def test_classify_messages_answers_the_library_turn_json(server: LiveServer, fixture: str) -> None:
    body = load(fixture)
    with server.client() as c:
        r = c.post("/v1/classify", json={"messages": body})
    assert r.status_code == 200
    assert r.content == wire_json(CLASSIFIER.classify_turn(body).to_wire())


def test_claude_code_session_over_http_is_a_follow_up_and_the_title_call_housekeeping(
    server: LiveServer,
) -> None:
    with server.client() as c:
        session = c.post("/v1/classify", json={"messages": load("claude_code_session.json")})
        title = c.post("/v1/classify", json={"messages": load("claude_code_title.json")})
    assert session.json()["intent"] == "edit"
    assert session.json()["turn"]["follow_up"] is True
    assert session.json()["reason"].startswith("follow-up: 'ok do it' continues")
    assert title.json()["turn"]["housekeeping"] == "title"
    assert "not classified" in title.json()["reason"]


def test_batch_mixes_text_and_messages_in_order(server: LiveServer) -> None:
    chat = load("openai_chat.json")
    items = [
        {"text": "fix the bug"},
        {"messages": chat["messages"]},
        {"messages": load("openai_responses.json"), "contexts": ["git_diff"]},
    ]
    with server.client() as c:
        r = c.post("/v1/classify/batch", json={"items": items})
    assert r.status_code == 200
    assert r.json() == {
        "results": [
            CLASSIFIER.classify("fix the bug").to_wire(),
            CLASSIFIER.classify_turn(chat["messages"]).to_wire(),
            CLASSIFIER.classify_turn(
                load("openai_responses.json"), contexts=["git_diff"]
            ).to_wire(),
        ]
    }
    # A bare-text item keeps the original JSON exactly: no "turn" key.
    assert "turn" not in r.json()["results"][0]


@pytest.mark.parametrize(
    ("path", "body", "loc", "message"),
    [
        ("/v1/classify", {"text": "x", "messages": []}, "(body)", "give exactly one of"),
        ("/v1/classify", {}, "(body)", "give exactly one of"),
        ("/v1/classify", {"messages": None}, "(body)", "'messages' must not be null"),
        (
            "/v1/classify",
            {"messages": [{"role": "wizard", "content": "hi"}]},
            "messages[0].role",
            "unknown role 'wizard'",
        ),
        (
            "/v1/classify",
            {"messages": {"messages": [{"role": "user", "content": 5}]}},
            "messages.messages[0].content",
            "expected a string, null or an array of content parts",
        ),
        ("/v1/classify", {"messages": {"model": "m"}}, "messages", "expected a string, an array"),
        (
            "/v1/classify/batch",
            {"items": [{"text": "ok"}, {"messages": [{"role": "user", "content": [{"type": 1}]}]}]},
            "items[1].messages[0].content[0].type",
            "expected a string",
        ),
    ],
)
def test_malformed_messages_are_422_naming_the_field(
    server: LiveServer, path: str, body: dict[str, Any], loc: str, message: str
) -> None:
    with server.client() as c:
        r = c.post(path, json=body)
    assert r.status_code == 422
    error = r.json()["error"]
    assert error["code"] == "invalid_request"
    (detail,) = error["details"]
    assert detail["loc"] == loc
    assert detail["message"].startswith(message)


def test_a_turn_whose_user_text_is_over_the_limit_is_prompt_too_large() -> None:
    with LiveServer(["--max-prompt-chars", "10"]) as live, live.client() as c:
        ok = c.post("/v1/classify", json={"messages": [{"role": "user", "content": "fix it"}]})
        big = [
            {"role": "system", "content": "s" * 500},  # system text does not count
            {"role": "user", "content": "fix the parser please"},
        ]
        r = c.post("/v1/classify", json={"messages": big})
    assert ok.status_code == 200
    assert r.status_code == 422
    assert r.json()["error"]["code"] == "prompt_too_large"
    assert r.json()["error"]["details"][0]["loc"] == "messages"


def test_decision_log_says_turn_and_never_the_prompt(server: LiveServer) -> None:
    with server.client() as c:
        c.post(
            "/v1/classify",
            json={"messages": load("claude_code_session.json")},
            headers={"X-Request-Id": "turn-log-1"},
        )
    rec = server.wait_for(
        lambda x: x.get("event") == "decision" and x.get("request_id") == "turn-log-1"
    )
    assert rec["turn"] == {
        "format": "anthropic",
        "follow_up": True,
        "housekeeping": None,
        "stripped": 4,
    }
    assert rec["prompt_chars"] == len("ok do it")
    assert "login test" not in server.log_text()


def test_preview_takes_messages(tmp_path: Path) -> None:
    config = tmp_path / "smista.toml"
    config.write_text(ROUTING, "utf-8")
    messages = [
        {"role": "user", "content": "refactor the session handling"},
        {"role": "assistant", "content": "Which module?"},
        {"role": "user", "content": "go ahead"},
    ]
    workspace = {"root": "/repo", "referenced_paths": ["src/auth/a.rs"]}
    settings = parse_settings(ROUTING)
    classifier = Classifier(settings.classification)
    found = classifier.classify_turn(messages)
    expected = build_preview(
        "go ahead",
        classification=classifier,
        routing=settings.routing,
        result=found.classification,
        turn=found.info(),
        workspace=Workspace.model_validate(workspace),
    ).to_json_dict()
    with LiveServer(["--config", str(config)]) as live, live.client() as c:
        r = c.post("/v1/preview", json={"messages": messages, "workspace": workspace})
        plain = c.post("/v1/preview", json={"text": "go ahead", "workspace": workspace})
    assert r.status_code == 200
    assert r.json() == expected
    assert r.json()["classification"]["intent"] == "edit"
    assert r.json()["routing"]["matched_rule"] == "auth edits use Claude"
    assert r.json()["turn"]["follow_up"] is True
    assert "turn" not in plain.json()
    assert plain.json()["classification"]["intent"] == "chat"


def test_a_large_turn_is_read_off_the_event_loop_and_answers_the_same(server: LiveServer) -> None:
    """A body over OFFLOAD_CHARS takes the worker-thread path; the answer is unchanged."""
    from smista.server.app import OFFLOAD_CHARS

    big = [
        {"role": "user", "content": "fix the retry loop " + "and more " * (OFFLOAD_CHARS // 8)},
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": "go ahead"},
    ]
    with server.client() as c:
        one = c.post("/v1/classify", json={"messages": big})
        batch = c.post("/v1/classify/batch", json={"items": [{"messages": big}, {"text": "hi"}]})
    want = CLASSIFIER.classify_turn(big).to_wire()
    assert one.json() == want
    assert batch.json()["results"] == [want, CLASSIFIER.classify("hi").to_wire()]
