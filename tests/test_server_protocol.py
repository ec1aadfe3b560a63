"""The connection guards under both HTTP parsers (httptools and h11), over loopback.

The service is served by uvicorn in a thread of this process with
:func:`smista.server.protocol.guarded_protocol` for each parser, and spoken
to with raw sockets: slow heads, stalled bodies, garbage, oversized heads,
the connection limit, keep-alive and pipelining behave alike on both.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from typing import Any, BinaryIO

import pytest

pytest.importorskip("uvicorn")
pytest.importorskip("httptools")

from smista.server.app import create_app
from smista.server.protocol import MAX_HEAD_BYTES, guarded_protocol
from smista.server.settings import ServerSettings
from tests.live import ThreadServer, recv_all

HANG_GUARD = 20.0
BODY = b'{"text":"fix the failing test in parser.py"}'
REQUEST = (
    b"POST /v1/classify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    b"Content-Length: " + str(len(BODY)).encode() + b"\r\n\r\n" + BODY
)


class Served(ThreadServer):
    """The real app behind a guarded protocol, on a loopback port in a thread."""

    def __init__(self, parser: str) -> None:
        self.protocol = guarded_protocol(
            header_timeout=0.5, body_timeout=0.5, max_connections=5, parser=parser
        )
        super().__init__(
            create_app(ServerSettings(log_level="warning")),
            http=self.protocol,
            log_level="warning",
            access_log=False,
        )

    def connect(self) -> socket.socket:
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=HANG_GUARD)
        sock.settimeout(HANG_GUARD)
        return sock


@pytest.fixture(scope="module", params=["httptools", "h11"])
def served(request: pytest.FixtureRequest) -> Iterator[Served]:
    with Served(request.param) as s:
        yield s


def recv_response(reader: BinaryIO) -> tuple[bytes, Any]:
    """One complete response (head and JSON body) from a keep-alive connection's reader."""
    lines = []
    while (line := reader.readline()) not in (b"\r\n", b""):
        lines.append(line)
    head = b"".join(lines)
    length = next(
        int(line.split(b":", 1)[1]) for line in lines if line.lower().startswith(b"content-length:")
    )
    body = reader.read(length)
    assert len(body) == length
    return head, json.loads(body)


def error_code(raw: bytes) -> str:
    head, _, body = raw.partition(b"\r\n\r\n")
    assert b"content-type: application/json" in head.lower()
    code = json.loads(body)["error"]["code"]
    assert isinstance(code, str)
    return code


def test_auto_picks_httptools_when_installed() -> None:
    protocol = guarded_protocol(header_timeout=1, body_timeout=1, max_connections=1)
    assert protocol.__name__ == "GuardedHttpToolsProtocol"
    h11 = guarded_protocol(header_timeout=1, body_timeout=1, max_connections=1, parser="h11")
    assert h11.__name__ == "GuardedH11Protocol"
    with pytest.raises(ValueError, match="unknown HTTP parser"):
        guarded_protocol(header_timeout=1, body_timeout=1, max_connections=1, parser="x")


def test_a_slow_head_gets_a_json_408(served: Served) -> None:
    with served.connect() as sock:
        sock.sendall(
            b"POST /v1/classify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        )
        raw = recv_all(sock)
    assert raw.startswith(b"HTTP/1.1 408 ")
    assert error_code(raw) == "header_timeout"


def test_a_silent_connection_gets_a_json_408(served: Served) -> None:
    with served.connect() as sock:
        raw = recv_all(sock)
    assert raw.startswith(b"HTTP/1.1 408 ")


def test_a_stalled_body_is_cut_off(served: Served) -> None:
    with served.connect() as sock:
        sock.sendall(
            b"POST /v1/classify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
        )
        assert recv_all(sock) == b""


def test_garbage_gets_a_json_400(served: Served) -> None:
    with served.connect() as sock:
        sock.sendall(b"NOT HTTP AT ALL\r\n\r\n")
        raw = recv_all(sock)
    assert raw.startswith(b"HTTP/1.1 400 ")
    assert error_code(raw) == "invalid_http"


def test_a_head_over_the_limit_gets_a_json_400(served: Served) -> None:
    with served.connect() as sock:
        sock.sendall(
            b"POST /v1/classify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        )
        filler = b"X-Filler: " + b"a" * 1000 + b"\r\n"
        try:
            for _ in range(MAX_HEAD_BYTES // len(filler) + 4):
                sock.sendall(filler)
        except OSError:
            pass  # the server may close while we still send
        raw = recv_all(sock)
    assert raw.startswith(b"HTTP/1.1 400 ")
    assert error_code(raw) == "invalid_http"


def test_a_head_in_many_small_reads_is_answered(served: Served) -> None:
    with served.connect() as sock:
        for i in range(0, len(REQUEST), 7):
            sock.sendall(REQUEST[i : i + 7])
        head, body = recv_response(sock.makefile("rb"))
    assert head.startswith(b"HTTP/1.1 200 ")
    assert body["intent"] == "edit"


def test_keep_alive_pipelining_and_idle_between_requests(served: Served) -> None:
    with served.connect() as sock, sock.makefile("rb") as reader:
        sock.sendall(REQUEST + REQUEST)  # two requests in one write
        for _ in range(2):
            head, body = recv_response(reader)
            assert head.startswith(b"HTTP/1.1 200 ")
            assert body["intent"] == "edit"
        time.sleep(1.0)  # idle past the head timeout: keep-alive, not a 408
        sock.sendall(REQUEST)
        head, _ = recv_response(reader)
    assert head.startswith(b"HTTP/1.1 200 ")


def test_connections_over_the_limit_get_a_json_503(served: Served) -> None:
    socks = [served.connect() for _ in range(8)]
    try:
        refused = 0
        for sock in socks[5:]:
            raw = recv_all(sock)
            if raw.startswith(b"HTTP/1.1 503 "):
                assert error_code(raw) == "too_many_connections"
                refused += 1
        assert refused >= 1
    finally:
        for sock in socks:
            sock.close()
    with served.connect() as sock:
        sock.sendall(REQUEST)
        head, _ = recv_response(sock.makefile("rb"))
    assert head.startswith(b"HTTP/1.1 200 ")
