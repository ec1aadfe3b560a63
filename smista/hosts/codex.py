"""Codex hooks: ``UserPromptSubmit`` context and a model hint; ``PreToolUse`` grounding note.

Edge adapter. :func:`respond` maps one Codex hook input (its documented
command-hook stdin JSON) to the JSON the hook prints, or ``None``:

* ``UserPromptSubmit`` (``prompt``, ``model``, ``permission_mode``,
  ``transcript_path`` ...): ``hookSpecificOutput.additionalContext`` with the
  intent, confidence and routed model, as for Claude Code; and when the
  routing policy would pick a model other than the session's ``model``, a
  ``systemMessage`` telling the user so. A hook cannot switch Codex's model;
  the user can, with ``/model``. ``permission_mode: "plan"`` is taken as an
  explicit ``plan`` intent.
* ``PreToolUse``: Codex does not act on ``permissionDecision: "ask"`` (it
  reports the hook as failed and runs the tool), and smista never denies on
  its own, so an abstaining call gets a ``systemMessage`` warning only.
* any other event: nothing.

Earlier prompts for the follow-up rule come from the session's rollout file
(``transcript_path``; its ``user_message`` events, see
:mod:`smista.hosts.transcript`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from smista.core.routing import RoutingDecision
from smista.hosts.claude_code import (
    HookInputError,
    context_text,
    decide_prompt,
    read_input,
    required_str,
)
from smista.hosts.engine import HostDecision, HostEngine
from smista.hosts.tools import ground_tool_call

__all__ = ["respond", "same_model"]


def same_model(session_model: str, routed: RoutingDecision) -> bool:
    """Whether Codex's ``model`` (often without a provider) is the routed model."""
    wanted = session_model.strip().lower()
    return wanted in {routed.model.lower(), routed.model_ref.lower()}


def switch_message(decision: HostDecision, session_model: str) -> str | None:
    """The ``systemMessage`` when the policy would pick another model, else ``None``."""
    c, r = decision.classification, decision.routing
    if c is None or r is None or same_model(session_model, r):
        return None
    article = "an" if c.intent.value[0] in "aeiou" else "a"
    return (
        f"smista: this looks like {article} {c.intent.value} turn; the routing policy would use "
        f"{r.model_ref} rather than {session_model} ({r.reason}). Hooks cannot switch the "
        "model: use /model to change it."
    )


def respond(payload: object, engine: HostEngine) -> dict[str, Any] | None:
    """The hook's stdout JSON for ``payload``, or ``None`` for no output."""
    payload, name = read_input(payload)
    if name == "UserPromptSubmit":
        decision = decide_prompt(payload, engine)
        model = required_str(payload, "model")
        text = context_text(decision)
        if text is None:
            return None
        out: dict[str, Any] = {
            "hookSpecificOutput": {"hookEventName": name, "additionalContext": text}
        }
        message = switch_message(decision, model)
        if message is not None:
            out["systemMessage"] = message
        return out
    if name == "PreToolUse":
        tool = required_str(payload, "tool_name")
        tool_input = payload.get("tool_input")
        if not isinstance(tool_input, Mapping):
            raise HookInputError("hook input: 'tool_input' must be an object")
        verdict = ground_tool_call(tool, tool_input, required=engine.tool_required)
        return {"systemMessage": verdict.reason()} if verdict.abstain else None
    return None
