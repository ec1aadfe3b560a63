"""Running the service under uvicorn: bind, log where, drain on SIGTERM.

I/O edge (sockets, signals). :func:`serve` builds the app (loading and
validating the rules first, so a bad file stops the start with one error),
runs uvicorn with its own access log off (ours is structured) and a graceful
shutdown timeout, and returns 0 after a SIGTERM or SIGINT (Ctrl-C, as
docs/http.md says) once in-flight requests have finished. Logs one
``listening`` record with the bound address and port (useful with
``--port 0``).

The listening socket is bound here, before uvicorn starts, so an address that
cannot be bound (in use, not on this machine, ``[::1]`` without IPv6) fails
with one line (:class:`BindError`) instead of a log record. Connections go
through :func:`smista.server.protocol.guarded_protocol` (header and body
timeouts, a connection limit, JSON errors; on httptools when installed) and
uvicorn picks uvloop when installed (the ``listening`` record names both as
``http`` and ``loop``); ``max_connections`` is lowered,
if needed, to leave file descriptors to spare under ``RLIMIT_NOFILE``.
"""

from __future__ import annotations

import asyncio
import logging
import math
import signal
import socket
from typing import Any

import uvicorn

from smista.server.app import create_app
from smista.server.protocol import guarded_protocol
from smista.server.settings import ServerSettings

__all__ = ["BindError", "bind", "serve"]


class BindError(OSError):
    """The service address cannot be bound (the message is one line)."""


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host`` (brackets around IPv6 allowed) and ``port``."""
    bare = host.strip("[]")
    try:
        infos = socket.getaddrinfo(bare, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise BindError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        sock.bind(address)
        sock.listen(2048)
        sock.set_inheritable(True)
    except OSError as exc:
        sock.close()
        raise BindError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return sock


def _connection_budget(wanted: int) -> int:
    """``wanted``, lowered to leave 64 descriptors free under the soft RLIMIT_NOFILE."""
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (ImportError, OSError, ValueError):
        return wanted
    if soft == resource.RLIM_INFINITY:
        return wanted
    return max(1, min(wanted, soft - 64))


log = logging.getLogger("smista.server")


class _Server(uvicorn.Server):
    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        protocol = self.config.http
        parser = "httptools" if "HttpTools" in getattr(protocol, "__name__", "") else "h11"
        loop = type(asyncio.get_running_loop()).__module__.partition(".")[0]
        for server in self.servers:
            for sock in server.sockets:
                host, port = sock.getsockname()[:2]
                log.info(
                    "listening",
                    extra={
                        "event": "listening",
                        "host": host,
                        "port": port,
                        "http": parser,
                        "loop": "uvloop" if loop == "uvloop" else "asyncio",
                    },
                )


def serve(settings: ServerSettings) -> int:
    """Serve until SIGTERM or SIGINT; the process exit status.

    Raises :class:`BindError` when the address cannot be bound.
    """
    app = create_app(settings)
    sock = bind(settings.host, settings.port)
    protocol = guarded_protocol(
        header_timeout=settings.header_timeout,
        body_timeout=settings.body_timeout,
        max_connections=_connection_budget(settings.max_connections),
    )
    config = uvicorn.Config(
        app,
        host=settings.host.strip("[]"),
        port=settings.port,
        http=protocol,
        log_config=None,
        log_level=settings.log_level,
        access_log=False,
        lifespan="on",
        server_header=False,
        proxy_headers=False,
        timeout_graceful_shutdown=math.ceil(settings.shutdown_timeout),
    )
    server = _Server(config)

    def drained(_sig: int, _frame: Any) -> None:
        """uvicorn re-raises SIGTERM or SIGINT after draining; end normally instead."""

    previous = {sig: signal.signal(sig, drained) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        server.run(sockets=[sock])
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        sock.close()
    return 0 if server.started else 1
