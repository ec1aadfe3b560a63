"""The registered condition kinds, in reason order.

Pure. Every consumer (rule model, engine, reasons, explain, lints, schema,
strategies) iterates over :data:`KINDS`. Adding a kind means writing its
module and adding one line here. The order is the order of reason parts:
``keyword 'x' and phrase 'y' and context 'z' matched rule 3`` (the original's
two kinds first and last, so original reasons keep their exact wording).
"""

from __future__ import annotations

from typing import Any

from smista.core.conditions.base import ConditionKind
from smista.core.conditions.commands import COMMANDS
from smista.core.conditions.contexts import CONTEXTS
from smista.core.conditions.endings import LEAD_ENDINGS
from smista.core.conditions.exclude import EXCLUDE
from smista.core.conditions.exclude_substrings import EXCLUDE_SUBSTRINGS
from smista.core.conditions.keywords import KEYWORDS
from smista.core.conditions.leading import LEADING
from smista.core.conditions.likeliest import LIKELIEST
from smista.core.conditions.mentions import MENTIONS
from smista.core.conditions.phrases import PHRASES
from smista.core.conditions.predicted import PREDICTED
from smista.core.conditions.question import QUESTION
from smista.core.conditions.stems import STEMS
from smista.core.conditions.substrings import SUBSTRINGS

__all__ = ["BY_KEY", "KINDS", "MODEL_KINDS", "ORDER", "model_conditions"]

KINDS: tuple[ConditionKind, ...] = (
    KEYWORDS,
    COMMANDS,
    MENTIONS,
    LEADING,
    LEAD_ENDINGS,
    PHRASES,
    STEMS,
    SUBSTRINGS,
    QUESTION,
    EXCLUDE,
    EXCLUDE_SUBSTRINGS,
    PREDICTED,
    LIKELIEST,
    CONTEXTS,
)
"""Every condition kind, in reason order (contexts last, as in the original)."""

BY_KEY: dict[str, ConditionKind] = {kind.key: kind for kind in KINDS}
"""Kinds by their TOML key."""

ORDER: dict[str, int] = {kind.key: n for n, kind in enumerate(KINDS)}
"""A kind's place in reason order."""

MODEL_KINDS: tuple[ConditionKind, ...] = tuple(kind for kind in KINDS if kind.reads_model)
"""The kinds that read the rule set's text model (``predicted``, ``likeliest``)."""


def model_conditions(rule: Any) -> tuple[tuple[str, Any], ...]:
    """``(key, value)`` of each condition of the validated ``rule`` that reads the text
    model: a rule with any needs a model, and its values are the model's labels."""
    out = []
    for kind in MODEL_KINDS:
        value = kind.read(rule)
        if kind.is_set(value):
            out.append((kind.key, value))
    return tuple(out)
