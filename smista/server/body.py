"""Reading a JSON request body under a size limit and validating it against a model.

I/O edge (reads the request stream). A declared ``Content-Length`` above the
limit is refused before a byte is read; a chunked body is read only until it
passes the limit. Malformed JSON (``NaN`` and ``Infinity`` included) is a 400,
a body that does not match the model a 422 with one detail per problem (key
path + what was expected).
Never lets a bad body become a 500.
"""

from __future__ import annotations

import re
from typing import TypeVar

from pydantic import BaseModel, ValidationError
from pydantic_core import from_json
from starlette.requests import ClientDisconnect, Request

from smista.config import config_error_from_validation
from smista.server.errors import ApiError

__all__ = ["parse_model", "read_body"]

M = TypeVar("M", bound=BaseModel)


def _too_large(limit: int) -> ApiError:
    return ApiError(413, "body_too_large", f"request body is larger than {limit} bytes")


async def read_body(request: Request, limit: int) -> bytes:
    """The whole request body, or a 413 :class:`ApiError` past ``limit`` bytes."""
    declared = request.headers.get("content-length")
    if declared is not None:
        try:
            size = int(declared)
        except ValueError:
            raise ApiError(400, "invalid_request", "invalid Content-Length header") from None
        if size > limit:
            raise _too_large(limit)
    chunks: list[bytes] = []
    total = 0
    try:
        async for chunk in request.stream():
            total += len(chunk)
            if total > limit:
                raise _too_large(limit)
            chunks.append(chunk)
    except ClientDisconnect:
        # Nobody is left to answer; a 4xx keeps a client's hang-up out of the
        # error log.
        raise ApiError(400, "invalid_request", "client disconnected") from None
    return b"".join(chunks)


_LONE_HIGH_SURROGATE = re.compile(
    rb"(?<!\\)(?:\\\\)*\\u([dD][89abAB][0-9a-fA-F]{2})(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
)
_NON_NUMBERS = (b"NaN", b"Infinity", b"-Infinity")


def _syntax_problem(body: bytes) -> str | None:
    """Why ``body`` is not JSON (``None`` when it is).

    Stricter than pydantic's own parsing, which accepts ``NaN`` and
    ``Infinity``: they are not JSON, so they are a 400 like any malformed body.
    A lone surrogate escape (``\\ud800``) is named as such.
    """
    try:
        from_json(body, allow_inf_nan=False)
    except ValueError as exc:
        why = str(exc)
        where = why[why.find(" at line ") :] if " at line " in why else ""
        lone = _LONE_HIGH_SURROGATE.search(body) if "hex escape" in why else None
        if lone is not None or "surrogate" in why:
            escape = f" '\\u{lone.group(1).decode('ascii')}'" if lone is not None else ""
            return f"lone surrogate escape{escape} (half of a UTF-16 pair, not a character){where}"
        if any(word in body for word in _NON_NUMBERS) and (
            why.startswith(("expected value", "invalid number"))
        ):
            return f"NaN and Infinity are not JSON numbers ({why})"
        return why
    return None


def parse_model(model: type[M], body: bytes) -> M:
    """``body`` as ``model``: 400 for malformed JSON (``NaN`` included), 422 for a wrong
    shape."""
    problem = _syntax_problem(body)
    if problem is not None:
        raise ApiError(400, "invalid_json", f"request body is not valid JSON: {problem}")
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
