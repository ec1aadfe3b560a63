"""``smista preview``: classification, decision outcome and routing for one prompt.

I/O edge: reads the config file, the optional history file and stdin, reads the
decision provider's API key from the environment (through the provider
builder), calls the decision model when ``[decision] enabled = true``, and
prints. The decision stage fails open: when it cannot answer, the preview
says why and routes on the deterministic rules alone.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from smista.cli._common import ArgumentParser, UsageError, add_request_options
from smista.cli._turns import add_messages_option, text_or_messages
from smista.config._files import CASES_LIMIT, read_bounded

__all__ = ["run"]


def _parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog="smista preview",
        description=(
            "Show what smista would decide for a prompt: its intent, the decision "
            "model's complexity signal (or why it is unavailable), the routed model "
            "and, with [decision.switch], whether the active chat model would switch."
        ),
    )
    parser.add_argument("text", metavar="TEXT", nargs="?", help="the prompt ('-' reads stdin)")
    parser.add_argument("--config", metavar="FILE", required=True, help="smista config (TOML)")
    add_request_options(parser)
    add_messages_option(parser)
    parser.add_argument(
        "--path",
        metavar="P",
        action="append",
        default=[],
        help="a file the request references (repeatable); feeds routing path globs",
    )
    parser.add_argument("--active-model", metavar="M", help="the host's current chat model")
    parser.add_argument(
        "--model", metavar="M", help="explicit model override (provider/model); bypasses rules"
    )
    parser.add_argument(
        "--history",
        metavar="FILE",
        help="earlier messages: a JSON list of {role, content} (user/assistant kept)",
    )
    parser.add_argument("--cwd", metavar="DIR", help="working directory sent to the decision model")
    parser.add_argument("--branch", metavar="NAME", help="git branch (also a context kind)")
    parser.add_argument("--no-decision", action="store_true", help="do not call the decision model")
    parser.add_argument("--json", action="store_true", help="print JSON")
    return parser


def read_history(path: str) -> list[dict[str, Any]]:
    """The records of a history file, checked to be ``{role, content}`` strings."""
    try:
        raw = read_bounded(path, CASES_LIMIT)
    except OSError as exc:
        raise UsageError(f"history file {path}: {exc.strerror or exc}") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise UsageError(f"history file {path}: not valid JSON ({exc})") from None
    if not isinstance(data, list):
        raise UsageError(f"history file {path}: expected a JSON list of {{role, content}}")
    for i, item in enumerate(data):
        if (
            not isinstance(item, dict)
            or not isinstance(item.get("role"), str)
            or not isinstance(item.get("content"), str)
        ):
            raise UsageError(
                f"history file {path}: item {i} is not an object with string 'role' and 'content'"
            )
    return data


def run(argv: Sequence[str]) -> int:
    args = _parser().parse_args(argv[1:])
    given, payload = text_or_messages(args.text, args.messages)

    from smista.config.settings import load_settings
    from smista.core.intent import TaskIntent
    from smista.core.workspace import Workspace
    from smista.decision.preview import build_preview, conversation_for
    from smista.decision.stage import DecisionOutcome
    from smista.decision.state import messages_from_records

    settings = load_settings(args.config)
    command = TaskIntent.parse(args.command) if args.command is not None else None
    records = read_history(args.history) if args.history else []
    workspace = Workspace(
        root=args.cwd if args.cwd is not None else os.getcwd(),
        git_branch=args.branch,
        referenced_paths=tuple(args.path),
    )
    found = None
    if given is None:
        from smista.core.classifier import Classifier
        from smista.core.turns import TurnError

        classifier = Classifier(settings.classification)
        try:
            found = classifier.classify_turn(
                payload, command=command, contexts=args.context, workspace=workspace
            )
        except TurnError as exc:
            raise exc.under("messages") if isinstance(payload, list) else exc from None
        text = found.turn.text
        if not records:
            records = [{"role": "user", "content": h} for h in found.turn.history]
    else:
        text = given
    history = messages_from_records(records) if records else ()
    outcome = DecisionOutcome.disabled()
    if settings.decision.enabled and args.no_decision:
        outcome = DecisionOutcome.skipped()
    elif settings.decision.enabled:
        from smista.decision.providers import build_stage

        stage = build_stage(settings.decision, source=settings.source)
        if stage is not None:
            outcome = stage.classify_sync(
                conversation_for(text, history=history, workspace=workspace)
            )
    preview = build_preview(
        text,
        classification=settings.classification,
        routing=settings.routing,
        switch=settings.decision.switch,
        decision=outcome,
        command=command,
        contexts=args.context,
        workspace=workspace,
        explicit_model=args.model,
        active_model=args.active_model,
        result=found.classification if found is not None else None,
        turn=found.info() if found is not None else None,
    )
    if args.json:
        sys.stdout.write(json.dumps(preview.to_json_dict(), ensure_ascii=False, indent=2) + "\n")
    else:
        from smista.cli._render_preview import render_preview

        sys.stdout.write(render_preview(preview) + "\n")
        if found is not None:
            from smista.cli._turns import turn_lines

            sys.stdout.write("\n".join(turn_lines(found)) + "\n")
    return 0
