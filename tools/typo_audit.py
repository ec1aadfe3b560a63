"""Typo audit of a rule file: which common words each keyword matches only as a typo.

A developer tool, not part of the package; it never changes a file. A keyword
of 5+ characters matches any token 1 (or, from 9 characters, 2) edits away, so
a keyword one typo from a common word ("patch" ~ "path", "fixes" ~ "files")
claims every prompt that uses that word. `smista check --strict` catches
collisions between keywords; this catches collisions with ordinary words.

    python tools/typo_audit.py WORDLIST [RULES] [--top N]

WORDLIST holds one word per line, commonest first (for example the output of
``wordfreq.top_n_list("en", 40000)``, one per line). RULES defaults to the
shipped pack. Prints ``rule intent keyword -> word, word, ...`` for every
keyword with at least one typo neighbour among the first N words.
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from smista.fuzzy import fuzzy_cap, is_typo  # noqa: E402
from smista.tokenizer import rust_lower, tokenize  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    """Print each keyword's typo neighbours among the listed words."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("wordlist", type=Path)
    parser.add_argument("rules", type=Path, nargs="?", default=ROOT / "rules" / "default.toml")
    parser.add_argument("--top", type=int, default=40000, help="words to read (default 40000)")
    parser.add_argument("--show", type=int, default=12, help="neighbours shown per keyword")
    args = parser.parse_args(argv)

    words: list[str] = []
    seen: set[str] = set()
    for line in args.wordlist.read_text(encoding="utf-8").splitlines():
        tokens = tokenize(line)
        if len(tokens) == 1 and tokens[0] not in seen:
            seen.add(tokens[0])
            words.append(tokens[0])
        if len(words) >= args.top:
            break

    rules = tomllib.loads(args.rules.read_text(encoding="utf-8"))["classification"]["rules"]
    for index, rule in enumerate(rules):
        for keyword in rule["keywords"]:
            needle = rust_lower(keyword)
            cap = fuzzy_cap(len(needle))
            if cap == 0:
                continue
            hits = [w for w in words if w != needle and is_typo(needle, w, cap)]
            if hits:
                shown = ", ".join(hits[: args.show])
                print(f"{index:2} {rule['intent']:9} {needle:15} -> {shown}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
