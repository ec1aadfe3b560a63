"""Path globs with the Rust ``globset`` crate's default semantics (version 0.4.18).

Pure; standard library only. Routing rules match touched files against globs,
and the Rust original compiles them with ``globset::Glob::new`` (default
options). This module parses a pattern into the same tokens and translates them
into the same regular expression, matched over the path's UTF-8 bytes:

- ``?`` matches one byte and ``*`` any run of bytes; both also match ``/``
  (``literal_separator`` is off by default);
- ``**`` is recursive only as a whole path component: a leading ``**/``
  matches any (or no) leading directories, a trailing ``/**`` anything below,
  an inner ``/**/`` zero or more directories, and ``**`` alone everything;
  elsewhere it means two ``*``;
- ``[abc]``, ``[a-z]``, ``[!a]`` / ``[^a]`` are byte classes (a multi-byte
  character in a class matches its bytes one at a time, as in globset);
- ``{a,b}`` alternates (nesting allowed, empty branches dropped);
- ``\\`` escapes the next character.

Invalid patterns raise :class:`GlobError` from :func:`compile_glob`;
:func:`paths_match` treats a list holding an invalid pattern as matching
nothing, as the original does. It never touches the file system.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["Glob", "GlobError", "compile_glob", "glob_regex", "paths_match"]


class GlobError(ValueError):
    """A glob pattern that globset would reject; the message says why."""

    def __init__(self, pattern: str, message: str) -> None:
        self.pattern = pattern
        self.reason = message
        super().__init__(f"invalid glob {pattern!r}: {message}")


# Token kinds.
_LIT = "lit"  # one literal character
_ANY = "any"  # ?
_STAR = "star"  # *
_RPREFIX = "rprefix"  # leading **/
_RSUFFIX = "rsuffix"  # trailing /**
_RMIDDLE = "rmiddle"  # inner /**/
_CLASS = "class"  # [...]
_ALT = "alt"  # {a,b}


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str
    char: str = ""
    negated: bool = False
    ranges: tuple[tuple[str, str], ...] = ()
    branches: tuple[tuple[_Token, ...], ...] = ()


_ANY_T = _Token(_ANY)
_STAR_T = _Token(_STAR)


class _Parser:
    """globset's parser: a character cursor and a stack of alternate branches."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.chars = pattern
        self.pos = 0
        self.prev: str | None = None
        self.cur: str | None = None
        self.branches: list[list[_Token]] = [[]]
        self.alt_starts: list[int] = []

    def error(self, message: str) -> GlobError:
        return GlobError(self.pattern, message)

    def bump(self) -> str | None:
        self.prev = self.cur
        if self.pos < len(self.chars):
            self.cur = self.chars[self.pos]
            self.pos += 1
        else:
            self.cur = None
        return self.cur

    def peek(self) -> str | None:
        return self.chars[self.pos] if self.pos < len(self.chars) else None

    def push(self, token: _Token) -> None:
        self.branches[-1].append(token)

    def parse(self) -> list[_Token]:
        while (c := self.bump()) is not None:
            if c == "?":
                self.push(_ANY_T)
            elif c == "*":
                self.star()
            elif c == "[":
                self.char_class()
            elif c == "{":
                self.alt_starts.append(len(self.branches))
                self.branches.append([])
            elif c == "}":
                if not self.alt_starts:
                    raise self.error("unopened alternate group; missing '{'")
                start = self.alt_starts.pop()
                group = tuple(tuple(b) for b in self.branches[start:])
                del self.branches[start:]
                self.push(_Token(_ALT, branches=group))
            elif c == ",":
                if self.alt_starts:
                    self.branches.append([])
                else:
                    self.push(_Token(_LIT, ","))
            elif c == "\\":
                escaped = self.bump()
                if escaped is None:
                    raise self.error("dangling '\\'")
                self.push(_Token(_LIT, escaped))
            else:
                self.push(_Token(_LIT, c))
        if len(self.branches) > 1:
            raise self.error("unclosed alternate group; missing '}'")
        return self.branches[0]

    def star(self) -> None:
        prev = self.prev
        if self.peek() != "*":
            self.push(_STAR_T)
            return
        self.bump()  # the second '*'
        if not self.branches[-1]:
            # At the start of the pattern or of an alternate branch.
            if self.peek() not in (None, "/"):
                self.push(_STAR_T)
                self.push(_STAR_T)
            else:
                self.push(_Token(_RPREFIX))
                self.bump()  # the '/' after '**', if any
            return
        if prev != "/" and (len(self.branches) <= 1 or prev not in (",", "{")):
            self.push(_STAR_T)
            self.push(_STAR_T)
            return
        nxt = self.peek()
        if nxt is None or (nxt in (",", "}") and len(self.branches) >= 2):
            is_suffix = True
        elif nxt == "/":
            self.bump()
            is_suffix = False
        else:
            self.push(_STAR_T)
            self.push(_STAR_T)
            return
        last = self.branches[-1].pop()
        if last.kind in (_RPREFIX, _RSUFFIX):
            self.push(last)
        else:
            self.push(_Token(_RSUFFIX if is_suffix else _RMIDDLE))

    def char_class(self) -> None:
        ranges: list[list[str]] = []
        negated = False
        if self.peek() in ("!", "^"):
            self.bump()
            negated = True
        first = True
        in_range = False
        while True:
            c = self.bump()
            if c is None:
                raise self.error("unclosed character class; missing ']'")
            if c == "]":
                if not first:
                    break
                ranges.append([c, c])
            elif c == "-":
                if first:
                    ranges.append([c, c])
                elif in_range:
                    self._extend(ranges[-1], c)
                    in_range = False
                else:
                    in_range = True
            else:
                if in_range:
                    self._extend(ranges[-1], c)
                else:
                    ranges.append([c, c])
                in_range = False
            first = False
        if in_range:
            ranges.append(["-", "-"])
        self.push(_Token(_CLASS, negated=negated, ranges=tuple((lo, hi) for lo, hi in ranges)))

    def _extend(self, last: list[str], end: str) -> None:
        last[1] = end
        if end < last[0]:
            raise self.error(f"invalid range; '{last[0]}' > '{end}'")


def _escape(char: str) -> str:
    """A regex (bytes) fragment matching the UTF-8 bytes of ``char``, one by one."""
    return "".join(
        chr(b) if chr(b).isalnum() and b < 0x80 else f"\\x{b:02x}"
        for b in char.encode("utf-8", "surrogatepass")
    )


def _to_regex(tokens: Sequence[_Token]) -> str:
    out: list[str] = []
    for token in tokens:
        kind = token.kind
        if kind == _LIT:
            out.append(_escape(token.char))
        elif kind == _ANY:
            out.append(".")
        elif kind == _STAR:
            out.append(".*")
        elif kind == _RPREFIX:
            out.append("(?:/?|.*/)")
        elif kind == _RSUFFIX:
            out.append("/.*")
        elif kind == _RMIDDLE:
            out.append("(?:/|/.*/)")
        elif kind == _CLASS:
            body = "".join(
                _escape(lo) if lo == hi else f"{_escape(lo)}-{_escape(hi)}"
                for lo, hi in token.ranges
            )
            out.append(f"[{'^' if token.negated else ''}{body}]")
        else:  # _ALT
            parts = [p for p in (_to_regex(b) for b in token.branches) if p]
            if parts:
                out.append("(?:" + "|".join(parts) + ")")
    return "".join(out)


def glob_regex(pattern: str) -> str:
    """The anchored regular expression (over bytes) globset builds for ``pattern``."""
    tokens = _Parser(pattern).parse()
    if len(tokens) == 1 and tokens[0].kind == _RPREFIX:
        return "^.*$"
    return "^" + _to_regex(tokens) + "$"


@dataclass(frozen=True, slots=True)
class Glob:
    """A compiled glob: ``matches(path)`` tests a whole path."""

    pattern: str
    regex: re.Pattern[bytes]

    def matches(self, path: str) -> bool:
        """Whether the whole of ``path`` matches (compared as UTF-8 bytes)."""
        return self.regex.fullmatch(_path_bytes(path)) is not None


def _path_bytes(path: str) -> bytes:
    try:
        return path.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return path.encode("utf-8", "surrogatepass")


@lru_cache(maxsize=4096)
def compile_glob(pattern: str) -> Glob:
    """Compile ``pattern``; raises :class:`GlobError` when globset would reject it."""
    source = glob_regex(pattern)
    return Glob(pattern, re.compile(source.encode("ascii"), re.DOTALL))


def paths_match(globs: Sequence[str], paths: Iterable[str]) -> bool:
    """Whether any of ``paths`` matches any of ``globs``.

    No globs never match; a list holding an invalid glob matches nothing.
    """
    if not globs:
        return False
    try:
        compiled = [compile_glob(g) for g in globs]
    except GlobError:
        return False
    return any(g.matches(p) for p in paths for g in compiled)
