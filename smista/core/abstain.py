"""The abstention gate shared by grounding checks and the decision stage.

Pure. A score in [0, 1] below the threshold (strictly) means "do not act on
this signal". Thresholds are clamped as the ``confidence`` seed package does:
a threshold <= 0 means the default (0.5), one above 1 means 1, and NaN never
abstains.
"""

from __future__ import annotations

import math

__all__ = [
    "ABSTAIN_THRESHOLD",
    "DEFAULT_CLASSIFIER_THRESHOLD",
    "clamp_score",
    "clamp_threshold",
    "should_abstain",
    "should_abstain_at",
]

ABSTAIN_THRESHOLD = 0.5
"""Grounding scores strictly below this abstain."""

DEFAULT_CLASSIFIER_THRESHOLD = 0.5
"""Threshold used when a configured one is zero or negative."""


def clamp_score(value: float) -> float:
    """Clamp ``value`` into [0, 1]."""
    if value < 0:
        return 0.0
    if value > 1:
        return 1.0
    return float(value)


def clamp_threshold(threshold: float) -> float:
    """<= 0 -> the default 0.5; > 1 -> 1; otherwise unchanged (NaN stays NaN)."""
    if threshold <= 0:
        return DEFAULT_CLASSIFIER_THRESHOLD
    if threshold > 1:
        return 1.0
    return float(threshold)


def should_abstain(score: float) -> bool:
    """Whether a grounding score is too low to act on (strictly below 0.5)."""
    return score < ABSTAIN_THRESHOLD


def should_abstain_at(score: float, threshold: float) -> bool:
    """Whether ``score`` falls strictly below the clamped ``threshold``.

    A NaN threshold never abstains (every comparison with NaN is false).
    """
    limit = clamp_threshold(threshold)
    if math.isnan(limit):
        return False
    return score < limit
