"""Error answers of the HTTP service: one JSON shape for every failure.

I/O edge helpers (no sockets of their own). :class:`ApiError` is raised by
handlers for anything a client caused; :func:`error_response` renders it as
``{"error": {"code", "message", "details"?}}``. Error bodies are pure ASCII
JSON (``ensure_ascii``) so that nothing a client sent, however odd, can make
rendering the error fail. Messages never echo secrets and cut long values;
at most 50 details are listed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from starlette.responses import Response

__all__ = ["ApiError", "error_response"]

_MAX_MESSAGE = 300
_MAX_DETAILS = 50


class ApiError(Exception):
    """A request the service refuses, with its HTTP status and error code."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        details: Sequence[tuple[str, str]] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.headers = headers


def _cut(text: str) -> str:
    return text if len(text) <= _MAX_MESSAGE else text[: _MAX_MESSAGE - 3] + "..."


def error_response(error: ApiError) -> Response:
    """The JSON response for ``error``."""
    body: dict[str, object] = {"code": error.code, "message": _cut(error.message)}
    if error.details is not None:
        details = [{"loc": loc, "message": _cut(msg)} for loc, msg in error.details[:_MAX_DETAILS]]
        if len(error.details) > _MAX_DETAILS:
            more = len(error.details) - _MAX_DETAILS
            details.append({"loc": "", "message": f"and {more} more problems"})
        body["details"] = details
    content = json.dumps({"error": body}, ensure_ascii=True, separators=(",", ":"))
    return Response(
        content.encode("ascii"),
        status_code=error.status,
        media_type="application/json",
        headers=error.headers,
    )
