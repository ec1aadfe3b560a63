"""Build hook: compile ``csrc/_speedups.c``, the optional C hot path of the matcher.

Owns the build of the extension and nothing else: where its sources live
(``csrc/``, outside the package, so wheels carry the compiled binary and not
the C sources; the sdist carries them), the extension's dotted name
(:data:`EXTENSION`, the one place it is written: the C source gets it as
``SMISTA_SPEEDUPS_NAME``; its last component must stay ``_speedups``, the
name of the C init function), and what happens when it does not compile.

Where the binary goes:

* wheels: compiled under ``build/`` (never into the source tree) and added to
  the wheel at the extension's path, with a platform tag;
* editable installs (``pip install -e .``): compiled in place, next to the
  package's modules, because an editable install imports the source tree
  (and so do the tests that run the CLI from the checkout with
  ``PYTHONPATH``). That in-tree binary is gitignored (``*.so``, ``*.pyd``).

When it does not compile (no compiler, no Python headers):

* ``SMISTA_REQUIRE_SPEEDUPS=1`` -- a *packaged* build (``.ci/run``, release
  wheels): the build fails with the compiler's error. A published wheel is
  never silently pure Python.
* unset -- a *source* build (``pip install .`` or from the sdist on a machine
  without a compiler): the hook warns and the install stays pure Python (the
  extension only speeds up what the pure-Python engine answers, so the answers
  are the same). pip shows a build's output only under ``pip install -v``, so
  the warning is also written to the terminal (``/dev/tty``) when there is one.
* ``SMISTA_NO_SPEEDUPS=1`` skips the build on purpose, quietly (with
  ``SMISTA_REQUIRE_SPEEDUPS=1`` too, the build fails: the two contradict).

``smista doctor`` tells which path an install uses; ``SMISTA_IMPLEMENTATION``
chooses at run time.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

EXTENSION = "smista.core._speedups"
"""The extension's dotted name: the compiled hot path of the pure core."""
SOURCE = "csrc/_speedups.c"
HEADER = "csrc/_speedups_alnum.h"
REQUIRE = "SMISTA_REQUIRE_SPEEDUPS"
SKIP = "SMISTA_NO_SPEEDUPS"


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip() not in ("", "0")


def source_digest(root: str | Path) -> str:
    """A digest of the extension's C sources: the built module's ``SOURCE_DIGEST``.

    tests/test_speedups.py compares the two, so a binary left over from older
    sources (an editable build whose recompile failed) cannot pass for the new one.
    """
    digest = hashlib.sha256()
    for name in (SOURCE, HEADER):
        digest.update((Path(root) / name).read_bytes())
    return digest.hexdigest()[:16]


def compile_extension(root: str, *, inplace: bool) -> Path:
    """Compile the extension; the path of the built file.

    ``inplace``: next to the package's modules (editable installs); otherwise
    under ``root/build/lib.*``. Intermediate objects go to ``root/build/temp.*``.
    """
    from setuptools import Distribution, Extension
    from setuptools.command.build_ext import build_ext

    here = os.getcwd()
    os.chdir(root)  # setuptools resolves sources and output directories from here
    try:
        extension = Extension(
            EXTENSION,
            [SOURCE],
            depends=[HEADER],
            define_macros=[
                ("SMISTA_SPEEDUPS_NAME", f'"{EXTENSION}"'),
                ("SMISTA_SOURCE_DIGEST", f'"{source_digest(root)}"'),
            ],
        )
        dist = Distribution({"name": "smista", "ext_modules": [extension]})
        command = build_ext(dist)
        command.inplace = inplace
        command.ensure_finalized()
        command.run()
        return Path(root) / command.get_ext_fullpath(EXTENSION)
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
        if self.target_name != "wheel":
            return
        required = _flag(REQUIRE)
        if _flag(SKIP):
            if required:
                raise RuntimeError(f"smista: {SKIP}=1 and {REQUIRE}=1 contradict; unset one")
            return
        editable = version == "editable"
        try:
            built = compile_extension(self.root, inplace=editable)
        except Exception as exc:  # no compiler, no headers
            if required:
                raise RuntimeError(
                    f"smista: the C extension {EXTENSION} did not compile "
                    f"({type(exc).__name__}: {exc}) and {REQUIRE}=1 asks for it"
                ) from exc
            message = (
                f"smista: C speedups not built ({type(exc).__name__}: {exc}); "
                "installing the slower pure-Python matcher. Install a C compiler and "
                f"reinstall for the fast path, or set {SKIP}=1 to skip it "
                "quietly; 'smista doctor' shows which path is active."
            )
            self.app.display_warning(message)
            tell_the_terminal(f"WARNING: {message}")
            return
        if editable:
            return  # imported from the source tree, where it was built
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        target = "/".join([*EXTENSION.split(".")[:-1], built.name])
        build_data["force_include"][str(built)] = target
