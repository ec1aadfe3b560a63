"""Structured logs of the HTTP service: one JSON object per line on stderr.

I/O edge (configures logging for the ``smista serve`` process only; the
library never configures logging). Records carry ``ts``, ``level``,
``logger``, ``event``, ``message`` and the fields passed in ``extra``.
Exceptions are logged by type and stack only, never by message, because a
message may quote request data. Prompt text reaches a log only when the
service runs with ``--log-prompts``; tokens and headers never do.
"""

from __future__ import annotations

import json
import logging
import math
import sys
import time
import traceback
from datetime import UTC, datetime
from typing import Any, TextIO

from smista._edge.secrets import redact

__all__ = ["ACCESS", "DECISION", "JsonFormatter", "configure_logging", "emit"]

ACCESS = logging.getLogger("smista.access")
"""One record per HTTP request: method, path, status, duration, request id."""

DECISION = logging.getLogger("smista.decision.log")
"""One record per answered classification, preview or tier request."""

_STANDARD = frozenset(
    logging.LogRecord("", 0, "", 0, "", None, None).__dict__.keys()
    | {"message", "asctime", "color_message"}
)


_second: list[Any] = [None, ""]  # the last whole second formatted, and its text


def _timestamp(created: float) -> str:
    """``created`` as ISO 8601 UTC with milliseconds, exactly as ``datetime`` renders
    it (microseconds rounded, then cut to milliseconds); the seconds part cached."""
    whole = math.floor(created)
    micros = round((created - whole) * 1e6)
    if micros >= 1_000_000:
        whole += 1
        micros -= 1_000_000
    if _second[0] != whole:
        _second[1] = datetime.fromtimestamp(whole, UTC).strftime("%Y-%m-%dT%H:%M:%S")
        _second[0] = whole
    return f"{_second[1]}.{micros // 1000:03d}Z"


class JsonFormatter(logging.Formatter):
    """Formats a record as a single JSON line (ASCII, so any text is safe to write).

    The line passes through :func:`smista._edge.secrets.redact`: no API key reaches the log.
    """

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, object] = {
            "ts": _timestamp(record.created),
            "level": record.levelname.lower(),
            "logger": record.name,
        }
        attrs = record.__dict__
        out["event"] = attrs.get("event", "log")
        out["message"] = record.getMessage()
        for key, value in attrs.items():
            if key not in _STANDARD and key != "event":
                out[key] = value
        if record.exc_info and record.exc_info[0] is not None:
            exc_type, _, tb = record.exc_info
            out["exc_type"] = exc_type.__name__
            out["stack"] = "".join(traceback.format_tb(tb))
        # every registered API key masked, whatever field carried it
        return redact(_ENCODER.encode(out))


_ENCODER = json.JSONEncoder(ensure_ascii=True, default=str, separators=(",", ":"))
"""One encoder for every record (``json.dumps`` with options builds one per call)."""


_TEMPLATES: dict[str, dict[str, Any]] = {}


def emit(logger: logging.Logger, message: str, fields: dict[str, object]) -> None:
    """Log ``message`` with ``fields`` at INFO, cheaply.

    The request path logs twice per request. The record is a copy of one made
    once per logger (every standard attribute present, process and thread
    as of then), with the time, message and fields set: no caller lookup and
    no ``LogRecord.__init__`` per request.
    """
    if logger.isEnabledFor(logging.INFO):
        template = _TEMPLATES.get(logger.name)
        if template is None:
            made = logger.makeRecord(logger.name, logging.INFO, "", 0, "", (), None)
            template = _TEMPLATES[logger.name] = dict(made.__dict__)
        record = logging.LogRecord.__new__(logging.LogRecord)
        attrs = record.__dict__
        attrs.update(template)
        now = time.time()
        attrs["created"] = now
        attrs["msecs"] = (now - int(now)) * 1000
        attrs["msg"] = message
        for key in fields:  # (as Logger.makeRecord refuses its ``extra``)
            if key in attrs or key in ("message", "asctime"):
                raise KeyError(f"Attempt to overwrite {key!r} in LogRecord")
        attrs.update(fields)
        logger.handle(record)


def configure_logging(level: str = "info", stream: TextIO | None = None) -> None:
    """Send every log record of this process to ``stream`` (stderr) as JSON lines."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    # Lifecycle records (started, listening, reloaded, reload_failed) always show.
    lifecycle = logging.getLogger("smista.server")
    lifecycle.setLevel(min(logging.INFO, logging.getLevelName(level.upper())))
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers.clear()
        logger.propagate = True
