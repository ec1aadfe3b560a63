"""``smista hook claude-code|codex`` run as the hosts run it: hook JSON on stdin, JSON on stdout.

Payloads are the documented shapes (``tests/data/hosts``); outputs are checked
against the hosts' output contracts. Every failure on smista's side must
leave stdout empty and exit 0 (fail open); exit 2 would block the prompt.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from smista.hosts.transcript import MAX_TAIL_BYTES, read_user_prompts, user_prompts
from tests.conftest import DATA, RunCli, cli_env

HOSTS = DATA / "hosts"

POLICY = """
[routing.default]
model = "openai/gpt-5.5"

[[routing.rules]]
name = "plans think hard"
priority = 10
intent = "plan"
model = "openai/gpt-5.5-pro"
"""


def fixture(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((HOSTS / name).read_text(encoding="utf-8"))
    return data


def schema(name: str) -> dict[str, Any]:
    return fixture(name)


@pytest.fixture
def policy(tmp_path: Path) -> Path:
    path = tmp_path / "smista.toml"
    path.write_text(POLICY, encoding="utf-8")
    return path


def hook(
    run_cli: RunCli, host: str, payload: object, *args: str
) -> tuple[dict[str, Any] | None, str]:
    """Run the hook; asserts exit 0 and returns (parsed stdout or None, stderr)."""
    raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    # A generous deadline: a loaded CI machine must not turn answers into give-ups.
    proc = run_cli(["hook", host, "--timeout", "60", *args], stdin=raw)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode()
    return (json.loads(out) if out.strip() else None), proc.stderr.decode()


# -- Claude Code -------------------------------------------------------------------


def test_user_prompt_submit_adds_intent_confidence_and_model(run_cli: RunCli, policy: Path) -> None:
    out, _ = hook(
        run_cli,
        "claude-code",
        fixture("claude-code/user-prompt-submit.json"),
        "--config",
        str(policy),
    )
    assert out is not None
    jsonschema.validate(out, schema("claude-code/output.schema.json"))
    context = out["hookSpecificOutput"]["additionalContext"]
    assert "intent plan" in context
    assert "confidence medium" in context
    assert "openai/gpt-5.5-pro" in context
    assert set(out) == {"hookSpecificOutput"}  # no decision: the prompt is never blocked


def test_user_prompt_submit_without_config_reports_intent_only(run_cli: RunCli) -> None:
    out, _ = hook(run_cli, "claude-code", fixture("claude-code/user-prompt-submit.json"))
    assert out is not None
    context = out["hookSpecificOutput"]["additionalContext"]
    assert "intent plan" in context
    assert "routing policy" not in context


def test_plan_permission_mode_is_an_explicit_plan_intent(run_cli: RunCli) -> None:
    payload = fixture("claude-code/user-prompt-submit-plan-mode.json")
    out, _ = hook(run_cli, "claude-code", payload)
    assert out is not None
    assert "intent plan" in out["hookSpecificOutput"]["additionalContext"]
    payload["permission_mode"] = "default"
    out, _ = hook(run_cli, "claude-code", payload)
    assert out is not None
    assert "intent plan" not in out["hookSpecificOutput"]["additionalContext"]


@pytest.mark.parametrize(
    ("name", "asks"),
    [
        ("claude-code/pre-tool-use-bash-placeholder.json", "command"),
        ("claude-code/pre-tool-use-mcp.json", "environment, version"),
        ("claude-code/pre-tool-use-write.json", None),
    ],
)
def test_pre_tool_use_asks_only_for_guessed_calls(
    run_cli: RunCli, name: str, asks: str | None
) -> None:
    out, _ = hook(run_cli, "claude-code", fixture(name))
    if asks is None:
        assert out is None  # a grounded call: smista neither allows nor denies
        return
    assert out is not None
    jsonschema.validate(out, schema("claude-code/output.schema.json"))
    specific = out["hookSpecificOutput"]
    assert specific["hookEventName"] == "PreToolUse"
    assert specific["permissionDecision"] == "ask"
    assert f"placeholder-like values: {asks}" in specific["permissionDecisionReason"]


def test_required_keys_can_be_configured_per_tool(run_cli: RunCli) -> None:
    payload = fixture("claude-code/pre-tool-use-write.json")
    out, _ = hook(run_cli, "claude-code", payload, "--required", "Write=content")
    assert out is not None  # content "" is now a required value left empty
    assert out["hookSpecificOutput"]["permissionDecision"] == "ask"


def test_other_events_get_no_output(run_cli: RunCli) -> None:
    assert hook(run_cli, "claude-code", fixture("claude-code/stop.json"))[0] is None


# -- Codex -------------------------------------------------------------------------


def test_codex_says_when_the_policy_would_pick_another_model(run_cli: RunCli, policy: Path) -> None:
    out, _ = hook(
        run_cli, "codex", fixture("codex/user-prompt-submit.json"), "--config", str(policy)
    )
    assert out is not None
    jsonschema.validate(out, schema("codex/output.user-prompt-submit.schema.json"))
    assert "intent plan" in out["hookSpecificOutput"]["additionalContext"]
    message = out["systemMessage"]
    assert "openai/gpt-5.5-pro rather than gpt-5.5" in message
    assert "/model" in message


def test_codex_stays_quiet_about_the_model_it_already_uses(run_cli: RunCli, policy: Path) -> None:
    payload = fixture("codex/user-prompt-submit-edit.json")
    out, _ = hook(run_cli, "codex", payload, "--config", str(policy))
    assert out is not None
    jsonschema.validate(out, schema("codex/output.user-prompt-submit.schema.json"))
    assert "intent edit" in out["hookSpecificOutput"]["additionalContext"]
    assert "systemMessage" not in out  # the default route is the session's gpt-5.5


def test_codex_pre_tool_use_warns_without_a_decision(run_cli: RunCli) -> None:
    out, _ = hook(run_cli, "codex", fixture("codex/pre-tool-use.json"))
    assert out is not None
    jsonschema.validate(out, schema("codex/output.pre-tool-use.schema.json"))
    assert "placeholder-like values: command" in out["systemMessage"]
    assert "hookSpecificOutput" not in out  # Codex reports "ask" as a failed hook


def test_codex_requires_the_model_field(run_cli: RunCli) -> None:
    payload = fixture("codex/user-prompt-submit.json")
    del payload["model"]
    out, err = hook(run_cli, "codex", payload)
    assert out is None
    assert "'model' must be a string" in err


# -- failing open ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stdin", "note"),
    [
        (b"not json", "not valid JSON"),
        (b"\xff\xfe", "not valid JSON"),
        (b"[1, 2]", "must be a JSON object"),
        (b'{"hook_event_name": "UserPromptSubmit", "prompt": 7}', "'prompt' must be a string"),
        (b'{"hook_event_name": "PreToolUse", "tool_name": "Bash"}', "'tool_input' must be"),
    ],
)
def test_bad_input_fails_open(run_cli: RunCli, stdin: bytes, note: str) -> None:
    for host in ("claude-code", "codex"):
        out, err = hook(run_cli, host, stdin)
        assert out is None
        assert err.startswith(f"smista hook {host}: no opinion: ")
        assert note in err


def test_broken_config_fails_open(run_cli: RunCli, tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[routing.default]\nmodel = "no-slash"\n', encoding="utf-8")
    payload = fixture("claude-code/user-prompt-submit.json")
    for config in (bad, tmp_path / "missing.toml"):
        out, err = hook(run_cli, "claude-code", payload, "--config", str(config))
        assert out is None
        assert str(config) in err


def test_oversized_input_fails_open(run_cli: RunCli) -> None:
    payload = fixture("claude-code/user-prompt-submit.json")
    payload["prompt"] = "plan " * (2 * 1024 * 1024)
    out, err = hook(run_cli, "claude-code", payload)
    assert out is None
    assert "larger than" in err


def test_giving_up_at_the_timeout_exits_0_silently() -> None:
    """stdin never closes (a stuck host pipe): the hook gives up instead of hanging."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "smista", "hook", "claude-code", "--timeout", "0.5"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=cli_env(),
    )
    try:
        assert proc.wait(timeout=120) == 0
        assert proc.stdout is not None
        assert proc.stderr is not None
        assert proc.stdout.read() == b""
        assert b"no opinion: gave up after 0.5 s" in proc.stderr.read()
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.kill()
        proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


@pytest.mark.parametrize(
    "args",
    [
        ["hook"],
        ["hook", "gemini"],
        ["hook", "codex", "--timeout", "0"],
        ["hook", "codex", "--timeout", "x"],
        ["hook", "codex", "--timeout", "inf"],
        ["hook", "codex", "--timeout", "1e10"],
        ["hook", "claude-code", "--required", "no-equals-sign"],
    ],
)
def test_command_line_mistakes_exit_1_never_2(run_cli: RunCli, args: list[str]) -> None:
    proc = run_cli(args, stdin=b"{}")
    assert proc.returncode == 1
    assert proc.stdout == b""
    assert b"smista hook: error:" in proc.stderr
    assert b"Traceback" not in proc.stderr


# -- replaying a real session ------------------------------------------------------


def prompt_of(entry: dict[str, Any]) -> str | None:
    """The text a user entry would hand UserPromptSubmit (None for tool results)."""
    content = entry["message"]["content"]
    if isinstance(content, str):
        return content
    if any(block.get("type") == "tool_result" for block in content):
        return None
    return "\n".join(block["text"] for block in content if block.get("type") == "text")


def test_replayed_session_gets_intents_on_real_turns_and_skips_housekeeping(
    run_cli: RunCli, tmp_path: Path
) -> None:
    lines = (HOSTS / "claude-code/session.jsonl").read_text(encoding="utf-8").splitlines()
    expected = {
        t["line"]: t["intent"] for t in fixture("claude-code/session.expected.json")["turns"]
    }
    seen: dict[int, str | None] = {}
    transcript = tmp_path / "session.jsonl"
    for i, line in enumerate(lines):
        entry = json.loads(line)
        prompt = prompt_of(entry) if entry["type"] == "user" else None
        if prompt is None:
            continue
        # What Claude Code has written to the transcript when the prompt is submitted.
        transcript.write_text("".join(f"{earlier}\n" for earlier in lines[:i]), encoding="utf-8")
        payload = {
            "session_id": entry["sessionId"],
            "transcript_path": str(transcript),
            "cwd": entry["cwd"],
            "permission_mode": "default",
            "hook_event_name": "UserPromptSubmit",
            "prompt": prompt,
        }
        out, err = hook(run_cli, "claude-code", payload)
        assert err == ""
        if out is None:
            seen[i] = None
            continue
        jsonschema.validate(out, schema("claude-code/output.schema.json"))
        context = out["hookSpecificOutput"]["additionalContext"]
        seen[i] = context.split("intent ", 1)[1].split(" ", 1)[0]
    assert seen == expected


# -- transcript reading ------------------------------------------------------------


def test_transcript_reader_keeps_only_typed_prompts() -> None:
    lines = (HOSTS / "claude-code/session.jsonl").read_text(encoding="utf-8").splitlines()
    prompts = list(user_prompts([*lines, "not json", "", '{"type": "user"}']))
    assert "ok do it" in prompts
    assert not any("Caveat" in p for p in prompts)  # isMeta
    assert not any(p.startswith("This session is being continued") for p in prompts)
    assert not any("File created" in p for p in prompts)  # a tool result


def test_a_transcript_line_nested_too_deeply_is_skipped_like_any_unreadable_line(
    run_cli: RunCli, tmp_path: Path
) -> None:
    """The earlier prompt still makes 'yes' a follow-up; the hook does not give up."""
    path = tmp_path / "session.jsonl"
    first = json.dumps({"type": "user", "message": {"role": "user", "content": "fix the bug"}})
    path.write_text(first + "\n" + "[" * 100_000 + "\n", encoding="utf-8")
    assert read_user_prompts(path) == ["fix the bug"]
    payload = {"hook_event_name": "UserPromptSubmit", "prompt": "yes", "transcript_path": str(path)}
    proc = run_cli(["hook", "claude-code"], stdin=json.dumps(payload).encode())
    assert proc.returncode == 0
    assert proc.stderr == b""
    assert "follow-up" in json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]


def test_transcript_reader_reads_a_bounded_tail(tmp_path: Path) -> None:
    path = tmp_path / "long.jsonl"
    first = json.dumps({"type": "user", "message": {"role": "user", "content": "first"}})
    last = json.dumps({"type": "user", "message": {"role": "user", "content": "last"}})
    filler = json.dumps(
        {"type": "assistant", "message": {"role": "assistant", "content": "x" * 1000}}
    )
    path.write_text("\n".join([first, *[filler] * (MAX_TAIL_BYTES // 1000), last]) + "\n")
    assert read_user_prompts(path) == ["last"]
    assert read_user_prompts(tmp_path / "missing.jsonl") == []
    assert read_user_prompts(None) == []


def test_adapters_keep_the_extras_out_of_the_import_path() -> None:
    """Hooks, the route endpoint and the plugin modules load neither litellm nor mcp."""
    code = (
        "import json, sys\n"
        "import smista.cli, smista.cli.hook, smista.cli.mcp, smista.hosts.claude_code\n"
        "import smista.hosts.codex, smista.hosts.mcp_server, smista.integrations.litellm\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in\n"
        "    {'litellm', 'mcp', 'mcp_types', 'starlette', 'httpx'})))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=cli_env(), capture_output=True, text=True, check=True
    )
    assert json.loads(out.stdout) == []


def test_codex_follow_ups_read_the_rollout_file(run_cli: RunCli, policy: Path) -> None:
    """'ok do it' after a plan prompt is a plan turn: its intent comes from the rollout."""
    payload = fixture("codex/user-prompt-submit-edit.json")
    payload["prompt"] = "ok do it"
    out, _ = hook(run_cli, "codex", payload, "--config", str(policy))
    assert out is not None
    assert "follow-up" not in out["hookSpecificOutput"]["additionalContext"]  # no transcript
    payload["transcript_path"] = str(HOSTS / "codex/rollout.jsonl")
    out, _ = hook(run_cli, "codex", payload, "--config", str(policy))
    assert out is not None
    context = out["hookSpecificOutput"]["additionalContext"]
    assert "intent plan" in context
    assert "follow-up" in context
    assert "openai/gpt-5.5-pro rather than gpt-5.5" in out["systemMessage"]


def test_codex_rollout_reader_keeps_only_user_messages() -> None:
    assert read_user_prompts(HOSTS / "codex/rollout.jsonl") == [
        "plan the migration of the orders table from sqlite to postgres, step by step"
    ]
