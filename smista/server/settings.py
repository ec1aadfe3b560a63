"""Settings of one service instance (what ``smista serve`` was asked for).

Pure data. The token is held as a :class:`~smista.server.auth.BearerToken`,
which never shows its value.
"""

from __future__ import annotations

from dataclasses import dataclass

from smista.server.auth import BearerToken

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_MAX_BATCH",
    "DEFAULT_MAX_BODY_BYTES",
    "DEFAULT_MAX_PROMPT_CHARS",
    "DEFAULT_PORT",
    "ServerSettings",
]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8787
DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024
DEFAULT_MAX_PROMPT_CHARS = 1024 * 1024
DEFAULT_MAX_BATCH = 1000


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """How the service runs; every limit is enforced per request."""

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    config_path: str | None = None
    rules_path: str | None = None
    watch: bool = False
    watch_interval: float = 1.0
    reload_on_sighup: bool = True
    log_prompts: bool = False
    max_batch: int = DEFAULT_MAX_BATCH
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    max_prompt_chars: int = DEFAULT_MAX_PROMPT_CHARS
    token: BearerToken | None = None
    shutdown_timeout: float = 10.0
    log_level: str = "info"
