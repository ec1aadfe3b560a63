"""Prompt tokenization, bit-for-bit the Rust original's ``fuzzy::tokenize``.

Pure; standard library only. A token is a maximal run of characters for which
Rust's ``char::is_alphanumeric`` holds (Unicode 17 Alphabetic, or general
category Nd/Nl/No), split first and then lowercased with Rust's full Unicode
lowercasing, final sigma included. Python's own ``str.isalnum`` and
``str.lower`` are used only where they provably agree with Rust (ASCII, and
code points outside the generated override tables).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

__all__ = ["rust_lower", "tokenize"]

_ASCII_TOKEN = re.compile(r"[a-z0-9]+")
_CAPITAL_SIGMA = "\u03a3"


def tokenize(text: str) -> list[str]:
    """Split ``text`` into lowercased alphanumeric tokens, in order, duplicates kept."""
    if text.isascii():
        return _ASCII_TOKEN.findall(text.lower())
    tables = _tables()
    return [
        tok.lower() if tok.isascii() else tables.lower(tok)
        for tok in tables.token_re.findall(text)
    ]


def rust_lower(text: str) -> str:
    """Lowercase ``text`` exactly as Rust's ``str::to_lowercase`` (used for keywords)."""
    if text.isascii():
        return text.lower()
    return _tables().lower(text)


class _Tables:
    """Lazily built Unicode tables (only text with non-ASCII characters needs them)."""

    def __init__(self) -> None:
        from smista import _unicode_tables as data

        self.token_re = re.compile("[" + data.ALNUM_CLASS + "]+")
        self.lower_overrides = {chr(cp): s for cp, s in data.LOWER_OVERRIDES.items()}
        self.sigma_overrides = {chr(cp): v for cp, v in data.SIGMA_OVERRIDES.items()}
        self.special_re = re.compile(
            "[" + "".join(re.escape(c) for c in self.lower_overrides) + "]"
        )
        self.sigma_special_re = re.compile(
            "[" + "".join(re.escape(c) for c in self.sigma_overrides) + "]"
        )

    def lower(self, token: str) -> str:
        if self.special_re.search(token) is None and (
            _CAPITAL_SIGMA not in token or self.sigma_special_re.search(token) is None
        ):
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
