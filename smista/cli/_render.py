"""Plain-text rendering of an :class:`~smista.explain.Explanation` for people."""

from __future__ import annotations

from smista.explain import Explanation, RuleTrace

__all__ = ["render_explanation"]


def _held(value: bool | None) -> str:
    return "n/a" if value is None else ("yes" if value else "no")


def _rule_lines(rule: RuleTrace) -> list[str]:
    mark = "=> " if rule.winner else "   "
    status = "MATCH" if rule.matched else "no match"
    lines = [
        f"{mark}rule {rule.index} (rank {rule.rank}, priority {rule.priority}) "
        f"-> {rule.intent}: {status}{'  [winner]' if rule.winner else ''}"
    ]
    if rule.keyword_required:
        hit = f" via {rule.keyword!r}{' (typo)' if rule.fuzzy else ''}" if rule.keyword else ""
        lines.append(f"      keywords held: {_held(rule.keyword_held)}{hit}")
        for kw in rule.keywords:
            for ev in kw.evidence:
                verdict = "counts" if ev.counted else "ignored"
                lines.append(
                    f"        {kw.keyword!r} ~ token {ev.token!r}: {ev.note} ({verdict})"
                )
    else:
        lines.append("      keywords: none (condition absent)")
    if rule.context_required:
        via = f" via {rule.context!r}" if rule.context else ""
        lines.append(f"      context held: {_held(rule.context_held)}{via}")
    else:
        lines.append("      contexts: none (condition absent)")
    return lines


_SHOWN_TOKENS = 60


def _tokens(tokens: tuple[str, ...]) -> str:
    if len(tokens) <= _SHOWN_TOKENS:
        return str(list(tokens))
    more = len(tokens) - _SHOWN_TOKENS
    return f"{list(tokens[:_SHOWN_TOKENS])} ... and {more} more (see --json)"


def render_explanation(explanation: Explanation) -> str:
    """A readable multi-line trace."""
    result = explanation.result
    lines = [
        f"tokens:   {_tokens(explanation.tokens)}",
        f"contexts: {list(explanation.contexts)}",
    ]
    if explanation.explicit:
        lines.append("explicit command given: no rule is evaluated")
    else:
        lines.append("rules in evaluation order (priority ascending, then file order):")
        for rule in explanation.rules:
            lines.extend(_rule_lines(rule))
        if explanation.winner is None:
            lines.append("no rule matched: the default intent applies")
    lines.append(
        f"result:   {result.intent} ({result.source}"
        f"{', ' + result.confidence if result.confidence else ''}) - {result.reason}"
    )
    return "\n".join(lines)
