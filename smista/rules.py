"""Classification rule models: the wire and TOML shape of ``[classification]``.

Pure data (pydantic v2, frozen). Structure is validated strictly: unknown keys,
wrong types, unknown intents and priorities outside ``0..=4294967295`` are
errors (unknown keys are a deliberate difference from the original, which
ignores them). Semantics stay lenient, as in the original: empty keywords,
duplicate rules and equal priorities load and behave as the original does;
``smista check`` reports them.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr

from smista.intent import TaskIntent
from smista.turnrules import TurnSettings

__all__ = ["DEFAULT_PRIORITY", "MAX_PRIORITY", "ClassificationConfig", "ClassificationRule"]

DEFAULT_PRIORITY = 1000
MAX_PRIORITY = 2**32 - 1

Priority = Annotated[StrictInt, Field(ge=0, le=MAX_PRIORITY)]


class ClassificationRule(BaseModel):
    """One rule: all present conditions must hold; a rule with none matches every request.

    ``keywords`` matches when any keyword is in the prompt (typo-tolerant);
    ``requires_any_context`` when any named context kind is available.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    intent: TaskIntent
    priority: Priority = DEFAULT_PRIORITY
    keywords: tuple[StrictStr, ...] = ()
    requires_any_context: tuple[StrictStr, ...] = ()


class ClassificationConfig(BaseModel):
    """Ordered classification rules and the intent used when none matches."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    default_intent: TaskIntent = TaskIntent.CHAT
    rules: tuple[ClassificationRule, ...] = ()
    turns: TurnSettings | None = Field(default=None, exclude=True)
    """``[classification.turns]`` (smista extension, see docs/turns.md): how whole turns
    are read; ``None`` means the built-ins. Never changes bare-prompt classification.
    Left out of ``model_dump`` so the rule set's wire shape stays the original's."""
