"""Reading a JSON request body under a size limit and validating it against a model.

I/O edge (reads the request stream). A declared ``Content-Length`` above the
limit is refused before a byte is read; a chunked body is read only until it
passes the limit. Malformed JSON (``NaN`` and ``Infinity`` included, and
named as such, as is a lone surrogate escape) is a 400, a body that does not
match the model a 422 with one detail per problem (key path + what was
expected). A body not declared JSON (``Content-Type`` other than
``application/json`` or ``application/*+json``, or none) is a 415 before it is
read (:func:`is_json_type`, :func:`unsupported_media_type`): the media types a
web page may send across sites without a CORS preflight (``text/plain``,
forms) are never taken as a request.
Never lets a bad body become a 500.

Work per request is bounded before the model sees the body
(:func:`parse_bounded`): the JSON is scanned (iteratively) for arrays longer
than ``max_items`` or objects with more than :data:`MAX_KEYS` keys (422
``too_many_items``) and for the counts a caller names (the batch's ``items``
against ``--max-batch``), and only then validated. Validation stops early
(list fields fail fast: the first bad element of an array is reported, not
every one), and the answer lists at most 50 problems. A body over
:data:`OFFLOAD_BYTES` is scanned and validated on a worker thread, so no
request under the limits holds the event loop.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import pydantic_core
from pydantic import BaseModel, ValidationError
from starlette.requests import Request
from starlette.types import Receive, Scope

from smista.config.load import config_error_from_validation
from smista.server.errors import ApiError

__all__ = [
    "MAX_KEYS",
    "OFFLOAD_BYTES",
    "is_json_type",
    "parse_bounded",
    "parse_model",
    "read_asgi_body",
    "read_body",
    "unsupported_media_type",
]

OFFLOAD_BYTES = 64 * 1024
"""Bodies larger than this are scanned and validated off the event loop."""

M = TypeVar("M", bound=BaseModel)


def is_json_type(content_type: bytes | None) -> bool:
    """Whether a ``Content-Type`` header value declares JSON: ``application/json`` or
    a ``+json`` type (``application/vnd.x+json``), any parameters (``charset``)."""
    if content_type == b"application/json":
        return True
    if content_type is None:
        return False
    media = content_type.partition(b";")[0].strip().lower()
    return media == b"application/json" or (
        media.startswith(b"application/") and media.endswith(b"+json")
    )


def unsupported_media_type(content_type: bytes | None) -> ApiError:
    """The 415 for a body whose ``Content-Type`` (header value) does not declare JSON."""
    given = "none" if content_type is None else repr(content_type.decode("latin-1")[:60])
    return ApiError(
        415,
        "unsupported_media_type",
        f"the body must be JSON, sent with Content-Type: application/json (got {given})",
        headers={"Accept-Post": "application/json"},
    )


def _too_large(limit: int) -> ApiError:
    return ApiError(413, "body_too_large", f"request body is larger than {limit} bytes")


async def read_body(request: Request, limit: int) -> bytes:
    """The whole request body, or a 413 :class:`ApiError` past ``limit`` bytes."""
    return await read_asgi_body(request.scope, request.receive, limit)


async def read_asgi_body(scope: Scope, receive: Receive, limit: int) -> bytes:
    """:func:`read_body` on the raw ASGI request (for routes served without Starlette's
    ``Request``): the same limits, errors and reading as ``Request.stream()``."""
    declared = None
    for name, value in scope["headers"]:
        if name == b"content-length":  # the first one, as Starlette's headers.get
            declared = value
            break
    if declared is not None:
        try:
            size = int(declared.decode("latin-1"))
        except ValueError:
            raise ApiError(400, "invalid_request", "invalid Content-Length header") from None
        if size > limit:
            raise _too_large(limit)
    chunks: list[bytes] = []
    total = 0
    while True:
        message = await receive()
        kind = message["type"]
        if kind == "http.request":
            chunk: bytes = message.get("body", b"")
            if chunk:
                total += len(chunk)
                if total > limit:
                    raise _too_large(limit)
                chunks.append(chunk)
            if not message.get("more_body", False):
                break
        elif kind == "http.disconnect":
            # Nobody is left to answer; a 4xx keeps a client's hang-up out of the
            # error log.
            raise ApiError(400, "invalid_request", "client disconnected")
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


_LONE_HIGH_SURROGATE = re.compile(
    rb"(?<!\\)(?:\\\\)*\\u([dD][89abAB][0-9a-fA-F]{2})(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
)
_NON_NUMBERS = (b"NaN", b"Infinity", b"-Infinity")


def _parse_json(body: bytes) -> Any:
    """The JSON value of ``body``, or a 400 :class:`ApiError` saying why it is not JSON.

    Stricter than pydantic's own parsing, which accepts ``NaN`` and
    ``Infinity``: they are not JSON. A lone surrogate escape (``\\ud800``)
    is named as such instead of "unexpected end of hex escape".
    """
    try:
        return pydantic_core.from_json(body, cache_strings=False, allow_inf_nan=False)
    except ValueError as exc:
        why = str(exc)
    where = why[why.find(" at line ") :] if " at line " in why else ""
    lone = _LONE_HIGH_SURROGATE.search(body) if "hex escape" in why else None
    if lone is not None or "surrogate" in why:
        escape = f" '\\u{lone.group(1).decode('ascii')}'" if lone is not None else ""
        why = f"lone surrogate escape{escape} (half of a UTF-16 pair, not a character){where}"
    elif any(word in body for word in _NON_NUMBERS) and why.startswith(
        ("expected value", "invalid number")
    ):
        why = f"NaN and Infinity are not JSON numbers ({why})"
    raise ApiError(400, "invalid_json", f"request body is not valid JSON: {why}")


def parse_model(model: type[M], body: bytes) -> M:
    """``body`` as ``model``: 400 for malformed JSON (``NaN`` included), 422 for a
    wrong shape."""
    _parse_json(body)
    return _validate(model, body)


def _validate(model: type[M], body: bytes) -> M:
    """``body`` (already known to be JSON) as ``model``, or a 422."""
    try:
        return model.model_validate_json(body)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        invalid = [err for err in errors if err["type"] == "json_invalid"]
        if invalid:
            why = str(invalid[0]["msg"]).removeprefix("Invalid JSON: ")
            raise ApiError(400, "invalid_json", f"request body is not valid JSON: {why}") from None
        problems = config_error_from_validation(exc, model, json_terms=True).errors
        details = [(loc or "(body)", msg) for loc, msg in problems]
        raise ApiError(
            422, "invalid_request", "request body does not match the schema", details
        ) from None


def _loc(path: tuple[str | int, ...]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out or "(body)"


MAX_KEYS = 256
"""Most keys of one JSON object in a request (no request object has more than a few)."""


def check_counts(
    data: Any, max_items: int, counts: Mapping[str, tuple[int, Callable[[int], ApiError]]]
) -> None:
    """Raise a 422 for an array over ``max_items`` or an object over :data:`MAX_KEYS`.

    ``counts`` maps a top-level key to its own (smaller) limit and the error
    for going over it. Iterative: nesting depth costs no stack.
    """
    if isinstance(data, dict):
        for key, (limit, error) in counts.items():
            value = data.get(key)
            if isinstance(value, list) and len(value) > limit:
                raise error(len(value))
    stack: list[tuple[tuple[str | int, ...], Any]] = [((), data)]
    push = stack.append
    while stack:
        path, value = stack.pop()
        if type(value) is list:
            if len(value) > max_items:
                raise _too_many(path, len(value), max_items, "items")
            for i, item in enumerate(value):
                kind = type(item)
                if kind is list or kind is dict:
                    push(((*path, i), item))
        else:
            if len(value) > MAX_KEYS:
                raise _too_many(path, len(value), MAX_KEYS, "keys")
            for key, item in value.items():
                kind = type(item)
                if kind is list or kind is dict:
                    push(((*path, key), item))


def _too_many(path: tuple[str | int, ...], size: int, limit: int, what: str) -> ApiError:
    loc = _loc(path)
    return ApiError(
        422,
        "too_many_items",
        f"{loc} has {size} {what}; at most {limit} are allowed",
        [(loc, f"{size} {what}; at most {limit} are allowed")],
    )


def _parse_bounded(
    model: type[M],
    body: bytes,
    max_items: int,
    counts: Mapping[str, tuple[int, Callable[[int], ApiError]]],
    plain: Callable[[Any], M | None] | None,
) -> M:
    data = _parse_json(body)
    if type(data) is list or type(data) is dict:
        check_counts(data, max_items, counts)
    if plain is not None:
        built = plain(data)  # one parse: the common shapes are built from the value
        if built is not None:
            return built
    return _validate(model, body)


async def parse_bounded(
    model: type[M],
    body: bytes,
    *,
    max_items: int,
    counts: Mapping[str, tuple[int, Callable[[int], ApiError]]] | None = None,
    plain: Callable[[Any], M | None] | None = None,
) -> M:
    """:func:`parse_model` after the count limits, off the loop for a large body.

    ``plain(data)``, if given, builds the model from the parsed JSON value when
    it has a common, valid shape it knows exactly (the model the validation
    would give), and returns None for anything else, which is then validated
    from the body as usual (so every error answer stays the same).
    """
    limits = counts or {}
    if len(body) > OFFLOAD_BYTES:
        return await asyncio.to_thread(_parse_bounded, model, body, max_items, limits, plain)
    return _parse_bounded(model, body, max_items, limits, plain)
