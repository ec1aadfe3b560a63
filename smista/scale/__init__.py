"""The scale edge: classify many prompts at once.

``batch`` streams JSONL over all cores (``smista batch``), ``frames`` works on
pandas / Arrow columns (Spark via ``classify_frames``), ``ray`` wraps Ray Data.
Imports the core and the config edge; never the server, CLI or hosts.

The frame API is re-exported here because ``from smista.scale import ...`` is
its documented public path; the code lives in :mod:`smista.scale.frames`.
pandas, pyarrow and ray load only when a function needs them.
"""

from __future__ import annotations

from smista.scale.frames import (
    OUTPUT_COLUMNS,
    SPARK_OUTPUT_DDL,
    TURN_COLUMNS,
    classify_columns,
    classify_frame,
    classify_frames,
    classify_table,
    resolve_classifier,
)

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
