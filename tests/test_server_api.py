"""The HTTP service's endpoints over real loopback sockets: answers, errors, logs."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from smista.config.defaults import default_classifier, shipped_rules_path
from smista.core.workspace import Workspace
from smista.server.models import ErrorResponse, RulesInfo
from tests.live import LiveServer

PROMPTS: list[dict[str, Any]] = [
    {"text": "please review this diff", "contexts": ["git_diff"]},
    {"text": "please reveiw this"},
    {"text": "fix the failing test in parser.py"},
    {"text": "summarise the thread for me"},
    {"text": "hello there"},
    {"text": "", "command": "plan"},
    {"text": "write a system prompt", "command": "skill"},
    {"text": "look at my change", "workspace": {"git_diff": "diff --git a/x b/x\n"}},
    {"text": "Überprüfe bitte 日本語 🚀 review"},
    {"text": "plan the migration", "contexts": ["git_diff", "whatever"]},
]


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    with LiveServer() as live:
        yield live


def expected(item: dict[str, Any]) -> dict[str, object]:
    ws = item.get("workspace")
    return (
        default_classifier()
        .classify(
            item["text"],
            command=item.get("command"),
            contexts=item.get("contexts", ()),
            workspace=Workspace.model_validate(ws) if ws is not None else None,
        )
        .to_wire()
    )


@pytest.mark.parametrize("item", PROMPTS, ids=[p["text"][:20] or "empty" for p in PROMPTS])
def test_classify_answers_exactly_the_library_wire_json(server: LiveServer, item) -> None:
    """POST /v1/classify returns the library's JSON, keys and order included."""
    with server.client() as c:
        r = c.post("/v1/classify", json=item)
    assert r.status_code == 200
    assert r.headers["content-type"] == "application/json"
    assert r.content == json.dumps(
        expected(item), ensure_ascii=False, separators=(",", ":")
    ).encode("utf-8")


def test_batch_answers_in_order(server: LiveServer) -> None:
    """POST /v1/classify/batch returns one result per item, in the items' order."""
    items = PROMPTS * 3
    with server.client() as c:
        r = c.post("/v1/classify/batch", json={"items": items})
    assert r.status_code == 200
    assert r.json() == {"results": [expected(i) for i in items]}


def test_empty_batch_is_an_empty_answer(server: LiveServer) -> None:
    """A batch with no items is valid and answers no results."""
    with server.client() as c:
        r = c.post("/v1/classify/batch", json={"items": []})
    assert (r.status_code, r.json()) == (200, {"results": []})


def test_rules_describe_the_loaded_rule_set(server: LiveServer) -> None:
    """GET /v1/rules names the file, its SHA-256, the load time and the rule count."""
    with server.client() as c:
        r = c.get("/v1/rules")
    assert r.status_code == 200
    info = RulesInfo.model_validate(r.json())
    path = shipped_rules_path()
    assert info.source == str(path)
    assert info.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert info.rule_count == len(default_classifier().config.rules)
    assert info.classification == default_classifier().config
    assert info.generation == 1
    assert info.loaded_at.endswith("Z")
    assert datetime.fromisoformat(info.loaded_at).tzinfo is not None
    assert r.headers["x-smista-rules-sha256"] == info.sha256


def test_healthz_is_ok(server: LiveServer) -> None:
    """GET /healthz says the service is up and which rule generation it serves."""
    with server.client() as c:
        r = c.get("/healthz")
    assert (r.status_code, r.json()) == (200, {"status": "ok", "generation": 1})


def test_openapi_describes_every_endpoint_and_shape(server: LiveServer) -> None:
    """GET /openapi.json lists every route with request and response schemas."""
    with server.client() as c:
        doc = c.get("/openapi.json").json()
    assert doc["openapi"].startswith("3.1")
    ops = {(path, m): op for path, item in doc["paths"].items() for m, op in item.items()}
    assert set(ops) == {
        ("/v1/classify", "post"),
        ("/v1/classify/batch", "post"),
        ("/v1/rules", "get"),
        ("/healthz", "get"),
    } | {(p, "post") for p in doc["paths"] if p in {"/v1/preview", "/v1/tier", "/v1/route"}}
    schemas = doc["components"]["schemas"]
    for (_, method), op in ops.items():
        for status, resp in op["responses"].items():
            ref = resp["content"]["application/json"]["schema"]["$ref"]
            assert ref.rsplit("/", 1)[1] in schemas, (status, ref)
        if method == "post":
            ref = op["requestBody"]["content"]["application/json"]["schema"]["$ref"]
            assert ref.rsplit("/", 1)[1] in schemas
            assert {"400", "413", "422", "500"} <= set(op["responses"])
    text = schemas["ClassifyRequest"]["properties"]["text"]
    (string,) = [t for t in text.get("anyOf", [text]) if t.get("type") == "string"]
    assert string["maxLength"] == 1024 * 1024
    assert "securitySchemes" not in doc["components"]


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        (b'{"text": ', 400, "invalid_json"),
        (b"", 400, "invalid_json"),
        (b"\xff\xfe", 400, "invalid_json"),
        (b'{"text": "\\ud800"}', 400, "invalid_json"),
        (b"[]", 422, "invalid_request"),
        (b"null", 422, "invalid_request"),
        (b'{"text": 3}', 422, "invalid_request"),
        (b'{"txt": "hi"}', 422, "invalid_request"),
        (b'{"text": "hi", "command": "deploy"}', 422, "invalid_request"),
        (b'{"text": "hi", "command": "EDIT"}', 422, "invalid_request"),
        (b'{"text": "hi", "contexts": "git_diff"}', 422, "invalid_request"),
        (b'{"text": "hi", "workspace": {"git_dif": ""}}', 422, "invalid_request"),
    ],
)
def test_bad_bodies_are_json_client_errors(server: LiveServer, body, status, code) -> None:
    """Malformed JSON is a 400, a wrong shape a 422; both are the JSON error shape."""
    with server.client() as c:
        r = c.post("/v1/classify", content=body)
    assert r.status_code == status
    err = ErrorResponse.model_validate(r.json()).error
    assert err.code == code
    if status == 422:
        assert err.details


@pytest.mark.parametrize(
    ("path", "body", "loc"),
    [
        ("/v1/classify", {"text": "a", "contexts": [""]}, "contexts[0]"),
        ("/v1/classify", {"text": "a", "contexts": ["git_diff", " \t"]}, "contexts[1]"),
        (
            "/v1/classify",
            {"messages": [{"role": "user", "content": "a"}], "contexts": [""]},
            "contexts[0]",
        ),
        (
            "/v1/classify/batch",
            {"items": [{"text": "a"}, {"text": "b", "contexts": [""]}]},
            "items[1].contexts[0]",
        ),
        ("/v1/tier", {"task": "a", "contexts": [""]}, "contexts[0]"),
    ],
)
def test_empty_context_names_are_422_as_on_the_command_line(
    server: LiveServer, path: str, body: dict[str, Any], loc: str
) -> None:
    """``smista classify --context ''`` is an error; so is an empty name over HTTP."""
    with server.client() as c:
        r = c.post(path, json=body)
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    assert error["code"] == "invalid_request"
    assert error["details"] == [{"loc": loc, "message": "a context kind cannot be empty"}]


def test_validation_errors_name_the_key_path(server: LiveServer) -> None:
    """A 422 names each offending key path inside the body."""
    with server.client() as c:
        r = c.post("/v1/classify/batch", json={"items": [{"text": "ok"}, {"text": 1}]})
    assert r.status_code == 422
    assert [d["loc"] for d in r.json()["error"]["details"]] == ["items[1].text"]


def test_unknown_paths_and_methods_are_json_errors(server: LiveServer) -> None:
    """404 and 405 answer the JSON error shape too."""
    with server.client() as c:
        missing = c.get("/v1/nope")
        wrong = c.get("/v1/classify")
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "not_found")
    assert (wrong.status_code, wrong.json()["error"]["code"]) == (
        405,
        "method_not_allowed",
    )
    assert wrong.headers["allow"] == "POST"


def test_request_id_is_echoed_and_logged(server: LiveServer) -> None:
    """A well-formed X-Request-Id is kept; the access and decision logs carry it."""
    with server.client() as c:
        r = c.post("/v1/classify", json={"text": "fix it"}, headers={"X-Request-Id": "abc-123"})
        generated = c.get("/healthz")
    assert r.headers["x-request-id"] == "abc-123"
    assert len(generated.headers["x-request-id"]) == 32
    access = server.wait_for(lambda x: x.get("event") == "access" and x["request_id"] == "abc-123")
    assert access["status"] == 200
    assert access["path"] == "/v1/classify"
    decision = server.wait_for(
        lambda x: x.get("event") == "decision" and x["request_id"] == "abc-123"
    )
    assert decision["intent"] == "edit"
    assert decision["prompt_chars"] == 6


def test_logs_are_json_and_never_hold_prompt_text(server: LiveServer) -> None:
    """Without --log-prompts, no prompt text reaches any log line."""
    marker = "zanzibarquokka"
    with server.client() as c:
        c.post(
            "/v1/classify",
            json={"text": f"review {marker}"},
            headers={"X-Request-Id": "m1"},
        )
        c.post("/v1/classify/batch", json={"items": [{"text": marker}]})
        c.post("/v1/classify", json={"text": marker, "junk": 1})
    server.wait_for(lambda x: x.get("event") == "access" and x["status"] == 422)
    assert all(r.get("event") != "non_json" for r in server.records)
    assert marker not in server.log_text()


def test_log_prompts_puts_the_text_in_decision_logs() -> None:
    """With --log-prompts the decision record holds the prompt."""
    with LiveServer(["--log-prompts"]) as live, live.client() as c:
        c.post(
            "/v1/classify",
            json={"text": "review ünïcode"},
            headers={"X-Request-Id": "p1"},
        )
        rec = live.wait_for(lambda x: x.get("event") == "decision")
    assert rec["prompt"] == "review ünïcode"


def test_large_prompts_are_classified_like_small_ones(server: LiveServer) -> None:
    """Prompts past the worker-thread threshold get the library's answer too."""
    big: dict[str, Any] = {
        "text": "lorem ipsum " * 8000 + "please review",
        "contexts": ["git_diff"],
    }
    items: list[dict[str, Any]] = [big, {"text": "x" * 70_000}, {"text": "fix it"}]
    with server.client() as c:
        one = c.post("/v1/classify", json=big)
        many = c.post("/v1/classify/batch", json={"items": items})
    assert one.json() == expected(big)
    assert many.json() == {"results": [expected(i) for i in items]}


def test_validation_errors_speak_json(server: LiveServer) -> None:
    """Body errors say 'object', not TOML's 'table'."""
    with server.client() as c:
        r = c.post("/v1/classify", content=b"[]")
    messages = " ".join(d["message"] for d in r.json()["error"]["details"])
    assert "expected an object" in messages
    assert "table" not in messages
