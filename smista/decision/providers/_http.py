"""One JSON POST over httpx with timeouts, a size cap and secret-free errors.

I/O edge (network). Every failure becomes an
:class:`~smista.errors.EvaluatorError` whose message names what went wrong
(timeout, connection refused, HTTP status, oversized or non-JSON body) and
never contains the API key: the key travels only in the ``Authorization``
header, is never logged, and is redacted from any server text quoted in an
error. Proxy and ``.netrc`` settings from the environment are not used.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any
from urllib.parse import urlsplit

import httpx

from smista import __version__
from smista.decision.contract import loads_strict
from smista.errors import (
    EvaluatorError,
    EvaluatorResponseError,
    EvaluatorTimeout,
    EvaluatorUnavailable,
)

__all__ = ["JsonPoster"]

logger = logging.getLogger("smista.decision")

_SNIPPET = 160


def _seconds(value: float) -> str:
    return f"{value:g}s"


class JsonPoster:
    """POSTs JSON text and returns the decoded JSON reply (or raises ``EvaluatorError``)."""

    __slots__ = ("_api_key", "max_response_bytes", "provider", "timeout_s")

    def __init__(
        self,
        *,
        provider: str,
        api_key: str | None,
        timeout_s: float,
        max_response_bytes: int,
    ) -> None:
        self.provider = provider
        self._api_key = api_key
        self.timeout_s = timeout_s
        self.max_response_bytes = max_response_bytes

    def __repr__(self) -> str:
        key = "set" if self._api_key else "none"
        return f"JsonPoster(provider={self.provider!r}, api_key=<{key}>)"

    def _redact(self, text: str) -> str:
        if self._api_key:
            text = text.replace(self._api_key, "***")
        return text

    def _headers(self) -> dict[str, str]:
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": f"smista/{__version__}",
        }
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    async def post(self, url: str, body: str) -> Any:
        """POST ``body`` to ``url``; the decoded JSON reply."""
        host = urlsplit(url).netloc or url
        logger.debug("decision request: POST %s (%d bytes)", url, len(body))
        try:
            async with asyncio.timeout(self.timeout_s):
                raw = await self._exchange(url, body)
        except EvaluatorError:
            raise
        except TimeoutError:
            raise EvaluatorTimeout(f"timeout after {_seconds(self.timeout_s)}") from None
        except httpx.ConnectTimeout:
            raise EvaluatorTimeout(
                f"connect timeout after {_seconds(self.timeout_s)} ({host})"
            ) from None
        except httpx.TimeoutException:
            raise EvaluatorTimeout(f"timeout after {_seconds(self.timeout_s)}") from None
        except httpx.ConnectError as exc:
            raise EvaluatorUnavailable(f"cannot connect to {host}: {self._describe(exc)}") from None
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            raise EvaluatorUnavailable(
                f"transport error talking to {host}: {type(exc).__name__}: {self._describe(exc)}"
            ) from None
        try:
            return loads_strict(raw)
        except (ValueError, UnicodeDecodeError):
            raise EvaluatorResponseError(f"response is not valid JSON ({len(raw)} bytes)") from None

    def _describe(self, exc: BaseException) -> str:
        cause: BaseException | None = exc
        seen = 0
        while cause is not None and seen < 8:
            if isinstance(cause, ConnectionRefusedError):
                return "connection refused"
            if isinstance(cause, OSError) and cause.strerror:
                return self._redact(cause.strerror.lower())[:_SNIPPET]
            cause = cause.__cause__ or cause.__context__
            seen += 1
        text = str(exc) or type(exc).__name__
        return self._redact(text)[:_SNIPPET]

    async def _exchange(self, url: str, body: str) -> bytes:
        timeout = httpx.Timeout(self.timeout_s)
        async with (
            httpx.AsyncClient(timeout=timeout, trust_env=False, follow_redirects=False) as client,
            client.stream(
                "POST", url, content=body.encode("utf-8"), headers=self._headers()
            ) as response,
        ):
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > self.max_response_bytes:
                raise self._too_large()
            chunks: list[bytes] = []
            size = 0
            async for chunk in response.aiter_bytes():
                size += len(chunk)
                if size > self.max_response_bytes:
                    raise self._too_large()
                chunks.append(chunk)
            raw = b"".join(chunks)
            if not 200 <= response.status_code < 300:
                raise EvaluatorUnavailable(self._status_message(response, raw))
            return raw

    def _too_large(self) -> EvaluatorResponseError:
        return EvaluatorResponseError(f"response too large (over {self.max_response_bytes} bytes)")

    def _status_message(self, response: httpx.Response, raw: bytes) -> str:
        phrase = response.reason_phrase or ""
        message = f"HTTP {response.status_code}{' ' + phrase if phrase else ''}"
        text = raw.decode("utf-8", "replace").strip()
        if text:
            text = " ".join(self._redact(text).split())
            if len(text) > _SNIPPET:
                text = text[: _SNIPPET - 3] + "..."
            message += f": {text}"
        return message
