"""Graceful shutdown of the HTTP service on SIGTERM."""

from __future__ import annotations

import json
import signal
import time

import pytest

pytest.importorskip("uvicorn")

from tests.live import LiveServer
from tests.test_server_reload import read_response, read_until


def test_sigterm_when_idle_exits_zero() -> None:
    """An idle service stops on SIGTERM with exit status 0, logging its shutdown."""
    live = LiveServer().start()
    with live.client() as c:
        assert c.get("/healthz").status_code == 200
    assert live.stop() == 0
    assert live.find(lambda r: r.get("message") == "Shutting down")
    assert live.find(lambda r: r.get("message") == "Application shutdown complete.")


def test_sigterm_lets_a_request_in_flight_finish() -> None:
    """After SIGTERM the service stops accepting, answers the request it had begun,
    then exits 0."""
    live = LiveServer().start()
    try:
        body = json.dumps({"text": "please review", "contexts": ["git_diff"]}).encode()
        with live.connect() as sock:
            sock.sendall(
                b"POST /v1/classify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nExpect: 100-continue\r\n"
                + f"Content-Length: {len(body)}\r\n\r\n".encode()
            )
            assert read_until(sock, b"\r\n\r\n").startswith(b"HTTP/1.1 100 ")
            live.signal(signal.SIGTERM)
            live.wait_for(lambda r: str(r.get("message", "")).startswith("Waiting for conn"))
            assert refuses_connections(live)
            sock.sendall(body)
            head, answer = read_response(sock)
            assert sock.recv(1) == b""  # then the server closes the connection
        assert head.startswith(b"HTTP/1.1 200 ")
        assert json.loads(answer)["intent"] == "review"
        assert live.stop() == 0
    finally:
        if live.proc is not None and live.proc.poll() is None:
            live.proc.kill()
            live.stop()


def refuses_connections(live: LiveServer, tries: int = 100) -> bool:
    """Whether new connections are refused (polled: the close is asynchronous)."""
    for _ in range(tries):
        try:
            live.connect().close()
        except ConnectionRefusedError:
            return True
        time.sleep(0.05)
    return False
