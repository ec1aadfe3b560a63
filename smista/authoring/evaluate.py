"""Scoring a classifier on labelled prompts: accuracy, per-intent precision/recall/F1,
confusion matrix, accuracy per intent and per language, and the misclassified prompts.

Pure: takes (expected, predicted) labels or a classifier plus cases, returns an
:class:`Evaluation`; never performs I/O (:func:`parse_labelled` reads text it
is given). Rows and columns of the confusion matrix always list the seven
intents in their canonical order, so reports of different rule files line up.
Precision of an intent never predicted, and recall of an intent absent from
the data, are 0.0 (and F1 follows).

Labelled data may carry a second acceptable intent (``alt``), a language
(``lang``) and where it came from (``source``), as the real-prompt set does
(``id``, ``text``, ``intent``, ``alt``, ``lang``, ``source``): a prediction equal
to ``alt`` counts as correct and is entered in the matrix as the expected
intent. Prompts of one source (a repository, a page) go together, so the
uncertainty of an accuracy is taken by resampling whole sources
(:func:`source_interval`: a percentile bootstrap with a fixed seed, so the same
data always gives the same interval).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from smista.authoring.golden import GoldenCase, LabelledCase, json_line, parse_cases
from smista.core.classifier import Classifier
from smista.core.errors import ConfigError, UnknownIntentError
from smista.core.intent import INTENT_NAMES, TaskIntent

__all__ = [
    "AnnotatedCase",
    "Evaluation",
    "GroupScore",
    "IntentScore",
    "Miss",
    "evaluate_cases",
    "evaluate_labels",
    "parse_labelled",
    "source_group",
    "source_interval",
]


class AnnotatedCase(NamedTuple):
    """A labelled case with the real-prompt annotations: a second acceptable intent, a language."""

    where: str
    case: GoldenCase
    alt: TaskIntent | None = None
    lang: str | None = None
    source: str | None = None


class GroupScore(NamedTuple):
    """Accuracy over one group of prompts (one intent or one language)."""

    group: str
    correct: int
    total: int

    @property
    def accuracy(self) -> float:
        return self.correct / self.total if self.total else 0.0


class IntentScore(NamedTuple):
    """Scores of one intent; ``support``/``predicted``: expected/predicted counts."""

    intent: str
    precision: float
    recall: float
    f1: float
    support: int
    predicted: int


class Miss(NamedTuple):
    """One misclassified prompt."""

    where: str
    text: str
    expected: str
    got: str
    reason: str
    contexts: tuple[str, ...] = ()


class Evaluation(NamedTuple):
    """Everything ``smista eval`` reports."""

    labels: tuple[str, ...]
    matrix: tuple[tuple[int, ...], ...]
    """``matrix[i][j]``: prompts expected ``labels[i]`` and classified ``labels[j]``."""
    scores: tuple[IntentScore, ...]
    misses: tuple[Miss, ...]
    by_language: tuple[GroupScore, ...] = ()
    """Accuracy per ``lang`` (sorted by code); empty when no case names its language."""
    by_source: tuple[GroupScore, ...] = ()
    """Accuracy per :func:`source_group` of ``source`` (sorted); empty when no case names one."""

    @property
    def total(self) -> int:
        return sum(sum(row) for row in self.matrix)

    @property
    def correct(self) -> int:
        return sum(self.matrix[i][i] for i in range(len(self.labels)))

    @property
    def accuracy(self) -> float:
        return self.correct / self.total if self.total else 0.0

    @property
    def by_intent(self) -> tuple[GroupScore, ...]:
        """Accuracy per expected intent (an ``alt`` prediction counts as correct)."""
        return tuple(
            GroupScore(label, self.matrix[i][i], sum(self.matrix[i]))
            for i, label in enumerate(self.labels)
        )

    @property
    def non_english(self) -> GroupScore | None:
        """Accuracy over every language but English; None when there is none."""
        others = [g for g in self.by_language if g.group != "en"]
        if not others:
            return None
        return GroupScore("non-en", sum(g.correct for g in others), sum(g.total for g in others))

    @property
    def interval(self) -> tuple[float, float] | None:
        """The 95 % interval of the accuracy, resampling whole sources
        (:func:`source_interval` over :attr:`by_source`); None under two sources or when
        a case names none."""
        if len(self.by_source) < 2 or sum(g.total for g in self.by_source) != self.total:
            return None
        return source_interval(self.by_source)

    @property
    def macro_f1(self) -> float:
        """Mean F1 over the intents present in the data."""
        present = [s.f1 for s in self.scores if s.support]
        return sum(present) / len(present) if present else 0.0

    def to_json(self) -> dict[str, object]:
        return {
            "total": self.total,
            "correct": self.correct,
            "accuracy": self.accuracy,
            "macro_f1": self.macro_f1,
            "labels": list(self.labels),
            "confusion_matrix": [list(row) for row in self.matrix],
            "per_intent": {s.intent: s._asdict() for s in self.scores},
            "accuracy_by_intent": {g.group: _group_json(g) for g in self.by_intent},
            "accuracy_by_language": {g.group: _group_json(g) for g in self.by_language},
            "sources": len(self.by_source),
            "accuracy_interval_by_source": _interval_json(self.interval),
            "misclassified": [m._asdict() for m in self.misses],
        }


INTERVAL_DRAWS = 2000
"""Bootstrap resamples behind :func:`source_interval`."""
INTERVAL_SEED = 0
"""The resampling's fixed seed: the same data gives the same interval."""

_REPOSITORY = re.compile(r"([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+):")


def source_group(source: str) -> str:
    """The unit a prompt's ``source`` is resampled by: ``owner/name`` for
    ``owner/name:path`` (prompts of one repository go together whatever file holds
    them), otherwise the source up to its first whitespace (a page's URL)."""
    found = _REPOSITORY.match(source)
    if found is not None:
        return found.group(1).lower()
    head = source.strip().split(maxsplit=1)
    return head[0] if head else source


def source_interval(
    groups: Sequence[GroupScore],
    *,
    confidence: float = 0.95,
    draws: int = INTERVAL_DRAWS,
    seed: int = INTERVAL_SEED,
) -> tuple[float, float] | None:
    """A percentile-bootstrap interval of the pooled accuracy of ``groups``: each draw
    takes as many groups as there are, with replacement, and pools their prompts. None
    without two groups. Every draw's accuracy is a weighted mean of the groups', so the
    bounds lie between the lowest and the highest group accuracy."""
    sized = [g for g in groups if g.total]
    if len(sized) < 2:
        return None
    rng = random.Random(seed)
    n = len(sized)
    correct = [g.correct for g in sized]
    total = [g.total for g in sized]
    rates = sorted(
        sum(correct[i] for i in picks) / sum(total[i] for i in picks)
        for picks in (rng.choices(range(n), k=n) for _ in range(draws))
    )
    tail = (1.0 - confidence) / 2
    low = rates[min(draws - 1, int(tail * draws))]
    high = rates[min(draws - 1, int((1.0 - tail) * draws))]
    return low, high


def _interval_json(interval: tuple[float, float] | None) -> dict[str, object] | None:
    if interval is None:
        return None
    return {"low": interval[0], "high": interval[1], "confidence": 0.95, "draws": INTERVAL_DRAWS}


def _group_json(group: GroupScore) -> dict[str, object]:
    return {"correct": group.correct, "total": group.total, "accuracy": group.accuracy}


def _ratio(a: int, b: int) -> float:
    return a / b if b else 0.0


def evaluate_labels(
    pairs: Iterable[tuple[str, str]],
    misses: Sequence[Miss] = (),
    labels: Sequence[str] = INTENT_NAMES,
) -> Evaluation:
    """An :class:`Evaluation` from ``(expected, predicted)`` label pairs."""
    names = tuple(labels)
    position = {name: i for i, name in enumerate(names)}
    counts = [[0] * len(names) for _ in names]
    for expected, got in pairs:
        counts[position[expected]][position[got]] += 1
    scores: list[IntentScore] = []
    for i, name in enumerate(names):
        hit = counts[i][i]
        support = sum(counts[i])
        predicted = sum(row[i] for row in counts)
        precision, recall = _ratio(hit, predicted), _ratio(hit, support)
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        scores.append(IntentScore(name, precision, recall, f1, support, predicted))
    return Evaluation(names, tuple(tuple(r) for r in counts), tuple(scores), tuple(misses))


def evaluate_cases(
    classifier: Classifier, cases: Iterable[LabelledCase | AnnotatedCase]
) -> Evaluation:
    """Classify every case and score the intents (``intent``, or ``alt`` when given)."""
    pairs: list[tuple[str, str]] = []
    misses: list[Miss] = []
    languages: dict[str, list[int]] = {}
    sources: dict[str, list[int]] = {}
    for item in cases:
        where, case = item[0], item[1]
        alt = item.alt if isinstance(item, AnnotatedCase) else None
        lang = item.lang if isinstance(item, AnnotatedCase) else None
        origin = item.source if isinstance(item, AnnotatedCase) else None
        result = classifier.classify(case.text, command=case.command, contexts=case.contexts)
        expected, got = case.intent.value, result.intent.value
        right = result.intent is case.intent or result.intent is alt
        pairs.append((expected, expected if right else got))
        if not right:
            misses.append(Miss(where, case.text, expected, got, result.reason, case.contexts))
        for key, tallies in ((lang, languages), (origin and source_group(origin), sources)):
            if key:
                tally = tallies.setdefault(key, [0, 0])
                tally[0] += right
                tally[1] += 1
    by_language = tuple(GroupScore(k, *languages[k]) for k in sorted(languages))
    by_source = tuple(GroupScore(k, *sources[k]) for k in sorted(sources))
    return evaluate_labels(pairs, misses)._replace(by_language=by_language, by_source=by_source)


_ANNOTATIONS = ("id", "alt", "lang", "source")


def _annotated_line(number: int, line: str, source: str | None) -> AnnotatedCase:
    loc = f"line {number}"
    data = json_line(line, loc, source)
    if not isinstance(data, Mapping):
        raise ConfigError([(loc, "expected a table (object) with text and intent")], source)
    core = {k: v for k, v in data.items() if k not in _ANNOTATIONS}
    alt_raw, lang, ident = data.get("alt"), data.get("lang"), data.get("id")
    alt: TaskIntent | None = None
    if alt_raw is not None:
        if not isinstance(alt_raw, str):
            raise ConfigError([(f"{loc}.alt", "expected an intent name or null")], source)
        try:
            alt = TaskIntent.parse(alt_raw)
        except UnknownIntentError as exc:
            raise ConfigError([(f"{loc}.alt", str(exc))], source) from None
    if lang is not None and not (isinstance(lang, str) and lang.strip()):
        raise ConfigError([(f"{loc}.lang", "expected a language code such as 'en'")], source)
    if ident is not None and (isinstance(ident, bool) or not isinstance(ident, str | int)):
        raise ConfigError([(f"{loc}.id", "expected a string or an integer")], source)
    if data.get("source") is not None and not isinstance(data["source"], str):
        raise ConfigError([(f"{loc}.source", "expected a string")], source)
    # One line through the golden-case parser keeps its validation and messages.
    try:
        (parsed,) = parse_cases(json.dumps(core), source, jsonl=True)
    except ConfigError as exc:
        raise ConfigError(
            [(where.replace("line 1", loc, 1), msg) for where, msg in exc.errors], source
        ) from None
    where = parsed.where.replace("line 1", loc, 1)
    if ident is not None and parsed.case.name is None:
        where = f"{loc} ({ident})"
    origin = data.get("source")
    return AnnotatedCase(
        where, parsed.case, alt, lang.strip() if lang else None, origin if origin else None
    )


def parse_labelled(
    text: str, source: str | None = None, *, jsonl: bool | None = None
) -> list[AnnotatedCase]:
    """Labelled cases from TOML ``[[cases]]`` or JSONL text (``jsonl=None``: by suffix).

    JSONL lines may carry ``id``, ``alt``, ``lang`` and ``source`` besides the
    golden-case keys; errors name the file and ``line N.key`` like case files.
    """
    if jsonl is None:
        jsonl = source is not None and source.lower().endswith((".jsonl", ".ndjson", ".json"))
    if not jsonl:
        return [AnnotatedCase(where, case) for where, case in parse_cases(text, source)]
    return [
        _annotated_line(number, line, source)
        for number, line in enumerate(text.splitlines(), start=1)
        if line.strip()
    ]
