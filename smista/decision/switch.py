"""The model switch policy for hosts that keep an active chat model across turns.

Pure. Given the active model, the configured simple/standard/complex models
and a usable decision result, switch to the category's model only if the
selected-category probability is strictly greater than ``category_threshold``
(0.5) and either

- the new-task probability is at least ``new_task_threshold`` (0.6), or
- the category probability is strictly greater than ``escalate_threshold``
  (0.8) and the category's tier is higher than the active model's tier
  (escalate only; tiers are ordered simple < standard < complex).

If the active model is not one of the configured tier models, only the
new-task rule can switch it. No decision result means no switch. Thresholds
are clamped as :mod:`smista.core.abstain` does: ``<= 0`` means the threshold's
default, ``> 1`` means 1.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictFloat

from smista.core.abstain import clamp_threshold
from smista.core.decisionresult import COMPLEXITY_RANK, Complexity, DecisionResult
from smista.core.modelref import ModelRef

__all__ = [
    "DEFAULT_CATEGORY_THRESHOLD",
    "DEFAULT_ESCALATE_THRESHOLD",
    "DEFAULT_NEW_TASK_THRESHOLD",
    "SwitchConfig",
    "SwitchDecision",
    "decide_switch",
]

DEFAULT_CATEGORY_THRESHOLD = 0.5
DEFAULT_NEW_TASK_THRESHOLD = 0.6
DEFAULT_ESCALATE_THRESHOLD = 0.8

Threshold = Annotated[StrictFloat, Field(allow_inf_nan=False)]


def _clamp(value: float, default: float) -> float:
    return clamp_threshold(value if value > 0 else default)


class SwitchConfig(BaseModel):
    """``[decision.switch]``: the tier models and the switch thresholds."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    simple: ModelRef
    standard: ModelRef
    complex: ModelRef
    category_threshold: Threshold = DEFAULT_CATEGORY_THRESHOLD
    new_task_threshold: Threshold = DEFAULT_NEW_TASK_THRESHOLD
    escalate_threshold: Threshold = DEFAULT_ESCALATE_THRESHOLD

    def model_for(self, tier: Complexity) -> str:
        """The configured model of ``tier``."""
        return {
            Complexity.SIMPLE: self.simple,
            Complexity.STANDARD: self.standard,
            Complexity.COMPLEX: self.complex,
        }[tier]

    def tier_of(self, model: str | None) -> Complexity | None:
        """The highest tier configured with ``model``, or ``None`` if it is none of them."""
        tiers = [t for t in Complexity if self.model_for(t) == model]
        return max(tiers, key=COMPLEXITY_RANK.__getitem__) if tiers else None

    def effective_thresholds(self) -> tuple[float, float, float]:
        """``(category, new_task, escalate)`` after clamping."""
        return (
            _clamp(self.category_threshold, DEFAULT_CATEGORY_THRESHOLD),
            _clamp(self.new_task_threshold, DEFAULT_NEW_TASK_THRESHOLD),
            _clamp(self.escalate_threshold, DEFAULT_ESCALATE_THRESHOLD),
        )


class SwitchDecision(BaseModel):
    """Whether to change the active chat model, to what, and why."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    switched: bool
    model: str | None
    """The model to use for this turn: the target if switched, else the active one."""
    active_model: str | None
    active_tier: Complexity | None = None
    target_model: str | None = None
    target_tier: Complexity | None = None
    rule: Literal["new_task", "escalate"] | None = None
    reason: str


def _n(value: float) -> str:
    return repr(float(value))


def decide_switch(
    active_model: str | None,
    config: SwitchConfig,
    decision: DecisionResult | None,
) -> SwitchDecision:
    """Apply the switch policy to one turn (``decision``: a usable result or ``None``)."""
    active_tier = config.tier_of(active_model)
    base = {"active_model": active_model, "active_tier": active_tier}
    if decision is None:
        return SwitchDecision(
            switched=False,
            model=active_model,
            reason="no usable decision result; keeping the active model",
            **base,
        )
    category_t, new_task_t, escalate_t = config.effective_thresholds()
    tier = decision.category
    target = config.model_for(tier)
    base |= {"target_model": target, "target_tier": tier}
    p = decision.probability
    if not p > category_t:
        return SwitchDecision(
            switched=False,
            model=active_model,
            reason=f"category probability {_n(p)} is not above {_n(category_t)}; "
            "keeping the active model",
            **base,
        )
    rule: Literal["new_task", "escalate"] | None = None
    if decision.new_task >= new_task_t:
        rule = "new_task"
        why = f"new task (p={_n(decision.new_task)} >= {_n(new_task_t)})"
    elif (
        active_tier is not None
        and p > escalate_t
        and COMPLEXITY_RANK[tier] > COMPLEXITY_RANK[active_tier]
    ):
        rule = "escalate"
        why = f"confident escalation from {active_tier} to {tier} (p={_n(p)} > {_n(escalate_t)})"
    if rule is None:
        not_new = f"new task p={_n(decision.new_task)} is below {_n(new_task_t)}"
        if active_tier is None:
            detail = "the active model is not a configured tier model"
        elif not p > escalate_t:
            detail = f"category probability {_n(p)} is not above {_n(escalate_t)}"
        else:
            detail = f"{tier} is not above the active tier {active_tier} (escalate only)"
        return SwitchDecision(
            switched=False,
            model=active_model,
            reason=f"{not_new} and {detail}; keeping the active model",
            **base,
        )
    if target == active_model:
        return SwitchDecision(
            switched=False,
            model=active_model,
            rule=rule,
            reason=f"{why}; already on the {tier} model '{target}'",
            **base,
        )
    return SwitchDecision(
        switched=True,
        model=target,
        rule=rule,
        reason=f"{why}; switching to the {tier} model '{target}'",
        **base,
    )
