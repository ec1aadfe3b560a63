"""How far the labels themselves agree: a second, independent labelling of two real sets.

A benchmark, not a test: it prints figures and asserts nothing. The dev set
(tests/data/real-prompts-dev.jsonl, labelled by the issue's author) and the held-out set
fresh16 (tests/data/real-prompts-fresh16.jsonl, labelled by its gatherers) were labelled
a second time (tests/data/second-labels.jsonl) by two labellers who saw only the texts,
in shuffled order, and the conventions of the dev set's README; never the first labels,
the rules or the classifier. Scored the way ``smista eval`` scores a classifier (an answer
is right when it is the reference's ``intent`` or ``alt``), the second labelling is the
accuracy a careful reader reaches on these prompts: the ceiling label noise leaves, next
to what the shipped pack reads on the same prompts against either labelling.

    python -m benchmarks.agreement            # the default pack
    python -m benchmarks.agreement --rules FILE
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from smista.config.defaults import default_config
from smista.config.load import load_config
from smista.core.classifier import Classifier

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
SECOND = DATA / "second-labels.jsonl"
SETS = {"dev": DATA / "real-prompts-dev.jsonl", "fresh16": DATA / "real-prompts-fresh16.jsonl"}

Row = dict[str, object]


def _jsonl(path: Path) -> list[Row]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _right(answer: object, row: Row) -> bool:
    return answer in (row["intent"], row.get("alt"))


def _pct(part: int, whole: int) -> str:
    return f"{part / whole:6.1%} ({part}/{whole})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", type=Path, help="a rules file instead of the default pack")
    args = parser.parse_args(argv)
    config = load_config(args.rules) if args.rules else default_config()
    classifier = Classifier(config)
    second = {(str(r["set"]), str(r["id"])): r for r in _jsonl(SECOND)}
    for name, path in SETS.items():
        first = _jsonl(path)
        pairs = [(row, second[(name, str(row["id"]))]) for row in first]
        n = len(pairs)
        english = [(a, b) for a, b in pairs if a["lang"] == "en"]
        other = [(a, b) for a, b in pairs if a["lang"] != "en"]
        answers = {str(a["id"]): classifier.classify(str(a["text"])).intent.value for a, _ in pairs}
        print(f"{name} ({n} prompts)")
        same = sum(a["intent"] == b["intent"] for a, b in pairs)
        print(f"  the same intent                          {_pct(same, n)}")
        print(
            "  second labels, scored against the first "
            f"{_pct(sum(_right(b['intent'], a) for a, b in pairs), n)}"
        )
        for label, part in (("English", english), ("non-English", other)):
            right = sum(_right(b["intent"], a) for a, b in part)
            print(f"    {label:<38} {_pct(right, len(part))}")
        print(
            "  first labels, scored against the second "
            f"{_pct(sum(_right(a['intent'], b) for a, b in pairs), n)}"
        )
        print(
            "  the pack, against the first labels      "
            f"{_pct(sum(_right(answers[str(a['id'])], a) for a, _ in pairs), n)}"
        )
        print(
            "  the pack, against the second labels     "
            f"{_pct(sum(_right(answers[str(a['id'])], b) for a, b in pairs), n)}"
        )
        apart = Counter(
            f"{a['intent']}->{b['intent']}" for a, b in pairs if not _right(b["intent"], a)
        )
        print(f"  where they part (first->second): {dict(apart.most_common(6))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
