"""One-call convenience API over the classifier and the shipped default rules.

Edge module (reads the default pack on first use, then caches it). Classifying
with the default pack imports neither pydantic nor tomllib
(:func:`smista.config.defaults.default_classifier`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from smista.config.defaults import default_classifier
from smista.core.classifier import Classifier

if TYPE_CHECKING:
    from smista.core.intent import TaskIntent
    from smista.core.result import Classification
    from smista.core.rules import ClassificationConfig
    from smista.core.turnclassify import TurnResult
    from smista.core.workspace import Workspace

__all__ = ["classify", "classify_turn"]


def classify(
    text: str,
    config: ClassificationConfig | Classifier | None = None,
    *,
    command: TaskIntent | str | None = None,
    contexts: Iterable[str] = (),
    workspace: Workspace | None = None,
) -> Classification:
    """Classify ``text`` with ``config`` (``None``: the shipped default rules).

    Building a :class:`Classifier` compiles the rules; keep one around (or pass
    it here) when classifying many prompts.
    """
    return _classifier(config).classify(
        text, command=command, contexts=contexts, workspace=workspace
    )


def classify_turn(
    payload: object,
    config: ClassificationConfig | Classifier | None = None,
    *,
    command: TaskIntent | str | None = None,
    contexts: Iterable[str] = (),
    workspace: Workspace | None = None,
) -> TurnResult:
    """Classify a whole turn: OpenAI chat ``messages``, an Anthropic Messages body, an
    OpenAI Responses ``input`` (or a body holding any of them), auto-detected.

    The answer reads the current user text with harness noise stripped, reports
    housekeeping calls, and applies the follow-up rule (docs/turns.md). Raises
    :class:`smista.core.turns.TurnError` for a payload of no known shape.
    """
    return _classifier(config).classify_turn(
        payload, command=command, contexts=contexts, workspace=workspace
    )


def _classifier(config: ClassificationConfig | Classifier | None) -> Classifier:
    if config is None:
        return default_classifier()
    if isinstance(config, Classifier):
        return config
    return Classifier(config)
