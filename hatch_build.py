"""Build hook: compile ``smista/_speedups.c``, the optional C hot path of the matcher.

The extension only speeds up what the pure-Python engine already answers (its
results are the engine's), so a machine without a C compiler still gets a
working install: the hook warns and the wheel stays pure Python. pip shows a
build's output only under ``pip install -v``, so the warning is also written
to the terminal (``/dev/tty``) when there is one. Set ``SMISTA_NO_SPEEDUPS=1``
to skip the build on purpose (and the warning). ``smista doctor`` tells which
path an install uses.

Editable installs compile in place (the source tree is what gets imported);
wheels carry the built file and a platform tag.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

SOURCE = "smista/_speedups.c"
HEADER = "smista/_speedups_alnum.h"


def build_in_place(root: str) -> Path:
    """Compile the extension next to its source; the path of the built file."""
    from setuptools import Distribution, Extension
    from setuptools.command.build_ext import build_ext

    here = os.getcwd()
    os.chdir(root)  # setuptools resolves sources and in-place output from here
    try:
        dist = Distribution(
            {
                "name": "smista",
                "ext_modules": [Extension("smista.core._speedups", [SOURCE], depends=[HEADER])],
            }
        )
        command = build_ext(dist)
        command.inplace = True
        command.ensure_finalized()
        command.run()
        return Path(root) / command.get_ext_fullpath("smista.core._speedups")
    finally:
        os.chdir(here)


def tell_the_terminal(message: str) -> None:
    """Write ``message`` to the controlling terminal, which pip does not capture."""
    try:
        with open("/dev/tty", "w", encoding="utf-8") as tty:
            tty.write(f"\n{message}\n")
    except OSError:
        pass  # no terminal (CI): the warning is in the build log (pip install -v)


class SpeedupsBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or os.environ.get("SMISTA_NO_SPEEDUPS"):
            return
        try:
            built = build_in_place(self.root)
        except Exception as exc:  # no compiler, no headers: stay pure Python
            message = (
                f"smista: C speedups not built ({type(exc).__name__}: {exc}); "
                "installing the slower pure-Python matcher. Install a C compiler and "
                "reinstall for the fast path, or set SMISTA_NO_SPEEDUPS=1 to skip it "
                "quietly; 'smista doctor' shows which path is active."
            )
            self.app.display_warning(message)
            tell_the_terminal(f"WARNING: {message}")
            return
        if version == "editable":
            return
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        build_data["force_include"][str(built)] = f"smista/core/{built.name}"
