"""docs/hosts.md stays copy-pasteable: its JSON and TOML blocks parse, its smista config loads."""

from __future__ import annotations

import json
import re
import tomllib

import pytest

from smista.config.settings import parse_settings
from tests.conftest import ROOT

DOC = (ROOT / "docs" / "hosts.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```(\w+)\n(.*?)```", DOC, re.DOTALL)


@pytest.mark.parametrize(
    "text", [t for lang, t in BLOCKS if lang == "json"], ids=lambda t: t.split("\n", 1)[0][:40]
)
def test_json_blocks_parse(text: str) -> None:
    json.loads(text)


@pytest.mark.parametrize("text", [t for lang, t in BLOCKS if lang == "toml"])
def test_toml_blocks_parse(text: str) -> None:
    tomllib.loads(text)


def test_the_example_config_is_a_valid_smista_config() -> None:
    (config,) = [t for lang, t in BLOCKS if lang == "toml" and t.startswith("# smista.toml")]
    settings = parse_settings(config, "docs/hosts.md")
    assert [rule.name for rule in settings.routing.rules] == ["plans think hard"]


def test_every_host_has_a_section() -> None:
    sections = re.findall(r"^## (.+)$", DOC, re.MULTILINE)
    assert sections == ["Claude Code", "Codex", "LiteLLM", "claude-code-router", "MCP"]


def hook_commands(host: str) -> list[tuple[str, str]]:
    """``(event, command)`` of every hook in the section's settings JSON."""
    section = DOC.split(f"## {host}\n", 1)[1].split("\n## ", 1)[0]
    out = []
    for lang, text in re.findall(r"```(\w+)\n(.*?)```", section, re.DOTALL):
        data = json.loads(text) if lang == "json" else None
        if not isinstance(data, dict) or "hooks" not in data:
            continue
        for event, groups in data["hooks"].items():
            out += [(event, h["command"]) for g in groups for h in g["hooks"]]
    return out


@pytest.mark.parametrize("host", ["Claude Code", "Codex"])
def test_the_documented_hook_commands_run_as_written(host: str, tmp_path) -> None:
    """Each command, run by a shell as the host runs it, answers its event."""
    import os
    import subprocess
    import sys

    from tests.conftest import DATA, cli_env

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "smista"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m smista "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    (config,) = [t for lang, t in BLOCKS if lang == "toml" and t.startswith("# smista.toml")]
    project = tmp_path / "project"
    (tmp_path / "home" / ".config" / "smista").mkdir(parents=True)
    project.mkdir()
    (project / "smista.toml").write_text(config, encoding="utf-8")
    (tmp_path / "home" / ".config" / "smista" / "smista.toml").write_text(config, "utf-8")
    env = cli_env(HOME=str(tmp_path / "home"), CLAUDE_PROJECT_DIR=str(project))
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    folder = "claude-code" if host == "Claude Code" else "codex"
    inputs = {
        "UserPromptSubmit": DATA / "hosts" / folder / "user-prompt-submit.json",
        "PreToolUse": DATA
        / "hosts"
        / folder
        / (
            "pre-tool-use-bash-placeholder.json" if folder == "claude-code" else "pre-tool-use.json"
        ),
    }
    commands = hook_commands(host)
    assert sorted(event for event, _ in commands) == ["PreToolUse", "UserPromptSubmit"]
    for event, command in commands:
        proc = subprocess.run(
            ["sh", "-c", command],
            input=inputs[event].read_bytes(),
            capture_output=True,
            env=env,
            cwd=project,
            timeout=120,
            check=False,
        )
        assert (proc.returncode, proc.stderr) == (0, b""), command
        out = json.loads(proc.stdout)
        if event == "UserPromptSubmit":
            context = out["hookSpecificOutput"]["additionalContext"]
            assert "anthropic/claude-opus-4-1" in context  # the documented config was read
        else:
            assert "placeholder-like values: command" in json.dumps(out)
