"""Claude Code hooks: ``UserPromptSubmit`` context and ``PreToolUse`` grounding.

Edge adapter. :func:`respond` maps one hook input (the JSON Claude Code writes
to the hook's stdin) to the JSON the hook prints, or ``None`` for "print
nothing, let Claude Code carry on":

* ``UserPromptSubmit`` (``prompt``, ``transcript_path``, ``permission_mode``):
  ``hookSpecificOutput.additionalContext`` naming the intent, its confidence
  and the model the routing policy would choose. A hook cannot switch the
  model of the prompt; the context says what smista would pick. Housekeeping
  prompts get no output. ``permission_mode: "plan"`` is taken as an explicit
  ``plan`` intent (the user switched to plan mode).
* ``PreToolUse`` (``tool_name``, ``tool_input``): when the grounding check
  says the call should abstain, ``permissionDecision: "ask"`` with the reason;
  otherwise nothing (smista never allows or denies on its own).
* any other event: nothing.

Reads the transcript only to find earlier user prompts (for follow-ups).
Raises :class:`HookInputError` for a payload of the wrong shape; the command
turns that, like any failure, into "no output, exit 0".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from smista.core.errors import SmistaError
from smista.hosts._turn import turn_from_prompt
from smista.hosts.engine import HostDecision, HostEngine
from smista.hosts.tools import ground_tool_call
from smista.hosts.transcript import read_user_prompts

__all__ = [
    "HookInputError",
    "context_text",
    "decide_prompt",
    "optional_str",
    "read_input",
    "required_str",
    "respond",
]

MAX_CONTEXT_CHARS = 2000
"""additionalContext is kept short: it is added to every prompt."""


class HookInputError(SmistaError, ValueError):
    """The hook input is not the shape the host documents."""


def required_str(payload: Mapping[str, Any], key: str) -> str:
    """``payload[key]``, which must be a string (raises :class:`HookInputError`)."""
    value = payload.get(key)
    if not isinstance(value, str):
        raise HookInputError(f"hook input: '{key}' must be a string")
    return value


def optional_str(payload: Mapping[str, Any], key: str) -> str | None:
    """``payload[key]`` when it is a string, ``None`` when absent or null."""
    value = payload.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise HookInputError(f"hook input: '{key}' must be a string or null")
    return value


def read_input(payload: object) -> tuple[Mapping[str, Any], str]:
    """The hook input as a mapping and its ``hook_event_name``."""
    if not isinstance(payload, Mapping):
        raise HookInputError("hook input must be a JSON object")
    return payload, required_str(payload, "hook_event_name")


def context_text(decision: HostDecision) -> str | None:
    """The additionalContext line for a decided turn (``None`` when skipped)."""
    c = decision.classification
    if c is None:
        return None
    confidence = c.confidence.value if c.confidence is not None else "n/a"
    text = f"smista: intent {c.intent.value} (confidence {confidence}; {c.reason})."
    r = decision.routing
    if r is not None:
        text += f" The routing policy would choose {r.model_ref} ({r.reason})."
    return text[:MAX_CONTEXT_CHARS]


def decide_prompt(payload: Mapping[str, Any], engine: HostEngine) -> HostDecision:
    """The decision for a ``UserPromptSubmit`` input (``prompt`` + its transcript)."""
    prompt = required_str(payload, "prompt")
    earlier = read_user_prompts(optional_str(payload, "transcript_path"))
    if earlier and earlier[-1] == prompt:
        earlier = earlier[:-1]  # the host may have logged the prompt already
    mode = payload.get("permission_mode")
    command = "plan" if mode == "plan" else None
    return engine.decide(turn_from_prompt(prompt, earlier), command=command)


def respond(payload: object, engine: HostEngine) -> dict[str, Any] | None:
    """The hook's stdout JSON for ``payload``, or ``None`` for no output."""
    payload, name = read_input(payload)
    if name == "UserPromptSubmit":
        text = context_text(decide_prompt(payload, engine))
        if text is None:
            return None
        return {"hookSpecificOutput": {"hookEventName": name, "additionalContext": text}}
    if name == "PreToolUse":
        tool = required_str(payload, "tool_name")
        tool_input = payload.get("tool_input")
        if not isinstance(tool_input, Mapping):
            raise HookInputError("hook input: 'tool_input' must be an object")
        verdict = ground_tool_call(tool, tool_input, required=engine.tool_required)
        if not verdict.abstain:
            return None
        return {
            "hookSpecificOutput": {
                "hookEventName": name,
                "permissionDecision": "ask",
                "permissionDecisionReason": verdict.reason(),
            }
        }
    return None
