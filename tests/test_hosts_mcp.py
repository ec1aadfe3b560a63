"""``smista mcp`` spoken to by the official MCP SDK's client, which spawns the real process."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import DATA, cli_env

mcp = pytest.importorskip("mcp")

from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

POLICY = """
[routing.default]
model = "openai/gpt-5.5"

[[routing.rules]]
name = "plans think hard"
priority = 10
intent = "plan"
model = "openai/gpt-5.5-pro"
"""


def session(
    args: list[str], use: Callable[[Client], Awaitable[Any]], tmp_path: Path | None = None
) -> Any:
    env = cli_env()
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "smista", "mcp", *args],
        env={"PYTHONPATH": env["PYTHONPATH"]},
        cwd=str(tmp_path) if tmp_path is not None else None,
    )

    async def main() -> Any:
        async with Client(params, read_timeout_seconds=60) as client:
            return await use(client)

    return asyncio.run(main())


def structured(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    data: dict[str, Any] = result.structured_content
    # The text content carries the same JSON for clients that only read text.
    (block,) = result.content
    assert json.loads(block.text) == data
    return data


def test_the_server_lists_its_three_tools() -> None:
    async def use(client: Client) -> Any:
        return await client.list_tools()

    tools = {tool.name: tool for tool in session([], use).tools}
    assert set(tools) == {"classify", "route", "ground"}
    assert "messages" in tools["classify"].input_schema["properties"]
    assert tools["ground"].input_schema["required"] == ["params"]


def test_classify_answers_through_the_mcp_client() -> None:
    turn = json.loads((DATA / "hosts" / "ccr" / "anthropic-plan.json").read_text("utf-8"))

    async def use(client: Client) -> Any:
        return (
            await client.call_tool("classify", {"text": "fix the typo in the README"}),
            await client.call_tool("classify", {"messages": turn}),
            await client.call_tool("classify", {"messages": [{"role": "user", "content": "ok"}]}),
        )

    text, body, terse = session([], use)
    assert structured(text)["intent"] == "edit"
    answer = structured(body)
    assert answer["intent"] == "plan"
    assert answer["turn"]["format"] == "anthropic"
    assert answer["turn"]["stripped"] == 1  # the CLAUDE.md system-reminder
    assert structured(terse)["intent"] == "chat"


def test_route_uses_the_configured_policy(tmp_path: Path) -> None:
    config = tmp_path / "smista.toml"
    config.write_text(POLICY, encoding="utf-8")
    title = json.loads((DATA / "hosts" / "ccr" / "anthropic-title.json").read_text("utf-8"))

    async def use(client: Client) -> Any:
        return (
            await client.call_tool("route", {"text": "plan the release, step by step"}),
            await client.call_tool("route", {"text": "fix the flaky test"}),
            await client.call_tool("route", {"messages": title}),
        )

    plan, edit, housekeeping = session(["--config", str(config)], use, tmp_path)
    assert structured(plan)["routing"]["model"] == "gpt-5.5-pro"
    assert structured(edit)["routing"]["reason"].startswith("no rule matched")
    skipped = structured(housekeeping)
    assert skipped["skipped"].startswith("housekeeping call (title")
    assert "routing" not in skipped


def test_ground_scores_tool_parameters() -> None:
    async def use(client: Client) -> Any:
        return (
            await client.call_tool(
                "ground", {"params": {"env": "TBD", "target": "web-1"}, "required": ["env"]}
            ),
            await client.call_tool(
                "ground", {"params": {"command": "ls -la"}, "tool_name": "Bash"}
            ),
        )

    weak, fine = session([], use)
    report = structured(weak)
    assert (report["abstain"], report["weak_keys"], report["score"]) == (True, ["env"], 0.0)
    report = structured(fine)
    assert (report["abstain"], report["required"]) == (False, ["command"])


def test_bad_arguments_are_tool_errors_not_crashes() -> None:
    async def use(client: Client) -> Any:
        return (
            await client.call_tool("classify", {}),
            await client.call_tool("classify", {"messages": [{"role": "user", "content": 7}]}),
            await client.call_tool("classify", {"text": "hi", "command": "dance"}),
            await client.call_tool("ground", {"params": {"a": "b"}}),
            await client.call_tool("classify", {"text": "fix the typo"}),
        )

    *errors, alive = session([], use)
    messages = []
    for result in errors:
        assert result.is_error
        (block,) = result.content
        messages.append(block.text)
    assert "exactly one of 'text' and 'messages'" in messages[0]
    assert "messages[0].content" in messages[1]
    assert "dance" in messages[2]
    assert "'required' keys or a 'tool_name'" in messages[3]
    assert structured(alive)["intent"] == "edit"  # the server survived the errors


def test_mistyped_arguments_are_one_readable_line_without_the_value() -> None:
    """The SDK's own argument validation is reworded: key and expectation, one line, and
    never the value the caller sent (nor pydantic's help URL)."""

    async def use(client: Client) -> Any:
        return (
            await client.call_tool(
                "ground", {"params": {"a": "b"}, "required": ["a"], "threshold": "s3cret"}
            ),
            await client.call_tool("classify", {"text": ["s3cret"]}),
        )

    results = session([], use)
    texts = []
    for result in results:
        assert result.is_error
        (block,) = result.content
        texts.append(block.text)
    for text in texts:
        assert "\n" not in text, text
        assert "s3cret" not in text, text
        assert "pydantic" not in text, text
    assert texts[0].startswith("ground: threshold: "), texts[0]
    assert texts[1].startswith("classify: text: "), texts[1]


def test_an_unknown_argument_is_a_tool_error_not_silently_dropped() -> None:
    """A misspelt argument ('command' as 'comand') would otherwise change nothing."""

    async def use(client: Client) -> Any:
        return await client.call_tool("classify", {"text": "fix the typo", "comand": "plan"})

    result = session([], use)
    assert result.is_error
    (block,) = result.content
    assert block.text == (
        "classify: unknown argument 'comand'; expected one of: text, messages, command"
    )


def test_a_bad_config_stops_the_start(run_cli, tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[routing.default]\nmodel = "no-slash"\n', encoding="utf-8")
    proc = run_cli(["mcp", "--config", str(bad)], stdin=b"")
    assert proc.returncode == 2
    assert proc.stdout == b""
    assert b"routing.default.model" in proc.stderr
