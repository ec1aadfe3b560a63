"""The closed vocabulary of tier-routing outcomes.

Leaf module, standard library only. Every decision the tier router makes
carries exactly one outcome; ``docs/tiers.md`` states when each is produced.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["OUTCOME_LABELS", "TierOutcome"]


class TierOutcome(StrEnum):
    """Why a tier decision came out the way it did (wire values are lowercase)."""

    ROUTED = "routed"
    """The classifier named a configured tier; its model is used."""
    ROUTER_DISABLED = "router_disabled"
    """Tier routing is off (``enabled = false``) or its config is invalid."""
    EXPLICIT_MODEL_PRESERVED = "explicit_model_preserved"
    """The caller chose a model the policy protects; nothing is classified."""
    CLASSIFIER_FAILED = "classifier_failed"
    """The classifier raised or its endpoint failed; the default tier is used."""
    CLASSIFIER_TIMEOUT = "classifier_timeout"
    """The classifier did not answer in time (or was cancelled); default tier."""
    INVALID_CLASSIFIER_OUTPUT = "invalid_classifier_output"
    """The classifier answered, but not with a tier; default tier."""
    UNKNOWN_TIER = "unknown_tier"
    """The classifier named a tier that is not configured; default tier."""
    DEFAULT_TIER_USED = "default_tier_used"
    """The classifier deliberately chose nothing (no rule matched); default tier."""
    NO_MAPPING = "no_mapping"
    """The selected tier has no model; the task is left as it is."""
    TASK_LEFT_UNCHANGED = "task_left_unchanged"
    """Nothing to classify, the host rejected the mapped model, or an internal error."""


OUTCOME_LABELS: dict[TierOutcome, str] = {
    TierOutcome.ROUTED: "routed",
    TierOutcome.ROUTER_DISABLED: "disabled",
    TierOutcome.EXPLICIT_MODEL_PRESERVED: "explicit",
    TierOutcome.CLASSIFIER_FAILED: "cls-fail",
    TierOutcome.CLASSIFIER_TIMEOUT: "timeout",
    TierOutcome.INVALID_CLASSIFIER_OUTPUT: "bad-out",
    TierOutcome.UNKNOWN_TIER: "bad-tier",
    TierOutcome.DEFAULT_TIER_USED: "default",
    TierOutcome.NO_MAPPING: "no-map",
    TierOutcome.TASK_LEFT_UNCHANGED: "unchanged",
}
"""Short labels for history tables (the seed's ``OUTCOME_LABELS``)."""
