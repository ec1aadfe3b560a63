"""uvicorn's HTTP protocols with the connection limits uvicorn lacks, and JSON for their errors.

I/O edge (sockets). :func:`guarded_protocol` returns a subclass of uvicorn's
``HttpToolsProtocol`` (when ``httptools`` is installed, as the ``server``
extra's ``uvicorn[standard]`` brings it: its C parser costs a fraction of
h11's per request) or of its ``H11Protocol`` otherwise, for
``uvicorn.Config(http=...)``; either adds, per connection:

* a **header timeout**: a connection that has not sent a complete request
  head within ``header_timeout`` seconds of connecting (or of starting its
  next request) gets a JSON 408 and is closed, so slow-header clients
  (slowloris) cannot hold connections;
* a **body timeout**: a request whose body is not complete within
  ``body_timeout`` seconds of its head is cut off (the connection closes;
  the handler sees a client disconnect);
* a **connection limit**: beyond ``max_connections`` open connections, a new
  one is answered with a JSON 503 and closed at once, before anything is read;
* JSON instead of uvicorn's plain-text 400 for a request the parser refuses;
* a **head size limit** (:data:`MAX_HEAD_BYTES`, h11's own default): a
  request head that grows past it is a JSON 400 and the connection closes
  (h11 enforces it itself; the httptools parser has no limit, so it is
  counted here).

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
from h11._connection import DEFAULT_MAX_INCOMPLETE_EVENT_SIZE
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["LINGER_SECONDS", "MAX_HEAD_BYTES", "guarded_protocol", "raw_json_response"]

MAX_HEAD_BYTES = DEFAULT_MAX_INCOMPLETE_EVENT_SIZE
"""Largest request head accepted (16 KiB, h11's limit), whichever parser serves."""

LINGER_SECONDS = 2.0
"""How long a refused request's connection keeps reading (and dropping) input after
its JSON 400, so the client can read the answer (see ``_answer_and_close``)."""

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
    *,
    header_timeout: float,
    body_timeout: float,
    max_connections: int,
    parser: str = "auto",
) -> type[asyncio.Protocol]:
    """A protocol class enforcing these limits (see the module docstring).

    ``parser`` is ``"httptools"``, ``"h11"`` or ``"auto"`` (httptools when it
    is installed, as uvicorn's own ``http="auto"`` chooses).
    """
    if parser not in ("auto", "httptools", "h11"):
        raise ValueError(f"unknown HTTP parser {parser!r}")
    if parser != "h11":
        try:
            import httptools  # noqa: F401
        except ImportError:
            if parser == "httptools":
                raise
        else:
            return _guarded_httptools(header_timeout, body_timeout, max_connections)
    return _guarded_h11(header_timeout, body_timeout, max_connections)


def _refuse_connection(transport: asyncio.Transport, max_connections: int) -> None:
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


def _head_timeout_response(header_timeout: float) -> bytes:
    return raw_json_response(
        408, "header_timeout", f"request head not received within {header_timeout:g} s"
    )


def _log_body_timeout(body_timeout: float) -> None:
    log.warning(
        "request body timed out; connection closed",
        extra={"event": "body_timeout", "body_timeout": body_timeout},
    )


def _with_guards(
    base: type[Any], header_timeout: float, body_timeout: float, max_connections: int
) -> type[Any]:
    """``base`` (a uvicorn protocol) with the guards both parsers share: the
    connection limit, the two timers and JSON 400s. A subclass says where the
    client is in its request (:meth:`_awaiting_head`, :meth:`_awaiting_body`) and
    when to arm or cancel the timers."""

    class Guarded(base):  # type: ignore[misc]
        _head_timer: asyncio.TimerHandle | None = None
        _body_timer: asyncio.TimerHandle | None = None
        _rejected = False
        _discarding = False

        def _answer_and_close(self, response: bytes) -> None:
            """Write ``response`` and close without losing it (a lingering close).

            Closing a socket with unread input resets the connection, and the
            client's kernel then drops an answer it has not read yet. So the
            write side is shut first, and what the client still sends is read and
            dropped until it closes, for at most :data:`LINGER_SECONDS`.
            """
            self._cancel_timers()
            self._discarding = True
            transport = self.transport
            transport.write(response)
            if transport.can_write_eof():
                transport.write_eof()
                self.loop.call_later(LINGER_SECONDS, transport.close)
            else:
                transport.close()

        def connection_made(self, transport: asyncio.Transport) -> None:
            if len(self.connections) >= max_connections:
                self._rejected = True
                self.transport = transport
                _refuse_connection(transport, max_connections)
                return
            super().connection_made(transport)
            self._arm_head()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._rejected:
                return
            self._cancel_timers()
            super().connection_lost(exc)

        def _awaiting_head(self) -> bool:
            raise NotImplementedError

        def _awaiting_body(self) -> bool:
            raise NotImplementedError

        def _arm_head(self) -> None:
            if self._head_timer is None:
                self._head_timer = self.loop.call_later(header_timeout, self._head_expired)

        def _arm_body(self) -> None:
            self._cancel(head=True)
            if self._body_timer is None:
                self._body_timer = self.loop.call_later(body_timeout, self._body_expired)

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
            if self.transport.is_closing() or not self._awaiting_head():
                return
            cycle: Any = self.cycle  # None until the first request
            if cycle is not None and not cycle.response_complete:
                return  # answering a pipelined request: not a slow head
            self.transport.write(_head_timeout_response(header_timeout))
            self.transport.close()

        def _body_expired(self) -> None:
            self._body_timer = None
            if self.transport.is_closing() or not self._awaiting_body():
                return
            _log_body_timeout(body_timeout)
            self.transport.close()

        def send_400_response(self, msg: str) -> None:
            self._answer_and_close(raw_json_response(400, "invalid_http", msg))

    return Guarded


def _guarded_h11(
    header_timeout: float, body_timeout: float, max_connections: int
) -> type[H11Protocol]:

    class GuardedH11Protocol(
        _with_guards(H11Protocol, header_timeout, body_timeout, max_connections)  # type: ignore[misc]
    ):
        def data_received(self, data: bytes) -> None:
            if self._rejected or self._discarding:
                return
            super().data_received(data)
            self._track()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._track()

        def _awaiting_head(self) -> bool:
            return bool(self.conn.their_state is h11.IDLE)

        def _awaiting_body(self) -> bool:
            return bool(self.conn.their_state is h11.SEND_BODY)

        def _track(self) -> None:
            """Arm or cancel the timers for where the client is in its request."""
            if self.transport.is_closing():
                self._cancel_timers()
            elif self._awaiting_head():
                if self.conn.trailing_data[0] or self._head_timer is not None:
                    self._arm_head()  # a head has begun (or was already awaited)
            elif self._awaiting_body():
                self._arm_body()
            else:
                self._cancel_timers()

    GuardedH11Protocol.__qualname__ = "GuardedH11Protocol"
    return GuardedH11Protocol


def _guarded_httptools(
    header_timeout: float, body_timeout: float, max_connections: int
) -> type[asyncio.Protocol]:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class GuardedHttpToolsProtocol(
        _with_guards(HttpToolsProtocol, header_timeout, body_timeout, max_connections)  # type: ignore[misc]
    ):
        """The guards, driven by the parser's callbacks: where the client is in its
        request is ``_phase``: ``head`` (connected, or a request begun, head not
        complete), ``body`` (head complete, body not) or ``done`` (waiting for the
        next request; uvicorn's keep-alive timeout governs)."""

        _phase = "head"
        _head_size = 0

        def data_received(self, data: bytes) -> None:
            if self._rejected or self._discarding:
                return
            if self._phase != "body":
                self._head_size += len(data)  # reset when a head completes
            super().data_received(data)
            # The timers follow where the parser is once this data is read: a
            # request that arrived whole in one read arms none.
            if self.transport.is_closing():
                self._cancel_timers()
            elif self._awaiting_head():
                if self._head_size > MAX_HEAD_BYTES:
                    self._answer_and_close(
                        raw_json_response(
                            400,
                            "invalid_http",
                            f"request head is larger than {MAX_HEAD_BYTES} bytes",
                        )
                    )
                else:
                    self._arm_head()
            elif self._awaiting_body():
                self._arm_body()
            else:
                self._cancel_timers()

        def _awaiting_head(self) -> bool:
            return self._phase == "head"

        def _awaiting_body(self) -> bool:
            return self._phase == "body"

        # parser callbacks (httptools calls them from inside data_received)

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._phase = "head"

        def on_headers_complete(self) -> None:
            self._phase = "body"
            self._head_size = 0
            super().on_headers_complete()

        def on_message_complete(self) -> None:
            self._phase = "done"
            super().on_message_complete()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if self._phase == "head" and not self.transport.is_closing():
                self._arm_head()  # a pipelined head begun while answering

    GuardedHttpToolsProtocol.__qualname__ = "GuardedHttpToolsProtocol"
    return GuardedHttpToolsProtocol
