"""``smista hook claude-code|codex``: a host hook command that reads the hook JSON on stdin.

I/O edge (stdin, stdout, stderr, the optional config file, the Claude Code
transcript). It *fails open*: whatever goes wrong on smista's side (bad
input, an unreadable config, a bug, running past ``--timeout``), it prints
nothing on stdout, one note on stderr and exits 0, so the host carries on
as if no hook were installed. Exit 2 is never used: both hosts read it as
"block this prompt". A mistake on the command line itself exits 1, which
both hosts show as a non-blocking hook error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
from collections.abc import Sequence
from typing import NoReturn

__all__ = ["MAX_INPUT_BYTES", "MAX_TIMEOUT", "run"]

MAX_INPUT_BYTES = 8 * 1024 * 1024
"""Hook inputs larger than this are not read (no opinion)."""

HOSTS = ("claude-code", "codex")

MAX_TIMEOUT = 86400.0
"""Longest ``--timeout`` (a day; the give-up timer cannot wait past ``threading.TIMEOUT_MAX``)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: error: {message} (see '{self.prog} --help')", file=sys.stderr)
        raise SystemExit(1)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="smista hook",
        description=(
            "Run as a Claude Code or Codex command hook: read the hook input JSON on stdin "
            "and print the hook's JSON answer (UserPromptSubmit: intent, confidence and the "
            "model the routing policy would choose; PreToolUse: ask for confirmation when the "
            "tool call looks guessed). Fails open: any failure prints nothing and exits 0."
        ),
    )
    parser.add_argument("host", choices=HOSTS, help="which host's hook protocol to speak")
    parser.add_argument(
        "--config", metavar="FILE", help="smista config (TOML) with [classification]/[routing]"
    )
    parser.add_argument(
        "--timeout",
        metavar="S",
        type=float,
        default=5.0,
        help="give up (no output, exit 0) after S seconds (default 5; keep it below the host's)",
    )
    parser.add_argument(
        "--required",
        metavar="TOOL=KEYS",
        action="append",
        default=[],
        help="required tool_input keys of a tool, e.g. 'mcp__deploy__run=env,target' (repeatable)",
    )
    return parser


def _note(host: str, message: str) -> None:
    line = " ".join(message.split())[:500]
    try:
        sys.stderr.write(f"smista hook {host}: no opinion: {line}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def _answer(
    host: str, raw: bytes, config: str | None, required: dict[str, tuple[str, ...]]
) -> str | None:
    import dataclasses

    from smista.hosts.engine import HostEngine

    if len(raw) > MAX_INPUT_BYTES:
        raise ValueError(f"hook input is larger than {MAX_INPUT_BYTES} bytes")
    try:
        payload = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ValueError(f"hook input is not valid JSON ({exc})") from None
    engine = HostEngine.load(config)
    if required:
        engine = dataclasses.replace(engine, tool_required=required)
    if host == "claude-code":
        from smista.hosts.claude_code import respond
    else:
        from smista.hosts.codex import respond
    out = respond(payload, engine)
    return None if out is None else json.dumps(out, ensure_ascii=False, separators=(",", ":"))


def run(argv: Sequence[str]) -> int:
    parser = _parser()
    args = parser.parse_args(argv[1:])
    if not 0 < args.timeout <= MAX_TIMEOUT:
        parser.error(f"--timeout must be a positive number of seconds, at most {MAX_TIMEOUT:g}")
    from smista.hosts.tools import parse_required

    try:
        required = parse_required(args.required)
    except ValueError as exc:
        parser.error(f"--required: {exc}")
    host: str = args.host
    writing = threading.Lock()

    def give_up() -> None:
        if writing.acquire(blocking=False):
            _note(host, f"gave up after {args.timeout:g} s")
            os._exit(0)

    timer = threading.Timer(args.timeout, give_up)
    timer.daemon = True
    timer.start()
    try:
        from smista.cli._text import stdin_bytes

        raw = stdin_bytes().read(MAX_INPUT_BYTES + 1)
        text = _answer(host, raw, args.config, required)
    except Exception as exc:
        if os.environ.get("SMISTA_DEBUG"):
            raise
        _note(host, str(exc) or type(exc).__name__)
        text = None
    with writing:
        timer.cancel()
        if text is not None:
            try:
                sys.stdout.write(text + "\n")
                sys.stdout.flush()
            except (OSError, ValueError) as exc:
                _note(host, f"could not write the answer ({exc})")
    return 0
