"""Shared test fixtures: CLI runner, loopback chat-completions server, hypothesis profiles, paths."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests.chat_server import ChatServer

pytest_plugins = ["smista.authoring.pytest_plugin"]  # the assert_golden fixture users get

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"

# Hypothesis profiles. "ci" (the default, and what .ci/run and the README's test
# command select) is derandomized: every run draws the same examples, so a
# green run stays green. "nightly" is randomized with many more examples, to
# find new counterexamples: `pytest --hypothesis-profile=nightly` (a failure
# prints the seed and a @reproduce_failure blob to replay it).
settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "nightly",
    # Explicit: under a CI environment hypothesis's own defaults are derandomized.
    derandomize=False,
    max_examples=2000,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.register_profile("thorough", max_examples=5000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def cli_env(**extra: str) -> dict[str, str]:
    """Environment for running the real CLI from this checkout."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


RunCli = Callable[..., subprocess.CompletedProcess[bytes]]


@pytest.fixture
def run_cli() -> RunCli:
    """Run ``python -m smista ARGS`` in a subprocess; returns the completed process."""

    def run(
        args: Sequence[str],
        *,
        stdin: bytes | None = None,
        env: dict[str, str] | None = None,
        timeout: float = 120,
    ) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [sys.executable, "-m", "smista", *args],
            input=stdin,
            capture_output=True,
            env=env or cli_env(),
            timeout=timeout,
            check=False,
        )

    return run


@pytest.fixture
def chat_server() -> Iterator[ChatServer]:
    """A loopback OpenAI-compatible chat-completions server, closed after the test."""
    chat = ChatServer()
    try:
        yield chat
    finally:
        chat.close()


@pytest.fixture(autouse=True, scope="session")
def _tested_smista_is_the_installed_one() -> None:
    """With ``SMISTA_EXPECT_INSTALLED=1`` (``.ci/run``), smista must come from site-packages.

    CI tests the built wheel, not the checkout: a run that imported the source
    tree by mistake fails here instead of passing for the wrong reason.
    """
    if not os.environ.get("SMISTA_EXPECT_INSTALLED"):
        return
    import sysconfig

    import smista

    where = Path(smista.__file__ or "").resolve()
    site = {Path(sysconfig.get_paths()[key]).resolve() for key in ("purelib", "platlib")}
    assert any(where.is_relative_to(s) for s in site), f"smista imported from {where}, not {site}"
