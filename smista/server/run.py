"""Running the service under uvicorn: bind, log where, drain on SIGTERM.

I/O edge (sockets, signals). :func:`serve` builds the app (loading and
validating the rules first, so a bad file stops the start with one error),
runs uvicorn with its own access log off (ours is structured) and a graceful
shutdown timeout, and returns 0 after a SIGTERM once in-flight requests have
finished. Logs one ``listening`` record with the bound address and port (useful
with ``--port 0``).
"""

from __future__ import annotations

import logging
import math
import signal
import socket
from typing import Any

import uvicorn

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


def serve(settings: ServerSettings) -> int:
    """Serve until SIGTERM or SIGINT; the process exit status."""
    app = create_app(settings)
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
        """uvicorn re-raises SIGTERM after draining; end normally instead."""

    previous = signal.signal(signal.SIGTERM, drained)
    try:
        server.run()
    finally:
        signal.signal(signal.SIGTERM, previous)
    return 0 if server.started else 1
