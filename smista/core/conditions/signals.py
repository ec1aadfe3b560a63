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
  everything at once; a token over :data:`KEEP_CHARS` characters is never kept
  (only a stem can still make it hit something, and its stems are read again);
* with the C extension, the engine's one scan of a prompt (its token table
  settles every token near no keyword, word or stem) hands the view the few
  tokens worth asking about.

The answers are those of the plain lookups (``word_match`` against every
word, ``str.startswith`` against every stem); the memo only saves work.
Must never perform I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import islice
from typing import Any

__all__ = [
    "KEEP_CHARS",
    "SCAN_LIMIT",
    "Signal",
    "SignalHits",
    "SignalReader",
    "TokenSignals",
    "Words",
]

Signal = tuple[tuple[tuple[str, bool], ...], tuple[str, ...]]
"""``((word, fuzzy), ...), (stem, ...)``: what one token hits."""

Words = set[str] | frozenset[str]
"""A set of looked-up words or stems (the engine's scan hands over its sets as they are)."""

SignalHits = tuple[Words, Words, dict[str, tuple[tuple[str, bool], ...]]]
"""``(words some token hits, stems some token starts with, each hitting token's words)``;
read only."""

_NOTHING: Signal = ((), ())

SCAN_LIMIT = 1 << 20
"""Longest text (characters) whose distinct tokens are read in one piece (the
engine's ``LARGE_TEXT``); a longer one is read piece by piece, so memory stays
bounded by a piece."""


KEEP_CHARS = 64
"""Longest token (characters) a memo of the extension kinds keeps (this one, and the
verifying scan's table). A longer one can start a stem, so it is handed back each time it
is met and read again (its stems: a few prefix lookups); kept, a client sending long new
tokens that start a stem would fill the memo's count with tokens of any length."""


class TokenSignals:
    """Words and stems per token, remembered (bounded)."""

    __slots__ = (
        "_firsts",
        "_heads",
        "_hopeless",
        "_lengths",
        "_limit",
        "_lookup",
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
    ) -> None:
        """``lookup(token)``: the words ``token`` hits (``None``: no words);
        ``hopeless(token)``: whether it can hit none (``None``: no such test);
        ``stems``: lowercased prefixes."""
        self._lookup = lookup
        self._hopeless = hopeless
        self.stems = frozenset(s for s in stems if s)
        self._lengths = tuple(sorted({len(s) for s in self.stems}))
        self._firsts = frozenset(s[0] for s in self.stems)
        self._heads: frozenset[str] | None = None  # (built on first use: see _stems_of)
        self._limit = limit
        self.memo: dict[str, Signal] = {}
        self.silent: dict[str, None] = {}

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
        prefixes = self._stems_of(token) if token and token[0] in self._firsts else ()
        if words or prefixes:
            found = (words, prefixes)
            self._keep(self.memo, token, found)
            return found
        if matchable:  # a word-like token hitting nothing; hopeless ones are not kept
            self._keep(self.silent, token, None)
        return _NOTHING

    def learn(self, token: str, words: tuple[tuple[str, bool], ...] | None) -> Signal:
        """:meth:`of` for a token the memo holds neither way, given the words it hits
        (``lookup(token)``'s answer, found another way; ``None`` when there is no
        ``lookup``): its stems are read and the answer remembered as :meth:`of` does."""
        prefixes = self._stems_of(token) if token and token[0] in self._firsts else ()
        if words or prefixes:
            found = (words or (), prefixes)
            self._keep(self.memo, token, found)
            return found
        if words is not None and (self._hopeless is None or not self._hopeless(token)):
            self._keep(self.silent, token, None)
        return _NOTHING

    def _stems_of(self, token: str) -> tuple[str, ...]:
        """The stems ``token`` starts with, shortest first: its prefixes of the stems'
        lengths that are stems, read from the shortest up and no further than some stem
        starts with it (no longer prefix can be a stem then)."""
        heads = self._heads
        if heads is None:  # every prefix of every stem
            heads = self._heads = frozenset(
                stem[:n] for stem in self.stems for n in range(1, len(stem) + 1)
            )
        found: list[str] = []
        for n in self._lengths:
            if n > len(token):
                break
            head = token[:n]
            if head not in heads:
                break
            if head in self.stems:
                found.append(head)
        return tuple(found)

    def _keep(self, memo: dict[str, Any], token: str, value: Any) -> None:
        if len(token) > KEEP_CHARS:
            return
        if len(self.memo) + len(self.silent) >= self._limit:
            held: dict[str, Any]
            for held in (self.memo, self.silent):
                for old in list(islice(held, max(1, len(held) // 4))):
                    del held[old]
        memo[token] = value

    def __len__(self) -> int:
        return len(self.memo) + len(self.silent)


class SignalReader:
    """What a prompt's tokens hit, read token by token: the one fold of
    :meth:`TokenSignals.of` answers into :data:`SignalHits` (the engine's scan and a
    view reading its own tokens both use it)."""

    __slots__ = ("_of", "hitting", "prefixes", "words")

    def __init__(self, signals: TokenSignals) -> None:
        self._of = signals.of
        self.words: set[str] = set()
        self.prefixes: set[str] = set()
        self.hitting: dict[str, tuple[tuple[str, bool], ...]] = {}

    def read(self, token: str) -> bool:
        """Adds what ``token`` hits; whether it hits a word or starts a stem."""
        hit, starts = self._of(token)
        if hit:
            self.hitting[token] = hit
            for word, _ in hit:
                self.words.add(word)
        if starts:
            self.prefixes.update(starts)
        return bool(hit or starts)

    def hits(self) -> SignalHits:
        """What the tokens read so far hit."""
        return frozenset(self.words), frozenset(self.prefixes), self.hitting
