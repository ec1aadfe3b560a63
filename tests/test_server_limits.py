"""Request limits of the HTTP service: a body too large is a 413, a prompt or batch
over its limit (declared in the OpenAPI schema) a 422; all JSON errors."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

pytest.importorskip("uvicorn")

from tests.live import LiveServer

MAX_BODY = 4000
MAX_PROMPT = 100
MAX_BATCH = 3


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    args = [
        "--max-body-bytes", str(MAX_BODY),
        "--max-prompt-chars", str(MAX_PROMPT),
        "--max-batch", str(MAX_BATCH),
    ]  # fmt: skip
    with LiveServer(args) as live:
        yield live


def code_of(response) -> str:
    return str(response.json()["error"]["code"])


def test_prompt_at_the_limit_is_accepted(server: LiveServer) -> None:
    """A prompt of exactly the maximum length (in characters, not bytes) is served."""
    with server.client() as c:
        r = c.post("/v1/classify", json={"text": "é" * MAX_PROMPT})
    assert r.status_code == 200


def test_prompt_over_the_limit_is_422(server: LiveServer) -> None:
    """One character over the prompt limit is a 422 naming the text."""
    with server.client() as c:
        r = c.post("/v1/classify", json={"text": "x" * (MAX_PROMPT + 1)})
    assert (r.status_code, code_of(r)) == (422, "prompt_too_large")
    assert r.json()["error"]["details"][0]["loc"] == "text"


def test_prompt_over_the_limit_inside_a_batch_names_the_item(
    server: LiveServer,
) -> None:
    """In a batch, the 422 names the item whose text is too long."""
    items = [{"text": "ok"}, {"text": "y" * (MAX_PROMPT + 1)}]
    with server.client() as c:
        r = c.post("/v1/classify/batch", json={"items": items})
    assert (r.status_code, code_of(r)) == (422, "prompt_too_large")
    assert r.json()["error"]["details"][0]["loc"] == "items[1].text"


def test_batch_at_and_over_the_limit(server: LiveServer) -> None:
    """MAX_BATCH items are served; one more is a 422."""
    with server.client() as c:
        ok = c.post("/v1/classify/batch", json={"items": [{"text": "a"}] * MAX_BATCH})
        big = c.post("/v1/classify/batch", json={"items": [{"text": "a"}] * (MAX_BATCH + 1)})
    assert ok.status_code == 200
    assert len(ok.json()["results"]) == MAX_BATCH
    assert (big.status_code, code_of(big)) == (422, "batch_too_large")


def test_declared_body_over_the_limit_is_413(server: LiveServer) -> None:
    """A Content-Length above the body limit is refused with 413."""
    body = json.dumps({"text": "z" * MAX_BODY}).encode()
    with server.client() as c:
        r = c.post("/v1/classify", content=body)
    assert (r.status_code, code_of(r)) == (413, "body_too_large")


def test_chunked_body_over_the_limit_is_413(server: LiveServer) -> None:
    """A chunked body (no Content-Length) is cut off once it passes the limit."""

    def chunks() -> Iterator[bytes]:
        yield b'{"text": "'
        for _ in range(10):
            yield b"w" * 1000
        yield b'"}'

    with server.client() as c:
        r = c.post("/v1/classify", content=chunks())
    assert (r.status_code, code_of(r)) == (413, "body_too_large")


def test_chunked_body_under_the_limit_is_served(server: LiveServer) -> None:
    """A small chunked body is read whole and classified."""

    def chunks() -> Iterator[bytes]:
        yield b'{"text": "fix '
        yield b'the bug"}'

    with server.client() as c:
        r = c.post("/v1/classify", content=chunks())
    assert r.status_code == 200
    assert r.json()["intent"] == "edit"


def test_invalid_content_length_is_400(server: LiveServer) -> None:
    """A Content-Length that is not a number is a client error, never a 500."""
    with server.connect() as sock:
        sock.sendall(
            b"POST /v1/classify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 12abc\r\n\r\n{}"
        )
        head = sock.recv(4096)
    assert head.startswith(b"HTTP/1.1 400")


def test_the_service_keeps_serving_after_refusals(server: LiveServer) -> None:
    """Limits refuse single requests; the service stays up and answers the next."""
    with server.client() as c:
        r = c.get("/healthz")
    assert r.status_code == 200
    assert not server.find(lambda x: x.get("status") == 500)


def test_error_details_are_capped(server: LiveServer) -> None:
    """A body with many problems lists at most 50 of them, then how many more.

    Arrays fail fast: only the first bad item is reported (here 1 + 60 problems).
    """
    items = [{"text": i} for i in range(MAX_BATCH)]
    body = {"items": items, **{f"x{i}": i for i in range(60)}}
    with server.client() as c:
        r = c.post("/v1/classify/batch", json=body)
    assert r.status_code == 422
    details = r.json()["error"]["details"]
    assert len(details) == 51
    assert details[-1]["message"] == f"and {1 + 60 - 50} more problems"


def test_a_client_hanging_up_mid_body_is_not_a_server_error(server: LiveServer) -> None:
    """A client that disconnects before sending its whole body is logged as a 4xx."""
    mark = server.mark()
    with server.connect() as sock:
        sock.sendall(
            b"POST /v1/classify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nX-Request-Id: hangup\r\n"
            b'Content-Length: 100\r\n\r\n{"text": '
        )
    rec = server.wait_for(
        lambda r: r.get("event") == "access" and r.get("request_id") == "hangup", start=mark
    )
    assert 400 <= rec["status"] < 500
    assert not server.find(lambda r: r.get("level") == "error")
    with server.client() as c:
        assert c.get("/healthz").status_code == 200
