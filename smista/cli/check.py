"""``smista check FILE...``: lint rule files (and golden case files) before shipping.

I/O edge: reads the files named (a directory means its ``*.toml`` files),
prints findings, and exits 0 when nothing fails, 1 when an error (or, with
``--strict``, a warning) was found. Notes (``info``) never fail a check and
are printed with ``--verbose``. Context kinds a host supplies beyond the
workspace's own are declared with ``--context-kind`` or the
``SMISTA_CONTEXT_KINDS`` environment variable (comma-separated).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from smista.cli._common import ArgumentParser, UsageError
from smista.config._files import CONFIG_LIMIT, read_bounded

__all__ = ["run"]


def _parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog="smista check",
        description=(
            "Validate rule files: structure (same messages as loading), keywords that "
            "can never match, rules that can never win, duplicates, priority ties, "
            "typo collisions between intents and unknown context kinds."
        ),
    )
    parser.add_argument("files", metavar="FILE", nargs="+", help="TOML file or directory")
    parser.add_argument("--strict", action="store_true", help="warnings fail the check too")
    parser.add_argument("--json", action="store_true", help="print findings as JSON")
    parser.add_argument("-v", "--verbose", action="store_true", help="also print notes")
    parser.add_argument(
        "--context-kind",
        metavar="NAME",
        action="append",
        default=[],
        help="declare a context kind your host supplies (repeatable)",
    )
    return parser


def _expand(names: Sequence[str]) -> list[Path]:
    paths: list[Path] = []
    for name in names:
        path = Path(name)
        if path.is_dir():
            found = sorted(path.glob("*.toml"))
            if not found:  # a mistyped directory must not pass a quality gate
                raise UsageError(f"{name}: no .toml files in this directory")
            paths.extend(found)
        else:
            paths.append(path)
    return paths


def _read(path: Path) -> tuple[str | None, str]:
    """The file's UTF-8 text, or ``None`` and why it cannot be checked."""
    try:
        return read_bounded(path, CONFIG_LIMIT).decode("utf-8"), ""
    except FileNotFoundError:
        return None, "no such file"
    except UnicodeDecodeError as exc:
        return None, f"not valid UTF-8 (byte {exc.start})"
    except OSError as exc:
        return None, f"cannot read file: {exc.strerror or exc}"


def run(argv: Sequence[str]) -> int:
    from smista.authoring.check import Finding, Severity, check_text, failed, summary

    args = _parser().parse_args(argv[1:])
    known = list(args.context_kind)
    env = os.environ.get("SMISTA_CONTEXT_KINDS", "")
    known += [k.strip() for k in env.split(",") if k.strip()]
    paths = _expand(args.files)
    findings: list[Finding] = []
    for path in paths:
        name = str(path)
        text, problem = _read(path)
        if text is None:
            findings.append(Finding(name, None, "", Severity.ERROR, "invalid", problem))
            continue
        findings.extend(check_text(text, name, known_contexts=known))
    bad = failed(findings, strict=args.strict)
    if args.json:
        doc = {
            "ok": not bad,
            "strict": args.strict,
            "files": [str(p) for p in paths],
            "findings": [f.to_json() for f in findings],
        }
        print(json.dumps(doc, ensure_ascii=False, indent=2))
        return 1 if bad else 0
    out = sys.stdout
    for finding in findings:
        if finding.severity is Severity.INFO and not args.verbose:
            continue
        out.write(finding.render() + "\n")
    line = summary(findings, len(paths))
    hidden = sum(1 for f in findings if f.severity is Severity.INFO) and not args.verbose
    out.write(line + (" (notes hidden; use --verbose)" if hidden else "") + "\n")
    return 1 if bad else 0
