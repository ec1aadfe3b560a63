"""The classification result, with the original's exact wire JSON.

Pure data (pydantic v2, frozen). ``model_dump(mode="json", exclude_none=True)``
gives the original's keys in its order, with ``matched_rule`` and
``confidence`` absent when ``None``.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, StrictInt

from smista.core import wire
from smista.core.intent import Confidence, IntentSource, TaskIntent

__all__ = ["Classification"]


class Classification(BaseModel):
    """What kind of work a request is, where that came from, and why."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    intent: TaskIntent
    source: IntentSource
    reason: str
    matched_rule: StrictInt | None = Field(default=None, ge=0)
    confidence: Confidence | None = None

    def to_wire(self) -> dict[str, object]:
        """The original's JSON object (``None`` fields omitted)."""
        return wire.classification(
            self.intent.value,
            self.source.value,
            self.reason,
            self.matched_rule,
            None if self.confidence is None else self.confidence.value,
        )
