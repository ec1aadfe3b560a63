"""Whole turns in data frames and Arrow tables: a ``messages`` column, two more output columns."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from smista.config.defaults import default_classifier
from smista.core.turns import TurnError
from smista.scale.frames import OUTPUT_COLUMNS, TURN_COLUMNS, classify_columns

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")

from smista.scale.frames import classify_frame, classify_table  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "turns"
CLASSIFIER = default_classifier()
SESSION = json.loads((DATA / "claude_code_session.json").read_text("utf-8"))
TITLE = json.loads((DATA / "claude_code_title.json").read_text("utf-8"))


def expected_row(text: str | None, messages: Any) -> dict[str, Any]:
    if messages is None:
        c = CLASSIFIER.classify(text or "")
        follow, house = False, None
    else:
        found = CLASSIFIER.classify_turn(messages)
        c, follow = found.classification, found.follow_up
        house = found.housekeeping.kind if found.housekeeping is not None else None
    return {
        "intent": c.intent.value,
        "source": c.source.value,
        "reason": c.reason,
        "matched_rule": c.matched_rule,
        "confidence": c.confidence.value if c.confidence is not None else None,
        "follow_up": follow,
        "housekeeping": house,
    }


ROWS = [
    ("fix the bug", None),
    (None, json.dumps(SESSION)),  # a JSON string cell
    (None, SESSION["messages"]),  # a list cell
    ("ignored when messages is given", json.dumps(TITLE)),
]


def test_frame_with_a_messages_column_gets_the_turn_columns() -> None:
    frame = pd.DataFrame({"text": [t for t, _ in ROWS], "messages": [m for _, m in ROWS]})
    out = classify_frame(frame)
    assert list(out.columns) == ["text", "messages", *OUTPUT_COLUMNS, *TURN_COLUMNS]
    got = out[[*OUTPUT_COLUMNS, *TURN_COLUMNS]].astype(object).to_dict("records")
    got = [{k: (None if v is pd.NA or v != v else v) for k, v in row.items()} for row in got]
    want = [expected_row(t, json.loads(m) if isinstance(m, str) else m) for t, m in ROWS]
    assert got == want
    assert got[1]["follow_up"] is True
    assert got[3]["housekeeping"] == "title"


def test_frames_without_messages_keep_exactly_the_five_columns() -> None:
    out = classify_frame(pd.DataFrame({"text": ["fix it", "plan it"]}))
    assert list(out.columns) == ["text", *OUTPUT_COLUMNS]


def test_arrow_table_with_messages_strings() -> None:
    table = pa.table({"messages": [json.dumps(SESSION), json.dumps(TITLE)]})
    out = classify_table(table)
    assert out.schema.names == ["messages", *OUTPUT_COLUMNS, *TURN_COLUMNS]
    assert out.column("follow_up").to_pylist() == [True, False]
    assert out.column("housekeeping").to_pylist() == [None, "title"]
    assert out.column("intent").to_pylist()[0] == "edit"


def test_malformed_turn_cells_name_the_row() -> None:
    with pytest.raises(TurnError, match=r"^row 1: messages\[0\]\.role: unknown role 'x'"):
        classify_columns(None, messages=[SESSION, [{"role": "x"}]])
    with pytest.raises(ValueError, match=r"^row 0: messages: not valid JSON"):
        classify_columns(None, messages=["[{"])
