"""``smista test RULES --cases CASES``: run golden cases against a rule file.

I/O edge. Prints every failing case with what differed and the full decision
trace (the same rendering as ``smista explain``), then a pass count. Exits 0
when every case passes (or, with ``--min-accuracy``, enough of them), 1
otherwise, 2 on unreadable input or a case file without cases.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence

from smista.cli._common import ArgumentParser, UsageError

__all__ = ["run"]


def _parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog="smista test",
        description=(
            "Run golden cases (TOML [[cases]] or JSONL: text, intent, optional "
            "command, contexts, matched_rule, confidence, name, id) and explain "
            "every failure."
        ),
    )
    parser.add_argument("rules", metavar="RULES", help="rules file ('default': the shipped pack)")
    parser.add_argument(
        "--cases",
        metavar="CASES",
        action="append",
        required=True,
        help="case file, .toml or .jsonl (repeatable)",
    )
    parser.add_argument(
        "--min-accuracy",
        metavar="RATE",
        type=float,
        default=None,
        help="pass when this share of cases passes (0..1; default: all must)",
    )
    parser.add_argument("--json", action="store_true", help="print results as JSON")
    parser.add_argument("-q", "--quiet", action="store_true", help="no decision traces")
    return parser


def run(argv: Sequence[str]) -> int:
    from smista.authoring.golden import load_cases, run_cases
    from smista.cli._render import render_explanation
    from smista.config.defaults import default_config
    from smista.config.load import load_config
    from smista.core.classifier import Classifier

    args = _parser().parse_args(argv[1:])
    if args.min_accuracy is not None and not 0.0 <= args.min_accuracy <= 1.0:
        raise UsageError(f"--min-accuracy must be between 0 and 1, got {args.min_accuracy}")
    config = default_config() if args.rules == "default" else load_config(args.rules)
    classifier = Classifier(config)
    outcomes = []
    for path in args.cases:
        cases = load_cases(path)
        if not cases:  # a mistyped or truncated file must not pass a quality gate
            raise UsageError(f"{path}: no cases (an empty case file tests nothing)")
        outcomes += [(path, o) for o in run_cases(classifier, cases)]
    failures = [(path, o) for path, o in outcomes if not o.passed]
    total = len(outcomes)
    passed = total - len(failures)
    rate = passed / total if total else 1.0
    ok = not failures if args.min_accuracy is None else rate >= args.min_accuracy
    if args.json:
        doc = {
            "passed": len(outcomes) - len(failures),
            "failed": len(failures),
            "total": total,
            "accuracy": rate,
            "ok": ok,
            "failures": [
                {
                    "file": path,
                    "case": o.where,
                    "text": o.case.text,
                    "problems": list(o.problems),
                    "result": o.result.to_wire(),
                }
                for path, o in failures
            ],
        }
        print(json.dumps(doc, ensure_ascii=False, indent=2))
        return 0 if ok else 1
    out = sys.stdout
    for path, outcome in failures:
        out.write(f"FAIL {path}: {outcome.where}: {outcome.case.text!r}\n")
        for problem in outcome.problems:
            out.write(f"  {problem}\n")
        if not args.quiet:
            explanation = classifier.explain(
                outcome.case.text,
                command=outcome.case.command,
                contexts=outcome.case.contexts,
            )
            trace = render_explanation(explanation)
            out.write("".join(f"    {line}\n" for line in trace.splitlines()))
        out.write("\n")
    out.write(f"{passed}/{total} cases passed ({rate:.1%}); {len(failures)} failed\n")
    if args.min_accuracy is not None:
        verdict = "ok" if ok else "FAILED"
        out.write(f"minimum accuracy {args.min_accuracy:.1%}: {verdict}\n")
    return 0 if ok else 1
