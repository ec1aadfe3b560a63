"""The ``lead_endings`` kind (smista extension): how the first content word ends.

Pure. ``lead_endings = ["ь", "й", "и", "!если"]`` holds when the prompt's
first content word (found as ``leading`` finds it: after a slash command,
@mentions, greetings and polite fillers) ends with one of the endings and has
at least :data:`MIN_STEM` characters before it. An entry starting with ``!``
names a whole word that never holds, however it ends (``!если``: "if").

It reads verb morphology without a word list: a Russian imperative
(Отрефакторь, Найди, Разработай) is recognised by its ending, where a
``leading`` list would need every verb in every aspect. Exact, never a typo;
endings and words are lowercased as tokens are. Must never perform I/O.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from smista.core.conditions._lists import list_lints, string_list
from smista.core.conditions.base import (
    Condition,
    ConditionKind,
    Evidence,
    Lint,
    Severity,
    per_condition,
    rule_key,
)
from smista.core.conditions.view import PromptView
from smista.core.tokenizer import rust_lower, tokenize

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

__all__ = ["LEAD_ENDINGS", "MIN_STEM", "LeadEndingsKind", "ending_of", "split_entries"]

MIN_STEM = 3
"""Characters the first content word must have before its ending (so "и", "мой" never hold)."""

_EXCEPT = "!"
_NONE: frozenset[str] = frozenset()


@lru_cache(maxsize=4096)
def split_entries(values: tuple[str, ...]) -> tuple[tuple[str, ...], frozenset[str]]:
    """``(endings, exception words)`` of compiled entries, in entry order (remembered:
    a condition's values are split once, not on every prompt)."""
    endings = tuple(v for v in values if not v.startswith(_EXCEPT))
    return endings, frozenset(v[1:] for v in values if v.startswith(_EXCEPT))


@per_condition
def _split(condition: Condition) -> tuple[tuple[str, ...], frozenset[str]]:
    """:func:`split_entries` of a compiled condition's values, by identity (hashing
    the values on every prompt costs more than the lookup saves)."""
    return split_entries(condition.values)


def ending_of(word: str, endings: Sequence[str], exceptions: frozenset[str]) -> str | None:
    """The first of ``endings`` that ``word`` ends with, past :data:`MIN_STEM` characters."""
    if word in exceptions:
        return None
    return next(
        (e for e in endings if len(word) >= len(e) + MIN_STEM and word.endswith(e)),
        None,
    )


def _normal(entry: str) -> str:
    """An entry lowercased as tokens are, its ``!`` kept."""
    if entry.startswith(_EXCEPT):
        return _EXCEPT + rust_lower(entry[1:])
    return rust_lower(entry)


def _by_last(keys: frozenset[str]) -> dict[str, tuple[str, ...]]:
    """Gate keys (endings, never empty: compile drops empty entries) by their last
    character: a word can end only with those sharing its own."""
    groups: dict[str, list[str]] = {}
    for key in sorted(keys):
        groups.setdefault(key[-1], []).append(key)
    return {last: tuple(group) for last, group in groups.items()}


class LeadEndingsKind(ConditionKind):
    """``lead_endings = ["ь", "й", "!если"]``."""

    key = "lead_endings"
    default = ()
    label = "leading word ending"
    summary = (
        "the first content word ends with one of these (not the '!' words); for inflected verbs"
    )

    def annotation(self) -> Any:
        return string_list(
            "smista extension: holds when the first content word of the prompt (as for "
            "`leading`) ends with one of these endings after at least 3 other characters. "
            "An entry '!word' names a word that never holds."
        )

    place = 20

    def witnesses(self, value: Any) -> tuple[str, ...]:
        endings, _ = split_entries(tuple(_normal(v) for v in value if v))
        return tuple("qqq" + e for e in endings if e) or ("",)

    def compile(self, value: Any, *, typo: bool) -> Condition:
        del typo
        entries = (_normal(v) for v in value)
        return Condition(self.key, tuple(v for v in entries if v and v != _EXCEPT))

    def match(self, condition: Condition, view: PromptView) -> Evidence | None:
        head = view.content_head(1)
        if not head:
            return None
        endings, exceptions = _split.get(condition)
        found = ending_of(head[0], endings, exceptions)
        return None if found is None else Evidence(self.key, found)

    def native(self, condition: Condition) -> tuple[Any, ...]:
        endings, exceptions = _split.get(condition)  # (endings never empty: see compile)
        return ("lead_endings", endings, exceptions, self.key)

    def trace(self, condition: Condition, view: PromptView) -> str:
        head = view.content_head(1)
        found = self.match(condition, view)
        if found is None:
            word = f"'{head[0]}'" if head else "none"
            return f"does not hold (first content word: {word})"
        return f"holds: {self.describe(found)} ('{head[0]}')"

    def gate(self, condition: Condition) -> frozenset[str] | None:
        endings, _ = split_entries(condition.values)
        return frozenset(endings)

    def gate_plan(self, keys: frozenset[str]) -> dict[str, tuple[str, ...]]:
        return _by_last(keys)

    def present(self, view: PromptView, plan: dict[str, tuple[str, ...]]) -> frozenset[str]:
        head = view.content_head(1)
        if not head:
            return _NONE
        word = head[0]
        group = plan.get(word[-1])
        return _NONE if group is None else frozenset(filter(word.endswith, group))

    def native_gate(self, plan: dict[str, tuple[str, ...]]) -> tuple[Any, ...]:
        return ("lead_endings", plan)

    def lints(self, rules: Sequence[Any], known_contexts: frozenset[str]) -> Iterator[Lint]:
        del known_contexts
        yield from list_lints(self.key, "ending", rules, _normal)
        for i, rule in enumerate(rules):
            values = rule.lead_endings
            endings, _ = split_entries(tuple(_normal(v) for v in values))
            for j, raw in enumerate(values):
                entry = _normal(raw)
                at = rule_key(i, self.key, j)
                bare = entry.removeprefix(_EXCEPT)
                if entry and not bare:
                    msg = "'!' names no word, so it excepts nothing"
                    yield Lint(i, at, Severity.ERROR, "empty-lead_endings", msg)
                elif bare and tokenize(bare) != [bare]:
                    msg = f"{raw!r} holds a separator, so no single word ends with it or is it"
                    yield Lint(i, at, Severity.ERROR, "unmatchable-lead_endings", msg)
                elif (
                    entry.startswith(_EXCEPT)
                    and endings
                    and ending_of(bare, endings, frozenset()) is None
                ):
                    msg = f"{raw!r} ends with none of the rule's endings: excepting it does nothing"
                    yield Lint(i, at, Severity.WARNING, "idle-lead_endings", msg)
            if values and not endings:
                msg = "only '!' words and no ending: the condition never holds"
                yield Lint(i, rule_key(i, self.key), Severity.ERROR, "no-lead_endings", msg)

    def strategy(self, words: SearchStrategy[str]) -> SearchStrategy[Any]:
        from hypothesis import strategies as st

        endings = words.map(lambda w: w[-2:])
        exceptions = words.map(lambda w: _EXCEPT + w)
        return st.lists(st.one_of(endings, endings, exceptions), max_size=3).map(tuple)


LEAD_ENDINGS = LeadEndingsKind()
