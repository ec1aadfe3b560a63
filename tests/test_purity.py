"""The pure core imports no I/O edge modules (architecture guide)."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import cli_env

CORE = [
    "smista",
    "smista.intent",
    "smista.errors",
    "smista.tokenizer",
    "smista.fuzzy",
    "smista.engine",
    "smista.rules",
    "smista.result",
    "smista.workspace",
    "smista.classifier",
    "smista.explain",
    "smista.abstain",
    "smista.reference",
    "smista.grounding",
    "smista.tiers",
    "smista.tiers.router",
    "smista.tiers.parse",
    "smista.turns",
    "smista.turnrules",
    "smista.turnclassify",
]
FORBIDDEN = [
    "smista.config",
    "smista.cli",
    "smista.defaults",
    "smista.server",
    "smista.decision.providers",
    "smista._http",
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
