"""The ``commands`` kind (smista extension): the prompt starts with a slash command.

Pure. ``commands = ["ask", "architect"]`` holds when the raw prompt (after
leading whitespace) starts with ``/ask`` or ``/architect`` followed by the
end of the text or a non-name character; ``"*"`` holds for any slash command.
Names are listed without the slash (a leading slash is accepted and dropped)
and compared case-insensitively; a name may hold ``:``, ``-``, ``_`` and
``.`` (``/git:commit``). The command itself is read by
:func:`smista.core.conditions.markers.slash_command`. Must never perform I/O.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from smista.core.conditions._lists import list_lints, string_list
from smista.core.conditions.base import Condition, ConditionKind, Evidence, Lint
from smista.core.conditions.view import PromptView

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

__all__ = ["COMMANDS", "CommandsKind", "normalize_command"]

ANY = "*"


def normalize_command(name: str) -> str:
    """``"/Ask"`` -> ``"ask"``; ``"*"`` stays the wildcard."""
    name = name.strip()
    return name[1:].lower() if name.startswith("/") else name.lower()


class CommandsKind(ConditionKind):
    """``commands = ["ask", "*"]``."""

    key = "commands"
    default = ()
    label = "command"
    summary = "the prompt starts with one of these slash commands ('*' = any)"

    def annotation(self) -> Any:
        return string_list(
            "smista extension: holds when the prompt starts with one of these slash "
            "commands (names without the slash; '*' = any slash command)."
        )

    place = 10

    def witnesses(self, value: Any) -> tuple[str, ...]:
        names = [normalize_command(v) for v in value]
        return tuple("/" + ("custom" if n == ANY else n) for n in names if n) or ("",)

    def compile(self, value: Any, *, typo: bool) -> Condition:
        del typo
        return Condition(self.key, tuple(normalize_command(v) for v in value))

    def match(self, condition: Condition, view: PromptView) -> Evidence | None:
        command = view.command
        if command is None:
            return None
        if command in condition.values or ANY in condition.values:
            return Evidence(self.key, "/" + command)
        return None

    def native(self, condition: Condition) -> tuple[Any, ...]:
        return ("command", frozenset(condition.values), self.key)  # the command or '*' listed

    def covers(self, earlier: Any, later: Any) -> bool:
        if not earlier:
            return True
        if not later:  # the later rule also holds on prompts with no command at all
            return False
        ours = {normalize_command(v) for v in earlier}
        return ANY in ours or {normalize_command(v) for v in later} <= ours

    def gate(self, condition: Condition) -> frozenset[str] | None:
        return frozenset(condition.values)

    def present(self, view: PromptView, keys: frozenset[str]) -> frozenset[str]:
        command = view.command
        # (the one empty answer, shared: most prompts hold no command)
        return _NONE if command is None else keys & {command, ANY}

    def native_gate(self, plan: frozenset[str]) -> tuple[Any, ...]:
        return ("command", plan)  # (the command and '*', those that are keys)

    def lints(self, rules: Sequence[Any], known_contexts: frozenset[str]) -> Iterator[Lint]:
        del known_contexts
        yield from list_lints(self.key, "command", rules, normalize_command)

    def strategy(self, words: SearchStrategy[str]) -> SearchStrategy[Any]:
        from hypothesis import strategies as st

        return st.lists(st.one_of(words, st.just(ANY)), max_size=2).map(tuple)


COMMANDS = CommandsKind()
_NONE: frozenset[str] = frozenset()
