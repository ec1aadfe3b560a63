"""explain: every condition kind's evidence, bounded output, bounded work."""

from __future__ import annotations

from smista.cli._render import NEAR_MISSES_SHOWN, _rule_lines, render_explanation
from smista.config.defaults import default_classifier
from smista.config.load import parse_config
from smista.core.classifier import Classifier
from smista.core.explain import TOKENS_SHOWN


def test_extension_conditions_leave_evidence() -> None:
    classifier = Classifier(
        parse_config(
            "[classification]\n"
            '[[classification.rules]]\nintent="plan"\nleading=["plan"]\nquestion=false\n'
            '[[classification.rules]]\nintent="edit"\nkeywords=["fix"]\nexclude=["test"]\n'
        )
    )
    trace = classifier.explain("fix the test")
    edit = next(r for r in trace.rules if r.intent == "edit")
    assert edit.keyword == "fix"
    assert [(c.kind, c.held, c.note) for c in edit.conditions] == [
        ("exclude", False, "vetoed by 'test'")
    ]
    assert not edit.matched
    trace = classifier.explain("plan the migration")
    plan = trace.rules[0]
    assert plan.winner
    assert [(c.kind, c.held) for c in plan.conditions] == [("leading", True), ("question", True)]
    assert "leading word 'plan'" in plan.conditions[0].note
    text = render_explanation(trace)
    assert "<- winner" in text
    assert "leading: holds: leading word 'plan'" in text


def test_no_noise_from_short_keywords() -> None:
    """Keywords under five characters never typo-match, so no distance notes for them."""
    classifier = Classifier(
        parse_config(
            '[classification]\n[[classification.rules]]\nintent="summarize"\nkeywords=["tl"]\n'
        )
    )
    trace = classifier.explain("the title of the tale")
    notes = [ev.note for ev in trace.rules[0].keywords[0].evidence]
    assert not any("exceeds the cap 0" in note for note in notes)


def test_default_pack_trace_is_short() -> None:
    prompt = (
        "Hey, so I was looking at the settings page and the dark mode toggle does not persist "
        "after reload; could you take a look at src/settings/theme.ts and the useTheme hook, "
        "figure out why the preference is lost, and make it stick? Also the toggle label is "
        "misaligned on mobile, which is a small thing but annoying. Thanks a lot for the help!"
    )
    trace = default_classifier().explain(prompt)
    text = render_explanation(trace)
    for rule in trace.rules:
        lines = _rule_lines(rule)
        for kw in rule.keywords:
            shown = sum(1 for line in lines if f"near miss: {kw.keyword!r} ~" in line)
            assert shown <= NEAR_MISSES_SHOWN
    # one line per rule at most up to the winner, then only rules that also match
    assert len(text.splitlines()) < 3 * len(trace.rules)
    assert "exceeds the cap 0" not in text


def test_huge_prompt_keeps_a_bounded_trace() -> None:
    classifier = Classifier(
        parse_config(
            '[classification]\n[[classification.rules]]\nintent="edit"\nkeywords=["refactor"]\n'
        )
    )
    text = "lorem ipsum dolor " * 100_000 + " refactr"
    trace = classifier.explain(text)
    assert trace.token_count == 300_001
    assert len(trace.tokens) == TOKENS_SHOWN
    assert trace.rules[0].keyword == "refactor"
    assert trace.rules[0].fuzzy
    assert trace.result == classifier.classify(text)
