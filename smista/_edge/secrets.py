"""The one redaction mechanism: API keys never reach a client, a log or an exception.

Pure (standard library only). Every text smista builds from something an
upstream sent or an httpx error said — reason phrases, bodies, model output,
transport errors — and every log record (through :class:`RedactingFilter`)
passes through :func:`redact` before it leaves. It must never return, log or
store a key it was given anywhere but in the registry.

A key is registered once, when the provider or classifier holding it is built
(:func:`register`), after :func:`check_key` has refused a key that is not
printable ASCII. :func:`redact` then replaces every occurrence, in any of the
encodings an echo is likely to use, by ``***``:

* raw, and case-folded (matching ignores case);
* JSON-escaped (``\\"``, ``\\/``, ``\\u0041``) and URL-encoded (``%41``, ``+``),
  character by character, in any mix;
* split by whitespace (any run of whitespace between two characters, as a
  line-wrapped body has);
* base64 (standard and URL-safe alphabets, at each of the three alignments a
  key can have inside a larger encoded string, e.g. HTTP basic auth).

A key shorter than :data:`SHORT` characters is a placeholder, not a secret:
it is masked only as a whole word. Cost is linear in the text: one compiled
regular expression for all keys.
"""

from __future__ import annotations

import base64
import logging
import re
import threading
from collections.abc import Iterable

__all__ = [
    "LOGGERS",
    "MASK",
    "RedactingFilter",
    "Redactor",
    "accept_key",
    "check_key",
    "install",
    "redact",
    "register",
    "register_url",
]

MASK = "***"

SHORT = 8
"""Keys shorter than this (placeholders such as ``ollama`` or ``x``, which
local servers accept) are masked only where they stand as a whole word, raw:
every encoding of a three-letter key would mask ordinary text."""

_WS = r"\s*"


def check_key(key: str) -> str | None:
    """Why ``key`` cannot be sent in an HTTP header (``None``: it can).

    The answer never quotes the key.
    """
    if not key:
        return "is empty"
    for index, char in enumerate(key):
        code = ord(char)
        if code > 126:
            return f"contains a non-ASCII character (at position {index})"
        if code < 33:
            return f"contains a control or space character (at position {index})"
    return None


def _char(char: str) -> str:
    """A pattern for one printable ASCII character in any escape an echo may use."""
    code = ord(char)
    forms = [re.escape(char), rf"\\+u00{code:02x}", rf"%{code:02x}", rf"\\+{re.escape(char)}"]
    if char == " ":
        forms.append(r"\+")
    return "(?:" + "|".join(forms) + ")"


def _encoded(text: str) -> str:
    """A pattern for ``text`` character by character, whitespace allowed between."""
    return _WS.join(_char(c) for c in text)


def _base64_forms(key: str) -> list[str]:
    """The base64 runs that must appear wherever ``key`` is base64-encoded.

    At each alignment, the characters fully determined by the key alone (those
    not mixed with a neighbour's bits) form a run; both alphabets count. A key
    beyond ASCII (a password in a URL's userinfo may be) is encoded as its UTF-8.
    """
    raw = key.encode("utf-8", "surrogatepass")
    out: list[str] = []
    for shift in range(3):
        encoded = base64.b64encode(b"\0" * shift + raw).decode("ascii").rstrip("=")
        # drop the characters that carry bits of the padding prefix or of the
        # (unknown) byte after the key
        head = (shift * 8 + 5) // 6
        tail_bits = (shift + len(raw)) * 8
        full = tail_bits // 6
        run = encoded[head:full]
        if len(run) >= 4:
            out.append(run)
            out.append(run.replace("+", "-").replace("/", "_"))
    return out


def _pattern(key: str) -> str:
    if len(key) < SHORT:
        return rf"(?<![A-Za-z0-9]){re.escape(key)}(?![A-Za-z0-9])"
    forms = [_encoded(key)]
    forms.extend(_WS.join(re.escape(c) for c in run) for run in _base64_forms(key))
    return "|".join(forms)


_UNICODE_ESCAPE = re.compile(r"\\+u00([0-9a-f]{2})", re.IGNORECASE)
_PERCENT = re.compile(r"%([0-9a-f]{2})", re.IGNORECASE)


def _hex_char(match: re.Match[str]) -> str:
    return chr(int(match.group(1), 16))


def _squash(text: str) -> str:
    return "".join(text.split()).lower()


class Redactor:
    """Replaces a fixed set of keys, in every encoding above, by :data:`MASK`.

    A cheap screen runs first (C-speed string operations: whitespace removed,
    case folded, escapes decoded, then a substring search for each key and
    its base64 runs); the regular expression runs only on a text the screen
    flags, so a text without a key costs about a microsecond per 300 characters.
    """

    __slots__ = ("_needles", "_regex", "_slow")

    def __init__(self, keys: Iterable[str]) -> None:
        unique = sorted({k for k in keys if k}, key=len, reverse=True)
        self._regex = (
            re.compile("|".join(f"(?:{_pattern(k)})" for k in unique), re.IGNORECASE)
            if unique
            else None
        )
        needles: set[str] = set()
        for key in unique:
            needles.add(key.lower())
            if len(key) >= SHORT:
                needles.update(run.lower() for run in _base64_forms(key))
        self._needles = tuple(sorted(needles))
        # a key with an escape character of its own: the screen could miss a
        # mixed raw/encoded echo of it, so such keys always take the regex
        self._slow = any(c in key for key in unique for c in "\\%")

    def __repr__(self) -> str:
        return "Redactor(<keys hidden>)"

    def _flagged(self, text: str) -> bool:
        squashed = _squash(text)
        for needle in self._needles:
            if needle in squashed:
                return True
        if "\\" not in squashed and "%" not in squashed:
            return False
        decoded = squashed
        if "u00" in decoded:
            decoded = _UNICODE_ESCAPE.sub(_hex_char, decoded)
        if "%" in decoded:
            decoded = _PERCENT.sub(_hex_char, decoded)
        decoded = _squash(decoded.replace("\\", ""))
        return any(needle in decoded for needle in self._needles)

    def __call__(self, text: str) -> str:
        """``text`` with every key occurrence masked."""
        if self._regex is None or not text:
            return text
        if self._slow or self._flagged(text):
            return self._regex.sub(MASK, text)
        return text


_lock = threading.Lock()
_keys: set[str] = set()
_current = Redactor(())

LOGGERS = (
    "httpx",
    "httpcore.connection",
    "httpcore.http11",
    "httpcore.http2",
    "httpcore.proxy",
    "smista.access",
    "smista.decision",
    "smista.decision.log",
    "smista.server",
    "uvicorn.access",
    "uvicorn.error",
)
"""Loggers that may see upstream text (httpcore traces response headers at
DEBUG); :func:`register` puts a :class:`RedactingFilter` on each, so a host's
own handlers receive masked records too."""


def accept_key(api_key: str | None) -> str | None:
    """``api_key`` (``None`` for none or empty) once checked and registered for redaction.

    A key that cannot go in a header is a ``ValueError`` that never quotes it.
    """
    key = api_key or None
    if key is not None:
        problem = check_key(key)
        if problem:
            raise ValueError(f"the API key {problem}")
        register(key)
    return key


def register(key: str | None) -> None:
    """Add ``key`` to the keys :func:`redact` masks (process-wide, never removed)."""
    global _current
    if not key:
        return
    with _lock:
        if key in _keys:
            return
        redactor = Redactor({*_keys, key})  # (built first: a key it refuses changes nothing)
        _keys.add(key)
        _current = redactor
    for name in LOGGERS:
        install(logging.getLogger(name))


def register_url(url: str | None) -> None:
    """Register the credential in ``url``'s userinfo (``http://user:password@host``).

    The password, or for a userinfo without one (``https://token@host``) the
    user name, is a secret like an API key: the endpoint URL appears in error
    reasons, ``repr`` and debug logs, and :func:`redact` then masks it there.
    """
    if not url:
        return
    from urllib.parse import unquote, urlsplit

    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return
    secret = parts.password if parts.password is not None else parts.username
    if secret:
        register(unquote(secret))


def install(target: logging.Logger | logging.Handler) -> None:
    """Put the redacting filter on a logger or handler (once)."""
    if not any(isinstance(f, RedactingFilter) for f in target.filters):
        target.addFilter(RedactingFilter())


def redact(text: str) -> str:
    """``text`` with every registered key masked, in every encoding above."""
    return _current(text)


class RedactingFilter(logging.Filter):
    """A logging filter that masks registered keys in a record's message and arguments.

    Installed on smista's log handlers; it formats the message once, masks it
    and drops the arguments, so a key inside a formatted value is caught too.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if not _keys:
            return True
        try:
            message = record.getMessage()
        except Exception:  # a bad format string: leave it to the handler
            return True
        record.msg = redact(message)
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True
