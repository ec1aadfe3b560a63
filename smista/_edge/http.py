"""smista's one HTTP client layer: a JSON POST with bounded time and size, secret-free failures.

I/O edge (network); imports httpx (the ``llm`` extra), so the pure core may
reach this module only lazily. Both callers go through :class:`Poster`: the
decision providers (:mod:`smista.decision.providers`) and the llm tier
classifier (:mod:`smista.tiers.http`). It owns the transport only: it never
retries, never follows a redirect, never raises an
:class:`~smista.core.errors.EvaluatorError`. A POST that yields no reply raises
:class:`HttpFailure` with a machine ``kind``, and each caller words it in its
own error vocabulary; a reply of any HTTP status is returned as a
:class:`Reply`.

One long-lived ``httpx.AsyncClient`` per poster (per event loop), created off
the loop the first time it is needed (building one loads the CA bundle), so
connections are reused and no call pays that cost again. ``transport`` is
injectable (``httpx.MockTransport`` in tests).

Proxy policy (the same for every caller): smista never reads proxy settings
or ``.netrc`` from the environment (``trust_env=False``); a proxy is used only
when one is configured explicitly (``proxy = "http://..."``).

Compressed replies (``gzip``, ``deflate``) are decoded here, incrementally and
with the decoded size bounded while streaming: a compression bomb fails as
``too_large`` after at most ``max_response_bytes`` decoded bytes. Any other
content coding is refused.

The API key travels only in its header (``Authorization: Bearer <key>`` by
default, or the raw key in a header the caller names, e.g. ``x-api-key``). It
is checked to be printable ASCII when the poster is built, registered with
:mod:`smista._edge.secrets`, never in ``repr`` nor in a failure's ``detail``, and
:meth:`Poster.redact` removes it, in any common encoding, from any server text
a caller quotes (the reason phrase included).
"""

from __future__ import annotations

import asyncio
import zlib
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Literal

import httpx

from smista._edge import secrets

__all__ = ["FailureKind", "HttpFailure", "Poster", "Reply", "snippet"]

FailureKind = Literal["too_large", "deadline", "timeout", "connect", "transport", "invalid_url"]
"""Why a POST produced no reply.

``too_large``: the body exceeded the cap (declared, streamed or decoded);
``deadline``: the overall deadline passed; ``timeout``: an httpx
connect/read/write/pool timeout; ``connect``: the connection could not be
made; ``transport``: any other httpx error (an unsupported content coding
included); ``invalid_url``: httpx rejected the URL, nothing was sent.
"""

_DETAIL = 160
_WINDOW = 4096
"""Characters of a server text redacted before a snippet is cut from it."""


def snippet(text: str, limit: int) -> str:
    """A redacted, whitespace-collapsed prefix of ``text`` of at most ``limit`` characters.

    Only a bounded window is examined. Whitespace is collapsed first, so an
    encoded key has a bounded length; when the window was cut, its tail (where
    a key could straddle the cut) is dropped after redaction, never shown.
    """
    window = text[: _WINDOW * 2]
    collapsed = " ".join(window.split())
    cut = len(collapsed) > _WINDOW or len(text) > len(window)
    clean = secrets.redact(collapsed[:_WINDOW])
    if cut:
        clean = clean[: max(0, len(clean) - 1024)]
    if len(clean) > limit:
        clean = clean[: max(0, limit - 3)] + "..."
    return clean


@dataclass(frozen=True, slots=True)
class Reply:
    """A complete HTTP reply (any status) whose decoded body fitted under the cap.

    ``reason_phrase`` is already redacted.
    """

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


class _TooLarge(Exception):
    pass


class _Unsupported(Exception):
    pass


class _Decoder:
    """Incremental, bounded decoding of one ``Content-Encoding`` (identity, gzip, deflate)."""

    __slots__ = ("_cap", "_mode", "_size", "_zlib")

    def __init__(self, coding: str, cap: int) -> None:
        self._cap = cap
        self._size = 0
        names = [c.strip().lower() for c in coding.split(",") if c.strip()]
        names = [n for n in names if n != "identity"]
        self._zlib: zlib._Decompress | None = None
        if not names:
            self._mode = "identity"
        elif names in (["gzip"], ["x-gzip"]):
            self._mode = "gzip"
            self._zlib = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif names == ["deflate"]:
            self._mode = "deflate"  # the decompressor is chosen by the first byte
        else:
            raise _Unsupported(", ".join(names))

    def _count(self, data: bytes) -> bytes:
        self._size += len(data)
        if self._size > self._cap:
            raise _TooLarge
        return data

    def feed(self, chunk: bytes) -> list[bytes]:
        """The decoded bytes of ``chunk``, never more than the cap in total."""
        if self._mode == "identity":
            return [self._count(chunk)]
        if not chunk:
            return []
        if self._zlib is None:  # deflate: a zlib stream, or (as some servers send) a raw one
            wbits = zlib.MAX_WBITS if chunk[0] & 0x0F == 8 else -zlib.MAX_WBITS
            self._zlib = zlib.decompressobj(wbits)
        out: list[bytes] = []
        data = chunk
        try:
            while data:
                piece = self._zlib.decompress(data, self._cap - self._size + 1)
                out.append(self._count(piece))
                data = self._zlib.unconsumed_tail
        except zlib.error as exc:
            raise httpx.DecodingError(f"invalid compressed body: {exc}") from None
        return out

    def flush(self) -> list[bytes]:
        if self._zlib is None:
            return []
        try:
            return [self._count(self._zlib.flush())]
        except zlib.error as exc:
            raise httpx.DecodingError(f"invalid compressed body: {exc}") from None


class Poster:
    """POSTs a body to a URL with one API key; the key never leaves its header.

    ``max_response_bytes`` caps the decoded reply body. ``user_agent`` replaces
    httpx's own ``User-Agent`` when given. ``key_header`` names the header the
    key travels in: ``Authorization`` (the default) carries ``Bearer <key>``,
    any other header the key itself. ``proxy`` is an explicit proxy URL (the
    environment is never read). ``transport`` replaces httpx's network
    transport (tests pass an ``httpx.MockTransport``).

    Raises ``ValueError`` (not quoting the key) for a key that cannot be sent
    in a header; callers check keys first with :func:`smista._edge.secrets.check_key`.
    """

    __slots__ = (
        "_api_key",
        "_clients",
        "_transport",
        "key_header",
        "max_response_bytes",
        "proxy",
        "user_agent",
    )

    def __init__(
        self,
        *,
        api_key: str | None,
        max_response_bytes: int,
        user_agent: str | None = None,
        key_header: str = "Authorization",
        proxy: str | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        key = secrets.accept_key(api_key)
        secrets.register_url(proxy)
        self._api_key = key
        self.max_response_bytes = max_response_bytes
        self.user_agent = user_agent
        self.key_header = key_header
        self.proxy = proxy
        self._transport = transport
        self._clients: dict[
            int, tuple[asyncio.AbstractEventLoop, httpx.AsyncClient, AsyncGenerator[None, None]]
        ] = {}

    def __repr__(self) -> str:
        key = "set" if self._api_key else "none"
        return f"Poster(api_key=<{key}>, max_response_bytes={self.max_response_bytes})"

    @staticmethod
    def redact(text: str) -> str:
        """``text`` with every registered API key masked (see :mod:`smista._edge.secrets`)."""
        return secrets.redact(text)

    def headers(self) -> dict[str, str]:
        """JSON content negotiation, the codings decoded here, the user agent and the key."""
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "Accept-Encoding": "gzip, deflate",
        }
        if self.user_agent:
            headers["User-Agent"] = self.user_agent
        if self._api_key:
            if self.key_header.lower() == "authorization":
                headers["Authorization"] = f"Bearer {self._api_key}"
            else:
                headers[self.key_header] = self._api_key
        return headers

    async def _client(self) -> httpx.AsyncClient:
        """This loop's long-lived client, built off the loop the first time.

        The client is closed when its loop shuts down: a started async
        generator holds it, and ``asyncio.run`` (like every well-behaved loop
        owner) finalizes live async generators, on the running loop, before
        closing it. So ``asyncio.run(evaluator.evaluate(...))`` leaks nothing.
        """
        loop = asyncio.get_running_loop()
        held = self._clients.get(id(loop))
        if held is not None and held[0] is loop:
            return held[1]
        client = await asyncio.to_thread(self._build)
        held = self._clients.get(id(loop))
        if held is not None and held[0] is loop:  # a concurrent first call won
            await client.aclose()
            return held[1]
        for key, (other, _, _) in list(self._clients.items()):
            if other.is_closed():
                del self._clients[key]
        keeper = self._keeper(id(loop), client)
        await keeper.__anext__()
        self._clients[id(loop)] = (loop, client, keeper)
        return client

    async def _keeper(self, key: int, client: httpx.AsyncClient) -> AsyncGenerator[None, None]:
        try:
            yield
        finally:
            held = self._clients.get(key)
            if held is not None and held[1] is client:
                del self._clients[key]
            await client.aclose()

    def _build(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            trust_env=False,
            follow_redirects=False,
            proxy=self.proxy,
            transport=self._transport,
            limits=httpx.Limits(max_connections=64, max_keepalive_connections=16),
        )

    async def aclose(self) -> None:
        """Close this loop's client now (it would be closed at loop shutdown anyway)."""
        held = self._clients.get(id(asyncio.get_running_loop()))
        if held is not None:
            await held[2].aclose()

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
        except (httpx.StreamError, ValueError, UnicodeError) as exc:
            # e.g. h11's LocalProtocolError for an illegal header value
            raise self._failure("transport", exc) from None

    async def _exchange(
        self, url: str, content: bytes, timeout: float, connect_timeout: float | None
    ) -> Reply:
        connect = timeout if connect_timeout is None else min(connect_timeout, timeout)
        limits = httpx.Timeout(timeout, connect=connect)
        client = await self._client()
        request = client.build_request(
            "POST", url, content=content, headers=self.headers(), timeout=limits
        )
        response = await client.send(request, stream=True)
        try:
            cap = self.max_response_bytes
            declared = response.headers.get("content-length", "")
            coding = response.headers.get("content-encoding", "")
            if declared.isdigit() and int(declared) > cap and not coding:
                raise self._too_large()
            try:
                decoder = _Decoder(coding, cap)
            except _Unsupported as exc:
                raise HttpFailure(
                    "transport", "UnsupportedEncoding", f"content-encoding {exc}"[:_DETAIL]
                ) from None
            chunks: list[bytes] = []
            raw_size = 0
            if response.is_stream_consumed:  # an in-memory reply (a mock transport): decoded
                body = response.content
                if len(body) > cap:
                    raise self._too_large()
                phrase = snippet(response.reason_phrase or "", 80)
                return Reply(response.status_code, phrase, body)
            try:
                async for chunk in response.aiter_raw():
                    raw_size += len(chunk)
                    if raw_size > cap:
                        raise _TooLarge
                    chunks.extend(decoder.feed(chunk))
                chunks.extend(decoder.flush())
            except _TooLarge:
                raise self._too_large() from None
            phrase = snippet(response.reason_phrase or "", 80)
            return Reply(response.status_code, phrase, b"".join(chunks))
        finally:
            await response.aclose()

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
                return snippet(cause.strerror.lower(), _DETAIL)
            cause = cause.__cause__ or cause.__context__
            seen += 1
        text = str(exc) or type(exc).__name__
        return snippet(text, _DETAIL)
