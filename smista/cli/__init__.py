"""The ``smista`` command line: dispatch to one subcommand module, imported lazily.

I/O edge (argv, stdin, stdout, stderr). Each subcommand lives in its own module
exposing ``run(argv) -> int``; only the one invoked is imported, so starting
the command costs no more than the work it does. Every error a user can cause
ends as one readable line on stderr and exit status 2; no tracebacks (set
``SMISTA_DEBUG=1`` to see one for an unexpected failure).

Output that cannot be written, the same for every command:

* the reader went away (a broken pipe, ``smista batch big.jsonl | head -1``):
  exit status :data:`EXIT_BROKEN_PIPE` (141, what a shell reports for a
  process killed by ``SIGPIPE``), nothing printed;
* standard output is closed (``>&-``) or fails otherwise (disk full): exit
  status 1 and one line on stderr (``serve``, which writes nothing to
  stdout, runs with stdout closed).
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Sequence

__all__ = ["COMMANDS", "EXIT_BROKEN_PIPE", "main", "run"]

EXIT_BROKEN_PIPE = 141
"""Exit status when stdout's reader has gone away (128 + SIGPIPE)."""

# name -> (module, one-line summary)
COMMANDS: dict[str, tuple[str, str]] = {
    "classify": ("smista.cli.classify", "classify a prompt: intent, confidence, reason"),
    "explain": ("smista.cli.classify", "show the decision trace behind a classification"),
    "batch": ("smista.cli.batch", "classify JSONL records in bulk (streaming, all cores)"),
    "check": ("smista.cli.check", "lint rule files for problems before shipping them"),
    "test": ("smista.cli.golden", "run golden cases against a rule file"),
    "eval": ("smista.cli.evaluate", "accuracy, per-intent scores and confusion matrix"),
    "schema": ("smista.cli.schema", "print the JSON Schema of the config file"),
    "preview": ("smista.cli.preview", "classification, decision and routing for a prompt"),
    "tier": ("smista.cli.tier", "choose a model tier for a delegated sub-agent task"),
    "ground": ("smista.cli.ground", "score tool-call parameters for missing or placeholder values"),
    "serve": ("smista.cli.serve", "run the HTTP service"),
    "hook": ("smista.cli.hook", "run as a Claude Code or Codex hook (JSON on stdin; fails open)"),
    "mcp": ("smista.cli.mcp", "run the stdio MCP server (classify, route, ground tools)"),
    "doctor": ("smista.cli.doctor", "version, Python, C speedups, extras and cache location"),
}


def _usage() -> str:
    width = max(len(name) for name in COMMANDS)
    lines = [
        "usage: smista <command> [options]",
        "",
        "Deterministic intent classification and model routing for coding-agent requests.",
        "",
        "commands:",
    ]
    lines += [f"  {name:<{width}}  {summary}" for name, (_, summary) in COMMANDS.items()]
    lines += ["", "Run 'smista <command> --help' for a command's options."]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the process exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in {"-h", "--help", "help"} or args[0] in {"-V", "--version"}:
        return _flushed("", _top(args))
    name = args[0]
    entry = COMMANDS.get(name)
    if entry is None:
        print(f"smista: error: unknown command {name!r} (see 'smista --help')", file=sys.stderr)
        return 2
    if sys.stdout is None and name != "serve":
        _say(f"smista {name}: error: cannot write output: standard output is closed")
        return 1
    return _flushed(name, _run(name, entry, args))


def run() -> None:
    """The ``smista`` command (and ``python -m smista``): :func:`main`, then exit.

    The process ends here, so before it does, everything it loaded is moved out
    of the garbage collector's reach (:func:`gc.freeze`): the interpreter's last
    full collection would otherwise walk the compiled rules and every imported
    module once more on the way out, for nothing. In-process callers (tests,
    embedding hosts) call :func:`main`, which never does this.
    """
    code = main()
    import gc

    gc.freeze()
    sys.exit(code)


def _top(args: list[str]) -> int:
    """``smista``, ``smista --help`` and ``smista --version``."""
    if sys.stdout is None:
        _say("smista: error: cannot write output: standard output is closed")
        return 1
    try:
        if args and args[0] in {"-V", "--version"}:
            import platform

            from smista import __version__
            from smista.cli.doctor import speedups_line

            print(f"smista {__version__} (Python {platform.python_version()}, {speedups_line()})")
            return 0
        print(_usage())
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    return 0 if args else 2


def _say(line: str) -> None:
    if sys.stderr is not None:
        print(line, file=sys.stderr)


def _flushed(name: str, code: int) -> int:
    """``code``, unless the output still buffered cannot be written (see the module doc)."""
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except OSError as exc:
        _silence_stdout()
        prefix = f"smista {name}" if name else "smista"
        _say(f"{prefix}: error: cannot write output: {exc.strerror or exc}")
        return 1
    return code


def _run(name: str, entry: tuple[str, str], args: list[str]) -> int:
    try:
        module = importlib.import_module(entry[0])
    except ModuleNotFoundError as exc:
        return _missing_module(name, exc)
    try:
        return int(module.run(args))
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except ModuleNotFoundError as exc:
        return _missing_module(name, exc)
    except Exception as exc:
        from smista.core.errors import SmistaError

        if isinstance(exc, SmistaError):
            print(f"smista {name}: error: {exc}", file=sys.stderr)
            return 2
        if isinstance(exc, OSError) and not os.environ.get("SMISTA_DEBUG"):
            # The environment failed us (disk full, closed stream, permissions).
            where = f": {exc.filename}" if exc.filename else ""
            _silence_stdout()
            _say(f"smista {name}: error: {exc.strerror or exc}{where}")
            return 1
        if os.environ.get("SMISTA_DEBUG"):
            raise
        print(
            f"smista {name}: internal error: {type(exc).__name__}: {exc} "
            "(set SMISTA_DEBUG=1 for a traceback)",
            file=sys.stderr,
        )
        return 1


def _missing_module(name: str, exc: ModuleNotFoundError) -> int:
    from smista._edge.extras import extra_of, install_hint

    top = (exc.name or "").split(".")[0]
    extra = extra_of(top)
    if extra:
        hint = install_hint(extra)
        print(f"smista {name}: error: needs {top}; install it with: {hint}", file=sys.stderr)
    else:
        print(f"smista {name}: error: not available in this build ({exc})", file=sys.stderr)
    return 2


def _silence_stdout() -> None:
    # Python flushes stdout at exit; point it at devnull so a closed pipe stays quiet.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (AttributeError, OSError, ValueError):
        pass
