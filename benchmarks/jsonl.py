"""A JSONL input for ``smista batch`` benchmarks (deterministic)."""

from __future__ import annotations

import json
import random
from pathlib import Path

from benchmarks.corpus import mixed_prompts

__all__ = ["write_jsonl"]


def write_jsonl(path: Path, lines: int, *, distinct: int = 50_000, seed: int = 21) -> Path:
    """``lines`` records cycling over ``distinct`` generated prompts; some carry contexts."""
    rng = random.Random(seed)
    prompts = mixed_prompts(distinct, seed=seed, min_words=2, max_words=80)
    contexts: list[list[str]] = [[], [], [], ["git_diff"], ["active_file", "git_diff"]]
    with path.open("w", encoding="utf-8") as fh:
        for i in range(lines):
            record: dict[str, object] = {"id": i, "text": prompts[i % distinct]}
            ctx = contexts[rng.randrange(len(contexts))]
            if ctx:
                record["contexts"] = ctx
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")
    return path
