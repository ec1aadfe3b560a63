"""What ``.ci/run`` tests is the installed wheel (``SMISTA_EXPECT_INSTALLED=1``), not the checkout."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import smista
from tests.conftest import cli_env

pytestmark = pytest.mark.skipif(
    not os.environ.get("SMISTA_EXPECT_INSTALLED"), reason="only when testing an installed wheel"
)

SITE = {Path(sysconfig.get_paths()[key]).resolve() for key in ("purelib", "platlib")}


def _installed(path: str) -> bool:
    return any(Path(path).resolve().is_relative_to(s) for s in SITE)


def test_this_process_imports_smista_from_site_packages() -> None:
    assert _installed(smista.__file__ or "")


def test_the_cli_subprocesses_import_it_from_site_packages_too() -> None:
    out = subprocess.run(
        [sys.executable, "-c", "import smista.cli, smista.core.engine as e; print(e.__file__)"],
        env=cli_env(),
        capture_output=True,
        text=True,
        check=True,
    )
    assert _installed(out.stdout.strip()), out.stdout
