"""The classifier (spec §3-§4, upstream tests §9.1, worked examples §9.6) and its invariants."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import threading
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from smista import (
    Classification,
    ClassificationConfig,
    Classifier,
    TaskIntent,
    UnknownIntentError,
    Workspace,
    classify,
    context_kinds,
)
from smista.authoring.testing import typo_of
from smista.config.defaults import default_config
from smista.config.load import parse_config
from smista.core import engine
from smista.core.conditions.base import Evidence
from smista.core.conditions.signals import KEEP_CHARS
from smista.core.engine import RuleMatch
from tests import reference
from tests.conftest import ROOT

DIFF = Workspace(git_diff="diff --git a/x b/x")


def make(rules: list[dict[str, Any]], default: str = "chat") -> Classifier:
    return Classifier(
        ClassificationConfig.model_validate({"default_intent": default, "rules": rules})
    )


def wire(result: Classification) -> dict[str, Any]:
    return result.model_dump(mode="json", exclude_none=True)


# Upstream normalizer tests (§9.1)


def test_u1_explicit_command_wins() -> None:
    """An explicit command wins over rules; no confidence, no matched rule."""
    result = make([{"intent": "review", "keywords": ["review"]}]).classify(
        "review my changes", command="edit"
    )
    assert wire(result) == {
        "intent": "edit",
        "source": "explicit",
        "reason": "explicit command 'edit'",
    }


def test_u2_keyword_only_rule_is_medium() -> None:
    """A keyword-only rule gives medium confidence."""
    result = make([{"intent": "review", "keywords": ["review", "audit"]}]).classify(
        "please review this"
    )
    assert wire(result) == {
        "intent": "review",
        "source": "inferred",
        "reason": "keyword 'review' matched rule 0",
        "matched_rule": 0,
        "confidence": "medium",
    }


def test_u3_context_only_rule_is_medium() -> None:
    """A context-only rule gives medium confidence."""
    result = make([{"intent": "review", "requires_any_context": ["git_diff"]}]).classify(
        "anything", workspace=DIFF
    )
    assert wire(result) == {
        "intent": "review",
        "source": "inferred",
        "reason": "context 'git_diff' matched rule 0",
        "matched_rule": 0,
        "confidence": "medium",
    }


U4_RULES = [{"intent": "review", "keywords": ["review"], "requires_any_context": ["git_diff"]}]


def test_u4_both_conditions_are_high() -> None:
    """Keyword and context together give high confidence."""
    result = make(U4_RULES).classify("review my changes", workspace=DIFF)
    assert result.confidence == "high"
    assert result.reason == "keyword 'review' and context 'git_diff' matched rule 0"


def test_u5_missing_required_context_does_not_match() -> None:
    """A rule needing an absent context does not match."""
    assert wire(make(U4_RULES).classify("review this idea")) == {
        "intent": "chat",
        "source": "inferred",
        "reason": "no rule matched; default intent 'chat'",
        "confidence": "low",
    }


def test_u6_default_intent_when_nothing_matches() -> None:
    """No match falls back to the default intent with low confidence."""
    result = make([{"intent": "edit", "keywords": ["refactor"]}]).classify("what does this do?")
    assert (result.intent, result.source, result.confidence, result.matched_rule) == (
        "chat",
        "inferred",
        "low",
        None,
    )


def test_u7_conditionless_rule_is_a_low_confidence_catch_all() -> None:
    """A rule without conditions matches everything with low confidence."""
    result = make([{"intent": "plan"}]).classify("anything at all")
    assert wire(result) == {
        "intent": "plan",
        "source": "inferred",
        "reason": "catch-all rule 0 matched",
        "matched_rule": 0,
        "confidence": "low",
    }


def test_u8_priority_order_keeps_the_original_index() -> None:
    """Lower priority is tried first; matched_rule is the config index."""
    result = make(
        [
            {"intent": "plan", "priority": 100, "keywords": ["go"]},
            {"intent": "edit", "priority": 10, "keywords": ["go"]},
        ]
    ).classify("go")
    assert (result.intent, result.matched_rule, result.reason) == (
        "edit",
        1,
        "keyword 'go' matched rule 1",
    )


def test_u9_priority_ties_break_on_config_order() -> None:
    """Equal priorities keep file order."""
    result = make(
        [
            {"intent": "plan", "priority": 10, "keywords": ["go"]},
            {"intent": "edit", "priority": 10, "keywords": ["go"]},
        ]
    ).classify("go")
    assert (result.intent, result.matched_rule) == ("plan", 0)


def test_u10_typo_with_context_is_capped_at_medium() -> None:
    """A fuzzy-only keyword hit caps confidence at medium even with a context."""
    rules = [{"intent": "edit", "keywords": ["implement"], "requires_any_context": ["git_diff"]}]
    result = make(rules).classify("impelment the feature", workspace=DIFF)
    assert wire(result) == {
        "intent": "edit",
        "source": "inferred",
        "reason": "keyword 'implement' and context 'git_diff' matched rule 0",
        "matched_rule": 0,
        "confidence": "medium",
    }


def test_u11_short_keywords_need_exact_match() -> None:
    """'edit' does not match 'audit'."""
    assert (
        make([{"intent": "edit", "keywords": ["edit"]}]).classify("audit the code").intent == "chat"
    )


def test_u12_two_typos_in_the_medium_bucket_are_rejected() -> None:
    """'revixx' is two edits from 'review' (cap 1)."""
    assert (
        make([{"intent": "review", "keywords": ["review"]}]).classify("revixx the code").intent
        == "chat"
    )


def test_u13_suffix_word_is_not_a_typo() -> None:
    """'preview' does not match 'review'."""
    assert (
        make([{"intent": "review", "keywords": ["review"]}]).classify("preview the page").intent
        == "chat"
    )


def test_u14_deterministic_across_calls() -> None:
    """Two calls give equal results."""
    classifier = make([{"intent": "review", "keywords": ["review"]}])
    assert classifier.classify("review please") == classifier.classify("review please")


# Worked examples (§9.6)

DOC_RULES = [
    {
        "intent": "review",
        "priority": 10,
        "keywords": ["review", "audit"],
        "requires_any_context": ["git_diff"],
    }
]


@pytest.mark.parametrize(
    ("text", "command", "workspace", "expected"),
    [
        ("anything", "edit", None, ("edit", "explicit", None, None)),
        ("review my changes", None, DIFF, ("review", "inferred", 0, "high")),
        ("review this idea", None, None, ("chat", "inferred", None, "low")),
        ("what does this function do?", None, None, ("chat", "inferred", None, "low")),
    ],
)
def test_doc_worked_examples(
    text: str, command: str | None, workspace: Workspace | None, expected: tuple[Any, ...]
) -> None:
    """The examples of the original's classification documentation."""
    result = make(DOC_RULES).classify(text, command=command, workspace=workspace)
    assert (result.intent, result.source, result.matched_rule, result.confidence) == expected


# Further rules of the algorithm


def test_first_available_context_in_config_order_is_reported() -> None:
    """The reported context is the first in the rule's list that is available."""
    rules = [
        {
            "intent": "review",
            "requires_any_context": ["pull_request", "referenced_paths", "git_diff"],
        }
    ]
    ws = Workspace(git_diff="", referenced_paths=("a.py",))
    assert (
        make(rules).classify("x", workspace=ws).reason
        == "context 'referenced_paths' matched rule 0"
    )


def test_contexts_and_workspace_are_united() -> None:
    """Named contexts and workspace-derived kinds both count."""
    rules = [{"intent": "review", "keywords": ["check"], "requires_any_context": ["pull_request"]}]
    assert (
        make(rules).classify("check it", contexts=["pull_request"], workspace=DIFF).confidence
        == "high"
    )


def test_a_single_string_is_one_context_kind() -> None:
    """contexts="git_diff" means the kind git_diff, not its letters."""
    rules = [{"intent": "review", "requires_any_context": ["git_diff"]}]
    assert make(rules).classify("x", contexts="git_diff").intent == "review"
    assert (
        make([{"intent": "review", "requires_any_context": ["g"]}])
        .classify("x", contexts="git_diff")
        .intent
        == "chat"
    )


class _Text(str):
    """A str subclass: classified by its value."""


_TURN = [{"role": "user", "content": "fix the login bug"}]
_CLASSIFY: Any = classify  # called with wrong types on purpose


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda _: _CLASSIFY(5), "text must be a str, got int"),
        (lambda _: _CLASSIFY(b"fix it"), "text must be a str, got bytes"),
        (lambda c: c.classify(None), "text must be a str, got NoneType"),
        (lambda c: c.classify(None, contexts=["git_diff"]), "text must be a str, got NoneType"),
        (lambda c: c.classify(None, command="edit"), "text must be a str, got NoneType"),
        (lambda c: c.explain(7), "text must be a str, got int"),
        (lambda _: _CLASSIFY("x", contexts=[1]), "contexts must be strings, got int"),
        (lambda c: c.classify("x", contexts={"a", 2.5}), "contexts must be strings, got float"),
        (
            lambda c: c.classify("x", contexts=[None], workspace=DIFF),
            "contexts must be strings, got NoneType",
        ),
        (lambda c: c.classify("x", contexts=5), "contexts must be an iterable of str, got int"),
        (lambda c: c.explain("x", contexts=[b"git_diff"]), "contexts must be strings, got bytes"),
        (lambda c: c.classify("x", command=5), "command must be a TaskIntent or a str, got int"),
        (lambda c: c.classify_turn(_TURN, contexts=[1]), "contexts must be strings, got int"),
        (
            lambda c: c.classify_turn(_TURN, contexts=3),
            "contexts must be an iterable of str, got int",
        ),
        (lambda c: c.explain_turn(_TURN, contexts=[1]), "contexts must be strings, got int"),
    ],
    ids=lambda value: "" if callable(value) else value,
)
def test_wrong_argument_types_name_the_argument(call: Any, message: str) -> None:
    """A wrong type is a TypeError naming the argument and the type expected, never an
    internal one (``code_signs() text must be str``, ``object of type 'NoneType' has no
    len()``), and a non-string context is not accepted silently."""
    classifier = make([{"intent": "edit", "keywords": ["fix"]}])
    with pytest.raises(TypeError) as caught:
        call(classifier)
    assert str(caught.value) == message


def test_a_str_subclass_is_classified_by_its_value() -> None:
    classifier = make(
        [{"intent": "review", "keywords": ["review"], "requires_any_context": ["pr"]}]
    )
    for contexts in ((), ("pr",)):
        assert classifier.classify(_Text("review this"), contexts=contexts) == classifier.classify(
            "review this", contexts=contexts
        )
    assert classify(_Text("fix the bug")) == classify("fix the bug")
    assert classifier.classify("x", contexts=[_Text("pr")]).matched_rule is None
    assert classifier.classify("review", contexts=frozenset({_Text("pr")})).intent == "review"


def test_context_names_are_case_sensitive() -> None:
    """'Git_Diff' is not 'git_diff'."""
    assert (
        make([{"intent": "review", "requires_any_context": ["Git_Diff"]}])
        .classify("x", workspace=DIFF)
        .intent
        == "chat"
    )


def test_empty_git_diff_counts_as_available() -> None:
    """An empty diff string is still present."""
    assert "git_diff" in context_kinds(Workspace(git_diff=""))


def test_higher_precedence_fuzzy_beats_lower_precedence_exact() -> None:
    """The keyword scan is per rule: an earlier typo match wins over a later exact one."""
    rules = [
        {"intent": "edit", "keywords": ["implement"]},
        {"intent": "plan", "keywords": ["plan"]},
    ]
    result = make(rules).classify("impelment the plan")
    assert (result.intent, result.confidence, result.reason) == (
        "edit",
        "medium",
        "keyword 'implement' matched rule 0",
    )


def test_exact_keyword_beats_earlier_typo_within_a_rule() -> None:
    """Within a rule an exact hit is preferred, so confidence is not capped needlessly."""
    rules = [
        {
            "intent": "review",
            "keywords": ["implement", "review"],
            "requires_any_context": ["git_diff"],
        }
    ]
    result = make(rules).classify("impelment review", workspace=DIFF)
    assert (result.reason, result.confidence) == (
        "keyword 'review' and context 'git_diff' matched rule 0",
        "high",
    )


def test_rule_with_empty_keyword_never_matches() -> None:
    """keywords = [""] is a non-empty list whose keyword never matches."""
    assert make([{"intent": "plan", "keywords": [""]}]).classify("anything").intent == "chat"


def test_catch_all_after_keyword_rule() -> None:
    """A catch-all later in order catches what earlier rules miss."""
    classifier = make(
        [{"intent": "edit", "keywords": ["fix"]}, {"intent": "plan", "priority": 2000}]
    )
    assert classifier.classify("fix it").intent == "edit"
    assert classifier.classify("hello").reason == "catch-all rule 1 matched"


def test_custom_default_intent() -> None:
    """The default intent is configurable."""
    result = make([], default="plan").classify("hello")
    assert (result.intent, result.reason) == ("plan", "no rule matched; default intent 'plan'")


def test_command_accepts_names_case_insensitively() -> None:
    """A command given as text is parsed like user input."""
    assert make([]).classify("x", command="Review").intent == TaskIntent.REVIEW
    with pytest.raises(UnknownIntentError):
        make([]).classify("x", command="deploy")


def test_module_level_classify_uses_default_rules() -> None:
    """classify() without a config uses the shipped pack; with one, that config."""
    assert classify("please review this diff", contexts=["git_diff"]).intent == "review"
    assert classify("please review this", ClassificationConfig()).intent == "chat"


def test_large_prompt() -> None:
    """A 10 MB prompt classifies."""
    text = "lorem ipsum " * 900_000 + " refactor"
    assert make([{"intent": "edit", "keywords": ["refactor"]}]).classify(text).intent == "edit"


def test_explain_agrees_with_classify() -> None:
    """The trace names the same winner and keeps evaluation order."""
    classifier = make(
        [
            {"intent": "plan", "priority": 5, "keywords": ["plan"]},
            {
                "intent": "review",
                "priority": 1,
                "keywords": ["review"],
                "requires_any_context": ["git_diff"],
            },
            {"intent": "edit", "keywords": ["implement"]},
        ]
    )
    trace = classifier.explain("impelment the reviews", workspace=DIFF)
    assert trace.result == classifier.classify("impelment the reviews", workspace=DIFF)
    assert [r.index for r in trace.rules] == [1, 0, 2]
    assert trace.winner == 2
    review = trace.rules[0].keywords[0]
    assert review.result == "none"
    assert review.evidence[0].token == "reviews"
    assert not review.evidence[0].counted
    implement = trace.rules[2]
    assert (implement.keyword, implement.fuzzy, implement.winner) == ("implement", True, True)


# Sharing, pickling, threads


def test_classifier_pickles_and_keeps_answers() -> None:
    """A pickled classifier answers the same."""
    classifier = make(DOC_RULES)
    clone = pickle.loads(pickle.dumps(classifier))
    assert clone == classifier
    assert clone.classify("audit", workspace=DIFF) == classifier.classify("audit", workspace=DIFF)


def test_classifier_is_immutable() -> None:
    """Its config and compiled rules cannot be swapped after construction."""
    classifier = make(DOC_RULES)
    with pytest.raises(AttributeError, match="immutable"):
        classifier.config = ClassificationConfig()  # type: ignore[misc]
    with pytest.raises(AttributeError, match="immutable"):
        del classifier.rules
    assert classifier.classify("audit", workspace=DIFF).intent == "review"


def test_classifier_is_thread_safe() -> None:
    """Concurrent classification gives the same answers as sequential."""
    classifier = make([{"intent": "edit", "keywords": [f"keyword{i}"]} for i in range(50)])
    prompts = [f"please keyword{i % 60} and keywrd{i % 7}x" for i in range(400)]
    expected = [classifier.classify(p) for p in prompts]
    results: list[list[Classification]] = []

    def work() -> None:
        results.append(
            [
                make([{"intent": "edit", "keywords": [f"keyword{i}"]} for i in range(50)]).classify(
                    p
                )
                for p in prompts
            ]
        )
        results.append([classifier.classify(p) for p in prompts])

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r == expected for r in results)


def test_reasons_remember_no_long_quote_of_a_prompt(monkeypatch: pytest.MonkeyPatch) -> None:
    """The process-wide table of worded evidence never holds a long command quoted from a
    prompt (its classifier's outcomes go with the classifier; this table would not)."""
    monkeypatch.setattr(engine, "_PARTS", {})
    classifier = make([{"intent": "skill", "commands": ["*"]}])
    name = "a" * (4 * KEEP_CHARS)
    got = classifier.classify(f"/{name} please")
    assert got.reason == f"command '/{name}' matched rule 0"
    assert classifier.classify(f"/{name} please") is got
    assert classifier.classify("/short please").reason == "command '/short' matched rule 0"
    assert [e.shown for e in engine._PARTS] == ["/short"]
    assert engine.reason_and_confidence(
        RuleMatch(0, "skill", extra=(Evidence("commands", "/" + name),))
    ) == (
        f"command '/{name}' matched rule 0",
        "medium",
    )
    assert [e.shown for e in engine._PARTS] == ["/short"]


def test_worded_evidence_starts_over_past_its_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past :data:`engine._PARTS_LIMIT` the table starts over, as the outcomes do: the first
    evidence met (one-off commands) do not keep it full for good."""
    monkeypatch.setattr(engine, "_PARTS", {})
    monkeypatch.setattr(engine, "_PARTS_LIMIT", 3)
    for n in range(7):
        match = RuleMatch(0, "skill", extra=(Evidence("commands", f"/c{n}"),))
        assert engine.reason_and_confidence(match) == (f"command '/c{n}' matched rule 0", "medium")
        assert Evidence("commands", f"/c{n}") in engine._PARTS
        assert len(engine._PARTS) <= 3


# Properties

INTENTS = [i.value for i in TaskIntent]
WORDS = [
    "review",
    "reviews",
    "plan",
    "implement",
    "refactor",
    "summarize",
    "audit",
    "fix",
    "edit",
    "prompt",
    "skill",
    "änderung",
    "überprüfen",
    "ΟΔΟΣ",
    "go",
    "security review",
    "code-review",
    "",
]
CONTEXT_KINDS = ["git_diff", "git_branch", "active_file", "referenced_paths", "pull_request"]


def mutate(word: str, data: st.DataObject) -> str:
    if not word or not data.draw(st.booleans()):
        return word
    i = data.draw(st.integers(0, len(word) - 1))
    op = data.draw(st.sampled_from(["sub", "del", "ins", "swap"]))
    if op == "sub":
        return word[:i] + data.draw(st.sampled_from("xqzé")) + word[i + 1 :]
    if op == "del":
        return word[:i] + word[i + 1 :]
    if op == "ins":
        return word[:i] + data.draw(st.sampled_from("xqzé")) + word[i:]
    return word[:i] + word[i + 1 : i + 2] + word[i : i + 1] + word[i + 2 :]


keyword_st = st.sampled_from(WORDS) | st.text(alphabet="abcdefghijklmnoprstuvwxyzÉé ", max_size=11)
rule_st = st.fixed_dictionaries(
    {"intent": st.sampled_from(INTENTS)},
    optional={
        "priority": st.integers(0, 5),
        "keywords": st.lists(keyword_st, max_size=4),
        "requires_any_context": st.lists(st.sampled_from(CONTEXT_KINDS), max_size=2),
    },
)
config_st = st.fixed_dictionaries(
    {"default_intent": st.sampled_from(INTENTS), "rules": st.lists(rule_st, max_size=8)}
)


@given(config_st, st.data())
def test_differential_against_reference(config: dict[str, Any], data: st.DataObject) -> None:
    """The compiled classifier equals the plain reference on random configs and prompts."""
    vocab = [k for r in config["rules"] for k in r.get("keywords", [])] + WORDS
    words = data.draw(st.lists(st.sampled_from(vocab), max_size=8))
    text = " ".join(mutate(w, data) for w in words) + data.draw(st.text(max_size=10))
    contexts = set(data.draw(st.lists(st.sampled_from(CONTEXT_KINDS), max_size=3)))
    classifier = Classifier(ClassificationConfig.model_validate(config))
    assert wire(classifier.classify(text, contexts=contexts)) == reference.classify(
        text, config, contexts
    )
    # Re-asking hits the memo: still the same answer.
    assert wire(classifier.classify(text, contexts=contexts)) == reference.classify(
        text, config, contexts
    )


@given(config_st, st.text(max_size=40), st.sampled_from(INTENTS))
def test_explicit_command_always_wins(config: dict[str, Any], text: str, intent: str) -> None:
    """Whatever the rules, an explicit command decides, with no confidence."""
    result = Classifier(ClassificationConfig.model_validate(config)).classify(
        text, command=intent, contexts=CONTEXT_KINDS
    )
    assert (result.intent, result.source, result.confidence, result.matched_rule) == (
        intent,
        "explicit",
        None,
        None,
    )


SINGLE_TOKEN_WORDS = [w for w in WORDS if w and " " not in w and "-" not in w]


@given(st.sampled_from(SINGLE_TOKEN_WORDS), st.text(alphabet="abc ", max_size=20))
def test_keyword_present_as_token_matches_exactly(keyword: str, filler: str) -> None:
    """A keyword present as a token makes its rule match with fuzzy=False (medium, keyword-only)."""
    classifier = make([{"intent": "review", "keywords": [keyword]}])
    text = f"{filler} {keyword} {filler}"
    result = classifier.classify(text)
    assert (result.reason, result.confidence) == (f"keyword '{keyword}' matched rule 0", "medium")
    assert classifier.explain(text).rules[0].fuzzy is False


@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=5, max_size=14), st.data())
def test_one_edit_of_a_long_keyword_matches_fuzzily(keyword: str, data: st.DataObject) -> None:
    """One OSA edit of a >=5-char keyword (not creating containment) matches, capped at medium."""
    typo = data.draw(typo_of(keyword, 1))
    assert reference.osa(keyword, typo) == 1
    classifier = make(
        [{"intent": "edit", "keywords": [keyword], "requires_any_context": ["git_diff"]}]
    )
    result = classifier.classify(f"123 {typo} 456", workspace=DIFF)
    assert (result.intent, result.confidence) == ("edit", "medium")
    assert result.reason == f"keyword '{keyword}' and context 'git_diff' matched rule 0"


def test_determinism_across_hash_seeds() -> None:
    """Results do not depend on PYTHONHASHSEED."""
    code = (
        "import json; from smista import Classifier, ClassificationConfig;"
        "c = Classifier(ClassificationConfig.model_validate({'rules': ["
        "{'intent': 'edit', 'keywords': ['implement', 'refactor', 'summarize']},"
        "{'intent': 'review', 'keywords': ['implementt', 'refactorr']}]}));"
        "print(json.dumps([c.classify(t).to_wire() for t in ['impelment refactr summarise', 'refactorx implemen']]))"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("0", "1", "42", "12345")
    }
    assert len(outputs) == 1


@given(config_st, st.data())
def test_explain_trace_agrees_with_classify(config: dict[str, Any], data: st.DataObject) -> None:
    """The trace's winner, keyword and typo flag are those of the classification."""
    vocab = [k for r in config["rules"] for k in r.get("keywords", [])] + WORDS
    text = " ".join(
        mutate(w, data) for w in data.draw(st.lists(st.sampled_from(vocab), max_size=8))
    )
    contexts = set(data.draw(st.lists(st.sampled_from(CONTEXT_KINDS), max_size=3)))
    classifier = Classifier(ClassificationConfig.model_validate(config))
    result = classifier.classify(text, contexts=contexts)
    trace = classifier.explain(text, contexts=contexts)
    assert trace.result == result
    assert trace.winner == result.matched_rule
    if trace.winner is not None:
        (winner,) = [r for r in trace.rules if r.winner]
        assert winner.keyword is None or f"keyword '{winner.keyword}'" in result.reason
        assert (result.confidence == "medium") if winner.fuzzy and winner.context else True


def test_classifier_compares_by_config_and_says_its_size() -> None:
    """Two classifiers of equal configs are equal and hash alike; repr counts the rules."""
    config = {
        "rules": [{"intent": "edit", "keywords": ["fix"]}, {"intent": "plan", "keywords": ["plan"]}]
    }
    one = Classifier(ClassificationConfig.model_validate(config))
    two = Classifier(ClassificationConfig.model_validate(config))
    assert one == two
    assert hash(one) == hash(two)
    assert one != Classifier(ClassificationConfig.model_validate({"rules": config["rules"][:1]}))
    assert one != config
    assert repr(one) == "Classifier(<2 rules>)"


def test_distinct_outcomes_are_kept_in_bounded_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    """A wildcard slash-command rule quotes each prompt's command in its evidence, so a
    stream of new commands makes new outcomes without end: a long-running service keeps
    at most OUTCOMES_LIMIT results, and every answer is still the one a fresh classifier
    gives."""
    import smista.core.classifier as classifier_module

    monkeypatch.setattr(classifier_module, "OUTCOMES_LIMIT", 16)
    config = parse_config(
        '[[classification.rules]]\nintent = "skill"\ncommands = ["*"]\n'
        '[[classification.rules]]\nintent = "edit"\nkeywords = ["fix"]\n'
    )
    kept = Classifier(config)
    prompts = [f"/cmd{i} fix it" for i in range(100)] + ["fix the bug", "/cmd3 fix it"]
    for text in prompts:
        got = kept.classify(text)
        assert got == Classifier(config).classify(text)
        assert len(kept._results) <= 16
    assert kept.classify("/cmd99 go").reason == "command '/cmd99' matched rule 0"


def test_match_codes_of_forgotten_outcomes_are_never_reused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """match_code numbers outcomes of rule sets with extension kinds in bounded memory: a
    code forgotten past OUTCOMES_LIMIT newer outcomes raises KeyError, never standing for
    another outcome."""
    import smista.core.engine as engine_module

    monkeypatch.setattr(engine_module, "OUTCOMES_LIMIT", 8)
    config = parse_config('[[classification.rules]]\nintent = "skill"\ncommands = ["*"]\n')
    rules = Classifier(config).rules
    codes = []
    for i in range(40):
        text = f"/c{i} go"
        code = rules.match_code(text)
        assert rules.match_of_code(code) == rules.match_text(text)
        assert len(rules._codes) <= 8
        codes.append((code, text))
    assert len({code for code, _ in codes}) == 40
    for code, _ in codes[:32]:  # (forgotten at the 9th, 17th, 25th and 33rd outcomes)
        with pytest.raises(KeyError):
            rules.match_of_code(code)
    for code, text in codes[32:]:
        assert rules.match_of_code(code) == rules.match_text(text)


def test_long_new_tokens_starting_a_stem_are_not_remembered() -> None:
    """A token can start a stem at any length, so the memos of the extension kinds (and the
    verifying scan's table) keep no token over KEEP_CHARS characters: a client sending long
    new tokens that start a stem fills neither, and each is still read as starting it."""
    from smista.core.conditions.signals import KEEP_CHARS

    config = parse_config(
        '[[classification.rules]]\nintent = "edit"\nstems = ["aggiorn"]\n'
        '[[classification.rules]]\nintent = "chat"\nphrases = ["best way"]\n'
    )
    classifier = Classifier(config)
    rules = classifier.rules
    for i in range(200):
        token = f"aggiorn{'x' * KEEP_CHARS}{i}"
        assert classifier.classify(f"please {token} now").intent is TaskIntent.EDIT
        assert classifier.classify(f"please {token} again").intent is TaskIntent.EDIT
    assert len(rules._signals) == 0
    assert rules._scan is None or len(rules._scan) == 0
    short = classifier.classify("please aggiornamento now")  # (kept: within the bound)
    assert short.intent is TaskIntent.EDIT
    assert len(rules._signals) == 1
    # a token over the bound that hits a looked-up word (a rule's long phrase word)
    word = "w" * (KEEP_CHARS + 6)
    worded = Classifier(
        parse_config(f'[[classification.rules]]\nintent = "plan"\nphrases = ["{word}"]\n')
    )
    for _ in range(2):
        assert worded.classify(f"the {word} please").intent is TaskIntent.PLAN
    assert worded.rules._scan is None or len(worded.rules._scan) == 0


@pytest.mark.parametrize(
    "text",
    ["fix the login bug", "what does this function do?", "hello", "/review the diff", "ok do it"],
)
def test_reason_of_and_confidence_of_read_the_one_statement(text: str) -> None:
    """reason_of and confidence_of are reason_and_confidence's two halves, and a result's."""
    classifier = Classifier(default_config())
    match = classifier._match_text(text, ())
    assert (engine.reason_of(match), engine.confidence_of(match)) == (
        engine.reason_and_confidence(match)
    )
    result = classifier.classify(text)
    assert (result.reason, result.confidence) == (
        engine.reason_of(match),
        engine.confidence_of(match),
    )
    default = RuleMatch(None, "chat")
    assert engine.confidence_of(default) == "low"
    assert engine.reason_of(default) == "no rule matched; default intent 'chat'"
