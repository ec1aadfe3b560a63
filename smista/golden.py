"""Public path ``smista.golden``; the code lives in :mod:`smista.authoring.golden`.

Golden case files: load, parse and run labelled cases. Users import this path in their
own code, so it stays; it only re-exports.
"""

from __future__ import annotations

from smista.authoring.golden import (
    CaseOutcome,
    GoldenCase,
    LabelledCase,
    cases_from_data,
    load_cases,
    parse_cases,
    run_case,
    run_cases,
)

__all__ = [
    "CaseOutcome",
    "GoldenCase",
    "LabelledCase",
    "cases_from_data",
    "load_cases",
    "parse_cases",
    "run_case",
    "run_cases",
]
