"""``smista eval DATA [--rules FILE] [--html FILE]``: score rules on labelled data.

I/O edge. Reads labelled prompts (JSONL, one ``{"text": ..., "intent": ...}``
object a line, optionally with ``id``, ``alt``, ``lang`` and ``source`` as in
the real-prompt set, or a TOML case file), classifies them with the rules, and
prints accuracy, per-intent precision/recall/F1, accuracy per intent and per
language, the 95 % interval of the accuracy resampling whole sources (when the
prompts name at least two), the confusion matrix and the misclassified prompts;
``--html`` also writes a self-contained report.
Exits 0 (or 1 when ``--min-accuracy`` is not reached); 2 when the data is
unreadable or holds no labelled prompt.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

from smista.authoring.evaluate import AnnotatedCase, Evaluation, GroupScore, parse_labelled
from smista.authoring.golden import read_case_file
from smista.cli._common import ArgumentParser, UsageError

__all__ = ["render_groups", "run"]


def _parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog="smista eval",
        description="Accuracy, per-intent precision/recall/F1 and confusion matrix.",
    )
    parser.add_argument("data", metavar="DATA", help="labelled prompts (.jsonl or .toml)")
    parser.add_argument("--rules", metavar="FILE", help="rules file (default: the shipped pack)")
    parser.add_argument("--html", metavar="FILE", help="also write a self-contained HTML report")
    parser.add_argument("--json", action="store_true", help="print the metrics as JSON")
    parser.add_argument(
        "--max-misses",
        metavar="N",
        type=int,
        default=None,
        help="list at most N misclassified prompts",
    )
    parser.add_argument(
        "--min-accuracy",
        metavar="RATE",
        type=float,
        default=None,
        help="exit 1 when accuracy is below RATE (0..1)",
    )
    return parser


def render_groups(evaluation: Evaluation) -> str:
    """Accuracy per intent, per language and over non-English prompts, and the interval
    resampling sources, as text."""
    lines = [f"{'intent':<10} {'accuracy':>9} {'correct':>8} {'total':>6}"]
    for group in evaluation.by_intent:
        if group.total:
            lines.append(_group_line(group))
    if evaluation.by_language:
        lines += ["", f"{'language':<10} {'accuracy':>9} {'correct':>8} {'total':>6}"]
        lines += [_group_line(group) for group in evaluation.by_language]
        other = evaluation.non_english
        if other is not None:
            lines.append(_group_line(other))
    interval = evaluation.interval
    if interval is not None:
        low, high = interval
        lines += [
            "",
            f"95% interval, resampling the {len(evaluation.by_source)} sources"
            f" (prompts of one source go together): {low:.1%} to {high:.1%}",
        ]
    return "\n".join(lines)


def _group_line(group: GroupScore) -> str:
    return f"{group.group:<10} {group.accuracy:>9.1%} {group.correct:>8} {group.total:>6}"


def _read_cases(path: str) -> list[AnnotatedCase]:
    return parse_labelled(read_case_file(path), path)


def run(argv: Sequence[str]) -> int:
    from smista.authoring.evaluate import evaluate_cases
    from smista.authoring.report import render_html, render_text
    from smista.config.defaults import default_config
    from smista.config.load import load_config
    from smista.core.classifier import Classifier

    args = _parser().parse_args(argv[1:])
    if args.min_accuracy is not None and not 0.0 <= args.min_accuracy <= 1.0:
        raise UsageError(f"--min-accuracy must be between 0 and 1, got {args.min_accuracy}")
    if args.max_misses is not None and args.max_misses < 0:
        raise UsageError(f"--max-misses must be 0 or more, got {args.max_misses}")
    if args.max_misses is not None and args.json:
        raise UsageError(
            "--max-misses limits the text report; --json lists every misclassified prompt"
        )
    config = default_config() if args.rules is None else load_config(args.rules)
    cases = _read_cases(args.data)
    if not cases:  # a mistyped or truncated file must not pass a quality gate
        raise UsageError(f"{args.data}: no labelled prompts (an empty file scores nothing)")
    evaluation = evaluate_cases(Classifier(config), cases)
    if args.html:
        import hashlib
        from datetime import UTC, datetime

        from smista.config.rulecache import default_pack_path

        rules_path = Path(args.rules) if args.rules else default_pack_path()
        rules_name = args.rules or f"{rules_path} (shipped default pack)"
        page = render_html(
            evaluation,
            source=f"data: {args.data}",
            rules=rules_name,
            rules_sha256=hashlib.sha256(rules_path.read_bytes()).hexdigest(),
            generated=datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC"),
        )
        try:
            Path(args.html).write_text(page, encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"cannot write {args.html}: {exc.strerror or exc}") from None
    if args.json:
        print(json.dumps(evaluation.to_json(), ensure_ascii=False, indent=2))
    else:
        report = render_text(evaluation, max_misses=args.max_misses)
        head, sep, tail = report.partition("\n\nconfusion matrix")
        groups = "\n\n" + render_groups(evaluation)
        sys.stdout.write(head + groups + sep + tail + "\n")
        if args.html:
            sys.stdout.write(f"\nHTML report written to {args.html}\n")
    if args.min_accuracy is not None and evaluation.accuracy < args.min_accuracy:
        return 1
    return 0
