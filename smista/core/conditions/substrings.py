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

import re
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import smista.core._implementation  # noqa: F401  SMISTA_IMPLEMENTATION, read before the try below
from smista.core.conditions._lists import (
    entries_as_witnesses,
    list_lints,
    short_ascii_lints,
    string_list,
)
from smista.core.conditions.base import (
    Condition,
    ConditionKind,
    Evidence,
    Lint,
    PerObject,
    per_condition,
)
from smista.core.conditions.view import PromptView

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

__all__ = ["SUBSTRINGS", "SubstringsKind"]


@per_condition
def _ascii_entries(condition: Condition) -> tuple[str, ...]:
    """The ASCII entries, in order (the only ones an ASCII text can hold)."""
    return tuple(e for e in condition.values if e.isascii())


# A gate's entries arranged for SubstringsKind.present: the ASCII ones (each looked
# for in the text: they are few), the others' first non-ASCII characters, the others
# by that character (an entry the text contains has it there). (A plain tuple: a
# NamedTuple class costs a fifth of a millisecond to create at import.)
_Plan = tuple[tuple[str, ...], frozenset[str], dict[str, tuple[str, ...]]]

_NON_ASCII = re.compile(r"[^\x00-\x7f]+")


def _non_ascii(text: str) -> str:
    """The characters of ``text`` past ASCII, in order: those a non-ASCII entry is keyed by."""
    return "".join(_NON_ASCII.findall(text))


try:  # the same characters, in one compiled pass
    from smista.core._speedups import SubstringSet as _SubstringSet
    from smista.core._speedups import non_ascii as _non_ascii_chars
except ImportError:  # pragma: no cover - exercised on machines without a C compiler
    _SubstringSet = None  # type: ignore[assignment,misc]
    _non_ascii_chars = _non_ascii


def _plan(entries: frozenset[str]) -> _Plan:
    """``entries`` (non-empty ones) as a ``_Plan``."""
    groups: dict[str, list[str]] = {}
    for entry in sorted(entries):
        if entry and not entry.isascii():
            key = next(c for c in entry if not c.isascii())
            groups.setdefault(key, []).append(entry)
    return (
        tuple(sorted(e for e in entries if e and e.isascii())),
        frozenset(groups),
        {key: tuple(group) for key, group in groups.items()},
    )


def _present(text: str, plan: _Plan) -> frozenset[str]:
    """The entries of ``plan`` the lowercased ``text`` contains, in Python (the compiled
    set's reference)."""
    ascii_entries, keyed, by_key = plan
    found = [k for k in ascii_entries if k in text]
    if keyed and not text.isascii():
        # Only entries whose key character the text has can occur in it; the
        # text's non-ASCII characters are few (a regex character class of the
        # keys would find them no faster, and CJK classes take milliseconds
        # to compile).
        chars = keyed.intersection(_non_ascii_chars(text))
        found += (k for c in chars for k in by_key[c] if k in text)
    return frozenset(found)


def _build_c_set(plan: _Plan) -> Any:
    """Every entry of ``plan`` in one compiled set (its one pass finds them all)."""
    ascii_entries, _, by_key = plan
    assert _SubstringSet is not None
    return _SubstringSet(ascii_entries + tuple(e for group in by_key.values() for e in group))


_c_set: PerObject[_Plan, Any] = PerObject(_build_c_set, 64)
"""The compiled set of a gate plan (the plan itself stays plain data, for the cache)."""


class SubstringsKind(ConditionKind):
    """``substrings = ["修正"]``."""

    key = "substrings"
    default = ()
    label = "substring"
    summary = "the lowercased text contains it (for Japanese/Chinese written without spaces)"

    def annotation(self) -> Any:
        return string_list(
            "smista extension: holds when the lowercased prompt text contains one of "
            "these (for scripts written without spaces)."
        )

    place = 46

    def witnesses(self, value: Any) -> tuple[str, ...]:
        return entries_as_witnesses(value)

    def compile(self, value: Any, *, typo: bool) -> Condition:
        del typo
        return Condition(self.key, tuple(v.lower() for v in value if v))

    def match(self, condition: Condition, view: PromptView) -> Evidence | None:
        text = view.lowered
        # An ASCII text holds no non-ASCII entry (most prompts, most entries).
        for entry in _ascii_entries.get(condition) if text.isascii() else condition.values:
            if entry in text:
                return Evidence(self.key, entry)
        return None

    def gate(self, condition: Condition) -> frozenset[str] | None:
        return frozenset(condition.values)

    def gate_plan(self, keys: frozenset[str]) -> _Plan:
        return _plan(keys)

    def present(self, view: PromptView, plan: _Plan) -> frozenset[str]:
        if _SubstringSet is not None:  # one compiled pass finds every entry
            found = _c_set.get(plan).find_lower(view.text)  # (lowered as it is read)
            return frozenset(found if found is not None else _c_set.get(plan).find(view.lowered))
        return _present(view.lowered, plan)

    def native(self, condition: Condition) -> tuple[Any, ...]:
        # the first entry the lowered text holds (of the ASCII ones, for an ASCII text)
        return ("substrings", condition.values, _ascii_entries.get(condition), self.key)

    def native_gate(self, plan: _Plan) -> tuple[Any, ...] | None:
        # the compiled set's one pass (find_lower, else find on the lowered text)
        return None if _SubstringSet is None else ("substrings", _c_set.get(plan))

    def lints(self, rules: Sequence[Any], known_contexts: frozenset[str]) -> Iterator[Lint]:
        del known_contexts
        yield from list_lints(self.key, "substring", rules, str.lower)
        advice = "use keywords or stems for spaced scripts"
        yield from short_ascii_lints(self.key, "substring", "short-substring", rules, advice)

    def strategy(self, words: SearchStrategy[str]) -> SearchStrategy[Any]:
        from hypothesis import strategies as st

        return st.lists(words, max_size=2).map(tuple)


SUBSTRINGS = SubstringsKind()
