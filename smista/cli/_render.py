"""Plain-text rendering of an :class:`~smista.core.explain.Explanation` for people.

Compact by design: one line per rule (its intent, priority and what it asks
for), then only the evidence that matters: conditions that held, at most
:data:`NEAR_MISSES_SHOWN` near misses per keyword, and the winner's
conditions. ``--json`` has everything.
"""

from __future__ import annotations

from smista.core.explain import Explanation, RuleTrace

__all__ = ["render_explanation"]

NEAR_MISSES_SHOWN = 2
"""Near misses shown per keyword (the JSON trace has them all)."""

_SHOWN_TOKENS = 60
_SUMMARY_ITEMS = 3


def _summary(rule: RuleTrace) -> str:
    """What the rule asks for, briefly: ``keywords 'fix', 'bug' +3; phrases ...``."""
    parts: list[str] = []
    if rule.keywords:
        shown = ", ".join(repr(k.keyword) for k in rule.keywords[:_SUMMARY_ITEMS])
        more = len(rule.keywords) - _SUMMARY_ITEMS
        parts.append(f"keywords {shown}{f' +{more}' if more > 0 else ''}")
    parts.extend(c.kind for c in rule.conditions)
    if rule.context_required:
        parts.append("context")
    return "; ".join(parts) if parts else "no conditions (catch-all)"


def _rule_lines(rule: RuleTrace) -> list[str]:
    mark = "=> " if rule.winner else "   "
    status = "MATCH" if rule.matched else "no match"
    lines = [
        f"{mark}rule {rule.index} {rule.intent} (priority {rule.priority}) "
        f"[{_summary(rule)}]: {status}{'  <- winner' if rule.winner else ''}"
    ]
    if rule.keyword_required and rule.keyword:
        typo = " (typo)" if rule.fuzzy else ""
        lines.append(f"      keyword held via {rule.keyword!r}{typo}")
    for kw in rule.keywords:
        for ev in kw.evidence:
            if ev.counted and ev.distance:
                lines.append(f"      {kw.keyword!r} ~ {ev.token!r}: {ev.note}")
        misses = [ev for ev in kw.evidence if not ev.counted]
        for ev in misses[:NEAR_MISSES_SHOWN]:
            lines.append(f"      near miss: {kw.keyword!r} ~ {ev.token!r}: {ev.note}")
        if len(misses) > NEAR_MISSES_SHOWN:
            lines.append(f"      ... {len(misses) - NEAR_MISSES_SHOWN} more near misses (--json)")
    for condition in rule.conditions:
        if condition.held or rule.winner or rule.keyword_held:
            lines.append(f"      {condition.kind}: {condition.note}")
    if rule.context_required and (rule.context or rule.keyword_held):
        held = f"held via {rule.context!r}" if rule.context else "not available"
        lines.append(f"      context {held}")
    return lines


def _tokens(explanation: Explanation) -> str:
    tokens = explanation.tokens[:_SHOWN_TOKENS]
    more = explanation.token_count - len(tokens)
    return str(list(tokens)) + (f" ... and {more} more (see --json)" if more > 0 else "")


def render_explanation(explanation: Explanation) -> str:
    """A readable multi-line trace."""
    result = explanation.result
    lines = [
        f"tokens:   {_tokens(explanation)}",
        f"contexts: {list(explanation.contexts)}",
    ]
    if explanation.explicit:
        lines.append("explicit command given: no rule is evaluated")
    else:
        lines.append("rules in evaluation order (priority ascending, then file order):")
        decided = False
        skipped = 0
        for rule in explanation.rules:
            if decided and not rule.matched:
                skipped += 1
                continue
            lines.extend(_rule_lines(rule))
            decided = decided or rule.winner
        if skipped:
            lines.append(f"   ({skipped} later rules that do not match are left out; see --json)")
        if explanation.winner is None:
            lines.append("no rule matched: the default intent applies")
    lines.append(
        f"result:   {result.intent} ({result.source}"
        f"{', ' + result.confidence if result.confidence else ''}) - {result.reason}"
    )
    return "\n".join(lines)
