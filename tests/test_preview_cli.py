"""`smista preview` end to end: real subprocess, real loopback decision server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import RunCli, cli_env
from tests.decision_server import decision_server, refused_url
from tests.preview_config import ROUTING, SWITCH, decision_table

KEY = "sk-cli-secret-9f3b2a"


def write_config(tmp_path: Path, url: str | None = None, provider: str = "systemone") -> Path:
    text = ROUTING
    if url is not None:
        text += decision_table(url, provider=provider, key_env="SMISTA_CLI_KEY")
    text += SWITCH
    path = tmp_path / "smista.toml"
    path.write_text(text, encoding="utf-8")
    return path


def preview(run_cli: RunCli, *args: str, key: str | None = KEY) -> tuple[int, str, str]:
    env = cli_env()
    env.pop("SMISTA_CLI_KEY", None)
    if key is not None:
        env["SMISTA_CLI_KEY"] = key
    done = run_cli(["preview", *args], env=env)
    return done.returncode, done.stdout.decode(), done.stderr.decode()


def test_text_output_without_decision(run_cli: RunCli, tmp_path: Path) -> None:
    """Classification, routing and switch lines; the decision stage is disabled."""
    config = write_config(tmp_path)
    code, out, err = preview(
        run_cli,
        "--config", str(config),
        "--path", "src/auth/login.rs",
        "--active-model", "openai/std",
        "refactor the auth middleware",
    )  # fmt: skip
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "classification: edit (inferred, medium)",
        "  reason:       keyword 'refactor' matched rule 0",
        "touched files:  src/auth/login.rs",
        "decision:       decision disabled",
        "routing:        anthropic/claude-sonnet",
        "  intent:       edit",
        "  rule:         auth edits use Claude (effort high)",
        "  fallbacks:    openai/gpt-5.5-thinking",
        "  reason:       rule 'auth edits use Claude' matched on intent and path",
        "  override:     no",
        "switch:         keep openai/std",
        "  reason:       no usable decision result; keeping the active model",
    ]


def test_json_with_a_live_decision_model(run_cli: RunCli, tmp_path: Path) -> None:
    """A complex, new task: routing matches the complexity rule, the switch fires."""
    history = tmp_path / "history.json"
    history.write_text(
        json.dumps(
            [
                {"role": "system", "content": "ignored"},
                {"role": "user", "content": "The API request fails intermittently."},
                {"role": "tool", "content": "ignored too"},
                {"role": "assistant", "content": "I can inspect the client."},
            ]
        ),
        encoding="utf-8",
    )
    with decision_server(
        expected_key=KEY, category="complex", probability=0.9, confidence=0.8, new_task=0.7
    ) as (url, server):
        config = write_config(tmp_path, url)
        code, out, err = preview(
            run_cli,
            "--config", str(config),
            "--history", str(history),
            "--active-model", "openai/mini",
            "--cwd", "/work/keen-code",
            "--branch", "main",
            "--json",
            "Redesign the storage layer",
        )  # fmt: skip
    assert (code, err) == (0, "")
    data: dict[str, Any] = json.loads(out)
    assert data["decision"]["status"] == "ok"
    assert data["decision"]["provider"] == "systemone"
    assert data["decision"]["result"]["category"] == "complex"
    assert data["decision"]["result"]["new_task"] == 0.7
    assert data["decision"]["state"]["messages"] == 3
    assert data["routing"]["matched_rule"] == "complex work"
    assert data["routing"]["reason"] == "rule 'complex work' matched on complexity 'complex'"
    assert data["switch"]["switched"] is True
    assert data["switch"]["model"] == "anthropic/opus"
    assert data["switch"]["rule"] == "new_task"
    sent = server.requests[0].body["state"]
    assert sent["cwd"] == "/work/keen-code"
    assert sent["git_branch"] == "main"
    assert [m["role"] for m in sent["messages"]] == ["user", "assistant", "user"]
    assert KEY not in out


def test_openai_provider_from_the_cli(run_cli: RunCli, tmp_path: Path) -> None:
    """The OpenAI-compatible provider works the same way."""
    with decision_server(category="simple", probability=0.95, confidence=0.9) as (url, _):
        config = write_config(tmp_path, url, provider="openai")
        code, out, _ = preview(run_cli, "--config", str(config), "--json", "rename x to y")
    assert code == 0
    assert json.loads(out)["decision"]["result"]["category"] == "simple"


def test_unreachable_decision_model_fails_open(run_cli: RunCli, tmp_path: Path) -> None:
    """Routing still happens; the decision line says why it is unavailable."""
    url = refused_url()
    config = write_config(tmp_path, url)
    code, out, err = preview(run_cli, "--config", str(config), "hello")
    assert (code, err) == (0, "")
    host = url.removeprefix("http://")
    assert (
        f"decision:       decision unavailable: cannot connect to {host}: connection refused" in out
    )
    assert "routing:        ollama/mock-local" in out


def test_faulty_server_fails_open_without_leaking_the_key(run_cli: RunCli, tmp_path: Path) -> None:
    """A server echoing the Authorization header: the key is redacted everywhere."""
    with decision_server(fault="echo_key") as (url, _):
        config = write_config(tmp_path, url)
        code, out, err = preview(run_cli, "--config", str(config), "--json", "hello")
    assert code == 0
    reason = json.loads(out)["decision"]["reason"]
    assert reason.startswith("decision unavailable: HTTP 400 Bad Request:")
    assert KEY not in out
    assert KEY not in err


def test_missing_key_variable_is_a_config_error(run_cli: RunCli, tmp_path: Path) -> None:
    """Exit 2 with one line naming the file and decision.api_key_env."""
    config = write_config(tmp_path, "http://127.0.0.1:9")
    code, out, err = preview(run_cli, "--config", str(config), "hello", key=None)
    assert (code, out) == (2, "")
    assert err == (
        f"smista preview: error: {config}: decision.api_key_env: environment variable "
        "'SMISTA_CLI_KEY' is not set or is empty\n"
    )


def test_no_decision_flag_skips_the_model(run_cli: RunCli, tmp_path: Path) -> None:
    """--no-decision: nothing is sent, the stage reads as skipped (issue 15)."""
    with decision_server() as (url, server):
        config = write_config(tmp_path, url)
        code, out, _ = preview(run_cli, "--config", str(config), "--no-decision", "--json", "hi")
    assert code == 0
    assert server.requests == []
    assert json.loads(out)["decision"]["status"] == "skipped"


def test_explicit_model_and_command(run_cli: RunCli, tmp_path: Path) -> None:
    """--model overrides routing; --command sets the intent; stdin carries the text."""
    config = write_config(tmp_path)
    done = run_cli(
        [
            "preview",
            "--config",
            str(config),
            "--model",
            "x/pinned",
            "--command",
            "Plan",
            "--json",
            "-",
        ],
        stdin=b"whatever",
    )
    data = json.loads(done.stdout)
    assert data["classification"] == {
        "intent": "plan",
        "source": "explicit",
        "reason": "explicit command 'plan'",
    }
    assert data["routing"]["override_used"] is True
    assert data["routing"]["reason"] == "explicit model override 'x/pinned'"


def test_no_route_is_an_error(run_cli: RunCli, tmp_path: Path) -> None:
    """Without a default route an unmatched prompt cannot be previewed."""
    config = tmp_path / "empty.toml"
    config.write_text("", encoding="utf-8")
    code, out, err = preview(run_cli, "--config", str(config), "hello")
    assert (code, out) == (2, "")
    assert err == "smista preview: error: no rule matched and no default route\n"


def test_invalid_config_names_the_key_path(run_cli: RunCli, tmp_path: Path) -> None:
    """An invalid glob fails the load with file and key path."""
    config = tmp_path / "bad.toml"
    config.write_text('[[routing.rules]]\nname = "r"\npaths = ["["]\nmodel = "a/b"\n', "utf-8")
    code, _, err = preview(run_cli, "--config", str(config), "hello")
    assert code == 2
    assert err == (
        f"smista preview: error: {config}: routing.rules[0].paths[0]: invalid glob '[': "
        "unclosed character class; missing ']'\n"
    )


def test_bad_history_files(run_cli: RunCli, tmp_path: Path) -> None:
    """History must be a JSON list of {role, content} strings."""
    config = write_config(tmp_path)
    for content, message in [
        ("{}", "expected a JSON list of {role, content}"),
        ('[{"role": "user"}]', "item 0 is not an object with string 'role' and 'content'"),
        ("[", "not valid JSON"),
        ("[" * 100_000, "JSON nested too deeply"),
    ]:
        history = tmp_path / "h.json"
        history.write_text(content, encoding="utf-8")
        code, _, err = preview(run_cli, "--config", str(config), "--history", str(history), "x")
        assert code == 2
        assert err.startswith(f"smista preview: error: history file {history}: {message}")


def test_config_is_required(run_cli: RunCli) -> None:
    """--config FILE is mandatory."""
    code, _, err = preview(run_cli, "hello")
    assert code == 2
    assert "--config" in err
