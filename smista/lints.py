"""Semantic lints of a classification config: what the loader accepts but an author
would want to know before shipping rules.

Pure: takes a validated :class:`ClassificationConfig` and returns :class:`Lint`
records (rule index, key path, severity, code, message); never performs I/O and
never changes how rules behave. Every lint follows from the matcher's semantics
(:mod:`smista.fuzzy`): whole-token matching, inflections and truncations never
matching, exact-only short keywords, first match wins in ``(priority, index)``
order.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from enum import StrEnum
from typing import NamedTuple

from smista.fuzzy import fuzzy_cap, is_typo, osa_distance
from smista.inflect import inflections
from smista.rules import ClassificationConfig, ClassificationRule
from smista.tokenizer import rust_lower, tokenize
from smista.workspace import WORKSPACE_CONTEXT_KINDS

__all__ = [
    "Lint",
    "Severity",
    "can_match",
    "covers",
    "evaluation_order",
    "lint_classification",
    "unreachable_rules",
]


class Severity(StrEnum):
    """``error`` always fails a check; ``warning`` fails it under ``--strict``."""

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
    return key if item is None else key + f"[{item}]"


def evaluation_order(config: ClassificationConfig) -> list[int]:
    """Rule indices in the order the classifier tries them (priority, file order)."""
    rules = config.rules
    return sorted(range(len(rules)), key=lambda i: (rules[i].priority, i))


def _matchable(keyword: str) -> bool:
    """Whether ``keyword`` can equal a prompt token (non-empty, one token)."""
    return keyword != "" and tokenize(keyword) == [rust_lower(keyword)]


def _keyword_set(rule: ClassificationRule) -> set[str]:
    return {rust_lower(k) for k in rule.keywords if k != ""}


def can_match(rule: ClassificationRule) -> bool:
    """False when the rule lists keywords and every one of them is empty."""
    return not rule.keywords or any(k != "" for k in rule.keywords)


def _contexts_within(inner: ClassificationRule, outer: ClassificationRule) -> bool:
    """Whether ``outer``'s context condition holds whenever ``inner``'s does."""
    if not outer.requires_any_context:
        return True
    wanted = set(inner.requires_any_context)
    return bool(wanted) and wanted <= set(outer.requires_any_context)


def covers(earlier: ClassificationRule, later: ClassificationRule) -> bool:
    """Whether every request matching ``later`` also matches ``earlier``.

    True when ``earlier`` can match and each of its conditions is absent or
    includes all of ``later``'s: keywords (ignoring case) and contexts.
    """
    if not can_match(earlier) or not can_match(later):
        return False
    if earlier.keywords and not (later.keywords and _keyword_set(later) <= _keyword_set(earlier)):
        return False
    return _contexts_within(later, earlier)


def unreachable_rules(config: ClassificationConfig) -> dict[int, int]:
    """Rules that can never win -> the earlier rule that always matches first."""
    order = evaluation_order(config)
    out: dict[int, int] = {}
    for pos, index in enumerate(order):
        for earlier in order[:pos]:
            if covers(config.rules[earlier], config.rules[index]):
                out[index] = earlier
                break
    return out


def _keyword_lints(config: ClassificationConfig) -> Iterator[Lint]:
    for i, rule in enumerate(config.rules):
        seen: dict[str, int] = {}
        for j, keyword in enumerate(rule.keywords):
            key = _key(i, "keywords", j)
            if keyword == "":
                alone = all(k == "" for k in rule.keywords)
                tail = "; the rule has no other keyword, so it never matches"
                msg = "empty keyword never matches (no token is empty)"
                yield Lint(i, key, Severity.ERROR, "empty-keyword", msg + tail * alone)
                continue
            if not _matchable(keyword):
                parts = tokenize(keyword)
                msg = (
                    f"keyword {keyword!r} contains whitespace or punctuation, which "
                    "separate tokens, so it never matches as written: that text "
                    f"is the tokens {parts}, and the keyword only matches the "
                    "run-together typo "
                    f"{''.join(parts)!r}. List single words as keywords instead"
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


def _inflection_lints(config: ClassificationConfig) -> Iterator[Lint]:
    by_intent: dict[str, set[str]] = {}
    for rule in config.rules:
        by_intent.setdefault(rule.intent.value, set()).update(_keyword_set(rule))
    for i, rule in enumerate(config.rules):
        listed = by_intent[rule.intent.value]
        for j, keyword in enumerate(rule.keywords):
            missing = [f for f in inflections(rust_lower(keyword)) if f not in listed]
            if missing:
                msg = (
                    f"{keyword!r} does not match {', '.join(map(repr, missing))}: "
                    "a token containing the keyword is a different word to the "
                    "matcher; list the forms you mean to catch"
                )
                yield Lint(i, _key(i, "keywords", j), Severity.INFO, "inflection", msg)


def _shadow_lints(config: ClassificationConfig, unreachable: dict[int, int]) -> Iterator[Lint]:
    for index, earlier in sorted(unreachable.items()):
        first = config.rules[earlier]
        if not first.keywords and not first.requires_any_context:
            why = f"catch-all rule {earlier} (no conditions) matches every request first"
        else:
            why = (
                f"rule {earlier} ({first.intent.value}, priority {first.priority}) is "
                "tried first, and its conditions hold whenever this rule's do"
            )
        msg = f"rule can never win: {why}"
        yield Lint(index, _key(index), Severity.WARNING, "unreachable-rule", msg)


def _duplicate_lints(config: ClassificationConfig, unreachable: Collection[int]) -> Iterator[Lint]:
    order = evaluation_order(config)
    sets = [_keyword_set(rule) for rule in config.rules]
    for pos, index in enumerate(order):
        rule = config.rules[index]
        if index in unreachable:
            continue
        for j, keyword in enumerate(rule.keywords):
            lowered = rust_lower(keyword)
            first_index = next((e for e in order[:pos] if lowered and lowered in sets[e]), None)
            if first_index is None:
                continue
            first = config.rules[first_index]
            where = f"keyword {keyword!r} is also in rule {first_index}"
            key = _key(index, "keywords", j)
            if _contexts_within(rule, first):
                if first.intent != rule.intent:
                    msg = (
                        f"{where} ({first.intent.value}), which is tried first and "
                        f"always wins on it: here it never decides {rule.intent.value}"
                    )
                    yield Lint(index, key, Severity.WARNING, "duplicate-keyword", msg)
                else:
                    msg = f"{where} (same intent), tried first: this copy is redundant"
                    yield Lint(index, key, Severity.INFO, "duplicate-keyword", msg)
            elif first.intent != rule.intent:
                ctx = ", ".join(map(repr, first.requires_any_context))
                msg = f"{where} ({first.intent.value}), which wins on it when {ctx} "
                msg += "is available"
                yield Lint(index, key, Severity.INFO, "duplicate-keyword", msg)


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
            msg = (
                f"rule {index} ({rule.intent.value}) and rule {earlier} "
                f"({first.intent.value}) share priority {rule.priority} and can match "
                f"the same request; rule {earlier} wins only because it comes first "
                "in the file. Give them different priorities to make the order explicit"
            )
            yield Lint(index, _key(index, "priority"), Severity.WARNING, "priority-tie", msg)
            break


class _Entry(NamedTuple):
    word: str
    intent: str
    rule: int
    item: int
    spelling: str


def _entries(config: ClassificationConfig) -> list[_Entry]:
    out: list[_Entry] = []
    seen: set[tuple[str, str]] = set()
    for i, rule in enumerate(config.rules):
        for j, keyword in enumerate(rule.keywords):
            word = rust_lower(keyword)
            if _matchable(keyword) and (word, rule.intent.value) not in seen:
                seen.add((word, rule.intent.value))
                out.append(_Entry(word, rule.intent.value, i, j, keyword))
    return out


def _collision_lints(config: ClassificationConfig) -> Iterator[Lint]:
    rank = {index: pos for pos, index in enumerate(evaluation_order(config))}
    entries = _entries(config)
    for n, a in enumerate(entries):
        for b in entries[n + 1 :]:
            if a.intent == b.intent or a.word in b.word or b.word in a.word:
                continue
            cap_a, cap_b = fuzzy_cap(len(a.word)), fuzzy_cap(len(b.word))
            if abs(len(a.word) - len(b.word)) > cap_a + cap_b:
                continue  # OSA distance is at least the length difference
            distance = osa_distance(a.word, b.word)
            first = a.rule if rank[a.rule] < rank[b.rule] else b.rule
            pair = (
                f"keyword {a.spelling!r} ({a.intent}) and {b.spelling!r} "
                f"({b.intent}, rule {b.rule}) are {distance} edit(s) apart"
            )
            key = _key(a.rule, "keywords", a.item)
            if is_typo(a.word, b.word, cap_a) or is_typo(b.word, a.word, cap_b):
                msg = (
                    f"{pair}, within the typo cap: writing one correctly also matches "
                    f"the other as a typo, and rule {first} is tried first"
                )
                yield Lint(a.rule, key, Severity.WARNING, "typo-collision", msg)
            elif cap_a and cap_b and distance <= cap_a + cap_b:
                msg = f"{pair}: one misspelling may be a typo of both; rule {first} wins"
                yield Lint(a.rule, key, Severity.INFO, "typo-collision", msg)


def _context_lints(config: ClassificationConfig, known: Collection[str]) -> Iterator[Lint]:
    allowed = set(WORKSPACE_CONTEXT_KINDS) | set(known)
    produced = ", ".join(WORKSPACE_CONTEXT_KINDS)
    for i, rule in enumerate(config.rules):
        seen: set[str] = set()
        for j, kind in enumerate(rule.requires_any_context):
            key = _key(i, "requires_any_context", j)
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


_SEVERITY_RANK = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}


def lint_classification(
    config: ClassificationConfig, *, known_contexts: Collection[str] = ()
) -> list[Lint]:
    """Every lint of ``config``, by rule index, then severity, then key path.

    ``known_contexts`` declares context kinds the host supplies beyond the
    workspace's own (``git_diff``, ``git_branch``, ``active_file``,
    ``referenced_paths``).
    """
    unreachable = unreachable_rules(config)
    found = [
        *_keyword_lints(config),
        *_shadow_lints(config, unreachable),
        *_duplicate_lints(config, unreachable),
        *_tie_lints(config, unreachable),
        *_collision_lints(config),
        *_context_lints(config, known_contexts),
        *_inflection_lints(config),
    ]
    return sorted(
        found,
        key=lambda x: (
            -1 if x.rule is None else x.rule,
            _SEVERITY_RANK[x.severity],
            x.key,
        ),
    )
