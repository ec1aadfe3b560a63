"""What every HTTP decision provider shares: construction, identity, the POST and its errors.

I/O edge (network, through :mod:`smista._edge.http`). A provider subclasses
:class:`HttpEvaluator`, names itself (``provider_id``) and its endpoint path,
and supplies the request body and the reading of the reply; the POST, the
protocol check of the response and the error wording live here.

Every transport failure becomes an :class:`~smista.core.errors.EvaluatorError`
whose message names what went wrong (timeout, connection refused, HTTP
status, oversized or non-JSON body) and never contains the API key: the key is
held by the :class:`~smista._edge.http.Poster`, travels only in its header
(``Authorization: Bearer`` unless ``key_header`` names another), is never
logged, and is redacted (:mod:`smista._edge.secrets`) from any server text quoted
in an error and from the model name a reply carries. Proxy and ``.netrc``
settings from the environment are not used (see :mod:`smista._edge.http`).
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import urlsplit

from smista import __version__
from smista._edge import secrets
from smista._edge.http import HttpFailure, Poster, Reply, snippet
from smista.core.errors import (
    EvaluatorError,
    EvaluatorResponseError,
    EvaluatorTimeout,
    EvaluatorUnavailable,
)
from smista.decision.contract import (
    DecisionRequest,
    DecisionResponse,
    loads_strict,
    validate_response,
)

if TYPE_CHECKING:
    import httpx

__all__ = ["HttpEvaluator"]

logger = logging.getLogger("smista.decision")

_SNIPPET = 160


class HttpEvaluator(ABC):
    """An :class:`~smista.decision.contract.Evaluator` that POSTs JSON to ``{base_url}{path}``."""

    provider_id: ClassVar[str]
    path: ClassVar[str]
    """Appended to ``base_url`` (which has no trailing slash) to form :attr:`url`."""

    def __init__(
        self,
        *,
        base_url: str,
        api_key: str | None,
        timeout_s: float,
        max_response_bytes: int,
        key_header: str = "Authorization",
        proxy: str | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.strip().rstrip("/")
        secrets.register_url(self.base_url)
        self.timeout_s = timeout_s
        self._poster = Poster(
            api_key=api_key,
            max_response_bytes=max_response_bytes,
            user_agent=f"smista/{__version__}",
            key_header=key_header,
            proxy=proxy,
            transport=transport,
        )

    @property
    def id(self) -> str:
        return self.provider_id

    @property
    def url(self) -> str:
        return f"{self.base_url}{self.path}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}(url={self.url!r})"

    @staticmethod
    @abstractmethod
    def body(request: DecisionRequest) -> str:
        """The wire body for ``request``."""

    @staticmethod
    @abstractmethod
    def read(request: DecisionRequest, data: Any) -> DecisionResponse:
        """The decoded JSON reply ``data`` as a response (validated afterwards)."""

    async def evaluate(self, request: DecisionRequest) -> DecisionResponse:
        try:
            response = self.read(request, await self.post(self.body(request)))
            validate_response(request, response)
        except EvaluatorError as exc:  # its text may quote the reply: mask any key in it
            clean = self._poster.redact(str(exc))
            if clean == str(exc):
                raise
            raise type(exc)(clean) from None
        model = self._poster.redact(response.model)
        if model != response.model:
            response = response.model_copy(update={"model": model})
        return response

    async def aclose(self) -> None:
        """Close the long-lived HTTP client of the running event loop."""
        await self._poster.aclose()

    async def post(self, body: str) -> Any:
        """POST ``body`` to :attr:`url`; the decoded JSON reply (or ``EvaluatorError``)."""
        url = self.url
        logger.debug("decision request: POST %s (%d bytes)", url, len(body))
        try:
            reply = await self._poster.post(
                url, body.encode("utf-8"), timeout=self.timeout_s, deadline=self.timeout_s
            )
        except HttpFailure as failure:
            raise self._error(failure, urlsplit(url).netloc or url) from None
        if not reply.ok:
            raise EvaluatorUnavailable(self._status_message(reply))
        try:
            return loads_strict(reply.body)
        except (ValueError, UnicodeDecodeError):
            raise EvaluatorResponseError(
                f"response is not valid JSON ({len(reply.body)} bytes)"
            ) from None

    def _error(self, failure: HttpFailure, host: str) -> EvaluatorError:
        timeout = f"{self.timeout_s:g}s"
        if failure.kind == "too_large":
            limit = self._poster.max_response_bytes
            return EvaluatorResponseError(f"response too large (over {limit} bytes)")
        if failure.kind == "timeout" and failure.name == "ConnectTimeout":
            return EvaluatorTimeout(f"connect timeout after {timeout} ({host})")
        if failure.kind in ("deadline", "timeout"):
            return EvaluatorTimeout(f"timeout after {timeout}")
        if failure.kind == "connect":
            return EvaluatorUnavailable(f"cannot connect to {host}: {failure.detail}")
        return EvaluatorUnavailable(
            f"transport error talking to {host}: {failure.name}: {failure.detail}"
        )

    def _status_message(self, reply: Reply) -> str:
        phrase = reply.reason_phrase  # redacted by the poster
        message = f"HTTP {reply.status}{' ' + phrase if phrase else ''}"
        text = snippet(reply.body.decode("utf-8", "replace"), _SNIPPET)
        if text:
            message += f": {text}"
        return message
