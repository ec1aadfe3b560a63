"""Shared pieces of the list-valued extension kinds: validation messages, list lints.

Pure. Each list kind (phrases, stems, substrings, leading, commands, exclude)
normalizes its entries and reports empty entries, duplicates within a rule and
the same entry in rules of different intents through :func:`list_lints`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from smista.core.conditions.base import Lint, Severity, rule_key

__all__ = ["list_lints"]


def list_lints(
    key: str,
    what: str,
    rules: Sequence[Any],
    normalize: Callable[[str], str],
    *,
    across_intents: bool = True,
) -> Iterator[Lint]:
    """Empty entries, in-rule duplicates and (optionally) cross-intent reuse of ``key``."""
    first_seen: dict[str, tuple[int, str]] = {}
    for i, rule in enumerate(rules):
        seen: dict[str, int] = {}
        for j, raw in enumerate(getattr(rule, key)):
            at = rule_key(i, key, j)
            entry = normalize(raw)
            if not entry:
                msg = f"empty {what} never matches"
                yield Lint(i, at, Severity.ERROR, f"empty-{key}", msg)
                continue
            if entry in seen:
                msg = (
                    f"{what} {raw!r} is already listed at {key}[{seen[entry]}]; "
                    "this copy changes nothing"
                )
                yield Lint(i, at, Severity.WARNING, f"duplicate-{key}", msg)
                continue
            seen[entry] = j
            earlier = first_seen.get(entry)
            if earlier is None:
                first_seen[entry] = (i, rule.intent.value)
            elif across_intents and earlier[1] != rule.intent.value:
                msg = (
                    f"{what} {raw!r} is also in rule {earlier[0]} ({earlier[1]}): the same "
                    f"{what} decides two intents, so rule order alone picks the winner"
                )
                yield Lint(i, at, Severity.WARNING, f"shared-{key}", msg)
