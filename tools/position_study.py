"""Does *where* a signal sits in a prompt say more than first-match-by-priority?

A study, not a feature: it asks whether a rule signal that reads the request's
position (the sentence that carries the request, or the earliest signal) would
beat the engine's first match by priority, before anyone builds one. Every
variant decides from the same rule pack, and is scored on the five labelled
real-prompt sets that are no longer held out: the four pack v5 was tuned on,
and ``fresh2``, which v5 was measured on once and never tuned on (so its column
is the one that tells a general gain from a fit). Never reads a set still held
out. Variants:

* ``first-match``: the engine as it is (the baseline);
* ``first-line`` / ``first-sentence`` / ``two-sentences``: classify that part
  of the prompt only, falling back to the whole prompt when no rule matches it;
* ``leading-anywhere``: when the whole prompt is not decided by a leading word
  or a slash command, the first of its first three sentences that is decided by
  one (a request in a later sentence: "I have a login page. Add a logout
  button.") decides;
* ``earliest-sentence``: of the rules that match on their own, the one whose
  evidence lies in the earliest sentence wins (then priority);
* ``vote``: the intent most of the rules that match on their own agree on wins
  (ties: the earliest rule).

    python tools/position_study.py                  # the shipped pack
    python tools/position_study.py --rules FILE

Prints the figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
SETS = ("dev", "extra-en", "extra-intl", "fresh", "fresh2")

_END = re.compile(r"(?<=[.!?。！？])\s+|\n+")
_MARKS = re.compile(r"[.!?。！？\n]")
_EVIDENCE = re.compile(r"(?:keyword|substring|stem|phrase|leading word|command) '([^']+)'")


def _sentences(text: str) -> list[str]:
    return [part for part in _END.split(text.strip()) if part.strip()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rules", type=Path, default=ROOT / "rules" / "default.toml")
    args = parser.parse_args(argv)

    import tomllib

    import smista

    text = args.rules.read_text(encoding="utf-8")
    whole = smista.Classifier(smista.parse_config(text, str(args.rules)))
    doc = tomllib.loads(text)
    rules = doc["classification"]["rules"]
    order = sorted(range(len(rules)), key=lambda i: (rules[i].get("priority", 0), i))
    singles = []  # one classifier per rule, in evaluation order
    for i in order:
        section = dict(doc["classification"], rules=[rules[i]])
        singles.append(smista.Classifier(smista.ClassificationConfig.model_validate(section)))

    def intent(prompt: str) -> str:
        return str(whole.classify(prompt).intent)

    def part_or_whole(cut: Callable[[str], str]) -> Callable[[str], str]:
        def decide(prompt: str) -> str:
            got = whole.classify(cut(prompt))
            return intent(prompt) if got.matched_rule is None else str(got.intent)

        return decide

    def leading_anywhere(prompt: str) -> str:
        got = whole.classify(prompt)
        parts = _sentences(prompt)
        if len(parts) < 2 or "leading word" in got.reason or "command" in got.reason:
            return str(got.intent)
        for part in parts[:3]:
            one = whole.classify(part)
            if "leading word" in one.reason or "command" in one.reason:
                return str(one.intent)
        return str(got.intent)

    def matching(prompt: str) -> list[tuple[int, int, str]]:
        """(sentence of the evidence, rank, intent) of each rule that matches alone."""
        low = prompt.lower()
        out = []
        for rank, single in enumerate(singles):
            got = single.classify(prompt)
            if got.matched_rule is None:
                continue
            found = _EVIDENCE.search(got.reason)
            if "leading word" in got.reason or "command" in got.reason or found is None:
                at = 0 if found is not None else len(prompt)  # a question: the end
            else:
                at = max(low.find(found.group(1).lstrip("/")), 0)
            out.append((len(_MARKS.findall(prompt[:at])), rank, str(got.intent)))
        return out

    def earliest(prompt: str) -> str:
        found = matching(prompt)
        return min(found)[2] if found else intent(prompt)

    def vote(prompt: str) -> str:
        found = matching(prompt)
        if not found:
            return intent(prompt)
        votes = Counter(kind for _, _, kind in found)
        first = {kind: rank for _, rank, kind in reversed(found)}
        return max(votes, key=lambda kind: (votes[kind], -first[kind]))

    variants: dict[str, Callable[[str], str]] = {
        "first-match": intent,
        "first-line": part_or_whole(lambda p: p.strip().split("\n")[0]),
        "first-sentence": part_or_whole(lambda p: (_sentences(p) or [p])[0]),
        "two-sentences": part_or_whole(lambda p: " ".join(_sentences(p)[:2]) or p),
        "leading-anywhere": leading_anywhere,
        "earliest-sentence": earliest,
        "vote": vote,
    }
    rows = []
    for name in SETS:
        path = DATA / f"real-prompts-{name}.jsonl"
        lines = path.read_text(encoding="utf-8").splitlines()
        rows += [(name, json.loads(line)) for line in lines if line.strip()]
    print(f"rules: {args.rules}; {len(rows)} tuned-on real prompts")
    print("| variant | " + " | ".join(SETS) + " | all | vs first-match |")
    print("|---" * (len(SETS) + 3) + "|")
    base = 0
    for label, decide in variants.items():
        right: Counter[str] = Counter()
        for name, row in rows:
            right[name] += decide(row["text"]) in (row["intent"], row["alt"])
        total = sum(right.values())
        base = base or total
        cells = " | ".join(str(right[name]) for name in SETS)
        print(f"| {label} | {cells} | {total} ({total / len(rows):.1%}) | {total - base:+d} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
