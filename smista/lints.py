"""Semantic lints of a classification config: problems the loader accepts but a user
would want to know about before shipping rules.

Pure: takes a validated :class:`ClassificationConfig`, returns :class:`Lint`
records (rule index, key path, severity, code, message); never performs I/O and
never changes how rules behave. Each lint follows from the matcher's semantics
(:mod:`smista.fuzzy`): whole-token matching, inflections and truncations never
matching, exact-only short keywords, first match wins in ``(priority, index)``
order.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from enum import StrEnum
from typing import NamedTuple

from smista.fuzzy import fuzzy_cap, is_typo, osa_distance
from smista.rules import ClassificationConfig, ClassificationRule
from smista.tokenize import rust_lower, tokenize
from smista.workspace import WORKSPACE_CONTEXT_KINDS

__all__ = [
    "Lint",
    "Severity",
    "covers",
    "evaluation_order",
    "inflections",
    "lint_classification",
    "unreachable_rules",
]


class Severity(StrEnum):
    """``error`` always fails ``smista check``; ``warning`` fails it with ``--strict``."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Lint(NamedTuple):
    """One finding about one place in the ``[classification]`` section."""

    rule: int | None
    key: str
    severity: Severity
    code: str
    message: str


def _key(rule: int, field: str | None = None, item: int | None = None) -> str:
    key = f"classification.rules[{rule}]"
    if field is not None:
        key += f".{field}"
    if item is not None:
        key += f"[{item}]"
    return key


def evaluation_order(config: ClassificationConfig) -> list[int]:
    """Rule indices in the order the classifier tries them: priority, then file order."""
    return sorted(range(len(config.rules)), key=lambda i: (config.rules[i].priority, i))


def _matchable(keyword: str) -> bool:
    """Whether ``keyword`` can equal a prompt token (non-empty, one token)."""
    return tokenize(keyword) == [rust_lower(keyword)] and keyword != ""


def _keyword_set(rule: ClassificationRule) -> set[str]:
    return {rust_lower(k) for k in rule.keywords if k != ""}


def can_match(rule: ClassificationRule) -> bool:
    """False when the rule lists keywords and every one of them is empty."""
    return not rule.keywords or any(k != "" for k in rule.keywords)


def covers(earlier: ClassificationRule, later: ClassificationRule) -> bool:
    """Whether every request matching ``later`` also matches ``earlier``.

    True when ``earlier`` can match at all and each of its conditions is absent
    or listed (at least) wholly in ``later``'s: its keywords include all of
    ``later``'s, its contexts include all of ``later``'s.
    """
    if not can_match(earlier) or not can_match(later):
        return False
    if earlier.keywords and not (later.keywords and _keyword_set(later) <= _keyword_set(earlier)):
        return False
    return not earlier.requires_any_context or bool(
        later.requires_any_context
        and set(later.requires_any_context) <= set(earlier.requires_any_context)
    )


def unreachable_rules(config: ClassificationConfig) -> dict[int, int]:
    """Rules that can never win -> the earlier rule (evaluation order) that always wins first."""
    order = evaluation_order(config)
    out: dict[int, int] = {}
    for pos, index in enumerate(order):
        for earlier in order[:pos]:
            if covers(config.rules[earlier], config.rules[index]):
                out[index] = earlier
                break
    return out


# ---------------------------------------------------------------------------
# English inflections (a heuristic, for the ``inflection`` note)

_VOWELS = frozenset("aeiou")


def _single_syllable_cvc(word: str) -> bool:
    groups = sum(
        1 for i, c in enumerate(word) if c in _VOWELS and (i == 0 or word[i - 1] not in _VOWELS)
    )
    return (
        groups == 1
        and len(word) >= 3
        and word[-1] not in _VOWELS
        and word[-1] not in "wxy"
        and word[-2] in _VOWELS
        and word[-3] not in _VOWELS
    )


_IRREGULAR: dict[str, tuple[str, ...]] = {
    "write": ("writes", "writing", "wrote", "written"),
    "rewrite": ("rewrites", "rewriting", "rewrote", "rewritten"),
    "make": ("makes", "making", "made"),
    "build": ("builds", "building", "built"),
    "break": ("breaks", "breaking", "broke", "broken"),
    "take": ("takes", "taking", "took", "taken"),
    "give": ("gives", "giving", "gave", "given"),
    "find": ("finds", "finding", "found"),
    "think": ("thinks", "thinking", "thought"),
    "split": ("splits", "splitting"),
    "run": ("runs", "running", "ran"),
    "set": ("sets", "setting"),
    "get": ("gets", "getting", "got", "gotten"),
}
"""Verbs whose forms the suffix rules would get wrong."""

_NOUN_ENDINGS = (
    "tion", "sion", "ness", "ity", "ure", "ance", "ence", "ship", "ism", "ist",
    "er", "or", "ary", "ory", "gy", "back", "shell",
)
"""Endings of words that are (almost always) nouns: only a plural is suggested."""


def inflections(word: str) -> list[str]:
    """Likely ``-s``, ``-ing`` and ``-ed`` forms of an English word (empty if unsure).

    A heuristic for the ``inflection`` note: only plain lowercase ASCII words
    of 4+ letters that do not already look inflected get forms, e.g.
    ``review`` -> ``reviews``, ``reviewing``, ``reviewed``; likely nouns
    (``architecture``) get only a plural; words ending in a, i, o or u (mostly
    not English verbs) get none.
    """
    if word in _IRREGULAR:
        return list(_IRREGULAR[word])
    if len(word) < 4 or not (word.isascii() and word.isalpha() and word.islower()):
        return []
    if word.endswith(("ing", "ed", "s", "ly", "a", "i", "o", "u")):
        return []
    if word.endswith(("x", "z", "ch", "sh")):
        plural = word + "es"
    elif word.endswith("y") and word[-2] not in _VOWELS:
        plural = word[:-1] + "ies"
    else:
        plural = word + "s"
    if word.endswith(_NOUN_ENDINGS):
        return [plural]
    if word.endswith("ie"):
        ing, ed = word[:-2] + "ying", word + "d"
    elif word.endswith("e") and not word.endswith(("ee", "ye", "oe")):
        ing, ed = word[:-1] + "ing", word + "d"
    elif word.endswith("y") and word[-2] not in _VOWELS:
        ing, ed = word + "ing", word[:-1] + "ied"
    elif _single_syllable_cvc(word):
        ing, ed = word + word[-1] + "ing", word + word[-1] + "ed"
    else:
        ing, ed = word + "ing", word + "ed"
    return [plural, ing, ed]


# ---------------------------------------------------------------------------
# the lints


def _keyword_lints(config: ClassificationConfig) -> Iterator[Lint]:
    for i, rule in enumerate(config.rules):
        seen: dict[str, int] = {}
        for j, keyword in enumerate(rule.keywords):
            key = _key(i, "keywords", j)
            lowered = rust_lower(keyword)
            if keyword == "":
                alone = all(k == "" for k in rule.keywords)
                yield Lint(
                    i, key, Severity.ERROR, "empty-keyword",
                    "empty keyword never matches (no token is empty)"
                    + ("; the rule has no other keyword, so it never matches" if alone else ""),
                )
                continue
            if not _matchable(keyword):
                parts = tokenize(keyword)
                joined = "".join(parts)
                yield Lint(
                    i, key, Severity.ERROR, "unmatchable-keyword",
                    f"keyword {keyword!r} contains whitespace or punctuation, which separate "
                    f"tokens, so it never matches as written: the prompt text {keyword!r} is "
                    f"the tokens {parts}; it only matches the run-together typo {joined!r}. "
                    "List single words as keywords instead",
                )
                continue
            if lowered in seen:
                yield Lint(
                    i, key, Severity.WARNING, "duplicate-keyword",
                    f"keyword {keyword!r} is already listed at keywords[{seen[lowered]}] "
                    "(keywords ignore case); this copy changes nothing",
                )
            else:
                seen[lowered] = j


def _inflection_lints(config: ClassificationConfig) -> Iterator[Lint]:
    by_intent: dict[str, set[str]] = {}
    for rule in config.rules:
        by_intent.setdefault(rule.intent.value, set()).update(_keyword_set(rule))
    for i, rule in enumerate(config.rules):
        listed = by_intent[rule.intent.value]
        for j, keyword in enumerate(rule.keywords):
            missing = [f for f in inflections(rust_lower(keyword)) if f not in listed]
            if missing:
                forms = ", ".join(repr(f) for f in missing)
                yield Lint(
                    i, _key(i, "keywords", j), Severity.INFO, "inflection",
                    f"{keyword!r} does not match {forms}: a token that contains the keyword "
                    "is a different word to the matcher; list the forms you mean to catch",
                )


def _shadow_lints(config: ClassificationConfig, unreachable: dict[int, int]) -> Iterator[Lint]:
    for index, earlier in sorted(unreachable.items()):
        first = config.rules[earlier]
        if not first.keywords and not first.requires_any_context:
            why = f"catch-all rule {earlier} (no conditions) matches every request first"
        else:
            why = (
                f"rule {earlier} ({first.intent.value}, priority {first.priority}) is tried "
                "first and its conditions include all of this rule's"
            )
        yield Lint(
            index, _key(index), Severity.WARNING, "unreachable-rule",
            f"rule can never win: {why}",
        )


def _duplicate_lints(config: ClassificationConfig, unreachable: Collection[int]) -> Iterator[Lint]:
    order = evaluation_order(config)
    for pos, index in enumerate(order):
        rule = config.rules[index]
        if index in unreachable:
            continue
        for j, keyword in enumerate(rule.keywords):
            lowered = rust_lower(keyword)
            if not lowered:
                continue
            for earlier in order[:pos]:
                first = config.rules[earlier]
                if lowered not in _keyword_set(first):
                    continue
                dead = not first.requires_any_context or (
                    bool(rule.requires_any_context)
                    and set(rule.requires_any_context) <= set(first.requires_any_context)
                )
                same = first.intent == rule.intent
                if dead and not same:
                    yield Lint(
                        index, _key(index, "keywords", j), Severity.WARNING, "duplicate-keyword",
                        f"keyword {keyword!r} is also in rule {earlier} ({first.intent.value}), "
                        f"which is tried first and always wins on it: here it never decides "
                        f"{rule.intent.value}",
                    )
                elif dead:
                    yield Lint(
                        index, _key(index, "keywords", j), Severity.INFO, "duplicate-keyword",
                        f"keyword {keyword!r} is also in rule {earlier} (same intent), which is "
                        "tried first and always wins on it: this copy is redundant",
                    )
                elif not same:
                    ctx = ", ".join(repr(c) for c in first.requires_any_context)
                    yield Lint(
                        index, _key(index, "keywords", j), Severity.INFO, "duplicate-keyword",
                        f"keyword {keyword!r} is also in rule {earlier} ({first.intent.value}), "
                        f"which wins on it whenever context {ctx} is available",
                    )
                break


def _tie_lints(config: ClassificationConfig, unreachable: Collection[int]) -> Iterator[Lint]:
    order = [i for i in evaluation_order(config) if i not in unreachable]
    for pos, index in enumerate(order):
        rule = config.rules[index]
        if not can_match(rule):
            continue
        for earlier in order[:pos]:
            first = config.rules[earlier]
            if first.priority != rule.priority or first.intent == rule.intent:
                continue
            if not can_match(first):
                continue
            yield Lint(
                index, _key(index, "priority"), Severity.WARNING, "priority-tie",
                f"rule {index} ({rule.intent.value}) and rule {earlier} "
                f"({first.intent.value}) share priority {rule.priority} and can match the "
                f"same request; rule {earlier} wins only because it comes first in the file. "
                "Give them different priorities to make the order explicit",
            )
            break


def _collision_lints(config: ClassificationConfig) -> Iterator[Lint]:
    rank = {index: pos for pos, index in enumerate(evaluation_order(config))}
    entries: list[tuple[str, str, int, int, str]] = []  # lowered, intent, rule, pos, spelling
    seen: set[tuple[str, str]] = set()
    for i, rule in enumerate(config.rules):
        for j, keyword in enumerate(rule.keywords):
            lowered = rust_lower(keyword)
            if _matchable(keyword) and (lowered, rule.intent.value) not in seen:
                seen.add((lowered, rule.intent.value))
                entries.append((lowered, rule.intent.value, i, j, keyword))
    reported: set[tuple[str, str]] = set()
    for a, a_intent, a_rule, a_pos, a_kw in entries:
        for b, b_intent, b_rule, _b_pos, b_kw in entries:
            if a_intent == b_intent or a == b or (b, a) in reported:
                continue
            cap_a, cap_b = fuzzy_cap(len(a)), fuzzy_cap(len(b))
            if a in b or b in a:
                continue
            distance = osa_distance(a, b)
            winner = a_rule if rank[a_rule] < rank[b_rule] else b_rule
            if is_typo(a, b, cap_a) or is_typo(b, a, cap_b):
                reported.add((a, b))
                yield Lint(
                    a_rule, _key(a_rule, "keywords", a_pos), Severity.WARNING, "typo-collision",
                    f"keyword {a_kw!r} ({a_intent}) and {b_kw!r} ({b_intent}, rule {b_rule}) "
                    f"are {distance} edit(s) apart, within the typo cap: writing one "
                    f"correctly also matches the other as a typo, and rule {winner} is tried "
                    "first",
                )
            elif cap_a and cap_b and distance <= cap_a + cap_b:
                reported.add((a, b))
                yield Lint(
                    a_rule, _key(a_rule, "keywords", a_pos), Severity.INFO, "typo-collision",
                    f"keyword {a_kw!r} ({a_intent}) and {b_kw!r} ({b_intent}, rule {b_rule}) "
                    f"are {distance} edits apart: one misspelling may be a typo of both, "
                    f"and then rule {winner} wins",
                )


def _context_lints(config: ClassificationConfig, known: Collection[str]) -> Iterator[Lint]:
    allowed = set(WORKSPACE_CONTEXT_KINDS) | set(known)
    for i, rule in enumerate(config.rules):
        seen: set[str] = set()
        for j, kind in enumerate(rule.requires_any_context):
            key = _key(i, "requires_any_context", j)
            if kind in seen:
                yield Lint(
                    i, key, Severity.WARNING, "duplicate-context",
                    f"context {kind!r} is listed twice; this copy changes nothing",
                )
            seen.add(kind)
            if kind not in allowed:
                known_list = ", ".join(WORKSPACE_CONTEXT_KINDS)
                only = len(rule.requires_any_context) == 1
                yield Lint(
                    i, key, Severity.WARNING, "unknown-context",
                    f"context kind {kind!r} is not produced by the workspace ({known_list}) "
                    "and was not declared (smista check --context-kind NAME); names are "
                    "case-sensitive"
                    + ("; unless the host supplies it, this rule never matches" if only else ""),
                )


def lint_classification(
    config: ClassificationConfig, *, known_contexts: Collection[str] = ()
) -> list[Lint]:
    """Every lint of ``config``, ordered by rule index then key path.

    ``known_contexts`` declares context kinds the host supplies beyond the
    workspace's own (``git_diff``, ``git_branch``, ``active_file``,
    ``referenced_paths``).
    """
    unreachable = unreachable_rules(config)
    found: list[Lint] = [
        *_keyword_lints(config),
        *_shadow_lints(config, unreachable),
        *_duplicate_lints(config, unreachable),
        *_tie_lints(config, unreachable),
        *_collision_lints(config),
        *_context_lints(config, known_contexts),
        *_inflection_lints(config),
    ]
    return sorted(found, key=_sort_key)


_SEVERITY_RANK = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}


def _sort_key(lint: Lint) -> tuple[int, int, str]:
    return (-1 if lint.rule is None else lint.rule, _SEVERITY_RANK[lint.severity], lint.key)
