"""The ``question`` kind (smista extension): the prompt asks (or does not ask) a question.

Pure. ``question = true`` holds when the prompt is a question, ``false`` when
it is not; a polite request ("can you fix the login bug?") is not a question.
Detection (:func:`smista.core.conditions.markers.is_question`) reads marker data:
interrogative words and openers, sentence-final question particles, polite
request openers, for en, ja, ko, zh, ru, es, pt, fr, de, it, tr, id, vi, sv, pl, uk, th, nl,
cs, hu, ar, he, fa and hi by default, replaceable in ``[classification.markers]``.
``question = true`` is a confidence signal; ``false`` is not. Must never perform I/O.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from smista.core.conditions.base import Condition, ConditionKind, Evidence
from smista.core.conditions.view import PromptView

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

__all__ = ["QUESTION", "QuestionKind"]


class QuestionKind(ConditionKind):
    """``question = true`` / ``question = false``."""

    key = "question"
    default = None
    summary = "the prompt is (true) or is not (false) a question; polite requests are not"

    def is_set(self, value: Any) -> bool:
        return value is not None

    def annotation(self) -> Any:
        from pydantic import Field, StrictBool

        return Annotated[
            StrictBool | None,
            Field(
                description=(
                    "smista extension: true holds when the prompt asks a question, false when "
                    "it does not (a polite request is not a question)."
                )
            ),
        ]

    place = 90

    def witnesses(self, value: Any) -> tuple[str, ...]:
        return ("?",) if value else (".",)

    def compile(self, value: Any, *, typo: bool) -> Condition:
        del typo
        return Condition(self.key, (), bool(value))

    def match(self, condition: Condition, view: PromptView) -> Evidence | None:
        if view.question is not condition.flag:
            return None
        return _ASKS if condition.flag else _ASKS_NOT

    def native(self, condition: Condition) -> tuple[Any, ...]:
        # holds when the prompt's reading is the flag, with the one evidence of each
        return ("question", condition.flag, _ASKS if condition.flag else _ASKS_NOT)

    def describe(self, evidence: Evidence) -> str | None:
        return evidence.shown

    def counts(self, evidence: Evidence) -> bool:
        return evidence.shown == "question"

    def strategy(self, words: SearchStrategy[str]) -> SearchStrategy[Any]:
        from hypothesis import strategies as st

        del words
        return st.sampled_from([None, None, True, False])


QUESTION = QuestionKind()
_ASKS = Evidence(QUESTION.key, "question")
_ASKS_NOT = Evidence(QUESTION.key, "no question")
"""The kind's two pieces of evidence (immutable: made once, not per prompt)."""
