"""The model switch policy (seed 000): every threshold boundary, escalate-only, foreign models."""

from __future__ import annotations

import pytest

from smista.core.decisionresult import Complexity, DecisionResult
from smista.decision.switch import SwitchConfig, decide_switch

TIERS = SwitchConfig(simple="m/simple", standard="m/standard", complex="m/complex")


def result(category: str, p: float, new_task: float) -> DecisionResult:
    return DecisionResult(
        category=Complexity(category),
        probability=p,
        confidence=0.9,
        consequential=0.1,
        new_task=new_task,
        model="jev",
    )


# active model, category, probability, new_task -> switched, model, rule
TABLE: list[tuple[str | None, str, float, float, bool, str | None, str | None]] = [
    # category probability must be strictly above 0.5
    ("m/simple", "complex", 0.5, 1.0, False, "m/simple", None),
    ("m/simple", "complex", 0.5000001, 1.0, True, "m/complex", "new_task"),
    # new-task rule: at least 0.6 (inclusive)
    ("m/complex", "simple", 0.7, 0.6, True, "m/simple", "new_task"),
    ("m/complex", "simple", 0.7, 0.5999999, False, "m/complex", None),
    # the new-task rule may also de-escalate
    ("m/standard", "simple", 0.51, 0.9, True, "m/simple", "new_task"),
    # confident escalation: probability strictly above 0.8, target tier higher
    ("m/simple", "standard", 0.8, 0.0, False, "m/simple", None),
    ("m/simple", "standard", 0.8000001, 0.0, True, "m/standard", "escalate"),
    ("m/standard", "complex", 0.95, 0.1, True, "m/complex", "escalate"),
    ("m/simple", "complex", 0.81, 0.59, True, "m/complex", "escalate"),
    # escalate only: never down, never sideways
    ("m/complex", "simple", 0.99, 0.1, False, "m/complex", None),
    ("m/standard", "simple", 0.99, 0.1, False, "m/standard", None),
    ("m/standard", "standard", 0.99, 0.1, False, "m/standard", None),
    # a model outside the router's tiers: only the new-task rule can switch
    ("other/model", "complex", 0.99, 0.59, False, "other/model", None),
    ("other/model", "complex", 0.99, 0.6, True, "m/complex", "new_task"),
    (None, "complex", 0.99, 0.1, False, None, None),
    (None, "simple", 0.6, 1.0, True, "m/simple", "new_task"),
    # the rule fires but the target is already active
    ("m/complex", "complex", 0.9, 0.9, False, "m/complex", "new_task"),
]


@pytest.mark.parametrize(
    ("active", "category", "p", "new_task", "switched", "model", "rule"), TABLE
)
def test_switch_table(
    active: str | None,
    category: str,
    p: float,
    new_task: float,
    switched: bool,
    model: str | None,
    rule: str | None,
) -> None:
    """Each boundary exactly: > 0.5, >= 0.6, > 0.8; escalate only; foreign models."""
    got = decide_switch(active, TIERS, result(category, p, new_task))
    assert (got.switched, got.model, got.rule) == (switched, model, rule)
    assert got.active_model == active
    assert got.target_model == TIERS.model_for(Complexity(category))


def test_no_decision_keeps_the_active_model() -> None:
    """Without a usable result nothing changes."""
    got = decide_switch("m/simple", TIERS, None)
    assert (got.switched, got.model, got.target_model) == (False, "m/simple", None)
    assert got.reason == "no usable decision result; keeping the active model"


def test_reasons_name_the_deciding_numbers() -> None:
    """Reasons quote probabilities and thresholds without rounding them away."""
    assert decide_switch("m/simple", TIERS, result("complex", 0.5, 1)).reason == (
        "category probability 0.5 is not above 0.5; keeping the active model"
    )
    assert decide_switch("m/complex", TIERS, result("simple", 0.7, 0.6)).reason == (
        "new task (p=0.6 >= 0.6); switching to the simple model 'm/simple'"
    )
    assert decide_switch("m/simple", TIERS, result("standard", 0.85, 0.1)).reason == (
        "confident escalation from simple to standard (p=0.85 > 0.8); "
        "switching to the standard model 'm/standard'"
    )
    assert decide_switch("m/standard", TIERS, result("simple", 0.99, 0.1)).reason == (
        "new task p=0.1 is below 0.6 and simple is not above the active tier standard "
        "(escalate only); keeping the active model"
    )
    assert decide_switch("x/y", TIERS, result("complex", 0.99, 0.1)).reason == (
        "new task p=0.1 is below 0.6 and the active model is not a configured tier model; "
        "keeping the active model"
    )
    assert decide_switch("m/simple", TIERS, result("complex", 0.7, 0.1)).reason == (
        "new task p=0.1 is below 0.6 and category probability 0.7 is not above 0.8; "
        "keeping the active model"
    )


def test_custom_thresholds() -> None:
    """Configured thresholds replace 0.5 / 0.6 / 0.8."""
    tiers = TIERS.model_copy(
        update={"category_threshold": 0.7, "new_task_threshold": 0.9, "escalate_threshold": 0.75}
    )
    assert not decide_switch("m/simple", tiers, result("complex", 0.7, 1.0)).switched
    assert decide_switch("m/simple", tiers, result("complex", 0.76, 0.0)).rule == "escalate"
    assert not decide_switch("m/complex", tiers, result("simple", 0.8, 0.89)).switched


@pytest.mark.parametrize(
    ("configured", "effective"),
    [
        ((0.0, 0.0, 0.0), (0.5, 0.6, 0.8)),
        ((-1.0, -0.5, -3.0), (0.5, 0.6, 0.8)),
        ((1.5, 2.0, 9.0), (1.0, 1.0, 1.0)),
        ((1.0, 1.0, 1.0), (1.0, 1.0, 1.0)),
        ((0.3, 0.4, 0.9), (0.3, 0.4, 0.9)),
    ],
)
def test_thresholds_are_clamped_like_the_confidence_package(
    configured: tuple[float, float, float], effective: tuple[float, float, float]
) -> None:
    """<= 0 means the threshold's default; > 1 means 1."""
    c, n, e = configured
    tiers = TIERS.model_copy(
        update={"category_threshold": c, "new_task_threshold": n, "escalate_threshold": e}
    )
    assert tiers.effective_thresholds() == effective


def test_clamped_to_one_means_no_switch_is_possible_on_probability() -> None:
    """category_threshold > 1 clamps to 1: no probability is strictly above it."""
    tiers = TIERS.model_copy(update={"category_threshold": 2.0})
    assert not decide_switch("m/simple", tiers, result("complex", 1.0, 1.0)).switched


def test_a_model_shared_by_two_tiers_counts_as_the_higher() -> None:
    """Escalation compares against the highest tier the active model serves."""
    tiers = SwitchConfig(simple="m/a", standard="m/a", complex="m/c")
    assert tiers.tier_of("m/a") is Complexity.STANDARD
    assert not decide_switch("m/a", tiers, result("standard", 0.99, 0.0)).switched
    assert decide_switch("m/a", tiers, result("complex", 0.99, 0.0)).rule == "escalate"
