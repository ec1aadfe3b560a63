"""Leave-sources-out cross-validation of a rule pack on the real-prompt tuning two-thirds.

A hand-tuned pack has no training step to repeat, so the folds ablate instead:
for a fold (a set of whole sources), every rule entry (a keyword, phrase,
stem, substring, leading word or command) whose only support is prompts of
that fold is removed, and the fold is scored with what is left. An entry's
support is the correctly classified tuning prompts it matched in the rule that
won them. An entry that no tuning prompt supports is kept (it came from
linguistic knowledge, not from this data), and so is one supported elsewhere.
The mean fold accuracy estimates how the pack does on sources nobody tuned it
on; the gap to the plain tuning accuracy measures how much of the pack is fit
to single sources.

By default never reads the held-out third: only the tuning ids of
tests/data/real-prompts-split.json are used. ``--all`` runs the same folds over
every labelled real prompt (the dev set and both second sets, 894 prompts,
folded by source): the estimate for a pack tuned on all of them (pack v4).
Question markers and options are global data and are not ablated (a
limitation: the estimate is optimistic for them).

    python tools/cv_sources.py                 # shipped pack, 5 folds
    python tools/cv_sources.py --rules FILE --folds 8 --entries
    git show adcc67e:rules/default.toml > /tmp/v1.toml   # pack v1, before any real prompt
    python tools/cv_sources.py --known /tmp/v1.toml
    python tools/cv_sources.py --all --known /tmp/v1.toml   # all 894 real prompts
    python tools/cv_sources.py --with-fresh --known /tmp/v1.toml  # all 4,226 (from v16)

``--known FILE`` exempts from ablation every word that FILE's rules already
give the same intent (pack v1 was written before anyone saw a real prompt, so
its words are not fit to any source).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.accuracy import REAL, real_prompt_parts  # noqa: E402
from smista.authoring.evaluate import AnnotatedCase, parse_labelled  # noqa: E402
from smista.config.defaults import default_config  # noqa: E402
from smista.config.load import load_config  # noqa: E402
from smista.core.classifier import Classifier  # noqa: E402
from smista.core.conditions.registry import KINDS  # noqa: E402
from smista.core.intent import TaskIntent  # noqa: E402
from smista.core.rules import ClassificationConfig, ClassificationRule  # noqa: E402

EVERY = (
    REAL,
    REAL.with_name("real-prompts-extra-en.jsonl"),
    REAL.with_name("real-prompts-extra-intl.jsonl"),
)
# The fresh sets, each spent as one pack's measurement: the first (v4's) is tuned on
# since v5, the second (v5's) since v6, the third (v6's) since v7, the fourth (v7's) since v8,
# the fifth and sixth (v7's and v8's) since v9, the seventh (v9's) since v10, the eighth
# (v11's and v12's) since v13, the ninth (v12's and v13's) since v14, the tenth (v14's)
# since v15, the eleventh (v15's) from v16 on.
WITH_FRESH = (
    *EVERY,
    REAL.with_name("real-prompts-fresh.jsonl"),
    REAL.with_name("real-prompts-fresh2.jsonl"),
    REAL.with_name("real-prompts-fresh3.jsonl"),
    REAL.with_name("real-prompts-fresh4.jsonl"),
    REAL.with_name("real-prompts-fresh5.jsonl"),
    REAL.with_name("real-prompts-fresh6.jsonl"),
    REAL.with_name("real-prompts-fresh7.jsonl"),
    REAL.with_name("real-prompts-fresh8.jsonl"),
    REAL.with_name("real-prompts-fresh9.jsonl"),
    REAL.with_name("real-prompts-fresh10.jsonl"),
    REAL.with_name("real-prompts-fresh11.jsonl"),
)
# The kinds whose entries each decide a rule on their own (a veto or a context does not).
FIELDS = tuple(
    kind.key
    for kind in KINDS
    if kind.default == () and kind.key not in ("exclude", "requires_any_context")
)
Entry = tuple[int, str, str]  # (rule index, field, entry)


def _case_id(case: AnnotatedCase) -> str:
    return case.where.rsplit("(", 1)[1].rstrip(")")


def _sources(ids: set[str], paths: tuple[Path, ...] = (REAL,)) -> dict[str, str]:
    out: dict[str, str] = {}
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                doc = json.loads(line)
                if doc["id"] in ids:
                    out[doc["id"]] = doc["source"]
    return out


def _every_case(paths: tuple[Path, ...] = EVERY) -> list[AnnotatedCase]:
    """Every labelled real prompt in ``paths`` (default: the dev set and both second sets)."""
    cases: list[AnnotatedCase] = []
    for path in paths:
        cases.extend(parse_labelled(path.read_text(encoding="utf-8"), str(path)))
    return cases


def _folds(source_of: dict[str, str], k: int) -> list[set[str]]:
    """Whole sources into ``k`` folds of about equal size (largest first, deterministic)."""
    sizes = Counter(source_of.values())
    folds: list[set[str]] = [set() for _ in range(k)]
    load = [0] * k
    for source, size in sorted(sizes.items(), key=lambda kv: (-kv[1], kv[0])):
        target = min(range(k), key=lambda i: (load[i], i))
        folds[target].add(source)
        load[target] += size
    return folds


def _right(result_intent: TaskIntent, case: AnnotatedCase) -> bool:
    return result_intent is case.case.intent or result_intent is case.alt


def _classify(classifier: Classifier, case: AnnotatedCase):  # type: ignore[no-untyped-def]
    c = case.case
    return classifier.classify(c.text, command=c.command, contexts=c.contexts)


def _support(config: ClassificationConfig, cases: list[AnnotatedCase]) -> dict[Entry, set[str]]:
    """Each entry's support: the correct cases it matched in their winning rule."""
    full = Classifier(config)
    won: dict[int, list[AnnotatedCase]] = defaultdict(list)
    for case in cases:
        result = _classify(full, case)
        if result.matched_rule is not None and _right(result.intent, case):
            won[result.matched_rule].append(case)
    support: dict[Entry, set[str]] = defaultdict(set)
    for index, rule_cases in won.items():
        rule = config.rules[index]
        other = next(i for i in TaskIntent if i is not rule.intent)
        for field in FIELDS:
            for entry in getattr(rule, field):
                probe_rule = rule.model_copy(update={field: (entry,)})
                probe = Classifier(
                    config.model_copy(update={"rules": (probe_rule,), "default_intent": other})
                )
                for case in rule_cases:
                    if _classify(probe, case).matched_rule == 0:
                        support[(index, field, entry)].add(_case_id(case))
    return support


def _without(config: ClassificationConfig, drop: set[Entry]) -> ClassificationConfig:
    rules: list[ClassificationRule] = []
    for index, rule in enumerate(config.rules):
        update: dict[str, tuple[str, ...]] = {}
        emptied = False
        for field in FIELDS:
            values: tuple[str, ...] = getattr(rule, field)
            kept = tuple(v for v in values if (index, field, v) not in drop)
            if len(kept) != len(values):
                update[field] = kept
                emptied = emptied or not kept
        if not emptied:
            rules.append(rule.model_copy(update=update) if update else rule)
    return config.model_copy(update={"rules": tuple(rules)})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", type=Path, help="rules file (default: the shipped pack)")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--known", type=Path, help="rules whose words are never ablated")
    parser.add_argument("--misses", action="store_true", help="list the folds' misses")
    parser.add_argument("--entries", action="store_true", help="list entries fit to one fold")
    parser.add_argument(
        "--all",
        action="store_true",
        help="every labelled real prompt (894), not the dev tuning part",
    )
    parser.add_argument(
        "--with-fresh",
        action="store_true",
        help="the eleven spent fresh sets too (all 4,226 prompts: what v16 is tuned on)",
    )
    args = parser.parse_args(argv)
    config = default_config() if args.rules is None else load_config(args.rules)
    if args.all or args.with_fresh:
        paths = WITH_FRESH if args.with_fresh else EVERY
        tuning = _every_case(paths)
        source_of = _sources({_case_id(c) for c in tuning}, paths)
    else:
        tuning, _ = real_prompt_parts()
        source_of = _sources({_case_id(c) for c in tuning})
    support = _support(config, tuning)
    if args.known is not None:
        known = {
            (rule.intent, word.lower())
            for rule in load_config(args.known).rules
            for field in FIELDS
            for word in getattr(rule, field)
        }
        support = {
            e: s
            for e, s in support.items()
            if (config.rules[e[0]].intent, e[2].lower()) not in known
        }
    full = Classifier(config)
    plain = sum(_right(_classify(full, c).intent, c) for c in tuning)
    print(f"tuning accuracy (no ablation): {plain / len(tuning):.1%} ({plain}/{len(tuning)})")
    scores: list[float] = []
    pooled = [0, 0]
    non_en = [0, 0]
    for number, fold_sources in enumerate(_folds(source_of, args.folds)):
        ids = {i for i, s in source_of.items() if s in fold_sources}
        drop = {e for e, sup in support.items() if sup and sup <= ids}
        classifier = Classifier(_without(config, drop))
        fold = [c for c in tuning if _case_id(c) in ids]
        results = [_classify(classifier, c) for c in fold]
        right = [_right(r.intent, c) for r, c in zip(results, fold, strict=True)]
        for case, ok in zip(fold, right, strict=True):
            if case.lang not in (None, "en"):
                non_en[0] += ok
                non_en[1] += 1
        scores.append(sum(right) / len(fold))
        pooled[0] += sum(right)
        pooled[1] += len(fold)
        print(
            f"fold {number}: {sum(right)}/{len(fold)} = {scores[-1]:.1%}"
            f"  ({len(fold_sources)} sources, {len(drop)} entries ablated)"
        )
        if args.misses:
            for case, result, ok in zip(fold, results, right, strict=True):
                if not ok:
                    text = case.case.text.replace("\n", " ")[:110]
                    got = f"{case.case.intent.value}->{result.intent.value}"
                    print(f"    miss {case.lang} {got}: {text}")
        if args.entries:
            for index, field, entry in sorted(drop):
                print(f"    rule {index} {field} {entry!r}")
    print(f"mean fold accuracy: {sum(scores) / len(scores):.1%}")
    print(f"pooled: {pooled[0]}/{pooled[1]} = {pooled[0] / pooled[1]:.1%}")
    if non_en[1]:
        print(f"non-English pooled: {non_en[0]}/{non_en[1]} = {non_en[0] / non_en[1]:.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
