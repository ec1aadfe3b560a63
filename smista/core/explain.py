"""The decision trace: why a request got its intent.

Pure. Re-evaluates every rule in evaluation order and records, per rule,
whether each condition held: for keywords which keyword hit which token
(exactly or at what OSA distance) and the near misses a rule author would
want to know about (inflections, truncations, a typo one edit beyond the
cap); for contexts which kind satisfied it; for every other condition kind
its own account (:meth:`ConditionKind.trace`). Not on the hot path, but
bounded: keyword hits come from the compiled index (one lookup per distinct
token), near misses are looked for among the first :data:`NEAR_MISS_SCAN`
distinct tokens, and at most :data:`TOKENS_SHOWN` tokens are kept.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from smista.core.conditions.registry import BY_KEY
from smista.core.conditions.view import PromptView
from smista.core.engine import CompiledRules
from smista.core.osa import OSA_CHECK
from smista.core.osa import cap as fuzzy_cap
from smista.core.result import Classification
from smista.core.tokenizer import rust_lower

__all__ = [
    "ConditionTrace",
    "Explanation",
    "KeywordTrace",
    "RuleTrace",
    "TokenEvidence",
    "explain_rules",
]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TokenEvidence(_Frozen):
    """One prompt token compared with one keyword."""

    token: str
    distance: int
    counted: bool
    note: str


class KeywordTrace(_Frozen):
    """How one configured keyword fared against the prompt's tokens."""

    keyword: str
    normalized: str
    cap: int
    result: str  # "exact", "typo" or "none"
    evidence: tuple[TokenEvidence, ...] = ()


class ConditionTrace(_Frozen):
    """How one extension condition (phrases, question ...) fared."""

    kind: str
    held: bool
    note: str


class RuleTrace(_Frozen):
    """One rule, in evaluation order."""

    rank: int
    index: int
    intent: str
    priority: int
    keyword_required: bool
    keyword_held: bool | None
    keyword: str | None
    fuzzy: bool
    keywords: tuple[KeywordTrace, ...]
    context_required: bool
    context_held: bool | None
    context: str | None
    conditions: tuple[ConditionTrace, ...] = ()
    matched: bool
    winner: bool


class Explanation(_Frozen):
    """The full trace behind one classification."""

    tokens: tuple[str, ...]
    token_count: int
    contexts: tuple[str, ...]
    explicit: bool
    rules: tuple[RuleTrace, ...]
    winner: int | None
    result: Classification


NEAR_MISS_LENGTH = 4
"""Containment near misses are reported up to this length difference (inflections)."""

NEAR_MISS_SCAN = 5000
"""Near misses are looked for among this many distinct tokens (the first ones);
exact and typo evidence always covers every token."""

TOKENS_SHOWN = 5000
"""At most this many prompt tokens are kept in an :class:`Explanation`."""


class _Prompt:
    """The prompt's distinct tokens and the keyword hits the index finds for them."""

    def __init__(self, rules: CompiledRules, tokens: Sequence[str]) -> None:
        self.distinct = tuple(dict.fromkeys(tokens))
        self.present = frozenset(self.distinct)
        self.scan = self.distinct[:NEAR_MISS_SCAN]
        self.typo_hits: dict[str, list[str]] = {}
        for token in self.distinct:
            for keyword, fuzzy in rules.keyword_hits(token):
                if fuzzy:
                    self.typo_hits.setdefault(keyword, []).append(token)


def _distance(a: str, b: str, cap: int) -> int:
    return OSA_CHECK.within(a, b, cap)


def _keyword_trace(keyword: str, prompt: _Prompt, typo: bool) -> KeywordTrace:
    needle = rust_lower(keyword)
    cap = fuzzy_cap(len(needle)) if typo else 0
    evidence: list[TokenEvidence] = []
    result = "none"
    if needle in prompt.present:
        result = "exact"
        evidence.append(TokenEvidence(token=needle, distance=0, counted=True, note="exact"))
    if not needle:
        return KeywordTrace(keyword=keyword, normalized=needle, cap=cap, result=result)
    seen: set[str] = {needle}
    if cap:
        for token in prompt.typo_hits.get(needle, ()):
            seen.add(token)
            distance = _distance(needle, token, cap)
            note = f"typo at OSA distance {distance}"
            evidence.append(TokenEvidence(token=token, distance=distance, counted=True, note=note))
            if result == "none":
                result = "typo"
    size = len(needle)
    for token in prompt.scan:
        if token in seen or abs(len(token) - size) > NEAR_MISS_LENGTH:
            continue
        if size >= 3 and (token.startswith(needle) or needle.startswith(token)) and len(token) >= 3:
            if len(token) > size:
                note = "token contains the keyword: a different word, not a typo"
            else:
                note = "keyword contains the token: a different word, not a typo"
            distance = abs(len(token) - size)
            evidence.append(TokenEvidence(token=token, distance=distance, counted=False, note=note))
            seen.add(token)
        elif (
            cap
            and abs(len(token) - size) <= cap + 1
            and needle not in token
            and token not in needle
            and _distance(needle, token, cap + 1) == cap + 1
        ):
            note = f"OSA distance {cap + 1} exceeds the cap {cap} for a {size}-character keyword"
            evidence.append(TokenEvidence(token=token, distance=cap + 1, counted=False, note=note))
            seen.add(token)
    return KeywordTrace(
        keyword=keyword, normalized=needle, cap=cap, result=result, evidence=tuple(evidence)
    )


def explain_rules(
    rules: CompiledRules,
    tokens: Sequence[str],
    contexts: frozenset[str],
    result: Classification,
    *,
    explicit: bool,
    text: str | None = None,
) -> Explanation:
    """Trace every rule of ``rules`` in evaluation order.

    ``tokens`` are the tokens the rules see (of the visible text when
    ``ignore_code`` is on); ``text`` the prompt itself, which the extension
    kinds read (without it the tokens joined by spaces stand in).
    """
    prompt = _Prompt(rules, tokens)
    view = PromptView(
        text if text is not None else " ".join(tokens),
        contexts,
        rules.options,
        tokens=list(tokens),
        corrected=None if rules.options.model is None else rules.corrections(tokens),
    )
    traces: list[RuleTrace] = []
    winner: int | None = None
    for rank, index in enumerate(rules.order):
        spec = rules.specs[index]
        kw_traces = tuple(_keyword_trace(k, prompt, spec.typo) for k in spec.keywords)
        keyword: str | None = None
        fuzzy = False
        if spec.keywords:
            exact = next((t.keyword for t in kw_traces if t.result == "exact"), None)
            typo = next((t.keyword for t in kw_traces if t.result == "typo"), None)
            keyword, fuzzy = (exact, False) if exact is not None else (typo, typo is not None)
        context = next((c for c in spec.contexts if c in contexts), None)
        keyword_held = (keyword is not None) if spec.keywords else None
        context_held = (context is not None) if spec.contexts else None
        conditions = tuple(
            ConditionTrace(
                kind=c.kind,
                held=BY_KEY[c.kind].match(c, view) is not None,
                note=BY_KEY[c.kind].trace(c, view),
            )
            for c in spec.conditions
        )
        matched = (
            keyword_held is not False
            and context_held is not False
            and all(c.held for c in conditions)
        )
        is_winner = matched and winner is None and not explicit
        if is_winner:
            winner = index
        traces.append(
            RuleTrace(
                rank=rank,
                index=index,
                intent=spec.label,
                priority=spec.priority,
                keyword_required=bool(spec.keywords),
                keyword_held=keyword_held,
                keyword=keyword,
                fuzzy=fuzzy,
                keywords=kw_traces,
                context_required=bool(spec.contexts),
                context_held=context_held,
                context=context,
                conditions=conditions,
                matched=matched,
                winner=is_winner,
            )
        )
    return Explanation(
        tokens=tuple(tokens[:TOKENS_SHOWN]),
        token_count=len(tokens),
        contexts=tuple(sorted(contexts)),
        explicit=explicit,
        rules=tuple(traces),
        winner=winner,
        result=result,
    )
