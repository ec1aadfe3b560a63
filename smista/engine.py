"""The compiled rule matcher: first-match-wins over priority-ordered rules.

Pure; standard library plus rapidfuzz, no pydantic (the fast CLI path and the
tier router use it directly). Rules are plain tuples whose labels are strings
(task intents for the classifier, tier ids for the tier router). The matcher
gives exactly the answer of evaluating every rule in ``(priority, index)``
order with :func:`smista.fuzzy.match_keyword`, without scanning every rule:

* keywords are lowercased once and indexed to the rules that list them;
* each distinct prompt token is looked up once in a bounded memo that maps it
  to the ``(rank, rule, keyword position, fuzzy)`` entries it satisfies; a
  miss finds exact entries by dictionary lookup and typo entries by comparing
  only keywords whose length is within their typo cap of the token's;
* the winner is the lowest-ranked candidate whose context condition holds.

Must never perform I/O, read the environment, or consult a model.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from contextlib import suppress
from typing import NamedTuple

from rapidfuzz import process
from rapidfuzz.distance import OSA

from smista.fuzzy import fuzzy_cap
from smista.tokenizer import rust_lower

__all__ = ["MEMO_LIMIT", "CompiledRules", "RuleMatch", "RuleSpec", "confidence_of", "reason_of"]

MEMO_LIMIT = 1 << 16
"""Most distinct tokens remembered per compiled rule set (oldest evicted first)."""

_OSA = OSA.distance


class RuleSpec(NamedTuple):
    """A rule as the matcher sees it."""

    label: str
    priority: int
    keywords: tuple[str, ...]
    contexts: tuple[str, ...]


class RuleMatch(NamedTuple):
    """The outcome of matching: the winning rule (``None`` = default) and its evidence.

    ``keyword`` is the configured spelling of the keyword that satisfied the
    rule (``None`` when the rule has no keywords); ``context`` likewise.
    """

    rule: int | None
    label: str
    keyword: str | None = None
    fuzzy: bool = False
    context: str | None = None


def reason_of(match: RuleMatch) -> str:
    """The original's human-readable reason for an inferred result."""
    if match.rule is None:
        return f"no rule matched; default intent '{match.label}'"
    if match.keyword is not None and match.context is not None:
        return (
            f"keyword '{match.keyword}' and context '{match.context}' "
            f"matched rule {match.rule}"
        )
    if match.keyword is not None:
        return f"keyword '{match.keyword}' matched rule {match.rule}"
    if match.context is not None:
        return f"context '{match.context}' matched rule {match.rule}"
    return f"catch-all rule {match.rule} matched"


def confidence_of(match: RuleMatch) -> str:
    """The original's confidence label: ``low``, ``medium`` or ``high``."""
    if match.rule is None:
        return "low"
    has_keyword = match.keyword is not None
    has_context = match.context is not None
    if has_keyword and has_context:
        return "medium" if match.fuzzy else "high"
    if has_keyword or has_context:
        return "medium"
    return "low"


# (rank, rule index, keyword position in the rule, matched only by a typo)
_Entry = tuple[int, int, int, bool]
_NO_ENTRIES: tuple[_Entry, ...] = ()


class CompiledRules:
    """An immutable, picklable, thread-safe matcher for one rule set.

    The only mutable state is the token memo, a cache whose contents never
    change an answer; concurrent use can at worst compute an entry twice.
    """

    __slots__ = (
        "_bands",
        "_default",
        "_exact",
        "_keywordless",
        "_max_band",
        "_memo",
        "contexts",
        "keywords",
        "labels",
        "order",
        "specs",
    )

    def __init__(self, specs: Iterable[RuleSpec], default_label: str) -> None:
        self.specs: tuple[RuleSpec, ...] = tuple(specs)
        self._default = default_label
        self.labels = tuple(s.label for s in self.specs)
        self.keywords = tuple(s.keywords for s in self.specs)
        self.contexts = tuple(s.contexts for s in self.specs)
        self.order: tuple[int, ...] = tuple(
            sorted(range(len(self.specs)), key=lambda i: (self.specs[i].priority, i))
        )
        exact: dict[str, list[tuple[int, int, int]]] = {}
        keywordless: list[tuple[int, int]] = []
        for rank, index in enumerate(self.order):
            spec = self.specs[index]
            if not spec.keywords:
                keywordless.append((rank, index))
            for pos, keyword in enumerate(spec.keywords):
                exact.setdefault(rust_lower(keyword), []).append((rank, index, pos))
        self._exact: dict[str, tuple[tuple[int, int, int], ...]] = {
            k: tuple(v) for k, v in exact.items()
        }
        self._keywordless = tuple(keywordless)
        # Typo candidates by token length: keyword k is a candidate for tokens of
        # length n when |len(k) - n| <= cap(len(k)).
        bands: dict[int, list[str]] = {}
        for keyword in self._exact:
            cap = fuzzy_cap(len(keyword))
            for n in range(max(1, len(keyword) - cap), len(keyword) + cap + 1):
                if cap:
                    bands.setdefault(n, []).append(keyword)
        self._bands: dict[int, tuple[str, ...]] = {n: tuple(v) for n, v in bands.items()}
        self._max_band = max(self._bands, default=0)
        self._memo: dict[str, tuple[_Entry, ...]] = {}

    @property
    def default_label(self) -> str:
        return self._default

    def __getstate__(self) -> tuple[tuple[RuleSpec, ...], str]:
        return (self.specs, self._default)

    def __setstate__(self, state: tuple[tuple[RuleSpec, ...], str]) -> None:
        specs, default = state
        CompiledRules.__init__(self, specs, default)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CompiledRules):
            return NotImplemented
        return self.specs == other.specs and self._default == other._default

    def __hash__(self) -> int:
        return hash((self.specs, self._default))

    def match(self, tokens: Iterable[str], contexts: Collection[str] = ()) -> RuleMatch:
        """The winning rule for a prompt's ``tokens`` given the available ``contexts``."""
        memo = self._memo
        distinct = tokens if isinstance(tokens, (set, frozenset)) else set(tokens)
        found = list(map(memo.get, distinct))
        if None in found:
            found = [
                entries if entries is not None else self._entries(token)
                for token, entries in zip(distinct, found, strict=True)
            ]
        candidates = [entries for entries in found if entries]
        best_rank = len(self.order)
        best_rule = -1
        contexts_of = self.contexts
        for rank, index in self._keywordless:
            wanted = contexts_of[index]
            if not wanted or any(c in contexts for c in wanted):
                best_rank, best_rule = rank, index
                break
        if candidates:
            ranked: dict[int, int] = {}
            for entries in candidates:
                for rank, index, _pos, _fuzzy in entries:
                    if rank < best_rank:
                        ranked[rank] = index
            for rank in sorted(ranked):
                index = ranked[rank]
                wanted = contexts_of[index]
                if not wanted or any(c in contexts for c in wanted):
                    best_rank, best_rule = rank, index
                    break
        if best_rule < 0:
            return RuleMatch(None, self._default)
        return self._evidence(best_rule, candidates, contexts)

    def _evidence(
        self,
        index: int,
        candidates: Sequence[tuple[_Entry, ...]],
        contexts: Collection[str],
    ) -> RuleMatch:
        keywords = self.keywords[index]
        keyword: str | None = None
        fuzzy = False
        if keywords:
            exact_pos = len(keywords)
            fuzzy_pos = len(keywords)
            for entries in candidates:
                for _rank, rule, pos, is_fuzzy in entries:
                    if rule != index:
                        continue
                    if is_fuzzy:
                        fuzzy_pos = min(fuzzy_pos, pos)
                    else:
                        exact_pos = min(exact_pos, pos)
            if exact_pos < len(keywords):
                keyword = keywords[exact_pos]
            else:
                keyword, fuzzy = keywords[fuzzy_pos], True
        context = next((c for c in self.contexts[index] if c in contexts), None)
        return RuleMatch(index, self.labels[index], keyword, fuzzy, context)

    def _entries(self, token: str) -> tuple[_Entry, ...]:
        """Every (rank, rule, position, fuzzy) entry ``token`` satisfies; memoised."""
        entries: list[_Entry] = [
            (rank, index, pos, False) for rank, index, pos in self._exact.get(token, ())
        ]
        band = self._bands.get(len(token)) if len(token) <= self._max_band else None
        if band:
            for keyword, distance, _ in process.extract(
                token, band, scorer=_OSA, score_cutoff=2, limit=None
            ):
                if (
                    0 < distance <= fuzzy_cap(len(keyword))
                    and keyword not in token
                    and token not in keyword
                ):
                    entries.extend(
                        (rank, index, pos, True) for rank, index, pos in self._exact[keyword]
                    )
        result = tuple(entries) if entries else _NO_ENTRIES
        memo = self._memo
        if len(memo) >= MEMO_LIMIT:
            # Another thread may evict concurrently; losing that race is harmless.
            with suppress(StopIteration, KeyError, RuntimeError):
                del memo[next(iter(memo))]
        memo[token] = result
        return result
