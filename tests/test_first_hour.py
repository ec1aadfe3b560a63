"""Issue 15, the first hour of a new user: each defect they hit, pinned by a test.

CLI behaviour is tested through the real entry point (``python -m smista``) in
a subprocess; the server through a real ``smista serve`` on loopback.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import ROOT, RunCli, cli_env


def one_line_error(proc, status: int = 2) -> str:
    """The single stderr line of a failed command (asserting there is one)."""
    err = proc.stderr.decode()
    assert proc.returncode == status, err
    assert err.count("\n") == 1, err
    assert "Traceback" not in err
    return err


# -- install hints that work from a checkout ---------------------------------------


def test_a_missing_extra_is_hinted_with_a_checkout_install(
    run_cli: RunCli, tmp_path: Path
) -> None:
    """smista is on no package index: the hint is pip install '.[server]'."""
    blocked = tmp_path / "uvicorn"
    blocked.mkdir()
    (blocked / "__init__.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'uvicorn'\", name='uvicorn')\n"
    )
    env = cli_env()
    env["PYTHONPATH"] = f"{tmp_path}:{env['PYTHONPATH']}"
    err = one_line_error(run_cli(["serve", "--port", "0"], env=env))
    assert "pip install '.[server]'" in err
    assert "smista[" not in err


def test_no_doc_suggests_installing_from_a_package_index() -> None:
    """README, docs and sources never say pip install 'smista[...]'."""
    texts = [ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "smista").rglob("*.py")]
    offenders = [str(p) for p in texts if "smista[" in p.read_text(encoding="utf-8")]
    assert offenders == []
