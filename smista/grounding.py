"""Public path ``smista.grounding``; the code lives in :mod:`smista.core.grounding`.

Evaluate a grounded classifier's answers and the abstain gate. Users import this path in
their own code, so it stays; it only re-exports.
"""

from __future__ import annotations

from smista.core.grounding import (
    ABSTAIN_THRESHOLD,
    DEFAULT_CLASSIFIER_THRESHOLD,
    PLACEHOLDER_PREFIXES,
    PLACEHOLDER_VALUES,
    Report,
    evaluate,
    is_placeholder,
    parse_classifier_response,
    should_abstain,
    should_abstain_at,
    to_float,
)

__all__ = [
    "ABSTAIN_THRESHOLD",
    "DEFAULT_CLASSIFIER_THRESHOLD",
    "PLACEHOLDER_PREFIXES",
    "PLACEHOLDER_VALUES",
    "Report",
    "evaluate",
    "is_placeholder",
    "parse_classifier_response",
    "should_abstain",
    "should_abstain_at",
    "to_float",
]
