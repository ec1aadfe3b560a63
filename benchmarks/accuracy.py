"""Accuracy of a rule pack on every labelled set: the figures the README quotes.

A benchmark, not a test: it prints figures and asserts nothing. A prediction
equal to a prompt's ``alt`` counts as correct. Each real-prompt part is scored
per intent and per language:

* the **held-out set**: tests/data/real-prompts-fresh33.jsonl, gathered in stop 49 by
  people who never tuned the pack and never ran it on it, and kept outside the repository,
  unread, until v31 (v29's rules with the text model refitted through fresh32, committed
  before the score and shipped by the rule written first: it read the set at least as well
  as v29) was scored on it once, beside v29, v30, v28, v27, v26, v25.1, v25, v24 and v21.
  It is the figure that estimates accuracy on new prompts;
* the **earlier held-out sets**: tests/data/real-prompts-fresh32.jsonl (v29's second blind
  set, scored once by v29, v30, v28, v27, v26, v25.1, v25, v24 and v21 late in stop 48:
  v30, the refit through fresh31, was not shipped), -fresh31.jsonl (v29's first blind
  set, scored once by v29, v27, v28, v26, v25.1, v25, v24 and v21 in stop 48: v29, v27's
  rules with the text model refitted through fresh30, was chosen and committed before the
  score and shipped by the rule written first), -fresh30.jsonl (v27's third blind
  set, scored once by v27, v28, v26, v25.1, v25, v24 and v21 in stop 47),
  -fresh29.jsonl (v27's second blind
  set, scored once by v27, v26, v25.1, v25, v24 and v21 late in stop 46),
  -fresh28.jsonl (v27's first blind
  set, scored once by v27, v26, v25.1, v25, v24 and v21 in stop 46: v27, v26's rules with
  the text model refitted through fresh27, was chosen and committed before the score),
  -fresh27.jsonl (v26's third blind
  set, scored once by v26, v25.1, v25, v24 and v21 in stop 45), -fresh26.jsonl and
  -fresh25.jsonl (v26's first two, scored once in stop 44), and the ones held out from
  the packs before v26, whose five dropped rules were chosen on every set below, these
  included: tests/data/real-prompts-fresh24.jsonl
  and -fresh23.jsonl (scored once by v25.1, v25, v24 and v21 in stop 43), -fresh22.jsonl
  (scored once by
  v25.1, v25, v24 and v21 in stop 42), -fresh21.jsonl (scored once by
  v21, v24 and v25 in stop 42, then read while v25.1's mention fixes were made),
  -fresh20.jsonl (v25's first blind
  set, scored once by v21, v24 and v25 in stop 41), -fresh19.jsonl (v24's second
  blind set, scored once by v21 and v24 in stop 41, then read while v25's $-mention rule
  was written) and -fresh18.jsonl (v24's first, scored once by v21 and v24 in stop 40);
* the **validation sets**: tests/data/real-prompts-fresh17.jsonl (v21's held-out set, with
  fresh16) and -fresh16.jsonl, which no pack before v26 was tuned or fitted on, but read
  by tools/train_model.py's validation protocol when v24's catch-all was chosen.

  v31's text model is fitted on every set above but the held-out one (fresh16 to fresh32
  included), v29's on every one but fresh31 to fresh33, v27's on every one but fresh28 to
  fresh33: their figures are blind only for the packs that had not seen them;
* the sets the pack was **tuned on**: the dev set (tests/data/real-prompts-dev.jsonl,
  294), the second sets (tests/data/real-prompts-extra-*.jsonl, 600), and the first
  eleven fresh sets (tests/data/real-prompts-fresh.jsonl, 314; -fresh2, 301; -fresh3,
  301; -fresh4, 291; -fresh5, 300; -fresh6, 275; -fresh7, 531; -fresh8, 296; -fresh9,
  311; -fresh10, 145; -fresh11, 267), the held-out sets of packs v4 to v15, each tuned
  on from the next pack after it was scored, and fresh12 (232: v15's and v16's held-out
  set, then read while v17's model threshold was chosen), fresh13 (205: v17's
  held-out set), fresh14 (381: the held-out set of v18 and v19) and fresh15 (412: v20's
  held-out set), fitted on by the text model (fresh14 since v20, fresh15 since v21), not
  tuned on by the rules;
* with ``--v3-parts``, pack v3's protocol: the dev set's held-out third
  (tests/data/real-prompts-split.json) and the second sets' held-out halves
  (tests/data/real-prompts-extra-split.json), which v3 was not tuned on;
* the project's own labelled sets (rules/default.cases.toml, tests/data/heldout*.jsonl).

    python -m benchmarks.accuracy                 # all figures, shipped pack
    python -m benchmarks.accuracy --rules FILE    # another rules file
    python -m benchmarks.accuracy --tuning-only   # never score the held-out set
    python -m benchmarks.accuracy --misses        # what to work on (implies --tuning-only)
    python -m benchmarks.accuracy --v3-parts      # pack v3's held-out parts too
    python -m benchmarks.accuracy --json
    python -m benchmarks.accuracy --as-turns      # fresh33, fresh32 and fresh31 read as turns too

``--as-turns`` reads each held-out prompt also as a host that sends the message list
would hand it over: a turn whose earlier user turns are the prompts before it from the same
source file (the sets keep each file's prompts in file order), so the follow-up rule of
``[classification.turns]`` may give a terse follow-up the intent of the turn it continues.

While tuning a pack, use ``--tuning-only``: the held-out set is measured once,
at the end, and is the figure that estimates accuracy on new prompts. ``--misses``
is a tuning run, so it never scores the held-out set either.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from smista.authoring.evaluate import AnnotatedCase, Evaluation, evaluate_cases, parse_labelled
from smista.config.defaults import default_config
from smista.config.load import load_config
from smista.core.classifier import Classifier
from smista.core.rules import ClassificationConfig

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
REAL = DATA / "real-prompts-dev.jsonl"
FRESH = DATA / "real-prompts-fresh.jsonl"
FRESH2 = DATA / "real-prompts-fresh2.jsonl"
FRESH3 = DATA / "real-prompts-fresh3.jsonl"
FRESH4 = DATA / "real-prompts-fresh4.jsonl"
FRESH5 = DATA / "real-prompts-fresh5.jsonl"
FRESH6 = DATA / "real-prompts-fresh6.jsonl"
FRESH7 = DATA / "real-prompts-fresh7.jsonl"
FRESH8 = DATA / "real-prompts-fresh8.jsonl"
FRESH9 = DATA / "real-prompts-fresh9.jsonl"
FRESH10 = DATA / "real-prompts-fresh10.jsonl"
FRESH11 = DATA / "real-prompts-fresh11.jsonl"
FRESH12 = DATA / "real-prompts-fresh12.jsonl"
FRESH13 = DATA / "real-prompts-fresh13.jsonl"
FRESH14 = DATA / "real-prompts-fresh14.jsonl"
FRESH15 = DATA / "real-prompts-fresh15.jsonl"
HELD_OUT = DATA / "real-prompts-fresh33.jsonl"
FRESH32 = DATA / "real-prompts-fresh32.jsonl"
FRESH31 = DATA / "real-prompts-fresh31.jsonl"
FRESH30 = DATA / "real-prompts-fresh30.jsonl"
FRESH29 = DATA / "real-prompts-fresh29.jsonl"
FRESH28 = DATA / "real-prompts-fresh28.jsonl"
FRESH27 = DATA / "real-prompts-fresh27.jsonl"
FRESH26 = DATA / "real-prompts-fresh26.jsonl"
FRESH25 = DATA / "real-prompts-fresh25.jsonl"
FRESH24 = DATA / "real-prompts-fresh24.jsonl"
FRESH23 = DATA / "real-prompts-fresh23.jsonl"
FRESH22 = DATA / "real-prompts-fresh22.jsonl"
FRESH21 = DATA / "real-prompts-fresh21.jsonl"
FRESH20 = DATA / "real-prompts-fresh20.jsonl"
EARLIER_HELD_OUT = DATA / "real-prompts-fresh19.jsonl"
FRESH18 = DATA / "real-prompts-fresh18.jsonl"
FRESH17 = DATA / "real-prompts-fresh17.jsonl"
FRESH16 = DATA / "real-prompts-fresh16.jsonl"
EARLIER_SETS = (
    ("earlier held out: fresh32 set", FRESH32),  # v29's second blind set, late in stop 48
    ("earlier held out: fresh31 set", FRESH31),  # v29's first blind set, in stop 48
    ("earlier held out: fresh30 set", FRESH30),  # v27's third blind set, in stop 47
    ("earlier held out: fresh29 set", FRESH29),  # v27's second blind set, in stop 46
    ("earlier held out: fresh28 set", FRESH28),  # v27's first blind set, in stop 46
    # v26's blind sets (each scored once by v21, v24, v25, v25.1 and v26); v27's model is
    # fitted on them
    ("earlier held out: fresh27 set", FRESH27),  # v26's third blind set, in stop 45
    ("earlier held out: fresh26 set", FRESH26),  # v26's second blind set, in stop 44
    ("earlier held out: fresh25 set", FRESH25),  # v26's first blind set, in stop 44
    # v25.1's blind sets (each scored once by v21, v24, v25 and v25.1); v26 is tuned on them
    ("earlier held out: fresh24 set", FRESH24),  # in stop 43
    ("earlier held out: fresh23 set", FRESH23),  # in stop 43
    ("earlier held out: fresh22 set", FRESH22),  # in stop 42
    # v25's blind sets (each scored once by v21, v24 and v25: fresh21 in stop 42, fresh20 in 41)
    ("earlier held out: fresh21 set", FRESH21),
    ("earlier held out: fresh20 set", FRESH20),
    # v24's held-out sets (each scored once by v21 and v24), validation sets since
    ("earlier held out: fresh19 set", EARLIER_HELD_OUT),
    ("earlier held out: fresh18 set", FRESH18),
    # v21's held-out sets (fresh16 scored once by v20 and v21, fresh17 by v21 and v22), read by
    # the validation protocol when v24 was chosen
    ("validation: fresh17 set", FRESH17),
    ("validation: fresh16 set", FRESH16),
)
"""The held-out sets before the latest, newest first, as the report names them."""
SPLIT = DATA / "real-prompts-split.json"
EXTRA_SPLIT = DATA / "real-prompts-extra-split.json"
OTHER_SETS = (
    ROOT / "rules" / "default.cases.toml",
    DATA / "heldout.jsonl",
    DATA / "heldout2.jsonl",
    DATA / "heldout3.jsonl",
)

__all__ = [
    "extra_prompt_parts",
    "held_out_prompts",
    "main",
    "real_prompt_parts",
    "second_sets",
]


def _read(path: Path) -> list[AnnotatedCase]:
    return parse_labelled(path.read_text(encoding="utf-8"), str(path))


def real_prompt_parts() -> tuple[list[AnnotatedCase], list[AnnotatedCase]]:
    """The real-prompt cases split into (tuning two-thirds, held-out third)."""
    held = set(json.loads(SPLIT.read_text(encoding="utf-8"))["heldout_ids"])
    lines = REAL.read_text(encoding="utf-8").splitlines()
    ids = [json.loads(line)["id"] for line in lines if line.strip()]
    cases = _read(REAL)
    tuning = [c for c, i in zip(cases, ids, strict=True) if i not in held]
    heldout = [c for c, i in zip(cases, ids, strict=True) if i in held]
    return tuning, heldout


def extra_prompt_parts() -> tuple[list[AnnotatedCase], list[AnnotatedCase]]:
    """The second real-prompt sets (tests/data/real-prompts-extra-*.jsonl, gathered
    after the pack was first tuned) split into (tuning halves, held-out halves)."""
    files = json.loads(EXTRA_SPLIT.read_text(encoding="utf-8"))["files"]
    tuning: list[AnnotatedCase] = []
    heldout: list[AnnotatedCase] = []
    for name, part in sorted(files.items()):
        path = DATA / name
        held = set(part["heldout_ids"])
        lines = path.read_text(encoding="utf-8").splitlines()
        ids = [json.loads(line)["id"] for line in lines if line.strip()]
        for case, i in zip(_read(path), ids, strict=True):
            (heldout if i in held else tuning).append(case)
    return tuning, heldout


def second_sets() -> list[AnnotatedCase]:
    """Every prompt of the second sets (tests/data/real-prompts-extra-*.jsonl)."""
    files = json.loads(EXTRA_SPLIT.read_text(encoding="utf-8"))["files"]
    return [case for name in sorted(files) for case in _read(DATA / name)]


def held_out_prompts() -> list[AnnotatedCase]:
    """The held-out set (tests/data/real-prompts-fresh33.jsonl), never tuned on."""
    return _read(HELD_OUT)


def _pct(correct: int, total: int) -> str:
    return f"{correct / total:6.1%} ({correct}/{total})" if total else "   n/a"


def _summary(name: str, ev: Evaluation) -> list[str]:
    lines = [f"{name:<40} {_pct(ev.correct, ev.total)}"]
    other = ev.non_english
    if other is not None:
        lines.append(f"{'  non-English':<40} {_pct(other.correct, other.total)}")
    return lines


def _breakdown(ev: Evaluation) -> list[str]:
    lines = ["    per intent:   " + "  ".join(
        f"{g.group} {_pct(g.correct, g.total).strip()}" for g in ev.by_intent if g.total
    )]  # fmt: skip
    if ev.by_language:
        lines.append("    per language: " + "  ".join(
            f"{g.group} {g.correct}/{g.total}" for g in ev.by_language
        ))  # fmt: skip
    return lines


def _json(ev: Evaluation) -> dict[str, object]:
    doc = ev.to_json()
    doc.pop("misclassified")
    doc.pop("confusion_matrix")
    doc.pop("labels")
    other = ev.non_english
    if other is not None:
        doc["non_english"] = {"correct": other.correct, "total": other.total}
    return doc


def _as_turns(classifier: Classifier, path: Path) -> tuple[int, int, int]:
    """``(right bare, right as turns, prompts)`` for a labelled JSONL set, each prompt read as
    a turn after the earlier prompts of its source file (at most the turns' history depth)."""
    from smista.core.turnclassify import classify_turn
    from smista.core.turnrules import TurnSettings

    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    depth = (classifier.config.turns or TurnSettings()).history_depth
    earlier: dict[str, list[str]] = {}
    bare = turned = 0
    for row in rows:
        text, gold = str(row["text"]), (row["intent"], row.get("alt"))
        before = earlier.setdefault(str(row["source"]), [])
        messages = [{"role": "user", "content": t} for t in (*before[-depth:], text)]
        bare += classifier.classify(text).intent.value in gold
        turned += (
            classify_turn(classifier, {"messages": messages}).classification.intent.value in gold
        )
        before.append(text)
    return bare, turned, len(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", type=Path, help="rules file (default: the shipped pack)")
    parser.add_argument("--tuning-only", action="store_true", help="never score the held-out set")
    parser.add_argument(
        "--misses",
        action="store_true",
        help="list misses on the tuned sets (implies --tuning-only)",
    )
    parser.add_argument(
        "--v3-parts", action="store_true", help="also score pack v3's held-out parts"
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--as-turns", action="store_true", help="also read fresh33, fresh32 and fresh31 as turns"
    )
    args = parser.parse_args(argv)

    config: ClassificationConfig = (
        default_config() if args.rules is None else load_config(args.rules)
    )
    classifier = Classifier(config)
    dev = _read(REAL)
    second = second_sets()
    fresh = _read(FRESH)  # v4's held-out set, tuned on since v5
    fresh2 = _read(FRESH2)  # v5's, tuned on since v6
    fresh3 = _read(FRESH3)  # v6's, tuned on since v7
    fresh4 = _read(FRESH4)  # v7's, tuned on since v8
    fresh5 = _read(FRESH5)  # scored once by v6, v7 and v8; tuned on since v9
    fresh6 = _read(FRESH6)  # v8's held-out set (scored once by v6, v7, v8); tuned on since v9
    fresh7 = _read(FRESH7)  # v9's held-out set (scored once by v8 and v9); tuned on since v10
    fresh8 = _read(FRESH8)  # v10-v12's held-out set (scored once by v9-v12); tuned on since v13
    fresh9 = _read(FRESH9)  # v12-v13's held-out set (scored once by each); tuned on since v14
    fresh10 = _read(FRESH10)  # v14's held-out set (scored once by v13 and v14); tuned on since v15
    fresh11 = _read(FRESH11)  # v15's held-out set (scored once by v13-v15); tuned on since v16
    fresh12 = _read(FRESH12)  # v16's held-out set (scored once by v15, v16); fitted on by v18
    fresh13 = _read(FRESH13)  # v17's held-out set (scored once by v16, v17); fitted on by v18
    fresh14 = _read(FRESH14)  # v18-v19's held-out set (scored once by v17-v19); fitted on by v20
    fresh15 = _read(FRESH15)  # v20's held-out set (scored once by v19, v20); fitted on by v21
    results: dict[str, Evaluation] = {}
    if not (args.tuning_only or args.misses):
        held = held_out_prompts()
        results["real prompts, held out: fresh33 set"] = evaluate_cases(classifier, held)
        for label, path in EARLIER_SETS:
            results[f"real prompts, {label}"] = evaluate_cases(classifier, _read(path))
    tuned = {
        "dev set": dev,
        "second sets": second,
        "first fresh set": fresh,
        "second fresh set": fresh2,
        "third fresh set": fresh3,
        "fourth fresh set": fresh4,
        "fifth fresh set": fresh5,
        "sixth fresh set": fresh6,
        "seventh fresh set": fresh7,
        "eighth fresh set": fresh8,
        "ninth fresh set": fresh9,
        "tenth fresh set": fresh10,
        "eleventh fresh set": fresh11,
        "twelfth fresh set (the model's only)": fresh12,
        "thirteenth fresh set (the model's only)": fresh13,
        "fourteenth fresh set (the model's only)": fresh14,
        "fifteenth fresh set (the model's only)": fresh15,
    }
    for name, cases in tuned.items():
        results[f"real prompts, tuned on: {name}"] = evaluate_cases(classifier, cases)
    results["real prompts, all tuned on"] = evaluate_cases(
        classifier, [case for cases in tuned.values() for case in cases]
    )
    if args.v3_parts:
        _, heldout = real_prompt_parts()
        _, extra_heldout = extra_prompt_parts()
        results["real prompts, v3's held-out parts"] = evaluate_cases(
            classifier, [*heldout, *extra_heldout]
        )
    for path in OTHER_SETS:
        results[str(path.relative_to(ROOT))] = evaluate_cases(classifier, _read(path))

    turns: dict[str, tuple[int, int, int]] = {}
    if args.as_turns and not (args.tuning_only or args.misses):
        for path in (HELD_OUT, FRESH32, FRESH31):
            turns[path.stem] = _as_turns(classifier, path)
        turns["fresh33, fresh32 and fresh31"] = (
            sum(t[0] for t in turns.values()),
            sum(t[1] for t in turns.values()),
            sum(t[2] for t in turns.values()),
        )
    if args.json:
        doc: dict[str, object] = {k: _json(v) for k, v in results.items()}
        for name, (bare, turned, total) in turns.items():
            doc[f"{name}, read as turns"] = {"correct": turned, "alone": bare, "total": total}
        print(json.dumps(doc, indent=2))
        return 0
    print(f"rules: {args.rules or 'shipped default pack'}")
    for name, (bare, turned, total) in turns.items():
        print(
            f"{name + ', read as turns':<40} {_pct(turned, total)}"
            f"  (alone: {_pct(bare, total).strip()})"
        )
    for name, ev in results.items():
        print()
        print("\n".join(_summary(name, ev)))
        if name.startswith("real prompts"):
            print("\n".join(_breakdown(ev)))
    if args.misses:
        print("\nmisses on the tuned sets:")
        tuned_misses = [
            miss for name in tuned for miss in results[f"real prompts, tuned on: {name}"].misses
        ]
        for miss in tuned_misses:
            text = miss.text.replace("\n", " ")[:150]
            print(f"  {miss.where}: expected {miss.expected}, got {miss.got}: {text}")
            print(f"      {miss.reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
