"""``smista schema [--draft4] [--cases]``: print the JSON Schema of the config file.

I/O edge (stdout only). Draft 2020-12 by default; ``--draft4`` prints the
Draft 4 form for Taplo / Even Better TOML; ``--cases`` describes golden case
files instead of config files.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from smista.cli._common import ArgumentParser

__all__ = ["run"]


def render(*, draft4: bool = False, cases: bool = False) -> str:
    """The schema as pretty JSON text (what the command prints, newline-terminated)."""
    from smista.config.schema import cases_schema, config_schema

    schema = cases_schema(draft4=draft4) if cases else config_schema(draft4=draft4)
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def run(argv: Sequence[str]) -> int:
    parser = ArgumentParser(
        prog="smista schema",
        description="Print the JSON Schema of a smista config file (editors, CI).",
    )
    parser.add_argument(
        "--draft4", action="store_true", help="Draft 4 form (Taplo / Even Better TOML)"
    )
    parser.add_argument("--cases", action="store_true", help="schema of a golden case file instead")
    args = parser.parse_args(argv[1:])
    print(render(draft4=args.draft4, cases=args.cases), end="")
    return 0
