"""The decision trace: why a request got its intent.

Pure. Re-evaluates every rule in evaluation order with the readable matching
functions of :mod:`smista.fuzzy` and records, per rule, whether each condition
held, which keyword hit which token (exactly or at what OSA distance), near
misses a rule author would want to know about (inflections, truncations,
distances beyond the cap), and which context satisfied it. Not on the hot path.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict
from rapidfuzz import process
from rapidfuzz.distance import OSA

from smista.engine import CompiledRules
from smista.fuzzy import MAX_FUZZY_DISTANCE, fuzzy_cap, osa_distance
from smista.result import Classification
from smista.tokenizer import rust_lower

__all__ = ["Explanation", "KeywordTrace", "RuleTrace", "TokenEvidence", "explain_rules"]


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
    matched: bool
    winner: bool


class Explanation(_Frozen):
    """The full trace behind one classification."""

    tokens: tuple[str, ...]
    contexts: tuple[str, ...]
    explicit: bool
    rules: tuple[RuleTrace, ...]
    winner: int | None
    result: Classification


_NEAR_MISS_LENGTH = 4
"""Containment near misses are reported up to this length difference (inflections)."""

NEAR_MISS_SCAN = 5000
"""Containment near misses are looked for among this many distinct tokens (the first
ones); exact and typo evidence always covers every token."""


class _Tokens:
    """The prompt's distinct tokens, grouped by length for typo candidate scans."""

    def __init__(self, tokens: Sequence[str]) -> None:
        self.distinct = tuple(dict.fromkeys(tokens))
        self.present = frozenset(self.distinct)
        self._bands: dict[int, list[str]] = {}
        self.scan = self.distinct[:NEAR_MISS_SCAN]

    def near(self, size: int) -> list[str]:
        """Tokens whose length is within the largest typo distance of ``size``, in order."""
        band = self._bands.get(size)
        if band is None:
            lengths = range(size - MAX_FUZZY_DISTANCE, size + MAX_FUZZY_DISTANCE + 1)
            band = [t for t in self.distinct if len(t) in lengths]
            self._bands[size] = band
        return band


def _keyword_trace(keyword: str, tokens: _Tokens) -> KeywordTrace:
    needle = rust_lower(keyword)
    cap = fuzzy_cap(len(needle))
    evidence: list[TokenEvidence] = []
    result = "none"
    if needle in tokens.present:
        result = "exact"
        evidence.append(TokenEvidence(token=needle, distance=0, counted=True, note="exact"))
    if not needle:
        return KeywordTrace(keyword=keyword, normalized=needle, cap=cap, result=result)
    size = len(needle)
    seen: set[str] = {needle}
    # Containment near misses (inflections, truncations) among the first tokens.
    for token in tokens.scan:
        if token in seen or abs(len(token) - size) > _NEAR_MISS_LENGTH:
            continue
        if needle in token:
            note = "token contains the keyword: a different word, not a typo"
        elif token in needle:
            note = "keyword contains the token: a different word, not a typo"
        else:
            continue
        seen.add(token)
        evidence.append(
            TokenEvidence(
                token=token, distance=osa_distance(needle, token), counted=False, note=note
            )
        )
    # Typo hits and distance misses among every token of a nearby length.
    close = process.extract(
        needle, tokens.near(size), scorer=OSA.distance, score_cutoff=MAX_FUZZY_DISTANCE, limit=None
    )
    for token, score, _ in sorted(close, key=lambda hit: hit[2]):  # prompt order
        distance = int(score)
        if token in seen or needle in token or token in needle:
            continue
        seen.add(token)
        if distance > cap:
            note = f"OSA distance {distance} exceeds the cap {cap} for a {size}-character keyword"
            counted = False
        else:
            note, counted = f"typo at OSA distance {distance}", True
            if result == "none":
                result = "typo"
        evidence.append(TokenEvidence(token=token, distance=distance, counted=counted, note=note))
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
) -> Explanation:
    """Trace every rule of ``rules`` in evaluation order against ``tokens``/``contexts``."""
    prompt = _Tokens(tokens)
    traces: list[RuleTrace] = []
    winner: int | None = None
    for rank, index in enumerate(rules.order):
        spec = rules.specs[index]
        kw_traces = tuple(_keyword_trace(k, prompt) for k in spec.keywords)
        keyword: str | None = None
        fuzzy = False
        if spec.keywords:
            exact = next((t.keyword for t in kw_traces if t.result == "exact"), None)
            typo = next((t.keyword for t in kw_traces if t.result == "typo"), None)
            keyword, fuzzy = (exact, False) if exact is not None else (typo, typo is not None)
        context = next((c for c in spec.contexts if c in contexts), None)
        keyword_held = (keyword is not None) if spec.keywords else None
        context_held = (context is not None) if spec.contexts else None
        matched = keyword_held is not False and context_held is not False
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
                matched=matched,
                winner=is_winner,
            )
        )
    return Explanation(
        tokens=tuple(tokens),
        contexts=tuple(sorted(contexts)),
        explicit=explicit,
        rules=tuple(traces),
        winner=winner,
        result=result,
    )
