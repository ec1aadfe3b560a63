"""Pre-dispatch grounding checks: is a tool call acting on guessed arguments?

Pure (standard library only). A port of the ``confidence`` seed package:

* :func:`evaluate` scores a tool call's parameters against its required keys.
  Each required key weighs ``1/N``; a key that is absent, or present with a
  placeholder-like string (``""``, ``TODO``, ``<your value>``, ``example.com``,
  ``changeme``, ``YYYY-MM-DD`` ...), costs its weight. Non-string values are
  always trusted (JSON ``null``, ``0`` and ``false`` included).
* :func:`parse_classifier_response` reads an optional ``confidence`` from a
  classifier's JSON reply; anything without one is "no signal" ``(1.0, False)``,
  which callers must not treat as low confidence.
* :func:`should_abstain` / :func:`should_abstain_at` are the shared gate of
  :mod:`smista.core.abstain`, re-exported here.

String handling follows the Go original exactly: whitespace is Go's
``unicode.IsSpace``, lowercasing is per character (simple case mapping), and
JSON is decoded with Go's acceptance rules (:mod:`smista.core._strictjson`).
Never performs I/O; never raises on any input.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from smista.core._strictjson import decode_float, decode_object
from smista.core.abstain import (
    ABSTAIN_THRESHOLD,
    DEFAULT_CLASSIFIER_THRESHOLD,
    clamp_score,
    should_abstain,
    should_abstain_at,
)

__all__ = [
    "ABSTAIN_THRESHOLD",
    "DEFAULT_CLASSIFIER_THRESHOLD",
    "PLACEHOLDER_PREFIXES",
    "PLACEHOLDER_VALUES",
    "Report",
    "evaluate",
    "is_placeholder",
    "parse_classifier_response",
    "should_abstain",
    "should_abstain_at",
    "to_float",
]

PLACEHOLDER_VALUES: frozenset[str] = frozenset(
    {
        "",
        "todo",
        "fixme",
        "unknown",
        "tbd",
        "xxx",
        "placeholder",
        "example",
        "your_value_here",
        "fill_in",
        "<fill_in>",
        "<placeholder>",
        "null",
        "none",
        "n/a",
        "<unknown>",
        "changeme",
        "change_me",
        "change-me",
        "insert_here",
        "insert-here",
        "<insert>",
        "<insert_value>",
        "<your_value>",
        "<your-value>",
        "<your_target>",
        "<target>",
        "<value>",
        "yyyy-mm-dd",
        "hh:mm:ss",
        "foo",
        "bar",
        "baz",
    }
)
"""Trimmed, lowercased strings that are placeholders when they are the whole value."""

PLACEHOLDER_PREFIXES: tuple[str, ...] = (
    "todo:",
    "todo ",
    "todo-",
    "todo_",
    "fixme:",
    "fixme ",
    "fixme-",
    "fixme_",
    "example.",
    "example_",
    "placeholder",
    "<your",
    "<insert",
    "<target",
    "<value>",
    "xxxx",
    "???",
)
"""Trimmed, lowercased strings starting with one of these are placeholders."""

# Go's unicode.IsSpace, which strings.TrimSpace uses (Python's str.strip also
# strips U+001C..U+001F, which Go keeps).
_GO_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


def _go_trim_space(text: str) -> str:
    return text.strip(_GO_SPACE)


def _go_lower(text: str) -> str:
    """Go's ``strings.ToLower``: each character's simple lowercase mapping."""
    if text.isascii():
        return text.lower()
    # Per character, so no context rule (final sigma) applies; U+0130 is the
    # one character whose full lowercase (i + U+0307) differs from its simple one.
    return "".join("i" if ch == "\u0130" else ch.lower() for ch in text)


def is_placeholder(value: object) -> bool:
    """Whether ``value`` looks like a guessed or template value.

    Only strings can be placeholders: trimmed and lowercased, they are weak
    when they equal an entry of :data:`PLACEHOLDER_VALUES` or start with one of
    :data:`PLACEHOLDER_PREFIXES`.
    """
    if not isinstance(value, str):
        return False
    lower = _go_lower(_go_trim_space(value))
    return lower in PLACEHOLDER_VALUES or lower.startswith(PLACEHOLDER_PREFIXES)


@dataclass(frozen=True, slots=True)
class Report:
    """The outcome of :func:`evaluate`.

    ``score`` is in [0, 1] (1.0 = every required key carries a concrete
    value); ``missing_keys`` and ``weak_keys`` (present but placeholder-like)
    follow the order of the required keys; ``reason`` is ``""`` when nothing
    failed.
    """

    score: float
    missing_keys: tuple[str, ...] = ()
    weak_keys: tuple[str, ...] = ()
    reason: str = ""

    @property
    def should_abstain(self) -> bool:
        """Whether the score is strictly below :data:`ABSTAIN_THRESHOLD` (0.5)."""
        return should_abstain(self.score)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping (lists for the key tuples)."""
        return {
            "score": self.score,
            "missing_keys": list(self.missing_keys),
            "weak_keys": list(self.weak_keys),
            "reason": self.reason,
        }


_FULL = Report(1.0)


def evaluate(params: Mapping[str, Any], required: Iterable[str] | None) -> Report:
    """Score ``params`` against the ``required`` keys.

    With no required keys the score is 1.0. Otherwise each required key (in
    order; a key listed twice counts twice) that is absent from ``params`` is
    *missing*, and one whose value :func:`is_placeholder` is *weak*; the score
    is ``1 - (missing + weak) / len(required)``. Optional keys are not scored.
    """
    keys = list(required or ())
    if not keys:
        return _FULL
    missing: list[str] = []
    weak: list[str] = []
    for key in keys:
        if key not in params:
            missing.append(key)
        elif is_placeholder(params[key]):
            weak.append(key)
    failed = len(missing) + len(weak)
    score = max(1.0 - failed / len(keys), 0.0)
    parts: list[str] = []
    if missing:
        parts.append("missing required keys: " + ", ".join(missing))
    if weak:
        parts.append("placeholder-like values: " + ", ".join(weak))
    return Report(score, tuple(missing), tuple(weak), "; ".join(parts))


def to_float(value: object) -> tuple[float, bool]:
    """A confidence value as a float: ``(value, True)`` or ``(0.0, False)``.

    Numbers are taken as they are (booleans are not numbers). A string is
    decoded as a JSON document into a float64, as Go does: ``"0.42"``,
    ``" 0.4"`` and ``"1e3"`` work, and so does ``"null"`` (Go leaves the float
    at 0 without error); ``"abc"``, ``""``, ``"1e400"`` and ``"[1]"`` do not.
    """
    if isinstance(value, bool):
        return 0.0, False
    if isinstance(value, float):
        return value, True
    if isinstance(value, int):
        try:
            return float(value), True
        except OverflowError:
            return 0.0, False
    if isinstance(value, str):
        decoded = decode_float(value)
        return (0.0, False) if decoded is None else (decoded, True)
    return 0.0, False


def parse_classifier_response(text: str | None) -> tuple[float, bool]:
    """The confidence a classifier's reply carries: ``(score, True)`` or ``(1.0, False)``.

    Only a reply that is (after trimming) a JSON object with a ``confidence``
    key whose value :func:`to_float` accepts carries a signal; the score is
    clamped to [0, 1]. Arrays, prose, fenced JSON, malformed JSON, a missing
    key and non-numeric values are all "no signal": ``(1.0, False)``, which
    the caller must not read as low confidence.
    """
    if not isinstance(text, str):
        return 1.0, False
    trimmed = _go_trim_space(text)
    if not trimmed.startswith("{"):
        return 1.0, False
    obj = decode_object(trimmed)
    if obj is None or "confidence" not in obj:
        return 1.0, False
    value, ok = to_float(obj["confidence"])
    if not ok:
        return 1.0, False
    return clamp_score(value), True
