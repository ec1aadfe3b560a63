"""``smista mcp``: run the stdio MCP server (tools ``classify``, ``route``, ``ground``).

I/O edge: reads the optional config file once, then speaks MCP (JSON-RPC) on
stdin/stdout until the client closes the connection; stdout carries nothing
else. Needs the ``mcp`` extra. A bad config is one line on stderr and exit 2,
before the server starts.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from smista.cli._common import ArgumentParser, UsageError
from smista.cli._text import stdin_bytes

__all__ = ["run"]


def _parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog="smista mcp",
        description=(
            "Run smista as a stdio MCP server for any MCP client (Claude Code, Codex, "
            "Cursor ...). Tools: classify (intent of a prompt or turn), route (the model "
            "the routing policy picks), ground (are a tool call's arguments guesses?)."
        ),
    )
    parser.add_argument(
        "--config", metavar="FILE", help="smista config (TOML) with [classification]/[routing]"
    )
    parser.add_argument(
        "--required",
        metavar="TOOL=KEYS",
        action="append",
        default=[],
        help="required parameter keys of a tool for 'ground' (repeatable)",
    )
    return parser


def run(argv: Sequence[str]) -> int:
    args = _parser().parse_args(argv[1:])
    import mcp.server.mcpserver  # noqa: F401 - fail early (exit 2 with the extra's name) if missing

    from smista.hosts.engine import HostEngine
    from smista.hosts.mcp_server import serve
    from smista.hosts.tools import parse_required

    engine = HostEngine.load(args.config)
    if args.required:
        try:
            required = parse_required(args.required)
        except ValueError as exc:
            raise UsageError(f"--required: {exc}") from None
        engine = dataclasses.replace(engine, tool_required=required)
    stdin_bytes()  # the protocol's input: closed is one line, not a failure inside the server
    serve(engine)
    return 0
