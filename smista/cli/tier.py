"""``smista tier``: choose a model tier for a delegated sub-agent task.

I/O edge (argv, stdin, stdout, files, and the network for an ``llm``
classifier). Prints the tier, model, reason and outcome of one routing
decision. A config file that does not load is a config error (one line,
exit 2) like everywhere else in smista; a host hook that wants a decision
whatever happens passes ``--fail-open``, which prints the ``router_disabled``
decision with the error on stderr instead. Exit status: 0 when a decision was
printed, whatever its outcome; 2 for usage and config errors.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence

from smista.cli._common import ArgumentParser, UsageError, context_kind, read_text_arg

__all__ = ["run"]


def _parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog="smista tier",
        description=(
            "Choose the model capability tier a delegated task needs and print the "
            "tier, its model, the reason and the routing outcome."
        ),
        epilog=(
            "exit status: 0 decision printed (any outcome); 2 usage or config error "
            "(with --fail-open a config error prints a router_disabled decision)"
        ),
    )
    parser.add_argument("task", metavar="TASK", help="the delegated task ('-' reads stdin)")
    parser.add_argument(
        "--config",
        metavar="FILE",
        help="config file; without a [tiers] table (or without --config) the shipped pack is used",
    )
    parser.add_argument(
        "--solution-space", metavar="TEXT", help="how open-ended the work is ('-' reads stdin)"
    )
    parser.add_argument(
        "--role", metavar="ROLE", help="the model role the host resolved (task, default, ...)"
    )
    parser.add_argument(
        "--model", metavar="MODEL", help="an explicit model selector (@role or a concrete model)"
    )
    parser.add_argument(
        "--context",
        metavar="KIND",
        action="append",
        default=[],
        type=context_kind,
        help="an available context kind for tier rules (repeatable)",
    )
    parser.add_argument("--json", action="store_true", help="print the full decision as JSON")
    parser.add_argument(
        "--fail-open",
        action="store_true",
        help="on a config error, warn and print the router_disabled decision (exit 0)",
    )
    return parser


def run(argv: Sequence[str]) -> int:
    from smista.tiers.loader import router_from_file
    from smista.tiers.request import TierRequest

    args = _parser().parse_args(argv[1:])
    if args.task == "-" and args.solution_space == "-":
        raise UsageError("only one of TASK and --solution-space can read stdin")
    task = read_text_arg(args.task)
    space = read_text_arg(args.solution_space) if args.solution_space is not None else None
    router = router_from_file(args.config)
    if router.error is not None:
        if not args.fail_open:
            raise router.error
        print(f"smista tier: warning: tier routing disabled: {router.error}", file=sys.stderr)
    decision = router.route_sync(
        TierRequest(
            task=task,
            solution_space=space,
            role=args.role,
            model=args.model,
            contexts=frozenset(args.context),
        )
    )
    out = sys.stdout
    if args.json:
        out.write(json.dumps(decision.as_dict(), ensure_ascii=False, separators=(",", ":")))
        out.write("\n")
        return 0
    out.write(f"tier:    {decision.selected_tier or '-'}\n")
    out.write(f"model:   {decision.model or '(unchanged)'}\n")
    out.write(f"reason:  {decision.reason}\n")
    out.write(f"outcome: {decision.outcome.value}\n")
    out.write(f"latency: {decision.latency_ms:.1f} ms\n")
    return 0
