"""The ``substrings`` kind (smista extension): the prompt's text contains a string.

Pure. ``substrings = ["修正", "レビュー"]`` holds when the lowercased prompt
text contains the lowercased entry anywhere (the raw text: ``ignore_code``
hides code only from the token conditions, so ``"claude.md"`` can be a
substring). Meant for scripts written
without spaces (Japanese, Chinese, Thai), where a whole sentence is one
token; for spaced scripts prefer ``keywords`` or ``stems``. Must never
perform I/O.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Annotated, Any

from smista.core.conditions._lists import list_lints
from smista.core.conditions.base import Condition, ConditionKind, Evidence, Lint, Severity, rule_key
from smista.core.conditions.view import PromptView

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

__all__ = ["SUBSTRINGS", "SubstringsKind"]


class SubstringsKind(ConditionKind):
    """``substrings = ["修正"]``."""

    key = "substrings"
    default = ()
    label = "substring"
    summary = "the lowercased text contains it (for Japanese/Chinese written without spaces)"

    def annotation(self) -> Any:
        from pydantic import Field, StrictStr

        return Annotated[
            tuple[StrictStr, ...],
            Field(
                description=(
                    "smista extension: holds when the lowercased prompt text contains one of "
                    "these (for scripts written without spaces)."
                )
            ),
        ]

    place = 46

    def witnesses(self, value: Any) -> tuple[str, ...]:
        return tuple(v for v in value if v) or ("",)

    def compile(self, value: Any, *, typo: bool) -> Condition:
        del typo
        return Condition(self.key, tuple(v.lower() for v in value if v))

    def match(self, condition: Condition, view: PromptView) -> Evidence | None:
        text = view.lowered
        for entry in condition.values:
            if entry in text:
                return Evidence(self.key, entry)
        return None

    def gate(self, condition: Condition) -> frozenset[str] | None:
        return frozenset(condition.values)

    def present(self, view: PromptView, keys: frozenset[str]) -> frozenset[str]:
        text = view.lowered
        return frozenset(k for k in keys if k in text)

    def lints(self, rules: Sequence[Any], known_contexts: frozenset[str]) -> Iterator[Lint]:
        del known_contexts
        yield from list_lints(self.key, "substring", rules, str.lower)
        for i, rule in enumerate(rules):
            for j, entry in enumerate(rule.substrings):
                if entry.isascii() and len(entry) < 4 and entry.strip():
                    msg = (
                        f"substring {entry!r} is short ASCII text: it occurs inside many "
                        "words; use keywords or stems for spaced scripts"
                    )
                    at = rule_key(i, self.key, j)
                    yield Lint(i, at, Severity.WARNING, "short-substring", msg)

    def strategy(self, words: SearchStrategy[str]) -> SearchStrategy[Any]:
        from hypothesis import strategies as st

        return st.lists(words, max_size=2).map(tuple)


SUBSTRINGS = SubstringsKind()
