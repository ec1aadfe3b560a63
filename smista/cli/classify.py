"""``smista classify`` and ``smista explain``.

I/O edge. ``classify`` stays off pydantic: it reads compiled rules through
:mod:`smista.config.rulecache` and renders the wire JSON with :mod:`smista.core.wire` (as
``Classification.to_wire`` does), so a hook calling it per
prompt pays only for the work. The bare form ``smista classify TEXT`` (one
argument, not starting with ``-``) is what argparse would read as TEXT with
every option at its default, so it is answered without loading argparse; any
other command line goes through the parser.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from smista.cli._text import read_text_arg
from smista.cli._turns import text_or_messages
from smista.config.rulecache import load_rules
from smista.core.engine import wire_of
from smista.core.intent import TaskIntent
from smista.core.wire import explicit

if TYPE_CHECKING:
    from smista.cli._common import ArgumentParser
    from smista.core.classifier import Classifier

__all__ = ["run"]


def _parser(name: str) -> ArgumentParser:
    from smista.cli._common import ArgumentParser, add_request_options
    from smista.cli._turns import add_messages_option

    explain = name == "explain"
    parser = ArgumentParser(
        prog=f"smista {name}",
        description=(
            "Show why a prompt gets its intent: tokens, every rule in evaluation order, "
            "which keyword hit which token, and which rule won."
            if explain
            else "Classify a prompt: print its intent, confidence and reason."
        ),
    )
    parser.add_argument("text", metavar="TEXT", nargs="?", help="the prompt ('-' reads stdin)")
    parser.add_argument("--rules", metavar="FILE", help="rules file (default: the shipped pack)")
    add_request_options(parser)
    add_messages_option(parser)
    parser.add_argument("--json", action="store_true", help="print JSON")
    return parser


def run(argv: Sequence[str]) -> int:
    name = argv[0]
    if name == "classify" and len(argv) == 2 and not argv[1].startswith("-"):
        # `smista classify TEXT`: the parser would give exactly TEXT and the defaults.
        return _classify(read_text_arg(argv[1]), None, None, [], as_json=False)
    args = _parser(name).parse_args(argv[1:])
    text, payload = text_or_messages(args.text, args.messages)
    command = TaskIntent.parse(args.command) if args.command is not None else None
    if text is None:
        return _turn(name, args.rules, payload, command, args.context, args.json)
    if name == "explain":
        return _explain(args.rules, text, command, args.context, args.json)
    return _classify(text, args.rules, command, args.context, as_json=args.json)


def _classify(
    text: str,
    rules_path: str | None,
    command: TaskIntent | None,
    contexts: list[str],
    *,
    as_json: bool,
) -> int:
    if command is not None:
        if rules_path is not None:  # not needed, but a file the user named must be valid
            load_rules(rules_path)
        result = explicit(command.value)
    else:
        rules = load_rules(rules_path)
        match = rules.match_text(text, frozenset(contexts))
        result = wire_of(match)
    out = sys.stdout
    if as_json:
        import json  # not at import: only --json needs it

        out.write(json.dumps(result, ensure_ascii=False, separators=(",", ":")) + "\n")
    else:
        out.write(f"intent:     {result['intent']} ({result['source']})\n")
        if "confidence" in result:
            out.write(f"confidence: {result['confidence']}\n")
        out.write(f"reason:     {result['reason']}\n")
    return 0


def _turn(
    name: str,
    rules_path: str | None,
    payload: object,
    command: TaskIntent | None,
    contexts: list[str],
    as_json: bool,
) -> int:
    """``--messages``: classify or explain a whole turn (needs the validated config)."""
    from smista.config.defaults import default_classifier
    from smista.config.load import load_config
    from smista.core.classifier import Classifier
    from smista.core.turns import TurnError

    classifier = default_classifier() if rules_path is None else Classifier(load_config(rules_path))
    try:
        return _print_turn(name, classifier, payload, command, contexts, as_json)
    except TurnError as exc:
        raise exc.under("messages") if isinstance(payload, list) else exc from None


def _print_turn(
    name: str,
    classifier: Classifier,
    payload: object,
    command: TaskIntent | None,
    contexts: list[str],
    as_json: bool,
) -> int:
    from smista.cli._turns import render_turn_explanation, render_turn_result

    if name == "explain":
        found = classifier.explain_turn(payload, command=command, contexts=contexts)
        print(found.model_dump_json(indent=2) if as_json else render_turn_explanation(found))
        return 0
    result = classifier.classify_turn(payload, command=command, contexts=contexts)
    if as_json:
        import json

        sys.stdout.write(json.dumps(result.to_wire(), ensure_ascii=False, separators=(",", ":")))
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render_turn_result(result) + "\n")
    return 0


def _explain(
    rules_path: str | None,
    text: str,
    command: TaskIntent | None,
    contexts: list[str],
    as_json: bool,
) -> int:
    from smista.config.defaults import default_config
    from smista.config.load import load_config
    from smista.core.classifier import Classifier

    config = default_config() if rules_path is None else load_config(rules_path)
    explanation = Classifier(config).explain(text, command=command, contexts=contexts)
    if as_json:
        print(explanation.model_dump_json(indent=2))
        return 0
    from smista.cli._render import render_explanation

    print(render_explanation(explanation))
    return 0
