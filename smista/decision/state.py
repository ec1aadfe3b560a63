"""The conversation state a decision model sees, bounded to a byte budget.

Pure. The state is ``{"cwd", "git_branch", "messages": [{"role", "content"}]}``
with only user and assistant text, in chronological order, ending with the
current user message. It is serialized as Go's ``encoding/json`` would
(compact, raw UTF-8, ``<`` ``>`` ``&`` U+2028 U+2029 escaped, invalid text as
``\\ufffd``) and measured in UTF-8 bytes, escaping included.

When the state is over budget, the oldest whole messages are dropped until the
newest suffix fits. A message is never truncated and the current message is
never dropped: if it alone (with the metadata) is over budget,
:class:`StateTooLarge` is raised and classification is skipped.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr

from smista.core.errors import EvaluatorError

__all__ = [
    "DEFAULT_MAX_STATE_BYTES",
    "BoundedState",
    "Conversation",
    "Message",
    "StateTooLarge",
    "bound_state",
    "go_json",
    "has_previous_user_task",
    "messages_from_records",
]

DEFAULT_MAX_STATE_BYTES = 80 * 1024
"""81,920 bytes: the serialized state budget."""

Role = Literal["user", "assistant"]


class Message(BaseModel):
    """One user or assistant message."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: Role
    content: StrictStr


class Conversation(BaseModel):
    """What the decision stage classifies: metadata, earlier messages, the current one."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    cwd: StrictStr = ""
    git_branch: StrictStr = ""
    history: tuple[Message, ...] = ()
    message: StrictStr
    """The current user message (the accepted turn being classified)."""

    def messages(self) -> list[Message]:
        """History plus the current message, oldest first."""
        return [*self.history, Message(role="user", content=self.message)]


class BoundedState(BaseModel):
    """The serialized state that fits the budget, and what was dropped to fit it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    json_text: StrictStr
    size: Annotated[StrictInt, Field(ge=0)]
    """UTF-8 byte length of ``json_text``."""
    messages: Annotated[StrictInt, Field(ge=1)]
    """Messages kept (a suffix ending with the current message)."""
    dropped: Annotated[StrictInt, Field(ge=0)]
    """Oldest messages dropped to fit the budget."""
    budget: Annotated[StrictInt, Field(ge=1)]


class StateTooLarge(EvaluatorError):
    """The current message and metadata alone exceed the state budget."""

    category = "state_too_large"

    def __init__(self, size: int, budget: int) -> None:
        self.size = size
        self.budget = budget
        super().__init__(
            f"state too large: the current message alone serializes to {size} bytes, "
            f"over the {budget}-byte limit; classification skipped"
        )


# ---------------------------------------------------------------------------
# Go-compatible JSON

_GO_ESCAPES = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}
_GO_SPECIAL = re.compile("[<>&\u2028\u2029\ud800-\udfff]")


def _go_escape(match: re.Match[str]) -> str:
    char = match.group()
    return _GO_ESCAPES.get(char, "\\ufffd")


def go_json(value: Any, *, sort_keys: bool = False) -> str:
    """Compact JSON as Go's ``json.Marshal`` writes it (key order kept unless sorted).

    Lone surrogates (text that was not valid UTF-8) become ``\\ufffd`` escapes.
    The escapes only ever occur inside strings, so replacing them in the
    serialized text is exact.
    """
    text = json.dumps(
        value, ensure_ascii=False, separators=(",", ":"), allow_nan=False, sort_keys=sort_keys
    )
    return _GO_SPECIAL.sub(_go_escape, text)


def _size(text: str) -> int:
    return len(text.encode("utf-8"))


# ---------------------------------------------------------------------------
# bounding


def _message_json(message: Message) -> str:
    return go_json({"role": message.role, "content": message.content})


def bound_state(
    conversation: Conversation, max_bytes: int = DEFAULT_MAX_STATE_BYTES
) -> BoundedState:
    """The newest whole-message suffix whose serialized state fits ``max_bytes``."""
    if max_bytes < 1:
        raise ValueError("max_bytes must be at least 1")
    messages = conversation.messages()
    head = go_json({"cwd": conversation.cwd, "git_branch": conversation.git_branch})
    # '{"cwd":..,"git_branch":..}' -> '{"cwd":..,"git_branch":..,"messages":[' ... ']}'
    prefix = head[:-1] + ',"messages":['
    fixed = _size(prefix) + len("]}")
    # A compact serialization is a concatenation, so the size of the suffix
    # starting at k is fixed + sum(message sizes) + (number of messages - 1)
    # commas. Walk back from the newest message while the suffix still fits:
    # the longest fitting suffix is what dropping the oldest first leaves.
    encoded = [_message_json(messages[-1])]
    total = fixed + _size(encoded[0])
    if total > max_bytes:
        raise StateTooLarge(total, max_bytes)
    start = len(messages) - 1
    while start > 0:
        candidate = _message_json(messages[start - 1])
        grown = total + _size(candidate) + 1
        if grown > max_bytes:
            break
        encoded.append(candidate)
        total = grown
        start -= 1
    text = prefix + ",".join(reversed(encoded)) + "]}"
    return BoundedState(
        json_text=text, size=_size(text), messages=len(encoded), dropped=start, budget=max_bytes
    )


def has_previous_user_task(conversation: Conversation) -> bool:
    """Whether any user message precedes the current one."""
    return any(m.role == "user" for m in conversation.history)


def messages_from_records(records: Iterable[Mapping[str, Any]]) -> tuple[Message, ...]:
    """Keep only user and assistant text from ``{role, content}`` records.

    Other roles (system, tool, ...) are left out, as are empty assistant
    messages and records whose ``content`` is not a string.
    """
    out: list[Message] = []
    for record in records:
        role = record.get("role")
        content = record.get("content")
        if role not in ("user", "assistant") or not isinstance(content, str):
            continue
        if role == "assistant" and not content:
            continue
        out.append(Message(role=role, content=content))
    return tuple(out)
