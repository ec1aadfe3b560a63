"""The ``stems`` kind (smista extension): some prompt token starts with a stem.

Pure. ``stems = ["refactor", "исправ"]`` holds when a token begins with the
(lowercased) stem: ``refactor`` catches refactored, refactoring; ``исправ``
catches исправь, исправить. Exact prefixes only, never typos; useful where
words inflect heavily (Russian, Turkish, Korean). Must never perform I/O.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from smista.core.conditions._lists import entries_as_witnesses, list_lints, string_list
from smista.core.conditions.base import Condition, ConditionKind, Evidence, Lint, Severity, rule_key
from smista.core.conditions.view import PromptView
from smista.core.tokenizer import rust_lower, tokenize

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

__all__ = ["STEMS", "StemsKind"]


class StemsKind(ConditionKind):
    """``stems = ["refactor"]``."""

    key = "stems"
    default = ()
    label = "stem"
    summary = "some token starts with the stem (exact prefix; for inflected languages)"

    def annotation(self) -> Any:
        return string_list("smista extension: holds when some prompt token starts with a stem.")

    place = 45

    def witnesses(self, value: Any) -> tuple[str, ...]:
        return entries_as_witnesses(value)

    def compile(self, value: Any, *, typo: bool) -> Condition:
        del typo
        return Condition(self.key, tuple(rust_lower(v) for v in value if v))

    def match(self, condition: Condition, view: PromptView) -> Evidence | None:
        for stem in condition.values:
            if view.has_prefix(stem):
                return Evidence(self.key, stem)
        return None

    def gate(self, condition: Condition) -> frozenset[str] | None:
        return frozenset(condition.values)

    def present(self, view: PromptView, plan: frozenset[str]) -> frozenset[str]:
        # The gate keys are stems of the rule set's conditions, all of which the
        # engine's signals index (see CompiledRules: ``prefixes`` of every condition).
        return view.prefixes_of(plan, indexed=True)

    def native(self, condition: Condition) -> tuple[Any, ...]:
        # the first stem some token starts with; every stem is among the engine's
        # indexed ones (prefixes() below), as present() says
        return ("stems", condition.values, self.key)

    def native_gate(self, plan: frozenset[str]) -> tuple[Any, ...]:
        return ("stems", plan)

    def prefixes(self, condition: Condition) -> tuple[str, ...]:
        return condition.values

    def covers(self, earlier: Any, later: Any) -> bool:
        if not earlier:
            return True
        ours = [rust_lower(s) for s in earlier if s]
        theirs = [rust_lower(s) for s in later if s]
        return bool(theirs) and all(any(t.startswith(o) for o in ours) for t in theirs)

    def lints(self, rules: Sequence[Any], known_contexts: frozenset[str]) -> Iterator[Lint]:
        del known_contexts
        yield from list_lints(self.key, "stem", rules, rust_lower)
        for i, rule in enumerate(rules):
            for j, stem in enumerate(rule.stems):
                at = rule_key(i, self.key, j)
                if stem and tokenize(stem) != [rust_lower(stem)]:
                    msg = f"stem {stem!r} holds a separator, so no token starts with it"
                    yield Lint(i, at, Severity.ERROR, "unmatchable-stem", msg)
                elif stem and len(stem) < 3:
                    msg = f"stem {stem!r} is shorter than 3 characters: it starts many words"
                    yield Lint(i, at, Severity.WARNING, "short-stem", msg)

    def strategy(self, words: SearchStrategy[str]) -> SearchStrategy[Any]:
        from hypothesis import strategies as st

        return st.lists(words, max_size=2).map(tuple)


STEMS = StemsKind()
