"""The ``requires_any_context`` kind (the original's): any named context kind is available.

Pure. Context kinds are exact, case-sensitive names (``git_diff``,
``referenced_paths`` ...) supplied by the host or derived from a workspace.
The first available kind in config order is the evidence. Must never perform I/O.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from smista.core.conditions._lists import string_list
from smista.core.conditions.base import Condition, ConditionKind, Evidence, Lint, Severity, rule_key
from smista.core.conditions.view import PromptView

__all__ = ["CONTEXTS", "ContextsKind"]


class ContextsKind(ConditionKind):
    """``requires_any_context = ["git_diff"]``."""

    key = "requires_any_context"
    default = ()
    label = "context"
    original = True
    indexed = True
    summary = "any named context kind is available (git_diff, referenced_paths, ...)"

    def annotation(self) -> Any:
        return string_list("Holds when any named context kind is available (exact names).")

    def match(self, condition: Condition, view: PromptView) -> Evidence | None:
        found = next((c for c in condition.values if c in view.contexts), None)
        return None if found is None else Evidence(self.key, found)

    def covers(self, earlier: Any, later: Any) -> bool:
        if not earlier:
            return True
        wanted = set(later)
        return bool(wanted) and wanted <= set(earlier)

    def lints(self, rules: Sequence[Any], known_contexts: frozenset[str]) -> Iterator[Lint]:
        from smista.core.workspace import WORKSPACE_CONTEXT_KINDS

        allowed = set(WORKSPACE_CONTEXT_KINDS) | set(known_contexts)
        produced = ", ".join(WORKSPACE_CONTEXT_KINDS)
        for i, rule in enumerate(rules):
            seen: set[str] = set()
            for j, kind in enumerate(rule.requires_any_context):
                key = rule_key(i, self.key, j)
                if kind in seen:
                    msg = f"context {kind!r} is listed twice; this copy changes nothing"
                    yield Lint(i, key, Severity.WARNING, "duplicate-context", msg)
                seen.add(kind)
                if kind not in allowed:
                    only = len(rule.requires_any_context) == 1
                    msg = (
                        f"context kind {kind!r} is not produced by the workspace "
                        f"({produced}) and was not declared (smista check --context-kind "
                        "NAME); names are case-sensitive"
                        + ("; unless the host supplies it, this rule never matches" * only)
                    )
                    yield Lint(i, key, Severity.WARNING, "unknown-context", msg)


CONTEXTS = ContextsKind()
