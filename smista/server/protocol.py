"""uvicorn's h11 protocol with the connection limits uvicorn lacks, and JSON for its own errors.

I/O edge (sockets). :func:`guarded_protocol` returns an ``H11Protocol``
subclass for ``uvicorn.Config(http=...)`` that adds, per connection:

* a **header timeout**: a connection that has not sent a complete request
  head within ``header_timeout`` seconds of connecting (or of starting its
  next request) gets a JSON 408 and is closed, so slow-header clients
  (slowloris) cannot hold connections;
* a **body timeout**: a request whose body is not complete within
  ``body_timeout`` seconds of its head is cut off (the connection closes;
  the handler sees a client disconnect);
* a **connection limit**: beyond ``max_connections`` open connections, a new
  one is answered with a JSON 503 and closed at once, before anything is read;
* JSON instead of uvicorn's plain-text 400 for a request h11 cannot parse.

It never touches a request the application is answering, except to close a
connection whose body stalled. Idle keep-alive connections are still closed
by uvicorn's own ``timeout_keep_alive``.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["guarded_protocol", "raw_json_response"]

log = logging.getLogger("smista.server")

_PHRASES = {400: "Bad Request", 408: "Request Timeout", 503: "Service Unavailable"}


def raw_json_response(status: int, code: str, message: str) -> bytes:
    """A complete ``Connection: close`` HTTP/1.1 response with smista's error JSON."""
    body = json.dumps({"error": {"code": code, "message": message}}, separators=(",", ":")).encode()
    head = (
        f"HTTP/1.1 {status} {_PHRASES.get(status, 'Error')}\r\n"
        "content-type: application/json\r\n"
        f"content-length: {len(body)}\r\n"
        "connection: close\r\n\r\n"
    ).encode("ascii")
    return head + body


def guarded_protocol(
    *, header_timeout: float, body_timeout: float, max_connections: int
) -> type[H11Protocol]:
    """An ``H11Protocol`` class enforcing these limits (see the module docstring)."""

    class GuardedH11Protocol(H11Protocol):
        _head_timer: asyncio.TimerHandle | None = None
        _body_timer: asyncio.TimerHandle | None = None
        _rejected = False

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            if len(self.connections) >= max_connections:
                self._rejected = True
                self.transport = transport
                log.warning(
                    "connection refused: too many connections",
                    extra={"event": "connection_limit", "max_connections": max_connections},
                )
                transport.write(
                    raw_json_response(
                        503,
                        "too_many_connections",
                        f"more than {max_connections} connections are open; retry later",
                    )
                )
                transport.close()
                return
            super().connection_made(transport)
            self._arm_head()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._rejected:
                return
            self._cancel_timers()
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            if self._rejected:
                return
            super().data_received(data)
            self._track()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._track()

        def _track(self) -> None:
            """Arm or cancel the timers for where the client is in its request."""
            if self.transport.is_closing():
                self._cancel_timers()
                return
            state = self.conn.their_state
            if state is h11.IDLE:
                if self.conn.trailing_data[0] or self._head_timer is not None:
                    self._arm_head()  # a head has begun (or was already awaited)
            elif state is h11.SEND_BODY:
                self._cancel(head=True)
                if self._body_timer is None:
                    self._body_timer = self.loop.call_later(body_timeout, self._body_expired)
            else:
                self._cancel_timers()

        def _arm_head(self) -> None:
            if self._head_timer is None:
                self._head_timer = self.loop.call_later(header_timeout, self._head_expired)

        def _cancel(self, *, head: bool = False, body: bool = False) -> None:
            if head and self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None
            if body and self._body_timer is not None:
                self._body_timer.cancel()
                self._body_timer = None

        def _cancel_timers(self) -> None:
            self._cancel(head=True, body=True)

        def _head_expired(self) -> None:
            self._head_timer = None
            if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
                return
            cycle: Any = self.cycle  # None until the first request
            if cycle is not None and not cycle.response_complete:
                return  # answering a pipelined request: not a slow head
            self.transport.write(
                raw_json_response(
                    408,
                    "header_timeout",
                    f"request head not received within {header_timeout:g} s",
                )
            )
            self.transport.close()

        def _body_expired(self) -> None:
            self._body_timer = None
            if self.transport.is_closing() or self.conn.their_state is not h11.SEND_BODY:
                return
            log.warning(
                "request body timed out; connection closed",
                extra={"event": "body_timeout", "body_timeout": body_timeout},
            )
            self.transport.close()

        def send_400_response(self, msg: str) -> None:
            self._cancel_timers()
            self.transport.write(raw_json_response(400, "invalid_http", msg))
            self.transport.close()

    GuardedH11Protocol.__qualname__ = "GuardedH11Protocol"
    return GuardedH11Protocol
