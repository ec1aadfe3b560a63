"""Driving the compiled Rust build of the original (benchmarks/rust_baseline).

``build()`` compiles it with cargo (offline; no dependencies) into
``benchmarks/rust_baseline/target`` (never committed) and returns the binary,
or ``None`` when cargo is missing or the build fails, so callers can skip the
figures that need it.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path

from smista.core.engine import RuleMatch, RuleSpec

__all__ = ["build", "classify", "run_bench", "tokenize", "write_prompts", "write_rules"]

HERE = Path(__file__).resolve().parent / "rust_baseline"


def build() -> Path | None:
    """The release binary of the harness, built if needed; ``None`` without cargo."""
    cargo = shutil.which("cargo")
    if cargo is None:
        return None
    done = subprocess.run(
        [cargo, "build", "--release", "--offline", "--quiet"],
        cwd=HERE,
        capture_output=True,
        check=False,
    )
    binary = HERE / "target" / "release" / "smista_rust_baseline"
    if done.returncode != 0 or not binary.exists():
        return None
    return binary


def _hex(text: str) -> str:
    return text.encode("utf-8").hex()


def _hex_list(items: Iterable[str]) -> str:
    items = list(items)
    return ",".join(_hex(i) for i in items) if items else "-"


def write_rules(specs: Sequence[RuleSpec], default: str, path: Path) -> None:
    lines = [f"default {_hex(default)}"]
    lines += [
        f"rule {_hex(s.label)} {s.priority} {_hex_list(s.keywords)} {_hex_list(s.contexts)}"
        for s in specs
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def write_prompts(
    prompts: Sequence[str],
    path: Path,
    contexts: Sequence[Collection[str]] | None = None,
) -> None:
    ctx = contexts if contexts is not None else [()] * len(prompts)
    path.write_text(
        "".join(
            f"{_hex(p) or '-'} {_hex_list(sorted(c))}\n" for p, c in zip(prompts, ctx, strict=True)
        ),
        encoding="utf-8",
    )


def _unhex(field: str) -> str:
    return bytes.fromhex(field).decode("utf-8")


def classify(
    binary: Path,
    specs: Sequence[RuleSpec],
    default: str,
    prompts_file: Path,
    rules_file: Path,
) -> list[RuleMatch]:
    """The Rust original's outcome for every prompt in ``prompts_file``."""
    write_rules(specs, default, rules_file)
    out = subprocess.run(
        [str(binary), "classify", str(rules_file), str(prompts_file)],
        capture_output=True,
        check=True,
    ).stdout.decode()
    results: list[RuleMatch] = []
    for line in out.splitlines():
        rule, keyword, fuzzy, context = line.split(" ")
        if rule == "-":
            results.append(RuleMatch(None, default))
            continue
        index = int(rule)
        results.append(
            RuleMatch(
                index,
                specs[index].label,
                None if keyword == "-" else _unhex(keyword),
                fuzzy == "1",
                None if context == "-" else _unhex(context),
            )
        )
    return results


def tokenize(binary: Path, prompts_file: Path) -> list[list[str]]:
    """Rust's tokens for every prompt in ``prompts_file``."""
    out = subprocess.run(
        [str(binary), "tokenize", str(prompts_file)], capture_output=True, check=True
    ).stdout.decode()
    return [[_unhex(t) for t in line.split(",")] if line else [] for line in out.split("\n")[:-1]]


def run_bench(binary: Path, rules_file: Path, prompts_file: Path, reps: int) -> dict[str, int]:
    """``total_ns`` (all prompts, best of the repetitions' average) and ``median_ns``."""
    out = subprocess.run(
        [str(binary), "bench", str(rules_file), str(prompts_file), str(reps)],
        capture_output=True,
        check=True,
    ).stdout.decode()
    return {k: int(v) for k, v in (line.split() for line in out.splitlines())}
