"""Classifying data frames: pandas DataFrames and Arrow tables, for bulk and distributed jobs.

I/O edge for tabular data (imports pandas / pyarrow lazily, inside the
functions that need them; both come with the ``ray`` extra). The input has a
text column and, optionally, a command column (an explicit intent per row,
null for "infer") and a contexts column (per row: a list of context kinds, one
kind as a string, or null). The output adds five columns, named as the
classification's wire keys: ``intent``, ``source``, ``reason``,
``matched_rule`` (nullable integer) and ``confidence`` (null for explicit
commands). Every row's values are exactly those of
:meth:`smista.Classifier.classify` for that row. :func:`classify_frames` is
the shape Spark's ``mapInPandas`` wants.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from smista.config.defaults import default_classifier
from smista.core.classifier import Classifier
from smista.core.rules import ClassificationConfig

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

__all__ = [
    "OUTPUT_COLUMNS",
    "SPARK_OUTPUT_DDL",
    "TURN_COLUMNS",
    "classify_columns",
    "classify_frame",
    "classify_frames",
    "classify_table",
    "resolve_classifier",
]

OUTPUT_COLUMNS: tuple[str, ...] = ("intent", "source", "reason", "matched_rule", "confidence")
"""The columns added to every frame, in this order."""

SPARK_OUTPUT_DDL = (
    "intent string, source string, reason string, matched_rule long, confidence string"
)
"""The output columns as a Spark DDL fragment (append it to the input's schema)."""

TURN_COLUMNS: tuple[str, ...] = ("follow_up", "housekeeping")
"""The columns added after :data:`OUTPUT_COLUMNS` when a messages column is read."""

Rules = Classifier | ClassificationConfig | None


def resolve_classifier(rules: Rules) -> Classifier:
    """A :class:`Classifier` from a classifier, a config, or ``None`` (the shipped rules)."""
    if rules is None:
        return default_classifier()
    if isinstance(rules, Classifier):
        return rules
    return Classifier(rules)


def _is_null(value: object) -> bool:
    """None, NaN (pandas' missing value for objects) or ``pd.NA``."""
    if value is None:
        return True
    if isinstance(value, float):
        return math.isnan(value)
    return type(value).__name__ == "NAType"


def _text(value: object, row: int) -> str:
    if isinstance(value, str):
        return value
    if _is_null(value):
        raise ValueError(f"row {row}: text is null")
    raise TypeError(f"row {row}: text must be a string, got {type(value).__name__}")


def _contexts(value: object, row: int) -> tuple[str, ...]:
    if _is_null(value):
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, Iterable):
        kinds = tuple(value)
        if all(isinstance(k, str) for k in kinds):
            return kinds
    raise TypeError(
        f"row {row}: contexts must be a list of strings, a string or null, "
        f"got {type(value).__name__}"
    )


def _turn(value: object, row: int) -> object:
    """A messages cell: a JSON string is decoded; lists and dicts are used as they are."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except RecursionError:
            raise ValueError(f"row {row}: messages: JSON nested too deeply") from None
        except ValueError as exc:
            raise ValueError(f"row {row}: messages: not valid JSON ({exc})") from None
    if hasattr(value, "tolist"):  # a numpy array from a pandas cell
        return value.tolist()
    return value


def classify_columns(
    texts: Sequence[object] | None,
    commands: Sequence[object] | None = None,
    contexts: Sequence[object] | None = None,
    rules: Rules = None,
    messages: Sequence[object] | None = None,
) -> dict[str, list[Any]]:
    """Classify row-aligned columns given as sequences; the output columns as lists.

    A null text raises ``ValueError`` naming the row; a command that is not an
    intent raises :class:`~smista.UnknownIntentError`. With ``messages`` (a row
    whose messages is null uses its text) the :data:`TURN_COLUMNS` are added; a
    malformed turn raises :class:`~smista.TurnError` naming the row.
    """
    from smista.core.turns import TurnError

    classifier = resolve_classifier(rules)
    if texts is None and messages is None:
        raise ValueError("give texts, messages or both")
    n = len(texts) if texts is not None else len(messages or ())
    if texts is not None and messages is not None and len(messages) != n:
        raise ValueError(f"messages has {len(messages)} rows, texts has {n}")
    if commands is not None and len(commands) != n:
        raise ValueError(f"commands has {len(commands)} rows, texts has {n}")
    if contexts is not None and len(contexts) != n:
        raise ValueError(f"contexts has {len(contexts)} rows, texts has {n}")
    names = OUTPUT_COLUMNS + (TURN_COLUMNS if messages is not None else ())
    out: dict[str, list[Any]] = {name: [] for name in names}
    intent, source, reason = out["intent"], out["source"], out["reason"]
    matched, confidence = out["matched_rule"], out["confidence"]
    for row in range(n):
        command = commands[row] if commands is not None else None
        explicit = None if _is_null(command) else str(command)
        kinds = _contexts(contexts[row], row) if contexts is not None else ()
        cell = messages[row] if messages is not None else None
        if messages is not None and not _is_null(cell):
            try:
                found = classifier.classify_turn(_turn(cell, row), command=explicit, contexts=kinds)
            except TurnError as exc:
                raise TurnError((), f"row {row}: {exc.under('messages')}") from None
            result = found.classification
            out["follow_up"].append(found.follow_up)
            out["housekeeping"].append(
                found.housekeeping.kind if found.housekeeping is not None else None
            )
        else:
            text = texts[row] if texts is not None else None
            result = classifier.classify(_text(text, row), command=explicit, contexts=kinds)
            if messages is not None:
                out["follow_up"].append(False)
                out["housekeeping"].append(None)
        intent.append(result.intent.value)
        source.append(result.source.value)
        reason.append(result.reason)
        matched.append(result.matched_rule)
        confidence.append(result.confidence.value if result.confidence is not None else None)
    return out


def _text_column(
    names: Iterable[object], text: str, what: str, messages: str | None = None
) -> None:
    """A clear ``ValueError`` when neither the text nor the messages column is there
    (not a bare ``KeyError``)."""
    found = [str(name) for name in names]
    if text not in found and (messages is None or messages not in found):
        shown = ", ".join(found[:20]) + (", ..." if len(found) > 20 else "")
        raise ValueError(
            f"the {what} has no {text!r} column (columns: {shown or 'none'}); "
            "pass text='COLUMN' to name the column that holds the prompts"
        )


def classify_frame(
    frame: pd.DataFrame,
    rules: Rules = None,
    *,
    text: str = "text",
    command: str | None = "command",
    contexts: str | None = "contexts",
    messages: str | None = "messages",
) -> pd.DataFrame:
    """``frame`` with the output columns added (a new frame; the input is unchanged).

    ``command``, ``contexts`` and ``messages`` name optional columns: when the
    frame has no such column (or the name is ``None``) every row is inferred
    from its text without contexts. Existing columns with an output name are
    replaced. A frame with neither the ``text`` nor the ``messages`` column
    raises ``ValueError`` naming the columns it has.
    """
    import pandas as pd

    _text_column(frame.columns, text, "frame", messages)
    cols = classify_columns(
        frame[text].tolist() if text in frame else None,
        frame[command].tolist() if command is not None and command in frame else None,
        frame[contexts].tolist() if contexts is not None and contexts in frame else None,
        rules,
        frame[messages].tolist() if messages is not None and messages in frame else None,
    )
    out = frame.copy()
    for name, values in cols.items():
        dtype = {"matched_rule": "Int64", "follow_up": "boolean"}.get(name, "object")
        out[name] = pd.Series(pd.array(values, dtype=dtype), index=frame.index)
    return out


def classify_frames(
    frames: Iterable[pd.DataFrame],
    rules: Rules = None,
    *,
    text: str = "text",
    command: str | None = "command",
    contexts: str | None = "contexts",
    messages: str | None = "messages",
) -> Iterator[pd.DataFrame]:
    """:func:`classify_frame` over a stream of frames (Spark ``mapInPandas``'s shape).

    The classifier is resolved once for the whole stream.
    """
    classifier = resolve_classifier(rules)
    for frame in frames:
        yield classify_frame(
            frame, classifier, text=text, command=command, contexts=contexts, messages=messages
        )


def classify_table(
    table: pa.Table | pa.RecordBatch,
    rules: Rules = None,
    *,
    text: str = "text",
    command: str | None = "command",
    contexts: str | None = "contexts",
    messages: str | None = "messages",
) -> pa.Table:
    """An Arrow table: ``table``'s columns plus the output columns."""
    import pyarrow as pa

    names = table.schema.names

    def column(name: str | None) -> list[Any] | None:
        return table.column(name).to_pylist() if name is not None and name in names else None

    _text_column(names, text, "table", messages)
    cols = classify_columns(
        column(text), column(command), column(contexts), rules, column(messages)
    )
    if isinstance(table, pa.RecordBatch):
        table = pa.Table.from_batches([table])
    for name, values in cols.items():
        kind = {"matched_rule": pa.int64(), "follow_up": pa.bool_()}.get(name, pa.string())
        array = pa.array(values, type=kind)
        if name in names:
            table = table.set_column(names.index(name), name, array)
        else:
            table = table.append_column(name, array)
    return table
