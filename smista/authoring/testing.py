"""Hypothesis strategies and ready-made property checks for smista rule files.

Install with the ``testing`` extra (``pip install '.[testing]'`` from a checkout);
hypothesis is imported at the top of this module on purpose. The strategies
respect the matcher's semantics (single-token keywords, typo caps 0/1/2 for
keyword lengths <5/5-8/>=9, containment is never a typo):

* :func:`intents`, :func:`keywords`, :func:`rules`, :func:`configs`,
  :func:`workspaces` build inputs;
* :func:`prompts_with` writes prompts that contain given words as whole tokens
  (in any case, between fillers that match none of the words to avoid);
* :func:`typo_of` misspells a keyword by exactly N OSA edits, within its cap,
  without ever making one string contain the other; :func:`one_edit_typos`
  lists every one-edit misspelling it can draw.

The checks (:func:`check_typo_stability`, :func:`check_no_unreachable_rules`,
:func:`check_explicit_commands_win`) raise ``AssertionError`` with a readable
counterexample and are meant to be called from a user's own tests.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from smista.authoring.golden import GoldenCase, LabelledCase
from smista.authoring.lints import evaluation_order, unreachable_rules
from smista.core.classifier import Classifier
from smista.core.conditions.compile import plan_options
from smista.core.conditions.registry import KINDS, model_conditions
from smista.core.conditions.view import PlanOptions, is_hangul_or_han
from smista.core.fuzzy import fuzzy_cap, osa_distance, token_match
from smista.core.intent import IntentSource, TaskIntent
from smista.core.rules import (
    ClassificationConfig,
    ClassificationOptions,
    ClassificationRule,
    ModelTable,
)
from smista.core.textmodel import TextModel
from smista.core.tokenizer import rust_lower, tokenize
from smista.core.workspace import WORKSPACE_CONTEXT_KINDS, Workspace

__all__ = [
    "FILLER_WORDS",
    "check_explicit_commands_win",
    "check_no_unreachable_rules",
    "check_typo_stability",
    "configs",
    "intents",
    "keywords",
    "one_edit_typos",
    "prompts_with",
    "rules",
    "text_models",
    "typo_of",
    "workspaces",
]

_LETTERS = "abcdefghijklmnopqrstuvwxyz"

FILLER_WORDS: tuple[str, ...] = (
    "the",
    "a",
    "an",
    "this",
    "that",
    "it",
    "in",
    "on",
    "of",
    "to",
    "for",
    "with",
    "my",
    "our",
    "please",
    "now",
    "then",
    "and",
    "or",
    "file",
    "code",
    "module",
    "function",
    "class",
    "repo",
    "project",
    "thing",
    "here",
    "there",
    "today",
    "quickly",
    "again",
    "also",
    "just",
    "src",
    "main",
    "app",
    "api",
    "v2",
    "42",
)
"""Neutral words :func:`prompts_with` puts around the words it must contain."""

_SEPARATORS = (
    " ",
    " ",
    " ",
    ", ",
    ". ",
    "? ",
    "! ",
    " - ",
    "\n",
    " / ",
    ": ",
    " (",
    ") ",
)


def intents() -> SearchStrategy[TaskIntent]:
    """Any of the seven intents."""
    return st.sampled_from(list(TaskIntent))


def keywords(
    *, min_size: int = 1, max_size: int = 12, alphabet: str = _LETTERS
) -> SearchStrategy[str]:
    """Single-token keywords (lowercase ASCII letters by default)."""
    if min_size < 1:
        raise ValueError("keywords are at least one character long")
    return st.text(alphabet=alphabet, min_size=min_size, max_size=max_size).filter(
        lambda k: tokenize(k) == [rust_lower(k)]
    )


def rules(
    *,
    intent: SearchStrategy[TaskIntent] | None = None,
    keyword: SearchStrategy[str] | None = None,
    max_keywords: int = 4,
    context_kinds: Sequence[str] = WORKSPACE_CONTEXT_KINDS,
    priority: SearchStrategy[int] | None = None,
    extensions: bool = False,
) -> SearchStrategy[ClassificationRule]:
    """Classification rules; ``keywords`` and ``requires_any_context`` may be empty.

    With ``extensions`` the rules also use the smista extension kinds (each
    registered kind's own strategy, from the same ``keyword`` words) and the
    ``typo`` switch.
    """
    word = keyword if keyword is not None else keywords()
    fields: dict[str, SearchStrategy[object]] = {
        "intent": intent if intent is not None else intents(),
        "priority": priority if priority is not None else st.integers(0, 2000),
        "keywords": st.lists(word, max_size=max_keywords).map(tuple),
        "requires_any_context": st.lists(
            st.sampled_from(tuple(context_kinds)), max_size=2, unique=True
        ).map(tuple),
    }
    if extensions:
        for kind in KINDS:
            if not kind.original:
                fields[kind.key] = st.one_of(st.just(kind.default), kind.strategy(word))
        fields["typo"] = st.booleans()
    return st.builds(ClassificationRule, **fields)


def configs(
    *,
    max_rules: int = 8,
    rule: SearchStrategy[ClassificationRule] | None = None,
    extensions: bool = False,
) -> SearchStrategy[ClassificationConfig]:
    """Classification configs of up to ``max_rules`` rules.

    With ``extensions`` the rules use every registered condition kind and the
    file may set ``[classification.options]``.
    """
    if rule is None:
        rule = rules(extensions=extensions)
    options: SearchStrategy[ClassificationOptions | None] = st.just(None)
    if extensions:
        options = st.one_of(
            st.none(),
            st.builds(
                ClassificationOptions, ignore_code=st.booleans(), hangul_han_typos=st.booleans()
            ),
        )
    built = st.builds(
        ClassificationConfig,
        default_intent=intents(),
        rules=st.lists(rule, max_size=max_rules).map(tuple),
        options=options,
    )
    return built.flatmap(_with_text_model) if extensions else built


def text_models(words: SearchStrategy[str] | None = None) -> SearchStrategy[TextModel]:
    """Text models over the seven intents: integer weights for features drawn from
    ``words`` (single tokens, and character pairs of them), biases and a scale."""
    word = words if words is not None else keywords()
    feature = st.one_of(word, word.filter(lambda w: len(w) > 1).map(lambda w: "#" + w[:2]))
    labels = tuple(i.value for i in TaskIntent)
    row = st.lists(st.integers(-30000, 30000), min_size=len(labels), max_size=len(labels))
    return st.builds(
        TextModel,
        st.just(labels),
        st.lists(st.floats(-2, 2, allow_nan=False), min_size=len(labels), max_size=len(labels)),
        st.sampled_from([1024.0, 4096.0]),
        st.dictionaries(feature, row, max_size=12),
    )


def _with_text_model(config: ClassificationConfig) -> SearchStrategy[ClassificationConfig]:
    """``config`` with a generated text model when a rule reads one (else as it is)."""
    if not any(model_conditions(rule) for rule in config.rules):
        return st.just(config)
    words = sorted({k for r in config.rules for k in r.keywords if tokenize(k) == [rust_lower(k)]})
    vocabulary = st.sampled_from(words) if words else keywords()
    bars = st.sampled_from([0.3, 0.5, 0.7])
    tables = st.builds(
        lambda model, minimum, by_label: ModelTable(
            file="generated.model.json",
            min_probability=minimum,
            min_probability_by_label=by_label,
        ).with_weights(model, "generated.model.json", ""),
        text_models(vocabulary),
        bars,
        st.dictionaries(st.sampled_from([i.value for i in TaskIntent]), bars, max_size=2),
    )
    return tables.map(lambda table: config.model_copy(update={"model": table}))


def _paths() -> SearchStrategy[str]:
    part = st.text(alphabet=_LETTERS + "_", min_size=1, max_size=8)
    ext = st.sampled_from([".py", ".rs", ".ts", ".md", ".toml", ""])
    return st.builds(
        lambda parts, e: "/".join(parts) + e,
        st.lists(part, min_size=1, max_size=3),
        ext,
    )


def workspaces() -> SearchStrategy[Workspace]:
    """Workspace snapshots (each context kind present or absent)."""
    diff = _paths().map(lambda p: f"diff --git a/{p} b/{p}")
    return st.builds(
        Workspace,
        git_diff=st.none() | diff | st.just(""),
        git_branch=st.none() | st.text(alphabet=_LETTERS + "-/", min_size=1, max_size=16),
        active_file=st.none() | _paths(),
        referenced_paths=st.lists(_paths(), max_size=3).map(tuple),
    )


def _case_variants(word: str) -> list[str]:
    if not word.isascii():
        return [word]  # Unicode case mappings need not round-trip
    return [word, word.upper(), word.capitalize()]


def prompts_with(
    words: Sequence[str],
    *,
    avoid: Iterable[str] = (),
    filler: Sequence[str] = FILLER_WORDS,
    max_filler: int = 6,
) -> SearchStrategy[str]:
    """Prompts containing every word of ``words`` as a whole token (case varies).

    Filler words never equal, contain, or are a typo of any word in ``words``
    or ``avoid`` (pass a rule file's keywords as ``avoid`` to keep other rules
    from matching).
    """
    words = list(words)
    for word in words:
        if tokenize(word) != [rust_lower(word)]:
            raise ValueError(f"{word!r} is not a single token")
    blocked = [rust_lower(w) for w in (*words, *avoid) if w]
    safe = [f for f in filler if all(token_match(b, [f]) is None for b in blocked)]
    pieces = st.tuples(
        *[st.sampled_from(_case_variants(w)) for w in words],
    ).map(list)
    fillers = st.lists(st.sampled_from(safe), max_size=max_filler) if safe else st.just([])

    @st.composite
    def build(draw: st.DrawFn) -> str:
        items = draw(pieces) + draw(fillers)
        order = draw(st.permutations(items))
        out = ""
        for i, item in enumerate(order):
            out += item if i == 0 else draw(st.sampled_from(_SEPARATORS)) + item
        return out

    return build()


def _is_typo(needle: str, candidate: str, edits: int) -> bool:
    """Whether ``candidate`` is a matcher-accepted misspelling of ``needle`` at ``edits``."""
    return (
        bool(candidate)
        and needle not in candidate
        and candidate not in needle
        and osa_distance(needle, candidate) == edits
        and tokenize(candidate) == [candidate]
    )


def one_edit_typos(word: str) -> list[str]:
    """Every misspelling :func:`typo_of` can draw for ``word`` at one edit, sorted.

    All insertions, deletions, substitutions (letters a-z) and swaps of
    neighbours that the matcher accepts as a typo of ``word``; empty for words
    under 5 characters. A few hundred strings for a typical keyword.
    """
    needle = rust_lower(word)
    if fuzzy_cap(len(needle)) < 1 or tokenize(needle) != [needle]:
        return []
    found: set[str] = set()
    for i in range(len(needle) + 1):
        head, tail = needle[:i], needle[i:]
        found.update(head + c + tail for c in _LETTERS)
        if tail:
            found.add(head + tail[1:])
            found.update(head + c + tail[1:] for c in _LETTERS)
        if len(tail) > 1:
            found.add(head + tail[1] + tail[0] + tail[2:])
    return sorted(t for t in found if _is_typo(needle, t, 1))


def _apply_edit(chars: list[str], kind: int, pos: int, letter: str) -> list[str]:
    n = len(chars)
    if kind == 0 and n:  # substitute
        i = pos % n
        return [*chars[:i], letter, *chars[i + 1 :]]
    if kind == 1:  # insert
        i = pos % (n + 1)
        return [*chars[:i], letter, *chars[i:]]
    if kind == 2 and n > 1:  # delete
        i = pos % n
        return [*chars[:i], *chars[i + 1 :]]
    if n > 1:  # transpose adjacent
        i = pos % (n - 1)
        return [*chars[:i], chars[i + 1], chars[i], *chars[i + 2 :]]
    return chars


def typo_of(word: str, edits: int = 1) -> SearchStrategy[str]:
    """Misspellings of ``word`` at OSA distance exactly ``edits`` (matcher-accepted).

    ``edits`` must be between 1 and the word's cap (1 for 5-8 characters, 2 for
    9 or more); words under 5 characters have no typos. The result is a single
    lowercase token that neither contains nor is contained in the word.
    """
    needle = rust_lower(word)
    if tokenize(needle) != [needle]:
        raise ValueError(f"{word!r} is not a single token")
    cap = fuzzy_cap(len(needle))
    if not 1 <= edits <= cap:
        raise ValueError(
            f"{word!r} ({len(needle)} characters) accepts typos of 1..{cap} edits, not {edits}"
        )
    op = st.tuples(st.integers(0, 3), st.integers(0, 64), st.sampled_from(_LETTERS))

    def accepted(candidate: str) -> bool:
        return _is_typo(needle, candidate, edits)

    @st.composite
    def build(draw: st.DrawFn) -> str:
        for _ in range(8):
            chars = list(needle)
            for kind, pos, letter in draw(st.lists(op, min_size=edits, max_size=edits)):
                chars = _apply_edit(chars, kind, pos, letter)
            candidate = "".join(chars)
            if accepted(candidate):
                return candidate
        # A substitution walk always succeeds: change `edits` distinct middle letters.
        chars = list(needle)
        for i in range(edits):
            at = 1 + i * 2 if 1 + i * 2 < len(chars) - 1 else i
            chars[at] = next(c for c in _LETTERS if c != needle[at] and c != chars[at])
        candidate = "".join(chars)
        if not accepted(candidate):  # pragma: no cover - guarded by the caps
            raise AssertionError(f"no typo of {word!r} at distance {edits}")
        return candidate

    return build()


# ---------------------------------------------------------------------------
# ready-made checks


def _as_classifier(rules_: ClassificationConfig | Classifier) -> Classifier:
    return rules_ if isinstance(rules_, Classifier) else Classifier(rules_)


class _Candidate(NamedTuple):
    where: str
    case: GoldenCase
    keyword: str


_ASCII_TOKEN = re.compile(r"[A-Za-z0-9]+")


def _replace_token(text: str, needle: str, replacement: str) -> str:
    """``text`` with every token equal to ``needle`` (ignoring case) replaced."""
    if text.isascii():
        pattern = _ASCII_TOKEN
    else:
        from smista.core.tokenizer import _tables

        pattern = _tables().token_re
    return pattern.sub(
        lambda m: replacement if rust_lower(m.group(0)) == needle else m.group(0), text
    )


def _check_settings(max_examples: int) -> settings:
    """Hypothesis settings for a check run inside the caller's own test.

    No deadline, no example database and no health checks: the caller's rules
    and cases decide how slow or filtered the generation is.
    """
    return settings(
        max_examples=max_examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )


def _typos_apply(config: ClassificationConfig, rule: int | None, keyword: str) -> bool:
    """Whether ``keyword`` of rule ``rule`` matches by typo at all (``typo = false``, and
    ``hangul_han_typos = false`` for Hangul and Han keywords, switch it off)."""
    if rule is None or not config.rules[rule].typo:
        return False
    han_typos = config.options is None or config.options.hangul_han_typos
    return han_typos or keyword.isascii() or not is_hangul_or_han(keyword)


def _typo_candidates(classifier: Classifier, cases: Iterable[LabelledCase]) -> list[_Candidate]:
    out: list[_Candidate] = []
    for where, case in cases:
        if case.command is not None:
            continue
        match = classifier.rules.match(tokenize(case.text), frozenset(case.contexts))
        if match.label != case.intent.value or match.keyword is None or match.fuzzy:
            continue
        needle = rust_lower(match.keyword)
        if fuzzy_cap(len(needle)) == 0 or tokenize(needle) != [needle]:
            continue
        if not _typos_apply(classifier.config, match.rule, needle):
            continue  # the rule or the file switched typo tolerance off for this keyword
        out.append(_Candidate(where, case, needle))
    return out


def check_typo_stability(
    rules_: ClassificationConfig | Classifier,
    cases: Iterable[LabelledCase],
    *,
    max_examples: int | None = None,
) -> None:
    """Passing golden cases keep their intent when the matched keyword gets one typo.

    Only cases decided by an exact hit of a keyword of 5+ characters are
    eligible (shorter keywords have no typos), and only where typos apply to it
    (not in a ``typo = false`` rule, nor a Hangul or Han keyword under
    ``hangul_han_typos = false``). Every one-edit misspelling of
    the keyword (:func:`one_edit_typos`) is tried, so the check is exhaustive
    and deterministic (``max_examples`` is accepted for compatibility and
    ignored). A misspelling may change the intent only when it is also exactly
    one edit from the keyword of the earlier rule that takes it: such a typo
    is ambiguous, the rule order decides it, and ``smista check`` notes the
    pair as a ``typo-collision``. A failure is a typo read as a keyword it
    equals (another rule's keyword is itself a typo of this one) or as a
    farther keyword of an earlier rule (two edits away, often one that
    contains the word: 'etructure' is read as 'restructure').
    """
    del max_examples
    classifier = _as_classifier(rules_)
    problems: list[str] = []
    for candidate in _typo_candidates(classifier, cases):
        contexts = frozenset(candidate.case.contexts)
        for typo in one_edit_typos(candidate.keyword):
            text = _replace_token(candidate.case.text, candidate.keyword, typo)
            match = classifier.rules.match(tokenize(text), contexts)
            if match.label == candidate.case.intent.value:
                continue
            if match.keyword is not None and osa_distance(rust_lower(match.keyword), typo) == 1:
                continue  # one edit from both keywords: ambiguous, the order decides
            result = classifier.classify(text, contexts=candidate.case.contexts)
            problems.append(
                f"{candidate.where}: with {candidate.keyword!r} misspelled as {typo!r} the "
                f"prompt {text!r} is {result.intent.value}, "
                f"not {candidate.case.intent.value} ({result.reason})"
            )
    if problems:
        shown = problems[:10]
        more = f"\n  ... and {len(problems) - len(shown)} more" if len(problems) > 10 else ""
        raise AssertionError("typo-unstable golden cases:\n  " + "\n  ".join(shown) + more)


_MAX_WITNESSES = 64


def _witness_prompts(rule: ClassificationRule, options: PlanOptions | None = None) -> list[str]:
    """Prompts made of one witness per condition kind (each kind's own examples)."""
    kinds = sorted(
        (k for k in KINDS if not k.indexed or k.key == "keywords"), key=lambda k: k.place
    )
    prompts = [""]
    for kind in kinds:
        value = kind.read(rule)
        if not kind.is_set(value):
            continue
        pieces = kind.witnesses_in(value, options or PlanOptions())
        prompts = [
            f"{p} {w}".strip() if w not in ("?", ".") else p + w for p in prompts for w in pieces
        ][:_MAX_WITNESSES]
    return prompts


def check_no_unreachable_rules(rules_: ClassificationConfig | Classifier) -> None:
    """Every rule can win: none is shadowed, and each wins on one of its own keywords.

    A rule is tried with each of its keywords alone as the prompt (and each of
    its contexts, or none); adding words or contexts can only let earlier
    rules match, so a rule that wins none of these is never chosen for a
    prompt that uses its keywords as written. Earlier rules with a condition that
    is not monotone (``predicted``: more words can make a text model less sure)
    are left out of that reasoning: a longer prompt may pass them by.
    """
    classifier = _as_classifier(rules_)
    config = classifier.config
    options = plan_options(config)
    shadowed = unreachable_rules(config)
    non_monotone = {
        i
        for i, rule in enumerate(config.rules)
        if any(not k.monotone and k.is_set(k.read(rule)) for k in KINDS)
    }
    if non_monotone:
        kept = tuple(r for i, r in enumerate(config.rules) if i not in non_monotone)
        monotone_only = Classifier(config.model_copy(update={"rules": kept}))
        renumber = [i for i in range(len(config.rules)) if i not in non_monotone]
    problems = [
        f"rule {index} is shadowed by rule {earlier}, tried first"
        for index, earlier in sorted(shadowed.items())
    ]
    for index in evaluation_order(config):
        if index in shadowed:
            continue
        rule = config.rules[index]
        prompts = _witness_prompts(rule, options)
        contexts: list[tuple[str, ...]] = [(c,) for c in rule.requires_any_context] or [()]
        judge, wanted = classifier, index
        if non_monotone and index not in non_monotone:
            judge, wanted = monotone_only, renumber.index(index)
        if not any(
            judge.classify(p, contexts=c).matched_rule == wanted for p in prompts for c in contexts
        ):
            problems.append(
                f"rule {index} ({rule.intent.value}) wins on none of its own words: "
                "earlier rules claim every prompt made of them"
            )
    assert not problems, "unreachable rules:\n  " + "\n  ".join(problems)


def check_explicit_commands_win(
    rules_: ClassificationConfig | Classifier, *, max_examples: int = 200
) -> None:
    """An explicit command always decides the intent, whatever prompt and contexts."""
    classifier = _as_classifier(rules_)
    words = sorted(
        {k for r in classifier.config.rules for k in r.keywords if tokenize(k) == [rust_lower(k)]}
    )
    prompt = (
        st.lists(st.sampled_from(words), max_size=4).flatmap(prompts_with) if words else st.just("")
    ) | st.text(max_size=40)
    kinds = st.lists(st.sampled_from(WORKSPACE_CONTEXT_KINDS), max_size=4, unique=True)

    @_check_settings(max_examples)
    @given(prompt, intents(), kinds)
    def wins(text: str, command: TaskIntent, contexts: list[str]) -> None:
        result = classifier.classify(text, command=command, contexts=contexts)
        assert result.intent == command, f"command {command.value} lost to {result.intent}"
        assert result.source == IntentSource.EXPLICIT
        assert result.matched_rule is None
        assert result.confidence is None

    wins()
