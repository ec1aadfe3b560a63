"""An MCP server (official ``mcp`` SDK) with ``classify``, ``route`` and ``ground`` tools.

Edge adapter. :func:`build_server` registers three tools on an SDK
``MCPServer`` over one :class:`~smista.hosts.engine.HostEngine`; :func:`serve`
runs it on stdio (``smista mcp``). Imports ``mcp`` only when called.

* ``classify``: a prompt ``text`` or a turn (``messages``: a message list or a
  whole OpenAI chat / Anthropic / Responses body) -> the classification wire
  JSON plus the turn summary (format, follow-up, housekeeping ...).
* ``route``: the same input -> the classification and the model the routing
  policy picks (or why nothing routes, or why the turn is skipped).
* ``ground``: a tool call's ``params`` and its ``required`` keys (or a
  ``tool_name`` whose keys smista knows) -> score, missing and weak keys, and
  whether the caller should abstain and ask.

Bad arguments are tool errors (``isError`` results with one readable line,
never the input text); inputs are bounded by :data:`MAX_TEXT_CHARS` and
:data:`MAX_MESSAGES_BYTES`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from smista.hosts._turn import HostTurn, TurnError, turn_from_body
from smista.hosts.engine import HostEngine
from smista.hosts.tools import ground_tool_call

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

__all__ = ["MAX_MESSAGES_BYTES", "MAX_TEXT_CHARS", "build_server", "serve"]

MAX_TEXT_CHARS = 1024 * 1024
MAX_MESSAGES_BYTES = 10 * 1024 * 1024

INSTRUCTIONS = (
    "smista classifies coding-agent requests into intents (chat, plan, edit, review, "
    "summarize, prompt, skill) and routes them to models by a routing policy. Use "
    "'classify' for the intent of a prompt or turn, 'route' for the model the policy would "
    "pick, and 'ground' before a tool call to check its arguments are not guesses."
)


class ArgumentError(ValueError):
    """A tool argument smista cannot use (the message is safe to show)."""


def _turn(text: str | None, messages: Any) -> HostTurn:
    if (text is None) == (messages is None):
        raise ArgumentError("give exactly one of 'text' and 'messages'")
    if text is not None:
        if len(text) > MAX_TEXT_CHARS:
            raise ArgumentError(f"'text' is longer than {MAX_TEXT_CHARS} characters")
        return HostTurn(text)
    if not isinstance(messages, list | dict):
        raise ArgumentError("'messages' must be a message list or a request body object")
    if len(json.dumps(messages, ensure_ascii=False)) > MAX_MESSAGES_BYTES:
        raise ArgumentError(f"'messages' is larger than {MAX_MESSAGES_BYTES} bytes")
    return turn_from_body(messages)


def _turn_error(exc: TurnError, messages: Any) -> ArgumentError:
    """The error with its key path from the ``messages`` argument."""
    inner = exc.under("messages") if isinstance(messages, list) else exc
    return ArgumentError(f"messages: {inner}" if not inner.loc else str(inner))


def classify_tool(
    engine: HostEngine, text: str | None, messages: Any, command: str | None
) -> dict[str, Any]:
    """The ``classify`` tool's answer (raises :class:`ArgumentError`)."""
    try:
        return engine.classify(_turn(text, messages), command=command).to_wire()
    except TurnError as exc:
        raise _turn_error(exc, messages) from None
    except ValueError as exc:  # an unknown command intent
        raise ArgumentError(str(exc)) from None


def route_tool(
    engine: HostEngine, text: str | None, messages: Any, paths: list[str] | None
) -> dict[str, Any]:
    """The ``route`` tool's answer (raises :class:`ArgumentError`)."""
    try:
        result = engine.classify(_turn(text, messages))
    except TurnError as exc:
        raise _turn_error(exc, messages) from None
    return engine.route(result, touched_files=paths or ()).to_json()


def ground_tool(
    engine: HostEngine,
    params: Mapping[str, Any],
    required: list[str] | None,
    tool_name: str | None,
    threshold: float | None,
) -> dict[str, Any]:
    """The ``ground`` tool's answer (raises :class:`ArgumentError`)."""
    if required is None and tool_name is None:
        raise ArgumentError("give 'required' keys or a 'tool_name'")
    name = tool_name or "tool"
    overrides = dict(engine.tool_required)
    if required is not None:
        overrides[name] = tuple(required)
    return ground_tool_call(name, params, required=overrides, threshold=threshold).to_json()


def _argument_problems(tool: str, exc: Any) -> str:
    """One line for the SDK's argument ``ValidationError``: key paths and what was
    expected, never the values (they are the caller's data)."""
    problems: dict[str, str] = {}
    for err in exc.errors(include_url=False):
        parts = [str(p) for p in err["loc"] if not (isinstance(p, str) and "[" in p)]
        problems.setdefault(".".join(parts) or "arguments", str(err["msg"]))
    return f"{tool}: " + "; ".join(f"{loc}: {msg}" for loc, msg in problems.items())


def build_server(engine: HostEngine) -> MCPServer:
    """An SDK ``MCPServer`` named ``smista`` with the three tools."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
    from pydantic import ValidationError

    known: dict[str, list[str]] = {}  # tool -> its argument names, from the advertised schemas

    class _Server(MCPServer):
        async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
            if not known:
                for tool in await self.list_tools():
                    known[tool.name] = list(tool.input_schema.get("properties", {}))
            allowed = known.get(name)  # None: an unknown tool, which the SDK reports itself
            unknown = [key for key in arguments if key not in allowed] if allowed else []
            if allowed and unknown:  # the SDK would drop it without a word
                expected = ", ".join(allowed)
                raise ToolError(
                    f"{name}: unknown argument {unknown[0]!r}; expected one of: {expected}"
                )
            try:
                return await super().call_tool(name, arguments, context)
            except ToolError as exc:
                cause = exc.__cause__
                if isinstance(exc, UnexpectedToolError) or not isinstance(cause, ValidationError):
                    raise
                raise ToolError(_argument_problems(name, cause)) from cause

    server: MCPServer = _Server(name="smista", instructions=INSTRUCTIONS)

    @server.tool(
        name="classify",
        description="Classify a coding-agent prompt ('text') or a whole turn ('messages': "
        "an OpenAI chat, Anthropic Messages or Responses message list or body) into an "
        "intent with confidence and reason. 'command' forces an intent.",
    )
    def classify(
        text: str | None = None,
        messages: list[Any] | dict[str, Any] | None = None,
        command: str | None = None,
    ) -> dict[str, Any]:
        try:
            return classify_tool(engine, text, messages, command)
        except ArgumentError as exc:
            raise ToolError(str(exc)) from None

    @server.tool(
        name="route",
        description="The model smista's routing policy picks for a prompt or turn, with "
        "the classification; 'paths' are files the request touches (for path rules).",
    )
    def route(
        text: str | None = None,
        messages: list[Any] | dict[str, Any] | None = None,
        paths: list[str] | None = None,
    ) -> dict[str, Any]:
        try:
            return route_tool(engine, text, messages, paths)
        except ArgumentError as exc:
            raise ToolError(str(exc)) from None

    @server.tool(
        name="ground",
        description="Before a tool call: score its parameters for missing or "
        "placeholder-like values (TODO, <your value>, changeme ...). Give the 'required' "
        "keys, or a known 'tool_name' (Claude Code's Bash, Write, Edit ...). 'abstain' true "
        "means: do not run it, ask the user.",
    )
    def ground(
        params: dict[str, Any],
        required: list[str] | None = None,
        tool_name: str | None = None,
        threshold: float | None = None,
    ) -> dict[str, Any]:
        try:
            return ground_tool(engine, params, required, tool_name, threshold)
        except ArgumentError as exc:
            raise ToolError(str(exc)) from None

    return server


def serve(engine: HostEngine) -> None:
    """Run the server on stdin/stdout until the client closes it."""
    build_server(engine).run("stdio")
