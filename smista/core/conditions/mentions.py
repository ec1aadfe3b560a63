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

* the link form ``[$name](...)``: a name of ASCII letters, digits, ``_``, ``-``, ``:``
  and ``.`` (a trailing ``.``, ``:`` or ``-`` is punctuation, not name), in a Markdown
  link (``[$first] = explode(...)`` is PHP, not a link);
* the bare form ``$name``: a name of ASCII letters, digits, ``_`` and ``-`` (as Codex
  reads one), followed by the end of the text or whitespace (after at most some of
  ``.,:;!?``), or directly by full-width punctuation or a character of a script written
  without spaces (``$plan，帮我`` and ``$plan帮我规划``). So code never reads as one:
  ``$this->user``, ``$lib/utils``, ``$t('key')``, ``$env:PATH``, ``$el.find``,
  ``$x^2$``. Nor do these, also code or math:

  - a variable assigned, compared, piped or redirected on its line: past spaces and
    tabs (and other ``$variables``, as in ``$x, $y = 1, 2``), the line goes on with
    ``=``, ``|``, ``<`` or ``>`` before a space, ``=`` or the end, up to three of
    ``-+*/.%&^:?<>!`` and then ``=``, or a PowerShell operator (``-eq``, ``-ne``,
    ``-like``, ``-match``, ``-and`` ...): ``$hosts = Get-Content …``, ``$total += 1``,
    ``$x | Where-Object``, ``$a != $b``, ``$files -ne $null``, ``$x > out.txt``;
  - a line holding a ``$`` right after another non-space character, which closes TeX
    math or is code (``$a + b$ is wrong``);
  - a variable that is the subject of a sentence: the next word is one of
    :data:`SUBJECT_WORDS` (``$name is undefined``, ``$response should be JSON``);

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

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

__all__ = ["MENTIONS", "SUBJECT_WORDS", "MentionsKind", "dollar_mention", "normalize_mention"]

ANY = "*"
NOT = "!"


SUBJECT_WORDS = frozenset(
    [
        "is",
        "isn't",
        "isnt",
        "are",
        "aren't",
        "arent",
        "was",
        "wasn't",
        "wasnt",
        "were",
        "weren't",
        "werent",
        "has",
        "hasn't",
        "hasnt",
        "have",
        "haven't",
        "had",
        "does",
        "doesn't",
        "doesnt",
        "did",
        "didn't",
        "didnt",
        "should",
        "shouldn't",
        "must",
        "can",
        "can't",
        "cant",
        "cannot",
        "could",
        "couldn't",
        "would",
        "wouldn't",
        "will",
        "won't",
        "wont",
        "may",
        "might",
        "returns",
        "returned",
        "contains",
        "gets",
        "keeps",
        "stays",
        "equals",
        "becomes",
        "seems",
        "shows",
        "prints",
        "never",
        "always",
        "still",
    ]
)
"""Words that, right after a bare ``$name``, make it the subject of a statement about a
variable (``$name is undefined``), not a skill invoked to do something."""

_NO_SPACE = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7a3\uf900-\ufaff"
"""Hiragana, Katakana, Han and Hangul: written without spaces, so one may follow a name."""
_WIDE = "\uff0c\u3002\uff1a\uff1b\uff01\uff1f\u3001"
"""Full-width punctuation: ，。：；！？、"""
_OPERATOR = (
    r"(?:[=|]|[<>](?:[\s=<>]|\Z)|[-+*/.%&^:?<>!]{1,3}="
    r"|(?i:-(?:eq|ne|gt|ge|lt|le|like|notlike|match|notmatch|contains|notcontains|in|notin"
    r"|replace|and|or|xor|not|is|isnot|as)\b))"
)
"""What follows a variable assigned, compared, piped or redirected (PowerShell's
comparison operators too)."""


@cache
def _pattern() -> re.Pattern[str]:
    """A leading ``[$name](`` or ``$name`` (compiled on first use: most prompts start
    with neither character)."""
    return re.compile(
        r"\s*(?:\[\$([A-Za-z0-9_][A-Za-z0-9_:.\-]*)\]\("
        r"|\$([A-Za-z0-9_][A-Za-z0-9_\-]*)"
        rf"(?=[.,:;!?]*(?:\s|\Z)|[{_WIDE}{_NO_SPACE}])"
        rf"(?![.,:;!?]*[ \t]*(?:\$\w+[.,:;]*[ \t]*)*{_OPERATOR}))"
    )


_CLOSING = re.compile(r"\S\$")
_FIRST_WORD = re.compile(r"[\s.,:;!?]*([A-Za-z'\u2019]+)")


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
    if match.group(2) is not None:  # the bare form: math, or a variable in a sentence
        line = text[match.end() :].split("\n", 1)[0]
        if _CLOSING.search(line):
            return None
        word = _FIRST_WORD.match(line)
        if word is not None and word.group(1).lower().replace("\u2019", "'") in SUBJECT_WORDS:
            return None
    return name.lower()


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
            entries = [normalize_mention(raw) for raw in rule.mentions]
            yes, no = _split(entries)
            if entries and not yes:
                msg = (
                    "only '!' entries: they except names, and no name is listed, so it never holds"
                )
                yield Lint(i, rule_key(i, self.key), Severity.ERROR, "no-mentions", msg)
            for j, (raw, entry) in enumerate(zip(rule.mentions, entries, strict=True)):
                excepting = entry.startswith(NOT)
                name = entry[1:] if excepting else entry
                at = rule_key(i, self.key, j)
                if excepting and name == ANY:
                    msg = f"{raw!r} excepts nothing: '*' is no name (list the names to except)"
                    yield Lint(i, at, Severity.ERROR, "dead-mentions", msg)
                    continue
                if not name or name == ANY:
                    continue
                if not excepting and name in no:
                    msg = f"mention {raw!r} is also excepted ('!{name}'), so it never holds"
                    yield Lint(i, at, Severity.ERROR, "dead-mentions", msg)
                    continue
                if dollar_mention(f"${name} ") != name and dollar_mention(f"[${name}](x)") != name:
                    msg = (
                        f"mention {raw!r} can never match: a mention's name starts with a "
                        "letter, is not all capitals and holds ASCII letters, digits, '_', '-' "
                        "(and ':' or '.' in a [$name](...) link)"
                    )
                    yield Lint(i, at, Severity.ERROR, "dead-mentions", msg)

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
