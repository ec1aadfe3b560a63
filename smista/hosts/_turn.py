"""The one seam between the host adapters and the turn model: payload -> :class:`HostTurn`.

Edge helper, pure (no I/O). Every adapter wraps what its host hands over
(a hook's bare ``prompt`` plus the earlier prompts, or a whole request body)
with :func:`turn_from_prompt` / :func:`turn_from_body` and classifies it with
:func:`classify_turn`, which is :meth:`smista.core.classifier.Classifier.classify_turn`:
the turn model (:mod:`smista.core.turns`, :mod:`smista.core.turnclassify`) parses the
message formats, strips harness noise, spots housekeeping calls and applies
the follow-up rule, all configured by the rule file's ``[classification.turns]``.
A malformed payload raises :class:`smista.core.turns.TurnError`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from smista.core.classifier import Classifier
from smista.core.intent import TaskIntent
from smista.core.turnclassify import TurnResult
from smista.core.turns import TurnError

__all__ = ["HostTurn", "TurnError", "classify_turn", "turn_from_body", "turn_from_prompt"]

MAX_PREVIOUS = 16
"""Earlier user prompts handed to the turn model with a hook's prompt (newest kept)."""


@dataclass(frozen=True, slots=True)
class HostTurn:
    """A turn as the host gave it: a prompt string, a message list or a request body."""

    payload: object


def turn_from_prompt(prompt: str, previous: Iterable[str] = ()) -> HostTurn:
    """A hook's ``prompt`` with the earlier user prompts (oldest first) as history."""
    earlier = list(previous)[-MAX_PREVIOUS:]
    if not earlier:
        return HostTurn(prompt)
    return HostTurn([{"role": "user", "content": text} for text in (*earlier, prompt)])


def turn_from_body(body: Mapping[str, Any] | list[Any]) -> HostTurn:
    """An OpenAI chat, Anthropic Messages or Responses body (or its message list)."""
    return HostTurn(body)


def classify_turn(
    classifier: Classifier, turn: HostTurn, *, command: TaskIntent | str | None = None
) -> TurnResult:
    """The turn model's answer for ``turn`` (raises ``TurnError`` for a malformed one)."""
    return classifier.classify_turn(turn.payload, command=command)
