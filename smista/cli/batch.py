"""``smista batch``: classify a JSONL file (or stdin) into JSONL, on all cores.

I/O edge: opens the input and output, shows progress on stderr when stderr is
a terminal (with percentage and time left for a file), and hands the streams
to :func:`smista.scale.batch.run_batch`. The final summary counts bad lines; when
stderr is not a terminal it is printed only if some line was bad. Rules load
through :mod:`smista.config.rulecache` (no pydantic once a rules file is known).
Never writes anything but JSONL to the output, nor progress to a non-terminal.
"""

from __future__ import annotations

import os
import stat
import sys
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from typing import IO

from smista.cli._common import ArgumentParser, UsageError
from smista.cli._text import stdin_bytes
from smista.config._files import open_regular

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
        help="worker processes (default: every core; 1 = no worker processes; at most 4 per core)",
    )
    return parser


def _clock(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes}:{secs:02}"


class _Progress:
    """A one-line progress display on a terminal, redrawn at most five times a second.

    Each redraw returns to the start of the line and clears it. With ``total``
    (the input's size in bytes, known for a file) it shows the percentage done
    and the time left.
    """

    def __init__(self, stream: IO[str], total: int | None = None) -> None:
        self.stream = stream
        self.total = total or None
        self.start = time.monotonic()
        self.last = 0.0
        self.lines = 0

    def __call__(self, stats: object) -> None:
        now = time.monotonic()
        if now - self.last < 0.2:
            return
        self.last = now
        lines = self.lines = getattr(stats, "lines", 0)
        elapsed = max(now - self.start, 1e-9)
        text = f"smista batch: {lines:,} lines, {lines / elapsed:,.0f} lines/s"
        done = getattr(stats, "bytes_in", 0)
        if self.total is not None and done:
            share = min(done / self.total, 1.0)
            left = elapsed * (1 - share) / share
            text += f", {share:.0%}, {_clock(left)} left"
        self._draw(text)

    def _draw(self, text: str, end: str = "") -> None:
        self.stream.write("\r\x1b[K" + text + end)
        self.stream.flush()

    def interrupted(self) -> None:
        """End the line after Ctrl-C, so the shell prompt starts on a fresh one."""
        self._draw(f"smista batch: interrupted after {self.lines:,} lines", "\n")

    def final(self, stats: object) -> None:
        elapsed = max(time.monotonic() - self.start, 1e-9)
        lines = getattr(stats, "lines", 0)
        self._draw(
            f"smista batch: {lines:,} lines in {elapsed:,.1f} s "
            f"({lines / elapsed:,.0f} lines/s){_bad_lines(stats)}",
            "\n",
        )


def _bad_lines(stats: object) -> str:
    """``; N bad lines (first: line K)`` or nothing."""
    bad = getattr(stats, "bad", 0)
    if not bad:
        return ""
    noun = "line" if bad == 1 else "lines"
    first = getattr(stats, "first_bad", 0)
    return f"; {bad:,} bad {noun} (first: line {first}), " + 'see their "error" records'


def _size_left(stream: IO[bytes]) -> int | None:
    """Bytes left to read in ``stream`` when it is a regular file, else ``None``."""
    try:
        info = os.fstat(stream.fileno())
        if not stat.S_ISREG(info.st_mode):
            return None
        return max(info.st_size - stream.tell(), 0)
    except (OSError, ValueError):
        return None


def _open(stack: ExitStack, path: str, mode: str, standard: Callable[[], IO[bytes]]) -> IO[bytes]:
    """``path`` opened in binary ``mode`` (closed with ``stack``); ``-`` is ``standard()``."""
    if path == "-":
        return standard()
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
    from smista.config.rulecache import load_rules
    from smista.scale.batch import default_workers, max_workers, run_batch

    cores = default_workers()
    workers = cores if args.workers is None else args.workers
    if workers < 1:
        raise UsageError("--workers must be at least 1")
    if workers > max_workers(cores):
        raise UsageError(
            f"--workers {workers} is more than {max_workers(cores)} "
            f"(4 per core; this process may use {cores})"
        )
    rules = load_rules(args.rules)
    from smista.cli._turns import load_turn_settings

    turns = load_turn_settings(args.rules)
    terminal = sys.stderr.isatty()
    progress: _Progress | None = None
    with ExitStack() as stack:
        source = _open(stack, args.input, "rb", stdin_bytes)
        sink = _open(stack, args.output, "wb", lambda: sys.stdout.buffer)
        if terminal:
            progress = _Progress(sys.stderr, _size_left(source))
        try:
            stats = run_batch(rules, source, sink, workers=workers, progress=progress, turns=turns)
        except KeyboardInterrupt:
            if progress is not None:
                progress.interrupted()
            raise
        sink.flush()
    if progress is not None:
        progress.final(stats)
    elif stats.bad:  # not a terminal: no progress, but bad lines are still worth a line
        print(f"smista batch: {stats.lines:,} lines{_bad_lines(stats)}", file=sys.stderr)
    return 0
