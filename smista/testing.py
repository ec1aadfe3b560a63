"""Public path ``smista.testing``; the code lives in :mod:`smista.authoring.testing`.

Hypothesis strategies and property checks for rule packs. Users import this path in
their own code, so it stays; it only re-exports.
"""

from __future__ import annotations

from smista.authoring.testing import (
    FILLER_WORDS,
    check_explicit_commands_win,
    check_no_unreachable_rules,
    check_typo_stability,
    configs,
    intents,
    keywords,
    one_edit_typos,
    prompts_with,
    rules,
    text_models,
    typo_of,
    workspaces,
)

__all__ = [
    "FILLER_WORDS",
    "check_explicit_commands_win",
    "check_no_unreachable_rules",
    "check_typo_stability",
    "configs",
    "intents",
    "keywords",
    "one_edit_typos",
    "prompts_with",
    "rules",
    "text_models",
    "typo_of",
    "workspaces",
]
