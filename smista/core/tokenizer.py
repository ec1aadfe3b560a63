"""Prompt tokenization, bit-for-bit the Rust original's ``fuzzy::tokenize``.

Pure; standard library only. A token is a maximal run of characters for which
Rust's ``char::is_alphanumeric`` holds (Unicode 17 Alphabetic, or general
category Nd/Nl/No), split first and then lowercased with Rust's full Unicode
lowercasing, final sigma included. Python's own ``str.isalnum`` and
``str.lower`` are used only where they provably agree with Rust (ASCII, and
code points outside the generated override tables).

Speed: ASCII text is split by ``bytes.translate`` and ``str.split`` (no regex).
With the C extension, other text is split and lowercased in one C pass over
the generated tables (Python decides only a text holding U+03A3). Without it,
and as the C pass's reference, other text is split by a regex whose classes
hold BMP characters only (``re`` tests those with a bitmap, but scans a list
of ranges as soon as a class holds an astral character); the rare astral
characters are handled apart. Tokens are lowercased in one ``str.lower`` call
when no character needs Rust's own rules.

Start-up: compiling that regex costs milliseconds, so it is built only when
needed. The first :data:`_SHORT_BUDGET` short non-ASCII texts (up to
:data:`_SHORT` characters: the phrases and keywords of a rule pack being
compiled, a few short prompts), and longer ones until :data:`_LONG_BUDGET`
characters of them have been read (with the C extension: the rare prompts
holding U+03A3), are split character by character over the same ranges
instead, and a short text is checked for Rust's lowercasing rules with sets
rather than regexes (a longer one's tokens one by one); both give exactly the
regex paths' answers.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import cache, cached_property

import smista.core._implementation  # noqa: F401  SMISTA_IMPLEMENTATION, read before the try below

try:  # the optional C pass: the same tokens and lowercase (tests compare them)
    from smista.core._speedups import lower as _c_lower
    from smista.core._speedups import tokens as _c_tokens
except ImportError:
    _c_lower = None  # type: ignore[assignment]
    _c_tokens = None  # type: ignore[assignment]

__all__ = ["ASCII_TABLE", "pieces", "rust_lower", "tokenize", "tokenize_each"]

_CAPITAL_SIGMA = "\u03a3"

_SHORT = 48
"""Longest text split character by character (while the budget lasts)."""

_SHORT_BUDGET = 512
"""Short non-ASCII texts split before the token regex is compiled anyway."""

_LONG_BUDGET = 1 << 14
"""Characters of longer non-ASCII texts split by hand before the token regex is compiled
(about what compiling it costs: a few milliseconds)."""

ASCII_TABLE = bytes(
    (ord(chr(b).lower()) if chr(b).isalnum() else 0x20) if b < 128 else 0x20 for b in range(256)
)
"""``bytes.translate`` table for ASCII text: letters lowercased, digits kept,
everything else a space. ``text.encode().translate(ASCII_TABLE).decode().split()``
tokenizes ASCII ``text`` in three C passes (no regex, no per-character lookups)."""


def tokenize(text: str) -> list[str]:
    """Split ``text`` into lowercased alphanumeric tokens, in order, duplicates kept."""
    if text.isascii():
        return text.encode().translate(ASCII_TABLE).decode().split()
    if _c_tokens is not None:  # one C pass over the generated tables
        found = _c_tokens(text)
        if found is not None:
            return found
    return _tokenize_unicode(text)


_LINES_TABLE = ASCII_TABLE[:10] + b"\n" + ASCII_TABLE[11:]
""":data:`ASCII_TABLE` keeping line feeds: ASCII texts joined by them stay apart."""


def tokenize_each(
    texts: Sequence[str], one: Callable[[str], tuple[str, ...]]
) -> list[tuple[str, ...]]:
    """:func:`tokenize` of each text as a tuple (a rule pack's entries): the ASCII ones
    split from one translated string of all, joined by line feeds; the others, or all
    when a text holds a line feed, by ``one`` (``tuple(tokenize(text))``, or a memo)."""
    lines = "\n".join(texts).encode("ascii", "replace").translate(_LINES_TABLE).decode()
    if lines.count("\n") != len(texts) - 1:
        return [one(text) for text in texts]
    return [
        tuple(line.split()) if text.isascii() else one(text)
        for text, line in zip(texts, lines.split("\n"), strict=True)
    ]


def _tokenize_unicode(text: str) -> list[str]:
    """:func:`tokenize` of a non-ASCII text in Python (the C pass's reference)."""
    tables = _tables()
    if tables.short_first(len(text)):
        return tables.tokenize_short(text)
    astral = set(tables.astral_re.findall(text))
    pattern = tables.token_bmp_re
    if astral:
        # Astral characters are rare (mostly emoji): a non-alphanumeric one is a
        # separator like a space; only alphanumeric ones need the slower pattern.
        alnum = {c for c in astral if tables.astral_alnum(c)}
        for c in astral - alnum:
            text = text.replace(c, " ")
        astral = alnum
        if alnum:
            pattern = tables.token_re
    tokens = pattern.findall(text)
    if not tokens:
        return tokens
    # Lowercase all tokens in one call when no character needs Rust's own rules.
    # A space between tokens is neither cased nor case-ignorable, so final-sigma
    # context never crosses it: joined lowering equals per-token lowering.
    joined = " ".join(tokens)
    if tables.plain(joined, astral):
        return joined.lower().split(" ")
    return [tok.lower() if tok.isascii() else tables.lower(tok) for tok in tokens]


def rust_lower(text: str) -> str:
    """Lowercase ``text`` exactly as Rust's ``str::to_lowercase`` (used for keywords)."""
    if text.isascii():
        return text.lower()
    if _c_lower is not None:
        lowered = _c_lower(text)
        if lowered is not None:
            return lowered
    return _tables().lower(text)


class _Tables:
    """Lazily built Unicode tables (only text with non-ASCII characters needs them)."""

    def __init__(self) -> None:
        from smista.core import _unicode_tables as data

        # ``re`` tests a class of BMP characters in constant time (a bitmap) but a
        # class holding astral characters by a linear scan of its ranges; so
        # every class is split in two, and the astral half is only used for
        # text that holds an astral character at all.
        self.astral_re = re.compile("[\U00010000-\U0010ffff]")
        self.lower_overrides = {chr(cp): s for cp, s in data.LOWER_OVERRIDES.items()}
        self.sigma_overrides = {chr(cp): v for cp, v in data.SIGMA_OVERRIDES.items()}
        self.special_astral = {chr(c) for c in data.LOWER_OVERRIDES if c > _BMP_END}
        self.sigma_astral = {chr(c) for c in data.SIGMA_OVERRIDES if c > _BMP_END}
        self._short_left = _SHORT_BUDGET
        self._long_left = _LONG_BUDGET

    @cached_property
    def special_re(self) -> re.Pattern[str]:
        from smista.core import _unicode_tables as data

        return re.compile(_class(((c, c) for c in data.LOWER_OVERRIDES), astral=False))

    @cached_property
    def sigma_re(self) -> re.Pattern[str]:
        from smista.core import _unicode_tables as data

        return re.compile(_class(((c, c) for c in data.SIGMA_OVERRIDES), astral=False))

    # The token patterns are big; lowercasing keywords alone never needs them.

    @cached_property
    def _alnum(self) -> list[tuple[int, int]]:
        from smista.core import _unicode_tables as data

        return _class_ranges(data.ALNUM_CLASS)

    @cached_property
    def token_bmp_re(self) -> re.Pattern[str]:
        return re.compile(_class(self._alnum, astral=False) + "+")

    @cached_property
    def token_re(self) -> re.Pattern[str]:
        return re.compile(
            "(?:"
            + _class(self._alnum, astral=False)
            + "|(?=[\U00010000-\U0010ffff])"
            + _class(self._alnum, astral=True)
            + ")+"
        )

    @cached_property
    def _starts(self) -> list[int]:
        return [a for a, _ in self._alnum]

    @cached_property
    def _ends(self) -> list[int]:
        return [b for _, b in self._alnum]

    def short_first(self, size: int) -> bool:
        """Whether to split a text of ``size`` characters by hand: the token regex is not
        compiled yet and the budget of such texts (short ones), or of their characters
        (longer ones), is not spent."""
        if "token_bmp_re" in self.__dict__:
            return False
        if size <= _SHORT:
            if self._short_left <= 0:
                return False
            self._short_left -= 1
            return True
        if self._long_left < size:
            return False
        self._long_left -= size
        return True

    def tokenize_short(self, text: str) -> list[str]:
        """:func:`tokenize` of a non-ASCII text, character by character.

        A token character is one in the alphanumeric ranges (BMP or astral:
        the regex path treats a non-alphanumeric astral character as a space
        too), so the tokens are the regex path's; lowercasing is the same (a
        long text's tokens are checked one by one, which needs no regex).
        """
        starts, ends = self._starts, self._ends
        tokens: list[str] = []
        begin = -1
        for i, ch in enumerate(text):
            cp = ord(ch)
            if cp < 128:
                alnum = ASCII_TABLE[cp] != 0x20
            else:
                k = bisect_right(starts, cp) - 1
                alnum = k >= 0 and cp <= ends[k]
            if alnum:
                if begin < 0:
                    begin = i
            elif begin >= 0:
                tokens.append(text[begin:i])
                begin = -1
        if begin >= 0:
            tokens.append(text[begin:])
        if not tokens:
            return tokens
        joined = " ".join(tokens)
        if len(joined) <= _SHORT and self.plain(joined):
            return joined.lower().split(" ")
        return [tok.lower() if tok.isascii() else self.lower(tok) for tok in tokens]

    @cached_property
    def astral_starts(self) -> list[int]:
        return [a for a, b in self._alnum if b > _BMP_END]

    @cached_property
    def astral_ends(self) -> list[int]:
        return [b for a, b in self._alnum if b > _BMP_END]

    def astral_alnum(self, ch: str) -> bool:
        """Whether the astral character ``ch`` is a token character."""
        cp = ord(ch)
        i = bisect_right(self.astral_starts, cp) - 1
        return i >= 0 and cp <= self.astral_ends[i]

    def plain(self, text: str, astral: set[str] | None = None) -> bool:
        """Whether Python's ``str.lower`` gives Rust's answer for ``text``.

        ``astral`` is the set of astral characters in ``text`` if known. A
        short text is checked character by character against the override
        tables (the same test as the regexes over the same tables).
        """
        if len(text) <= _SHORT:
            if not self.lower_overrides.keys().isdisjoint(text):
                return False
            return _CAPITAL_SIGMA not in text or self.sigma_overrides.keys().isdisjoint(text)
        if astral is None:
            astral = set(self.astral_re.findall(text))
        if self.special_re.search(text) or not astral.isdisjoint(self.special_astral):
            return False
        if _CAPITAL_SIGMA not in text:
            return True
        return not (self.sigma_re.search(text) or not astral.isdisjoint(self.sigma_astral))

    def lower(self, token: str) -> str:
        if self.plain(token):
            return token.lower()
        return self._rust_lower(token)

    def _rust_lower(self, token: str) -> str:
        out: list[str] = []
        for i, ch in enumerate(token):
            if ch == _CAPITAL_SIGMA:
                out.append("\u03c2" if self._final_sigma(token, i) else "\u03c3")
            else:
                out.append(self.lower_overrides.get(ch) or ch.lower())
        return "".join(out)

    def _final_sigma(self, token: str, i: int) -> bool:
        # Rust: preceded by (case-ignorable* cased) and not followed by (case-ignorable* cased).
        before = (self._sigma_class(c) for c in reversed(token[:i]))
        after = (self._sigma_class(c) for c in token[i + 1 :])
        return _ignorable_then_cased(before) and not _ignorable_then_cased(after)

    def _sigma_class(self, ch: str) -> int:
        override = self.sigma_overrides.get(ch)
        return override if override is not None else _python_sigma_class(ch)


def _class_ranges(cls: str) -> list[tuple[int, int]]:
    """The inclusive code point ranges of a character class body such as ``a-z0``."""
    out: list[tuple[int, int]] = []
    i = 0
    while i < len(cls):
        if i + 2 < len(cls) and cls[i + 1] == "-":
            out.append((ord(cls[i]), ord(cls[i + 2])))
            i += 3
        else:
            out.append((ord(cls[i]), ord(cls[i])))
            i += 1
    return out


_BMP_END = 0xFFFF


def _class(ranges: Iterable[tuple[int, int]], *, astral: bool) -> str:
    """A one-character class of the BMP (or astral) part of ``ranges``."""
    lo, hi = (_BMP_END + 1, 0x10FFFF) if astral else (0, _BMP_END)
    parts = [(max(a, lo), min(b, hi)) for a, b in ranges if a <= hi and b >= lo]
    if not parts:
        return "(?!)"
    return (
        "["
        + "".join(
            re.escape(chr(a)) if a == b else re.escape(chr(a)) + "-" + re.escape(chr(b))
            for a, b in parts
        )
        + "]"
    )


def _ignorable_then_cased(classes: Iterable[int]) -> bool:
    for cls in classes:
        if cls != 1:
            return cls == 2
    return False


@cache
def _python_sigma_class(ch: str) -> int:
    """Python's own Case_Ignorable/Cased view of ``ch``, read off ``str.lower``."""
    if ch == _CAPITAL_SIGMA:
        return 2  # cased, and not case-ignorable
    if (ch + _CAPITAL_SIGMA).lower().endswith("\u03c2"):
        return 2
    if ("A" + ch + _CAPITAL_SIGMA).lower().endswith("\u03c2"):
        return 1
    return 0


@cache
def _tables() -> _Tables:
    return _Tables()


def pieces(text: str, size: int) -> Iterator[str]:
    """``text`` cut into pieces of about ``size`` characters at spaces or newlines.

    A cut never falls inside a token (a space or newline separates tokens), so
    the pieces' tokens are the text's; a text with no space or newline past
    ``size`` is one piece.
    """
    start, end_of_text = 0, len(text)
    while end_of_text - start > size:
        end = start + size
        cut = max(text.rfind(" ", start, end), text.rfind("\n", start, end))
        if cut <= start:
            found = [i for i in (text.find(" ", end), text.find("\n", end)) if i >= 0]
            if not found:
                break
            cut = min(found)
        yield text[start:cut]
        start = cut + 1
    yield text[start:]
