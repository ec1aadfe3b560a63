"""The compiled rule matcher: first-match-wins over priority-ordered rules.

Pure; standard library only at import time (rapidfuzz is imported on first
heavy use, so the command line starts fast). Rules are plain tuples whose
labels are strings (task intents for the classifier, tier ids for the tier
router). The matcher gives exactly the answer of evaluating every rule in
``(priority, index)`` order with :func:`smista.core.fuzzy.match_keyword`, without
scanning rules or keywords:

* every keyword is lowercased once and indexed to the ``(rank, position,
  rule)`` places that list it (``rank`` = place in evaluation order);
* typo candidates come from a deletion-neighbourhood index (SymSpell style):
  a token within OSA distance ``d`` of a keyword shares with it a string
  reached by at most ``d`` deletions from each, so a token's few deletion
  variants find every candidate whatever the number of keywords; each
  candidate is then verified with the exact rules (length cap, containment,
  OSA distance). With the C extension the index is compact (8 bytes a
  variant, built in one C pass); without it, a dict, and once a rule set has
  learned a few hundred tokens, token lengths where a rapidfuzz scan of the
  keywords of compatible length is cheaper than generating deletion variants
  use that scan instead;
* tokens that can match no keyword (longer than every keyword plus its typo
  cap, or with more characters outside the keywords' alphabet than a typo
  may edit: numbers, hashes) are never resolved nor remembered;
* each other distinct token is resolved once into its sorted entries
  ``(rank, fuzzy, position, rule, match)`` and remembered in a bounded memo
  that forgets gradually (vocabulary repeats), so a prompt of known tokens
  costs a few set operations in C plus work proportional to the tokens that
  hit a keyword; an unseen token costs its own resolution, never the
  prompt's again;
* the winner is the smallest entry whose rule's context condition holds,
  compared with the first keyword-less rule whose context condition holds;
* a text longer than :data:`LARGE_TEXT` is matched piece by piece (cut at
  spaces and newlines), keeping only the best evidence per rule, so memory
  stays bounded by the piece size, the memo limit and the number of rules;
* when the optional C extension :mod:`smista.core._speedups` is built, token codes
  live in its bounded table (CLOCK eviction, keyed hash), and every prompt is
  one C pass over its characters, ASCII or not: known tokens are folded
  without creating objects, unknown ones are handed back to be resolved here
  and put in the table (with contexts, the pass returns just the few tokens
  that hit a rule, for the winner to be picked among their entries).
  The table only holds codes this module computed, so the answers are the
  same with or without it;
* a rule set using extension conditions (the verifying path) scans each
  prompt once too, with a table whose filter unites its keywords, the words
  its phrases and leading words look up, and its stems. Each token known to
  hit one of them has an interned payload there (its entries, the words and
  stems it hits), which the pass folds in C, once per payload; it hands back
  only the new tokens near one, resolved here and kept. Those are all the
  word/stem conditions ever look up.

Must never perform I/O, read the environment, or consult a model.
"""

from __future__ import annotations

import warnings
import weakref
from collections.abc import Callable, Collection, Iterable
from heapq import heappop, heappush
from itertools import chain, combinations, count, islice, repeat
from operator import itemgetter
from typing import Any, NamedTuple

import smista.core._implementation  # noqa: F401  SMISTA_IMPLEMENTATION, read once, before the try below
from smista.core.conditions.base import Condition, Evidence
from smista.core.conditions.markers import DEFAULT_MARKERS
from smista.core.conditions.registry import BY_KEY
from smista.core.conditions.signals import KEEP_CHARS, SCAN_LIMIT, SignalHits, TokenSignals
from smista.core.conditions.view import PlanOptions, PromptView, is_hangul_or_han, visible_text
from smista.core.osa import OSA_CHECK as _OSA
from smista.core.osa import cap as _cap
from smista.core.osa import osa_within
from smista.core.textmodel import TextModel
from smista.core.tokenizer import ASCII_TABLE, pieces, rust_lower, tokenize
from smista.core.walk import walker_of
from smista.core.wire import classification as _wire_classification

try:  # the optional compiled hot path (see hatch_build.py); same answers without it
    from smista.core._speedups import TokenCodes as _TokenCodes
    from smista.core._speedups import VariantIndex as _VariantIndex
except ImportError:  # pragma: no cover - exercised on machines without a C compiler
    _TokenCodes = None  # type: ignore[assignment,misc]
    _VariantIndex = None  # type: ignore[assignment,misc]

__all__ = [
    "ACCELERATED",
    "FORMAT",
    "LARGE_TEXT",
    "MEMO_LIMIT",
    "OUTCOMES_LIMIT",
    "CompiledRules",
    "RuleMatch",
    "RuleSpec",
    "confidence_of",
    "osa_within",
    "reason_and_confidence",
    "reason_of",
    "wire_of",
]

ACCELERATED = _TokenCodes is not None
"""Whether the compiled hot path (:mod:`smista.core._speedups`) is available here."""

_PAST = 1 << 62
"""A rank past every rule's (the merge of candidates in :meth:`CompiledRules._match_view`)."""
_NEVER = _PAST + 1
"""Past every rank, and past ``_PAST`` too: the rank of a gate that does not exist."""

MEMO_LIMIT = 1 << 17
"""Most distinct tokens remembered per compiled rule set. Past it the memo
forgets gradually: the C table evicts one token its CLOCK hand finds unused,
the Python memo drops its oldest quarter (never everything at once). Only
tokens that could match are held, so the C table stays under about 8 MB of
slots plus its keys longer than 16 bytes (each at most four bytes a
character of the longest keyword plus its typo cap, or of
:data:`~smista.core.conditions.signals.KEEP_CHARS` for a rule set with extension kinds)."""

OUTCOMES_LIMIT = 4096
"""Most distinct outcomes (:class:`RuleMatch` values) a rule set with extension kinds
numbers for :meth:`CompiledRules.match_code`, and a classifier keeps results for. An
outcome's evidence can quote the prompt (the command a wildcard ``commands`` condition
matched), so distinct outcomes are not bounded by the rules: past the limit the table
starts over, and an outcome met again is made again. 30,000 distinct realistic prompts
give about 1,400 with the default pack."""

LARGE_TEXT = SCAN_LIMIT
"""Texts longer than this (characters) are matched piece by piece, in bounded memory."""

FORMAT = 4
"""Version of :meth:`CompiledRules.to_data`'s layout (bump on any change).
Format 4 stores no typo index: it is rebuilt from the keywords (in C, in a
fraction of a second for 10,000 rules)."""


class RuleSpec(NamedTuple):
    """A rule as the matcher sees it.

    ``keywords`` and ``contexts`` (the original's two kinds) are matched
    through the token index; ``conditions`` are the extension kinds' compiled
    conditions, in reason order, verified on a :class:`PromptView`; ``typo``
    is the rule's typo switch (it applies to keywords here).
    """

    label: str
    priority: int
    keywords: tuple[str, ...]
    contexts: tuple[str, ...]
    conditions: tuple[Condition, ...] = ()
    typo: bool = True


class RuleMatch(NamedTuple):
    """The outcome of matching: the winning rule (``None`` = default) and its evidence.

    ``keyword`` is the configured spelling of the keyword that satisfied the
    rule (``None`` when the rule has no keywords); ``context`` likewise;
    ``extra`` the evidence of the rule's extension conditions, in reason order.
    """

    rule: int | None
    label: str
    keyword: str | None = None
    fuzzy: bool = False
    context: str | None = None
    extra: tuple[Evidence, ...] = ()


_new = tuple.__new__
"""``_new(RuleMatch, (every field))`` is ``RuleMatch(*fields)`` without the Python-level
``__new__`` a named tuple's class call runs (hot paths only)."""
_new_object = object.__new__
"""``_new_object(PromptView)``: an instance whose ``__init__`` the caller then runs."""
_first = itemgetter(0)
"""The word of a ``(word, fuzzy)`` hit."""


def _evidence(match: RuleMatch) -> list[Evidence]:
    """Every condition's evidence in reason order (keywords first, contexts last)."""
    found: list[Evidence] = []
    if match.keyword is not None:
        found.append(_new(Evidence, ("keywords", match.keyword, match.fuzzy)))
    found.extend(match.extra)
    if match.context is not None:
        found.append(Evidence("requires_any_context", match.context))
    return found


def reason_of(match: RuleMatch) -> str:
    """The human-readable reason for an inferred result.

    The parts each condition kind words, in reason order, joined by "and":
    for the original's kinds exactly the original's reasons.
    """
    return reason_and_confidence(match)[0]


def confidence_of(match: RuleMatch) -> str:
    """The confidence label: ``low``, ``medium`` or ``high``.

    Counts the signals that held (a keyword, a context, and each extension
    kind that counts, see :meth:`ConditionKind.counts`): none is ``low``, one
    ``medium``, two or more ``high`` unless one was a typo (``medium``). For
    the original's kinds this is exactly the original's table.
    """
    return reason_and_confidence(match)[1]


_PARTS: dict[Evidence, tuple[str | None, bool]] = {}
"""Each evidence met: its kind's ``describe`` and ``counts`` of it (both pure functions of
the evidence, so a new outcome made of evidence met before calls no kind's method)."""
_PARTS_LIMIT = 4096
"""Evidence :data:`_PARTS` keeps; past it, the table starts over (as the outcomes do)."""


def _part(e: Evidence) -> tuple[str | None, bool]:
    """``(describe(e), counts(e))`` by ``e``'s kind, remembered (:data:`_PARTS`) when what
    it shows is at most :data:`KEEP_CHARS` long: evidence can quote the prompt (a wildcard
    ``commands`` condition's command, of any length), and this table is the process's, not
    a classifier's, so it never holds a long quote."""
    found = _PARTS.get(e)
    if found is None:
        kind = BY_KEY[e.kind]
        found = (kind.describe(e), kind.counts(e))
        if e.shown is None or len(e.shown) <= KEEP_CHARS:
            if len(_PARTS) >= _PARTS_LIMIT:
                _PARTS.clear()
            _PARTS[e] = found
    return found


def reason_and_confidence(match: RuleMatch) -> tuple[str, str]:
    """``(reason_of(match), confidence_of(match))``, in one pass over the evidence."""
    if match.rule is None:
        return f"no rule matched; default intent '{match.label}'", "low"
    parts: list[str] = []
    signals = 0
    fuzzy = False
    for e in _evidence(match):
        part, counts = _PARTS.get(e) or _part(e)
        if part is not None:
            parts.append(part)
        if counts:
            signals += 1
            fuzzy = fuzzy or e.fuzzy
    if parts:
        reason = f"{' and '.join(parts)} matched rule {match.rule}"
    elif match.extra:
        reason = f"rule {match.rule} matched: none of its exclusions occur"
    else:
        reason = f"catch-all rule {match.rule} matched"
    if signals >= 2:
        return reason, "medium" if fuzzy else "high"
    return reason, "medium" if signals else "low"


def wire_of(match: RuleMatch) -> dict[str, object]:
    """The wire JSON object of an inferred result (see :mod:`smista.core.wire`)."""
    reason, confidence = reason_and_confidence(match)
    return _wire_classification(match.label, "inferred", reason, match.rule, confidence)


_BAND_AFTER = 256
"""Tokens a rule set learns before it may use rapidfuzz scans (imported then)."""


def _extract(token: str, band: tuple[str, ...], **kwargs: Any) -> list[tuple[str, int, int]]:
    from rapidfuzz import process

    global _extract
    _extract = process.extract  # type: ignore[assignment]
    return process.extract(token, band, **kwargs)


# ---------------------------------------------------------------------------
# Deletion neighbourhoods


def _deletions(word: str, depth: int) -> set[str]:
    """``word`` and every string reached from it by 1..``depth`` single deletions."""
    out = {word}
    n = len(word)
    if depth >= 1:
        out.update(word[:i] + word[i + 1 :] for i in range(n))
    if depth >= 2:
        out.update(word[:i] + word[i + 1 : j] + word[j + 1 :] for i, j in combinations(range(n), 2))
    return out


def _token_variants(token: str, levels: tuple[bool, bool, bool]) -> set[str]:
    """The deletion variants of ``token`` at the depths some keyword needs."""
    n = len(token)
    out: set[str] = {token} if levels[0] else set()
    if levels[1]:
        out.update(token[:i] + token[i + 1 :] for i in range(n))
    if levels[2]:
        out.update(
            token[:i] + token[i + 1 : j] + token[j + 1 :] for i, j in combinations(range(n), 2)
        )
    return out


# (rank, fuzzy 0/1, keyword position in the rule, rule index, match when no context is needed)
_Entry = tuple[int, int, int, int, RuleMatch | None]
# (tokens that satisfy no rule, token -> its entries, token -> its outcome code)
_Found = tuple[
    list[tuple[_Entry, ...]], set[str], set[str], dict[str, tuple[tuple[str, bool], ...]]
]
"""What a prompt's scan found: entry lists (folded piece by piece), the words and the
stems its tokens hit, and each word-hitting token's words."""

_Hits = tuple[tuple[str, bool], ...]
"""The words a token hits, and whether by typo (what ``TokenSignals.of`` gives first)."""

_State = tuple[dict[str, None], dict[str, tuple[_Entry, ...]], dict[str, int]]
# The verifying table's filter: keywords and words, their caps, the deletion depths
# by token length, the longest token, the alphabet, the most foreign characters,
# the stems (first 255 characters) and their lengths.
_Union = tuple[tuple[str, ...], tuple[int, ...], bytes, int, str, int, tuple[str, ...], bytes]


_DERIVED = (
    "order",
    "_exact",
    "_typo_places",
    "_keywordless",
    "_plan",
    "_by_gate",
    "_gate_plans",
    "_ungated",
    "_has_typo",
    "_max_len",
    "_max_cap",
    "_alphabet",
    "_foreign",
    "_levels",
    "_typo_keywords",
    "_typo_caps",
    "_union",
)
"""The slots :meth:`CompiledRules.__init__` derives from the specs and options alone
(plain data: :meth:`CompiledRules.derived_data` gives them, ``derived=`` takes them).
``_gate_plans`` is each gating kind's :meth:`ConditionKind.gate_plan` of its keys
(those of ``_by_gate``), stored so the first prompt does not build it; ``_typo_places``
is written as None when it equals ``_exact`` (every keyword may take a typo), so the
shipped module holds that table once."""


class CompiledRules:
    """An immutable, picklable, thread-safe matcher for one rule set.

    The only mutable state is the token memo, a cache whose contents never
    change an answer; concurrent use can at worst compute an entry twice.
    """

    __slots__ = (
        "__weakref__",
        "_accelerated",
        "_alphabet",
        "_bands",
        "_by_code",
        "_by_gate",
        "_checks",
        "_codes",
        "_exact",
        "_fast",
        "_foreign",
        "_free_code",
        "_free_default",
        "_free_rank",
        "_gate_plans",
        "_gates",
        "_half",
        "_has_typo",
        "_keywordless",
        "_learned",
        "_levels",
        "_matches",
        "_max_cap",
        "_max_len",
        "_near",
        "_near_depths",
        "_needs_context",
        "_no_free",
        "_numbers",
        "_plan",
        "_scan",
        "_signals",
        "_state",
        "_stride",
        "_typo",
        "_typo_caps",
        "_typo_keywords",
        "_typo_places",
        "_ungated",
        "_union",
        "_vindex",
        "_walker",
        "_words",
        "conditions",
        "contexts",
        "default_label",
        "extended",
        "keywords",
        "labels",
        "options",
        "order",
        "specs",
    )

    def __init__(
        self,
        specs: Iterable[RuleSpec],
        default_label: str,
        *,
        typo_index: dict[str, tuple[str, ...]] | None = None,
        accelerated: bool = True,
        options: PlanOptions | None = None,
        lookup_only: bool = False,
        derived: tuple[object, ...] | None = None,
    ) -> None:
        """Compile ``specs``; ``accelerated=False`` keeps to the pure-Python path.

        ``lookup_only``: the index is only asked :meth:`keyword_hits` (the word
        index of phrases and leading words), so no scan table is built for it.
        ``derived``: :meth:`derived_data` of these very specs and options, taken
        instead of deriving the tables again (the precompiled shipped pack);
        trusted as given, so never from anything a user can write.
        """
        self.specs: tuple[RuleSpec, ...] = tuple(specs)
        self.default_label = default_label
        self.options = options if options is not None else PlanOptions()
        # The specs' fields, each a tuple in spec order (transposed in one C call).
        columns = tuple(zip(*self.specs, strict=True)) if self.specs else ((),) * 6
        labels, _, keywords, contexts, conditions, _ = columns
        self.conditions: tuple[tuple[Condition, ...], ...] = conditions
        # Rule sets using extension kinds or options take the verifying path.
        self.extended = any(self.conditions) or self.options != PlanOptions()
        self._codes: dict[RuleMatch, int] = {}
        # The words phrases and leading words look up, in an index of their own.
        if derived is None:
            words: Iterable[str] = sorted(
                {w for c in chain.from_iterable(self.conditions) for w in BY_KEY[c.kind].words(c)}
            )
            words_derived = None
        else:
            tables, words, words_derived = derived  # type: ignore[assignment]
        self._words = (
            CompiledRules(
                _word_specs(words),
                "",
                accelerated=accelerated,
                lookup_only=True,
                derived=words_derived,  # type: ignore[arg-type]
            )
            if words
            else None
        )
        stems = {
            p for c in chain.from_iterable(self.conditions) for p in BY_KEY[c.kind].prefixes(c)
        }
        words_index = self._words
        compiled = accelerated and _TokenCodes is not None
        self._signals = TokenSignals(
            words_index.keyword_hits if words_index is not None else None,
            words_index._hopeless if words_index is not None else None,
            stems,
            MEMO_LIMIT,
        )
        self.labels: tuple[str, ...] = labels
        self.keywords: tuple[tuple[str, ...], ...] = keywords
        self.contexts: tuple[tuple[str, ...], ...] = contexts
        self._needs_context = tuple(map(bool, contexts))
        self._matches: dict[tuple[int, int, int], RuleMatch] = {}
        if derived is None:
            self._derive_order()
            self._derive_typos()
            self._union = self._union_filter(words_index, stems) if self.extended else None
        else:
            if type(tables) is not tuple or len(tables) != len(_DERIVED):
                raise ValueError("derived tables of another shape")
            restored = dict(zip(_DERIVED, tables, strict=True))
            if restored["_typo_places"] is None:  # (see _DERIVED)
                restored["_typo_places"] = restored["_exact"]
            for name, value in restored.items():
                setattr(self, name, value)
        keywordless = self._keywordless
        free = next(
            ((r, i) for r, i in keywordless if not self.contexts[i] and not self.conditions[i]),
            None,
        )
        if free is None:
            self._free_rank = len(self.order)
            self._free_default = RuleMatch(None, default_label)
        else:
            self._free_rank = free[0]
            self._free_default = RuleMatch(free[1], self.labels[free[1]])
        # Outcome codes order entries like (rank, fuzzy, position) tuples.
        self._half = max(map(len, keywords), default=0) + 1
        self._stride = 2 * self._half
        self._free_code = self._free_rank * self._stride
        self._no_free = (len(self.order) + 1) * self._stride
        self._numbers = count(self._no_free + 1)  # (outcome codes: _code_of_match)
        self._by_code: dict[int, RuleMatch] = {self._free_code: self._free_default}
        self._bands: tuple[tuple[str, ...] | None, ...] | None = None
        self._learned = 0
        self._state: _State = ({}, {}, {})
        # The typo index: in C (8 bytes a variant, built in one pass) when the
        # extension is there, holding every keyword (exact ones at depth 0,
        # so the scan can tell a token near no keyword); else Python's dict.
        # The C one is built on first use (False: not yet): the verifying scan
        # asks its own union index instead, so a first prompt never needs it.
        self._vindex: Any = None
        self._typo: dict[str, tuple[str, ...]] | None = typo_index
        if compiled:
            self._vindex = False
        elif typo_index is None:
            self._typo = self._build_typo_index()
        self._gates: tuple[tuple[int, Any, object, dict[str, tuple[int, ...]]], ...] | None = None
        self._checks: tuple[tuple[tuple[Any, Condition], ...], ...] | None = None
        # The compiled walk of the same plan (smista.core.walk), built for the second prompt
        # the verifying scan reads (False: none read yet; True: one; None: without the
        # extension, and the loop of _match_view runs).
        self._walker: Any = False
        self._fast = self._scan = None
        self._near: Any = None  # (the verifying scan's union index, see _new_token)
        self._near_depths = b""
        if compiled and self._union is not None:  # one scan for keywords, words and stems
            self._scan = self._verifying_table(self._union)
        elif compiled and not lookup_only:
            self._fast = _TokenCodes(
                MEMO_LIMIT,
                max_len=max(1, self._max_len),
                alphabet="".join(sorted(self._alphabet)),
                max_foreign=self._max_cap,
            )
            # Unknown tokens near no keyword are settled in the C scan itself.
            self._fast.attach(self._variant_index(), self._depth_bits())
        self._accelerated = accelerated

    # -- derived tables ---------------------------------------------------------

    def _derive_order(self) -> None:
        """The evaluation order, the exact and typo places of every keyword, and the
        gates of the keyword-less rules (the first part of :data:`_DERIVED`)."""
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
                lowered = keyword.lower() if keyword.isascii() else rust_lower(keyword)
                exact.setdefault(lowered, []).append((rank, pos, index))
        self._exact: dict[str, tuple[tuple[int, int, int], ...]] = {
            k: tuple(v) for k, v in exact.items()
        }
        # Places a typo of the keyword may take: rules whose typo switch is on
        # (and, with hangul_han_typos off, not for Hangul or Han keywords).
        han_typos = self.options.hangul_han_typos
        typo_of = [s.typo for s in self.specs]
        every_typo = all(typo_of)
        self._typo_places: dict[str, tuple[tuple[int, int, int], ...]] = {}
        for keyword, places in self._exact.items():
            if not han_typos and not keyword.isascii() and is_hangul_or_han(keyword):
                continue
            allowed = places if every_typo else tuple(p for p in places if typo_of[p[2]])
            if allowed:
                self._typo_places[keyword] = allowed
        self._keywordless = tuple(keywordless)
        # Keyword-less rules, in order, each with the gate of one of its
        # conditions (ConditionKind.gate): keys of which one must be present
        # for the rule to hold, so most are never looked at (see _by_gate).
        plan: list[tuple[int, int, str | None]] = []
        # Plan positions by gate key: a prompt's present keys name the few
        # keyword-less rules that can hold, so the others are never looked at.
        by_gate: dict[str, dict[str, list[int]]] = {}
        ungated: list[int] = []
        for rank, index in keywordless:
            gates = [
                (c.kind, g)
                for c in self.conditions[index]
                if (g := BY_KEY[c.kind].gate(c)) is not None
            ]
            if gates:
                kind, keys = min(gates, key=lambda kg: len(kg[1]))
                for key in sorted(keys):  # (sorted: the same tables in every process)
                    by_gate.setdefault(kind, {}).setdefault(key, []).append(len(plan))
                plan.append((rank, index, kind))
            else:
                ungated.append(len(plan))
                plan.append((rank, index, None))
        self._plan = tuple(plan)
        self._by_gate = {
            kind: {key: tuple(ats) for key, ats in by_key.items()}
            for kind, by_key in by_gate.items()
        }
        self._ungated = tuple(ungated)
        self._gate_plans: dict[str, object] = {
            kind: BY_KEY[kind].gate_plan(frozenset(by_key))
            for kind, by_key in self._by_gate.items()
        }

    def _derive_typos(self) -> None:
        """What a token must be like to match a keyword, and the typo index's keyword
        positions and caps (the rest of :data:`_DERIVED`)."""
        # What a token must be like to match some keyword: at most this long,
        # with at most this many characters outside the keywords' alphabet
        # (each costs an edit); other tokens are never resolved nor memoized.
        typo_caps = {k: _cap(len(k)) for k in self._typo_places}
        self._has_typo = any(typo_caps.values())
        self._max_len = max((len(k) + typo_caps.get(k, 0) for k in self._exact), default=0)
        self._max_cap = max(typo_caps.values(), default=0)
        self._alphabet = frozenset(chain.from_iterable(self._exact))
        self._foreign = str.maketrans(dict.fromkeys(sorted(self._alphabet)))
        self._levels = self._depth_levels(typo_caps)
        self._typo_keywords = tuple(self._exact)  # the C index's keyword positions
        self._typo_caps = tuple(typo_caps.get(k, 0) for k in self._typo_keywords)

    def derived_data(self) -> tuple[object, ...]:
        """The tables :meth:`__init__` derives from the specs and options, as plain
        data (tuples, dicts, frozensets, strings, ints, bools) for ``derived=``: this
        rule set's :data:`_DERIVED` slots, its word index's words and their tables."""
        words = self._words
        tables = {name: getattr(self, name) for name in _DERIVED}
        if tables["_typo_places"] == tables["_exact"]:
            tables["_typo_places"] = None  # (see _DERIVED)
        return (
            tuple(tables.values()),
            tuple(words.labels) if words is not None else (),
            words.derived_data() if words is not None else None,
        )

    @property
    def accelerated(self) -> bool:
        """Whether this rule set answers known ASCII prompts in compiled code."""
        return self._fast is not None

    # -- construction ---------------------------------------------------------

    def _union_filter(self, words: CompiledRules | None, stems: Collection[str]) -> _Union:
        """The filter of the verifying path's token table (see :meth:`_verifying_table`):
        the union of the rule set's and the word index's, every keyword and word with
        the larger of its typo caps, the deletion depths either allows, and the
        longest and most foreign token either can match (past which only the stems
        are looked at)."""
        caps = dict(zip(self._typo_keywords, self._typo_caps, strict=True))
        depths = self._depth_bits()
        max_len, alphabet, max_cap = self._max_len, set(self._alphabet), self._max_cap
        if words is not None:
            for keyword, cap in zip(words._typo_keywords, words._typo_caps, strict=True):
                if cap > caps.get(keyword, -1):
                    caps[keyword] = cap
        for index in (self, words):
            if index is None:
                continue
            other = index._depth_bits()
            longest = max(len(depths), len(other))
            depths = bytes(
                (depths[n] if n < len(depths) else 0) | (other[n] if n < len(other) else 0)
                for n in range(longest)
            )
            max_len = max(max_len, index._max_len)
            alphabet.update(index._alphabet)
            max_cap = max(max_cap, index._max_cap)
        # A stem past the C index's 255 characters is indexed by its first 255: a
        # token starting with it starts with those (Python decides the rest).
        kept = tuple(sorted({s[:255] for s in stems if s}))
        return (
            tuple(caps),
            tuple(caps.values()),
            depths,
            max_len,
            "".join(sorted(alphabet)),
            max_cap,
            kept,
            bytes(sorted({len(s) for s in kept})),
        )

    def _verifying_table(self, union: _Union) -> Any:
        """The verifying path's token table: its one scan of a prompt settles in C every
        new token that is no keyword or looked-up word nor a typo of one (verified there)
        and starts no stem (a token too long or too foreign for every keyword and word is
        still handed back when it may start a stem). ``union``: :meth:`_union_filter`'s."""
        keys, caps, depths, max_len, alphabet, max_cap, kept, lengths = union
        table = _TokenCodes(
            MEMO_LIMIT, max_len=max(1, max_len), alphabet=alphabet, max_foreign=max_cap
        )
        near = self._near = _VariantIndex(keys, caps)  # (kept: see _new_token)
        self._near_depths = depths
        table.attach(near, depths, _VariantIndex(kept, (0,) * len(kept)), lengths)
        return table

    def _build_typo_index(self) -> dict[str, tuple[str, ...]]:
        index: dict[str, list[str]] = {}
        for keyword in self._typo_places:
            cap = _cap(len(keyword))
            if cap:
                for variant in _deletions(keyword, cap):
                    index.setdefault(variant, []).append(keyword)
        return {v: tuple(k) for v, k in index.items()}

    def _depth_levels(self, caps: dict[str, int]) -> tuple[tuple[bool, bool, bool], ...]:
        """Per token length: which deletion depths of the token can meet a keyword's
        (``caps``: the typo cap of each keyword typos may take)."""
        lengths = {(len(k), cap) for k, cap in caps.items() if cap}
        longest = max((n for n, _ in lengths), default=0) + 2
        levels: list[tuple[bool, bool, bool]] = []
        for n in range(longest + 1):
            # token depth t meets keyword depth d when n - t == len(k) - d, d <= cap
            meets = [
                any(t <= cap and 0 <= length - (n - t) <= cap for length, cap in lengths)
                for t in (0, 1, 2)
            ]
            levels.append((meets[0], meets[1], meets[2]))
        return tuple(levels)

    def _depth_bits(self) -> bytes:
        """``_levels`` as bit sets (1: the token itself, 2: one deletion, 4: two)."""
        return bytes(a | b << 1 | c << 2 for a, b, c in self._levels)

    def _typo_index(self) -> dict[str, tuple[str, ...]]:
        """The Python typo index (built on first use when the C one serves matching)."""
        typo = self._typo
        if typo is None:
            typo = self._typo = self._build_typo_index()
        return typo

    def _hopeless(self, token: str) -> bool:
        """Whether ``token`` can match no keyword: too long, or too many foreign characters.

        Exact matches need every character in a keyword; a typo allows at most
        ``_max_cap`` edits and each character outside the keywords' alphabet
        needs one of its own.
        """
        if len(token) > self._max_len:
            return True
        # (each occurrence of a foreign character needs an edit of its own)
        return len(token.translate(self._foreign)) > self._max_cap

    def _enable_bands(self) -> None:
        """Switch token lengths where a C scan of same-length keywords is cheaper.

        Deletion variants cost about the same whatever the rule set, but grow
        quadratically with token length; a rapidfuzz scan over the keywords a
        token's length allows costs per keyword. Each length uses the cheaper.
        """
        from rapidfuzz.distance import OSA

        _OSA.fast = OSA.distance
        typo_keywords = [(k, _cap(len(k))) for k in self._typo_places if _cap(len(k))]
        bands: list[tuple[str, ...] | None] = []
        for n, level in enumerate(self._levels):
            band = tuple(k for k, cap in typo_keywords if abs(len(k) - n) <= cap)
            variants = level[0] + level[1] * n + level[2] * n * (n - 1) // 2
            # nanoseconds, measured: Python builds a string per variant; the
            # C typo index hashes a buffer
            per_variant, fixed = (17, 100) if self._vindex is not None else (110, 600)
            deletion_cost = fixed + per_variant * variants
            band_cost = 1500 + 60 * len(band)
            bands.append(band if band and band_cost < deletion_cost else None)
        self._bands = tuple(bands)

    # -- pickling, equality, cache data ----------------------------------------

    def __getstate__(self) -> tuple[tuple[RuleSpec, ...], str, bool, PlanOptions]:
        return (self.specs, self.default_label, self._accelerated, self.options)

    def __setstate__(self, state: tuple[tuple[RuleSpec, ...], str, bool, PlanOptions]) -> None:
        specs, default, accelerated, options = state
        CompiledRules.__init__(self, specs, default, accelerated=accelerated, options=options)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CompiledRules):
            return NotImplemented
        return (self.specs, self.default_label, self.options) == (
            other.specs,
            other.default_label,
            other.options,
        )

    def __hash__(self) -> int:
        return hash((self.specs, self.default_label, self.options))

    def to_data(self) -> tuple[object, ...]:
        """Plain data (tuples; str/int/bool only) for a cache; see :meth:`from_data`.

        Deterministic: the same rules always give the same data. The typo
        index is derived from the keywords, so it is not stored.
        """
        specs = tuple(
            (
                s.label,
                s.priority,
                tuple(s.keywords),
                tuple(s.contexts),
                tuple((c.kind, tuple(c.values), c.flag) for c in s.conditions),
                s.typo,
            )
            for s in self.specs
        )
        return (FORMAT, self.default_label, specs, options_to_data(self.options))

    @classmethod
    def from_data(cls, data: object, derived: tuple[object, ...] | None = None) -> CompiledRules:
        """Rebuild from :meth:`to_data` output; ``ValueError`` if its shape is wrong.

        Every field is type-checked, unless ``derived`` is given: that is
        :meth:`derived_data` of the same rules, from smista's own generated module
        only, which holds ``data`` too; both are trusted as given, and the tables
        are not derived again.
        """
        if derived is not None:
            return cls._trusted(data, derived)
        if not (type(data) is tuple and len(data) == 4 and data[0] == FORMAT):
            raise ValueError("not compiled rules data of this format")
        _, default, raw_specs, raw_options = data
        if type(default) is not str or type(raw_specs) is not tuple:
            raise ValueError("bad compiled rules header")
        specs: list[RuleSpec] = []
        for raw in raw_specs:
            if not (type(raw) is tuple and len(raw) == 6):
                raise ValueError("bad rule")
            label, priority, keywords, contexts, raw_conditions, typo_on = raw
            if not (
                type(label) is str
                and type(priority) is int
                and _str_tuple(keywords)
                and _str_tuple(contexts)
                and type(raw_conditions) is tuple
                and type(typo_on) is bool
            ):
                raise ValueError("bad rule")
            conditions: list[Condition] = []
            for cond in raw_conditions:
                if not (
                    type(cond) is tuple
                    and len(cond) == 3
                    and cond[0] in BY_KEY
                    and not BY_KEY[cond[0]].indexed
                    and _str_tuple(cond[1])
                    and type(cond[2]) is bool
                ):
                    raise ValueError("bad rule condition")
                conditions.append(Condition(*cond))
            specs.append(RuleSpec(label, priority, keywords, contexts, tuple(conditions), typo_on))
        return cls(specs, default, options=options_from_data(raw_options), derived=derived)

    @classmethod
    def _trusted(cls, data: Any, derived: tuple[object, ...]) -> CompiledRules:
        """:meth:`from_data` of smista's own generated data: no field is checked."""
        _, default, raw_specs, raw_options = data
        specs = [
            RuleSpec(label, priority, keywords, contexts, tuple(Condition(*c) for c in raw), typo)
            for label, priority, keywords, contexts, raw, typo in raw_specs
        ]
        return cls(specs, default, options=_trusted_options(raw_options), derived=derived)

    # -- matching ------------------------------------------------------------

    def match_text(self, text: str, contexts: Collection[str] = ()) -> RuleMatch:
        """The winning rule for prompt ``text`` given the available ``contexts``."""
        if self.extended:
            return self._match_view(text, contexts)
        if not contexts:
            return self._by_code[self.match_code(text)]
        fast = self._fast
        if fast is not None and len(text) <= LARGE_TEXT:  # (hits repeat: bound the list)
            found, unknown = fast.hits(text)
            known = self._state[1]
            entries: list[tuple[_Entry, ...]] = []
            for token in found:
                got = known.get(token)
                if got is None:  # evicted from the Python memo, or not ASCII
                    got = self._resolve(token, fast)[0]
                if got:
                    entries.append(got)
            for token in unknown:
                got = self._resolve(token, fast)[0]
                if got:
                    entries.append(got)
            return self._decide(entries, contexts)
        if len(text) > LARGE_TEXT:
            return self._decide([self._large_entries(text)], contexts)
        return self.match(tokenize(text), contexts)

    def text_matcher(self) -> Callable[[str, Collection[str]], RuleMatch]:
        """:meth:`match_text` itself, or for rule sets with extension kinds the verifying
        path it calls (bound once by a classifier: one call less on every prompt)."""
        return self._match_view if self.extended else self.match_text

    def match(self, tokens: Iterable[str], contexts: Collection[str] = ()) -> RuleMatch:
        """The winning rule for a prompt's ``tokens`` given the available ``contexts``.

        Rule sets with extension conditions need the text itself (slash
        commands, questions): use :meth:`match_text` for them.
        """
        if self.extended:
            return self._match_view(" ".join(tokens), contexts)
        distinct = tokens if isinstance(tokens, (set, frozenset)) else set(tokens)
        rest = distinct.difference(self._state[0])
        if not contexts:
            return self._by_code[self._code_of_rest(rest)]
        return self._decide(self._learn(rest) if rest else (), contexts)

    def match_code(self, text: str) -> int:
        """``match_text(text)`` with no context, as an int; :meth:`match_of_code` reads it.

        This is the hot path of classification. With the C extension: one
        compiled pass over the prompt's characters folds the codes of the
        tokens it knows and hands back the ones it does not; only those are
        resolved (in Python) and put in its table. Otherwise: one tokenizing
        pass, one set built, one set difference against the tokens known to
        hit nothing (all in C), then a loop over the codes of the few tokens
        left, resolving the unknown ones.
        """
        if self.extended:
            return self._code_of_match(self._match_view(text, ()))
        fast = self._fast
        if fast is not None and len(text) <= LARGE_TEXT:
            got = fast.scan(text, self._free_code)
            if isinstance(got, int):
                return got
            best, unknown = got
            resolve = self._resolve
            for token in unknown if len(unknown) < 2 else dict.fromkeys(unknown):
                code = resolve(token, fast)[1]
                if code < best:
                    best = code
            return best
        if len(text) > LARGE_TEXT:
            return min(self._code_of_entries(self._large_entries(text)), self._free_code)
        if text.isascii():  # tokenize() inlined
            distinct = set(text.encode().translate(ASCII_TABLE).decode().split())
        else:
            distinct = set(tokenize(text))
        rest = distinct.difference(self._state[0])
        return self._code_of_rest(rest) if rest else self._free_code

    def _resolve(self, raw: str, fast: Any) -> tuple[tuple[_Entry, ...], int]:
        """The entries and code of a token the C scan handed back, recorded in its
        table (the code is ``_no_free`` when it hits nothing or only rules that need a
        context).

        ``raw`` is lowercased when ASCII, as written otherwise (Rust's
        lowercasing happens here); the table keys it as the scan does.
        """
        if raw.isascii():
            token = raw
        else:
            token = rust_lower(raw)
            if self._hopeless(token):  # (the scan's own lowercasing leaves final sigma here)
                fast.put(raw, None)
                return (), self._no_free
        entries = self._state[1].get(token)
        if entries is None:
            entries = self._entries(token)
            if not entries:
                fast.put(raw, None)
                return (), self._no_free
            code = self._remember(token, entries)
        else:
            code = self._code_of_entries(entries)
        fast.put(raw, code)
        return entries, code

    def _scan_piece(
        self, text: str, scan: Any, found: _Found, features: Any = None
    ) -> bytes | None:
        """Fold into ``found`` what the tokens of ``text`` hit: the verifying table's one
        pass folds the known tokens' payloads in C (their entries, the words and stems
        they hit), and the new tokens near a keyword, word or stem are resolved here,
        folded and kept. With ``features`` (the text model's ``feature_table()``), the
        same pass reads the ids of the model's features the text holds: returned, for
        ``TextModel.read`` (``None``: without it, or where the text must be read again)."""
        entry_lists, words, prefixes, hitting = found
        ids: bytes | None = None
        if features is None:
            unknown = scan.fold(text, entry_lists, words, prefixes, hitting)
        else:
            unknown, ids = scan.fold(text, entry_lists, words, prefixes, hitting, features)
        if unknown:
            self._resolve_new(unknown, entry_lists, words, prefixes, hitting)
        return ids

    def _resolve_new(
        self,
        unknown: list[str],
        entry_lists: list[tuple[_Entry, ...]],
        words: set[str],
        prefixes: set[str],
        hitting: dict[str, _Hits],
    ) -> None:
        """Resolve the new tokens the verifying scan handed back (near a keyword, word or
        stem): fold what each hits into the accumulators, and keep it in the scan's
        table for the next time it is met. Once :meth:`_attach_resolver` has run, the
        scan resolves those that start no stem itself, in the same way; the rest still
        come here."""
        resolve = self._new_token
        scan = self._scan
        assert scan is not None  # (only the verifying scan hands tokens back)
        keep = scan.keep
        for raw in unknown:
            ascii_token = raw.isascii()
            token = raw if ascii_token else rust_lower(raw)
            got, hit, starts = resolve(token)
            if got:
                entry_lists.append(got)
            if starts:
                prefixes.update(starts)
            if hit:
                hitting[token] = hit
                hit_words = tuple(map(_first, hit))
                words.update(hit_words)
                if len(raw) > KEEP_CHARS:  # (handed back again when met: see KEEP_CHARS)
                    continue
                # (the token itself, hashed already: fold() puts it in `hitting` as it is)
                keep(raw, (got, hit, hit_words, starts, token))
            elif len(raw) > KEEP_CHARS:
                continue
            elif got or starts:
                keep(raw, (got, hit, (), starts, None))
            else:
                keep(raw, None)

    def _attach_resolver(self) -> None:
        """Let the verifying scan resolve new tokens itself (``attach_resolver``): what
        :meth:`_new_token` reads, as tables (the keywords' places, the looked-up words,
        each rule's label, keywords and whether :meth:`_free_match` gives it a match,
        which the scan then makes as that does, on first need). The scan resolves a
        token near a keyword or word that starts no stem as :meth:`_new_token` does, and
        keeps it as :meth:`_resolve_new` does; the others (and those with a capital
        sigma, whose lowercase is Python's) are still handed back to it. Attached for
        the second prompt, with the compiled walk: a process that reads one prompt never
        builds the tables."""
        scan = self._scan
        assert scan is not None  # (only a rule set with a verifying scan compiles its walk)
        needs, conditions = self._needs_context, self.conditions
        words = self._words
        scan.attach_resolver(
            self._exact,
            self._typo_places,
            None if words is None else frozenset(words._exact),
            None if words is None else frozenset(words._typo_places),
            KEEP_CHARS,
            RuleMatch,
            self.labels,
            self.keywords,
            bytes(not (n or c) for n, c in zip(needs, conditions, strict=True)),
        )

    def _new_token(self, token: str) -> tuple[tuple[_Entry, ...], _Hits, tuple[str, ...]]:
        """What a lowercased token the verifying scan handed back hits: its entries (as
        :meth:`_learn` gives and remembers them) and the words and stems it hits (as
        ``TokenSignals.of`` does), resolved together. The scan's union index verifies the
        token's typos once for both indexes: a keyword's typo cap is its length's cap in
        every index that lets it take a typo (0 in the others), so the union's typos that
        an index lets take one are exactly that index's typos."""
        plain, known, _ = self._state
        signals = self._signals
        got = known.get(token)
        signal = signals.memo.get(token)
        if got is None and token in plain:
            got = ()
        if signal is None and token in signals.silent:
            signal = ((), ())
        if got is not None and signal is not None:  # (evicted from the scan's table only)
            return got, signal[0], signal[1]
        n = len(token)
        depths = self._near_depths
        typos: list[str] = (
            self._near.typos(token, depths[n]) if n < len(depths) and depths[n] else []
        )
        if got is None:
            got = self._learn_one(token, typos)
        if signal is None:
            words = self._words
            signal = signals.learn(token, words._hits_of(token, typos) if words else None)
        return got, signal[0], signal[1]

    def _learn_one(self, token: str, typos: list[str]) -> tuple[_Entry, ...]:
        """``_learn((token,))`` for a token the memo holds neither way, given the keywords
        of this or another index it is a typo of (see :meth:`_new_token`)."""
        places = self._typo_places
        entries = self._entries_with(token, [k for k in typos if k in places] if typos else typos)
        if not entries and self._hopeless(token):  # (a token with entries never is)
            return entries
        self._learned += 1
        self._keep_entries(token, entries)  # (no code: see _learn)
        return entries

    def _hits_of(self, token: str, typos: list[str]) -> _Hits:
        """``tuple(keyword_hits(token))`` given the keywords of this or another index
        ``token`` is a typo of (see :meth:`_new_token`)."""
        places = self._typo_places
        hits = [(token, False)] if token in self._exact else []
        if typos:
            hits.extend((k, True) for k in sorted(typos) if k in places)
        return tuple(hits)

    def _code_of_match(self, match: RuleMatch) -> int:
        """A code standing for ``match`` (extended rule sets), past every entry code. At
        most :data:`OUTCOMES_LIMIT` are held: then they are forgotten and numbering goes
        on past them, so a forgotten code never stands for another outcome."""
        codes = self._codes
        code = codes.get(match)
        if code is None:
            if len(codes) >= OUTCOMES_LIMIT:
                by_code = self._by_code
                for old in list(codes.values()):  # (a snapshot: other threads may insert)
                    by_code.pop(old, None)
                codes.clear()
            # (next() and setdefault() are each atomic: two threads racing for one match
            # agree on one code, and no code is ever given twice)
            code = codes.setdefault(match, next(self._numbers))
            self._by_code[code] = match
        return code

    def _compiled_walk(self) -> Any:
        """:meth:`_build_walker`, or ``None`` (the Python loop, with a warning) should it
        fail: the compiled walk is an optimisation, never a reason to refuse a prompt."""
        try:
            return self._build_walker()
        except Exception as exc:  # (a plan the C walker refuses: the loop reads it)
            warnings.warn(
                f"smista: the compiled walk could not be built ({exc}); "
                "prompts are read by the Python loop",
                RuntimeWarning,
                stacklevel=3,
            )
            return None

    def _build_walker(self) -> Any:
        """The C walker of this rule set's plan and verifying scan
        (:func:`smista.core.walk.walker_of`): ``None`` without the extension."""
        model = self.options.model
        lowered = tuple(
            tuple(k.lower() if k.isascii() else rust_lower(k) for k in keywords)
            for keywords in self.keywords
        )
        scan = (
            None
            if self._scan is None
            else (
                self._scan,
                None if model is None else model.feature_table(),
                _weak_resolver(self),
                visible_text,
                self.options.ignore_code,
                lowered,
                LARGE_TEXT,
                model is not None,
            )
        )
        return walker_of(
            plan=self._plan,
            ungated=self._ungated,
            by_gate=self._by_gate,
            gate_plans=self._gate_plans,
            labels=self.labels,
            keywords=self.keywords,
            contexts=self.contexts,
            conditions=self.conditions,
            options=self.options,
            signals=self._signals,
            default=RuleMatch(None, self.default_label),
            match_type=RuleMatch,
            scan=scan,
        )

    def _match_view(self, text: str, contexts: Collection[str]) -> RuleMatch:
        """First-match-wins with extension conditions verified on a :class:`PromptView`.

        Candidates are the rules some prompt token satisfies (through the
        index, best evidence per rule) and the keyword-less rules, in
        evaluation order; each is checked for its contexts, then for each
        extension condition, and the first that holds wins.
        """
        walker = self._walker
        if walker is True:  # a second prompt: the scan and the loop below, compiled
            self._attach_resolver()
            walker = self._walker = self._compiled_walk()
        elif walker is False and self._scan is not None:
            # (the first prompt is read here: a process that reads one, the CLI or a hook,
            # never pays for compiling the walk)
            self._walker = True
        if walker:
            matched: RuleMatch | None = walker.match(text, contexts)
            if matched is not None:
                return matched  # (None: a text past LARGE_TEXT, read piece by piece here)
        visible = visible_text(text) if self.options.ignore_code else text
        tokens: list[str] | None = None
        signal_hits: SignalHits | None = None
        scan = self._scan
        best: dict[int, _Entry] = {}
        # A text model reads keywords matched by typo as the keywords (PromptView):
        # gathered from the entries on the way, as corrections() states them.
        model = self.options.model
        corrected: set[str] | None = None if model is None else set()
        ids: bytes | None = None  # (the model's features, read by the scan: PromptView)
        if scan is not None:
            # One C pass (piece by piece past LARGE_TEXT: memory stays bounded by a
            # piece, the rules and the tokens that hit something) gives the tokens
            # known to hit a keyword, word or stem, and new ones near one (the
            # others are settled there); what they hit among the view's looked-up
            # words and stems is read on the way.
            folded: _Found = ([], set(), set(), {})
            one = len(visible) <= LARGE_TEXT
            features = model.feature_table() if one and model is not None else None
            for piece in (visible,) if one else pieces(visible, LARGE_TEXT):
                ids = self._scan_piece(piece, scan, folded, features)
                if folded[0]:
                    self._fold_entries(best, corrected, folded[0])
                    folded[0].clear()
            signal_hits = folded[1:]  # (the view reads the sets, never changes them)
            if walker:  # the loop below, compiled (smista.core.walk)
                return walker.walk(  # type: ignore[no-any-return]
                    text, visible, contexts, sorted(best.values()), signal_hits, corrected, ids
                )
        elif len(visible) > LARGE_TEXT:
            _fold(best, [self._large_entries(visible)])
            if corrected is not None:
                corrected.update(self.corrections(tokenize(visible)))
        else:
            tokens = tokenize(visible)
            learned = self._learn(set(tokens).difference(self._state[0]))
            self._fold_entries(best, corrected, learned)
        # PromptView(...) without the class call (it would gather keyword arguments into a
        # dict for __init__: type_call, slot_tp_init) nor __init__'s keywords: its _fill,
        # every argument positional and resolved (options given, visible computed).
        view = _new_object(PromptView)
        view._fill(
            text,
            contexts,
            self.options,
            visible,
            None if tokens is None else tuple(tokens),
            self._signals,
            None,
            signal_hits,
            corrected,
            ids,
        )
        hits = sorted(best.values())
        gates = self._gates
        if gates is None:  # in the order of each gate's first rule, then one past them all
            gates = self._gates = (
                *sorted(
                    (
                        self._plan[min(at for ats in by_key.values() for at in ats)][0],
                        BY_KEY[kind].present,
                        self._gate_plans[kind],
                        by_key,
                    )
                    for kind, by_key in self._by_gate.items()
                ),
                (_NEVER, None, None, {}),  # (never read: no candidate ranks past _PAST)
            )
        every = self._plan
        checks = self._checks
        if checks is None:  # each rule's conditions with their kinds' matchers, bound once
            checks = self._checks = tuple(
                tuple((BY_KEY[c.kind].match, c) for c in conditions)
                for conditions in self.conditions
            )
        contexts_of = self.contexts
        # Candidates in rank order: the keyword hits, merged with the keyword-less rules
        # (plan positions, in a heap). A gate is asked which of its rules may hold only
        # when the next candidate ranks at or past its first rule: once an earlier rule
        # holds, the later gates are never read.
        pending = list(self._ungated)  # (ascending: already a heap)
        n_hits = len(hits)
        h = g = 0
        last = -1
        gate_rank = gates[0][0]  # (the next gate's first rule; _NEVER past the last gate)
        while True:
            hit_rank = hits[h][0] if h < n_hits else _PAST
            plan_rank = every[pending[0]][0] if pending else _PAST
            while gate_rank <= hit_rank and gate_rank <= plan_rank:
                _, present, gate_plan, by_key = gates[g]
                keys = present(view, gate_plan)
                if keys:  # (else nothing is pending that was not: plan_rank stands)
                    for key in keys:
                        for at in by_key[key]:
                            heappush(pending, at)
                    plan_rank = every[pending[0]][0]
                g += 1
                gate_rank = gates[g][0]
            if hit_rank < plan_rank:
                hit: _Entry | None = hits[h]
                index = hits[h][3]
                h += 1
            elif pending:
                at = heappop(pending)
                if at == last:  # (a rule two of its gate's keys name)
                    continue
                last = at
                hit = None
                index = every[at][1]
            else:
                break
            context: str | None = None
            wanted = contexts_of[index]
            if wanted:
                context = next((c for c in wanted if c in contexts), None)
                if context is None:
                    continue
            extra: tuple[Evidence, ...] = ()
            check = checks[index]
            if check:
                found: list[Evidence] = []
                for match, condition in check:
                    evidence = match(condition, view)
                    if evidence is None:
                        break
                    found.append(evidence)
                else:
                    extra = tuple(found)
                if not extra:
                    continue
            # (RuleMatch(...) without its Python-level __new__: the same tuple)
            if hit is None:
                return _new(RuleMatch, (index, self.labels[index], None, False, context, extra))
            keyword = self.keywords[index][hit[2]]
            fuzzy = bool(hit[1])
            return _new(RuleMatch, (index, self.labels[index], keyword, fuzzy, context, extra))
        return RuleMatch(None, self.default_label)

    def memo_size(self) -> int:
        """How many distinct tokens the memo holds now (at most :data:`MEMO_LIMIT`)."""
        plain, hits, _ = self._state
        return len(plain) + len(hits)

    def reads_model(self, index: int) -> bool:
        """Whether rule ``index`` has a condition that reads the text model (``predicted``,
        ``likeliest``): its answer is the model's reading of the text, whatever its
        confidence label says."""
        return any(BY_KEY[c.kind].reads_model for c in self.conditions[index])

    def match_of_code(self, code: int) -> RuleMatch:
        """The :class:`RuleMatch` a :meth:`match_code` result stands for (``KeyError`` for
        the code of an outcome of a rule set with extension kinds that was forgotten since,
        :data:`OUTCOMES_LIMIT` newer outcomes later)."""
        return self._by_code[code]

    def _code_of_rest(self, rest: set[str] | frozenset[str]) -> int:
        """The outcome code given the tokens not known to hit nothing.

        Only tokens never seen are resolved (the rest of the prompt is not
        looked at again).
        """
        codes = self._state[2]
        best = self._free_code
        for token in rest:
            code = codes.get(token, -1)
            if code < 0:  # a token never seen (or one that can never match)
                found = self._learn((token,))
                if not found:
                    continue
                code = self._code_of_entries(found[0])
            if code < best:
                best = code
        return best

    def _code_of_entries(self, entries: tuple[_Entry, ...]) -> int:
        """The code of the best entry needing no context (or a code past every rule)."""
        for entry in entries:
            if entry[4] is not None:
                code = entry[0] * self._stride + entry[1] * self._half + entry[2]
                if code not in self._by_code:
                    self._by_code[code] = entry[4]
                return code
        return self._no_free

    def _large_entries(self, text: str) -> tuple[_Entry, ...]:
        """Match a huge text piece by piece: memory stays proportional to a piece.

        Pieces end at a space or newline (never inside a token); per rule only
        the best evidence seen so far is kept, so what accumulates is bounded
        by the number of rules.
        """
        best: dict[int, _Entry] = {}
        for piece in pieces(text, LARGE_TEXT):
            distinct = set(tokenize(piece))
            rest = distinct.difference(self._state[0])
            del distinct
            for entries in self._learn(rest):
                for entry in entries:
                    held = best.get(entry[0])
                    if held is None or entry < held:
                        best[entry[0]] = entry
        return tuple(sorted(best.values()))

    def _decide(
        self, entry_lists: Iterable[tuple[_Entry, ...]], contexts: Collection[str]
    ) -> RuleMatch:
        """The winner among ``entry_lists`` (each sorted) and the keyword-less rules."""
        contexts_of = self.contexts
        needs = self._needs_context
        limit = len(self.order)
        fallback = -1
        for rank, index in self._keywordless:
            wanted = contexts_of[index]
            if not wanted or any(c in contexts for c in wanted):
                limit = rank
                fallback = index
                break
        best: _Entry | None = None
        for entries in entry_lists:
            for entry in entries:
                if entry[0] >= limit or (best is not None and entry[:3] >= best[:3]):
                    break
                index = entry[3]
                if not needs[index] or any(c in contexts for c in contexts_of[index]):
                    best = entry
                    break
        if best is not None:
            if not needs[best[3]]:
                return best[4]  # type: ignore[return-value]
            index = best[3]
            context = next(c for c in contexts_of[index] if c in contexts)
            return RuleMatch(
                index,
                self.labels[index],
                self.keywords[index][best[2]],
                bool(best[1]),
                context,
            )
        if fallback < 0:
            return RuleMatch(None, self.default_label)
        found = next((c for c in contexts_of[fallback] if c in contexts), None)
        return RuleMatch(fallback, self.labels[fallback], None, False, found)

    # -- learning tokens -------------------------------------------------------

    def _learn(self, tokens: Iterable[str]) -> list[tuple[_Entry, ...]]:
        """The non-empty entries of ``tokens``, resolving (and remembering) unseen ones.

        Tokens that can never match are neither resolved nor remembered.
        """
        plain, hits, _ = self._state
        # (a rule set with extension kinds never reads a token's code: none is kept)
        remember = self._keep_entries if self.extended else self._remember
        found: list[tuple[_Entry, ...]] = []
        for token in tokens:
            known = hits.get(token)
            if known is not None:
                found.append(known)
                continue
            if token in plain or self._hopeless(token):
                continue
            entries = self._entries(token)
            self._learned += 1
            if self._learned == _BAND_AFTER and self._vindex is None:
                self._enable_bands()
            if entries:
                found.append(entries)
            remember(token, entries)
        return found

    def _remember(self, token: str, entries: tuple[_Entry, ...]) -> int:
        """Memoize ``token``'s entries (:meth:`_keep_entries`) and, for a hit token, its
        code; its code (``_no_free`` when it hits nothing)."""
        self._keep_entries(token, entries)
        if entries:
            code = self._state[2][token] = self._code_of_entries(entries)
            return code
        return self._no_free

    def _keep_entries(self, token: str, entries: tuple[_Entry, ...]) -> None:
        """Memoize ``token``'s entries (a hit token's in ``hits``), without its code: a
        rule set with extension kinds reads entries only (:meth:`_learn`, :meth:`_learn_one`).

        Full at :data:`MEMO_LIMIT` tokens: the oldest quarter (in insertion
        order) is forgotten, so the memo never empties all at once.
        """
        plain, hits, codes = self._state
        if len(plain) + len(hits) >= MEMO_LIMIT:
            for memo in (plain, codes, hits):
                for old in list(islice(memo, max(1, len(memo) // 4))):
                    memo.pop(old, None)
        if entries:
            hits[token] = entries
        else:
            plain[token] = None

    def _entries(self, token: str) -> tuple[_Entry, ...]:
        """Every rule ``token`` satisfies, as sorted entries (best evidence per rule)."""
        typos: list[str] | None = None
        n = len(token)
        levels = self._levels
        if n < len(levels) and self._has_typo:
            level = levels[n]
            bands = self._bands
            band = bands[n] if bands is not None else None
            if band is not None:
                typos = [
                    keyword
                    for keyword, distance, _ in _extract(
                        token, band, scorer=_OSA.fast, score_cutoff=2, limit=None
                    )
                    if 0 < distance <= _cap(len(keyword))
                    and keyword not in token
                    and token not in keyword
                ]
            elif level[0] or level[1] or level[2]:
                typos = self._verified_typos(token, level)
        return self._entries_with(token, typos)

    def _entries_with(self, token: str, typos: list[str] | None) -> tuple[_Entry, ...]:
        """:meth:`_entries` given the keywords ``token`` is a typo of."""
        exact = self._exact.get(token)
        if not typos:
            if exact is None:
                return ()
            if len(exact) == 1:  # (most tokens: one rule's keyword, exactly)
                rank, pos, index = exact[0]
                return ((rank, 0, pos, index, self._free_match(index, pos, 0)),)
        places = [(rank, 0, pos, index) for rank, pos, index in exact] if exact else []
        if typos:
            typo_places = self._typo_places
            for keyword in typos:
                places.extend((rank, 1, pos, index) for rank, pos, index in typo_places[keyword])
        places.sort()
        out: list[_Entry] = []
        last_rank = -1
        for rank, fuzzy, pos, index in places:
            if rank == last_rank:
                continue  # a better (exact, or earlier) keyword of this rule came first
            last_rank = rank
            out.append((rank, fuzzy, pos, index, self._free_match(index, pos, fuzzy)))
        return tuple(out)

    def _fold_entries(
        self,
        best: dict[int, _Entry],
        corrected: set[str] | None,
        entry_lists: Iterable[tuple[_Entry, ...]],
    ) -> None:
        """:func:`_fold` and, when ``corrected`` is a set, add to it the keywords the
        entries matched by typo (see :meth:`corrections`), in one pass over the entries."""
        if corrected is None:
            _fold(best, entry_lists)
            return
        keywords = self.keywords
        for entries in entry_lists:
            for entry in entries:
                held = best.get(entry[0])
                if held is None or entry < held:
                    best[entry[0]] = entry
                if entry[1]:
                    keyword = keywords[entry[3]][entry[2]]
                    corrected.add(keyword.lower() if keyword.isascii() else rust_lower(keyword))

    def corrections(self, tokens: Iterable[str]) -> frozenset[str]:
        """The keywords (lowercased) rules read misspelt tokens as: for each of ``tokens``
        and each rule whose typo switch is on that matches it by typo only, the rule's
        first keyword the token is a typo of (the one its evidence would name). What a
        text model reads besides the tokens (PromptView.prediction). The statement the
        scan's gathering (:meth:`_fold_entries`, from each token's entries) must agree with."""
        places = self._typo_places
        keywords = self.keywords
        found: set[str] = set()
        for token in set(tokens):
            typos = [k for k, fuzzy in self.keyword_hits(token) if fuzzy and k in places]
            if not typos:
                continue
            for entry in self._entries_with(token, typos):
                if entry[1]:
                    keyword = keywords[entry[3]][entry[2]]
                    found.add(keyword.lower() if keyword.isascii() else rust_lower(keyword))
        return frozenset(found)

    def keyword_hits(self, token: str) -> list[tuple[str, bool]]:
        """Every lowercased keyword ``token`` satisfies for some rule, and whether by typo.

        For ``explain``: the index's answer for one token, not remembered.
        """
        out: list[tuple[str, bool]] = [(token, False)] if token in self._exact else []
        n = len(token)
        if n < len(self._levels) and self._has_typo:
            level = self._levels[n]
            if level[0] or level[1] or level[2]:
                out.extend((k, True) for k in sorted(self._verified_typos(token, level)))
        return out

    def _variant_index(self) -> Any:
        """The C typo index (``None``: the Python one serves), built on first use."""
        vindex = self._vindex
        if vindex is False:
            vindex = self._vindex = _VariantIndex(self._typo_keywords, self._typo_caps)
        return vindex

    def _verified_typos(self, token: str, level: tuple[bool, bool, bool]) -> list[str]:
        """The typo-index candidates ``token`` really is a typo of (length cap,
        containment, OSA distance: the rules of :mod:`smista.core.fuzzy`); with the
        C index, verified there."""
        vindex = self._vindex
        if vindex is False:
            vindex = self._variant_index()
        if vindex is not None:
            found: list[str] = vindex.typos(token, level[0] | level[1] << 1 | level[2] << 2)
            return found
        n = len(token)
        out: list[str] = []
        for keyword in self._typo_candidates(token, level):
            cap = _cap(len(keyword))
            if (
                keyword == token
                or abs(len(keyword) - n) > cap
                or keyword in token
                or token in keyword
            ):
                continue
            if _OSA.within(keyword, token, cap) <= cap:
                out.append(keyword)
        return out

    def _typo_candidates(self, token: str, level: tuple[bool, bool, bool]) -> set[str]:
        """Keywords sharing a deletion variant with ``token`` at the depths ``level``
        allows, from the Python typo index (the C one verifies its own: ``typos``)."""
        typo = self._typo_index()
        candidates: set[str] = set()
        for variant in typo.keys() & _token_variants(token, level):
            candidates.update(typo[variant])
        return candidates

    def _free_match(self, index: int, pos: int, fuzzy: int) -> RuleMatch | None:
        """The shared result for rule ``index`` won by keyword ``pos`` with no context."""
        if self._needs_context[index] or self.conditions[index]:
            return None
        key = (index, pos, fuzzy)
        match = self._matches.get(key)
        if match is None:
            keyword = self.keywords[index][pos]
            match = _new(RuleMatch, (index, self.labels[index], keyword, bool(fuzzy), None, ()))
            self._matches[key] = match
        return match


def _word_specs(words: Iterable[str]) -> tuple[RuleSpec, ...]:
    """``RuleSpec(w, 0, (w,), ())`` for each of ``words`` (the word index's rules), made
    in C: no Python-level ``__new__`` call per word."""
    words = tuple(words)
    fields = zip(words, repeat(0), zip(words), repeat(()), repeat(()), repeat(True))
    return tuple(map(_new, repeat(RuleSpec), fields))


def _weak_resolver(rules: CompiledRules) -> Callable[..., None]:
    """``rules._resolve_new`` through a weak reference: the walker holds it, and a bound
    method would keep the rule set (and its scan table) alive past its last user."""
    held = weakref.ref(rules)

    def resolve(
        unknown: list[str],
        entry_lists: list[tuple[_Entry, ...]],
        words: set[str],
        prefixes: set[str],
        hitting: dict[str, _Hits],
    ) -> None:
        target = held()
        assert target is not None  # (the rule set is reading this very prompt)
        target._resolve_new(unknown, entry_lists, words, prefixes, hitting)

    return resolve


def _fold(best: dict[int, _Entry], entry_lists: Iterable[tuple[_Entry, ...]]) -> None:
    """Keep in ``best`` the best entry per rule of ``entry_lists`` (and of ``best``)."""
    for entries in entry_lists:
        for entry in entries:
            held = best.get(entry[0])
            if held is None or entry < held:
                best[entry[0]] = entry


def options_to_data(options: PlanOptions) -> tuple[object, ...]:
    """Plain data for :class:`PlanOptions` (markers as sorted string tuples; a text model,
    its threshold and its source after them, only when there is one)."""
    markers = tuple(
        (name, _plain(getattr(options.markers, name))) for name in options.markers._fields
    )
    base = (options.ignore_code, options.hangul_han_typos, markers)
    model = options.model
    if model is None:
        return base
    rows = tuple((feature, row) for feature, row in sorted(model.weights.items()))
    plain = (model.labels, model.bias, model.scale, rows)
    with_model = (*base, plain, options.model_min, options.model_source)
    return (*with_model, options.model_min_by_label) if options.model_min_by_label else with_model


def options_from_data(data: object) -> PlanOptions:
    """:func:`options_to_data` reversed; ``ValueError`` if its shape is wrong."""
    if not (type(data) is tuple and len(data) in (3, 6, 7) and type(data[2]) is tuple):
        raise ValueError("bad options")
    ignore_code, han_typos, raw_markers = data[:3]
    if type(ignore_code) is not bool or type(han_typos) is not bool:
        raise ValueError("bad options")
    defaults = DEFAULT_MARKERS
    values: dict[str, object] = {}
    for item in raw_markers:
        if not (type(item) is tuple and len(item) == 2 and type(item[0]) is str):
            raise ValueError("bad markers")
        name, value = item
        if not hasattr(defaults, name):
            raise ValueError("bad markers")
        values[name] = _unplain(getattr(defaults, name), value)
    markers = defaults._replace(**values)  # type: ignore[arg-type]
    if len(data) == 3:
        return PlanOptions(ignore_code, han_typos, markers)
    raw_model, model_min, source = data[3:6]
    by_label = data[6] if len(data) == 7 else ()
    if not (type(raw_model) is tuple and len(raw_model) == 4 and type(raw_model[3]) is tuple):
        raise ValueError("bad model")
    if not (
        type(by_label) is tuple
        and all(
            type(pair) is tuple
            and len(pair) == 2
            and type(pair[0]) is str
            and type(pair[1]) is float
            for pair in by_label
        )
    ):
        raise ValueError("bad model")
    if type(model_min) is not float or not (type(source) is tuple and _str_tuple(source)):
        raise ValueError("bad model")
    labels, bias, scale, rows = raw_model
    weights: dict[str, tuple[int, ...]] = {}
    for row in rows:
        if not (type(row) is tuple and len(row) == 2 and type(row[0]) is str):
            raise ValueError("bad model")
        weights[row[0]] = row[1]
    try:
        model = TextModel(labels, bias, scale, weights)
    except (TypeError, ValueError):
        raise ValueError("bad model") from None
    return PlanOptions(ignore_code, han_typos, markers, model, model_min, source, by_label)


def _trusted_options(data: Any) -> PlanOptions:
    """:func:`options_from_data` of smista's own generated data (the shipped pack): the
    text model is taken as given (``TextModel._trusted``), not checked weight by weight."""
    if len(data) == 3 or type(data[3]) is not tuple:
        return options_from_data(data)
    labels, bias, scale, rows = data[3]
    model = TextModel._trusted(labels, bias, scale, dict(rows))
    # (the rest read and checked as ever, with a model of no weights standing in for it)
    stand_in = (*data[:3], (labels, bias, scale, ()), *data[4:])
    return options_from_data(stand_in)._replace(model=model)


def _plain(value: object) -> object:
    if isinstance(value, frozenset):
        return tuple(sorted(value))
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    if type(value) is str:
        return value
    raise ValueError(f"unexpected marker value {value!r}")


def _unplain(like: object, value: object) -> object:
    if type(value) is not tuple:
        raise ValueError("bad markers")
    if isinstance(like, frozenset):
        if not _str_tuple(value):
            raise ValueError("bad markers")
        return frozenset(value)
    out: list[object] = []
    for v in value:
        if type(v) is str or _str_tuple(v):
            out.append(v)
        else:
            raise ValueError("bad markers")
    return tuple(out)


def _str_tuple(value: object) -> bool:
    return type(value) is tuple and all(type(v) is str for v in value)
