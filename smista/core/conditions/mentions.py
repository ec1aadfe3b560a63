"""The ``mentions`` kind (smista extension): the prompt starts with a ``$`` mention.

Pure. Codex CLI (and the Codex IDE extension and app) invoke a skill, app or plugin
by name with ``$``: typing ``$`` opens the mention menu, and the prompt (and the
user's ``history.jsonl``) then holds ``$name`` or, rendered as a link to the skill's
file, ``[$name](path/to/SKILL.md)``. ``mentions = ["deep-interview"]`` holds when the
raw prompt (after leading whitespace) starts with such a mention of that name;
``"*"`` holds for any; an entry ``"!state"`` names a mention that never holds (for
``"*"`` rules: code that starts with a ``$`` word, such as Svelte's ``$state``).
Names are listed without the ``$`` (a leading ``$`` is accepted and dropped) and
compared case-insensitively.

What counts as a mention:

* the link form ``[$name](...)``: a name of letters, digits, ``_``, ``-``, ``:`` and
  ``.`` (a trailing ``.``, ``:`` or ``-`` is punctuation, not name);
* the bare form ``$name``: a name of letters, digits, ``_`` and ``-`` followed by the
  end of the text or whitespace (after at most some of ``.,:;!?``), so code never
  reads as one: ``$this->user``, ``$lib/utils``, ``$t('key')``, ``$env:PATH``,
  ``$el.find``, ``$x^2$``; nor does a variable assigned, compared or piped on its
  line: a bare ``$name`` whose next characters on the line (past spaces and tabs) are
  ``=``, ``|``, or up to three of ``-+*/.%&^:?<>!`` and then ``=`` (``$hosts =
  Get-Content …``, ``$total += 1``, ``$x | Where-Object``, ``$a != $b``);
* in both, a name starts with a letter (``$5`` and ``$ npm i`` are none), and a name
  whose letters are all capitals is a shell variable (``$HOME``, ``$ARGUMENTS``), never
  a mention.

Must never perform I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from smista.core.conditions._lists import list_lints, string_list
from smista.core.conditions.base import (
    Condition,
    ConditionKind,
    Evidence,
    Lint,
    Severity,
    per_condition,
    rule_key,
)
from smista.core.conditions.view import PromptView
from smista.core.tokenizer import rust_lower

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

__all__ = ["MENTIONS", "MentionsKind", "dollar_mention", "normalize_mention"]

ANY = "*"
NOT = "!"


@cache
def _pattern() -> re.Pattern[str]:
    """A leading ``[$name](target)`` or ``$name`` (compiled on first use: most prompts
    start with neither character)."""
    return re.compile(
        r"\s*(?:\[\$(\w[\w:.\-]*)\](?:\([^)]*\))?"
        r"|\$(\w[\w\-]*)(?=[.,:;!?]*(?:\s|\Z))(?![.,:;!?]*[ \t]*(?:[=|]|[-+*/.%&^:?<>!]{1,3}=)))"
    )


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
    if not name[:1].isalpha() or name.isupper():  # (a number; a shell variable)
        return None
    return rust_lower(name)


def normalize_mention(name: str) -> str:
    """``"$Deep-Interview"`` -> ``"deep-interview"``, ``"!$State"`` -> ``"!state"``;
    ``"*"`` stays the wildcard."""
    name = name.strip()
    negated = name.startswith(NOT)
    if negated:
        name = name[1:].strip()
    name = name[1:] if name.startswith("$") else name
    name = name.lower()
    return NOT + name if negated and name else name


def _split(values: Sequence[str]) -> tuple[frozenset[str], frozenset[str]]:
    """(the names that hold, ``"*"`` included; the names excepted, without the ``!``)."""
    yes = frozenset(v for v in values if not v.startswith(NOT))
    return yes, frozenset(v[1:] for v in values if v.startswith(NOT))


@per_condition
def _compiled_split(condition: Condition) -> tuple[frozenset[str], frozenset[str]]:
    """:func:`_split` of a compiled condition's values, derived once per condition."""
    return _split(condition.values)


class MentionsKind(ConditionKind):
    """``mentions = ["deep-interview", "*", "!state"]``."""

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
            "'*' = any mention; '!name' = never this one)."
        )

    place = 11

    def witnesses(self, value: Any) -> tuple[str, ...]:
        yes, no = _split([normalize_mention(v) for v in value])
        custom = "custom"
        while custom in no:  # (the name the wildcard's witness takes: one no exception names)
            custom += "x"
        return tuple(f"${custom if n == ANY else n} " for n in sorted(yes) if n) or ("",)

    def compile(self, value: Any, *, typo: bool) -> Condition:
        del typo
        return Condition(self.key, tuple(normalize_mention(v) for v in value))

    def match(self, condition: Condition, view: PromptView) -> Evidence | None:
        name = dollar_mention(view.text)
        if name is None:
            return None
        yes, no = _compiled_split.get(condition)
        if name in no or not (name in yes or ANY in yes):
            return None
        return Evidence(self.key, "$" + name)

    def native(self, condition: Condition) -> tuple[Any, ...]:
        yes, no = _compiled_split.get(condition)  # (the name, or '*', and never an excepted one)
        return ("mention", yes, no, self.key)

    def covers(self, earlier: Any, later: Any) -> bool:
        if not earlier:
            return True
        if not later:  # the later rule also holds on prompts with no mention at all
            return False
        ours, our_no = _split([normalize_mention(v) for v in earlier])
        theirs, their_no = _split([normalize_mention(v) for v in later])
        if ANY in theirs:  # the later rule holds for any name it does not except
            return ANY in ours and our_no <= their_no
        return all((n in ours or ANY in ours) and n not in our_no for n in theirs)

    def gate(self, condition: Condition) -> frozenset[str] | None:
        return _split(condition.values)[0]

    def present(self, view: PromptView, keys: frozenset[str]) -> frozenset[str]:
        text = view.text
        if text[:1] not in _OPENERS and not text[:1].isspace():
            return _NONE  # (most prompts, without a call)
        name = dollar_mention(text)
        # (the one empty answer, shared: most prompts hold no mention)
        return _NONE if name is None else keys & {name, ANY}

    def native_gate(self, plan: frozenset[str]) -> tuple[Any, ...]:
        return ("mention", plan)  # (the name and '*', those that are keys)

    def lints(self, rules: Sequence[Any], known_contexts: frozenset[str]) -> Iterator[Lint]:
        del known_contexts
        yield from list_lints(self.key, "mention", rules, normalize_mention, wildcard=ANY)
        for i, rule in enumerate(rules):
            if rule.mentions and rule.commands:
                msg = (
                    "a prompt starts with a slash command or with a $-mention, never both: "
                    "a rule with 'commands' and 'mentions' never holds"
                )
                yield Lint(i, rule_key(i, self.key), Severity.ERROR, "mentions-with-commands", msg)
            for j, raw in enumerate(rule.mentions):
                entry = normalize_mention(raw)
                name = entry[1:] if entry.startswith(NOT) else entry
                if not name or name == ANY:
                    continue
                if dollar_mention(f"${name} ") != name and dollar_mention(f"[${name}]") != name:
                    msg = (
                        f"mention {raw!r} can never match: a mention's name starts with a "
                        "letter, is not all capitals and holds letters, digits, '_', '-' "
                        "(and ':' or '.' in a [$name](...) link)"
                    )
                    yield Lint(i, rule_key(i, self.key, j), Severity.ERROR, "dead-mentions", msg)

    def strategy(self, words: SearchStrategy[str]) -> SearchStrategy[Any]:
        from hypothesis import strategies as st

        # (an exception only beside the wildcard: a rule of exceptions alone never holds)
        return st.one_of(
            st.lists(st.one_of(words, st.just(ANY)), max_size=2).map(tuple),
            words.map(lambda w: (ANY, NOT + w)),
        )


MENTIONS = MentionsKind()
_NONE: frozenset[str] = frozenset()
_OPENERS = frozenset("$[")
