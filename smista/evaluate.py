"""Scoring a classifier on labelled prompts: accuracy, per-intent precision/recall/F1,
confusion matrix and the misclassified prompts.

Pure: takes (expected, predicted) labels or a classifier plus cases, returns an
:class:`Evaluation`; never performs I/O. Rows and columns of the confusion
matrix always list the seven intents in their canonical order, so reports of
different rule files line up. Precision of an intent never predicted, and
recall of an intent absent from the data, are 0.0 (and F1 follows).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from smista.classifier import Classifier
from smista.golden import LabelledCase
from smista.intent import INTENT_NAMES

__all__ = ["Evaluation", "IntentScore", "Miss", "evaluate_cases", "evaluate_labels"]


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
            "misclassified": [m._asdict() for m in self.misses],
        }


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


def evaluate_cases(classifier: Classifier, cases: Iterable[LabelledCase]) -> Evaluation:
    """Classify every case and score the intents (only ``intent`` is compared)."""
    pairs: list[tuple[str, str]] = []
    misses: list[Miss] = []
    for where, case in cases:
        result = classifier.classify(case.text, command=case.command, contexts=case.contexts)
        expected, got = case.intent.value, result.intent.value
        pairs.append((expected, got))
        if expected != got:
            misses.append(Miss(where, case.text, expected, got, result.reason, case.contexts))
    return evaluate_labels(pairs, misses)
