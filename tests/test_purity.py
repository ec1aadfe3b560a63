"""The pure core imports no I/O edge modules (architecture guide)."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import cli_env

CORE = [
    "smista",
    "smista.core.intent",
    "smista.core.errors",
    "smista.core.tokenizer",
    "smista.core.fuzzy",
    "smista.core.engine",
    "smista.core.rules",
    "smista.core.result",
    "smista.core.workspace",
    "smista.core.classifier",
    "smista.core.explain",
    "smista.core.abstain",
    "smista.core.reference",
    "smista.core.grounding",
    "smista.tiers",
    "smista.tiers.router",
    "smista.tiers.parse",
    "smista.core.turns",
    "smista.core.turnrules",
    "smista.core.turnclassify",
]
FORBIDDEN = [
    "smista.config.load",
    "smista.cli",
    "smista.config.defaults",
    "smista.server",
    "smista.decision.providers",
    "smista._edge.http",
    "httpx",
    "hypothesis",
    "tomllib",
    "starlette",
    "uvicorn",
    "smista.hosts",
    "smista.integrations",
    "litellm",
    "mcp",
]


def test_core_pulls_in_no_io_modules() -> None:
    """Importing the core leaves every forbidden module unloaded."""
    code = (
        "import importlib, json, sys\n"
        "before = set(sys.modules)  # e.g. tomllib when coverage measures this process\n"
        f"for m in {CORE!r}: importlib.import_module(m)\n"
        f"print(json.dumps([m for m in {FORBIDDEN!r} if m in sys.modules and m not in before]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=cli_env(), capture_output=True, text=True, check=True
    )
    assert json.loads(out.stdout) == []
