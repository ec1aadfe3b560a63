"""Helpers shared by the subcommand modules: argument parsing and input reading.

I/O edge. ``ArgumentParser`` here reports usage errors as one line and exit 2.
``UsageError`` and ``read_text_arg`` live in :mod:`smista.cli._text` (no argparse)
and are re-exported here.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from smista.cli._text import STDIN_LIMIT, UsageError, read_text_arg

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

__all__ = [
    "STDIN_LIMIT",
    "ArgumentParser",
    "HelpFormatter",
    "UsageError",
    "add_request_options",
    "context_kind",
    "read_text_arg",
]


def _columns() -> int:
    """``shutil.get_terminal_size().columns``, without importing shutil (and its
    compression modules) on every command start."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    try:
        size = os.get_terminal_size(sys.__stdout__.fileno())  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 80
    return size.columns or 80


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, as wide as argparse makes it, without importing shutil.

    argparse builds a formatter for every ``add_argument`` (to check metavars),
    and its default width comes from :func:`shutil.get_terminal_size`.
    """

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
        **options: Any,
    ) -> None:
        if width is None:
            width = _columns() - 2
        super().__init__(prog, indent_increment, max_help_position, width, **options)


class ArgumentParser(argparse.ArgumentParser):
    """An argparse parser whose errors are one readable line (exit status 2).

    When an unknown word starting with ``-`` is on the command line (a prompt
    such as ``-fix``) of a command that takes positional arguments (text, files),
    the error says to put ``--`` before it; never for the value an option took
    (``--port -1``). Help is laid out
    by :class:`HelpFormatter` unless another ``formatter_class`` is given.
    """

    _argv: list[str] | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        self._argv = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def _dash_hint(self, message: str) -> str:
        argv = self._argv or []
        if "--" in argv or not any(not action.option_strings for action in self._actions):
            return ""  # no positional argument the word could be meant as
        for i, arg in enumerate(argv):
            name = arg.split("=", 1)[0]
            option = self._option_string_actions.get(argv[i - 1]) if i else None
            if option and message.startswith(f"argument {'/'.join(option.option_strings)}:"):
                continue  # the value of the option the error is about (--port -1)
            if arg.startswith("-") and arg != "-" and name not in self._option_string_actions:
                return (
                    f"; {arg!r} is not an option: put '--' before text that starts "
                    f"with '-' ({self.prog} -- {arg!r})"
                )
        return ""

    def error(self, message: str) -> NoReturn:
        hint = self._dash_hint(message)
        print(f"{self.prog}: error: {message}{hint} (see '{self.prog} --help')", file=sys.stderr)
        raise SystemExit(2)

    def _print_message(self, message: str, file: SupportsWrite[str] | None = None) -> None:
        # argparse swallows write errors; let a broken pipe or closed stdout
        # reach smista.cli.main, which treats it as for any other output
        if message:
            (file or sys.stderr).write(message)


def context_kind(text: str) -> str:
    """An argparse type: a ``--context`` name, never blank."""
    if not text.strip():
        raise argparse.ArgumentTypeError("a context kind cannot be empty")
    return text


def add_request_options(parser: argparse.ArgumentParser) -> None:
    """``--command INTENT`` and repeatable ``--context KIND`` (classify, explain, preview)."""
    parser.add_argument("--command", metavar="INTENT", help="explicit intent (overrides rules)")
    parser.add_argument(
        "--context",
        metavar="KIND",
        action="append",
        default=[],
        type=context_kind,
        help="an available context kind, e.g. git_diff (repeatable)",
    )
