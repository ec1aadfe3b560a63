"""The obvious implementation: a direct Python transliteration of the original.

For each rule in ``(priority, index)`` order, for each keyword, for each token:
whole-token equality, then (if the keyword's cap allows typos) the containment
check and an OSA distance via rapidfuzz. No index, no memo, no precompilation
beyond the rule order. This is the yardstick for "far ahead of the obvious
implementation"; it must give the same answers as the fast path.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from rapidfuzz.distance import OSA

from smista.core.engine import RuleMatch, RuleSpec
from smista.core.tokenizer import rust_lower, tokenize

__all__ = ["BaselineClassifier"]


def _cap(length: int) -> int:
    return 0 if length < 5 else (1 if length < 9 else 2)


def _token_match(keyword: str, tokens: Sequence[str]) -> bool | None:
    """``False`` exact, ``True`` typo, ``None`` no hit (the original's ``token_match``)."""
    needle = rust_lower(keyword)
    for token in tokens:
        if token == needle:
            return False
    cap = _cap(len(needle))
    if cap == 0:
        return None
    for token in tokens:
        if needle in token or token in needle:
            continue
        distance = OSA.distance(needle, token)
        if distance != 0 and distance <= cap:
            return True
    return None


class BaselineClassifier:
    """First-match-wins over rules, evaluated one by one."""

    def __init__(self, specs: Sequence[RuleSpec], default_label: str) -> None:
        self.specs = list(specs)
        self.default = default_label
        self.order = sorted(range(len(self.specs)), key=lambda i: (self.specs[i].priority, i))

    def match(self, text: str, contexts: Collection[str] = ()) -> RuleMatch:
        tokens = tokenize(text)
        for index in self.order:
            spec = self.specs[index]
            keyword: str | None = None
            fuzzy = False
            if spec.keywords:
                # pass 1: first keyword matching exactly; pass 2: first matching by typo
                for k in spec.keywords:
                    if _token_match(k, tokens) is False:
                        keyword = k
                        break
                else:
                    for k in spec.keywords:
                        if _token_match(k, tokens) is True:
                            keyword, fuzzy = k, True
                            break
                    else:
                        continue
            context: str | None = None
            if spec.contexts:
                context = next((c for c in spec.contexts if c in contexts), None)
                if context is None:
                    continue
            return RuleMatch(index, spec.label, keyword, fuzzy, context)
        return RuleMatch(None, self.default)
