"""Command-line text: the usage error and reading TEXT (``-``: stdin).

I/O edge (reads stdin). Standard library only and no argparse, so the bare
``smista classify TEXT`` can read its argument without loading the parser
(:mod:`smista.cli.classify`); :mod:`smista.cli._common` re-exports both names.
"""

from __future__ import annotations

import sys
from typing import BinaryIO

from smista.core.errors import SmistaError

__all__ = ["STDIN_LIMIT", "UsageError", "read_text_arg", "stdin_bytes"]


class UsageError(SmistaError):
    """The command line itself is wrong."""


STDIN_LIMIT = 64 << 20
"""Most bytes of text read from stdin (``-``)."""


def stdin_bytes() -> BinaryIO:
    """Standard input as a binary stream; a :class:`UsageError` when it is closed.

    Python sets ``sys.stdin`` to ``None`` when descriptor 0 is closed
    (``smista classify - <&-``); every command that reads stdin asks here.
    """
    if sys.stdin is None:
        raise UsageError("cannot read stdin: standard input is closed")
    return sys.stdin.buffer


def read_text_arg(text: str) -> str:
    """``-`` reads all of stdin as strict UTF-8; anything else is the text itself.

    Command-line text must be valid UTF-8 too: Python hands undecodable argv
    bytes over as lone surrogates, which no prompt can contain.
    """
    if text != "-":
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise UsageError(
                f"TEXT is not valid UTF-8 (invalid byte at character {exc.start})"
            ) from None
        return text
    data = stdin_bytes().read(STDIN_LIMIT + 1)
    if len(data) > STDIN_LIMIT:
        raise UsageError(f"stdin is larger than {STDIN_LIMIT} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"stdin is not valid UTF-8 (invalid byte at offset {exc.start})") from None
