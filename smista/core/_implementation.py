"""Which implementation of the matcher's hot path runs: ``SMISTA_IMPLEMENTATION``.

The one place that reads the switch (once, when :mod:`smista.core.engine` is first
imported), in RapidFuzz style:

* unset or empty: the C extension :mod:`smista.core._speedups` when it is built,
  the pure-Python path otherwise;
* ``python``: the pure-Python path, even when the extension is built (the
  extension is hidden from the import system, so every ``try: from
  smista.core._speedups import ...`` takes its fallback);
* ``c``: the extension, and an :class:`ImportError` naming the switch when it
  is not built (never a silent fallback);
* anything else: an :class:`ImportError` listing the accepted values.

Standard library only; reads one environment variable and nothing else. Must
never import the rest of smista.
"""

from __future__ import annotations

import importlib
import os
import sys

__all__ = ["ENV", "IMPLEMENTATION", "VALUES"]

ENV = "SMISTA_IMPLEMENTATION"
VALUES = ("python", "c")
_SPEEDUPS = "smista.core._speedups"


def _choose(value: str) -> str:
    """The requested implementation: ``python``, ``c`` or ``""`` (whichever is built)."""
    choice = value.strip().lower()
    if choice and choice not in VALUES:
        raise ImportError(f"{ENV}={value!r} is not one of {', '.join(VALUES)} (or unset)")
    if choice == "python":
        sys.modules[_SPEEDUPS] = None  # type: ignore[assignment]  # import now raises ImportError
    elif choice == "c":
        try:
            importlib.import_module(_SPEEDUPS)
        except ImportError as exc:
            raise ImportError(
                f"{ENV}=c but the C extension {_SPEEDUPS} is not available ({exc}); "
                f"reinstall smista with a C compiler present, or unset {ENV}"
            ) from None
    return choice


IMPLEMENTATION = _choose(os.environ.get(ENV, ""))
"""What ``SMISTA_IMPLEMENTATION`` asked for: ``python``, ``c`` or ``""`` (unset)."""
