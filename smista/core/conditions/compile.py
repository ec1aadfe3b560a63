"""Validated rules to matcher data: one loop over the registered kinds.

Pure. :func:`rule_spec` turns one validated rule (a classification rule, or
any model with the same condition keys, such as a tier rule) into the
engine's :class:`~smista.core.engine.RuleSpec`: the indexed kinds fill its
keyword and context fields, every other set kind adds its compiled
:class:`~smista.core.conditions.base.Condition`, in reason order.
:func:`plan_options` reads the file-level options and markers. Must never
perform I/O.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from smista.core.conditions.markers import markers_from
from smista.core.conditions.registry import KINDS
from smista.core.conditions.view import PlanOptions

if TYPE_CHECKING:
    from smista.core.engine import RuleSpec

__all__ = ["plan_options", "rule_spec"]


def rule_spec(label: str, rule: Any) -> RuleSpec:
    """The matcher's view of ``rule`` under ``label``."""
    from smista.core.engine import RuleSpec

    typo = bool(getattr(rule, "typo", True))
    conditions = tuple(
        kind.compile(value, typo=typo)
        for kind in KINDS
        if not kind.indexed and kind.is_set(value := getattr(rule, kind.key, kind.default))
    )
    return RuleSpec(
        label,
        rule.priority,
        tuple(rule.keywords),
        tuple(rule.requires_any_context),
        conditions,
        typo,
    )


def plan_options(config: Any) -> PlanOptions:
    """The file-level options of a validated ``[classification]`` (defaults when absent)."""
    options = getattr(config, "options", None)
    markers = getattr(config, "markers", None)
    model = getattr(config, "model", None)
    if options is None and markers is None and model is None:
        return PlanOptions()
    table = None if markers is None else markers.model_dump(exclude_none=True)
    return PlanOptions(
        ignore_code=False if options is None else options.ignore_code,
        hangul_han_typos=True if options is None else options.hangul_han_typos,
        markers=markers_from(table),
        model=None if model is None else model.weights,
        model_min=0.6 if model is None else model.min_probability,
        model_source=() if model is None else (model.path, model.digest),
        model_min_by_label=() if model is None else model.thresholds(),
    )
