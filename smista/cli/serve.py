"""``smista serve``: run the HTTP service (needs the ``server`` extra).

I/O edge (argv, environment, sockets). Reads the bearer token from
``SMISTA_API_TOKEN`` and refuses, in one line, to bind a non-loopback address
without it. The token is never printed. On loopback the service answers only
requests addressed to a loopback name (``Host``), plus ``--allow-host`` names.
Heavy imports (starlette, uvicorn) happen inside :func:`run`.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import sys
from collections.abc import Sequence

from smista.cli._common import ArgumentParser, UsageError

__all__ = ["run"]


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port number 0-65535, got {text!r}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


def _host(text: str) -> str:
    """An ``--allow-host`` name: a host name or an IP address, without port; ``*``: any."""
    name = text.strip()
    if name == "*":
        return name
    bracketed = name.startswith("[") and name.endswith("]")
    try:
        return str(ipaddress.ip_address(name[1:-1] if bracketed else name))
    except ValueError:
        pass
    if not name or any(c in name for c in ":/[]@") or any(c.isspace() for c in name):
        raise argparse.ArgumentTypeError(
            f"expected a host name or an IP address, without port, got {text!r}"
        )
    return name.lower().removesuffix(".")


def _post_paths() -> list[str]:
    """The POST endpoints this build serves (the plugged ones are discovered)."""
    from smista.server.plugins import available_endpoints

    return ["/v1/classify", "/v1/classify/batch", *(ep.path for ep in available_endpoints())]


def _parser() -> ArgumentParser:
    from smista.server.settings import (
        DEFAULT_BODY_TIMEOUT,
        DEFAULT_HEADER_TIMEOUT,
        DEFAULT_HOST,
        DEFAULT_MAX_BATCH,
        DEFAULT_MAX_BODY_BYTES,
        DEFAULT_MAX_CONNECTIONS,
        DEFAULT_MAX_ITEMS,
        DEFAULT_MAX_PROMPT_CHARS,
        DEFAULT_PORT,
    )

    p = ArgumentParser(
        prog="smista serve",
        description=(
            f"Run the HTTP service (POST {', '.join(_post_paths())}; "
            "GET /v1/rules, /healthz, /openapi.json). "
            "Ctrl-C or SIGTERM drains and exits 0. Set SMISTA_API_TOKEN to "
            "require a bearer token; it is required when --host is not loopback."
        ),
    )
    p.add_argument("--host", default=DEFAULT_HOST, help=f"bind address (default {DEFAULT_HOST})")
    p.add_argument(
        "--allow-host",
        type=_host,
        action="append",
        default=[],
        metavar="NAME",
        help="also answer requests whose Host header is NAME (repeatable; '*': any); "
        "on loopback only localhost, 127.0.0.1 and [::1] are answered by default",
    )
    p.add_argument(
        "--port",
        type=_port,
        default=DEFAULT_PORT,
        help=f"port (default {DEFAULT_PORT}; 0: any)",
    )
    p.add_argument(
        "--config",
        metavar="FILE",
        help="config file ([classification], [routing], ...)",
    )
    p.add_argument("--rules", metavar="FILE", help="rules file (wins over the config's rules)")
    p.add_argument(
        "--watch",
        action="store_true",
        help="reload when the rules or config file changes",
    )
    p.add_argument(
        "--watch-interval",
        type=_seconds,
        default=None,
        metavar="S",
        help="seconds between --watch polls (default 1)",
    )
    p.add_argument(
        "--watch-settle",
        type=_seconds,
        default=0.05,
        metavar="S",
        help="a reloaded file is used once two reads S seconds apart agree (default 0.05)",
    )
    p.add_argument(
        "--log-prompts",
        action="store_true",
        help="include prompt text in decision logs",
    )
    p.add_argument(
        "--max-batch",
        type=_positive,
        default=DEFAULT_MAX_BATCH,
        metavar="N",
        help=f"most items in one batch request (default {DEFAULT_MAX_BATCH})",
    )
    p.add_argument(
        "--max-body-bytes",
        type=_positive,
        default=DEFAULT_MAX_BODY_BYTES,
        metavar="N",
        help=f"largest request body (default {DEFAULT_MAX_BODY_BYTES})",
    )
    p.add_argument(
        "--max-prompt-chars",
        type=_positive,
        default=DEFAULT_MAX_PROMPT_CHARS,
        metavar="N",
        help=f"longest prompt text (default {DEFAULT_MAX_PROMPT_CHARS})",
    )
    p.add_argument(
        "--max-items",
        type=_positive,
        default=DEFAULT_MAX_ITEMS,
        metavar="N",
        help=f"longest JSON array or object in a request body (default {DEFAULT_MAX_ITEMS})",
    )
    p.add_argument(
        "--header-timeout",
        type=_seconds,
        default=DEFAULT_HEADER_TIMEOUT,
        metavar="S",
        help="close a connection whose request head takes longer (default "
        f"{DEFAULT_HEADER_TIMEOUT:g})",
    )
    p.add_argument(
        "--body-timeout",
        type=_seconds,
        default=DEFAULT_BODY_TIMEOUT,
        metavar="S",
        help=f"close a request whose body takes longer (default {DEFAULT_BODY_TIMEOUT:g})",
    )
    p.add_argument(
        "--max-connections",
        type=_positive,
        default=DEFAULT_MAX_CONNECTIONS,
        metavar="N",
        help=f"most open connections; more get a JSON 503 (default {DEFAULT_MAX_CONNECTIONS})",
    )
    p.add_argument(
        "--shutdown-timeout",
        type=_seconds,
        default=10.0,
        metavar="S",
        help="on SIGTERM, wait this long for in-flight requests (default 10)",
    )
    p.add_argument(
        "--log-level",
        default="info",
        choices=["debug", "info", "warning", "error"],
        help="log level (default info; warning silences access and decision logs)",
    )
    return p


def run(argv: Sequence[str]) -> int:
    from smista.server.auth import TOKEN_ENV, BearerToken, is_loopback
    from smista.server.logs import configure_logging
    from smista.server.settings import ServerSettings

    args = _parser().parse_args(argv[1:])
    if args.watch_interval is not None and not args.watch:
        raise UsageError("--watch-interval needs --watch (without it nothing is polled)")
    secret = os.environ.get(TOKEN_ENV, "").strip()
    if not secret and not is_loopback(args.host):
        raise UsageError(
            f"refusing to listen on {args.host} without authentication: "
            f"set {TOKEN_ENV} (required when the bind address is not loopback)"
        )
    settings = ServerSettings(
        host=args.host,
        port=args.port,
        config_path=args.config,
        rules_path=args.rules,
        watch=args.watch,
        watch_interval=1.0 if args.watch_interval is None else args.watch_interval,
        watch_settle=args.watch_settle,
        log_prompts=args.log_prompts,
        max_batch=args.max_batch,
        max_body_bytes=args.max_body_bytes,
        max_prompt_chars=args.max_prompt_chars,
        max_items=args.max_items,
        header_timeout=args.header_timeout,
        body_timeout=args.body_timeout,
        max_connections=args.max_connections,
        token=BearerToken(secret) if secret else None,
        allowed_hosts=tuple(args.allow_host),
        shutdown_timeout=args.shutdown_timeout,
        log_level=args.log_level,
    )
    configure_logging(args.log_level)
    from smista.server.run import BindError, serve

    try:
        return serve(settings)
    except BindError as exc:
        print(f"smista serve: error: {exc}", file=sys.stderr)
        return 1
