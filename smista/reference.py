"""The original algorithm, rule by rule: the readable statement of first-match-wins.

Pure. Evaluates rules in ``(priority, index)`` order with
:func:`smista.fuzzy.match_keyword` and the first available context in config
order, exactly as the original's ``TaskNormalizer`` does. It is slow on
purpose (no index, no memo): the compiled :class:`smista.engine.CompiledRules`
must give the same :class:`~smista.engine.RuleMatch` for every input, and the
differential tests and benchmarks compare the two. Must never perform I/O.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from smista.engine import RuleMatch, RuleSpec
from smista.fuzzy import match_keyword

__all__ = ["match_rules"]


def match_rules(
    specs: Sequence[RuleSpec], default: str, tokens: Sequence[str], contexts: Collection[str]
) -> RuleMatch:
    """The winning rule for ``tokens`` and ``contexts``, evaluated one rule at a time."""
    order = sorted(range(len(specs)), key=lambda i: (specs[i].priority, i))
    for index in order:
        spec = specs[index]
        keyword: str | None = None
        fuzzy = False
        if spec.keywords:
            hit = match_keyword(spec.keywords, tokens)
            if hit is None:
                continue
            keyword, fuzzy = hit.keyword, hit.fuzzy
        context: str | None = None
        if spec.contexts:
            context = next((c for c in spec.contexts if c in contexts), None)
            if context is None:
                continue
        return RuleMatch(index, spec.label, keyword, fuzzy, context)
    return RuleMatch(None, default)
