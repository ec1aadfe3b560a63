"""Typo audit of a rule file: which common words each typo-tolerant word matches only as a typo.

A developer tool, not part of the package; it never changes a file. A keyword
of 5+ characters matches any token 1 (or, from 9 characters, 2) edits away, so
a keyword one typo from a common word ("patch" ~ "path", "fixes" ~ "files")
claims every prompt that uses that word. `smista check --strict` catches
collisions between keywords; this catches collisions with ordinary words.

Audited: every word that can match by typo, i.e. ``keywords``, the tokens of
``phrases`` and ``leading`` entries, in rules without ``typo = false``; Hangul
and Han words are skipped for the new kinds always, and for ``keywords`` when
``[classification.options] hangul_han_typos = false``.

    python tools/typo_audit.py WORDLIST [RULES] [--top N]
    python tools/typo_audit.py --wordfreq en,es,pt,fr,de,it,ru,tr,id,vi,sv [RULES]

WORDLIST holds one word per line, commonest first. ``--wordfreq LANGS`` reads
the commonest words of each language from the ``wordfreq`` package instead
(``pip install wordfreq``; a developer tool, not a dependency). RULES defaults
to the shipped pack. Prints ``rule intent kind word -> word, word, ...`` for
every audited word with typo neighbours among the first N words (of each
language). ``--exclude-known RULES`` leaves out words that RULES (e.g. an
older pack) already holds with the same typo tolerance, so only new words
are audited; then the exit status is 1 when a new word has neighbours.
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from smista.core.fuzzy import fuzzy_cap, is_typo  # noqa: E402
from smista.core.tokenizer import rust_lower, tokenize  # noqa: E402


def _hangul_or_han(word: str) -> bool:
    return any(0xAC00 <= ord(c) <= 0xD7A3 or 0x4E00 <= ord(c) <= 0x9FFF for c in word)


def audited_words(document: dict[str, Any]) -> Iterator[tuple[int, str, str, str]]:
    """``(rule index, intent, kind, word)`` for every word that may match by typo."""
    classification = document["classification"]
    options = classification.get("options", {})
    keyword_han = options.get("hangul_han_typos", True)
    for index, rule in enumerate(classification.get("rules", [])):
        if rule.get("typo", True) is False:
            continue
        for keyword in rule.get("keywords", []):
            word = rust_lower(keyword)
            if keyword_han or not _hangul_or_han(word):
                yield index, rule["intent"], "keyword", word
        for kind in ("phrases", "leading"):
            for entry in rule.get(kind, []):
                for word in tokenize(entry):
                    if not _hangul_or_han(word):
                        yield index, rule["intent"], kind.rstrip("s"), word


def _wordlist(path: Path, top: int) -> list[str]:
    words: list[str] = []
    seen: set[str] = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        tokens = tokenize(line)
        if len(tokens) == 1 and tokens[0] not in seen:
            seen.add(tokens[0])
            words.append(tokens[0])
        if len(words) >= top:
            break
    return words


def _wordfreq(languages: str, top: int) -> list[str]:
    try:
        from wordfreq import top_n_list
    except ImportError:
        raise SystemExit("--wordfreq needs the wordfreq package: pip install wordfreq") from None
    words: dict[str, None] = {}
    for lang in languages.split(","):
        for word in top_n_list(lang.strip(), top):
            tokens = tokenize(word)
            if len(tokens) == 1:
                words.setdefault(tokens[0])
    return list(words)


def main(argv: list[str] | None = None) -> int:
    """Print each audited word's typo neighbours among the listed words."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("wordlist", type=Path, nargs="?")
    parser.add_argument("rules", type=Path, nargs="?", default=ROOT / "rules" / "default.toml")
    parser.add_argument("--wordfreq", metavar="LANGS", help="comma-separated language codes")
    parser.add_argument("--top", type=int, default=40000, help="words to read (default 40000)")
    parser.add_argument("--show", type=int, default=12, help="neighbours shown per word")
    parser.add_argument(
        "--exclude-known", type=Path, metavar="RULES", help="audit only words RULES lacks"
    )
    args = parser.parse_args(argv)
    if args.wordfreq:
        if args.wordlist is not None:  # RULES given as the only positional argument
            args.rules = args.wordlist
        words = _wordfreq(args.wordfreq, args.top)
    elif args.wordlist is None:
        parser.error("give a WORDLIST or --wordfreq LANGS")
    else:
        words = _wordlist(args.wordlist, args.top)

    document = tomllib.loads(args.rules.read_text(encoding="utf-8"))
    known: set[str] = set()
    if args.exclude_known is not None:
        old = tomllib.loads(args.exclude_known.read_text(encoding="utf-8"))
        known = {word for _, _, _, word in audited_words(old)}
    found = 0
    done: set[tuple[int, str, str]] = set()
    for index, intent, kind, needle in audited_words(document):
        if (index, kind, needle) in done or needle in known:
            continue
        done.add((index, kind, needle))
        cap = fuzzy_cap(len(needle))
        if cap == 0:
            continue
        hits = [w for w in words if w != needle and is_typo(needle, w, cap)]
        if hits:
            found += 1
            shown = ", ".join(hits[: args.show])
            print(f"{index:2} {intent:9} {kind:8} {needle:15} -> {shown}")
    return 1 if found and args.exclude_known is not None else 0


if __name__ == "__main__":
    raise SystemExit(main())
