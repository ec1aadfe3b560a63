"""Running the service under uvicorn: bind, log where, drain on SIGTERM.

I/O edge (sockets, signals). :func:`serve` builds the app (loading and
validating the rules first, so a bad file stops the start with one error),
runs uvicorn with its own access log off (ours is structured) and a graceful
shutdown timeout, and returns 0 after a SIGTERM or SIGINT (Ctrl-C) once
in-flight requests have finished. The socket is bound before uvicorn starts,
so a port in use is one error line (exit 2) and no startup is logged. Logs
one ``listening`` record with the bound address and port (useful with
``--port 0``).
"""

from __future__ import annotations

import logging
import math
import signal
import socket
from typing import Any

import uvicorn

from smista.errors import SmistaError
from smista.server.app import create_app
from smista.server.settings import ServerSettings

__all__ = ["serve"]

log = logging.getLogger("smista.server")


class _Server(uvicorn.Server):
    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        for server in self.servers:
            for sock in server.sockets:
                host, port = sock.getsockname()[:2]
                log.info(
                    "listening",
                    extra={"event": "listening", "host": host, "port": port},
                )


def _bind(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` (as uvicorn binds it), before anything is logged.

    A port in use (or an address not on this machine) is one error line, and
    the app's startup never runs.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise SmistaError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.set_inheritable(True)
    return sock


def serve(settings: ServerSettings) -> int:
    """Serve until SIGTERM or SIGINT (Ctrl-C); the process exit status (0 after either)."""
    app = create_app(settings)
    sock = _bind(settings.host, settings.port)
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
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
        sock.close()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 0 if server.started else 1
