"""The ``keywords`` kind (the original's): any keyword is a prompt token, or a typo of one.

Pure. The readable matching rules live in :mod:`smista.core.fuzzy`; the engine
answers the same question for every rule at once through its token index
(:mod:`smista.core.engine`), tested against :meth:`KeywordsKind.match`. With the
rule's ``typo = false`` (a smista extension) only exact tokens count; with
``[classification.options] hangul_han_typos = false`` neither do typos of a
Hangul or Han keyword. Must never perform I/O.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

from smista.core.conditions._lists import best_entry, entries_as_witnesses, string_list
from smista.core.conditions.base import Condition, ConditionKind, Evidence, Lint, Severity, rule_key
from smista.core.conditions.view import PromptView, is_hangul_or_han
from smista.core.conditions.words import word_match
from smista.core.tokenizer import rust_lower, tokenize

__all__ = ["KEYWORDS", "KeywordsKind", "matchable"]


def matchable(keyword: str) -> bool:
    """Whether ``keyword`` can equal a prompt token (non-empty, one token)."""
    return keyword != "" and tokenize(keyword) == [rust_lower(keyword)]


def _keyword_set(rule: Any) -> set[str]:
    return {rust_lower(k) for k in rule.keywords if k != ""}


class KeywordsKind(ConditionKind):
    """``keywords = ["fix", "refactor"]``."""

    key = "keywords"
    default = ()
    label = "keyword"
    original = True
    indexed = True
    typo_aware = True
    summary = "any keyword is a prompt token (typo-tolerant: caps 0/1/2 by length)"

    def annotation(self) -> Any:
        return string_list("Holds when any keyword is a prompt token, or a typo of one.")

    place = 30

    def witnesses(self, value: Any) -> tuple[str, ...]:
        return entries_as_witnesses(value)

    def match(self, condition: Condition, view: PromptView) -> Evidence | None:
        typo = condition.flag
        han_typos = view.options.hangul_han_typos
        tokens = view.tokens

        def found(keyword: str) -> bool | None:
            needle = rust_lower(keyword)
            allowed = typo and (han_typos or not is_hangul_or_han(needle))
            result: bool | None = None
            for token in tokens:
                hit = word_match(needle, token, typo=allowed)
                if hit is False:
                    return False
                if hit is True:
                    result = True
            return result

        return best_entry(self.key, condition.values, found)

    def covers(self, earlier: Any, later: Any) -> bool:
        if not earlier:
            return True
        ours = {rust_lower(k) for k in earlier if k}
        theirs = {rust_lower(k) for k in later if k}
        return bool(later) and bool(theirs) and theirs <= ours

    def lints(self, rules: Sequence[Any], known_contexts: frozenset[str]) -> Iterator[Lint]:
        del known_contexts
        yield from _keyword_lints(rules)
        yield from _collision_lints(rules)
        yield from _inflection_lints(rules)


KEYWORDS = KeywordsKind()


def _keyword_lints(rules: Sequence[Any]) -> Iterator[Lint]:
    for i, rule in enumerate(rules):
        seen: dict[str, int] = {}
        for j, keyword in enumerate(rule.keywords):
            key = rule_key(i, "keywords", j)
            if keyword == "":
                alone = all(k == "" for k in rule.keywords)
                tail = "; the rule has no other keyword, so it never matches"
                msg = "empty keyword never matches (no token is empty)"
                yield Lint(i, key, Severity.ERROR, "empty-keyword", msg + tail * alone)
                continue
            if not matchable(keyword):
                parts = tokenize(keyword)
                msg = (
                    f"keyword {keyword!r} contains whitespace or punctuation, which "
                    "separate tokens, so it never matches as written: that text "
                    f"is the tokens {parts}, and the keyword only matches the "
                    "run-together typo "
                    f"{''.join(parts)!r}. List single words as keywords instead"
                    " (or use `phrases`, a smista extension)"
                )
                yield Lint(i, key, Severity.ERROR, "unmatchable-keyword", msg)
                continue
            lowered = rust_lower(keyword)
            if lowered in seen:
                msg = (
                    f"keyword {keyword!r} is already listed at "
                    f"keywords[{seen[lowered]}] "
                    "(keywords ignore case); this copy changes nothing"
                )
                yield Lint(i, key, Severity.WARNING, "duplicate-keyword", msg)
            else:
                seen[lowered] = j


def _inflection_lints(rules: Sequence[Any]) -> Iterator[Lint]:
    from smista.core.inflect import inflections

    by_intent: dict[str, set[str]] = {}
    for rule in rules:
        by_intent.setdefault(rule.intent.value, set()).update(_keyword_set(rule))
        by_intent[rule.intent.value].update(rust_lower(s) for s in getattr(rule, "stems", ()))
    for i, rule in enumerate(rules):
        listed = by_intent[rule.intent.value]
        stems = [rust_lower(s) for r in rules if r.intent == rule.intent for s in r.stems]
        for j, keyword in enumerate(rule.keywords):
            missing = [
                f
                for f in inflections(rust_lower(keyword))
                if f not in listed and not any(f.startswith(s) for s in stems)
            ]
            if missing:
                msg = (
                    f"{keyword!r} does not match {', '.join(map(repr, missing))}: "
                    "a token containing the keyword is a different word to the "
                    "matcher; list the forms you mean to catch (or a stem)"
                )
                yield Lint(i, rule_key(i, "keywords", j), Severity.INFO, "inflection", msg)


class _Entry(NamedTuple):
    word: str
    intent: str
    rule: int
    item: int
    spelling: str
    typo: bool


def _entries(rules: Sequence[Any]) -> list[_Entry]:
    out: list[_Entry] = []
    seen: set[tuple[str, str]] = set()
    for i, rule in enumerate(rules):
        for j, keyword in enumerate(rule.keywords):
            word = rust_lower(keyword)
            if matchable(keyword) and (word, rule.intent.value) not in seen:
                seen.add((word, rule.intent.value))
                out.append(_Entry(word, rule.intent.value, i, j, keyword, bool(rule.typo)))
    return out


def _order(rules: Sequence[Any]) -> dict[int, int]:
    order = sorted(range(len(rules)), key=lambda i: (rules[i].priority, i))
    return {index: pos for pos, index in enumerate(order)}


def _collision_lints(rules: Sequence[Any]) -> Iterator[Lint]:
    """Keywords of different intents within each other's typo reach."""
    from smista.core.fuzzy import fuzzy_cap, is_typo, osa_distance

    rank = _order(rules)
    entries = _entries(rules)
    for n, a in enumerate(entries):
        for b in entries[n + 1 :]:
            if a.intent == b.intent or a.word in b.word or b.word in a.word:
                continue
            cap_a = fuzzy_cap(len(a.word)) if a.typo else 0
            cap_b = fuzzy_cap(len(b.word)) if b.typo else 0
            if not (cap_a or cap_b) or abs(len(a.word) - len(b.word)) > cap_a + cap_b:
                continue  # OSA distance is at least the length difference
            distance = osa_distance(a.word, b.word)
            first = a.rule if rank[a.rule] < rank[b.rule] else b.rule
            pair = (
                f"keyword {a.spelling!r} ({a.intent}) and {b.spelling!r} "
                f"({b.intent}, rule {b.rule}) are {distance} edit(s) apart"
            )
            key = rule_key(a.rule, "keywords", a.item)
            if (cap_a and is_typo(a.word, b.word, cap_a)) or (
                cap_b and is_typo(b.word, a.word, cap_b)
            ):
                msg = (
                    f"{pair}, within the typo cap: writing one correctly also matches "
                    f"the other as a typo, and rule {first} is tried first"
                )
                yield Lint(a.rule, key, Severity.WARNING, "typo-collision", msg)
            elif cap_a and cap_b and distance <= cap_a + cap_b:
                msg = f"{pair}: one misspelling may be a typo of both; rule {first} wins"
                yield Lint(a.rule, key, Severity.INFO, "typo-collision", msg)
