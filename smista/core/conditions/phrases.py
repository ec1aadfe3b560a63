"""The ``phrases`` kind (smista extension): consecutive tokens, each typo-tolerant.

Pure. ``phrases = ["commit message", "best way"]``: a phrase is tokenized like
a prompt, and holds when its tokens occur one after another in the prompt's
tokens. Each phrase token may be a typo of the prompt token within the usual
length caps (0/1/2 for <5/5-8/>=9 characters, containment never a typo),
except Hangul and Han words and when the rule says ``typo = false``. An exact
occurrence of any phrase beats a typo one. Must never perform I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache
from itertools import chain
from typing import TYPE_CHECKING, Any

import smista.core._implementation  # noqa: F401  SMISTA_IMPLEMENTATION, read before the try below
from smista.core.conditions._lists import (
    best_entry,
    best_found,
    entries_as_witnesses,
    list_lints,
    string_list,
)
from smista.core.conditions.base import (
    Condition,
    ConditionKind,
    Evidence,
    Lint,
    Severity,
    per_condition,
    rule_key,
)
from smista.core.conditions.signals import Words
from smista.core.conditions.view import PromptView, is_hangul_or_han
from smista.core.conditions.words import word_match
from smista.core.tokenizer import tokenize, tokenize_each

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

__all__ = [
    "PHRASES",
    "KeyPlan",
    "PhrasesKind",
    "covered_keys",
    "entries_starting",
    "entry_plan",
    "find_in_view",
    "find_sequence",
    "keys_by_word",
    "phrase_keys",
    "phrase_tokens",
]


@lru_cache(maxsize=4096)
def phrase_tokens(phrase: str) -> tuple[str, ...]:
    """The tokens of a phrase (lowercased, as a prompt would be tokenized)."""
    return tuple(tokenize(phrase))


@lru_cache(maxsize=4096)
def phrase_keys(condition: Condition) -> frozenset[str]:
    """A condition's gate keys: each phrase's tokens joined by a space (no token holds one)."""
    return frozenset(" ".join(words) for p in condition.values if (words := phrase_tokens(p)))


KeyPlan = dict[str, tuple[tuple[str, tuple[str, ...]], ...]]
"""Gate keys grouped by one of their words, each with its words."""


def covered_keys(present: Words, plan: KeyPlan) -> frozenset[str]:
    """The keys of ``plan`` filed under a word of ``present`` whose words are all in
    ``present`` (the phrases gate; the C extension's ``covered_keys`` is the same,
    tests compare them)."""
    return frozenset(
        key
        for word in plan.keys() & present
        for key, words in plan[word]
        if present.issuperset(words)
    )


try:  # the same keys in one compiled loop over the present words
    from smista.core._speedups import covered_keys as _covered_keys
except ImportError:  # pragma: no cover - exercised on machines without a C compiler
    _covered_keys = covered_keys


def keys_by_word(keys: frozenset[str], *, first: bool) -> KeyPlan:
    """Gate keys (entries' tokens joined by single spaces) grouped by one of their
    words, each with its words (``key.split(" ")``, split here once): by the first
    word with ``first`` (leading words), else by the longest (phrases: likely the
    rarest, so a prompt's present words find few keys to check). The same tables in
    every process."""
    by_word: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
    for key in sorted(keys):
        words = tuple(key.split(" "))
        anchor = words[0] if first else max(words, key=len)
        by_word.setdefault(anchor, []).append((key, words))
    return {word: tuple(group) for word, group in by_word.items()}


_Entry = tuple[str, tuple[str, ...]]


@per_condition
def entry_plan(condition: Condition) -> tuple[tuple[_Entry, ...], dict[str, tuple[int, ...]]]:
    """A condition's entries that have tokens, with them, and their positions by first
    token (``phrases``, ``exclude``)."""
    # (derived on a prompt's first use: the ASCII entries tokenized in one pass, one
    # plain loop that makes a list per first word only)
    values = condition.values
    tokens = tokenize_each(values, phrase_tokens)
    if not all(tokens):
        kept = [at for at, words in enumerate(tokens) if words]
        values = tuple(values[at] for at in kept)
        tokens = [tokens[at] for at in kept]
    by_first: dict[str, list[int]] = {}
    for at, words in enumerate(tokens):
        ats = by_first.get(words[0])
        if ats is None:
            by_first[words[0]] = [at]
        else:
            ats.append(at)
    return tuple(zip(values, tokens, strict=True)), {w: tuple(a) for w, a in by_first.items()}


def entries_starting(condition: Condition, firsts: Iterable[str]) -> list[_Entry]:
    """The entries of ``condition`` (as ``(entry, tokens)``) whose first word is
    one of ``firsts``, in the condition's order: through the engine's index, the only
    entries that can hold."""
    entries, by_first = entry_plan.get(condition)
    # (one C intersection, which walks the smaller side: a long prompt's present words
    # are many, a condition's first words few; the order is restored below)
    starting = [by_first[w] for w in by_first.keys() & firsts]
    if not starting:
        return []
    order = starting[0] if len(starting) == 1 else sorted(chain.from_iterable(starting))
    return [entries[at] for at in order]


def find_in_view(words: tuple[str, ...], view: PromptView, *, typo: bool) -> bool | None:
    """:func:`find_sequence` on the view's tokens, through its word index when it has one."""
    if not view.has_index:
        return find_sequence(words, view.tokens, typo=typo)
    if not words:
        return None
    allow = _typo_allowed(words, typo)
    return _first_run(words, allow, view.word_starts(words[0]), view.word_at)


def find_sequence(words: tuple[str, ...], tokens: Sequence[str], *, typo: bool) -> bool | None:
    """``False`` if ``words`` occur consecutively in ``tokens`` exactly, ``True`` if only
    with typos, ``None`` if not at all."""
    n = len(words)
    if n == 0 or n > len(tokens):
        return None
    allow = _typo_allowed(words, typo)
    first = words[0]
    starts = (
        (start, head)
        for start in range(len(tokens) - n + 1)
        if (head := word_match(first, tokens[start], typo=allow[0])) is not None
    )
    allowed = dict(zip(words, allow, strict=True))  # (a word's own script decides)
    return _first_run(
        words, allow, starts, lambda word, at: word_match(word, tokens[at], typo=allowed[word])
    )


@lru_cache(maxsize=4096)
def _typo_allowed(words: tuple[str, ...], typo: bool) -> tuple[bool, ...]:
    return tuple(typo and not is_hangul_or_han(w) for w in words)


def _first_run(
    words: tuple[str, ...],
    allow: tuple[bool, ...],
    starts: Iterable[tuple[int, bool]],
    word_at: Callable[[str, int], bool | None],
) -> bool | None:
    """The one search both finders share: ``starts`` gives each position where the first
    word occurs (and whether only as a typo); ``word_at(word, i)`` tells the same of the
    token at ``i`` (``None``: no match). An exact run wins at once."""
    fuzzy_seen = False
    for start, head in starts:
        if head and not allow[0]:
            continue
        fuzzy = head
        for k in range(1, len(words)):
            hit = word_at(words[k], start + k)
            if hit is None or (hit and not allow[k]):
                break
            fuzzy = fuzzy or hit
        else:
            if not fuzzy:
                return False
            fuzzy_seen = True
    return True if fuzzy_seen else None


class PhrasesKind(ConditionKind):
    """``phrases = ["commit message"]``."""

    key = "phrases"
    default = ()
    label = "phrase"
    typo_aware = True
    summary = "consecutive tokens, each typo-tolerant with the keyword caps"

    def annotation(self) -> Any:
        return string_list(
            "smista extension: holds when a phrase's tokens occur consecutively "
            "in the prompt (each typo-tolerant, as keywords)."
        )

    place = 40

    def witnesses(self, value: Any) -> tuple[str, ...]:
        return entries_as_witnesses(value)

    def compile(self, value: Any, *, typo: bool) -> Condition:
        return Condition(self.key, tuple(value), typo)

    def match(self, condition: Condition, view: PromptView) -> Evidence | None:
        typo = condition.flag
        if not view.has_index:
            return best_entry(
                self.key,
                condition.values,
                lambda phrase: find_in_view(phrase_tokens(phrase), view, typo=typo),
            )
        # Through the index, a phrase one of whose words no token hits cannot hold:
        # only the phrases whose first word some token hits are looked at.
        present = view.present_words
        return best_found(
            self.key,
            (
                (
                    phrase,
                    find_in_view(words, view, typo=typo) if present.issuperset(words) else None,
                )
                for phrase, words in entries_starting(condition, present)
            ),
        )

    def gate(self, condition: Condition) -> frozenset[str] | None:
        return phrase_keys(condition)

    def gate_plan(self, keys: frozenset[str]) -> KeyPlan:
        return keys_by_word(keys, first=False)

    def present(self, view: PromptView, plan: KeyPlan) -> frozenset[str]:
        # A phrase holds only if every one of its words is hit by some token (the
        # index path of match checks the same): a key is present when all are.
        return _covered_keys(view.present_words, plan)

    def native(self, condition: Condition) -> tuple[Any, ...]:
        # best_found over the entries some token starts, all of whose words are present,
        # each a run of tokens (typos where _typo_allowed lets them): entry_plan's entries
        return ("phrases", entry_plan.get, condition, condition.flag, self.key)

    def native_gate(self, plan: KeyPlan) -> tuple[Any, ...]:
        return ("covered", plan)  # (covered_keys of the present words)

    def words(self, condition: Condition) -> tuple[str, ...]:
        return tuple(w for phrase in condition.values for w in phrase_tokens(phrase))

    def lints(self, rules: Sequence[Any], known_contexts: frozenset[str]) -> Iterator[Lint]:
        del known_contexts
        yield from list_lints(self.key, "phrase", rules, lambda p: " ".join(phrase_tokens(p)))
        for i, rule in enumerate(rules):
            for j, phrase in enumerate(rule.phrases):
                if len(phrase_tokens(phrase)) == 1:
                    msg = f"phrase {phrase!r} is one token: a keyword says the same"
                    yield Lint(i, rule_key(i, self.key, j), Severity.INFO, "one-word-phrase", msg)

    def strategy(self, words: SearchStrategy[str]) -> SearchStrategy[Any]:
        from hypothesis import strategies as st

        phrase = st.lists(words, min_size=2, max_size=3).map(" ".join)
        return st.lists(phrase, max_size=2).map(tuple)


PHRASES = PhrasesKind()
