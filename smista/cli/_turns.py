"""``--messages FILE``: reading a turn on the command line, and printing turn answers.

I/O edge (reads the file or stdin). Shared by ``classify``, ``explain`` and
``preview``: exactly one of TEXT and ``--messages`` is given; the file holds
JSON in any format :func:`smista.core.turns.parse_turn` reads. Every problem is a
:class:`~smista.cli._common.UsageError` (one line, exit 2); the payload's text
never appears in an error.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from smista.cli._text import UsageError, read_text_arg, stdin_bytes
from smista.core.wire import json_value

__all__ = [
    "MAX_MESSAGES_BYTES",
    "add_messages_option",
    "load_turn_settings",
    "read_messages_arg",
    "render_turn_explanation",
    "render_turn_result",
    "text_or_messages",
    "turn_lines",
]

MAX_MESSAGES_BYTES = 64 * 1024 * 1024
"""A ``--messages`` document is at most this many bytes."""

if TYPE_CHECKING:
    import argparse

    from smista.core.turnclassify import TurnExplanation, TurnResult
    from smista.core.turnrules import TurnSettings


def add_messages_option(parser: argparse.ArgumentParser) -> None:
    """``--messages FILE`` ('-' reads stdin)."""
    parser.add_argument(
        "--messages",
        metavar="FILE",
        help=(
            "classify a whole turn instead of TEXT: a JSON file ('-' reads stdin) with OpenAI "
            "chat messages, an Anthropic Messages body or an OpenAI Responses input "
            "(auto-detected; see docs/turns.md)"
        ),
    )


def read_messages_arg(path: str) -> object:
    """The JSON document at ``path`` ('-': stdin), bounded and strictly UTF-8."""
    where = "stdin" if path == "-" else f"messages file {path}"
    try:
        if path == "-":
            raw = stdin_bytes().read(MAX_MESSAGES_BYTES + 1)
        else:  # a regular file only (a FIFO cannot hang the read), and bounded
            from smista.config._files import read_bounded

            raw = read_bounded(path, MAX_MESSAGES_BYTES)
    except OSError as exc:
        raise UsageError(f"{where}: {exc.strerror or exc}") from None
    if len(raw) > MAX_MESSAGES_BYTES:
        raise UsageError(f"{where}: larger than {MAX_MESSAGES_BYTES} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{where}: not valid UTF-8 (invalid byte at offset {exc.start})") from None
    try:
        return json_value(text)
    except ValueError as exc:
        raise UsageError(f"{where}: {exc}") from None


def load_turn_settings(path: str | None) -> TurnSettings | None:
    """The ``[classification.turns]`` table of a rules file (``None``: absent or no file).

    Only reads the file's TOML; pydantic is imported only when the table exists.
    """
    if path is None:
        return None
    from smista.config.load import load_document, validate_section

    classification = load_document(path, known_tables_only=False).get("classification")
    if not isinstance(classification, dict) or "turns" not in classification:
        return None
    from smista.core.turnrules import TurnSettings

    return validate_section(TurnSettings, classification["turns"], "classification.turns", path)


def text_or_messages(text: str | None, messages: str | None) -> tuple[str | None, object]:
    """``(text, None)`` or ``(None, payload)``: exactly one of TEXT and ``--messages``."""
    if (text is None) == (messages is None):
        raise UsageError("give exactly one of TEXT and --messages FILE")
    if messages is not None:
        return None, read_messages_arg(messages)
    assert text is not None
    return read_text_arg(text), None


def turn_lines(result: TurnResult) -> list[str]:
    """What was read from the turn: format, housekeeping, follow-up, stripped spans."""
    t = result.turn
    lines = [f"turn:       {t.format}, {t.user_turns} user turn(s), ~{t.token_estimate} tokens"]
    if t.housekeeping is not None:
        lines.append(f"housekeeping: {t.housekeeping.kind} ({t.housekeeping.name})")
    if result.follow is not None:
        lines.append(f"follow-up:  {result.follow.why} ({result.follow.turns_back} turn(s) back)")
    if t.stripped:
        names = ", ".join(dict.fromkeys(s.name for s in t.stripped))
        lines.append(f"stripped:   {len(t.stripped)} span(s): {names}")
    return lines


def render_turn_result(result: TurnResult) -> str:
    """``smista classify --messages`` without ``--json``."""
    c = result.classification
    lines = [f"intent:     {c.intent.value} ({c.source.value})"]
    if c.confidence is not None:
        lines.append(f"confidence: {c.confidence.value}")
    lines.append(f"reason:     {c.reason}")
    return "\n".join(lines + turn_lines(result))


def _preview(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def render_turn_explanation(found: TurnExplanation) -> str:
    """``smista explain --messages`` without ``--json``."""
    from smista.cli._render import render_explanation

    info = found.turn
    lines = [
        f"turn format: {info.format}; {info.user_turns} user turn(s); "
        f"~{info.token_estimate} tokens; tools: {', '.join(info.tools) or 'none'}",
        f"current user text: {_preview(found.text)!r}",
    ]
    if found.stripped:
        lines.append(f"stripped harness noise ({len(found.stripped)} span(s)):")
        lines += [
            f"  [{s.name}] message {s.message}: {_preview(s.text, 100)!r}" for s in found.stripped
        ]
    else:
        lines.append("stripped harness noise: none")
    if found.housekeeping is not None:
        lines.append(
            f"housekeeping call ({info.housekeeping}, pattern {found.housekeeping}): "
            "not classified by the rules"
        )
    lines += ["", render_explanation(found.explanation)]
    if found.follow_up is not None and found.previous is not None:
        why = (
            "the current text is a continuation phrase"
            if found.follow_up == "continuation"
            else "the current text has no signal of its own (no rule, or a low catch-all"
            " that reads no model)"
        )
        lines += [
            "",
            f"follow-up: {why}; the intent comes from an earlier user turn:",
            f"  {_preview(found.previous_text or '')!r}",
            "",
            render_explanation(found.previous),
        ]
    lines += ["", f"result: {found.result.intent.value} - {found.result.reason}"]
    return "\n".join(lines)
