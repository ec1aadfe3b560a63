"""The ``exclude_substrings`` kind (smista extension): strings that veto a rule.

Pure. ``exclude_substrings = ["read agents.md", "根据 @claude.md"]``: the rule
does not match when the lowercased prompt text contains any lowercased entry.
It reads the raw text, as ``substrings`` does (``ignore_code`` hides code only
from the token conditions), so an entry may name a file, a path or a URL, or
be a phrase of a script written without spaces; that is what ``exclude``,
which compares whole tokens of the visible text, cannot do. Like every veto it
never uses typos and leaves no reason part and no confidence signal. Must
never perform I/O.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from smista.core.conditions._lists import list_lints, short_ascii_lints, string_list
from smista.core.conditions.base import Condition, ConditionKind, Evidence, Lint
from smista.core.conditions.view import PromptView

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

__all__ = ["EXCLUDE_SUBSTRINGS", "ExcludeSubstringsKind"]


def _first_in(condition: Condition, view: PromptView) -> str | None:
    """The first entry of ``condition`` the lowercased text contains, if any."""
    text = view.lowered
    return next((entry for entry in condition.values if entry in text), None)


class ExcludeSubstringsKind(ConditionKind):
    """``exclude_substrings = ["read agents.md"]``."""

    key = "exclude_substrings"
    default = ()
    signal = False
    summary = "veto: the rule does not match when the text contains any of these strings"

    def annotation(self) -> Any:
        return string_list(
            "smista extension: the rule does not match when the lowercased prompt text "
            "(code, paths and URLs included) contains one of these strings."
        )

    def compile(self, value: Any, *, typo: bool) -> Condition:
        del typo
        return Condition(self.key, tuple(v.lower() for v in value if v))

    def match(self, condition: Condition, view: PromptView) -> Evidence | None:
        return None if _first_in(condition, view) is not None else Evidence(self.key, None)

    def native(self, condition: Condition) -> tuple[Any, ...]:
        # vetoed by the first entry the lowered text holds
        return ("exclude_substrings", condition.values, Evidence(self.key, None))

    def trace(self, condition: Condition, view: PromptView) -> str:
        hit = _first_in(condition, view)
        return "holds: no excluded string" if hit is None else f"vetoed by {hit!r}"

    def covers(self, earlier: Any, later: Any) -> bool:
        # An earlier rule vetoed by fewer strings holds wherever the later one does.
        return {e.lower() for e in earlier if e} <= {e.lower() for e in later if e}

    def lints(self, rules: Sequence[Any], known_contexts: frozenset[str]) -> Iterator[Lint]:
        del known_contexts
        yield from list_lints(self.key, "excluded string", rules, str.lower, across_intents=False)
        advice = "it vetoes the rule far more often than meant"
        yield from short_ascii_lints(
            self.key, "excluded string", "short-exclude_substrings", rules, advice
        )

    def strategy(self, words: SearchStrategy[str]) -> SearchStrategy[Any]:
        from hypothesis import strategies as st

        return st.lists(words, max_size=2).map(tuple)


EXCLUDE_SUBSTRINGS = ExcludeSubstringsKind()
