"""Public path ``smista.pytest_plugin``; the code lives in :mod:`smista.authoring.pytest_plugin`.

The pytest plugin for golden cases (``pytest_plugins = ["smista.pytest_plugin"]``).
Users import this path in their own code, so it stays; it only re-exports.
"""

from __future__ import annotations

from smista.authoring.pytest_plugin import (
    AssertGolden,
    GoldenCaseRun,
    assert_golden,
    golden_cases,
    golden_params,
)

__all__ = [
    "AssertGolden",
    "GoldenCaseRun",
    "assert_golden",
    "golden_cases",
    "golden_params",
]
