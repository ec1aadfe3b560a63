"""Strict JSON decoding with the acceptance rules of Go and of JavaScript.

Pure, standard library only. The seed systems ported here decide on JSON with
Go's ``json.Unmarshal`` (the ``confidence`` package, :mod:`smista.core.grounding`)
and JavaScript's ``JSON.parse`` (omp-task-router, :mod:`smista.tiers.parse`).
Python's :func:`json.loads` differs from both at the edges, so this module
decodes the way they do. Common to both dialects:

* ``NaN``/``Infinity`` are syntax errors; only space, tab, LF and CR are
  whitespace; numbers follow the JSON grammar with ASCII digits only, and
  every number decodes to a float;
* duplicate object keys keep the last value;
* the parser is iterative: deep nesting never raises ``RecursionError``.

Go only: a number that overflows float64 (``1e400``) makes the whole decode
fail wherever it sits, and nesting deeper than 10000 containers fails.
JavaScript: overflow gives an infinite float, and nesting is unlimited.

Never raises on any input: failures are reported as ``None``.
"""

from __future__ import annotations

import json.decoder
import math
import re
from collections.abc import Callable
from typing import Any

__all__ = ["MAX_DEPTH", "decode_float", "decode_object", "js_parse_object"]

MAX_DEPTH = 10000
"""Most nested containers Go's scanner accepts."""

# The C string scanner behind json.loads (strict: no raw control characters).
_scanstring: Callable[[str, int, bool], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_WS = re.compile(r"[ \t\n\r]*")
_LITERALS: tuple[tuple[str, Any], ...] = (
    ("true", True),
    ("false", False),
    ("null", None),
)


class _Invalid(Exception):
    """The text is not a value Go would decode."""


def _skip(text: str, pos: int) -> int:
    """The position after any JSON whitespace at ``pos``."""
    match = _WS.match(text, pos)
    return match.end() if match else pos


def _key(text: str, pos: int) -> tuple[str, int]:
    """An object key and its colon at ``pos``; returns (key, position of the value)."""
    if pos >= len(text) or text[pos] != '"':
        raise _Invalid
    key, pos = _string(text, pos)
    pos = _skip(text, pos)
    if pos >= len(text) or text[pos] != ":":
        raise _Invalid
    return key, _skip(text, pos + 1)


def _string(text: str, pos: int) -> tuple[str, int]:
    try:
        value, end = _scanstring(text, pos + 1, True)
    except (ValueError, IndexError):
        raise _Invalid from None
    return value, end


def _scalar(text: str, pos: int, go: bool) -> tuple[Any, int]:
    """A string, number or literal starting at ``pos``."""
    char = text[pos]
    if char == '"':
        return _string(text, pos)
    if char == "-" or "0" <= char <= "9":
        match = _NUMBER.match(text, pos)
        if match is None:
            raise _Invalid
        value = float(match.group())
        if go and math.isinf(value):  # strconv.ParseFloat: value out of range
            raise _Invalid
        return value, match.end()
    for word, value in _LITERALS:
        if text.startswith(word, pos):
            return value, pos + len(word)
    raise _Invalid


def _decode(text: str, go: bool) -> Any:
    end = len(text)
    pos = _skip(text, 0)
    # Open containers, innermost last: (container, key the next value goes under).
    stack: list[tuple[dict[str, Any] | list[Any], str]] = []
    while True:
        if pos >= end:
            raise _Invalid
        char = text[pos]
        value: Any
        if char in "{[":
            if go and len(stack) >= MAX_DEPTH:
                raise _Invalid
            pos = _skip(text, pos + 1)
            if char == "{":
                if pos < end and text[pos] == "}":
                    value, pos = {}, pos + 1
                else:
                    key, pos = _key(text, pos)
                    stack.append(({}, key))
                    continue
            elif pos < end and text[pos] == "]":
                value, pos = [], pos + 1
            else:
                stack.append(([], ""))
                continue
        else:
            value, pos = _scalar(text, pos, go)
        # A value is complete: hand it to its container, closing containers as we go.
        while True:
            pos = _skip(text, pos)
            if not stack:
                if pos != end:
                    raise _Invalid
                return value
            container, key = stack[-1]
            if isinstance(container, dict):
                container[key] = value
            else:
                container.append(value)
            if pos < end and text[pos] == ",":
                pos = _skip(text, pos + 1)
                if isinstance(container, dict):
                    key, pos = _key(text, pos)
                    stack[-1] = (container, key)
                break
            closer = "}" if isinstance(container, dict) else "]"
            if pos < end and text[pos] == closer:
                stack.pop()
                value, pos = container, pos + 1
                continue
            raise _Invalid


_FAILED = object()


def _decode_or_fail(text: str, go: bool) -> Any:
    try:
        return _decode(text, go)
    except _Invalid:
        return _FAILED


def decode_object(text: str) -> dict[str, Any] | None:
    """``json.Unmarshal(text, &map[string]any{})`` in Go: the object, or ``None``."""
    value = _decode_or_fail(text, True)
    return value if isinstance(value, dict) else None


def js_parse_object(text: str) -> dict[str, Any] | None:
    """JavaScript ``JSON.parse(text)`` when it yields an object, else ``None``."""
    value = _decode_or_fail(text, False)
    return value if isinstance(value, dict) else None


def decode_float(text: str) -> float | None:
    """``json.Unmarshal(text, &f)`` with ``f float64`` starting at 0.

    A number gives its value; ``null`` leaves ``f`` untouched, so gives 0.0
    without error; anything else (a string, bool, array, object, bad syntax,
    overflow) is an error, ``None``.
    """
    value = _decode_or_fail(text, True)
    if value is None:
        return 0.0
    if isinstance(value, float):
        return value
    return None
