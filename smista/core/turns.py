"""The turn model: a whole agent turn (chat messages) read into what classification needs.

Pure; never performs I/O. Owns reading the three message formats hosts send
(OpenAI chat ``messages``, Anthropic Messages, the OpenAI Responses ``input``),
telling them apart, stripping harness noise from user text (keeping the spans),
and spotting housekeeping calls. It never classifies (see
:mod:`smista.core.turnclassify`) and never raises anything but :class:`TurnError` on
bad input.

What counts as the *current user text*: the last user message that still has
text once harness noise is stripped (tool results are not user text), so a
request made in the middle of an agent's tool loop is read as the human's last
words. Earlier such messages are ``history``.
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from smista.core.errors import SmistaError
from smista.core.turnrules import CompiledTurnSettings, TurnSettings, compiled

__all__ = [
    "FORMATS",
    "MAX_ITEMS",
    "PAYLOAD_SCHEMA",
    "ROLES",
    "Housekeeping",
    "Stripped",
    "Turn",
    "TurnError",
    "TurnFormat",
    "detect_format",
    "parse_turn",
]

TurnFormat = Literal["openai-chat", "anthropic", "openai-responses", "text"]
FORMATS: tuple[str, ...] = ("openai-chat", "anthropic", "openai-responses", "text")

MAX_ITEMS = 100_000
"""A turn holds at most this many messages, and a message at most this many parts."""

_MAX_SPAN_CHARS = 4000
"""A stripped span keeps at most this many characters (``explain`` shows it)."""

Path = tuple[str | int, ...]


class TurnError(SmistaError, ValueError):
    """A turn payload is not one of the known message formats, or is malformed.

    ``path`` is the key path inside the payload (``("messages", 2, "content")``),
    ``loc`` its text form (``messages[2].content``), ``detail`` what was expected.
    The message never quotes the payload's text.
    """

    def __init__(self, path: Path, detail: str) -> None:
        self.path: Path = tuple(path)
        self.loc = _format_path(self.path)
        self.detail = detail
        super().__init__(f"{self.loc}: {detail}" if self.loc else detail)

    def under(self, *prefix: str | int) -> TurnError:
        """The same error with its path inside a larger document (``("messages",)``)."""
        return TurnError((*prefix, *self.path), self.detail)


def _format_path(path: Path) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


@dataclass(frozen=True, slots=True)
class Stripped:
    """A span of harness noise removed from a user message."""

    name: str
    """The pattern that matched (``system-reminder``, ``ide-context`` ...)."""
    text: str
    """The removed text (at most 4000 characters, then ``...``)."""
    message: int
    """Index of the message (or Responses item) it came from."""


@dataclass(frozen=True, slots=True)
class Housekeeping:
    """A host's own bookkeeping call: ``kind`` (title, summary, probe), pattern ``name``."""

    kind: str
    name: str


@dataclass(frozen=True, slots=True)
class Turn:
    """One turn, read."""

    format: TurnFormat
    text: str
    """The current user text, harness noise stripped."""
    raw_text: str = ""
    """The current user text as sent."""
    history: tuple[str, ...] = ()
    """Earlier user turns (stripped), oldest first."""
    system: str = ""
    """System, developer and ``instructions`` text."""
    tools: tuple[str, ...] = ()
    """Names of the tools called in the turn, in first-call order."""
    tool_results: tuple[str, ...] = ()
    """Text of the tool results, in order."""
    has_images: bool = False
    has_attachments: bool = False
    """Files, documents or audio in the turn."""
    token_estimate: int = 0
    """Characters / 4 (rounded up) over every text in the turn."""
    stripped: tuple[Stripped, ...] = ()
    housekeeping: Housekeeping | None = None
    user_turns: int = field(default=0)
    """How many user turns (messages with user text) the turn has."""


# ---------------------------------------------------------------------------
# Format detection

_ANTHROPIC_BLOCKS = frozenset(
    {
        "tool_use",
        "tool_result",
        "document",
        "thinking",
        "redacted_thinking",
        "server_tool_use",
        "web_search_tool_result",
        "search_result",
        "container_upload",
    }
)
_OPENAI_PARTS = frozenset({"image_url", "input_audio", "file", "refusal"})
_RESPONSES_PARTS = frozenset({"input_text", "output_text", "input_image", "input_file"})
_RESPONSES_ITEMS = frozenset(
    {"function_call", "function_call_output", "reasoning", "item_reference"}
)
_OPENAI_ROLES = frozenset({"system", "developer", "tool", "function"})


def _kind(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "an array"
    if isinstance(value, Mapping):
        return "an object"
    if value is None:
        return "null"
    return type(value).__name__


def _items_kind(items: Sequence[object]) -> TurnFormat:
    """Which format a list of messages or items is (first decisive sign wins)."""
    anthropic_image = False
    for item in items[:MAX_ITEMS]:
        if not isinstance(item, Mapping):
            continue
        kind = item.get("type")
        if isinstance(kind, str) and (
            kind in _RESPONSES_ITEMS or kind.endswith(("_call", "_call_output"))
        ):
            return "openai-responses"
        role = item.get("role")
        if isinstance(role, str) and role in _OPENAI_ROLES and "tool_call_id" in item:
            return "openai-chat"
        if "tool_calls" in item:
            return "openai-chat"
        content = item.get("content")
        if isinstance(content, list):
            for part in content[:MAX_ITEMS]:
                if not isinstance(part, Mapping):
                    continue
                ptype = part.get("type")
                if not isinstance(ptype, str):
                    continue
                if ptype in _RESPONSES_PARTS:
                    return "openai-responses"
                if ptype in _ANTHROPIC_BLOCKS:
                    return "anthropic"
                if ptype in _OPENAI_PARTS:
                    return "openai-chat"
                if ptype == "image" and "source" in part:
                    anthropic_image = True
    if anthropic_image:
        return "anthropic"
    return "openai-chat"


def detect_format(payload: object) -> TurnFormat:
    """The format of ``payload``, or :class:`TurnError` when it is none of them.

    A string is bare text. A list is chat messages or Responses items. An
    object is a request body: ``input`` (Responses) or ``messages`` (Anthropic
    when it has a top-level ``system`` or Anthropic blocks, else OpenAI chat).
    """
    if isinstance(payload, str):
        return "text"
    if isinstance(payload, (list, tuple)):
        return _items_kind(payload)
    if isinstance(payload, Mapping):
        if "messages" in payload:
            messages = payload["messages"]
            if not isinstance(messages, (list, tuple)):
                raise TurnError(
                    ("messages",), f"expected an array of messages, got {_kind(messages)}"
                )
            if "system" in payload:
                return "anthropic"
            return _items_kind(messages)
        if "input" in payload:
            return "openai-responses"
        raise TurnError(
            (),
            "expected a string, an array of messages, or an object with 'messages' "
            "(OpenAI chat, Anthropic) or 'input' (OpenAI Responses)",
        )
    raise TurnError(
        (), f"expected a string, an array of messages or a request object, got {_kind(payload)}"
    )


# ---------------------------------------------------------------------------
# Reading messages into a neutral form


@dataclass(slots=True)
class _Reader:
    """Accumulates what the messages say while they are read."""

    user: list[tuple[int, str]] = field(default_factory=list)
    system: list[str] = field(default_factory=list)
    tools: dict[str, None] = field(default_factory=dict)
    results: list[str] = field(default_factory=list)
    chars: int = 0
    images: bool = False
    attachments: bool = False

    def seen(self, text: str) -> str:
        self.chars += len(text)
        return text


def _str(value: object, path: Path, what: str = "a string") -> str:
    if not isinstance(value, str):
        raise TurnError(path, f"expected {what}, got {_kind(value)}")
    return value


def _obj(value: object, path: Path) -> Mapping[str, object]:
    if not isinstance(value, Mapping):
        raise TurnError(path, f"expected an object, got {_kind(value)}")
    return value


def _list(value: object, path: Path, what: str) -> Sequence[object]:
    if not isinstance(value, (list, tuple)):
        raise TurnError(path, f"expected {what}, got {_kind(value)}")
    if len(value) > MAX_ITEMS:
        raise TurnError(path, f"has {len(value)} entries; at most {MAX_ITEMS} are allowed")
    return value


def _type(part: Mapping[str, object], path: Path) -> str:
    kind = part.get("type")
    if not isinstance(kind, str):
        raise TurnError(
            (*path, "type"),
            "missing content type" if kind is None else f"expected a string, got {_kind(kind)}",
        )
    return kind


def _role(msg: Mapping[str, object], path: Path, allowed: tuple[str, ...]) -> str:
    role = msg.get("role")
    if role is None:
        raise TurnError((*path, "role"), f"missing role; expected one of: {', '.join(allowed)}")
    role = _str(role, (*path, "role"))
    if role not in allowed:
        raise TurnError(
            (*path, "role"), f"unknown role {role!r}; expected one of: {', '.join(allowed)}"
        )
    return role


_TEXT_PARTS = frozenset({"text", "input_text", "output_text"})
_IMAGE_PARTS = frozenset({"image", "image_url", "input_image"})
_FILE_PARTS = frozenset({"document", "file", "input_file", "input_audio", "container_upload"})
ROLES: tuple[str, ...] = ("system", "developer", "user", "assistant", "tool", "function")
"""Message roles, the union over the three formats (each format uses some of them)."""


def _tool_text(value: object, path: Path, r: _Reader) -> str:
    """A tool result's content: a string, or parts whose text is joined."""
    if value is None:
        return ""
    if isinstance(value, str):
        return r.seen(value)
    if isinstance(value, Mapping):
        value = [value]
    parts = _list(value, path, "a string, null or an array of content parts")
    texts: list[str] = []
    for i, raw in enumerate(parts):
        part = _obj(raw, (*path, i))
        kind = _type(part, (*path, i))
        if kind in _TEXT_PARTS:
            texts.append(r.seen(_str(part.get("text"), (*path, i, "text"))))
        elif kind in _IMAGE_PARTS:
            r.images = True
        elif kind in _FILE_PARTS:
            r.attachments = True
    return "\n".join(texts)


def _content(value: object, path: Path, r: _Reader) -> str:
    """Message content in any of the formats: a string, null, or parts / blocks.

    Text parts give the text; images and files set the flags; tool calls and
    tool results (Anthropic blocks) are recorded. Part kinds not listed here
    (new ones appear often) carry nothing to classify and are skipped.
    """
    if value is None:
        return ""
    if isinstance(value, str):
        return r.seen(value)
    parts = _list(value, path, "a string, null or an array of content parts")
    texts: list[str] = []
    for i, raw in enumerate(parts):
        ppath = (*path, i)
        part = _obj(raw, ppath)
        kind = _type(part, ppath)
        if kind in _TEXT_PARTS:
            texts.append(r.seen(_str(part.get("text"), (*ppath, "text"))))
        elif kind in _IMAGE_PARTS:
            r.images = True
        elif kind in _FILE_PARTS:
            r.attachments = True
            source = part.get("source")
            if (
                isinstance(source, Mapping)
                and source.get("type") == "text"
                and isinstance(source.get("data"), str)
            ):
                r.seen(str(source["data"]))
        elif kind in {"tool_use", "server_tool_use"}:
            r.tools.setdefault(_str(part.get("name"), (*ppath, "name")), None)
        elif kind == "tool_result":
            r.results.append(_tool_text(part.get("content"), (*ppath, "content"), r))
        elif kind == "thinking" and isinstance(part.get("thinking"), str):
            r.seen(str(part["thinking"]))
        elif kind == "refusal" and isinstance(part.get("refusal"), str):
            r.seen(str(part["refusal"]))
    return "\n".join(texts)


def _tool_calls(value: object, path: Path, r: _Reader) -> None:
    """OpenAI chat ``tool_calls``: ``function`` (or ``custom``) objects with a name."""
    for j, raw in enumerate(_list(value, path, "an array of tool calls")):
        cpath = (*path, j)
        call = _obj(raw, cpath)
        for key in ("function", "custom"):
            if key in call:
                fn = _obj(call[key], (*cpath, key))
                r.tools.setdefault(_str(fn.get("name"), (*cpath, key, "name")), None)
                args = fn.get("arguments", fn.get("input"))
                if isinstance(args, str):
                    r.seen(args)


def _message(item: Mapping[str, object], index: int, path: Path, r: _Reader) -> None:
    role = _role(item, path, ROLES)
    text = _content(item.get("content"), (*path, "content"), r)
    if role in {"system", "developer"}:
        r.system.append(text)
    elif role == "user":
        r.user.append((index, text))
    elif role in {"tool", "function"}:
        r.results.append(text)
        if role == "function" and isinstance(item.get("name"), str):
            r.tools.setdefault(str(item["name"]), None)
    if item.get("tool_calls") is not None:
        _tool_calls(item["tool_calls"], (*path, "tool_calls"), r)
    legacy = item.get("function_call")
    if isinstance(legacy, Mapping) and isinstance(legacy.get("name"), str):
        r.tools.setdefault(str(legacy["name"]), None)


_CALL_OUTPUT_RE = re.compile(r"_call_output$")  # the schema's pattern, same semantics


def _read_items(items: Sequence[object], base: Path, r: _Reader) -> None:
    """Chat messages and Responses items alike (one set of rules for the three formats)."""
    for i, raw in enumerate(items):
        path = (*base, i)
        item = _obj(raw, path)
        kind = item.get("type", "message")
        kind = _str(kind, (*path, "type"))
        if kind == "message":
            _message(item, i, path, r)
        elif kind in {"function_call", "custom_tool_call"}:
            r.tools.setdefault(_str(item.get("name"), (*path, "name")), None)
            args = item.get("arguments", item.get("input"))
            if isinstance(args, str):
                r.seen(args)
        elif _CALL_OUTPUT_RE.search(kind):
            r.results.append(_tool_text(item.get("output"), (*path, "output"), r))
        elif kind.endswith("_call"):
            name = item.get("name")
            r.tools.setdefault(name if isinstance(name, str) else kind.removesuffix("_call"), None)
        # reasoning, item_reference and other item kinds carry no user text.


# ---------------------------------------------------------------------------
# Noise and housekeeping


def _span(text: str, index: int, name: str) -> Stripped:
    if len(text) > _MAX_SPAN_CHARS:
        text = text[:_MAX_SPAN_CHARS] + "..."
    return Stripped(name=name, text=text, message=index)


def _strip_tags(
    text: str,
    index: int,
    name: str,
    opener: re.Pattern[str],
    closer: re.Pattern[str],
    spans: list[Stripped],
) -> tuple[str, int]:
    """Remove ``<T>...</T>`` pairs (first same-name closer after each opener), linearly.

    Same result as substituting ``<(T)>[\\s\\S]*?</\\1>``, without its quadratic
    time on text full of unclosed openers: the closers are indexed once.
    """
    closes: dict[str, list[int]] = {}
    for m in closer.finditer(text):
        closes.setdefault(m.group(1), []).append(m.start())
    if not closes:
        return text, 0
    pieces: list[str] = []
    pos = count = 0
    for m in opener.finditer(text):
        if m.start() < pos:
            continue
        tag = m.group(1)
        found = closes.get(tag)
        if not found:
            continue
        k = bisect.bisect_left(found, m.end())
        if k == len(found):
            continue
        end = found[k] + len(tag) + 3
        pieces += [text[pos : m.start()], " "]
        spans.append(_span(text[m.start() : end], index, name))
        pos = end
        count += 1
    if not count:
        return text, 0
    pieces.append(text[pos:])
    return "".join(pieces), count


def _strip(text: str, index: int, settings: CompiledTurnSettings, spans: list[Stripped]) -> str:
    found = False
    for name, regex, closer in settings.noise:
        if closer is not None:
            text, count = _strip_tags(text, index, name, regex, closer, spans)
        else:

            def keep(match: re.Match[str], name: str = name) -> str:
                spans.append(_span(match.group(0), index, name))
                return " "

            text, count = regex.subn(keep, text)
        found = found or count > 0
    # Untouched text stays exactly as sent (a text-only turn is the bare prompt).
    return text.strip() if found else text


def _housekeeping(system: str, user: str, settings: CompiledTurnSettings) -> Housekeeping | None:
    for name, kind, scope, regex in settings.housekeeping:
        if scope in {"system", "any"} and regex.search(system):
            return Housekeeping(kind=kind, name=name)
        if scope in {"user", "any"} and regex.search(user):
            return Housekeeping(kind=kind, name=name)
    return None


# ---------------------------------------------------------------------------
# Entry point


def parse_turn(payload: object, settings: TurnSettings | None = None) -> Turn:
    """Read ``payload`` (any format :func:`detect_format` knows) into a :class:`Turn`.

    ``settings`` is the ``[classification.turns]`` table (``None``: built-ins).
    Raises :class:`TurnError` for a payload of no known shape.
    """
    if isinstance(payload, Turn):
        return payload
    fmt = detect_format(payload)
    config = compiled(settings)
    r = _Reader()
    if isinstance(payload, str):
        r.user.append((0, r.seen(payload)))
    elif isinstance(payload, Mapping):
        if "messages" in payload:
            if payload.get("system") is not None:
                r.system.append(_content(payload["system"], ("system",), r))
            items = _list(payload["messages"], ("messages",), "an array of messages")
            _read_items(items, ("messages",), r)
        else:
            if payload.get("instructions") is not None:
                r.system.append(r.seen(_str(payload["instructions"], ("instructions",))))
            given = payload["input"]
            if isinstance(given, str):
                r.user.append((0, r.seen(given)))
            else:
                _read_items(
                    _list(given, ("input",), "a string or an array of items"), ("input",), r
                )
    else:
        _read_items(_list(payload, (), "an array of messages"), (), r)
    spans: list[Stripped] = []
    turns: list[tuple[str, str]] = []
    for index, raw in r.user:
        clean = _strip(raw, index, config, spans)
        if clean.strip():
            turns.append((raw, clean))
    raw_text, text = turns[-1] if turns else ("", "")
    system = "\n".join(s for s in r.system if s)
    return Turn(
        format=fmt,
        text=text,
        raw_text=raw_text,
        history=tuple(clean for _, clean in turns[:-1]),
        system=system,
        tools=tuple(r.tools),
        tool_results=tuple(r.results),
        has_images=r.images,
        has_attachments=r.attachments,
        token_estimate=math.ceil(r.chars / 4),
        stripped=tuple(spans),
        housekeeping=_housekeeping(system, text, config),
        user_turns=len(turns),
    )


# ---------------------------------------------------------------------------
# The JSON Schema of what parse_turn accepts (arrays and request objects)

_TEXT_ENUM = sorted(_TEXT_PARTS)
_TOOL_PART: dict[str, object] = {
    "anyOf": [
        {
            "type": "object",
            "required": ["type", "text"],
            "properties": {"type": {"enum": _TEXT_ENUM}, "text": {"type": "string"}},
        },
        {
            "type": "object",
            "required": ["type"],
            "properties": {"type": {"type": "string", "not": {"enum": _TEXT_ENUM}}},
        },
    ]
}
_TOOL_CONTENT: dict[str, object] = {
    "anyOf": [
        {"type": "string"},
        {"type": "null"},
        {"type": "array", "items": _TOOL_PART},
        _TOOL_PART,
    ]
}
_PART: dict[str, object] = {
    "anyOf": [
        _TOOL_PART["anyOf"][0],  # type: ignore[index]
        {
            "type": "object",
            "required": ["type", "name"],
            "properties": {
                "type": {"enum": ["server_tool_use", "tool_use"]},
                "name": {"type": "string"},
            },
        },
        {
            "type": "object",
            "required": ["type"],
            "properties": {"type": {"const": "tool_result"}, "content": _TOOL_CONTENT},
        },
        {
            "type": "object",
            "required": ["type"],
            "properties": {
                "type": {
                    "type": "string",
                    "not": {"enum": [*_TEXT_ENUM, "server_tool_use", "tool_result", "tool_use"]},
                }
            },
        },
    ]
}
_CONTENT: dict[str, object] = {
    "anyOf": [{"type": "string"}, {"type": "null"}, {"type": "array", "items": _PART}]
}
_NAMED: dict[str, object] = {
    "type": "object",
    "required": ["name"],
    "properties": {"name": {"type": "string"}},
}
_CALL_OUTPUT = "_call_output$"
_ITEM: dict[str, object] = {
    "anyOf": [
        {
            "type": "object",
            "required": ["role"],
            "properties": {
                "type": {"const": "message"},
                "role": {"enum": list(ROLES)},
                "content": _CONTENT,
                "tool_calls": {
                    "anyOf": [
                        {"type": "null"},
                        {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "properties": {"function": _NAMED, "custom": _NAMED},
                            },
                        },
                    ]
                },
            },
        },
        {
            "type": "object",
            "required": ["type", "name"],
            "properties": {
                "type": {"enum": ["custom_tool_call", "function_call"]},
                "name": {"type": "string"},
            },
        },
        {
            "type": "object",
            "required": ["type"],
            "properties": {
                "type": {"type": "string", "pattern": _CALL_OUTPUT},
                "output": _TOOL_CONTENT,
            },
        },
        {
            "type": "object",
            "required": ["type"],
            "properties": {
                "type": {
                    "type": "string",
                    "not": {
                        "anyOf": [
                            {"enum": ["custom_tool_call", "function_call", "message"]},
                            {"pattern": _CALL_OUTPUT},
                        ]
                    },
                }
            },
        },
    ]
}

PAYLOAD_SCHEMA: dict[str, object] = {
    "description": (
        "A whole turn: an array of OpenAI chat messages, Anthropic messages or OpenAI "
        "Responses input items; or a request object with 'messages' (and an optional "
        "top-level 'system') or with 'input' (and optional 'instructions'). Auto-detected; "
        "other keys of a request object are ignored."
    ),
    "anyOf": [
        {"type": "array", "items": _ITEM},
        {
            "type": "object",
            "required": ["messages"],
            "properties": {"messages": {"type": "array", "items": _ITEM}, "system": _CONTENT},
        },
        {
            "type": "object",
            "required": ["input"],
            "not": {"required": ["messages"]},
            "properties": {
                "input": {"anyOf": [{"type": "string"}, {"type": "array", "items": _ITEM}]},
                "instructions": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            },
        },
    ],
}
"""JSON Schema (2020-12) of the arrays and objects :func:`parse_turn` accepts: exactly
those (a test checks it), so the HTTP API's OpenAPI document can describe ``messages``."""
