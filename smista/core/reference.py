"""First-match-wins, rule by rule: the readable statement of the algorithm.

Pure. Evaluates rules in ``(priority, index)`` order, each condition with its
kind's plain semantics (:meth:`ConditionKind.match`: for keywords the rules
of :mod:`smista.core.fuzzy`, first available context in config order), exactly
as the original's ``TaskNormalizer`` does for its two kinds. It is slow on
purpose (no index, no memo): the compiled :class:`smista.core.engine.CompiledRules`
must give the same :class:`~smista.core.engine.RuleMatch` for every input, and
the differential tests and benchmarks compare the two. Must never perform I/O.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from smista.core.conditions.base import Condition, Evidence
from smista.core.conditions.registry import BY_KEY, ORDER
from smista.core.conditions.view import PlanOptions, PromptView, is_hangul_or_han
from smista.core.engine import RuleMatch, RuleSpec
from smista.core.fuzzy import fuzzy_cap, is_typo
from smista.core.tokenizer import rust_lower

__all__ = ["match_rules"]


def _conditions(spec: RuleSpec) -> list[Condition]:
    """Every condition of ``spec``, the indexed kinds included, in reason order."""
    found = list(spec.conditions)
    if spec.keywords:
        found.append(Condition("keywords", spec.keywords, spec.typo))
    if spec.contexts:
        found.append(Condition("requires_any_context", spec.contexts))
    return sorted(found, key=lambda c: ORDER[c.kind])


def corrections(
    specs: Sequence[RuleSpec], tokens: Sequence[str], options: PlanOptions
) -> frozenset[str]:
    """The keywords (lowercased) rules read misspelt tokens as: for each token and each
    rule whose typo switch is on that has no keyword equal to it, the rule's first keyword
    the token is a typo of (never a Hangul or Han keyword with ``hangul_han_typos`` off):
    what a text model reads besides the tokens. Rule by rule, keyword by keyword, with
    :func:`smista.core.fuzzy.is_typo`."""
    distinct = set(tokens)
    found: set[str] = set()
    for spec in specs:
        lowered = [rust_lower(keyword) for keyword in spec.keywords]
        if not spec.typo:
            continue
        for token in distinct:
            if token in lowered:  # (the rule reads it exactly)
                continue
            for keyword in lowered:
                if not options.hangul_han_typos and is_hangul_or_han(keyword):
                    continue
                cap = fuzzy_cap(len(keyword))
                if cap and is_typo(keyword, token, cap):
                    found.add(keyword)
                    break
    return frozenset(found)


def match_rules(
    specs: Sequence[RuleSpec],
    default: str,
    tokens: Sequence[str],
    contexts: Collection[str],
    *,
    text: str | None = None,
    options: PlanOptions | None = None,
) -> RuleMatch:
    """The winning rule for a prompt, evaluated one rule at a time.

    ``text`` is the prompt itself (needed by extension kinds such as
    ``commands`` and ``question``; without it the tokens joined by spaces
    stand in); ``tokens`` must be its tokens (of its visible text when
    ``options.ignore_code`` is on).
    """
    corrected = None
    if options is not None and options.model is not None:
        corrected = corrections(specs, tokens, options)
    view = PromptView(
        text if text is not None else " ".join(tokens),
        contexts,
        options,
        tokens=list(tokens),
        corrected=corrected,
    )
    order = sorted(range(len(specs)), key=lambda i: (specs[i].priority, i))
    for index in order:
        spec = specs[index]
        keyword: Evidence | None = None
        context: Evidence | None = None
        extra: list[Evidence] = []
        for condition in _conditions(spec):
            evidence = BY_KEY[condition.kind].match(condition, view)
            if evidence is None:
                break
            if condition.kind == "keywords":
                keyword = evidence
            elif condition.kind == "requires_any_context":
                context = evidence
            else:
                extra.append(evidence)
        else:
            return RuleMatch(
                index,
                spec.label,
                None if keyword is None else keyword.shown,
                keyword is not None and keyword.fuzzy,
                None if context is None else context.shown,
                tuple(extra),
            )
    return RuleMatch(None, default)
