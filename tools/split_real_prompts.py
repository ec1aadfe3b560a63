"""Deterministic held-out split of the real-prompt dev set, by source.

A developer tool, not part of the package. Whole sources go to the held-out
third together (prompts from one log or one doc page share vocabulary, so
splitting them would leak), chosen by a stable hash of the source string:
sources are sorted by ``sha256(source)`` and taken greedily, skipping any that
would overshoot, until a third of the prompts are held out. The split is
written to ``tests/data/real-prompts-split.json`` and never depends on the
prompts' text or labels, so it cannot be steered by what tunes well.

    python tools/split_real_prompts.py            # write the split
    python tools/split_real_prompts.py --check    # exit 1 if the file is stale
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


def _key(source: str) -> str:
    return hashlib.sha256(f"{SALT}\0{source}".encode()).hexdigest()


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
    lines = DATA.read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines if line.strip()]
    text = json.dumps(make_split(rows), ensure_ascii=False, indent=2) + "\n"
    if args.check:
        if not SPLIT.exists() or SPLIT.read_text(encoding="utf-8") != text:
            print(f"{SPLIT} is stale: run python tools/split_real_prompts.py", file=sys.stderr)
            return 1
        return 0
    SPLIT.write_text(text, encoding="utf-8")
    print(f"wrote {SPLIT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
