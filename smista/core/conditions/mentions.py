"""The ``mentions`` kind (smista extension): the prompt starts with a ``$`` mention.

Pure. Codex CLI (and the Codex IDE extension and app) invoke a skill, app or plugin
by name with ``$``: typing ``$`` opens the mention menu, and the prompt (and the
user's ``history.jsonl``) then holds ``$name`` or, rendered as a link to the skill's
file, ``[$name](path/to/SKILL.md)``. ``mentions = ["deep-interview"]`` holds when the
raw prompt (after leading whitespace) starts with such a mention of that name;
``"*"`` holds for any. Names are listed without the ``$`` (a leading ``$`` is
accepted and dropped) and compared case-insensitively; a name starts with a letter
and may hold letters, digits, ``:``, ``-``, ``_`` and ``.`` (a trailing ``.``, ``:``
or ``-`` is punctuation, not name). A shell variable is not a mention: a name whose
letters are all capitals (``$HOME``, ``$ARGUMENTS``) never holds, nor does ``$5`` or
``$ npm i``. Must never perform I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from smista.core.conditions._lists import list_lints, string_list
from smista.core.conditions.base import Condition, ConditionKind, Evidence, Lint
from smista.core.conditions.view import PromptView
from smista.core.tokenizer import rust_lower

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

__all__ = ["MENTIONS", "MentionsKind", "dollar_mention", "normalize_mention"]

ANY = "*"


@cache
def _pattern() -> re.Pattern[str]:
    """A leading ``$name`` or ``[$name](target)`` (compiled on first use: most prompts
    start with neither character)."""
    name = r"([^\W\d_][\w:.\-]*)"
    return re.compile(rf"\s*(?:\[\${name}\](?:\([^)]*\))?|\${name})")


def dollar_mention(text: str) -> str | None:
    """``'$Deep-Interview go'`` -> ``'deep-interview'``; ``'[$x](a/SKILL.md) y'`` ->
    ``'x'``; ``None`` when the text does not start with a mention."""
    head = text[:1]
    if head not in ("$", "[") and not head.isspace():
        return None  # (most prompts: no match is tried)
    match = _pattern().match(text)
    if match is None:
        return None
    name = (match.group(1) or match.group(2)).rstrip(".:-")
    if name.isupper():  # (every cased letter a capital: a shell variable)
        return None
    return rust_lower(name)


def normalize_mention(name: str) -> str:
    """``"$Deep-Interview"`` -> ``"deep-interview"``; ``"*"`` stays the wildcard."""
    name = name.strip()
    return name[1:].lower() if name.startswith("$") else name.lower()


class MentionsKind(ConditionKind):
    """``mentions = ["deep-interview", "*"]``."""

    key = "mentions"
    default = ()
    label = "mention"
    summary = (
        "the prompt starts with a $-mention of one of these skills, apps or plugins ('*' = any)"
    )

    def annotation(self) -> Any:
        return string_list(
            "smista extension: holds when the prompt starts with a $-mention (Codex's "
            "'$name' or '[$name](path)') of one of these names (without the '$'; "
            "'*' = any mention)."
        )

    place = 11

    def witnesses(self, value: Any) -> tuple[str, ...]:
        names = [normalize_mention(v) for v in value]
        return tuple("$" + ("custom" if n == ANY else n) for n in names if n) or ("",)

    def compile(self, value: Any, *, typo: bool) -> Condition:
        del typo
        return Condition(self.key, tuple(normalize_mention(v) for v in value))

    def match(self, condition: Condition, view: PromptView) -> Evidence | None:
        name = dollar_mention(view.text)
        if name is None:
            return None
        if name in condition.values or ANY in condition.values:
            return Evidence(self.key, "$" + name)
        return None

    def covers(self, earlier: Any, later: Any) -> bool:
        if not earlier:
            return True
        if not later:  # the later rule also holds on prompts with no mention at all
            return False
        ours = {normalize_mention(v) for v in earlier}
        return ANY in ours or {normalize_mention(v) for v in later} <= ours

    def gate(self, condition: Condition) -> frozenset[str] | None:
        return frozenset(condition.values)

    def present(self, view: PromptView, keys: frozenset[str]) -> frozenset[str]:
        text = view.text
        if text[:1] not in _OPENERS and not text[:1].isspace():
            return _NONE  # (most prompts, without a call)
        name = dollar_mention(text)
        # (the one empty answer, shared: most prompts hold no mention)
        return _NONE if name is None else keys & {name, ANY}

    def lints(self, rules: Sequence[Any], known_contexts: frozenset[str]) -> Iterator[Lint]:
        del known_contexts
        yield from list_lints(self.key, "mention", rules, normalize_mention)

    def strategy(self, words: SearchStrategy[str]) -> SearchStrategy[Any]:
        from hypothesis import strategies as st

        return st.lists(st.one_of(words, st.just(ANY)), max_size=2).map(tuple)


MENTIONS = MentionsKind()
_NONE: frozenset[str] = frozenset()
_OPENERS = frozenset("$[")
