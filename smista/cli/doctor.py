"""``smista doctor``: what this install is made of, for bug reports and slow machines.

I/O edge (reads the environment and the import system; imports no extra).
Reports the version, the Python, whether the compiled hot path
(:mod:`smista.core._speedups`) is active, which extras are installed and where the
rules cache lives. Never prints environment values other than paths, and
never fails: a part it cannot inspect is reported as such.
"""

from __future__ import annotations

import json
import os
import platform
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from smista.cli._common import ArgumentParser

__all__ = ["report", "run", "speedups_line"]


def _parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog="smista doctor",
        description=(
            "Show the smista version, the Python, whether the C speedups are active, "
            "which extras are installed and where the rules cache lives."
        ),
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    return parser


def _speedups() -> tuple[bool, str]:
    """(active, where or why not)."""
    from smista.core._implementation import IMPLEMENTATION
    from smista.core.engine import ACCELERATED

    if IMPLEMENTATION == "python":
        return False, "pure-Python matcher: SMISTA_IMPLEMENTATION=python asks for it"
    if not ACCELERATED:
        return False, (
            "pure-Python matcher (slower): the C extension was not built at install "
            "(no C compiler, or SMISTA_NO_SPEEDUPS=1); install a compiler and reinstall"
        )
    import smista.core._speedups as compiled

    return True, str(Path(compiled.__file__ or "").name)


def speedups_line() -> str:
    """``C speedups active`` or ``C speedups inactive (pure Python)``."""
    return "C speedups active" if _speedups()[0] else "C speedups inactive (pure Python)"


def report() -> dict[str, Any]:
    """The doctor's findings as a JSON-ready mapping."""
    import smista
    from smista._edge.extras import installed_extras
    from smista.config.rulecache import cache_dir, default_pack_path

    active, detail = _speedups()
    cache = cache_dir()
    return {
        "version": smista.__version__,
        "python": platform.python_version(),
        "python_executable": sys.executable,
        "package": str(Path(smista.__file__ or "").resolve().parent),
        "speedups": {"active": active, "detail": detail},
        "extras": installed_extras(),
        "cache_dir": None if cache is None else str(cache),
        "cache_dir_source": (
            "SMISTA_CACHE_DIR"
            if "SMISTA_CACHE_DIR" in os.environ
            else "XDG_CACHE_HOME"
            if os.environ.get("XDG_CACHE_HOME")
            else "home"
        ),
        "default_pack": str(default_pack_path()),
    }


def run(argv: Sequence[str]) -> int:
    args = _parser().parse_args(argv[1:])
    found = report()
    if args.json:
        print(json.dumps(found, ensure_ascii=False, indent=2))
        return 0
    from smista._edge.extras import install_hint

    speed = found["speedups"]
    extras = found["extras"]
    have = [name for name, ok in extras.items() if ok]
    missing = [name for name, ok in extras.items() if not ok]
    cache = found["cache_dir"] or "disabled (SMISTA_CACHE_DIR is empty)"
    lines = [
        f"smista {found['version']}",
        f"python:       {found['python']} ({found['python_executable']})",
        f"package:      {found['package']}",
        f"C speedups:   {'active' if speed['active'] else 'inactive'} ({speed['detail']})",
        f"extras:       {', '.join(have) or 'none'} installed"
        + (f"; missing: {', '.join(missing)}" if missing else ""),
        f"rules cache:  {cache} (from {found['cache_dir_source']})",
        f"default pack: {found['default_pack']}",
    ]
    if missing:
        lines.append(f"install an extra with: {install_hint(missing[0])}")
    sys.stdout.write("\n".join(lines) + "\n")
    return 0
