"""docs/hosts.md stays copy-pasteable: its JSON and TOML blocks parse, its smista config loads."""

from __future__ import annotations

import json
import re
import tomllib

import pytest

from smista.settings import parse_settings
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
