"""Typo-tolerant keyword matching, the original's ``normalizer/fuzzy.rs``.

Pure; standard library plus rapidfuzz. This module is the readable statement of
the matching rules (one keyword, a list of tokens). The compiled classifier in
:mod:`smista.core.engine` answers the same questions for many keywords at once and
is tested against these functions.

Rules: a keyword is lowercased but never tokenized; an exact hit is whole-token
equality; otherwise a token is a typo of the keyword when neither contains the
other and their OSA distance is 1..cap, with cap 0/1/2 for keyword lengths
<5 / 5-8 / >=9 characters.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from rapidfuzz.distance import OSA

from smista.core.tokenizer import rust_lower

__all__ = [
    "MAX_FUZZY_DISTANCE",
    "KeywordHit",
    "fuzzy_cap",
    "is_typo",
    "match_keyword",
    "osa_distance",
    "token_match",
]

MAX_FUZZY_DISTANCE = 2
"""The cap never exceeds two edits."""


class KeywordHit(NamedTuple):
    """The keyword that satisfied a rule (configured spelling) and whether only by a typo."""

    keyword: str
    fuzzy: bool


def fuzzy_cap(length: int) -> int:
    """Largest OSA distance tolerated for a keyword of ``length`` characters."""
    if length < 5:
        return 0
    if length < 9:
        return 1
    return MAX_FUZZY_DISTANCE


def osa_distance(a: str, b: str) -> int:
    """Optimal String Alignment distance (unit costs, adjacent transpositions)."""
    return int(OSA.distance(a, b))


def is_typo(needle: str, token: str, cap: int) -> bool:
    """Whether ``token`` is a typo of the (lowercased) ``needle`` within ``cap`` edits.

    A substring relation either way means a different word, never a typo.
    """
    if needle in token or token in needle:
        return False
    distance = OSA.distance(needle, token, score_cutoff=cap)
    return 0 < distance <= cap


def token_match(needle: str, tokens: Iterable[str]) -> bool | None:
    """``False`` for an exact hit, ``True`` for a typo hit, ``None`` for no hit."""
    needle = rust_lower(needle)
    tokens = tuple(tokens)
    if needle in tokens:
        return False
    cap = fuzzy_cap(len(needle))
    if cap == 0:
        return None
    if any(is_typo(needle, token, cap) for token in tokens):
        return True
    return None


def match_keyword(keywords: Sequence[str], tokens: Iterable[str]) -> KeywordHit | None:
    """First keyword (config order) matching exactly; failing that, first matching by typo."""
    tokens = tuple(tokens)
    results = [token_match(keyword, tokens) for keyword in keywords]
    for keyword, result in zip(keywords, results, strict=True):
        if result is False:
            return KeywordHit(keyword, fuzzy=False)
    for keyword, result in zip(keywords, results, strict=True):
        if result is True:
            return KeywordHit(keyword, fuzzy=True)
    return None
