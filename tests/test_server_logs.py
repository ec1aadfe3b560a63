"""The service's JSON log records: the cheap path renders what ``logging`` would.

``emit`` builds records from a per-logger template instead of
``LogRecord.__init__``, and the formatter caches the seconds of its
timestamps; both must give exactly the records the standard path gives.
"""

from __future__ import annotations

import io
import json
import logging
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from smista.server.logs import JsonFormatter, configure_logging, emit


@pytest.fixture(autouse=True)
def _restore_logging():
    """configure_logging changes the root logger: put it back afterwards."""
    root = logging.getLogger()
    lifecycle = logging.getLogger("smista.server")
    saved = (list(root.handlers), root.level, lifecycle.level)
    yield
    for handler in list(root.handlers):
        root.removeHandler(handler)
    for handler in saved[0]:
        root.addHandler(handler)
    root.setLevel(saved[1])
    lifecycle.setLevel(saved[2])


@settings(max_examples=500)
@given(st.floats(min_value=0, max_value=4e9, allow_nan=False))
def test_timestamps_are_datetimes_rendering(created: float) -> None:
    record = logging.LogRecord("x", logging.INFO, "", 0, "m", (), None)
    record.created = created
    expected = (
        datetime.fromtimestamp(created, UTC)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z")
    )
    assert json.loads(JsonFormatter().format(record))["ts"] == expected


def test_emitted_records_carry_the_fields_in_order() -> None:
    stream = io.StringIO()
    configure_logging("info", stream)
    logger = logging.getLogger("smista.test.emit")
    emit(logger, "request", {"event": "access", "request_id": "r1", "status": 200})
    emit(logger, "again", {"event": "access", "request_id": "r2", "status": 404})
    logger.setLevel(logging.WARNING)
    emit(logger, "hidden", {"event": "access"})
    first, second = (json.loads(line) for line in stream.getvalue().splitlines())
    keys = list(first)
    assert keys[:5] == ["ts", "level", "logger", "event", "message"]
    assert [k for k in keys if k in ("request_id", "status")] == ["request_id", "status"]
    assert (first["message"], first["request_id"], first["status"]) == ("request", "r1", 200)
    assert (second["message"], second["request_id"], second["status"]) == ("again", "r2", 404)
    assert first["level"] == "info"
    assert first["logger"] == "smista.test.emit"


def test_a_field_may_not_replace_a_standard_attribute() -> None:
    configure_logging("info", io.StringIO())
    with pytest.raises(KeyError, match="overwrite"):
        emit(logging.getLogger("smista.test.emit2"), "m", {"levelname": "x"})


def test_emitted_records_read_as_any_record_with_the_same_attributes() -> None:
    """emit's records carry their field names so the formatter need not walk every
    attribute; the line is the one a plain record with those attributes gives, and what
    a filter sets on the way (a new attribute, a changed field) is in it."""
    stream = io.StringIO()
    configure_logging("info", stream)
    logger = logging.getLogger("smista.test.fields")

    def change(record: logging.LogRecord) -> bool:
        record.__dict__["status"] = 201
        return True

    def tag(record: logging.LogRecord) -> bool:
        record.__dict__["tenant"] = "t1"
        return True

    fields = {"event": "access", "request_id": "r1", "status": 200, "path": "/v1/classify"}
    emit(logger, "plain", dict(fields))
    for added in (change, tag):
        logger.addFilter(added)
        emit(logger, "filtered", dict(fields))
    logger.removeFilter(change)
    logger.removeFilter(tag)
    plain, changed, tagged = (json.loads(line) for line in stream.getvalue().splitlines())
    assert changed["status"] == 201
    record = logging.LogRecord(logger.name, logging.INFO, "", 0, "plain", (), None)
    record.__dict__.update(fields)
    reference = json.loads(JsonFormatter().format(record))
    del plain["ts"], reference["ts"]
    assert list(plain.items()) == list(reference.items())
    assert "_smista_fields" not in plain
    assert (tagged["tenant"], tagged["status"]) == ("t1", 201)
    assert list(tagged)[-1] == "tenant"
