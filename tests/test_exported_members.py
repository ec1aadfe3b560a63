"""``smista.__all__`` (httpx style): every name is importable, documented and defined where it says.

The names stay lazily imported (PEP 562, see ``smista/__init__.py``): importing
them all eagerly would load pydantic, rapidfuzz and tomllib on ``import smista``
and every CLI start. These checks run in a fresh interpreter so that the lazy
table is exercised from a cold start, not from modules other tests loaded.
"""

from __future__ import annotations

import importlib
import inspect
import json
import pkgutil
import subprocess
import sys

import pytest

import smista
from tests.conftest import cli_env


def test_all_is_sorted_and_without_duplicates() -> None:
    assert smista.__all__ == sorted(set(smista.__all__))


def test_every_name_imports_with_from_import_in_a_fresh_interpreter() -> None:
    code = (
        "import json, smista\n"
        "ns = {}\n"
        "exec('from smista import ' + ', '.join(smista.__all__), ns)\n"
        "print(json.dumps(sorted(n for n in smista.__all__ if ns.get(n) is None)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=cli_env(), capture_output=True, text=True, check=True
    )
    assert json.loads(out.stdout) == []


def test_star_import_gives_exactly_all() -> None:
    ns: dict[str, object] = {}
    exec("from smista import *", ns)
    assert sorted(k for k in ns if k != "__builtins__") == smista.__all__


def test_every_exported_member_is_documented() -> None:
    """Classes and functions carry their own docstring (not an inherited one)."""
    undocumented = [
        name
        for name in smista.__all__
        if name != "__version__" and not (inspect.getdoc(getattr(smista, name)) or "").strip()
    ]
    assert undocumented == []


def test_every_member_is_defined_in_the_module_the_table_names() -> None:
    """The lazy table points at the defining module (no re-export chains to get lost in)."""
    wrong = {
        name: (module, getattr(getattr(smista, name), "__module__", module))
        for name, module in smista._EXPORTS.items()
        if inspect.isclass(getattr(smista, name)) or inspect.isfunction(getattr(smista, name))
        if getattr(smista, name).__module__ != module
    }
    assert wrong == {}


def test_the_version_is_a_plain_release_string() -> None:
    parts = smista.__version__.split(".")
    assert len(parts) == 3
    assert all(p.isdigit() for p in parts)


# Documented public module paths whose code lives elsewhere since the layered layout
# (docs/architecture.md): each is a thin alias that must re-export exactly its target's API.
PUBLIC_ALIASES = {
    "smista.golden": "smista.authoring.golden",
    "smista.grounding": "smista.core.grounding",
    "smista.pytest_plugin": "smista.authoring.pytest_plugin",
    "smista.ray": "smista.scale.ray",
    "smista.scale": "smista.scale.frames",
    "smista.testing": "smista.authoring.testing",
    "smista.turns": "smista.core.turns",
}


@pytest.mark.parametrize(("alias", "target"), sorted(PUBLIC_ALIASES.items()))
def test_public_alias_re_exports_its_target_exactly(alias: str, target: str) -> None:
    """``from <alias> import ...`` gives the very objects of the module the code lives in."""
    if alias == "smista.ray":
        pytest.importorskip("ray")
    public = importlib.import_module(alias)
    home = importlib.import_module(target)
    assert public.__all__ == home.__all__
    assert {n: getattr(public, n) for n in public.__all__} == {
        n: getattr(home, n) for n in home.__all__
    }
    assert f"the code lives in :mod:`{target}`" in (public.__doc__ or "")


def test_public_aliases_are_all_the_top_level_modules_besides_the_api() -> None:
    """No alias for an internal path is left behind: the top level holds only what must stay."""
    top = {
        f"smista.{m.name}"
        for m in pkgutil.iter_modules(smista.__path__)
        if not m.ispkg and not m.name.startswith("_")
    }
    assert top == {"smista.api"} | (set(PUBLIC_ALIASES) - {"smista.scale"})
