"""A usage ledger: token usage of successful decision calls, per provider and model.

Pure (in-memory, thread-safe). The decision stage adds the usage of every
call that produced a valid result; a host reads the totals whenever it likes.
The model is the one the upstream's reply names, so the ledger is bounded
whatever an upstream sends: model names are cut to :data:`MODEL_CHARS`
characters and, past :data:`KEYS_LIMIT` distinct keys, a new one is counted
under its provider's :data:`OTHER` entry.
"""

from __future__ import annotations

import threading

from smista.core.decisionresult import Usage

__all__ = ["KEYS_LIMIT", "MODEL_CHARS", "OTHER", "UsageLedger"]


KEYS_LIMIT = 256
"""Most distinct ``(provider, model)`` entries a ledger keeps apart."""
MODEL_CHARS = 128
"""Longest model name a ledger keeps (a longer one is cut)."""
OTHER = "(other)"
"""The model a new key is counted under once the ledger holds :data:`KEYS_LIMIT` keys."""


class UsageLedger:
    """Accumulated token usage, keyed by ``(provider, model)``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._usage: dict[tuple[str, str], Usage] = {}
        self._calls: dict[tuple[str, str], int] = {}

    def record(self, provider: str, model: str, usage: Usage) -> None:
        """Add one call's usage (under ``(provider, OTHER)`` when the ledger is full)."""
        key = (provider[:MODEL_CHARS], model[:MODEL_CHARS])
        with self._lock:
            if key not in self._usage and len(self._usage) >= KEYS_LIMIT:
                key = (key[0], OTHER)
            self._usage[key] = self._usage.get(key, Usage()) + usage
            self._calls[key] = self._calls.get(key, 0) + 1

    def entries(self) -> dict[tuple[str, str], Usage]:
        """A snapshot of the per-(provider, model) totals."""
        with self._lock:
            return dict(self._usage)

    def calls(self, provider: str, model: str) -> int:
        """How many calls were recorded for ``(provider, model)`` (names cut as recorded)."""
        with self._lock:
            return self._calls.get((provider[:MODEL_CHARS], model[:MODEL_CHARS]), 0)

    @property
    def total(self) -> Usage:
        """Usage summed over every provider and model."""
        with self._lock:
            out = Usage()
            for usage in self._usage.values():
                out = out + usage
            return out

    def __repr__(self) -> str:
        total = self.total
        return (
            f"UsageLedger(input_tokens={total.input_tokens}, output_tokens={total.output_tokens})"
        )
