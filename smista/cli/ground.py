"""``smista ground``: score a tool call's parameters before dispatching it.

I/O edge (argv, stdin, stdout). Prints the grounding report of
:func:`smista.core.grounding.evaluate`. Exit status: 0 when the report was
printed (whatever the score), 1 with ``--fail-on-abstain`` when the score is
below the threshold, 2 for usage errors (bad JSON, not an object).
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Sequence
from typing import Any

from smista.cli._common import ArgumentParser, UsageError, read_text_arg

__all__ = ["run"]


def _parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog="smista ground",
        description=(
            "Score tool-call parameters against their required keys: missing keys and "
            "placeholder-like values (TODO, <your value>, example.com, changeme ...) "
            "lower the score; below the threshold the caller should abstain and ask."
        ),
        epilog=(
            "exit status: 0 report printed; 1 score below the threshold and "
            "--fail-on-abstain given; 2 usage error"
        ),
    )
    parser.add_argument(
        "params", metavar="PARAMS_JSON", help="the parameters as a JSON object ('-' reads stdin)"
    )
    parser.add_argument(
        "--required",
        metavar="KEYS",
        action="append",
        required=True,
        help="comma-separated required keys (repeatable; '' for none)",
    )
    parser.add_argument(
        "--threshold",
        metavar="T",
        type=float,
        default=None,
        help="abstain below T (<= 0 means 0.5, above 1 means 1; default 0.5)",
    )
    parser.add_argument(
        "--fail-on-abstain", action="store_true", help="exit 1 when the call should abstain"
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    return parser


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _params(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as exc:
        raise UsageError(f"PARAMS_JSON is not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        kind = {list: "an array", str: "a string", bool: "a boolean"}.get(type(value), "a number")
        if value is None:
            kind = "null"
        raise UsageError(f"PARAMS_JSON must be a JSON object, got {kind}")
    return value


def required_keys(values: Sequence[str]) -> list[str]:
    """``["a,b", " c "]`` -> ``["a", "b", "c"]`` (blank items dropped, order and repeats kept)."""
    return [key.strip() for value in values for key in value.split(",") if key.strip()]


def run(argv: Sequence[str]) -> int:
    from smista.core.abstain import clamp_threshold
    from smista.core.grounding import ABSTAIN_THRESHOLD, evaluate, should_abstain_at

    args = _parser().parse_args(argv[1:])
    if args.threshold is not None and math.isnan(args.threshold):
        raise UsageError("--threshold must be a number, got 'nan'")
    params = _params(read_text_arg(args.params))
    report = evaluate(params, required_keys(args.required))
    if args.threshold is None:
        threshold = ABSTAIN_THRESHOLD
        abstain = report.should_abstain
    else:
        threshold = clamp_threshold(args.threshold)
        abstain = should_abstain_at(report.score, args.threshold)
    out = sys.stdout
    if args.json:
        data = {**report.as_dict(), "abstain": abstain, "threshold": threshold}
        out.write(json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n")
    else:
        out.write(f"score:   {report.score:.3f}\n")
        out.write(f"abstain: {'yes' if abstain else 'no'} (threshold {threshold:g})\n")
        out.write(f"missing: {', '.join(report.missing_keys) or '-'}\n")
        out.write(f"weak:    {', '.join(report.weak_keys) or '-'}\n")
        out.write(f"reason:  {report.reason or '-'}\n")
    return 1 if abstain and args.fail_on_abstain else 0
