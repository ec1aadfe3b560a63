"""``smista batch``: classify a JSONL file (or stdin) into JSONL, on all cores.

I/O edge: opens the input and output, shows progress on stderr when stderr is
a terminal, and hands the streams to :func:`smista.batch.run_batch`. Rules
load through :mod:`smista.rulecache` (no pydantic once a rules file is known).
Never writes anything but JSONL to the output, nor progress to a non-terminal.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from contextlib import ExitStack
from typing import IO

from smista._files import open_regular
from smista.cli._common import ArgumentParser, UsageError

__all__ = ["run"]


def _parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog="smista batch",
        description=(
            "Classify JSONL records in bulk. Each input line is a JSON object with "
            '"text" and optionally "command", "contexts", "workspace" and "id"; each '
            "output line is the classification JSON (with the id first), in input "
            'order. A bad line gives {"line": N, "error": ...} and the run goes on.'
        ),
    )
    parser.add_argument(
        "input", nargs="?", default="-", metavar="FILE", help="JSONL input ('-' or absent: stdin)"
    )
    parser.add_argument(
        "-o", "--output", default="-", metavar="FILE", help="JSONL output (default: stdout)"
    )
    parser.add_argument("--rules", metavar="FILE", help="rules file (default: the shipped pack)")
    parser.add_argument(
        "--workers",
        type=int,
        metavar="N",
        help="worker processes (default: every core; 1 = no worker processes)",
    )
    return parser


class _Progress:
    """A one-line progress display, redrawn at most five times a second."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.start = time.monotonic()
        self.last = 0.0

    def __call__(self, stats: object, *, final: bool = False) -> None:
        now = time.monotonic()
        if not final and now - self.last < 0.2:
            return
        self.last = now
        lines = getattr(stats, "lines", 0)
        rate = lines / max(now - self.start, 1e-9)
        self.stream.write(f"\rsmista batch: {lines:,} lines, {rate:,.0f} lines/s")
        if final:
            self.stream.write("\n")
        self.stream.flush()


def _open(stack: ExitStack, path: str, mode: str, standard: IO[bytes]) -> IO[bytes]:
    """``path`` opened in binary ``mode`` (closed with ``stack``); ``-`` is ``standard``."""
    if path == "-":
        return standard
    try:
        if mode == "rb":  # a regular file only: a FIFO or device streams through stdin
            stream: IO[bytes] = stack.enter_context(open_regular(path))
        else:
            stream = stack.enter_context(open(path, mode))  # noqa: SIM115 (the stack closes it)
    except OSError as exc:
        verb = "read" if mode == "rb" else "write"
        raise UsageError(f"cannot {verb} {path}: {exc.strerror or exc}") from None
    return stream


def run(argv: Sequence[str]) -> int:
    args = _parser().parse_args(argv[1:])
    from smista.batch import default_workers, run_batch
    from smista.rulecache import load_rules

    workers = default_workers() if args.workers is None else args.workers
    if workers < 1:
        raise UsageError("--workers must be at least 1")
    rules = load_rules(args.rules)
    progress = _Progress(sys.stderr) if sys.stderr.isatty() else None
    with ExitStack() as stack:
        source = _open(stack, args.input, "rb", sys.stdin.buffer)
        sink = _open(stack, args.output, "wb", sys.stdout.buffer)
        stats = run_batch(rules, source, sink, workers=workers, progress=progress)
        sink.flush()
    if progress is not None:
        progress(stats, final=True)
    return 0
