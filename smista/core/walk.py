"""The compiled walk: a rule set's plan as the C extension's ``Walker``.

Pure; never performs I/O. :meth:`smista.core.engine.CompiledRules._match_view` holds the
statement of the verifying path's walk (candidates in rank order, the keyword-less rules
behind their gates, each candidate's contexts and conditions checked, the first that holds
wins). With the extension built, :func:`walker_of` compiles the same plan into a
``_speedups.Walker``, which runs the same loop in C: each condition and gate whose kind
gives a native op (:meth:`ConditionKind.native`, :meth:`ConditionKind.native_gate`) from
the class that also defines its ``match`` (``present``) is answered there, and every other
one calls the kind's ``match`` (``present``) on a :class:`PromptView` made on first need.
The prompt's facts (command, mention, question, the text model's reading, first content
words, lowered text) are read once, through the same compiled tables and Python functions
the view reads. tests/test_walker.py and the differential tests hold the two loops equal.

Owns the walker's arguments and nothing else: the kinds' modules own what each op means.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

import smista.core._implementation  # noqa: F401  SMISTA_IMPLEMENTATION, read before the try below
from smista.core.conditions.base import Condition, ConditionKind, Evidence
from smista.core.conditions.markers import content_tokens, is_question, marker_table, slash_command
from smista.core.conditions.mentions import dollar_mention
from smista.core.conditions.registry import BY_KEY
from smista.core.conditions.signals import SignalHits, TokenSignals
from smista.core.conditions.view import PlanOptions, PromptView
from smista.core.textmodel import Prediction
from smista.core.tokenizer import tokenize

try:  # the optional compiled hot path (see hatch_build.py); the Python loop without it
    from smista.core._speedups import GATE_OPS, WALK_OPS, Walker
except ImportError:  # pragma: no cover - exercised on machines without a C compiler
    Walker = None  # type: ignore[assignment,misc]
    WALK_OPS = GATE_OPS = {}

__all__ = ["GATE_OPS", "WALK_OPS", "Walker", "native_gate_of", "native_of", "walker_of"]

_new_object = object.__new__


def _defined_by(cls: type, name: str) -> type | None:
    """The class of ``cls``'s method resolution order that defines ``name``."""
    return next((klass for klass in cls.__mro__ if name in vars(klass)), None)


def _states(kind: ConditionKind, native: str, method: str) -> bool:
    """Whether ``kind``'s ``native`` op states its ``method``: the class that defines the
    method defines the op too, and the kind object itself does not replace the method (a
    subclass overriding ``match`` alone, or a test wrapping it, is called in Python)."""
    cls = type(kind)
    own = getattr(kind, "__dict__", {})
    return method not in own and _defined_by(cls, native) is _defined_by(cls, method)


def native_of(kind: ConditionKind, condition: Condition) -> tuple[Any, ...] | None:
    """``kind.native(condition)`` where it states ``kind.match``, else ``None``."""
    return kind.native(condition) if _states(kind, "native", "match") else None


def native_gate_of(kind: ConditionKind, plan: Any) -> tuple[Any, ...] | None:
    """``kind.native_gate(plan)`` where it states ``kind.present``, else ``None``."""
    return kind.native_gate(plan) if _states(kind, "native_gate", "present") else None


def _view(
    options: PlanOptions,
    signals: TokenSignals,
    text: str,
    contexts: Collection[str],
    visible: str,
    signal_hits: SignalHits,
    corrected: set[str] | None,
    ids: bytes | None,
) -> PromptView:
    """The view the engine's loop makes (``PromptView`` without its ``__init__``'s
    keyword matching), for the kinds the walker calls in Python."""
    view: PromptView = _new_object(PromptView)
    view._fill(text, contexts, options, visible, None, signals, None, signal_hits, corrected, ids)
    return view


def _op(kind: ConditionKind, condition: Condition) -> tuple[Any, ...]:
    native = native_of(kind, condition)
    if native is None:
        return (WALK_OPS["python"], kind.match, condition)
    return (WALK_OPS[native[0]], *native[1:])


def _gate_op(kind: ConditionKind, plan: Any) -> tuple[Any, ...]:
    native = native_gate_of(kind, plan)
    if native is None:
        return (GATE_OPS["python"], kind.present, plan)
    return (GATE_OPS[native[0]], *native[1:])


def walker_of(
    *,
    plan: Sequence[tuple[int, int, str | None]],
    ungated: Sequence[int],
    by_gate: Mapping[str, Mapping[str, tuple[int, ...]]],
    gate_plans: Mapping[str, object],
    labels: Sequence[str],
    keywords: Sequence[tuple[str, ...]],
    contexts: Sequence[tuple[str, ...]],
    conditions: Sequence[tuple[Condition, ...]],
    options: PlanOptions,
    signals: TokenSignals,
    default: tuple[Any, ...],
    match_type: type,
    scan: tuple[Any, ...] | None = None,
) -> Any:
    """The ``Walker`` of a rule set's plan (the engine's ``_plan``, ``_ungated``,
    ``_by_gate``, ``_gate_plans`` and per-rule columns), or ``None`` without the
    extension. ``default`` is the engine's ``RuleMatch(None, default_label)``; ``scan``,
    for ``Walker.match``, the engine's verifying scan and what reading a text with it needs
    (see the ``Walker`` docstring), or ``None``."""
    if Walker is None:
        return None
    rules = tuple(
        (
            labels[index],
            keywords[index],
            contexts[index],
            tuple(_op(BY_KEY[c.kind], c) for c in conditions[index]),
        )
        for index in range(len(labels))
    )
    gates = sorted(
        (
            plan[min(at for ats in by_key.values() for at in ats)][0],
            _gate_op(BY_KEY[kind], gate_plans[kind]),
            dict(by_key),
        )
        for kind, by_key in by_gate.items()
    )
    markers = options.markers
    model = options.model
    model_args = None
    if model is not None:
        bars = {label: float(options.min_for(label)) for label in model.labels}
        model_args = (
            model.feature_table(),
            model.bias,
            model.scale,
            model.labels,
            bars,
            model.read,
        )
    return Walker(
        tuple((rank, index) for rank, index, _ in plan),
        tuple(ungated),
        tuple(gates),
        rules,
        (match_type, Evidence, Prediction),
        default,
        (marker_table(markers), is_question, content_tokens, markers),
        (slash_command, dollar_mention, tokenize),
        model_args,
        (_view, options, signals),
        scan,
    )
