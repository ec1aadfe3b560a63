"""The typed outcome of the task-complexity decision: what routing may read.

Pure data (pydantic v2, frozen). A :class:`DecisionResult` exists only after
the evaluator's answers were validated; its probabilities are finite and in
[0, 1]. It never holds conversation text or credentials.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt, StrictStr

__all__ = ["COMPLEXITY_RANK", "Complexity", "DecisionResult", "Probability", "Usage"]


class Complexity(StrEnum):
    """How much exploration and judgment the requested work needs (ordered tiers)."""

    SIMPLE = "simple"
    """Self-contained work: a lookup, a direct question, a small edit or rename."""
    STANDARD = "standard"
    """Typical multi-file work, a reproducible bug fix, a routine refactor."""
    COMPLEX = "complex"
    """Design, ambiguity, cross-cutting changes, migrations, deep debugging."""


COMPLEXITY_RANK: dict[Complexity, int] = {
    Complexity.SIMPLE: 0,
    Complexity.STANDARD: 1,
    Complexity.COMPLEX: 2,
}
"""Tier order: simple < standard < complex."""

Probability = Annotated[StrictFloat, Field(ge=0.0, le=1.0, allow_inf_nan=False)]
"""A finite number in [0, 1]."""

TokenCount = Annotated[StrictInt, Field(ge=0)]


class Usage(BaseModel):
    """Tokens an evaluator call consumed, as the provider reported them."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input_tokens: TokenCount = 0
    output_tokens: TokenCount = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
        )


class DecisionResult(BaseModel):
    """A validated task-complexity answer.

    ``probability`` is the probability the evaluator gave the selected
    ``category``; ``confidence`` its confidence in that choice;
    ``consequential`` the probability that a wrong or incomplete result could
    affect production, credentials, permissions or billing; ``new_task`` the
    probability that the latest message starts a task unrelated to the
    previous one (1 when there is no previous user task).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    category: Complexity
    probability: Probability
    confidence: Probability
    consequential: Probability
    new_task: Probability
    model: StrictStr
    usage: Usage = Usage()

    def summary(self) -> str:
        """One line for people: ``standard (p=0.82, confidence 0.74) ...``."""
        return (
            f"{self.category} (p={self.probability:.2f}, confidence {self.confidence:.2f})"
            f" · consequential p={self.consequential:.2f}"
            f" · new task p={self.new_task:.2f}"
        )
