"""A short, obviously-correct reference classifier, written from the spec alone.

Used by the differential tests: no indexes, no memo, no rapidfuzz; rules are
evaluated one by one, keyword by keyword, token by token. Tokenization is the
one shared piece (it is tested separately against Rust's own output).
"""

from __future__ import annotations

from typing import Any

from smista.tokenizer import rust_lower, tokenize


def osa(a: str, b: str) -> int:
    """Optimal String Alignment distance by dynamic programming."""
    d = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        d[i][0] = i
    for j in range(len(b) + 1):
        d[0][j] = j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]


def cap(n: int) -> int:
    return 0 if n < 5 else 1 if n < 9 else 2


def keyword_result(keyword: str, tokens: list[str]) -> str | None:
    needle = rust_lower(keyword)
    if needle in tokens:
        return "exact"
    c = cap(len(needle))
    for t in tokens:
        if c and needle not in t and t not in needle and 0 < osa(needle, t) <= c:
            return "fuzzy"
    return None


def classify(
    text: str, config: dict[str, Any], contexts: set[str], command: str | None = None
) -> dict[str, Any]:
    """The wire JSON the original gives for this request."""
    if command is not None:
        return {"intent": command, "source": "explicit", "reason": f"explicit command '{command}'"}
    tokens = tokenize(text)
    rules = config.get("rules", [])
    order = sorted(range(len(rules)), key=lambda i: (rules[i].get("priority", 1000), i))
    for i in order:
        rule = rules[i]
        keywords = rule.get("keywords", [])
        wanted = rule.get("requires_any_context", [])
        hit = None
        fuzzy = False
        if keywords:
            results = [keyword_result(k, tokens) for k in keywords]
            exact = [k for k, r in zip(keywords, results, strict=True) if r == "exact"]
            typo = [k for k, r in zip(keywords, results, strict=True) if r == "fuzzy"]
            if exact:
                hit = exact[0]
            elif typo:
                hit, fuzzy = typo[0], True
            else:
                continue
        ctx = None
        if wanted:
            present = [c for c in wanted if c in contexts]
            if not present:
                continue
            ctx = present[0]
        if hit is not None and ctx is not None:
            reason = f"keyword '{hit}' and context '{ctx}' matched rule {i}"
            confidence = "medium" if fuzzy else "high"
        elif hit is not None:
            reason, confidence = f"keyword '{hit}' matched rule {i}", "medium"
        elif ctx is not None:
            reason, confidence = f"context '{ctx}' matched rule {i}", "medium"
        else:
            reason, confidence = f"catch-all rule {i} matched", "low"
        return {
            "intent": rule["intent"],
            "source": "inferred",
            "reason": reason,
            "matched_rule": i,
            "confidence": confidence,
        }
    default = config.get("default_intent", "chat")
    return {
        "intent": default,
        "source": "inferred",
        "reason": f"no rule matched; default intent '{default}'",
        "confidence": "low",
    }
