"""Bearer-token authentication and the loopback rule.

I/O edge helpers (pure functions over strings). The token comes from the
environment variable :data:`TOKEN_ENV`; the caller reads it, this module only
compares. Both sides are hashed with SHA-256 before :func:`hmac.compare_digest`
so that neither the token's content nor its length leaks through timing. A
token is never logged, echoed or kept in a ``repr``.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress

__all__ = ["TOKEN_ENV", "BearerToken", "is_loopback"]

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
