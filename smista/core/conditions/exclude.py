"""The ``exclude`` kind (smista extension): words or phrases that veto a rule.

Pure. ``exclude = ["test", "don't write code"]``: the rule does not match
when any entry occurs in the prompt, a one-token entry as an exact token, a
longer entry as exact consecutive tokens. Exclusions never use typos (a veto
should be certain) and leave no reason part and no confidence signal. Must
never perform I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from smista.core.conditions._lists import list_lints, string_list
from smista.core.conditions.base import Condition, ConditionKind, Evidence, Lint
from smista.core.conditions.phrases import entry_plan, find_sequence, phrase_tokens
from smista.core.conditions.view import PromptView

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

__all__ = ["EXCLUDE", "ExcludeKind", "excluded_by"]


def excluded_by(condition: Condition, view: PromptView) -> str | None:
    """The first entry of ``condition`` that occurs in the prompt, if any.

    Through the engine's index (which holds the entries' words) only the
    entries whose first word some token hits, even by typo, are looked at, and
    one any of whose other words no token hits is passed over without reading
    the prompt's tokens.
    """
    entries, by_first = entry_plan.get(condition)
    present = view.present_words if view.has_index else None
    candidates: Iterable[tuple[str, tuple[str, ...]]] = entries
    if present is not None:
        ats = [at for word in by_first.keys() & present for at in by_first[word]]
        if not ats:
            return None
        ats.sort()
        candidates = [entries[at] for at in ats]
    for entry, words in candidates:
        if present is not None and not present.issuperset(words):
            continue
        tokens = view.token_set
        if len(words) == 1:
            if words[0] in tokens:
                return entry
        elif tokens.issuperset(words) and find_sequence(words, view.tokens, typo=False) is False:
            return entry
    return None


class ExcludeKind(ConditionKind):
    """``exclude = ["test"]``."""

    key = "exclude"
    default = ()
    signal = False
    summary = "veto: the rule does not match when any of these words/phrases occurs"

    def annotation(self) -> Any:
        return string_list(
            "smista extension: the rule does not match when any of these words or "
            "phrases occurs in the prompt (exact tokens)."
        )

    def compile(self, value: Any, *, typo: bool) -> Condition:
        del typo
        return Condition(self.key, tuple(value))

    def match(self, condition: Condition, view: PromptView) -> Evidence | None:
        if excluded_by(condition, view) is not None:
            return None
        # (made once for the registered kind; a subclass keeps its own key)
        return _NONE_EXCLUDED if self is EXCLUDE else Evidence(self.key, None)

    def native(self, condition: Condition) -> tuple[Any, ...]:
        # vetoed by an entry (entry_plan's) whose words all run exactly in the tokens
        evidence = _NONE_EXCLUDED if self is EXCLUDE else Evidence(self.key, None)
        return ("exclude", entry_plan.get, condition, evidence)

    def trace(self, condition: Condition, view: PromptView) -> str:
        hit = excluded_by(condition, view)
        return "holds: no excluded word" if hit is None else f"vetoed by {hit!r}"

    def words(self, condition: Condition) -> tuple[str, ...]:
        return tuple(w for entry in condition.values for w in phrase_tokens(entry))

    def covers(self, earlier: Any, later: Any) -> bool:
        wanted = {" ".join(phrase_tokens(e)) for e in earlier}
        return wanted <= {" ".join(phrase_tokens(e)) for e in later}

    def lints(self, rules: Sequence[Any], known_contexts: frozenset[str]) -> Iterator[Lint]:
        del known_contexts
        yield from list_lints(
            self.key,
            "excluded word",
            rules,
            lambda p: " ".join(phrase_tokens(p)),
            across_intents=False,
        )

    def strategy(self, words: SearchStrategy[str]) -> SearchStrategy[Any]:
        from hypothesis import strategies as st

        return st.lists(words, max_size=2).map(tuple)


EXCLUDE = ExcludeKind()
_NONE_EXCLUDED = Evidence(EXCLUDE.key, None)
"""The kind's one piece of evidence (immutable: made once, not per prompt)."""
