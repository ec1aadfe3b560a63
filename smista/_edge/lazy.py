"""PEP 562 lazy exports for smista's packages.

Pure, standard library only; imports no smista module itself. A package keeps
a table of public name -> defining module and assigns
``__getattr__ = lazy_getattr(__name__, TABLE, globals())``: a name is imported
on first access and then cached in the package's namespace.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_getattr"]


def lazy_getattr(
    package: str, exports: Mapping[str, str], namespace: dict[str, Any]
) -> Callable[[str], Any]:
    """A module ``__getattr__`` resolving the names of ``exports`` on first use."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    return __getattr__
