"""A small OpenAI-compatible chat-completions client for the LLM tier classifier.

I/O edge (network, and the environment for the API key); needs ``httpx``
(the ``llm`` extra), imported on first use. It implements the router's
:class:`~smista.tiers.request.Completer` protocol and nothing more: one POST,
no retries, no redirects followed, bounded connect and overall time, and a
cap on the bytes read. The API key is read once from the environment variable
the config names and is sent only in the ``Authorization`` header; it never
appears in ``repr``, errors or logs.

Errors are :class:`smista.errors.EvaluatorError` subclasses: ``EvaluatorTimeout``
(the router reports ``classifier_timeout``), ``EvaluatorUnavailable`` and
``EvaluatorResponseError`` (``classifier_failed``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from smista.errors import (
    ConfigError,
    EvaluatorResponseError,
    EvaluatorTimeout,
    EvaluatorUnavailable,
)
from smista.tiers.model import LlmClassifierConfig

__all__ = ["ChatCompletionsClient", "chat_completions_url", "client_from_config"]

_SUFFIX = "/chat/completions"


def chat_completions_url(endpoint: str) -> str:
    """``http://host/v1`` -> ``http://host/v1/chat/completions`` (a full URL is kept)."""
    trimmed = endpoint.strip().rstrip("/")
    return trimmed if trimmed.endswith(_SUFFIX) else trimmed + _SUFFIX


class ChatCompletionsClient:
    """POST ``{system, user}`` to a chat-completions endpoint; return the reply text."""

    __slots__ = ("_api_key", "connect_timeout", "max_response_bytes", "max_tokens", "model", "url")

    def __init__(
        self,
        endpoint: str,
        model: str,
        *,
        api_key: str | None = None,
        max_tokens: int = 256,
        max_response_bytes: int = 1 << 20,
        connect_timeout: float = 3.0,
    ) -> None:
        self.url = chat_completions_url(endpoint)
        self.model = model
        self._api_key = api_key or None
        self.max_tokens = max_tokens
        self.max_response_bytes = max_response_bytes
        self.connect_timeout = connect_timeout

    def __repr__(self) -> str:
        auth = "with API key" if self._api_key else "no API key"
        return f"ChatCompletionsClient({self.url!r}, model={self.model!r}, {auth})"

    async def complete(self, system: str, user: str, timeout: float) -> str:
        """One completion: ``system`` as the system message, ``user`` as the only user message."""
        try:
            import httpx
        except ImportError:
            raise EvaluatorUnavailable(
                "the llm tier classifier needs httpx: pip install 'smista[llm]'"
            ) from None
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
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
        limits = httpx.Timeout(timeout, connect=min(self.connect_timeout, timeout))
        try:
            async with (
                httpx.AsyncClient(timeout=limits, follow_redirects=False) as client,
                client.stream("POST", self.url, json=body, headers=headers) as response,
            ):
                payload = await self._read(response)
                status = response.status_code
        except httpx.TimeoutException as exc:
            raise EvaluatorTimeout(f"{_kind(exc)} from {self.url}") from None
        except httpx.HTTPError as exc:
            raise EvaluatorUnavailable(
                f"cannot reach the classifier endpoint {self.url}: {_kind(exc)}"
            ) from None
        if not 200 <= status < 300:
            snippet = self._redact(payload[:200].decode("utf-8", "replace")).strip()
            raise EvaluatorUnavailable(
                f"classifier endpoint returned HTTP {status}" + (f": {snippet}" if snippet else "")
            )
        return _content(payload)

    async def _read(self, response: Any) -> bytes:
        cap = self.max_response_bytes
        declared = response.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > cap:
            raise EvaluatorResponseError(f"classifier response exceeds {cap} bytes")
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > cap:
                raise EvaluatorResponseError(f"classifier response exceeds {cap} bytes")
            chunks.append(chunk)
        return b"".join(chunks)

    def _redact(self, text: str) -> str:
        return text.replace(self._api_key, "***") if self._api_key else text


def _kind(exc: Exception) -> str:
    """A short, secret-free description of an httpx error."""
    names = {
        "ConnectTimeout": "connect timeout",
        "ReadTimeout": "read timeout",
        "WriteTimeout": "write timeout",
        "PoolTimeout": "pool timeout",
        "ConnectError": "connection failed",
        "RemoteProtocolError": "connection closed or invalid HTTP",
        "ReadError": "read error",
    }
    return names.get(type(exc).__name__, type(exc).__name__)


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
    config: LlmClassifierConfig, environ: Mapping[str, str] | None = None
) -> ChatCompletionsClient:
    """The client for an ``[tiers.llm]`` table; reads the API key variable it names."""
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
    return ChatCompletionsClient(
        config.endpoint,
        config.model,
        api_key=api_key,
        max_tokens=config.max_tokens,
        max_response_bytes=config.max_response_bytes,
        connect_timeout=config.connect_timeout_ms / 1000.0,
    )
