"""The pure core (``smista/core/``) imports no I/O and nothing from the edge (architecture guide).

Two checks: a static one reads every ``smista/core/**/*.py`` with ``ast`` (so an
import deferred into a function counts too), and a dynamic one imports the core
in a fresh interpreter and looks at what got loaded.
"""

from __future__ import annotations

import ast
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import smista.core
from tests.conftest import cli_env

CORE_DIR = Path(smista.core.__file__).resolve().parent

# Third-party modules the core may use; everything else it imports must be the
# standard library (and not one of the I/O-ish modules below) or smista.core.*.
ALLOWED_THIRD_PARTY = {"pydantic", "pydantic_core", "rapidfuzz"}  # pydantic_core: its core
IO_MODULES = {
    "asyncio",
    "ftplib",
    "http",
    "httpx",
    "mcp",
    "mmap",
    "multiprocessing",
    "requests",
    "selectors",
    "shutil",
    "signal",
    "socket",
    "socketserver",
    "ssl",
    "starlette",
    "subprocess",
    "tempfile",
    "threading",
    "tomllib",
    "urllib",
    "uvicorn",
    "litellm",
    "pytest",
    "pandas",
    "pyarrow",
    "ray",
}

# A condition kind owns its hypothesis strategy (``ConditionKind.strategy()``, used by
# ``smista.testing``); hypothesis is imported only inside that method, never on import.
DEFERRED_ONLY = {"hypothesis"}

# The core modules, every one of them (the walk above finds the files; this is what to import).
CORE = sorted(
    {"smista.core"}
    | {
        m.name
        for m in pkgutil.walk_packages([str(CORE_DIR)], prefix="smista.core.")
        if m.name != "smista.core._speedups"
    }
)
# Cheap pure entry points outside the core that must stay free of the edge too.
PURE_OUTSIDE_CORE = ["smista", "smista.tiers", "smista.tiers.router", "smista.tiers.parse"]
FORBIDDEN = [
    "smista.config",
    "smista.authoring",
    "smista.scale",
    "smista.cli",
    "smista.server",
    "smista.decision.providers",
    "smista._edge.http",
    "smista.hosts",
    "smista.integrations",
    "httpx",
    "hypothesis",
    "tomllib",
    "starlette",
    "uvicorn",
    "litellm",
    "mcp",
]


def _imports(path: Path) -> list[tuple[int, str, bool]]:
    """(line, absolute module name, deferred) of every import in ``path``."""
    package = ".".join(("smista", "core", *path.relative_to(CORE_DIR).parent.parts))
    return _imports_in(path.read_text(encoding="utf-8"), package)


def _imports_in(text: str, package: str) -> list[tuple[int, str, bool]]:
    """Every import of ``text`` (relative ones resolved against ``package``).

    ``deferred`` is true for an import inside a function body or an
    ``if TYPE_CHECKING:`` block: it does not run when the module is imported.
    """
    found: list[tuple[int, str, bool]] = []

    def visit(node: ast.AST, deferred: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = deferred or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            if isinstance(child, ast.If) and ast.unparse(child.test) == "TYPE_CHECKING":
                for stmt in child.body:
                    visit(ast.Module(body=[stmt], type_ignores=[]), True)
                for stmt in child.orelse:
                    visit(ast.Module(body=[stmt], type_ignores=[]), deferred)
                continue
            if isinstance(child, ast.Import):
                found.extend((child.lineno, a.name, deferred) for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    parts = package.split(".")
                    base = parts[: len(parts) - child.level + 1]
                    module = ".".join([*base, *([child.module] if child.module else [])])
                else:
                    module = child.module or ""
                if module == "smista":  # `from smista import x`: x is a smista module
                    found.extend((child.lineno, f"smista.{a.name}", deferred) for a in child.names)
                else:
                    found.append((child.lineno, module, deferred))
            visit(child, inner)

    visit(ast.parse(text), False)
    return found


def _problem(module: str, deferred: bool) -> str | None:
    top = module.split(".")[0]
    if module == "__future__":
        return None
    if top == "smista":
        if module == "smista.core" or module.startswith("smista.core."):
            return None
        return "imports the edge"
    if top in DEFERRED_ONLY:
        return None if deferred else "imports a testing library at import time"
    if top in IO_MODULES:
        return "imports an I/O module"
    if top in ALLOWED_THIRD_PARTY or top in sys.stdlib_module_names:
        return None
    return "imports a third-party module outside pydantic/rapidfuzz"


def test_the_static_check_sees_the_core() -> None:
    """The walk finds the core's modules, so the static check below cannot pass vacuously."""
    files = {p.relative_to(CORE_DIR).as_posix() for p in CORE_DIR.rglob("*.py")}
    assert {"engine.py", "classifier.py", "conditions/keywords.py", "__init__.py"} <= files
    probe = (
        "import smista.cli\nfrom smista import defaults\nfrom .. import engine\n"
        "if TYPE_CHECKING:\n    import hypothesis\n"
        "def f():\n    import socket\n"
    )
    assert _imports_in(probe, "smista.core.conditions") == [
        (1, "smista.cli", False),
        (2, "smista.defaults", False),
        (3, "smista.core", False),
        (5, "hypothesis", True),
        (7, "socket", True),
    ]
    assert _problem("smista.config.load", True) == "imports the edge"
    assert _problem("socket", True) == "imports an I/O module"
    assert _problem("hypothesis", False) == "imports a testing library at import time"
    assert _problem("hypothesis.strategies", True) is None
    assert _problem("pydantic.fields", False) is None
    assert _problem("smista.core.engine", False) is None


@pytest.mark.parametrize(
    "path",
    sorted(CORE_DIR.rglob("*.py")),
    ids=lambda p: p.relative_to(CORE_DIR).as_posix(),
)
def test_core_module_imports_only_the_core_and_pure_libraries(path: Path) -> None:
    """No core module imports a ``smista.`` module outside ``smista.core`` or an I/O module."""
    bad = [
        f"{path.relative_to(CORE_DIR)}:{line}: {module} ({problem})"
        for line, module, deferred in _imports(path)
        if (problem := _problem(module, deferred))
    ]
    assert bad == []


def test_core_pulls_in_no_io_modules() -> None:
    """Importing the core leaves every forbidden module unloaded."""
    modules = CORE + PURE_OUTSIDE_CORE
    code = (
        "import importlib, json, sys\n"
        "before = set(sys.modules)  # e.g. tomllib when coverage measures this process\n"
        f"for m in {modules!r}: importlib.import_module(m)\n"
        f"print(json.dumps([m for m in {FORBIDDEN!r} if m in sys.modules and m not in before]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=cli_env(), capture_output=True, text=True, check=True
    )
    assert json.loads(out.stdout) == []
