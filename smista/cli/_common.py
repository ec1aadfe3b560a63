"""Helpers shared by the subcommand modules: argument parsing and input reading.

I/O edge. ``ArgumentParser`` here reports usage errors as one line and exit 2.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, NoReturn

from smista.errors import SmistaError

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

__all__ = ["ArgumentParser", "UsageError", "add_request_options", "read_text_arg"]


class UsageError(SmistaError):
    """The command line itself is wrong."""


class ArgumentParser(argparse.ArgumentParser):
    """An argparse parser whose errors are one readable line (exit status 2)."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: error: {message} (see '{self.prog} --help')", file=sys.stderr)
        raise SystemExit(2)

    def _print_message(self, message: str, file: SupportsWrite[str] | None = None) -> None:
        # argparse swallows write errors; let a broken pipe or closed stdout
        # reach smista.cli.main, which treats it as for any other output
        if message:
            (file or sys.stderr).write(message)


def add_request_options(parser: argparse.ArgumentParser) -> None:
    """``--command INTENT`` and repeatable ``--context KIND`` (classify, explain, preview)."""
    parser.add_argument("--command", metavar="INTENT", help="explicit intent (overrides rules)")
    parser.add_argument(
        "--context",
        metavar="KIND",
        action="append",
        default=[],
        help="an available context kind, e.g. git_diff (repeatable)",
    )


STDIN_LIMIT = 64 << 20
"""Most bytes of text read from stdin (``-``)."""


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
    data = sys.stdin.buffer.read(STDIN_LIMIT + 1)
    if len(data) > STDIN_LIMIT:
        raise UsageError(f"stdin is larger than {STDIN_LIMIT} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"stdin is not valid UTF-8 (invalid byte at offset {exc.start})") from None
