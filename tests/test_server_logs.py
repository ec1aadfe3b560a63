"""The service's JSON log records: the cheap path renders what ``logging`` would.

``emit`` builds records from a per-logger template instead of
``LogRecord.__init__``, and the formatter caches the seconds of its
timestamps; both must give exactly the records the standard path gives.
"""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Callable
from datetime import UTC, datetime
from unittest import mock

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


@pytest.mark.parametrize("name", ["levelname", "message", "asctime"])
def test_a_field_may_not_replace_a_standard_attribute(name: str) -> None:
    """As Logger.makeRecord refuses such ``extra`` keys."""
    configure_logging("info", io.StringIO())
    with pytest.raises(KeyError, match="overwrite"):
        emit(logging.getLogger("smista.test.emit2"), "m", {name: "x"})


def _as_any_record(record: logging.LogRecord) -> list[tuple[str, object]]:
    """The line's items for a plain record with ``record``'s attributes, in order."""
    plain = logging.LogRecord.__new__(logging.LogRecord)
    plain.__dict__.update(record.__dict__)
    return list(json.loads(JsonFormatter().format(plain)).items())


def _change(record: logging.LogRecord) -> None:
    record.__dict__["status"] = 201


def _tag(record: logging.LogRecord) -> None:
    record.__dict__["tenant"] = "t1"


def _swap(record: logging.LogRecord) -> None:  # one attribute out, another in
    del record.__dict__["stack_info"]
    record.__dict__["tenant"] = "t1"


def _replace(record: logging.LogRecord) -> None:  # a field out, another in
    del record.__dict__["path"]
    record.__dict__["route"] = "classify"


def _reorder(record: logging.LogRecord) -> None:  # a field moved to the end
    record.__dict__["request_id"] = record.__dict__.pop("request_id")


@pytest.mark.parametrize("edit", [None, _change, _tag, _swap, _replace, _reorder])
def test_emitted_records_read_as_any_record_with_the_same_attributes(
    edit: Callable[[logging.LogRecord], None] | None,
) -> None:
    """Whatever a filter does to emit's record on the way (a changed field, an attribute
    added, swapped, replaced or moved), the line is the one any record with the same
    attributes gives."""
    stream = io.StringIO()
    configure_logging("info", stream)
    logger = logging.getLogger("smista.test.fields")
    seen: list[logging.LogRecord] = []

    def apply(record: logging.LogRecord) -> bool:
        if edit is not None:
            edit(record)
        seen.append(record)
        return True

    logger.addFilter(apply)
    try:
        emit(logger, "m", {"event": "access", "request_id": "r1", "status": 200, "path": "/p"})
    finally:
        logger.removeFilter(apply)
    (line,) = stream.getvalue().splitlines()
    (record,) = seen
    assert list(json.loads(line).items()) == _as_any_record(record)


def test_a_record_factorys_own_attributes_are_in_the_line() -> None:
    """A record factory may add attributes (Ray's adds a timestamp once imported): emit's
    records carry them as the factory made them (once per logger), and the line shows
    them as it does for any record."""
    stream = io.StringIO()
    configure_logging("info", stream)
    factory = logging.getLogRecordFactory()

    def stamped(*args: object, **kwargs: object) -> logging.LogRecord:
        record = factory(*args, **kwargs)
        record.__dict__["_stamp"] = 7
        return record

    logging.setLogRecordFactory(stamped)
    try:
        logger = logging.getLogger("smista.test.factory")
        seen: list[logging.LogRecord] = []

        def keep(record: logging.LogRecord) -> bool:
            seen.append(record)
            return True

        logger.addFilter(keep)
        emit(logger, "m", {"event": "access", "status": 200})
    finally:
        logging.setLogRecordFactory(factory)
    (line,) = stream.getvalue().splitlines()
    (record,) = seen
    assert json.loads(line)["_stamp"] == 7
    assert list(json.loads(line).items()) == _as_any_record(record)


_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text()
    | st.builds(tuple, st.lists(st.integers(), max_size=2)),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=6,
)


def _both_paths(logger: str, message: str, fields: dict[str, object]) -> list[tuple[str, bool]]:
    """What emit writes for ``fields`` on the direct path, then on the record path (the
    handler configure_logging installed forgotten), at one fixed time: each line and
    whether logging reported an error on stderr instead."""
    import contextlib

    import smista.server.logs as logs

    out = []
    for direct in (True, False):
        stream, err = io.StringIO(), io.StringIO()
        configure_logging("info", stream)
        if not direct:
            logs._installed[0] = None
        with (
            mock.patch("smista.server.logs.time.time", return_value=1765000000.25),
            contextlib.redirect_stderr(err),
        ):
            emit(logging.getLogger(logger), message, fields)
        out.append((stream.getvalue(), "--- Logging error ---" in err.getvalue()))
    return out


@settings(max_examples=300)
@given(
    fields=st.dictionaries(
        (st.text() | st.sampled_from(["ts", "level", "logger", "event", "_stamp"])).filter(
            lambda k: (
                k not in logging.LogRecord("", 0, "", 0, "", None, None).__dict__
                and k not in ("message", "asctime")
            )
        ),
        _VALUES,
        max_size=6,
    ),
    message=st.text(),
    event=st.none() | st.text(),
    stamp=st.none() | _VALUES,
    stamp_name=st.sampled_from(["_stamp", "ts", "level"]),
)
def test_the_direct_line_is_the_records_line(
    fields: dict[str, object], message: str, event: str | None, stamp: object, stamp_name: str
) -> None:
    """With only configure_logging's handler on the way, emit writes the line itself; it is
    byte for byte the line the record path writes (a record factory's attributes included,
    fields or attributes named as the line's first keys too), for any field values."""
    import smista.server.logs as logs

    if event is not None:
        fields = {"event": event, **fields}
    if stamp is not None:
        fields.pop(stamp_name, None)  # (a field may not replace an attribute: KeyError)
    factory = logging.getLogRecordFactory()

    def stamped(*args: object, **kwargs: object) -> logging.LogRecord:
        record = factory(*args, **kwargs)
        record.__dict__[stamp_name] = stamp
        return record

    # one template for both paths, as in a process (a factory may stamp it with the time:
    # Ray's does once imported)
    logs._TEMPLATES.clear()
    if stamp is not None:
        logging.setLogRecordFactory(stamped)
    try:
        lines = [line for line, _ in _both_paths("smista.test.direct", message, fields)]
    finally:
        logging.setLogRecordFactory(factory)
        logs._TEMPLATES.clear()
    assert lines[0] == lines[1]
    assert lines[0].endswith("\n")
    assert lines[0].count("\n") == 1


def test_emit_writes_the_line_itself_only_on_configure_loggings_handler_alone() -> None:
    import smista.server.logs as logs

    stream = io.StringIO()
    configure_logging("info", stream)
    logger = logging.getLogger("smista.test.route")
    assert logs._direct_handler(logger) is not None
    other = logging.StreamHandler(io.StringIO())
    logger.addHandler(other)  # a host's own handler: records go through logging
    try:
        assert logs._direct_handler(logger) is None
    finally:
        logger.removeHandler(other)
    logger.propagate = False
    try:
        assert logs._direct_handler(logger) is None
    finally:
        logger.propagate = True
    root = logging.getLogger()
    root.handlers[0].addFilter(lambda _record: True)
    try:
        assert logs._direct_handler(logger) is None
    finally:
        root.handlers[0].filters.clear()
    root.handlers[0].setLevel(logging.WARNING)
    try:
        assert logs._direct_handler(logger) is None
    finally:
        root.handlers[0].setLevel(logging.NOTSET)
    root.handlers[0].setFormatter(logging.Formatter())
    assert logs._direct_handler(logger) is None
    logs._installed[0] = None
    assert logs._direct_handler(logger) is None


def test_a_direct_write_that_fails_is_reported_not_raised(
    capsys: pytest.CaptureFixture[str],
) -> None:
    class Broken(io.StringIO):
        def write(self, _text: str) -> int:
            raise OSError("disk full")

    configure_logging("info", Broken())
    emit(logging.getLogger("smista.test.broken"), "m", {"event": "access"})
    assert "OSError" in capsys.readouterr().err


class _Unprintable:
    def __str__(self) -> str:
        raise RuntimeError("no text")


@pytest.mark.parametrize(
    "fields",
    [
        {1: "one"},  # a key that is no str: the record path writes "1"
        {"v": {(1, 2): 3}},  # a value the encoder refuses: reported, not raised
        {"v": _Unprintable()},
    ],
    ids=["int-key", "tuple-key", "unprintable"],
)
def test_what_the_direct_path_cannot_write_goes_the_record_path(
    fields: dict[object, object],
) -> None:
    """emit never raises into a request for a field it cannot write by hand: the record path
    writes it or reports it, as before the direct path."""
    direct, record = _both_paths("smista.test.odd", "m", fields)  # type: ignore[arg-type]
    assert direct == record  # (the same line, or the same report of none)
    line, reported = direct
    assert reported == (not line)  # (int-key: written; the others: reported)


def test_a_circular_value_is_reported_not_raised(capsys: pytest.CaptureFixture[str]) -> None:
    circular: list[object] = []
    circular.append(circular)
    stream = io.StringIO()
    configure_logging("info", stream)
    emit(logging.getLogger("smista.test.circular"), "m", {"v": circular})
    assert stream.getvalue() == ""
    assert "Logging error" in capsys.readouterr().err


def test_a_registered_key_in_a_message_is_masked_on_the_direct_path() -> None:
    """The direct path masks the message before escaping it (a key broken by a newline,
    which the line shows as \\n, is still caught)."""
    from smista._edge import secrets

    key = "sk-direct0path0test0key0123456789"
    secrets.register(key)
    stream = io.StringIO()
    configure_logging("info", stream)
    emit(logging.getLogger("smista.test.secret"), f"pre {key[:12]}\n{key[12:]} post", {})
    emit(logging.getLogger("smista.test.secret"), f"pre {key} post", {"event": "x"})
    assert key[:12] not in stream.getvalue()
    assert key[12:] not in stream.getvalue()


@settings(max_examples=500)
@given(
    created=st.floats(min_value=0, max_value=4e9, allow_nan=False),
    level=st.text(),
    name=st.text(),
    event=_VALUES,
    message=st.text(),
    items=st.lists(
        st.tuples(st.text() | st.sampled_from(["ts", "level", "logger", "message"]), _VALUES),
        max_size=6,
    ),
)
def test_the_hand_written_line_is_the_encoders(
    created: float,
    level: str,
    name: str,
    event: object,
    message: str,
    items: list[tuple[str, object]],
) -> None:
    """_line writes what the shared JSON encoder writes for the same dict, byte for byte, or
    declines (a key naming a header field, which a dict would put there instead)."""
    from smista.server.logs import _ENCODER, _HEADER, _line, _timestamp

    line = _line(created, level, name, event, message, items)
    out: dict[str, object] = {
        "ts": _timestamp(created),
        "level": level,
        "logger": name,
        "event": event,
        "message": message,
    }
    out.update(items)
    if any(key in _HEADER for key, _ in items):
        assert line is None
    elif len({key for key, _ in items}) < len(items):
        assert line is not None  # (repeated keys: the line keeps both, as a record never has)
    else:
        assert line == _ENCODER.encode(out)


def test_both_paths_mask_a_registered_key_alike() -> None:
    """A key registered by anything in the process (here a one-letter one, matched as a
    whole word) is masked in the message before escaping on both paths, so the direct
    line stays the record path's: before, "\\x1fK" kept its K on the record path only."""
    from smista._edge import secrets

    with mock.patch.object(secrets, "_current", secrets.Redactor(["K"])):
        direct, record = _both_paths("smista.test.masked", "\x1fK and K", {"event": "x"})
    assert direct == record
    assert '"message":"\\u001f*** and ***"' in direct[0]
