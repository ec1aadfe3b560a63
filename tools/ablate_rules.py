"""Which rules earn their place: take each rule out in turn and count what changes.

``python tools/ablate_rules.py`` reads the labelled real-prompt sets of tests/data that
tools/train_model.py reads (its ``ORDER``: never the held-out set of the day; ``--through
SET``: the sets up to that one in gathering order only) and the project's
written cases (rules/default.cases.toml, tests/data/heldout*.jsonl), and for each rule of
the pack (``--rules FILE``; default the shipped one) prints how many answers taking it out
gains or loses on three groups: the ``recent`` sets (``--recent``, default fresh16 up to
``--through``), the other real sets, and the written cases. The first matching rule wins,
so only the prompts a rule decided can change when it goes: each trial reads those again.

``--greedy`` repeats: the removal that gains most on the real prompts goes, if it gains at
least ``--min-gain`` (default 4), loses nothing net on the recent sets and at most
``--max-written-loss`` written cases (default 1), and the search runs again on what is left.
This is how pack v26 was chosen (docs/rules.md, "v26"); from v25.1's rules, through
fresh24, it removes the rules v26 dropped, in the same order and with the same gains:

    git show 275a947:rules/default.toml > /tmp/v25.1/default.toml
    git show 275a947:rules/default.model.json > /tmp/v25.1/default.model.json
    python tools/ablate_rules.py --rules /tmp/v25.1/default.toml --through fresh24 --greedy

A search like this tunes the pack on every set it reads: a removal's gain is a tuning
figure, and only a set gathered after it says what it is worth on new prompts (v26's five
removals gained 38 answers here and four over fresh25 to fresh27). Rule numbers are the
file order of the rules file given (0 first); after a removal, later rules keep the numbers
of that file.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from smista.authoring.evaluate import parse_labelled  # noqa: E402
from smista.authoring.golden import load_cases  # noqa: E402
from smista.config.defaults import default_config  # noqa: E402
from smista.config.load import load_config  # noqa: E402
from smista.core.classifier import Classifier  # noqa: E402
from smista.core.rules import ClassificationConfig  # noqa: E402

sys.path.insert(0, str(ROOT / "tools"))
# The sets in the order they were gathered, the held-out set of the day never among them.
from train_model import ORDER  # noqa: E402

DATA = ROOT / "tests" / "data"
WRITTEN = (
    ROOT / "rules" / "default.cases.toml",
    DATA / "heldout.jsonl",
    DATA / "heldout2.jsonl",
    DATA / "heldout3.jsonl",
)


class Prompt(NamedTuple):
    group: str  # "recent", "older" or "written"
    text: str
    right: frozenset[str]  # the intent, and its alt


def prompts(through: str | None, recent_from: str) -> list[Prompt]:
    """The labelled prompts, each with its group."""
    names = list(ORDER)
    if through is not None:
        names = names[: names.index(through) + 1]
    start = names.index(recent_from) if recent_from in names else len(names)
    out: list[Prompt] = []
    for i, name in enumerate(names):
        path = DATA / f"real-prompts-{name}.jsonl"
        group = "recent" if i >= start else "older"
        for item in parse_labelled(path.read_text(encoding="utf-8"), str(path)):
            right = {item.case.intent.value} | ({item.alt.value} if item.alt else set())
            out.append(Prompt(group, item.case.text, frozenset(right)))
    for path in WRITTEN:
        for labelled in load_cases(path):
            case = labelled.case
            if case.command is None and not case.contexts:
                out.append(Prompt("written", case.text, frozenset({case.intent.value})))
    return out


def _without(config: ClassificationConfig, gone: set[int]) -> ClassificationConfig:
    rules = tuple(r for i, r in enumerate(config.rules) if i not in gone)
    return config.model_copy(update={"rules": rules})


def trials(
    config: ClassificationConfig, gone: set[int], data: Sequence[Prompt]
) -> tuple[Counter[str], dict[int, Counter[str]]]:
    """The right answers per group with the rules in ``gone`` taken out, and what taking out
    each further rule that decides some prompt changes, per group."""
    kept = [i for i in range(len(config.rules)) if i not in gone]
    classifier = Classifier(_without(config, gone))
    score: Counter[str] = Counter()
    decided: dict[int, list[tuple[Prompt, bool]]] = {}
    for prompt in data:
        result = classifier.classify(prompt.text)
        right = result.intent.value in prompt.right
        score[prompt.group] += right
        if result.matched_rule is not None:
            decided.setdefault(kept[result.matched_rule], []).append((prompt, right))
    changes: dict[int, Counter[str]] = {}
    for rule, items in decided.items():
        without = Classifier(_without(config, gone | {rule}))
        delta: Counter[str] = Counter({"recent": 0, "older": 0, "written": 0})
        for prompt, was in items:
            delta[prompt.group] += (
                without.classify(prompt.text).intent.value in prompt.right
            ) - was
        changes[rule] = delta
    return score, changes


def _line(rule: int, delta: Counter[str]) -> str:
    real = delta["recent"] + delta["older"]
    return (
        f"rule {rule:>3}: real {real:+d} (recent {delta['recent']:+d}, older"
        f" {delta['older']:+d}), written {delta['written']:+d}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", type=Path, help="rules file (default: the shipped pack)")
    parser.add_argument("--through", help="read the real sets up to this one (e.g. fresh24)")
    parser.add_argument("--recent", default="fresh16", help="the first set of the recent group")
    parser.add_argument("--greedy", action="store_true", help="remove the best rule, repeat")
    parser.add_argument("--min-gain", type=int, default=4, help="--greedy: least real gain")
    parser.add_argument(
        "--max-written-loss", type=int, default=1, help="--greedy: most written cases lost"
    )
    parser.add_argument("--top", type=int, default=20, help="removals listed (without --greedy)")
    args = parser.parse_args(argv)
    config = default_config() if args.rules is None else load_config(args.rules)
    data = prompts(args.through, args.recent)
    sizes = Counter(p.group for p in data)
    print(f"prompts: recent {sizes['recent']}, older {sizes['older']}, written {sizes['written']}")
    gone: set[int] = set()
    while True:
        score, changes = trials(config, gone, data)
        print(
            f"right: recent {score['recent']}, older {score['older']},"
            f" written {score['written']}" + (f" (without {sorted(gone)})" if gone else "")
        )
        ranked = sorted(
            changes.items(),
            key=lambda kv: (-(kv[1]["recent"] + kv[1]["older"]), -kv[1]["recent"], kv[0]),
        )
        if not args.greedy:
            for rule, delta in ranked[: args.top]:
                print("  " + _line(rule, delta))
            return 0
        eligible = [
            (rule, d)
            for rule, d in ranked
            if d["recent"] + d["older"] >= args.min_gain
            and d["recent"] >= 0
            and d["written"] >= -args.max_written_loss
        ]
        if not eligible:
            print("no removal left that gains enough")
            return 0
        rule, delta = eligible[0]
        print("remove " + _line(rule, delta))
        gone.add(rule)


if __name__ == "__main__":
    raise SystemExit(main())
