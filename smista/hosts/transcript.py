"""Reading a host's session transcript (JSONL) for the user's earlier prompts.

Edge (reads one file, bounded). A line is one JSON object; two formats:

* Claude Code: user turns are ``{"type": "user", "message": {"role": "user",
  "content": ...}}``. Skipped: tool results (content blocks of type
  ``tool_result``), ``isMeta`` caveats, ``isCompactSummary`` continuations,
  sidechain (sub-agent) turns and ``summary`` title records.
* Codex (its rollout file): what the user typed is
  ``{"type": "event_msg", "payload": {"type": "user_message", "message": ...}}``.

Anything else, and anything malformed, is skipped. Only the last
:data:`MAX_TAIL_BYTES` of the file are read. Never raises: an unreadable
transcript gives no earlier prompts.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

__all__ = ["MAX_TAIL_BYTES", "read_user_prompts", "user_prompts"]

MAX_TAIL_BYTES = 256 * 1024


def _codex_text(entry: dict[str, Any]) -> str | None:
    payload = entry.get("payload")
    if not isinstance(payload, dict) or payload.get("type") != "user_message":
        return None
    message = payload.get("message")
    return message if isinstance(message, str) else None


def _user_text(entry: Any) -> str | None:
    if not isinstance(entry, dict):
        return None
    if entry.get("type") == "event_msg":
        return _codex_text(entry)
    if entry.get("type") != "user":
        return None
    if entry.get("isMeta") or entry.get("isCompactSummary") or entry.get("isSidechain"):
        return None
    message = entry.get("message")
    if not isinstance(message, dict) or message.get("role") != "user":
        return None
    content = message.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    parts: list[str] = []
    for block in content:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "tool_result":
            return None
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            parts.append(block["text"])
    return "\n".join(parts) if parts else None


def user_prompts(lines: Iterable[str]) -> Iterator[str]:
    """The user-typed prompts of transcript ``lines``, in order."""
    for line in lines:
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except (ValueError, RecursionError):  # RecursionError: nested too deeply to decode
            continue
        text = _user_text(entry)
        if text is not None:
            yield text


def read_user_prompts(path: str | os.PathLike[str] | None) -> list[str]:
    """The user prompts in the tail of the transcript at ``path`` (``[]`` on any failure)."""
    if not path:
        return []
    try:
        with Path(path).open("rb") as fh:
            size = fh.seek(0, os.SEEK_END)
            start = max(0, size - MAX_TAIL_BYTES)
            fh.seek(start)
            data = fh.read(MAX_TAIL_BYTES)
    except OSError:
        return []
    lines = data.decode("utf-8", errors="replace").splitlines()
    if start > 0 and lines:
        lines = lines[1:]  # the first line is cut
    return list(user_prompts(lines))
