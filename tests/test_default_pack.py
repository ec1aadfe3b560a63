"""The shipped default pack: accuracy on its cases and on held-out prompts; shape."""

from __future__ import annotations

from pathlib import Path

from smista.classifier import Classifier
from smista.defaults import default_config
from smista.evaluate import evaluate_cases
from smista.golden import load_cases
from smista.intent import Confidence, TaskIntent

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"


CASES = ROOT / "rules" / "default.cases.toml"


def test_default_pack_reaches_ninety_percent_on_its_cases() -> None:
    """rules/default.cases.toml: at least 90% of the labelled prompts are right."""
    evaluation = evaluate_cases(Classifier(default_config()), load_cases(CASES))
    assert evaluation.total >= 300
    assert evaluation.accuracy >= 0.9, evaluation.misses


def test_default_pack_generalises_to_the_held_out_prompts() -> None:
    """tests/data/heldout.jsonl was never used for tuning (see docs/rules.md)."""
    evaluation = evaluate_cases(Classifier(default_config()), load_cases(DATA / "heldout.jsonl"))
    assert evaluation.total == 100
    assert evaluation.accuracy >= 0.9, evaluation.misses


def test_default_pack_covers_every_intent() -> None:
    """Each of the seven intents is reachable: chat as default, the rest by rules."""
    config = default_config()
    assert config.default_intent is TaskIntent.CHAT
    assert {r.intent for r in config.rules} == set(TaskIntent) - {TaskIntent.CHAT}


def test_review_with_a_diff_is_high_confidence() -> None:
    """git_diff makes an exact review keyword high confidence; a typo caps it."""
    classifier = Classifier(default_config())
    with_diff = classifier.classify("review my changes", contexts=["git_diff"])
    assert (with_diff.intent, with_diff.confidence) == (
        TaskIntent.REVIEW,
        Confidence.HIGH,
    )
    typo = classifier.classify("reveiw my changes", contexts=["git_diff"])
    assert (typo.intent, typo.confidence) == (TaskIntent.REVIEW, Confidence.MEDIUM)
    without = classifier.classify("review my changes")
    assert (without.intent, without.confidence) == (
        TaskIntent.REVIEW,
        Confidence.MEDIUM,
    )


def test_inflected_forms_are_listed_because_they_never_match_the_base_word() -> None:
    """'reviewing' and 'refactoring' classify only because the pack lists them."""
    classifier = Classifier(default_config())
    assert classifier.classify("reviewing the auth module").intent is TaskIntent.REVIEW
    assert classifier.classify("refactoring the parser").intent is TaskIntent.EDIT
    assert classifier.classify("summarising the thread").intent is TaskIntent.SUMMARIZE
