"""The tier classification cache: bounded, insertion-ordered, exact keys.

Pure, standard library only. A key is the task, the solution space, the
classifier model, the full (normalized, unrendered) prompt and the ordered
tier ids; the value is the classified tier and its reason. Lookups never
refresh an entry, so eviction drops the entry inserted first (FIFO, as the
seed's ``Map``). Only usable classifications are stored: failures, timeouts,
invalid output and unknown tiers never are.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import NamedTuple

__all__ = ["CACHE_SIZE", "CacheKey", "CachedTier", "TierCache", "cache_key"]

CACHE_SIZE = 256
"""Entries kept per router before the oldest is evicted."""


class CacheKey(NamedTuple):
    """Everything a classification depends on (the tier -> model mapping is not)."""

    task: str
    solution_space: str
    model: str
    prompt: str
    tier_ids: tuple[str, ...]


class CachedTier(NamedTuple):
    """A stored classification."""

    tier: str
    reason: str | None


def cache_key(
    task: str | None,
    solution_space: str | None,
    model: str,
    prompt: str,
    tier_ids: Sequence[str],
) -> CacheKey:
    """The key for one classification (missing texts count as empty)."""
    return CacheKey(task or "", solution_space or "", model, prompt, tuple(tier_ids))


class TierCache:
    """A FIFO-bounded mapping from :class:`CacheKey` to :class:`CachedTier`."""

    __slots__ = ("_data", "maxsize")

    def __init__(self, maxsize: int = CACHE_SIZE) -> None:
        if maxsize < 1:
            raise ValueError("cache size must be at least 1")
        self.maxsize = maxsize
        self._data: dict[CacheKey, CachedTier] = {}

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __iter__(self) -> Iterator[CacheKey]:
        """Keys, oldest first."""
        return iter(list(self._data))

    def get(self, key: CacheKey) -> CachedTier | None:
        """The stored classification (its position is not refreshed)."""
        return self._data.get(key)

    def put(self, key: CacheKey, value: CachedTier) -> None:
        """Store ``value`` (a known key keeps its position); evict the oldest past the bound."""
        self._data[key] = value
        while len(self._data) > self.maxsize:
            del self._data[next(iter(self._data))]

    def clear(self) -> None:
        self._data.clear()
