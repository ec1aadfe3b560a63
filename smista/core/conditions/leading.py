"""The ``leading`` kind (smista extension): the prompt's first content word.

Pure. ``leading = ["add", "fix", "build a"]`` holds when the first content
words of the prompt are one of these entries: after a slash command,
@mentions, greetings and polite fillers ("hi", "ok", "please", "can you",
"I want you to" ... see :mod:`smista.core.conditions.markers`). An entry of several
words matches the first content words in order. Each word is typo-tolerant
with the keyword caps (never for Hangul or Han words, nor with
``typo = false``); an exact entry beats a typo one. ``"*"`` holds for any
first content word: the prompt says something beyond a slash command,
@mentions, greetings, thanks and fillers ("ok", "thanks!" and "hi" say
nothing). A listed entry that holds is the evidence before the wildcard; the
wildcard's evidence is no confidence signal. Must never perform I/O.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from smista.core.conditions._lists import (
    best_entry,
    best_found,
    entries_as_witnesses,
    list_lints,
    string_list,
)
from smista.core.conditions.base import Condition, ConditionKind, Evidence, Lint, per_condition
from smista.core.conditions.phrases import (
    KeyPlan,
    entries_starting,
    entry_plan,
    keys_by_word,
    phrase_keys,
    phrase_tokens,
)
from smista.core.conditions.view import PromptView, is_hangul_or_han
from smista.core.conditions.words import word_match

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

__all__ = ["ANY", "LEADING", "LeadingKind", "leads_with"]

ANY = "*"
"""The entry that holds for any first content word."""


def _is_any(entry: str) -> bool:
    """Whether a written entry is the wildcard (surrounding spaces allowed)."""
    return entry.strip() == ANY


@per_condition
def _has_any(condition: Condition) -> bool:
    """Whether a compiled condition has the wildcard (looked for once, not per prompt)."""
    return ANY in condition.values


def _lead_in_view(words: tuple[str, ...], view: PromptView, *, typo: bool) -> bool | None:
    """:func:`leads_with` on the view's content words, through its word index."""
    content = view.content_head(len(words))
    if not view.has_index:
        return leads_with(words, content, typo=typo)
    if not words or len(words) > len(content):
        return None
    fuzzy = False
    for word, token in zip(words, content, strict=False):
        hit = next((f for w, f in view.hits_of(token) if w == word), None)
        if hit is None or (hit and not (typo and not is_hangul_or_han(word))):
            return None
        fuzzy = fuzzy or hit
    return fuzzy


def leads_with(words: tuple[str, ...], content: Sequence[str], *, typo: bool) -> bool | None:
    """``False``: ``content`` starts with ``words`` exactly; ``True``: with typos; else ``None``."""
    if not words or len(words) > len(content):
        return None
    fuzzy = False
    for word, token in zip(words, content, strict=False):
        hit = word_match(word, token, typo=typo and not is_hangul_or_han(word))
        if hit is None:
            return None
        fuzzy = fuzzy or hit
    return fuzzy


class LeadingKind(ConditionKind):
    """``leading = ["add", "fix"]``."""

    key = "leading"
    default = ()
    label = "leading word"
    typo_aware = True
    summary = (
        "the first content word (after greetings, @mentions, fillers) is one of these ('*' = any)"
    )

    def annotation(self) -> Any:
        return string_list(
            "smista extension: holds when the first content word(s) of the prompt, "
            "after a slash command, @mentions, greetings and polite fillers, are one "
            "of these (typo-tolerant, as keywords); '*' holds for any first content word."
        )

    place = 20

    def witnesses(self, value: Any) -> tuple[str, ...]:
        # '*' holds on any content word: a later kind's witness word ("делай" for
        # lead_endings) or, alone, a neutral word of its own.
        found = tuple("something" if _is_any(v) else v for v in entries_as_witnesses(value))
        return ("", *found) if any(map(_is_any, value)) else found

    def compile(self, value: Any, *, typo: bool) -> Condition:
        return Condition(self.key, tuple(ANY if _is_any(v) else v for v in value), typo)

    def match(self, condition: Condition, view: PromptView) -> Evidence | None:
        if not view.content_head(1):
            return None
        if not _has_any.get(condition):
            return self._listed(condition, view)
        # the wildcard holds; a listed entry that holds is the better evidence (a
        # wildcard alone, as in a catch-all, looks nothing up)
        found = self._listed(condition, view) if len(condition.values) > 1 else None
        # (made once for the registered kind; a subclass keeps its own key)
        return found or (_ANY_WORD if self is LEADING else Evidence(self.key, ANY))

    def describe(self, evidence: Evidence) -> str | None:
        return "a content word" if evidence.shown == ANY else super().describe(evidence)

    def counts(self, evidence: Evidence) -> bool:
        return evidence.shown != ANY

    def covers(self, earlier: Any, later: Any) -> bool:
        # Any listed entry that holds has a first content word, which is all '*' asks.
        if later and any(map(_is_any, earlier)):
            return True
        return super().covers(earlier, later)

    def _listed(self, condition: Condition, view: PromptView) -> Evidence | None:
        """The evidence of the listed entries (not the wildcard), on a prompt with content."""
        typo = condition.flag
        if view.has_index:  # only the entries whose first word the first content word hits
            return best_found(
                self.key,
                (
                    (entry, _lead_in_view(words, view, typo=typo))
                    for entry, words in entries_starting(condition, view.lead_words)
                ),
            )
        return best_entry(
            self.key,
            condition.values,
            lambda entry: _lead_in_view(phrase_tokens(entry), view, typo=typo),
        )

    def gate(self, condition: Condition) -> frozenset[str] | None:
        return None if ANY in condition.values else phrase_keys(condition)

    def gate_plan(self, keys: frozenset[str]) -> KeyPlan:
        return keys_by_word(keys, first=True)

    def present(self, view: PromptView, plan: KeyPlan) -> frozenset[str]:
        # An entry holds only if each of its words is hit by the content word at its
        # place (the index path of match checks the same): those keys are present.
        lead = view.lead_words
        if not lead:
            return _NONE  # (the one empty answer, shared)
        found: list[str] = []
        for word in lead:  # (the few lead words, not the plan)
            group = plan.get(word)
            if group is None:
                continue
            for key, words in group:
                if len(words) == 1:
                    found.append(key)
                    continue
                content = view.content_head(len(words))
                if len(content) != len(words):
                    continue
                for want, token in zip(words[1:], content[1:], strict=True):
                    for w, _ in view.hits_of(token):
                        if w == want:
                            break
                    else:  # the content word at this place does not hit ``want``
                        break
                else:  # (plain loops: no generator frames on every prompt)
                    found.append(key)
        return frozenset(found)

    def native(self, condition: Condition) -> tuple[Any, ...]:
        # best_found over the entries the first content word starts (entry_plan's; typos
        # as _lead_in_view lets them), else the wildcard's evidence
        wildcard = _ANY_WORD if self is LEADING else Evidence(self.key, ANY)
        has_any = _has_any.get(condition)
        return ("leading", entry_plan.get, condition, condition.flag, has_any, self.key, wildcard)

    def native_gate(self, plan: KeyPlan) -> tuple[Any, ...]:
        return ("leading", plan)

    def words(self, condition: Condition) -> tuple[str, ...]:
        return tuple(w for entry in condition.values for w in phrase_tokens(entry))

    def lints(self, rules: Sequence[Any], known_contexts: frozenset[str]) -> Iterator[Lint]:
        del known_contexts
        yield from list_lints(
            self.key,
            "leading word",
            rules,
            lambda p: ANY if _is_any(p) else " ".join(phrase_tokens(p)),
            wildcard=ANY,
        )

    def strategy(self, words: SearchStrategy[str]) -> SearchStrategy[Any]:
        from hypothesis import strategies as st

        entries = st.one_of(words, words, words, st.just(ANY))
        return st.lists(entries, max_size=3).map(tuple)


LEADING = LeadingKind()
_NONE: frozenset[str] = frozenset()
_ANY_WORD = Evidence(LEADING.key, ANY)
"""The wildcard's evidence (immutable: made once, not per prompt)."""
