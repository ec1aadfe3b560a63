"""One word against one token, with the keyword typo rules: the extension kinds' matcher.

Pure; standard library at import time (:mod:`smista.core.osa` switches to
rapidfuzz only after a few checks). Same semantics as :mod:`smista.core.fuzzy`:
exact equality, else a typo when neither contains the other and the OSA
distance is 1..cap (cap 0/1/2 for <5/5-8/>=9 characters). Must never perform I/O.
"""

from __future__ import annotations

from smista.core.osa import OSA_CHECK, cap

__all__ = ["word_match"]


def word_match(word: str, token: str, *, typo: bool) -> bool | None:
    """``False`` for an exact hit, ``True`` for a typo hit, ``None`` for a miss.

    ``word`` is already lowercased; ``typo=False`` allows only equality.
    """
    if word == token:
        return False
    if not typo:
        return None
    limit = cap(len(word))
    if not limit or abs(len(word) - len(token)) > limit or word in token or token in word:
        return None
    return True if OSA_CHECK.within(word, token, limit) <= limit else None
