"""Deterministic held-out split of the real-prompt dev set, by source.

A developer tool, not part of the package. Whole sources go to the held-out
third together (prompts from one log or one doc page share vocabulary, so
splitting them would leak), chosen by a stable hash of the source string:
sources are sorted by ``sha256(source)`` and taken greedily, skipping any that
would overshoot, until a third of the prompts are held out. The split is
written to ``tests/data/real-prompts-split.json`` and never depends on the
prompts' text or labels, so it cannot be steered by what tunes well.

The second real-prompt sets (``tests/data/real-prompts-extra-*.jsonl``,
gathered after the pack was first tuned) are split the same way, in halves,
each file on its own, with another salt: the held-out halves are
``tests/data/real-prompts-extra-split.json``.

    python tools/split_real_prompts.py            # write both splits
    python tools/split_real_prompts.py --check    # exit 1 if either file is stale
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "real-prompts-dev.jsonl"
SPLIT = ROOT / "tests" / "data" / "real-prompts-split.json"
SALT = "smista-real-prompts-v1"
EXTRA_SALT = "smista-real-prompts-extra-v1"
EXTRA_SPLIT = ROOT / "tests" / "data" / "real-prompts-extra-split.json"


def extra_files() -> list[Path]:
    """The second real-prompt sets, in name order."""
    return sorted(DATA.parent.glob("real-prompts-extra-*.jsonl"))


def _key(source: str, salt: str = SALT) -> str:
    return hashlib.sha256(f"{salt}\0{source}".encode()).hexdigest()


def _held_sources(rows: list[dict[str, object]], target: int, salt: str) -> list[str]:
    """Whole sources in hash order, skipping any that would overshoot ``target`` prompts."""
    sizes = Counter(str(row["source"]) for row in rows)
    held: list[str] = []
    count = 0
    for source in sorted(sizes, key=lambda s: _key(s, salt)):
        if count + sizes[source] <= target:
            held.append(source)
            count += sizes[source]
        if count == target:
            break
    return held


def make_extra_split(files: dict[str, list[dict[str, object]]]) -> dict[str, object]:
    """The held-out half of each second set: its sources and ids."""
    parts: dict[str, object] = {}
    for name, rows in sorted(files.items()):
        held = set(_held_sources(rows, round(len(rows) / 2), EXTRA_SALT))
        ids = [str(row["id"]) for row in rows if str(row["source"]) in held]
        parts[name] = {
            "total": len(rows),
            "heldout_count": len(ids),
            "heldout_sources": sorted(held),
            "heldout_ids": ids,
        }
    return {
        "description": (
            "Held-out half of each tests/data/real-prompts-extra-*.jsonl, whole sources at a "
            "time, made by tools/split_real_prompts.py. Never tune the pack on these prompts."
        ),
        "files": parts,
    }


def make_split(rows: list[dict[str, object]]) -> dict[str, object]:
    """The split document: held-out sources and ids, and the counts."""
    sizes = Counter(str(row["source"]) for row in rows)
    target = round(len(rows) / 3)
    held: list[str] = []
    count = 0
    for source in sorted(sizes, key=_key):
        if count + sizes[source] <= target:
            held.append(source)
            count += sizes[source]
        if count == target:
            break
    held_set = set(held)
    ids = [str(row["id"]) for row in rows if str(row["source"]) in held_set]
    return {
        "description": (
            "Held-out third of tests/data/real-prompts-dev.jsonl, whole sources at a time, "
            "made by tools/split_real_prompts.py. Never tune the pack on these prompts."
        ),
        "total": len(rows),
        "heldout_count": len(ids),
        "heldout_sources": sorted(held),
        "heldout_ids": ids,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the split file is stale")
    args = parser.parse_args(argv)
    outputs = {
        SPLIT: json.dumps(make_split(_rows(DATA)), ensure_ascii=False, indent=2) + "\n",
        EXTRA_SPLIT: json.dumps(
            make_extra_split({p.name: _rows(p) for p in extra_files()}),
            ensure_ascii=False,
            indent=2,
        )
        + "\n",
    }
    status = 0
    for path, text in outputs.items():
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                print(f"{path} is stale: run python tools/split_real_prompts.py", file=sys.stderr)
                status = 1
            continue
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
    return status


def _rows(path: Path) -> list[dict[str, object]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


if __name__ == "__main__":
    raise SystemExit(main())
