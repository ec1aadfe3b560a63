"""The deterministic tier classifier: tier rules on the shared compiled engine.

Pure (standard library plus rapidfuzz, through :mod:`smista.core.engine`). Tier
rules are classification rules whose label is a tier id; they are compiled by
the same :class:`~smista.core.engine.CompiledRules` as intent rules, so matching,
typo tolerance, priorities and first-match-wins are identical. The text
matched is the task followed by the solution space. The context kinds are
those the caller names, plus ``solution_space`` when solution-space text is
given. Never performs I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple, Protocol

from smista.core.engine import CompiledRules, RuleMatch, RuleSpec, reason_of
from smista.core.tokenizer import tokenize

__all__ = [
    "SOLUTION_SPACE_CONTEXT",
    "RuleVerdict",
    "TierRuleLike",
    "compile_tier_rules",
    "match_tier",
]

SOLUTION_SPACE_CONTEXT = "solution_space"
"""Context kind available to rules when the caller gives solution-space text."""


class TierRuleLike(Protocol):
    """What the compiler reads from a rule (:class:`smista.tiers.TierRule` fits)."""

    @property
    def tier(self) -> str: ...
    @property
    def priority(self) -> int: ...
    @property
    def keywords(self) -> tuple[str, ...]: ...
    @property
    def requires_any_context(self) -> tuple[str, ...]: ...


class RuleVerdict(NamedTuple):
    """A rules classification: the tier (``None``: no rule matched) and why."""

    tier: str | None
    reason: str
    match: RuleMatch


def compile_tier_rules(rules: Sequence[TierRuleLike], default_tier: str) -> CompiledRules:
    """The matcher for tier rules; labels are tier ids."""
    return CompiledRules(
        (
            RuleSpec(rule.tier, rule.priority, rule.keywords, rule.requires_any_context)
            for rule in rules
        ),
        default_tier,
    )


def match_tier(
    compiled: CompiledRules,
    task: str | None,
    solution_space: str | None,
    contexts: Iterable[str] = (),
) -> RuleVerdict:
    """Run the tier rules over a task; ``tier`` is ``None`` when no rule matched."""
    tokens = tokenize(task or "")
    if solution_space:
        tokens += tokenize(solution_space)
    kinds = set(contexts)
    if solution_space:
        kinds.add(SOLUTION_SPACE_CONTEXT)
    match = compiled.match(tokens, frozenset(kinds))
    if match.rule is None:
        return RuleVerdict(None, f"no tier rule matched; default tier '{match.label}'", match)
    return RuleVerdict(match.label, reason_of(match), match)
