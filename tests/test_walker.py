"""The compiled walk (smista.core.walk, ``_speedups.Walker``) against the engine's loop.

``CompiledRules._match_view``'s Python loop is the statement of the verifying path's
walk; with the extension built the same plan runs in C. These tests hold the two equal
(random configs mixing every kind, the shipped pack on the labelled prompts), with every
native op and with none (each kind called in Python on a view), and check what the walker
takes from the kinds, what it hands a view, and that it refuses malformed plans.
"""

from __future__ import annotations

import gc
import itertools
import json
import re
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from smista.config.defaults import default_config
from smista.config.load import parse_config
from smista.core import engine, walk
from smista.core.classifier import Classifier
from smista.core.conditions.base import Condition, Evidence
from smista.core.conditions.leading import LeadingKind
from smista.core.conditions.question import QuestionKind
from smista.core.conditions.registry import BY_KEY
from smista.core.conditions.view import PlanOptions, PromptView
from smista.core.engine import CompiledRules, RuleMatch, RuleSpec
from smista.core.rules import ClassificationConfig
from smista.core.textmodel import TextModel
from tests.test_conditions_differential import EXT_CONFIGS, prompts

pytestmark = pytest.mark.skipif(walk.Walker is None, reason="the walker is the C extension's")

DATA = Path(__file__).parent / "data"


def _loop(rules: CompiledRules) -> CompiledRules:
    """The same rules, walked by the engine's Python loop."""
    twin = CompiledRules(rules.specs, rules.default_label, options=rules.options)
    twin._walker = None
    return twin


def _python_ops(rules: CompiledRules, monkeypatch: pytest.MonkeyPatch) -> CompiledRules:
    """The same rules, walked in C with every kind called in Python (no native op)."""
    monkeypatch.setattr(walk, "native_of", lambda *_: None)
    monkeypatch.setattr(walk, "native_gate_of", lambda *_: None)
    twin = CompiledRules(rules.specs, rules.default_label, options=rules.options)
    if twin._scan is not None:  # (the verifying path: rule sets with extension kinds)
        twin._walker = twin._build_walker()
    monkeypatch.undo()
    return twin


def _same(got: RuleMatch, want: RuleMatch) -> None:
    assert got == want
    assert type(got) is RuleMatch
    assert [type(e) for e in got.extra] == [type(e) for e in want.extra]


@settings(max_examples=300, deadline=None)
@given(config=EXT_CONFIGS, data=st.data())
def test_the_walker_answers_as_the_loop_on_mixed_kinds(
    config: ClassificationConfig, data: st.DataObject
) -> None:
    rules = Classifier(config).rules
    rules._match_view("", ())  # (the first prompt is read in Python; the walk then compiled)
    loop = _loop(rules)
    with pytest.MonkeyPatch.context() as patch:
        python_ops = _python_ops(rules, patch)
    for _ in range(4):
        text = data.draw(prompts(config))
        contexts = data.draw(st.frozensets(st.sampled_from(["git_diff", "active_file"])))
        want = loop._match_view(text, contexts)
        _same(rules._match_view(text, contexts), want)
        _same(python_ops._match_view(text, contexts), want)
    assert rules._walker is not None
    assert loop._walker is None


def _labelled_texts() -> list[str]:
    texts = []
    for path in sorted(DATA.glob("real-prompts-*.jsonl")):
        texts += [
            json.loads(line)["text"] for line in path.read_text(encoding="utf-8").splitlines()
        ]
    return texts


def test_the_shipped_pack_walks_every_labelled_prompt_as_the_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rules = Classifier(default_config()).rules
    rules._match_view("", ())  # (the first prompt is read in Python; the walk then compiled)
    loop = _loop(rules)
    python_ops = _python_ops(rules, monkeypatch)
    texts = _labelled_texts()
    assert len(texts) > 7000
    for contexts in ((), ("git_diff",), ("referenced_paths", "active_file")):
        for text in texts:
            want = loop._match_view(text, contexts)
            _same(rules._match_view(text, contexts), want)
            _same(python_ops._match_view(text, contexts), want)


def test_every_kind_of_the_shipped_pack_has_a_native_op() -> None:
    """The shipped pack's conditions and gates are all answered in C (the figures of
    docs/performance.md assume it): no kind of it is called in Python."""
    rules = Classifier(default_config()).rules
    kinds = {c.kind for conditions in rules.conditions for c in conditions}
    assert kinds
    for conditions in rules.conditions:
        for condition in conditions:
            assert walk.native_of(BY_KEY[condition.kind], condition) is not None, condition.kind
    for kind, plan in rules._gate_plans.items():
        assert walk.native_gate_of(BY_KEY[kind], plan) is not None, kind


def test_a_kind_without_a_native_op_gives_none() -> None:
    """The base class's default: the walker then calls the kind in Python."""
    keywords = BY_KEY["keywords"]
    assert keywords.native(Condition("keywords", ("fix",), True)) is None
    assert keywords.native_gate(frozenset({"fix"})) is None


class _Overridden(QuestionKind):
    """A subclass that overrides ``match`` and not ``native``."""

    def match(self, condition: Condition, view: PromptView) -> Evidence | None:
        del condition, view
        return Evidence("question", "always")


class _Restated(LeadingKind):
    """A subclass that restates both."""


def test_a_native_op_is_taken_only_from_the_class_that_defines_match() -> None:
    condition = Condition("question", (), True)
    assert walk.native_of(BY_KEY["question"], condition) is not None
    assert walk.native_of(_Overridden(), condition) is None
    leading = Condition("leading", ("fix",), True)
    assert walk.native_of(_Restated(), leading) is not None
    assert walk.native_gate_of(_Restated(), {}) is not None


def test_a_kind_whose_method_is_replaced_on_the_object_is_called(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    question = BY_KEY["question"]
    condition = Condition("question", (), True)
    monkeypatch.setattr(question, "match", lambda *_: None)
    assert walk.native_of(question, condition) is None
    stems = BY_KEY["stems"]
    monkeypatch.setattr(stems, "present", lambda *_: frozenset())
    assert walk.native_gate_of(stems, frozenset({"x"})) is None


_FACTS = """
[classification]
default_intent = "chat"

[[classification.rules]]
intent = "review"
priority = 1
leading = ["check"]
question = true

[[classification.rules]]
intent = "plan"
priority = 2
phrases = ["big plan"]
"""


def test_a_kind_called_in_python_sees_the_facts_the_walker_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The walker reads the question and the first content words natively, then makes
    the view for a kind it calls in Python: the view holds what was read, and the kind's
    answer is the loop's."""
    seen: list[tuple[object, object]] = []
    phrases = BY_KEY["phrases"]
    real = type(phrases).match

    def spying(condition: Condition, view: PromptView) -> Evidence | None:
        seen.append((view._question, view._content))
        return real(phrases, condition, view)

    monkeypatch.setattr(phrases, "match", spying)
    rules = Classifier(parse_config(_FACTS, "facts.toml")).rules
    rules._match_view("nothing", ())  # (the first prompt is read in Python)
    assert rules._walker is True
    got = rules._match_view("check the big plan", ())
    assert rules._walker
    assert got.rule == 1
    assert seen == [(False, ("check", "the", "big", "plan"))]
    assert got == _loop(rules)._match_view("check the big plan", ())


def test_an_exception_in_a_kind_called_in_python_reaches_the_caller(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    phrases = BY_KEY["phrases"]

    def broken(condition: Condition, view: PromptView) -> Evidence | None:
        del condition, view
        raise RuntimeError("kind failed")

    monkeypatch.setattr(phrases, "match", broken)
    rules = Classifier(parse_config(_FACTS, "facts.toml")).rules
    with pytest.raises(RuntimeError, match="kind failed"):
        rules._match_view("the big plan", ())


def _walker_args(rules: CompiledRules) -> dict[str, Any]:
    return {
        "plan": rules._plan,
        "ungated": rules._ungated,
        "by_gate": rules._by_gate,
        "gate_plans": rules._gate_plans,
        "labels": rules.labels,
        "keywords": rules.keywords,
        "contexts": rules.contexts,
        "conditions": rules.conditions,
        "options": rules.options,
        "signals": rules._signals,
        "default": RuleMatch(None, rules.default_label),
        "match_type": RuleMatch,
        "scan": None,
    }


def _built_args(rules: CompiledRules) -> tuple[Any, ...]:
    captured: list[tuple[Any, ...]] = []
    real = walk.Walker

    def capture(*args: Any) -> Any:
        captured.append(args)
        return real(*args)

    walk.Walker = capture  # type: ignore[misc,assignment]
    try:
        walk.walker_of(**_walker_args(rules))
    finally:
        walk.Walker = real  # type: ignore[misc]
    return captured[0]


@pytest.mark.parametrize(
    ("place", "bad", "message"),
    [
        (0, ((0, 99),), "the plan is in rank order, of known rules"),
        (0, ((1, 0), (0, 0)), "the plan is in rank order, of known rules"),
        (1, (5, 2), "ungated positions ascend, within the plan"),
        (2, ((0, (99,), {}),), "a gate op is"),
        (2, ((0, (1, frozenset()), {"k": (99,)}),), "a gate key names a position past the plan"),
        (3, (("edit", (), (), ((99,),)),), "an op is"),
        (3, (("edit", (), (), ((1, "yes", None),)),), "a question op takes"),
        (4, (tuple, tuple, tuple), "default is a RuleMatch"),
        (5, ("not a match",), "default is a RuleMatch"),
        (6, (None, None, None, None), "the facts' Python functions are callables"),
        (8, (None, (), 1.0, (), {}, None), "model is"),
        (9, (None, None, None), "view[0] is a callable"),
        (10, (1, 2), "scan is None or (TokenCodes, FeatureTable or None, resolve"),
    ],
)
def test_a_malformed_plan_is_refused(place: int, bad: Any, message: str) -> None:
    rules = Classifier(parse_config(_FACTS, "facts.toml")).rules
    args = list(_built_args(rules))
    args[place] = bad
    with pytest.raises(TypeError, match=re.escape(f"Walker(): {message}")):
        walk.Walker(*args)


def test_walk_refuses_arguments_of_the_wrong_types() -> None:
    rules = Classifier(parse_config(_FACTS, "facts.toml")).rules
    walker = rules._build_walker()
    hits: list[Any] = []
    good: tuple[Any, ...] = ("text", "text", (), hits, (set(), set(), {}), None, None)
    assert walker.walk(*good) == RuleMatch(None, "chat")
    bad_args: tuple[tuple[int, Any], ...] = (
        (0, 1),
        (3, ()),
        (4, (set(), set())),
        (5, []),
        (6, "ids"),
    )
    for place, bad in bad_args:
        args = list(good)
        args[place] = bad
        with pytest.raises(TypeError, match="walk\\(\\) takes"):
            walker.walk(*args)
    with pytest.raises(TypeError, match="a hit is"):
        walker.walk("t", "t", (), [("x",)], (set(), set(), {}), None, None)
    with pytest.raises(ValueError, match="names no rule"):
        walker.walk("t", "t", (), [(0, 0, 0, 99)], (set(), set(), {}), None, None)


def test_match_reads_the_scan_or_refuses() -> None:
    rules = Classifier(parse_config(_FACTS, "facts.toml")).rules
    bare = walk.walker_of(**_walker_args(rules))
    with pytest.raises(TypeError, match="this walker has no scan"):
        bare.match("check it", ())
    walker = rules._build_walker()
    with pytest.raises(TypeError, match="match\\(\\) takes a str"):
        walker.match(b"check it", ())
    assert walker.match("check the big plan?", ()) == _loop(rules)._match_view(
        "check the big plan?", ()
    )
    # past LARGE_TEXT the engine scans the text piece by piece, then walks it compiled
    long = "check the big plan " * (engine.LARGE_TEXT // 10)
    assert walker.match(long, ()) is None
    rules._match_view("check it", ())  # (the first prompt is read in Python)
    assert rules._match_view(long + "?", ()) == _loop(rules)._match_view(long + "?", ())
    assert rules._walker not in (None, False, True)


def test_an_exception_resolving_a_new_token_reaches_the_caller(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(*_: object) -> None:
        raise RuntimeError("resolver failed")

    monkeypatch.setattr(CompiledRules, "_resolve_new", broken)
    rules = Classifier(parse_config(_FACTS, "facts.toml")).rules
    with pytest.raises(RuntimeError, match="resolver failed"):
        rules._match_view("chekc the bigg plann", ())


def test_walking_leaves_no_references_behind() -> None:
    """Every fact, view and evidence a walk makes is released (the shipped pack, warm)."""
    rules = Classifier(default_config()).rules
    texts = [*_labelled_texts()[:400], "/review it", "$deep-interview go", "", "why?"]
    for text in texts:
        rules._match_view(text, ("git_diff",))
    gc.collect()
    before = sys.getallocatedblocks()
    for _ in range(5):
        for text in texts:
            rules._match_view(text, ("git_diff",))
    gc.collect()
    assert sys.getallocatedblocks() - before < 200


def test_the_hit_log_releases_the_hits_it_holds() -> None:
    """Walker.match logs each known hitting token with its hit (the scan's own objects,
    which a leak would not show as new blocks): after many walks their reference counts
    are what they were (the shipped pack, warm; words hit, phrases and leading words read)."""
    rules = Classifier(default_config()).rules
    texts = [*_labelled_texts()[:200], "please fix the bug, then review the plan", "why?"]
    for text in texts:
        rules._match_view(text, ("git_diff",))
    scan = rules._scan
    assert scan is not None
    held: dict[str, tuple[tuple[str, bool], ...]] = {}
    for text in texts:
        scan.fold(text, [], set(), set(), held)
    assert len(held) > 100
    counts = [(sys.getrefcount(token), sys.getrefcount(hit)) for token, hit in held.items()]
    for _ in range(5):
        for text in texts:
            rules._match_view(text, ("git_diff",))
    gc.collect()
    assert [(sys.getrefcount(token), sys.getrefcount(hit)) for token, hit in held.items()] == counts


def test_a_rule_set_with_a_compiled_walk_is_freed_by_reference_counting() -> None:
    """The walker reaches the engine's resolver through a weak reference: no cycle keeps
    a dropped rule set (and its scan table) alive until a garbage collection."""
    import weakref

    rules = Classifier(parse_config(_FACTS, "facts.toml")).rules
    for text in ("check it", "chekc the bigg plann", "the big plan?"):
        rules._match_view(text, ())
    assert rules._walker not in (None, False, True)
    gone = weakref.ref(rules)
    gc.disable()
    try:
        del rules
        assert gone() is None
    finally:
        gc.enable()


def test_a_walk_that_cannot_be_compiled_leaves_the_loop_with_a_warning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rules = Classifier(parse_config(_FACTS, "facts.toml")).rules
    loop = _loop(rules)

    def refused(*_: object) -> None:
        raise TypeError("a plan the walker refuses")

    monkeypatch.setattr(walk, "Walker", refused)
    rules._match_view("check it", ())
    with pytest.warns(RuntimeWarning, match="compiled walk could not be built"):
        got = rules._match_view("check the big plan?", ())
    assert rules._walker is None
    assert got == loop._match_view("check the big plan?", ())
    assert rules._match_view("the big plan", ()) == loop._match_view("the big plan", ())


def test_an_integer_model_bar_compiles() -> None:
    """A bar given as an int (options built in code, not from TOML) is a float to the walker."""
    from smista.core.conditions.view import PlanOptions

    rules = Classifier(default_config()).rules
    options = rules.options._replace(model_min=1, model_min_by_label=(("edit", 0),))
    assert isinstance(options, PlanOptions)
    twin = CompiledRules(rules.specs, rules.default_label, options=options)
    assert twin._build_walker() is not None
    loop = _loop(twin)
    for text in ("fix the login bug", "why is it slow?", "write a commit message"):
        twin._match_view(text, ())
        assert twin._match_view(text, ()) == loop._match_view(text, ())


def test_walk_holds_its_hits_while_a_kind_runs_in_python(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A kind called mid-walk cannot free the entries the walk still reads."""
    rules = Classifier(parse_config(_HIT_THEN_PYTHON, "hits.toml")).rules
    hits = [(0, 0, 0, 0, None)]
    phrases = BY_KEY["phrases"]
    real = type(phrases).match

    def clearing(condition: Condition, view: PromptView) -> Evidence | None:
        hits.clear()
        return real(phrases, condition, view)

    monkeypatch.setattr(phrases, "match", clearing)
    walker = rules._build_walker()
    got = walker.walk(
        "deploy the big plan",
        "deploy the big plan",
        (),
        hits,
        _signals(rules, "deploy the big plan"),
        None,
        None,
    )
    assert got.rule == 0
    assert got.keyword == "deploy"


_HIT_THEN_PYTHON = """
[classification]
default_intent = "chat"

[[classification.rules]]
intent = "skill"
priority = 1
keywords = ["deploy"]
phrases = ["big plan"]
"""


def _signals(rules: CompiledRules, text: str) -> tuple[set[str], set[str], dict[str, Any]]:
    found: tuple[list[Any], set[str], set[str], dict[str, Any]] = ([], set(), set(), {})
    rules._scan_piece(text, rules._scan, found)
    return found[1], found[2], found[3]


def test_a_leading_gate_refuses_hits_of_another_shape() -> None:
    rules = Classifier(parse_config(_LEADING_PAIR, "lead.toml")).rules
    walker = rules._build_walker()
    bad: tuple[set[str], set[str], dict[str, object]] = (
        {"fix", "the"},
        set(),
        {"fix": (("fix", False),), "the": 10**40},
    )
    with pytest.raises(TypeError, match="a token's hits are a tuple"):
        walker.walk("fix the bug", "fix the bug", (), [], bad, None, None)


_LEADING_PAIR = """
[classification]
default_intent = "chat"

[[classification.rules]]
intent = "edit"
priority = 1
leading = ["fix the bug"]
"""


def test_a_rule_set_rebuilt_from_its_state_walks_again() -> None:
    rules = Classifier(default_config()).rules
    assert rules._match_view("fix the login bug", ()) is not None
    assert rules._walker is True  # (one prompt read, in Python: the walk is not compiled yet)
    assert rules._match_view("fix the login bug", ()) is not None
    assert rules._walker not in (None, False, True)
    copy = CompiledRules.from_data(rules.to_data())
    assert copy._walker is False
    assert copy._match_view("fix the login bug", ()) == rules._match_view("fix the login bug", ())


def test_the_engine_walks_in_python_without_the_extension(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(walk, "Walker", None)
    rules = Classifier(default_config()).rules
    assert rules._build_walker() is None
    loop = _loop(rules)
    for text in ("fix the login bug", "why is it slow?", "$deep-interview go"):
        assert rules._match_view(text, ()) == loop._match_view(text, ())
    assert rules._walker is None  # (no walker: the second prompt found none, and no warning)


def _model_rules() -> CompiledRules:
    """Rules reading a text model whose labels are of every str width (ASCII, Latin-1, BMP,
    astral): the walk writes "label 0.xx" into the label's own kind."""
    labels = ("ask", "édit", "план", "𝔭lan")
    weights = {"why": (600, 0, 0, 0), "fix": (0, 900, 0, 0), "plan": (0, 0, 700, 0)}
    model = TextModel(labels, (0.0, 0.0, 0.1, -0.1), 1024.0, {**weights, "think": (0, 0, 0, 800)})
    specs = [RuleSpec("edit", 0, (), (), (Condition("predicted", (label,)),)) for label in labels]
    specs += [RuleSpec("plan", 1, (), (), (Condition("likeliest", (label,)),)) for label in labels]
    return CompiledRules(specs, "chat", options=PlanOptions(model=model, model_min=0.4))


MODEL_TEXTS = [
    " ".join(words)
    for n in range(1, 4)
    for words in itertools.product(["why", "fix", "plan", "think", "it"], repeat=n)
]


def test_the_walk_shows_the_models_reading_in_every_label_width() -> None:
    rules, loop = _model_rules(), _loop(_model_rules())
    rules._match_view("", ())
    shown: set[str] = set()
    for text in MODEL_TEXTS:
        got = rules._match_view(text, ())
        _same(got, loop._match_view(text, ()))
        shown.update(str(e.shown) for e in got.extra)
    assert rules._walker not in (None, False, True)
    assert {s.rsplit(" ", 1)[0] for s in shown} == {"ask", "édit", "план", "𝔭lan"}
    assert len(shown) > 10


def test_threads_walking_one_walker_at_once_answer_as_the_loop() -> None:
    """A walker is immutable once built (the module's free-threading claim): threads that
    walk it at once, the model's reading shown in each reason, answer as one thread."""
    rules, loop = _model_rules(), _loop(_model_rules())
    rules._match_view("", ())
    want = [loop._match_view(text, ()) for text in MODEL_TEXTS]
    got: list[list[RuleMatch]] = []

    def work() -> None:
        for _ in range(4):
            got.append([rules._match_view(text, ()) for text in MODEL_TEXTS])

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert got == [want] * 16
