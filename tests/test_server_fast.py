"""``POST /v1/classify`` and its batch, answered in raw ASGI ahead of Starlette's router.

Over a real ``smista serve`` on loopback: the answers carry every header a
routed answer carries, bodies arrive whole however they are framed (chunked,
split), the limits and errors are the routed ones, and the logs are the
same. The plain request shapes built without pydantic's validation are
exactly the models the validation gives.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from smista.server.app import _plain_batch, _plain_request
from smista.server.models import BatchRequest, ClassifyRequest
from tests.conftest import ROOT
from tests.live import LiveServer

MAX_BODY = 2000


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    with LiveServer(["--max-body-bytes", str(MAX_BODY), "--log-level", "info"]) as live:
        yield live


def exchange(server: LiveServer, raw: bytes) -> tuple[int, dict[bytes, bytes], Any]:
    """Send one raw request (``Connection: close``); the status, headers and JSON body."""
    with server.connect() as sock:
        sock.sendall(raw)
        sock.shutdown(socket.SHUT_WR)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        headers[name.strip().lower()] = value.strip()
    return int(lines[0].split()[1]), headers, json.loads(body)


def test_answers_carry_every_header(server: LiveServer) -> None:
    with server.client() as c:
        sha = c.get("/v1/rules").json()["sha256"]
        r = c.post("/v1/classify", json={"text": "fix the bug"}, headers={"X-Request-Id": "abc-1"})
        assert r.status_code == 200
        assert r.headers["content-type"] == "application/json"
        assert r.headers["x-request-id"] == "abc-1"
        assert r.headers["x-smista-rules-sha256"] == sha
        assert int(r.headers["content-length"]) == len(r.content)
        assert r.json()["intent"] == "edit"
        b = c.post("/v1/classify/batch", json={"items": [{"text": "fix the bug"}]})
        assert b.headers["x-smista-rules-sha256"] == sha
        assert len(b.headers["x-request-id"]) == 32  # made up: none was given
        assert b.json()["results"] == [r.json()]


def test_a_chunked_body_is_read_whole(server: LiveServer) -> None:
    body = b'{"text": "please review this diff"}'
    chunks = b"".join(
        b"%x\r\n%s\r\n" % (len(body[i : i + 5]), body[i : i + 5]) for i in range(0, len(body), 5)
    )
    raw = (
        b"POST /v1/classify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
        b"Connection: close\r\n\r\n" + chunks + b"0\r\n\r\n"
    )
    status, _, answer = exchange(server, raw)
    assert status == 200
    assert answer["intent"] == "review"


def test_a_chunked_body_over_the_limit_is_413(server: LiveServer) -> None:
    body = json.dumps({"text": "x" * MAX_BODY}).encode()
    chunks = b"".join(
        b"%x\r\n%s\r\n" % (len(body[i : i + 500]), body[i : i + 500])
        for i in range(0, len(body), 500)
    )
    raw = (
        b"POST /v1/classify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
        b"Connection: close\r\n\r\n" + chunks + b"0\r\n\r\n"
    )
    status, headers, answer = exchange(server, raw)
    assert status == 413
    assert answer["error"]["code"] == "body_too_large"
    assert b"x-request-id" in headers


def test_errors_and_other_methods_are_the_routed_ones(server: LiveServer) -> None:
    with server.client() as c:
        r = c.post("/v1/classify", content=b'{"text": NaN}')
        assert r.status_code == 400
        assert r.json()["error"]["code"] == "invalid_json"
        assert r.headers["x-request-id"]
        r = c.post("/v1/classify", json={"text": 3})
        assert r.status_code == 422
        assert r.json()["error"]["details"][0]["loc"] == "text"
        r = c.get("/v1/classify")
        assert r.status_code == 405
        assert r.json()["error"]["code"] == "method_not_allowed"
        r = c.post("/v1/classify/", json={"text": "x"}, follow_redirects=False)
        assert r.status_code != 200  # only the exact path is the endpoint
        paths = c.get("/openapi.json").json()["paths"]
        assert "post" in paths["/v1/classify"]
        assert "post" in paths["/v1/classify/batch"]


def test_access_and_decision_records_are_logged(server: LiveServer) -> None:
    mark = server.mark()
    with server.client() as c:
        c.post("/v1/classify", json={"text": "fix the bug"}, headers={"X-Request-Id": "log-1"})
    access = server.wait_for(
        lambda r: r.get("event") == "access" and r.get("request_id") == "log-1", start=mark
    )
    assert access["status"] == 200
    assert access["path"] == "/v1/classify"
    decision = server.wait_for(
        lambda r: r.get("event") == "decision" and r.get("request_id") == "log-1", start=mark
    )
    assert decision["intent"] == "edit"
    assert "prompt" not in decision


def test_the_service_uses_httptools_and_uvloop(server: LiveServer) -> None:
    listening = server.wait_for(lambda r: r.get("event") == "listening")
    assert listening["http"] == "httptools"
    assert listening["loop"] == "uvloop"
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    server_extra = next(line for line in text.splitlines() if line.startswith("server = "))
    assert "uvicorn[standard]" in server_extra


PLAIN: list[dict[str, Any]] = [
    {"text": "fix it"},
    {"text": ""},
    {"text": "plan", "command": "plan"},
    {"text": "x", "command": None},
    {"text": "x", "contexts": []},
    {"text": "review", "contexts": ["git_diff", "whatever"], "command": "review"},
    {"text": "Überprüfe 日本語 🚀"},
]
NOT_PLAIN: list[Any] = [
    [],
    "text",
    {},
    {"text": None},
    {"text": 3},
    {"text": "x", "command": "nonsense"},
    {"text": "x", "command": "EDIT"},
    {"text": "x", "contexts": "git_diff"},
    {"text": "x", "contexts": ["a", 1]},
    {"text": "x", "contexts": [""]},
    {"text": "x", "contexts": ["git_diff", " \t"]},
    {"text": "x", "workspace": {}},
    {"text": "x", "messages": [{"role": "user", "content": "hi"}]},
    {"messages": [{"role": "user", "content": "hi"}]},
    {"text": "x", "extra": 1},
]


@pytest.mark.parametrize("data", PLAIN)
def test_a_plain_request_is_the_validated_model(data: dict[str, Any]) -> None:
    built = _plain_request(data)
    validated = ClassifyRequest.model_validate_json(json.dumps(data))
    assert built is not None
    assert built == validated
    assert built.model_fields_set == validated.model_fields_set
    assert repr(built) == repr(validated)
    batch = _plain_batch({"items": [data, data]})
    assert batch == BatchRequest.model_validate_json(json.dumps({"items": [data, data]}))


def test_plain_requests_skip_model_construct() -> None:
    """ClassifyRequest has no aliases or post-init: the plain path builds it directly."""
    from smista.server import app

    assert app._construct.__name__ == "construct"


@pytest.mark.parametrize("data", NOT_PLAIN)
def test_other_shapes_are_left_to_the_validation(data: Any) -> None:
    assert _plain_request(data) is None
    assert _plain_batch({"items": [{"text": "x"}, data]}) is None


def test_plain_shapes_answer_as_validated_ones(server: LiveServer) -> None:
    """A plain body and the same request made not plain (a workspace) answer alike."""
    with server.client() as c:
        for data in PLAIN:
            plain = c.post("/v1/classify", json=data)
            other = c.post("/v1/classify", json={**data, "workspace": None})
            assert plain.status_code == other.status_code == 200
            assert plain.content == other.content
