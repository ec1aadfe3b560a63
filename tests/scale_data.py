"""Inputs shared by the scale-out tests (pandas/Arrow in test_scale, Ray in test_ray).

Both integrations must give every row exactly what the in-process classifier
gives; :func:`expected_columns` is that answer, projected on the output columns.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from smista.config.load import parse_config
from smista.core.classifier import Classifier
from smista.scale.frames import OUTPUT_COLUMNS

CUSTOM_TOML = """
[classification]
default_intent = "plan"
[[classification.rules]]
intent = "review"
priority = 5
keywords = ["review"]
requires_any_context = ["git_diff"]
[[classification.rules]]
intent = "skill"
keywords = ["hello", "summarise"]
"""
CUSTOM = parse_config(CUSTOM_TOML)
"""A small pack: review needs git_diff, skill on two keywords, plan by default."""

PROMPTS = [
    "please review this diff",
    "fix the failing test",
    "summarise this thread",
    "plan the migration",
    "write a system prompt",
    "hello",
    "",
    "Überprüfe 日本語 review",
    "Überprüfe 日本語 reveiw",
]


def expected_columns(
    classifier: Classifier, text: str, command: str | None, contexts: Iterable[str] | None
) -> dict[str, Any]:
    """The output columns for one row, as the classifier answers it."""
    kinds = () if contexts is None else contexts
    wire = classifier.classify(text, command=command, contexts=kinds).to_wire()
    return {name: wire.get(name) for name in OUTPUT_COLUMNS}
