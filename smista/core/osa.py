"""Bounded OSA distance checks: pure Python first, rapidfuzz's C code once it pays.

Pure; standard library at import time. A one-shot command never pays for
importing rapidfuzz: the first checks run in pure Python, later ones switch
to ``rapidfuzz.distance.OSA`` (same answers). Shared by the engine and the
condition kinds. Must never perform I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["OSA_CHECK", "cap", "osa_within"]


def cap(length: int) -> int:
    """The original's typo cap for a keyword of ``length`` characters (0, 1 or 2)."""
    return 0 if length < 5 else (1 if length < 9 else 2)


def osa_within(a: str, b: str, cap: int) -> int:
    """OSA distance of ``a`` and ``b`` if at most ``cap``, else ``cap + 1`` (pure Python)."""
    la, lb = len(a), len(b)
    if abs(la - lb) > cap:
        return cap + 1
    over = cap + 1
    before: list[int] = []
    prev = list(range(lb + 1))
    for i in range(1, la + 1):
        ai = a[i - 1]
        cur = [i] * (lb + 1)
        for j in range(1, lb + 1):
            bj = b[j - 1]
            v = prev[j - 1] + (ai != bj)
            if prev[j] + 1 < v:
                v = prev[j] + 1
            if cur[j - 1] + 1 < v:
                v = cur[j - 1] + 1
            if i > 1 and j > 1 and ai == b[j - 2] and a[i - 2] == bj and before[j - 2] + 1 < v:
                v = before[j - 2] + 1
            cur[j] = v
        if min(cur) > cap:
            return over
        before, prev = prev, cur
    return prev[lb] if prev[lb] <= cap else over


_PURE_CHECKS = 64
"""OSA checks done in pure Python before switching to rapidfuzz."""


class _Osa:
    """The OSA checker in use: pure Python first, then rapidfuzz (same answers)."""

    __slots__ = ("fast", "left")

    def __init__(self) -> None:
        self.fast: Callable[..., Any] | None = None
        self.left = _PURE_CHECKS

    def within(self, a: str, b: str, cap: int) -> int:
        fast = self.fast
        if fast is not None:
            return int(fast(a, b, score_cutoff=cap))
        self.left -= 1
        if self.left <= 0:
            from rapidfuzz.distance import OSA

            self.fast = OSA.distance
        return osa_within(a, b, cap)


OSA_CHECK = _Osa()
"""The process-wide checker (stateless answers; only its speed changes)."""
