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

import math
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from smista.classifier import Classifier
from smista.defaults import default_classifier
from smista.rules import ClassificationConfig

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

__all__ = [
    "OUTPUT_COLUMNS",
    "SPARK_OUTPUT_DDL",
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


def classify_columns(
    texts: Sequence[object],
    commands: Sequence[object] | None = None,
    contexts: Sequence[object] | None = None,
    rules: Rules = None,
) -> dict[str, list[Any]]:
    """Classify row-aligned columns given as sequences; the five output columns as lists.

    A null text raises ``ValueError`` naming the row; a command that is not an
    intent raises :class:`~smista.UnknownIntentError`.
    """
    classifier = resolve_classifier(rules)
    n = len(texts)
    if commands is not None and len(commands) != n:
        raise ValueError(f"commands has {len(commands)} rows, texts has {n}")
    if contexts is not None and len(contexts) != n:
        raise ValueError(f"contexts has {len(contexts)} rows, texts has {n}")
    out: dict[str, list[Any]] = {name: [] for name in OUTPUT_COLUMNS}
    intent, source, reason = out["intent"], out["source"], out["reason"]
    matched, confidence = out["matched_rule"], out["confidence"]
    for row in range(n):
        command = commands[row] if commands is not None else None
        result = classifier.classify(
            _text(texts[row], row),
            command=None if _is_null(command) else str(command),
            contexts=_contexts(contexts[row], row) if contexts is not None else (),
        )
        intent.append(result.intent.value)
        source.append(result.source.value)
        reason.append(result.reason)
        matched.append(result.matched_rule)
        confidence.append(result.confidence.value if result.confidence is not None else None)
    return out


def _text_column(names: Iterable[object], text: str, what: str) -> None:
    """A clear ``ValueError`` when the text column is missing (not a bare ``KeyError``)."""
    found = [str(name) for name in names]
    if text not in found:
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
) -> pd.DataFrame:
    """``frame`` with the five output columns added (a new frame; the input is unchanged).

    ``command`` and ``contexts`` name optional columns: when the frame has no
    such column (or the name is ``None``) every row is inferred without
    contexts. Existing columns with an output name are replaced. A frame
    without the ``text`` column raises ``ValueError`` naming the columns it has.
    """
    import pandas as pd

    _text_column(frame.columns, text, "frame")
    cols = classify_columns(
        frame[text].tolist(),
        frame[command].tolist() if command is not None and command in frame else None,
        frame[contexts].tolist() if contexts is not None and contexts in frame else None,
        rules,
    )
    out = frame.copy()
    for name in OUTPUT_COLUMNS:
        values = cols[name]
        dtype = "Int64" if name == "matched_rule" else "object"
        out[name] = pd.Series(pd.array(values, dtype=dtype), index=frame.index)
    return out


def classify_frames(
    frames: Iterable[pd.DataFrame],
    rules: Rules = None,
    *,
    text: str = "text",
    command: str | None = "command",
    contexts: str | None = "contexts",
) -> Iterator[pd.DataFrame]:
    """:func:`classify_frame` over a stream of frames (Spark ``mapInPandas``'s shape).

    The classifier is resolved once for the whole stream.
    """
    classifier = resolve_classifier(rules)
    for frame in frames:
        yield classify_frame(frame, classifier, text=text, command=command, contexts=contexts)


def classify_table(
    table: pa.Table | pa.RecordBatch,
    rules: Rules = None,
    *,
    text: str = "text",
    command: str | None = "command",
    contexts: str | None = "contexts",
) -> pa.Table:
    """An Arrow table: ``table``'s columns plus the five output columns."""
    import pyarrow as pa

    names = table.schema.names
    _text_column(names, text, "table")
    cols = classify_columns(
        table.column(text).to_pylist(),
        table.column(command).to_pylist() if command is not None and command in names else None,
        table.column(contexts).to_pylist() if contexts is not None and contexts in names else None,
        rules,
    )
    if isinstance(table, pa.RecordBatch):
        table = pa.Table.from_batches([table])
    for name in OUTPUT_COLUMNS:
        kind = pa.int64() if name == "matched_rule" else pa.string()
        array = pa.array(cols[name], type=kind)
        if name in names:
            table = table.set_column(names.index(name), name, array)
        else:
            table = table.append_column(name, array)
    return table
