"""A small OpenAI-compatible chat-completions client for the LLM tier classifier.

I/O edge (network, and the environment for the API key); the POST itself is
:mod:`smista._edge.http`'s (it needs ``httpx``, the ``llm`` extra), imported on
first use, through one long-lived :class:`~smista._edge.http.Poster` per client
(and so one proxy policy: the environment is never read). It implements the
router's :class:`~smista.tiers.request.Completer` protocol and nothing more:
one POST, no retries, no redirects followed, bounded connect and overall time,
and a cap on the decoded bytes read; this module words the transport's
failures for the router. The API key is read once from the environment
variable the config names, checked to be printable ASCII (else a
``ConfigError``) and sent only in its header; it never appears in ``repr``,
errors or logs, and the model's reply text is redacted
(:mod:`smista._edge.secrets`) before the router sees it, so an echoed key cannot
become a reason or a tier.

Errors are :class:`smista.core.errors.EvaluatorError` subclasses: ``EvaluatorTimeout``
(the router reports ``classifier_timeout``), ``EvaluatorUnavailable`` and
``EvaluatorResponseError`` (``classifier_failed``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from smista._edge import secrets
from smista.core.errors import (
    ConfigError,
    EvaluatorError,
    EvaluatorResponseError,
    EvaluatorTimeout,
    EvaluatorUnavailable,
)
from smista.tiers.model import LlmClassifierConfig

if TYPE_CHECKING:
    from smista._edge.http import HttpFailure, Poster

__all__ = ["ChatCompletionsClient", "chat_completions_url", "client_from_config"]

_SUFFIX = "/chat/completions"


def chat_completions_url(endpoint: str) -> str:
    """``http://host/v1`` -> ``http://host/v1/chat/completions`` (a full URL is kept)."""
    trimmed = endpoint.strip().rstrip("/")
    return trimmed if trimmed.endswith(_SUFFIX) else trimmed + _SUFFIX


class ChatCompletionsClient:
    """POST ``{system, user}`` to a chat-completions endpoint; return the reply text."""

    __slots__ = (
        "_api_key",
        "_poster",
        "connect_timeout",
        "key_header",
        "max_response_bytes",
        "max_tokens",
        "model",
        "proxy",
        "transport",
        "url",
    )

    def __init__(
        self,
        endpoint: str,
        model: str,
        *,
        api_key: str | None = None,
        max_tokens: int = 256,
        max_response_bytes: int = 1 << 20,
        connect_timeout: float = 3.0,
        key_header: str = "Authorization",
        proxy: str | None = None,
        transport: Any = None,
    ) -> None:
        key = secrets.accept_key(api_key)
        self.url = chat_completions_url(endpoint)
        secrets.register_url(self.url)
        self.model = model
        self._api_key = key
        self.key_header = key_header
        self.proxy = proxy
        self.transport = transport
        self._poster: Poster | None = None
        self.max_tokens = max_tokens
        self.max_response_bytes = max_response_bytes
        self.connect_timeout = connect_timeout

    def __repr__(self) -> str:
        auth = "with API key" if self._api_key else "no API key"
        return f"ChatCompletionsClient({self.url!r}, model={self.model!r}, {auth})"

    async def complete(self, system: str, user: str, timeout: float) -> str:
        """One completion: ``system`` as the system message, ``user`` as the only user message."""
        try:
            from smista._edge.http import HttpFailure, snippet
        except ImportError:
            from smista._edge.extras import install_hint

            raise EvaluatorUnavailable(
                f"the llm tier classifier needs httpx: {install_hint('llm')}"
            ) from None
        body = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": user},
            ],
            "max_tokens": self.max_tokens,
            "temperature": 0,
            "stream": False,
        }
        # Serialized as httpx's own ``json=`` argument does.
        content = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        poster = self._get_poster()
        try:
            reply = await poster.post(
                self.url,
                content.encode("utf-8"),
                timeout=timeout,
                connect_timeout=self.connect_timeout,
            )
        except HttpFailure as failure:
            raise self._error(failure) from None
        if not reply.ok:
            # Redacted before cutting, so a key straddling the cut cannot leak in part.
            text = snippet(reply.body.decode("utf-8", "replace"), 200)
            raise EvaluatorUnavailable(
                f"classifier endpoint returned HTTP {reply.status}" + (f": {text}" if text else "")
            )
        return secrets.redact(_content(reply.body))

    def _get_poster(self) -> Poster:
        from smista._edge.http import Poster

        if self._poster is None:
            self._poster = Poster(
                api_key=self._api_key,
                max_response_bytes=self.max_response_bytes,
                key_header=self.key_header,
                proxy=self.proxy,
                transport=self.transport,
            )
        return self._poster

    async def aclose(self) -> None:
        """Close the long-lived HTTP client of the running event loop."""
        if self._poster is not None:
            await self._poster.aclose()

    def _error(self, failure: HttpFailure) -> EvaluatorError:
        """The router's wording for a POST that got no reply."""
        if failure.kind == "too_large":
            return EvaluatorResponseError(
                f"classifier response exceeds {self.max_response_bytes} bytes"
            )
        if failure.kind == "invalid_url":  # httpx's own words, as for any unexpected error
            return EvaluatorUnavailable(failure.detail)
        kind = _KINDS.get(failure.name, failure.name)
        if failure.kind == "timeout":
            return EvaluatorTimeout(f"{kind} from {self.url}")
        return EvaluatorUnavailable(f"cannot reach the classifier endpoint {self.url}: {kind}")


_KINDS = {
    "ConnectTimeout": "connect timeout",
    "ReadTimeout": "read timeout",
    "WriteTimeout": "write timeout",
    "PoolTimeout": "pool timeout",
    "ConnectError": "connection failed",
    "RemoteProtocolError": "connection closed or invalid HTTP",
    "ReadError": "read error",
}
"""Short, secret-free descriptions of httpx errors, by class name."""


def _content(payload: bytes) -> str:
    """The assistant text of a chat-completions response body."""
    try:
        data = json.loads(payload)
    except (ValueError, RecursionError):
        raise EvaluatorResponseError("classifier response is not JSON") from None
    choices = data.get("choices") if isinstance(data, dict) else None
    first = choices[0] if isinstance(choices, list) and choices else None
    message = first.get("message") if isinstance(first, dict) else None
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: keep the text ones, in order
        texts = [
            part["text"]
            for part in content
            if isinstance(part, dict) and isinstance(part.get("text"), str)
        ]
        if texts:
            return "".join(texts)
    raise EvaluatorResponseError("classifier response has no message content")


def client_from_config(
    config: LlmClassifierConfig,
    environ: Mapping[str, str] | None = None,
    *,
    transport: Any = None,
) -> ChatCompletionsClient:
    """The client for an ``[tiers.llm]`` table; reads the API key variable it names.

    ``transport`` (an ``httpx.AsyncBaseTransport``) replaces the network.
    """
    if config.endpoint is None:
        raise ConfigError([("tiers.llm.endpoint", 'missing required key (classifier = "llm")')])
    api_key = None
    if config.api_key_env is not None:
        env = os.environ if environ is None else environ
        api_key = env.get(config.api_key_env, "").strip()
        if not api_key:
            raise ConfigError(
                [("tiers.llm.api_key_env", f"environment variable {config.api_key_env} is not set")]
            )
        problem = secrets.check_key(api_key)
        if problem:
            raise ConfigError(
                [
                    (
                        "tiers.llm.api_key_env",
                        f"the key in {config.api_key_env} {problem}; "
                        "an API key must be printable ASCII",
                    )
                ]
            )
    return ChatCompletionsClient(
        config.endpoint,
        config.model,
        api_key=api_key,
        max_tokens=config.max_tokens,
        max_response_bytes=config.max_response_bytes,
        connect_timeout=config.connect_timeout_ms / 1000.0,
        key_header=config.api_key_header,
        proxy=config.proxy,
        transport=transport,
    )
