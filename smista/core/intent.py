"""The closed vocabularies of a classification: intent, source, confidence.

Leaf module, standard library only (no pydantic), so the fast CLI path can use
it. Wire values are lowercase and case-sensitive; ``TaskIntent.parse`` is the
case-insensitive reader for text a person typed (``--command Plan``).
"""

from __future__ import annotations

from enum import StrEnum

from smista.core.errors import UnknownIntentError


class TaskIntent(StrEnum):
    """The kind of work a single step of a coding-agent workflow performs."""

    CHAT = "chat"
    """Free-form conversation with no specialised objective."""
    PLAN = "plan"
    """Producing a plan or breaking a task into steps."""
    EDIT = "edit"
    """Modifying existing code or text."""
    REVIEW = "review"
    """Assessing code or text and giving feedback."""
    SUMMARIZE = "summarize"
    """Condensing longer content into a shorter form."""
    PROMPT = "prompt"
    """Crafting or refining a prompt for another model."""
    SKILL = "skill"
    """Invoking a named skill or tool-driven capability."""

    @classmethod
    def parse(cls, text: str) -> TaskIntent:
        """Read an intent name case-insensitively (ASCII), as the original's ``FromStr``.

        Raises :class:`UnknownIntentError` naming the lowercased value and the
        allowed names.
        """
        lowered = text.lower() if text.isascii() else _ascii_lower(text)
        try:
            return cls(lowered)
        except ValueError:
            raise UnknownIntentError(lowered, INTENT_NAMES) from None


def _ascii_lower(text: str) -> str:
    return "".join(c.lower() if c.isascii() else c for c in text)


INTENT_NAMES: tuple[str, ...] = tuple(i.value for i in TaskIntent)


class IntentSource(StrEnum):
    """Whether the user named the intent or a rule inferred it."""

    EXPLICIT = "explicit"
    INFERRED = "inferred"


class Confidence(StrEnum):
    """A coarse, deterministic signal-strength label; not a probability."""

    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
