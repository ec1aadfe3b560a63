"""Routing and the decision stage's pure modules import no I/O edge (httpx, config, env readers)."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import cli_env

PURE = [
    "smista.core.glob",
    "smista.core.modelref",
    "smista.core.routing",
    "smista.decision.preview",
    "smista.decision",
    "smista.decision.contract",
    "smista.core.decisionresult",
    "smista.decision.state",
    "smista.decision.taskcomplexity",
    "smista.decision.ledger",
    "smista.decision.stage",
    "smista.decision.switch",
    "smista.decision.config",
]
FORBIDDEN = [
    "smista.config.load",
    "smista.config.settings",
    "smista.cli",
    "smista.config.defaults",
    "smista.decision.providers",
    "smista._edge.http",
    "httpx",
    "httpcore",
    "hypothesis",
    "tomllib",
]


def test_pure_decision_and_routing_modules_pull_in_no_io() -> None:
    """Importing them (and resolving every lazy name) leaves the edge unloaded."""
    code = (
        "import importlib, json, sys\n"
        "before = set(sys.modules)  # e.g. tomllib when coverage measures this process\n"
        f"for m in {PURE!r}: importlib.import_module(m)\n"
        "import smista.decision as d\n"
        "[getattr(d, n) for n in d.__all__]\n"
        f"print(json.dumps([m for m in {FORBIDDEN!r} if m in sys.modules and m not in before]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=cli_env(), capture_output=True, text=True, check=True
    )
    assert json.loads(out.stdout) == []


def test_building_a_provider_registry_does_not_import_httpx() -> None:
    """httpx loads only when a provider is actually built."""
    code = (
        "import sys, json\n"
        "import smista.decision.providers\n"
        "print(json.dumps('httpx' in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=cli_env(), capture_output=True, text=True, check=True
    )
    assert json.loads(out.stdout) is False


def test_decision_package_exports_resolve() -> None:
    """smista.decision.__all__ is sorted and every name resolves."""
    import smista.decision as d

    assert d.__all__ == sorted(d.__all__)
    assert set(d._EXPORTS) == set(d.__all__)
    for name in d.__all__:
        assert getattr(d, name) is not None
