"""Classifying pandas DataFrames and Arrow tables: every row as the in-process classifier."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from smista.config.defaults import default_classifier
from smista.core.classifier import Classifier
from smista.core.errors import UnknownIntentError
from smista.core.intent import TaskIntent
from smista.scale.frames import (
    OUTPUT_COLUMNS,
    SPARK_OUTPUT_DDL,
    classify_columns,
    classify_frame,
    classify_frames,
    classify_table,
)
from tests.scale_data import CUSTOM, PROMPTS, expected_columns

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")

COMMANDS: list[str | None] = [None, "edit", "Plan"]
CONTEXTS: list[Any] = [None, [], ["git_diff"], "git_diff", ["active_file", "git_branch"]]

ROWS = list(itertools.product(PROMPTS, COMMANDS, CONTEXTS))


def expected_rows(rows: list[tuple[str, Any, Any]], classifier: Classifier) -> list[dict[str, Any]]:
    return [expected_columns(classifier, *row) for row in rows]


def frame_rows(frame: Any) -> list[dict[str, Any]]:
    records = frame[list(OUTPUT_COLUMNS)].astype(object).to_dict("records")
    return [{k: (None if pd.isna(v) else v) for k, v in r.items()} for r in records]


@pytest.mark.parametrize("rules", [None, CUSTOM], ids=["shipped", "custom"])
def test_frame_rows_equal_the_classifier(rules) -> None:
    """classify_frame adds the five columns with each row's exact classification."""
    df = pd.DataFrame(ROWS, columns=["text", "command", "contexts"])
    df["id"] = range(len(df))
    out = classify_frame(df, rules)
    classifier = default_classifier() if rules is None else Classifier(rules)
    assert frame_rows(out) == expected_rows(ROWS, classifier)
    assert list(out.columns) == ["text", "command", "contexts", "id", *OUTPUT_COLUMNS]
    assert str(out["matched_rule"].dtype) == "Int64"
    assert list(df.columns) == ["text", "command", "contexts", "id"]  # input untouched


def test_frame_keeps_its_index() -> None:
    """Output rows keep the input's index labels."""
    df = pd.DataFrame({"text": ["fix it", "hello"]}, index=[10, 3])
    out = classify_frame(df)
    assert list(out.index) == [10, 3]
    assert list(out["intent"]) == ["edit", "chat"]


def test_optional_columns_may_be_absent_or_renamed() -> None:
    """Without command/contexts columns rows are inferred; names are configurable."""
    df = pd.DataFrame({"prompt": ["review this"], "ctx": [["git_diff"]]})
    out = classify_frame(df, CUSTOM, text="prompt", contexts="ctx")
    assert out.loc[0, "intent"] == "review"
    assert classify_frame(df, CUSTOM, text="prompt").loc[0, "intent"] == "plan"


def test_nulls_in_pandas_are_absent_values() -> None:
    """NaN/None/pd.NA commands mean "infer"; null contexts mean none."""
    df = pd.DataFrame(
        {
            "text": ["fix it", "fix it", "fix it"],
            "command": pd.array([None, pd.NA, "review"], dtype="string"),
            "contexts": [None, float("nan"), ["git_diff"]],
        }
    )
    assert list(classify_frame(df)["intent"]) == ["edit", "edit", "review"]


def test_null_text_and_bad_commands_are_errors() -> None:
    """A null text names its row; an unknown command is an UnknownIntentError."""
    with pytest.raises(ValueError, match="row 1: text is null"):
        classify_frame(pd.DataFrame({"text": ["a", None]}))
    with pytest.raises(UnknownIntentError):
        classify_frame(pd.DataFrame({"text": ["a"], "command": ["deploy"]}))
    with pytest.raises(TypeError, match="row 0: contexts"):
        classify_columns(["a"], None, [[1, 2]])


@pytest.mark.parametrize("as_batch", [False, True], ids=["table", "record_batch"])
def test_arrow_rows_equal_the_classifier(as_batch: bool) -> None:
    """classify_table appends typed Arrow columns with each row's classification."""
    table = pa.table(
        {
            "text": [r[0] for r in ROWS],
            "command": [r[1] for r in ROWS],
            "contexts": [[r[2]] if isinstance(r[2], str) else r[2] for r in ROWS],
        }
    )
    data = table.to_batches()[0] if as_batch else table
    out = classify_table(data, CUSTOM)
    assert out.schema.field("matched_rule").type == pa.int64()
    assert out.schema.field("intent").type == pa.string()
    got = out.select(list(OUTPUT_COLUMNS)).to_pylist()
    rows = [(t, c, [x] if isinstance(x, str) else x) for t, c, x in ROWS]
    assert got == expected_rows(rows, Classifier(CUSTOM))


def test_frames_stream_for_spark_map_in_pandas() -> None:
    """classify_frames maps a stream of frames (Spark's mapInPandas shape)."""
    frames = [pd.DataFrame({"text": ["fix it"]}), pd.DataFrame({"text": ["hello"] * 2})]
    out = list(classify_frames(iter(frames)))
    assert [list(f["intent"]) for f in out] == [["edit"], ["chat", "chat"]]
    assert SPARK_OUTPUT_DDL.split(", ")[0] == "intent string"
    assert [c.split()[0] for c in SPARK_OUTPUT_DDL.split(", ")] == list(OUTPUT_COLUMNS)


rows_strategy = st.lists(
    st.tuples(
        st.text(max_size=40),
        st.one_of(st.none(), st.sampled_from([i.value for i in TaskIntent])),
        st.one_of(st.none(), st.lists(st.sampled_from(["git_diff", "active_file", "x"]))),
    ),
    max_size=20,
)


@given(rows_strategy)
def test_any_rows_equal_the_classifier(rows) -> None:
    """For arbitrary rows, the frame's columns are the classifier's answers."""
    df = pd.DataFrame(rows, columns=["text", "command", "contexts"])
    if not rows:
        df = df.astype(object)
    out = classify_frame(df, CUSTOM)
    assert frame_rows(out) == expected_rows(rows, Classifier(CUSTOM))
