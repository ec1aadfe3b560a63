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
import sys
import traceback
from datetime import UTC, datetime
from typing import TextIO

from smista._secrets import redact

__all__ = ["ACCESS", "DECISION", "JsonFormatter", "configure_logging", "emit"]

ACCESS = logging.getLogger("smista.access")
"""One record per HTTP request: method, path, status, duration, request id."""

DECISION = logging.getLogger("smista.decision.log")
"""One record per answered classification, preview or tier request."""

_STANDARD = frozenset(
    logging.LogRecord("", 0, "", 0, "", None, None).__dict__.keys()
    | {"message", "asctime", "color_message"}
)


class JsonFormatter(logging.Formatter):
    """Formats a record as a single JSON line (ASCII, so any text is safe to write).

    The line passes through :func:`smista._secrets.redact`: no API key reaches the log.
    """

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, object] = {
            "ts": datetime.fromtimestamp(record.created, UTC)
            .isoformat(timespec="milliseconds")
            .replace("+00:00", "Z"),
            "level": record.levelname.lower(),
            "logger": record.name,
        }
        extra = {k: v for k, v in record.__dict__.items() if k not in _STANDARD}
        out["event"] = extra.pop("event", "log")
        out["message"] = record.getMessage()
        out.update(extra)
        if record.exc_info and record.exc_info[0] is not None:
            exc_type, _, tb = record.exc_info
            out["exc_type"] = exc_type.__name__
            out["stack"] = "".join(traceback.format_tb(tb))
        # every registered API key masked, whatever field carried it
        return redact(json.dumps(out, ensure_ascii=True, default=str, separators=(",", ":")))


def emit(logger: logging.Logger, message: str, fields: dict[str, object]) -> None:
    """Log ``message`` with ``fields`` at INFO, skipping the caller lookup.

    The request path logs twice per request; building the record directly
    avoids :meth:`logging.Logger.findCaller`'s stack walk (about a third of
    the cost of a record).
    """
    if logger.isEnabledFor(logging.INFO):
        record = logger.makeRecord(
            logger.name, logging.INFO, "", 0, message, (), None, extra=fields
        )
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
