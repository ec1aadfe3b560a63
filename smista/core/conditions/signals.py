"""The per-token memo of word and prefix lookups that the extension kinds share.

Pure. A rule set's phrases and leading words look up *words* (each token
against every word, typo-tolerant), its stems look up *prefixes* (which of
the rule set's stems a token starts with). Both depend on the token alone, so
the engine keeps one :class:`TokenSignals` per compiled rule set and every
prompt's :class:`~smista.core.conditions.view.PromptView` asks it:

* a token is resolved once, into ``(words it hits, stems it starts with)``;
* tokens known to hit nothing are kept in :attr:`TokenSignals.silent`, so a
  prompt's interesting tokens are one C set difference away;
* tokens that can hit no word (the word index's ``hopeless`` test) and start
  no stem are never remembered (numbers, hashes: each is new);
* the memo is bounded and forgets its oldest quarter when full, never
  everything at once;
* with a compiled token table (``smista.core._speedups.TokenCodes``, given by
  the engine), :meth:`TokenSignals.candidates` finds a text's tokens that may
  hit something in one C pass over its characters: tokens known to hit
  nothing are skipped there, without creating objects.

The answers are those of the plain lookups (``word_match`` against every
word, ``str.startswith`` against every stem); the memo only saves work.
Must never perform I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import islice
from typing import Any

from smista.core.tokenizer import pieces, rust_lower

__all__ = ["SCAN_LIMIT", "Signal", "TokenSignals"]

Signal = tuple[tuple[tuple[str, bool], ...], tuple[str, ...]]
"""``((word, fuzzy), ...), (stem, ...)``: what one token hits."""

_NOTHING: Signal = ((), ())

SCAN_LIMIT = 1 << 20
"""Longest text (characters) :meth:`TokenSignals.candidates` scans in C (the engine's
``LARGE_TEXT``): the C pass lists every occurrence of a hitting token."""


class TokenSignals:
    """Words and stems per token, remembered (bounded)."""

    __slots__ = (
        "_firsts",
        "_hopeless",
        "_lengths",
        "_limit",
        "_lookup",
        "_table",
        "memo",
        "silent",
        "stems",
    )

    def __init__(
        self,
        lookup: Callable[[str], Iterable[tuple[str, bool]]] | None,
        hopeless: Callable[[str], bool] | None,
        stems: Iterable[str],
        limit: int,
        table: Any = None,
    ) -> None:
        """``lookup(token)``: the words ``token`` hits (``None``: no words);
        ``hopeless(token)``: whether it can hit none (``None``: no such test);
        ``stems``: lowercased prefixes; ``table``: an empty compiled token table, or
        ``None``."""
        self._lookup = lookup
        self._hopeless = hopeless
        self.stems = frozenset(s for s in stems if s)
        self._lengths = tuple(sorted({len(s) for s in self.stems}))
        self._firsts = frozenset(s[0] for s in self.stems)
        self._limit = limit
        self.memo: dict[str, Signal] = {}
        self.silent: dict[str, None] = {}
        self._table = table

    def candidates(self, text: str) -> list[str] | None:
        """The distinct tokens of ``text`` that may hit a word or stem (lowercased), or
        ``None`` without a compiled table (then: the tokens not in :attr:`silent`).

        A text longer than :data:`SCAN_LIMIT` is scanned piece by piece (the C
        pass lists every occurrence of a hitting token), so memory stays bounded
        by a piece and the tokens that hit something.
        """
        table = self._table
        if table is None:
            return None
        out: dict[str, None] = {}
        for piece in pieces(text, SCAN_LIMIT):
            found, unknown = table.hits(piece)
            for raw in found:
                out[raw if raw.isascii() else rust_lower(raw)] = None
            for raw in unknown:
                token = raw if raw.isascii() else rust_lower(raw)
                hit, starts = self.of(token)
                if hit or starts:
                    table.put(raw, 1)
                    out[token] = None
                elif token in self.silent:
                    table.put(raw, None)
                # else: a token that can never hit anything is not remembered
        return list(out)

    def of(self, token: str) -> Signal:
        """The words ``token`` hits (and whether by typo) and the stems it starts with."""
        found = self.memo.get(token)
        if found is not None:
            return found
        if token in self.silent:
            return _NOTHING
        lookup = self._lookup
        hopeless = self._hopeless
        matchable = lookup is not None and (hopeless is None or not hopeless(token))
        words = tuple(lookup(token)) if matchable and lookup is not None else ()
        stems = self.stems
        prefixes = (
            tuple(p for n in self._lengths if n <= len(token) and (p := token[:n]) in stems)
            if token and token[0] in self._firsts
            else ()
        )
        if words or prefixes:
            found = (words, prefixes)
            self._keep(self.memo, token, found)
            return found
        if matchable:  # a word-like token hitting nothing; hopeless ones are not kept
            self._keep(self.silent, token, None)
        return _NOTHING

    def _keep(self, memo: dict[str, Any], token: str, value: Any) -> None:
        if len(self.memo) + len(self.silent) >= self._limit:
            held: dict[str, Any]
            for held in (self.memo, self.silent):
                for old in list(islice(held, max(1, len(held) // 4))):
                    del held[old]
        memo[token] = value

    def __len__(self) -> int:
        return len(self.memo) + len(self.silent)
