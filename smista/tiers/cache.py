"""The tier classification cache: bounded, insertion-ordered, exact keys.

Pure, standard library only. A key is the task, the solution space, the
classifier model, the full (normalized, unrendered) prompt and the ordered
tier ids; the value is the classified tier and its reason. Lookups never
refresh an entry, so eviction drops the entry inserted first (FIFO, as the
seed's ``Map``). Two bounds hold at once: entries (the seed's 256) and the
characters of the request texts they hold (task, solution space and reason:
:data:`CACHE_CHARS`), so 256 tasks of a megabyte each never pile up; an entry
larger than the whole budget is not stored. The model name, the prompt and the
tier ids are one shared object per router and are not counted. Only usable
classifications are stored: failures, timeouts, invalid output and unknown tiers
never are.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import NamedTuple

__all__ = ["CACHE_CHARS", "CACHE_SIZE", "CacheKey", "CachedTier", "TierCache", "cache_key"]

CACHE_SIZE = 256
"""Entries kept per router before the oldest is evicted."""

CACHE_CHARS = 8 * 1024 * 1024
"""Characters of request text (tasks, solution spaces, reasons) kept per router before the
oldest entry is evicted."""


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


def _chars(key: CacheKey, value: CachedTier) -> int:
    """The characters of an entry's own request texts (what :data:`CACHE_CHARS` bounds;
    the model, prompt and tier ids are shared by every entry of a router)."""
    return len(key.task) + len(key.solution_space) + len(value.tier) + len(value.reason or "")


class TierCache:
    """A FIFO-bounded mapping from :class:`CacheKey` to :class:`CachedTier`, bounded by
    entries and by the characters of their texts."""

    __slots__ = ("_chars", "_data", "max_chars", "maxsize")

    def __init__(self, maxsize: int = CACHE_SIZE, max_chars: int = CACHE_CHARS) -> None:
        if maxsize < 1:
            raise ValueError("cache size must be at least 1")
        if max_chars < 1:
            raise ValueError("cache character budget must be at least 1")
        self.maxsize = maxsize
        self.max_chars = max_chars
        self._data: dict[CacheKey, tuple[CachedTier, int]] = {}
        self._chars = 0

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __iter__(self) -> Iterator[CacheKey]:
        """Keys, oldest first."""
        return iter(list(self._data))

    @property
    def chars(self) -> int:
        """The characters the stored entries' texts hold now (at most :attr:`max_chars`)."""
        return self._chars

    def get(self, key: CacheKey) -> CachedTier | None:
        """The stored classification (its position is not refreshed)."""
        got = self._data.get(key)
        return None if got is None else got[0]

    def put(self, key: CacheKey, value: CachedTier) -> None:
        """Store ``value`` (a known key keeps its position); evict the oldest past either
        bound. An entry larger than the whole character budget is not stored (and a stored
        one under its key is dropped: the cache never answers with an older value)."""
        size = _chars(key, value)
        old = self._data.get(key)
        if old is not None:
            self._chars -= old[1]
            if size > self.max_chars:
                del self._data[key]
                return
        elif size > self.max_chars:
            return
        self._data[key] = (value, size)
        self._chars += size
        while self._data and (len(self._data) > self.maxsize or self._chars > self.max_chars):
            oldest = next(iter(self._data))
            self._chars -= self._data.pop(oldest)[1]

    def clear(self) -> None:
        self._data.clear()
        self._chars = 0
