"""smista's one HTTP client: a JSON POST with bounded time, a size cap and secret-free failures.

I/O edge (network); imports httpx (the ``llm`` extra), so the pure core may
reach this module only lazily. Both callers go through :class:`Poster`: the
decision providers (:mod:`smista.decision.providers`) and the llm tier
classifier (:mod:`smista.tiers.http`). It owns the transport only: it never
retries, never follows a redirect, never decodes the reply and never raises an
:class:`~smista.errors.EvaluatorError`. A POST that yields no reply raises
:class:`HttpFailure` with a machine ``kind``, and each caller words it in its
own error vocabulary; a reply of any HTTP status is returned as a
:class:`Reply`.

The API key travels only in the ``Authorization`` header. It is never in
``repr`` nor in a failure's ``detail``, and :meth:`Poster.redact` removes it
from any server text a caller quotes.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Literal

import httpx

__all__ = ["FailureKind", "HttpFailure", "Poster", "Reply"]

FailureKind = Literal["too_large", "deadline", "timeout", "connect", "transport", "invalid_url"]
"""Why a POST produced no reply.

``too_large``: the body exceeded the cap (declared or streamed); ``deadline``:
the overall deadline passed; ``timeout``: an httpx connect/read/write/pool
timeout; ``connect``: the connection could not be made; ``transport``: any
other httpx error; ``invalid_url``: httpx rejected the URL, nothing was sent.
"""

_DETAIL = 160


@dataclass(frozen=True, slots=True)
class Reply:
    """A complete HTTP reply (any status) whose body fitted under the cap."""

    status: int
    reason_phrase: str
    body: bytes

    @property
    def ok(self) -> bool:
        """A 2xx status."""
        return 200 <= self.status < 300


class HttpFailure(Exception):
    """A POST that produced no reply.

    ``name`` is the httpx exception's class name (``ReadTimeout``,
    ``ConnectError``, ...; ``TimeoutError`` for the deadline, ``TooLarge`` for
    the cap) and ``detail`` a short, redacted description of its cause.
    """

    def __init__(self, kind: FailureKind, name: str, detail: str) -> None:
        super().__init__(f"{kind}: {name}: {detail}" if detail else f"{kind}: {name}")
        self.kind: FailureKind = kind
        self.name = name
        self.detail = detail


class Poster:
    """POSTs a body to a URL with one API key; the key never leaves the header.

    ``max_response_bytes`` caps the reply body. ``user_agent`` replaces
    httpx's own ``User-Agent`` when given. ``trust_env`` lets httpx read proxy
    and ``.netrc`` settings from the environment.
    """

    __slots__ = ("_api_key", "max_response_bytes", "trust_env", "user_agent")

    def __init__(
        self,
        *,
        api_key: str | None,
        max_response_bytes: int,
        user_agent: str | None = None,
        trust_env: bool = False,
    ) -> None:
        self._api_key = api_key or None
        self.max_response_bytes = max_response_bytes
        self.user_agent = user_agent
        self.trust_env = trust_env

    def __repr__(self) -> str:
        key = "set" if self._api_key else "none"
        return f"Poster(api_key=<{key}>, max_response_bytes={self.max_response_bytes})"

    def redact(self, text: str) -> str:
        """``text`` with every occurrence of the API key replaced by ``***``."""
        return text.replace(self._api_key, "***") if self._api_key else text

    def headers(self) -> dict[str, str]:
        """JSON content negotiation, the user agent if set, and the bearer key if any."""
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.user_agent:
            headers["User-Agent"] = self.user_agent
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    async def post(
        self,
        url: str,
        content: bytes,
        *,
        timeout: float,
        connect_timeout: float | None = None,
        deadline: float | None = None,
    ) -> Reply:
        """POST ``content`` to ``url``; the reply, or :class:`HttpFailure`.

        ``timeout`` bounds each network operation (``connect_timeout``, if
        given and shorter, the connection); ``deadline``, if given, bounds the
        whole exchange including reading the body.
        """
        try:
            if deadline is None:
                return await self._exchange(url, content, timeout, connect_timeout)
            async with asyncio.timeout(deadline):
                return await self._exchange(url, content, timeout, connect_timeout)
        except HttpFailure:
            raise
        except TimeoutError:
            if deadline is None:  # not ours: leave it to whoever set it
                raise
            raise HttpFailure("deadline", "TimeoutError", "") from None
        except httpx.TimeoutException as exc:
            raise self._failure("timeout", exc) from None
        except httpx.ConnectError as exc:
            raise self._failure("connect", exc) from None
        except httpx.HTTPError as exc:
            raise self._failure("transport", exc) from None
        except httpx.InvalidURL as exc:
            raise self._failure("invalid_url", exc) from None

    async def _exchange(
        self, url: str, content: bytes, timeout: float, connect_timeout: float | None
    ) -> Reply:
        connect = timeout if connect_timeout is None else min(connect_timeout, timeout)
        limits = httpx.Timeout(timeout, connect=connect)
        async with (
            httpx.AsyncClient(
                timeout=limits, trust_env=self.trust_env, follow_redirects=False
            ) as client,
            client.stream("POST", url, content=content, headers=self.headers()) as response,
        ):
            cap = self.max_response_bytes
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > cap:
                raise self._too_large()
            chunks: list[bytes] = []
            size = 0
            async for chunk in response.aiter_bytes():
                size += len(chunk)
                if size > cap:
                    raise self._too_large()
                chunks.append(chunk)
            return Reply(response.status_code, response.reason_phrase or "", b"".join(chunks))

    def _too_large(self) -> HttpFailure:
        return HttpFailure("too_large", "TooLarge", f"over {self.max_response_bytes} bytes")

    def _failure(self, kind: FailureKind, exc: Exception) -> HttpFailure:
        return HttpFailure(kind, type(exc).__name__, self._describe(exc))

    def _describe(self, exc: BaseException) -> str:
        """The first telling cause of ``exc`` (an OS error's text), redacted and short."""
        cause: BaseException | None = exc
        seen = 0
        while cause is not None and seen < 8:
            if isinstance(cause, ConnectionRefusedError):
                return "connection refused"
            if isinstance(cause, OSError) and cause.strerror:
                return self.redact(cause.strerror.lower())[:_DETAIL]
            cause = cause.__cause__ or cause.__context__
            seen += 1
        text = str(exc) or type(exc).__name__
        return self.redact(text)[:_DETAIL]
