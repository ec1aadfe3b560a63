"""Bearer-token authentication, the loopback rule and the ``Host`` check.

I/O edge helpers (pure functions over strings). The token comes from the
environment variable :data:`TOKEN_ENV`; the caller reads it, this module only
compares. Both sides are hashed with SHA-256 before :func:`hmac.compare_digest`
so that neither the token's content nor its length leaks through timing. A
token is never logged, echoed or kept in a ``repr``.

:class:`HostCheck` guards a service on loopback against DNS rebinding: a web
page whose name an attacker points at 127.0.0.1 makes the browser send that
name as ``Host``, so only loopback names (and the operator's ``--allow-host``
names) are answered.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress

__all__ = ["TOKEN_ENV", "BearerToken", "HostCheck", "host_name", "is_loopback"]

TOKEN_ENV = "SMISTA_API_TOKEN"
"""The environment variable holding the service's bearer token."""


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` exposes the service to this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name other than localhost may resolve anywhere


def host_name(value: str) -> str | None:
    """The name in a ``Host`` header value (or an ``--allow-host`` argument): lowercased,
    without port, brackets or a final dot; ``None`` when it is not ``name[:port]``."""
    text = value.strip().lower()
    if text.startswith("["):
        name, close, rest = text[1:].partition("]")
        port_sep, port = rest[:1], rest[1:]
        if not close or (rest and (port_sep != ":" or not port.isdigit())):
            return None
    else:
        name, sep, port = text.partition(":")
        if sep and not port.isdigit():
            return None
    name = name.removesuffix(".")
    return name or None


class HostCheck:
    """Which ``Host`` headers a service answers: loopback names (``localhost``, any
    loopback address), plus ``allowed`` names (``"*"``: any); any port."""

    __slots__ = ("_allowed", "_any", "_seen")

    _SEEN_LIMIT = 256

    def __init__(self, allowed: tuple[str, ...] = ()) -> None:
        names = {host_name(name) or name for name in allowed}
        self._any = "*" in names
        self._allowed = frozenset(names)
        self._seen: dict[bytes, bool] = {}  # header value -> verdict (few distinct values)

    def accepts(self, header: bytes | None) -> bool:
        """Whether a request with this ``Host`` header value is answered (a request
        without one, which no browser sends, is)."""
        if header is None or self._any:
            return True
        verdict = self._seen.get(header)
        if verdict is None:
            name = host_name(header.decode("latin-1"))
            verdict = name is not None and (name in self._allowed or is_loopback(name))
            if len(self._seen) >= self._SEEN_LIMIT:
                self._seen.clear()
            self._seen[header] = verdict
        return verdict


class BearerToken:
    """The expected token; :meth:`accepts` checks an ``Authorization`` header value."""

    __slots__ = ("_digest",)

    def __init__(self, token: str) -> None:
        self._digest = hashlib.sha256(token.encode("utf-8")).digest()

    def __repr__(self) -> str:
        return "BearerToken(<hidden>)"

    def accepts(self, authorization: bytes | None) -> bool:
        """Whether the header is ``Bearer <token>`` with the right token.

        The scheme is case-insensitive.

        ``authorization`` is the raw header value; the token is compared as
        UTF-8 bytes.
        """
        if authorization is None:
            return False
        scheme, _, given = authorization.strip().partition(b" ")
        if scheme.lower() != b"bearer":
            return False
        digest = hashlib.sha256(given.strip()).digest()
        return hmac.compare_digest(digest, self._digest)
