"""``SMISTA_IMPLEMENTATION=python|c``: the runtime switch between the C and pure-Python paths.

Each case runs a fresh interpreter (the switch is read once, at import), with the
variable set exactly as a user would set it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from smista.core import engine
from tests.conftest import cli_env

PROBE = (
    "import json, smista.core.engine as e, smista.scale.batch as b\n"
    "print(json.dumps({'accelerated': e.ACCELERATED, "
    "'c_newlines': type(b._count_newlines).__name__ == 'builtin_function_or_method', "
    "'intent': __import__('smista').classify('please review my diff').intent.value}))\n"
)


def _env(value: str | None) -> dict[str, str]:
    env = cli_env()
    env.pop("SMISTA_IMPLEMENTATION", None)
    if value is not None:
        env["SMISTA_IMPLEMENTATION"] = value
    return env


def _probe(value: str | None, prelude: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", prelude + PROBE],
        env=_env(value),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _built() -> bool:
    """Whether the extension is importable here (whatever this process was told)."""
    out = _probe("")
    assert out.returncode == 0, out.stderr
    return bool(json.loads(out.stdout)["accelerated"])


def test_python_forces_the_pure_path_even_when_the_extension_is_built() -> None:
    out = _probe("python")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == {
        "accelerated": False,
        "c_newlines": False,
        "intent": "review",
    }


def test_unset_and_empty_take_c_when_it_is_built() -> None:
    built = _built()
    for value in (None, ""):
        out = _probe(value)
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout) == {
            "accelerated": built,
            "c_newlines": built,
            "intent": "review",
        }


def test_c_uses_the_extension() -> None:
    if not _built():
        pytest.skip("smista.core._speedups is not built here")
    out = _probe("c")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["accelerated"] is True


def test_c_fails_loudly_when_the_extension_is_missing() -> None:
    """A missing extension (here hidden from the import system) is an ImportError naming the switch."""
    out = _probe("c", prelude="import sys; sys.modules['smista.core._speedups'] = None\n")
    assert out.returncode != 0
    last = out.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: SMISTA_IMPLEMENTATION=c but the C extension")
    assert "smista.core._speedups" in last


def test_an_unknown_value_is_refused_with_the_accepted_ones() -> None:
    out = _probe("cpp")
    assert out.returncode != 0
    assert out.stderr.strip().splitlines()[-1] == (
        "ImportError: SMISTA_IMPLEMENTATION='cpp' is not one of python, c (or unset)"
    )


def test_this_run_uses_what_it_was_told() -> None:
    """The suite itself runs on the implementation CI asked for (both are run)."""
    asked = os.environ.get("SMISTA_IMPLEMENTATION", "")
    if asked == "python":
        assert not engine.ACCELERATED
    elif asked == "c":
        assert engine.ACCELERATED


def test_doctor_says_the_pure_path_was_asked_for(run_cli) -> None:
    """``smista doctor`` and ``--version`` name the active implementation and why."""
    doctor = run_cli(["doctor", "--json"], env=_env("python"))
    assert doctor.returncode == 0, doctor.stderr
    assert json.loads(doctor.stdout)["speedups"] == {
        "active": False,
        "detail": "pure-Python matcher: SMISTA_IMPLEMENTATION=python asks for it",
    }
    version = run_cli(["--version"], env=_env("python")).stdout.decode()
    assert "C speedups inactive (pure Python)" in version
    if _built():
        assert "C speedups active" in run_cli(["--version"], env=_env("c")).stdout.decode()
