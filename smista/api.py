"""One-call convenience API over the classifier and the shipped default rules.

Edge module (reads the default pack on first use, then caches it).
"""

from __future__ import annotations

from collections.abc import Iterable

from smista.classifier import Classifier
from smista.defaults import default_classifier
from smista.intent import TaskIntent
from smista.result import Classification
from smista.rules import ClassificationConfig
from smista.workspace import Workspace

__all__ = ["classify"]


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
    if config is None:
        classifier = default_classifier()
    elif isinstance(config, Classifier):
        classifier = config
    else:
        classifier = Classifier(config)
    return classifier.classify(text, command=command, contexts=contexts, workspace=workspace)
