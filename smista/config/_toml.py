"""Parsing TOML text into a document, with one error for every way it can fail.

Pure text in, plain data out: no file access (callers read files through
:mod:`smista.config._files`). ``tomllib`` fails in two ways: a syntax error,
and, because it parses arrays and inline tables recursively, a
``RecursionError`` on text nested a few thousand levels deep. Both become
:class:`InvalidToml`, whose message ("invalid TOML: ...") callers put in their
own one-line error; every rules, config and case file is parsed here.
"""

from __future__ import annotations

import tomllib
from typing import Any

__all__ = ["InvalidToml", "parse_toml"]


class InvalidToml(ValueError):
    """TOML text that does not parse; ``str()`` is one line starting "invalid TOML: "."""


def parse_toml(text: str) -> dict[str, Any]:
    """The TOML document ``text`` holds; :class:`InvalidToml` when it holds none."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidToml(f"invalid TOML: {exc}") from None
    except RecursionError:
        raise InvalidToml("invalid TOML: nested too deeply") from None
