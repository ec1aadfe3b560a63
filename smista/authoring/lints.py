"""Semantic lints of a classification config: what the loader accepts but an author
would want to know before shipping rules.

Pure: takes a validated :class:`ClassificationConfig` and returns :class:`Lint`
records (rule index, key path, severity, code, message); never performs I/O and
never changes how rules behave. Every lint follows from the matcher's semantics
(:mod:`smista.core.fuzzy`): whole-token matching, inflections and truncations never
matching, exact-only short keywords, first match wins in ``(priority, index)``
order.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator

from smista.core.conditions.base import Lint, Severity
from smista.core.conditions.base import rule_key as _key
from smista.core.conditions.registry import KINDS
from smista.core.rules import ClassificationConfig, ClassificationRule
from smista.core.tokenizer import rust_lower

__all__ = [
    "Lint",
    "Severity",
    "can_match",
    "covers",
    "evaluation_order",
    "lint_classification",
    "unreachable_rules",
]


def evaluation_order(config: ClassificationConfig) -> list[int]:
    """Rule indices in the order the classifier tries them (priority, file order)."""
    rules = config.rules
    return sorted(range(len(rules)), key=lambda i: (rules[i].priority, i))


def _keyword_set(rule: ClassificationRule) -> set[str]:
    return {rust_lower(k) for k in rule.keywords if k != ""}


def can_match(rule: ClassificationRule) -> bool:
    """False when the rule lists keywords and every one of them is empty."""
    return not rule.keywords or any(k != "" for k in rule.keywords)


def _typo_within(earlier: ClassificationRule, later: ClassificationRule) -> bool:
    """A typo-off rule does not cover a typo-on one (it misses the typos)."""
    if earlier.typo or not later.typo:
        return True
    return not any(kind.typo_aware and kind.is_set(kind.read(earlier)) for kind in KINDS)


def covers(earlier: ClassificationRule, later: ClassificationRule, *, skip: str = "") -> bool:
    """Whether every request matching ``later`` also matches ``earlier``.

    True when ``earlier`` can match and, for every condition kind (but
    ``skip``), ``earlier``'s condition is absent or holds whenever ``later``'s
    does (:meth:`ConditionKind.covers`; conservative for the extension kinds).
    """
    if not can_match(earlier) or not can_match(later):
        return False
    return _typo_within(earlier, later) and all(
        kind.covers(kind.read(earlier), kind.read(later)) for kind in KINDS if kind.key != skip
    )


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


def _shadow_lints(config: ClassificationConfig, unreachable: dict[int, int]) -> Iterator[Lint]:
    for index, earlier in sorted(unreachable.items()):
        first = config.rules[earlier]
        if not any(kind.is_set(kind.read(first)) for kind in KINDS):
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
            if covers(first, rule, skip="keywords"):
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
                if ctx:
                    msg = f"{where} ({first.intent.value}), which wins on it when {ctx} "
                    msg += "is available"
                else:
                    msg = f"{where} ({first.intent.value}), which wins on it first when "
                    msg += "its other conditions hold"
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
            if any(kind.exclusive(kind.read(first), kind.read(rule)) for kind in KINDS):
                continue
            msg = (
                f"rule {index} ({rule.intent.value}) and rule {earlier} "
                f"({first.intent.value}) share priority {rule.priority} and can match "
                f"the same request; rule {earlier} wins only because it comes first "
                "in the file. Give them different priorities to make the order explicit"
            )
            yield Lint(index, _key(index, "priority"), Severity.WARNING, "priority-tie", msg)
            break


def _model_lints(config: ClassificationConfig) -> Iterator[Lint]:
    """A label's own bar (``min_probability_by_label``) that no ``predicted`` rule reads."""
    table = config.model
    if table is None:
        return
    listed = {label.strip().lower() for rule in config.rules for label in rule.predicted}
    for label in table.min_probability_by_label:
        if label.strip().lower() not in listed:
            key = f"classification.model.min_probability_by_label.{label}"
            msg = (
                f"no rule lists {label.strip().lower()!r} in predicted, so this bar changes nothing"
            )
            yield Lint(None, key, Severity.WARNING, "unused-bar", msg)


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
    known = frozenset(known_contexts)
    found = [
        *_shadow_lints(config, unreachable),
        *_duplicate_lints(config, unreachable),
        *_tie_lints(config, unreachable),
        *_model_lints(config),
    ]
    for kind in KINDS:
        found.extend(kind.lints(config.rules, known))
    return sorted(
        found,
        key=lambda x: (
            -1 if x.rule is None else x.rule,
            _SEVERITY_RANK[x.severity],
            x.key,
        ),
    )
