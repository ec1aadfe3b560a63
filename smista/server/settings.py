"""Settings of one service instance (what ``smista serve`` was asked for).

Pure data. The token is held as a :class:`~smista.server.auth.BearerToken`,
which never shows its value.
"""

from __future__ import annotations

from dataclasses import dataclass

from smista.server.auth import BearerToken, HostCheck, is_loopback

__all__ = [
    "DEFAULT_BODY_TIMEOUT",
    "DEFAULT_HEADER_TIMEOUT",
    "DEFAULT_HOST",
    "DEFAULT_MAX_BATCH",
    "DEFAULT_MAX_BODY_BYTES",
    "DEFAULT_MAX_CONNECTIONS",
    "DEFAULT_MAX_ITEMS",
    "DEFAULT_MAX_PROMPT_CHARS",
    "DEFAULT_PORT",
    "ServerSettings",
]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8787
DEFAULT_MAX_BODY_BYTES = 1024 * 1024
"""1 MiB: the JSON parser holds the GIL (about 30 ms per MiB, twice: the count
scan and the validation), so this default keeps every request under 50 ms of
event-loop time; raising it raises that bound in proportion."""
DEFAULT_MAX_PROMPT_CHARS = 1024 * 1024
DEFAULT_MAX_BATCH = 1000
DEFAULT_MAX_ITEMS = 10_000
DEFAULT_HEADER_TIMEOUT = 10.0
DEFAULT_BODY_TIMEOUT = 30.0
DEFAULT_MAX_CONNECTIONS = 256


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """How the service runs; every limit is enforced per request."""

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    config_path: str | None = None
    rules_path: str | None = None
    watch: bool = False
    watch_interval: float = 1.0
    watch_settle: float = 0.05
    """Seconds a reloaded file must stay unchanged between two reads (see ``state._read``)."""
    reload_on_sighup: bool = True
    log_prompts: bool = False
    max_batch: int = DEFAULT_MAX_BATCH
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    max_prompt_chars: int = DEFAULT_MAX_PROMPT_CHARS
    max_items: int = DEFAULT_MAX_ITEMS
    """Longest JSON array (and most keys of an object) in a request body."""
    header_timeout: float = DEFAULT_HEADER_TIMEOUT
    """Seconds a connection may take to send a complete request head."""
    body_timeout: float = DEFAULT_BODY_TIMEOUT
    """Seconds a request may take to send its whole body."""
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    """Most connections open at once; more wait in the listen backlog."""
    token: BearerToken | None = None
    allowed_hosts: tuple[str, ...] = ()
    """Names answered besides the loopback ones (``--allow-host``; ``"*"``: any)."""
    shutdown_timeout: float = 10.0
    log_level: str = "info"

    def host_check(self) -> HostCheck | None:
        """The ``Host`` check of this service: on when it listens on loopback (against
        DNS rebinding) or when names are allowed explicitly; ``None`` when off."""
        if self.allowed_hosts or is_loopback(self.host):
            return HostCheck(self.allowed_hosts)
        return None
