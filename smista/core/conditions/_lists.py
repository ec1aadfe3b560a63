"""Shared pieces of the list-valued kinds: their field type, witnesses, list lints.

Pure. Every kind whose value is a list of strings (keywords, contexts and the
extension kinds phrases, stems, substrings, leading, commands, exclude)
declares its field with :func:`string_list`. Each extension list kind
normalizes its entries and reports empty entries, duplicates within a rule and
the same entry in rules of different intents through :func:`list_lints`;
:func:`entries_as_witnesses` is the witness of those whose entries hold as
written.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Annotated, Any

from smista.core.conditions.base import Evidence, Lint, Severity, rule_key

__all__ = ["best_entry", "best_found", "entries_as_witnesses", "list_lints", "string_list"]


def string_list(description: str) -> Any:
    """The field type of a list-of-strings kind: a tuple of strict strings, described.

    Imports pydantic (called from a kind's ``annotation`` only).
    """
    from pydantic import Field, StrictStr

    return Annotated[tuple[StrictStr, ...], Field(description=description)]


def best_entry(
    key: str, entries: Iterable[str], found: Callable[[str], bool | None]
) -> Evidence | None:
    """The evidence for the first entry found exactly, else for the first found by typo.

    ``found(entry)`` is ``False`` for an exact occurrence, ``True`` for a typo
    one and ``None`` for none: an exact occurrence of any entry beats a typo.
    """
    return best_found(key, ((entry, found(entry)) for entry in entries))


def best_found(key: str, results: Iterable[tuple[str, bool | None]]) -> Evidence | None:
    """:func:`best_entry` over ``(entry, found)`` pairs in entry order, read lazily
    (the first exact one ends the reading)."""
    fuzzy_hit: str | None = None
    for entry, result in results:
        if result is False:
            return Evidence(key, entry)
        if result is True and fuzzy_hit is None:
            fuzzy_hit = entry
    return None if fuzzy_hit is None else Evidence(key, fuzzy_hit, fuzzy=True)


def entries_as_witnesses(value: Any) -> tuple[str, ...]:
    """The non-empty entries, each a prompt fragment that makes the condition hold."""
    return tuple(v for v in value if v) or ("",)


def list_lints(
    key: str,
    what: str,
    rules: Sequence[Any],
    normalize: Callable[[str], str],
    *,
    across_intents: bool = True,
    wildcard: str | None = None,
) -> Iterator[Lint]:
    """Empty entries, in-rule duplicates and (optionally) cross-intent reuse of ``key``.

    A ``wildcard`` entry (normalized) is never reported as reused: it is meant for
    catch-all rules of any intent."""
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
            elif across_intents and earlier[1] != rule.intent.value and entry != wildcard:
                msg = (
                    f"{what} {raw!r} is also in rule {earlier[0]} ({earlier[1]}): the same "
                    f"{what} decides two intents, so rule order alone picks the winner"
                )
                yield Lint(i, at, Severity.WARNING, f"shared-{key}", msg)


def short_ascii_lints(
    key: str, what: str, code: str, rules: Sequence[Any], advice: str
) -> Iterator[Lint]:
    """A warning for each entry of ``key`` that is ASCII and under four characters.

    Such an entry occurs inside many words of the raw text; ``advice`` ends the
    message (what the entry does too often, or what to use instead).
    """
    for i, rule in enumerate(rules):
        for j, entry in enumerate(getattr(rule, key)):
            if entry.isascii() and len(entry) < 4 and entry.strip():
                msg = f"{what} {entry!r} is short ASCII text: it occurs inside many words; {advice}"
                yield Lint(i, rule_key(i, key, j), Severity.WARNING, code, msg)
