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
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any, TextIO

from smista._edge.secrets import RedactingFilter, redact

__all__ = ["ACCESS", "DECISION", "JsonFormatter", "configure_logging", "emit"]

ACCESS = logging.getLogger("smista.access")
"""One record per HTTP request: method, path, status, duration, request id."""

DECISION = logging.getLogger("smista.decision.log")
"""One record per answered classification, preview or tier request."""

_STANDARD = frozenset(
    logging.LogRecord("", 0, "", 0, "", None, None).__dict__.keys()
    | {"message", "asctime", "color_message"}
)


_second: list[tuple[int, str]] = [(-1, "")]
"""The last whole second formatted, and its text: one tuple, replaced in one store, so a
thread never reads one second's text with another's number."""


def _timestamp(created: float) -> str:
    """``created`` as ISO 8601 UTC with milliseconds, exactly as ``datetime`` renders
    it (microseconds rounded, then cut to milliseconds); the seconds part cached."""
    whole = math.floor(created)
    micros = round((created - whole) * 1e6)
    if micros >= 1_000_000:
        whole += 1
        micros -= 1_000_000
    cached = _second[0]
    if cached[0] != whole:
        cached = (whole, datetime.fromtimestamp(whole, UTC).strftime("%Y-%m-%dT%H:%M:%S"))
        _second[0] = cached
    return f"{cached[1]}.{micros // 1000:03d}Z"


class JsonFormatter(logging.Formatter):
    """Formats a record as a single JSON line (ASCII, so any text is safe to write).

    The message, then the whole line, pass through :func:`smista._edge.secrets.redact`: no
    API key reaches the log.
    """

    def format(self, record: logging.LogRecord) -> str:
        attrs = record.__dict__
        event = attrs.get("event", "log")
        # (masked before it is escaped too: a key broken by a newline is caught)
        message = redact(record.getMessage())
        items = [(k, v) for k, v in attrs.items() if k not in _STANDARD and k != "event"]
        if record.exc_info and record.exc_info[0] is not None:
            exc_type, _, tb = record.exc_info
            items += (("exc_type", exc_type.__name__), ("stack", "".join(traceback.format_tb(tb))))
        level = record.levelname.lower()
        line = _line(record.created, level, record.name, event, message, items)
        if line is None:  # (what only the encoder writes: a dict keeps the last of a key)
            out: dict[object, object] = {
                "ts": _timestamp(record.created),
                "level": level,
                "logger": record.name,
                "event": event,
                "message": message,
            }
            out.update(items)
            line = _ENCODER.encode(out)
        # every registered API key masked, whatever field carried it
        return redact(line)


_ENCODER = json.JSONEncoder(ensure_ascii=True, default=str, separators=(",", ":"))
"""One encoder for every record (``json.dumps`` with options builds one per call)."""


_TEMPLATES: dict[str, tuple[dict[str, Any], tuple[tuple[str, Any], ...]]] = {}

_installed: list[logging.Handler | None] = [None]
"""The handler :func:`configure_logging` installed on the root logger, if any."""


def _direct_handler(logger: logging.Logger) -> logging.StreamHandler[TextIO] | None:
    """The handler :func:`configure_logging` installed, when it is the only one a record
    of ``logger`` would reach and nothing but smista's redacting filters sits on the way
    (then :func:`emit` may write the line itself; anything else gets a real record)."""
    handler = _installed[0]
    if not isinstance(handler, logging.StreamHandler) or type(handler.formatter) is not (
        JsonFormatter
    ):
        return None
    node: logging.Logger | None = logger
    while node is not None:
        if any(type(f) is not RedactingFilter for f in node.filters):
            return None
        if node.parent is None:  # the root: exactly the installed handler
            if node.handlers != [handler]:
                return None
            break
        if node.handlers or not node.propagate:
            return None
        node = node.parent
    if handler.level > logging.INFO or any(type(f) is not RedactingFilter for f in handler.filters):
        return None
    return handler


def _template(logger: logging.Logger) -> tuple[dict[str, Any], tuple[tuple[str, Any], ...]]:
    """An INFO record's attributes for ``logger``, made once per logger (every standard
    attribute, process and thread as of then, and whatever a record factory adds), and
    the attributes among them a line shows (a factory's own: not standard)."""
    found = _TEMPLATES.get(logger.name)
    if found is None:
        made = logger.makeRecord(logger.name, logging.INFO, "", 0, "", (), None)
        attrs = dict(made.__dict__)
        shown = tuple((k, v) for k, v in attrs.items() if k not in _STANDARD and k != "event")
        found = _TEMPLATES[logger.name] = (attrs, shown)
    return found


def _refuse_record_keys(fields: dict[str, object], attrs: dict[str, Any]) -> None:
    """The ``KeyError`` ``Logger.makeRecord`` raises for an ``extra`` key naming one of a
    record's attributes (``attrs``) or ``message``/``asctime``; both paths of :func:`emit`
    refuse the same fields."""
    for key in fields:
        if key in attrs or key in ("message", "asctime"):
            raise KeyError(f"Attempt to overwrite {key!r} in LogRecord")


def _record(logger: logging.Logger, message: str, fields: dict[str, object]) -> logging.LogRecord:
    """An INFO record of ``logger`` with ``message`` and ``fields``, cheaply: a copy of
    :func:`_template`'s with the time, message and fields set: no caller lookup and no
    ``LogRecord.__init__``."""
    record = logging.LogRecord.__new__(logging.LogRecord)
    attrs = record.__dict__
    attrs.update(_template(logger)[0])
    now = time.time()
    attrs["created"] = now
    attrs["msecs"] = (now - int(now)) * 1000
    attrs["msg"] = message
    _refuse_record_keys(fields, attrs)
    attrs.update(fields)
    return record


def emit(logger: logging.Logger, message: str, fields: dict[str, object]) -> None:
    """Log ``message`` with ``fields`` at INFO, cheaply.

    The request path logs twice per request. When the record would only reach the
    handler :func:`configure_logging` installed (``smista serve``), the JSON line
    :class:`JsonFormatter` would write is made and written here, under the handler's
    lock, without a ``LogRecord`` or the logging module's dispatch: the same line, for
    about half the cost. Otherwise (a host's own handlers, ``caplog``) a real
    record goes through ``logger.handle``.
    """
    if not logger.isEnabledFor(logging.INFO):
        return
    handler = _direct_handler(logger)
    if handler is None:
        logger.handle(_record(logger, message, fields))
        return
    line = _direct_line(logger, message, fields)
    if line is None:  # (a value or name the line cannot be written for by hand)
        logger.handle(_record(logger, message, fields))
        return
    handler.acquire()
    try:
        handler.stream.write(line + handler.terminator)
        handler.flush()
    except RecursionError:  # as StreamHandler.emit
        raise
    except Exception:  # as StreamHandler.emit: reported, never raised into the request
        handler.handleError(_record(logger, message, fields))
    finally:
        handler.release()


_HEADER = frozenset({"ts", "level", "logger", "event", "message"})
"""The keys a line opens with: an item of one of these names puts its value there, which
only the encoder's dict does (:func:`_line` declines it)."""


def _direct_line(logger: logging.Logger, message: str, fields: dict[str, object]) -> str | None:
    """The line :class:`JsonFormatter` writes for :func:`_record`'s record, without the
    record; ``None`` where :func:`_line` declines (the record path then writes it, or
    reports what it cannot write, as before). Raises the ``KeyError`` the record path
    raises for a field that names a record attribute."""
    template, shown = _template(logger)
    _refuse_record_keys(fields, template)
    event = fields["event"] if "event" in fields else template.get("event", "log")
    items = (*shown, *((k, v) for k, v in fields.items() if k not in _STANDARD and k != "event"))
    level = str(template["levelname"]).lower()
    # (the message masked before it is escaped, as JsonFormatter does)
    text = redact(message) if type(message) is str else message
    line = _line(time.time(), level, logger.name, event, text, items)
    return None if line is None else redact(line)


def _line(
    created: float,
    level: str,
    name: str,
    event: object,
    message: str,
    items: Iterable[tuple[object, object]],
) -> str | None:
    """A record's JSON line, written by hand: ``ts``, ``level``, ``logger``, ``event``,
    ``message``, then ``items`` in order, byte for byte what :data:`_ENCODER` writes for
    that dict; ``None`` where only the encoder can write it (a message that is not a plain
    str, an item key that is not one or names a header field, a value the writer refuses:
    :class:`JsonFormatter` then builds the dict, and :func:`emit` the record)."""
    if type(message) is not str:
        return None
    try:
        parts = [
            '{"ts":"',
            _timestamp(created),
            '","level":',
            _ESCAPE(level),
            ',"logger":',
            _ESCAPE(name),
            ',"event":',
            _json_value(event),
            ',"message":',
            _ESCAPE(message),
        ]
        for key, value in items:
            if type(key) is not str or key in _HEADER:
                return None
            parts += (",", _ESCAPE(key), ":", _json_value(value))
    except Exception:  # (the encoder raises or reports it; see the callers)
        return None
    parts.append("}")
    return "".join(parts)


_ESCAPE: Callable[[str], str] = json.encoder.encode_basestring_ascii
"""A str as JSON with ASCII escapes: what :data:`_ENCODER` writes for one."""


def _json_value(value: object) -> str:
    """``value`` exactly as :data:`_ENCODER` writes it (the common types by hand)."""
    if type(value) is str:
        return _ESCAPE(value)
    if type(value) is int:
        return int.__repr__(value)
    if type(value) is float and math.isfinite(value):
        return float.__repr__(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    return _ENCODER.encode(value)


def configure_logging(level: str = "info", stream: TextIO | None = None) -> None:
    """Send every log record of this process to ``stream`` (stderr) as JSON lines."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    _installed[0] = handler
    root.setLevel(level.upper())
    # Lifecycle records (started, listening, reloaded, reload_failed) always show.
    lifecycle = logging.getLogger("smista.server")
    lifecycle.setLevel(min(logging.INFO, logging.getLevelName(level.upper())))
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers.clear()
        logger.propagate = True
