"""The text model (smista.core.textmodel), the ``predicted`` kind and ``[classification.model]``.

Example tests for each rule of the model's semantics, property tests of the fast
paths against their plain statements, and the config and cache edges.
"""

from __future__ import annotations

import json
import math
import pickle
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import smista.core.textmodel as textmodel
from smista.authoring.testing import check_no_unreachable_rules, text_models
from smista.config.load import load_config
from smista.config.rulecache import load_rules
from smista.core.classifier import Classifier, compile_rules
from smista.core.conditions.base import Condition
from smista.core.conditions.likeliest import LIKELIEST
from smista.core.conditions.predicted import PREDICTED
from smista.core.conditions.view import PlanOptions, PromptView
from smista.core.engine import CompiledRules, options_from_data, options_to_data
from smista.core.errors import ConfigError
from smista.core.reference import corrections as plain_corrections
from smista.core.rules import ModelTable
from smista.core.textmodel import MAX_TOKENS, TextModel, features, spaceless
from smista.core.tokenizer import tokenize
from tests import reference

try:  # (SMISTA_IMPLEMENTATION=python hides it, as from the engine)
    from smista.core._speedups import FeatureTable as _FeatureTable
    from smista.core._speedups import TokenCodes as _TokenCodes
    from smista.core._speedups import shown_probability, softmax_top
except ImportError:
    _FeatureTable = None  # type: ignore[assignment,misc]
    _TokenCodes = None  # type: ignore[assignment,misc]
    softmax_top = None  # type: ignore[assignment]
    shown_probability = None  # type: ignore[assignment]

LABELS = ("chat", "plan", "edit", "review", "summarize", "prompt", "skill")


def _model(weights: dict[str, list[int]], bias: tuple[float, ...] = (0.0,) * 7) -> TextModel:
    return TextModel(LABELS, bias, 1024.0, weights)


def _row(**by_label: int) -> list[int]:
    return [by_label.get(label, 0) for label in LABELS]


MODEL = _model(
    {
        "fix": _row(edit=8000),
        "why": _row(chat=8000),
        "plan": _row(plan=9000),
        "review": _row(review=9000),
        "#修改": _row(edit=9000),
        "#计划": _row(plan=9000),
    }
)


# -- features ------------------------------------------------------------------


def test_features_are_tokens_corrections_and_character_pairs_of_spaceless_tokens() -> None:
    assert features(["fix", "the", "fix"]) == {"fix", "the"}
    assert features(["fix"], ["refactor"]) == {"fix", "refactor"}
    assert features(["修改代码"]) == {"修改代码", "#修改", "#改代", "#代码"}
    assert features(["ทดสอบ"]) >= {"#ทด", "#ดส"}
    assert features(["café"]) == {"café"}  # Latin with an accent is written with spaces


def test_features_read_the_first_tokens_only() -> None:
    tokens = ["w"] * MAX_TOKENS + ["late"]
    assert "late" not in features(tokens)


def test_spaceless_scripts() -> None:
    assert not spaceless("fix")
    assert not spaceless("привет")
    for word in ("修改", "テスト", "수정", "ทดสอบ", "ພາສາ", "မြန်", "ខ្មែរ"):
        assert spaceless(word), word


# -- scores --------------------------------------------------------------------


def test_no_known_feature_leaves_the_biases() -> None:
    model = _model({"fix": _row(edit=1)}, bias=(2.0, 0, 0, 0, 0, 0, 0))
    probs = model.probabilities(["unknown"])
    expected = [math.exp(b - 2.0) for b in model.bias]
    assert probs == pytest.approx([e / sum(expected) for e in expected])
    assert model.predict(["unknown"]).label == "chat"


def test_scores_are_summed_weights_over_scale_and_root_of_known_count() -> None:
    probs = MODEL.probabilities(["fix", "why", "unknown"])
    edit = 8000 / (1024 * math.sqrt(2))
    assert probs[LABELS.index("edit")] == pytest.approx(math.exp(edit) / (2 * math.exp(edit) + 5))


def test_prediction_of_a_script_without_spaces_reads_its_character_pairs() -> None:
    assert MODEL.predict(tokenize("请修改这个函数")).label == "edit"
    assert MODEL.predict(tokenize("做一个计划")).label == "plan"


def test_a_tie_goes_to_the_first_label() -> None:
    assert _model({}).predict(["x"]).label == "chat"


def test_support_names_the_features_weighing_most_for_a_label() -> None:
    assert MODEL.support(["fix", "review", "why"], "edit") == ("fix",)
    assert MODEL.support(["why"], "edit") == ()
    assert MODEL.support(["revew"], "review", ["review"]) == ("review",)


def test_a_corrected_keyword_adds_itself_but_no_character_pairs() -> None:
    """A typo-matched keyword stands for its token as a whole: the pairs come from the
    tokens the prompt has, in every statement of the features (plain, packed, C, reference)."""
    model = TextModel(("chat", "edit"), (0.0, 0.0), 1.0, {"#代码": [0, 9], "修改代码": [0, 5]})
    assert features(["修改代吗"], {"修改代码"}) == {
        "修改代吗",
        "#修改",
        "#改代",
        "#代吗",
        "修改代码",
    }
    assert model.known(["修改代吗"], {"修改代码"}) == {"修改代码"}
    assert model.read("修改代吗", frozenset({"修改代码"})) == model.predict(
        ["修改代吗"], {"修改代码"}
    )
    label, probability = reference.model_answer(model.to_data(), ["修改代吗"], {"修改代码"})
    got = model.predict(["修改代吗"], {"修改代码"})
    assert got.label == label
    assert got.probability == pytest.approx(probability, rel=1e-12)
    assert model.known(["修改代码"]) == {"修改代码", "#代码"}


@settings(max_examples=200, deadline=None)
@given(model=text_models(), data=st.data())
def test_the_packed_sums_give_the_plain_probabilities(
    model: TextModel, data: st.DataObject
) -> None:
    vocabulary = sorted(f for f in model.weights if not f.startswith("#"))
    words = st.sampled_from(vocabulary) if vocabulary else st.just("x")
    tokens = data.draw(st.lists(st.one_of(words, st.sampled_from(["修改", "计划", "zz"]))))
    corrected = set(data.draw(st.lists(words, max_size=2)))
    assert model.known(tokens, corrected) == (
        frozenset(model.weights) & features(tokens, corrected)
    )
    label, probability = reference.model_answer(model.to_data(), tokens, corrected)
    got = model.predict(tokens, corrected)
    assert got.label == label
    assert got.probability == pytest.approx(probability, rel=1e-12)
    # Both ways of summing, whichever this process takes: the lanes packed in one integer
    # (the pure-Python implementation) and row by row (with the C extension, for the few
    # prompts its path hands back), the same integers, so the same probabilities.
    with mock.patch.object(textmodel, "_FeatureTable", None):
        packed = TextModel.from_data(model.to_data()).probabilities(tokens, corrected)
    with mock.patch.object(textmodel, "_FeatureTable", object()):
        rows = TextModel.from_data(model.to_data()).probabilities(tokens, corrected)
    assert packed == rows == model.probabilities(tokens, corrected)


def test_with_the_extension_the_pure_reading_packs_no_lanes() -> None:
    """A prompt the C path hands back (a token holding U+03A3) is summed row by row: no
    call packs every feature's weights (a few ms once, in a long-running process)."""
    model = TextModel.from_data(MODEL.to_data())
    with mock.patch.object(textmodel, "_FeatureTable", object()):
        model.probabilities(["fix", "plan"])
    assert model._packed is None
    with mock.patch.object(textmodel, "_FeatureTable", None):
        model.probabilities(["fix", "plan"])
    assert model._packed is not None


# -- the model's data ----------------------------------------------------------


def test_to_data_and_back_and_value_semantics() -> None:
    again = TextModel.from_data(json.loads(json.dumps(MODEL.to_data())))
    assert again == MODEL
    assert hash(again) == hash(MODEL)
    unpickled = pickle.loads(pickle.dumps(MODEL))
    assert unpickled == MODEL
    assert MODEL.__eq__("a model") is NotImplemented
    assert _model({"fix": _row(edit=1)}) != MODEL


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (((), (), 1.0, {}), "labels must be distinct"),
        ((("a", "a"), (0, 0), 1.0, {}), "labels must be distinct"),
        ((("a",), (0, 0), 1.0, {}), "bias must hold 1"),
        ((("a",), (math.nan,), 1.0, {}), "bias must hold 1"),
        ((("a",), (0,), 0.0, {}), "scale must be a positive"),
        ((("a",), (0,), 1.0, {"": [1]}), "needs 1 weights"),
        ((("a",), (0,), 1.0, {"x": [1, 2]}), "needs 1 weights"),
        ((("a",), (0,), 1.0, {"x": [40000]}), "integers in"),
        ((("a",), (0,), 1.0, {"x": [1.5]}), "integers in"),
        ((("a",), (0,), 1.0, {"x": [True]}), "integers in"),
        ((("a",), (0,), 1.0, {"x": [-32769]}), "integers in"),
        ((("a", "b"), (0, 0), 1.0, {"ok": [-32768, 32767], "bad": [0, 32768]}), "'bad'"),
        ((("a", "b"), (0, 0), 1.0, {"ok": [1, 2], "short": [1]}), "'short' needs 2"),
        # the first offending feature in order, whatever is wrong with a later one
        ((("a",), (0,), 1.0, {"x": [1.5], "y": [1, 2]}), "'x': weights must be integers"),
        ((("a",), (0,), 1.0, {"x": [1, 2], "y": [1.5]}), "'x' needs 1 weights"),
    ],
)
def test_a_malformed_model_is_refused(args: tuple[object, ...], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        TextModel(*args)  # type: ignore[arg-type]


def test_a_row_must_be_a_sized_sequence() -> None:
    with pytest.raises(TypeError):
        TextModel(("a",), (0,), 1.0, {"x": iter([1])})  # type: ignore[dict-item]
    with pytest.raises(TypeError):
        TextModel(("a",), (0,), 1.0, {"x": 5})  # type: ignore[dict-item]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "expected a table"),
        ({"labels": []}, "unexpected keys"),
        ({**MODEL.to_data(), "format": "other"}, "unknown format"),
        ({**MODEL.to_data(), "labels": [1]}, "labels must be a list of strings"),
        ({**MODEL.to_data(), "bias": ["x"]}, "bias must be a list of numbers"),
        ({**MODEL.to_data(), "scale": "1"}, "scale must be a number"),
        ({**MODEL.to_data(), "weights": []}, "weights must map features"),
        ({**MODEL.to_data(), "weights": {"x": 3}}, "must be a list of integers"),
    ],
)
def test_malformed_model_data_is_refused(data: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        TextModel.from_data(data)


def test_plan_options_carry_the_model_through_plain_data() -> None:
    options = PlanOptions(model=MODEL, model_min=0.7, model_source=("m.json", "abc"))
    assert options_from_data(options_to_data(options)) == options
    assert options_from_data(options_to_data(PlanOptions())) == PlanOptions()


@pytest.mark.parametrize(
    "model_part",
    [
        "nope",
        (LABELS, (0.0,) * 7, 1.0),
        (LABELS, (0.0,) * 7, 1.0, (("x",),)),
        (LABELS, (0.0,) * 7, 1.0, ((1, (0,) * 7),)),
        (LABELS, (0.0,) * 7, -1.0, ()),
    ],
)
def test_bad_model_data_in_compiled_options_is_refused(model_part: object) -> None:
    base = options_to_data(PlanOptions())
    with pytest.raises(ValueError, match="bad model"):
        options_from_data((*base, model_part, 0.7, ("m", "d")))
    with pytest.raises(ValueError, match="bad model"):
        options_from_data((*base, (LABELS, (0.0,) * 7, 1.0, ()), "0.7", ("m", "d")))


# -- the predicted kind ----------------------------------------------------------


def _view(text: str, model: TextModel | None = MODEL, minimum: float = 0.6) -> PromptView:
    return PromptView(text, options=PlanOptions(model=model, model_min=minimum))


def test_predicted_holds_on_a_confident_label_it_lists() -> None:
    condition = PREDICTED.compile([" Edit "], typo=True)
    assert condition == Condition("predicted", ("edit",))
    found = PREDICTED.match(condition, _view("fix fix fix"))
    assert found is not None
    assert found.shown is not None
    assert PREDICTED.describe(found) == f"text model 'edit' at {found.shown.split()[1]}"
    assert PREDICTED.counts(found)
    assert PREDICTED.trace(condition, _view("fix")).startswith("holds: the model reads 'edit'")


def test_predicted_does_not_hold_on_another_label_a_weak_one_or_without_a_model() -> None:
    condition = PREDICTED.compile(["plan"], typo=True)
    assert PREDICTED.match(condition, _view("fix")) is None
    assert (
        PREDICTED.match(PREDICTED.compile(["edit"], typo=True), _view("fix", minimum=1.0)) is None
    )
    assert PREDICTED.match(condition, _view("plan", model=None)) is None
    assert "no text model" in PREDICTED.trace(condition, _view("plan", model=None))
    trace = PREDICTED.trace(condition, _view("fix"))
    assert trace.startswith("does not hold: the model reads 'edit'")
    assert "wanted plan" in trace
    assert "most for it: 'fix'" in trace


def test_predicted_conditions_with_disjoint_labels_exclude_each_other() -> None:
    assert PREDICTED.exclusive(("edit",), ("plan",))
    assert not PREDICTED.exclusive(("edit",), ("Edit", "plan"))
    assert not PREDICTED.exclusive((), ("plan",))


def test_predicted_witnesses_are_the_words_the_model_weighs_most() -> None:
    options = PlanOptions(model=MODEL)
    assert PREDICTED.witnesses_in(("edit", "nope"), options) == ("fix",)
    assert PREDICTED.witnesses_in(("edit",), PlanOptions()) == ("",)
    assert PREDICTED.witnesses_in(("nope",), options) == ("",)


def test_a_label_listed_twice_is_linted(tmp_path: Path) -> None:
    toml = TOML_RULES.replace('predicted = ["edit"]', 'predicted = ["edit", "EDIT"]')
    config = load_config(_write(tmp_path, toml))
    lints = list(PREDICTED.lints(config.rules, frozenset()))
    assert [lint.key for lint in lints] == ["classification.rules[0].predicted[1]"]


# -- the likeliest kind -----------------------------------------------------------


def test_likeliest_holds_on_the_most_probable_label_however_unsure() -> None:
    condition = LIKELIEST.compile([" Edit "], typo=True)
    assert condition == Condition("likeliest", ("edit",))
    # no bar: a model 'edit' at well under min_probability still holds
    weak = _view("fix why why", minimum=1.0)
    prediction = weak.prediction
    assert prediction is not None
    assert prediction.label == "chat"
    assert LIKELIEST.match(LIKELIEST.compile(["chat"], typo=True), weak) is not None
    found = LIKELIEST.match(condition, _view("fix", minimum=1.0))
    assert found is not None
    assert found.shown is not None
    assert LIKELIEST.describe(found) == (
        f"text model's likeliest label 'edit' at {found.shown.split()[1]}"
    )
    assert not LIKELIEST.counts(found)  # a guess is not a confidence signal
    assert LIKELIEST.trace(condition, _view("fix")).startswith(
        "holds: the model's likeliest label is 'edit' at"
    )


def test_likeliest_does_not_hold_on_another_label_or_without_a_model() -> None:
    condition = LIKELIEST.compile(["plan", "review"], typo=True)
    assert LIKELIEST.match(condition, _view("fix")) is None
    assert LIKELIEST.match(condition, _view("plan", model=None)) is None
    assert "no text model" in LIKELIEST.trace(condition, _view("plan", model=None))
    trace = LIKELIEST.trace(condition, _view("fix"))
    assert trace.startswith("does not hold: the model's likeliest label is 'edit' at")
    assert trace.endswith("wanted plan, or review")


def test_likeliest_gates_on_the_most_probable_label() -> None:
    plan = LIKELIEST.gate_plan(frozenset({"plan", "edit"}))
    assert LIKELIEST.present(_view("fix", minimum=1.0), plan) == {"edit"}
    assert LIKELIEST.present(_view("why"), plan) == frozenset()
    assert LIKELIEST.present(_view("fix", model=None), plan) == frozenset()
    assert LIKELIEST.gate(LIKELIEST.compile(["Plan"], typo=True)) == frozenset({"plan"})
    assert LIKELIEST.exclusive(("edit",), ("plan",))
    assert LIKELIEST.reads_model
    assert PREDICTED.reads_model


def test_likeliest_witnesses_are_words_the_model_reads_as_the_label_unsurely() -> None:
    unsure = _model({"fix": _row(edit=2000), "plan": _row(plan=2000), "add": _row(edit=9000)})
    options = PlanOptions(model=unsure, model_min=0.9)
    # 'add' reads edit surely (a predicted rule's word), 'fix' at 0.54: only 'fix' is a guess
    assert LIKELIEST.witnesses_in(("edit", "nope"), options) == ("fix",)
    assert LIKELIEST.witnesses_in(("chat",), options) == ("",)
    assert LIKELIEST.witnesses_in(("edit",), PlanOptions(model=unsure, model_min=0.5)) == ("",)
    assert LIKELIEST.witnesses_in(("edit",), PlanOptions()) == ("",)


LIKELIEST_RULES = (
    """
[classification]
default_intent = "chat"

[classification.model]
file = "m.json"
min_probability = 0.9
"""
    + """
[[classification.rules]]
intent = "review"
keywords = ["review"]

[[classification.rules]]
intent = "plan"
priority = 999
likeliest = ["plan"]

[[classification.rules]]
intent = "edit"
priority = 999
likeliest = ["edit"]
question = false
"""
)


def test_a_likeliest_rule_answers_where_nothing_surer_does(tmp_path: Path) -> None:
    unsure = _model({"fix": _row(edit=2000), "plan": _row(plan=2000)})
    classifier = Classifier(load_config(_write(tmp_path, LIKELIEST_RULES, unsure)))
    assert classifier.classify("please review").intent.value == "review"
    # the model reads 'edit' at 0.54, under the file's bar of 0.9: the catch-all answers
    result = classifier.classify("fix it")
    assert result.intent.value == "edit"
    assert result.reason == (
        "no question and text model's likeliest label 'edit' at 0.54 matched rule 2"
    )
    assert result.confidence is not None
    assert result.confidence.value == "low"
    assert classifier.classify("plan ahead").reason == (
        "text model's likeliest label 'plan' at 0.54 matched rule 1"
    )
    # a question the model reads as an edit, and a prompt it reads as chat: no rule holds
    assert classifier.classify("fix it?").reason == "no rule matched; default intent 'chat'"
    assert classifier.classify("hello").reason == "no rule matched; default intent 'chat'"
    check_no_unreachable_rules(classifier)  # each likeliest rule wins on a word it guesses
    explained = json.dumps(classifier.explain("fix it").model_dump(mode="json"))
    assert "the model's likeliest label is 'edit' at 0.54" in explained
    plain = {
        "model": {"min_probability": 0.9},
        "rules": [
            {"intent": "review", "keywords": ["review"]},
            {"intent": "plan", "priority": 999, "likeliest": ["plan"]},
            {"intent": "edit", "priority": 999, "likeliest": ["edit"], "question": False},
        ],
    }
    for text in ("fix it", "plan ahead", "fix it?", "please review"):
        got = classifier.classify(text).model_dump(mode="json", exclude_none=True)
        assert got == reference.classify_extended(text, plain, set(), unsure.to_data())


def test_check_reads_the_model_as_loading_does(tmp_path: Path) -> None:
    """smista check fails a file that loading refuses for its model (it passed them before)."""
    from smista.authoring.check import check_text, failed

    good = _write(tmp_path, LIKELIEST_RULES)
    assert not failed(check_text(good.read_text(encoding="utf-8"), str(good)))
    bad = LIKELIEST_RULES.replace('likeliest = ["plan"]', 'likeliest = ["deploy"]')
    findings = check_text(bad, str(good))
    assert failed(findings)
    assert [f.key for f in findings if f.code == "invalid"] == [
        "classification.rules[1].likeliest[0]"
    ]
    (tmp_path / "m.json").unlink()
    findings = check_text(good.read_text(encoding="utf-8"), str(good))
    assert [f.key for f in findings if f.code == "invalid"] == ["classification.model.file"]


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        (
            LIKELIEST_RULES.replace('likeliest = ["plan"]', 'likeliest = ["deploy"]'),
            "classification.rules[1].likeliest[0]: unknown label 'deploy'",
        ),
        (
            LIKELIEST_RULES.split("[classification.model]")[0]
            + LIKELIEST_RULES.split("min_probability = 0.9")[1],
            "classification.rules[1].likeliest: needs a [classification.model]",
        ),
    ],
)
def test_a_likeliest_rule_needs_a_model_that_gives_its_labels(
    tmp_path: Path, toml: str, message: str
) -> None:
    with pytest.raises(ConfigError, match=message.replace("[", r"\[")):
        load_config(_write(tmp_path, toml))


# -- [classification.model] --------------------------------------------------------

TOML_RULES = """
[classification]
default_intent = "chat"

[classification.model]
file = "m.json"
min_probability = 0.6

[[classification.rules]]
intent = "edit"
priority = 5
predicted = ["edit"]

[[classification.rules]]
intent = "plan"
priority = 6
predicted = ["plan"]

[[classification.rules]]
intent = "review"
keywords = ["review"]
"""


def _write(tmp_path: Path, toml: str = TOML_RULES, model: TextModel = MODEL) -> Path:
    (tmp_path / "m.json").write_text(json.dumps(model.to_data()), encoding="utf-8")
    path = tmp_path / "rules.toml"
    path.write_text(toml, encoding="utf-8")
    return path


def test_a_rules_file_reads_its_model_next_to_it(tmp_path: Path) -> None:
    config = load_config(_write(tmp_path))
    assert config.model is not None
    assert config.model.weights == MODEL
    classifier = Classifier(config)
    assert classifier.classify("fix it").reason == "text model 'edit' at 1.00 matched rule 0"
    assert classifier.classify("please review").intent.value == "review"
    assert classifier.classify("hello").reason == "no rule matched; default intent 'chat'"
    assert config.model_dump(mode="json")["model"] == {"file": "m.json", "min_probability": 0.6}
    explanation = classifier.explain("fix it")
    assert "the model reads 'edit'" in json.dumps(explanation.model_dump(mode="json"))


def test_the_model_reads_a_misspelt_keyword_as_the_keyword(tmp_path: Path) -> None:
    toml = TOML_RULES.replace('keywords = ["review"]', 'keywords = ["review", "fixing"]')
    config = load_config(_write(tmp_path, toml))
    rules = compile_rules(config)
    assert rules.corrections(["reveiw", "fix"]) == {"review"}
    assert plain_corrections(rules.specs, ["reveiw", "fix"], rules.options) == {"review"}
    # 'revew' reads as 'review' for the model too: the plan rule does not take it
    assert Classifier(config).classify("revew").intent.value == "review"


def test_a_misspelt_token_reads_as_the_keyword_its_rule_reads_it_as(tmp_path: Path) -> None:
    """'implemnt' is a typo of both 'implement' and 'implements': the rule reads it as its
    first, and so do classify, explain and both references (explain once read both)."""
    toml = TOML_RULES.replace(
        'keywords = ["review"]', 'keywords = ["review", "implement", "implements"]'
    )
    model = _model({"implements": _row(plan=9000), "fix": _row(edit=8000)})
    config = load_config(_write(tmp_path, toml, model))
    rules = compile_rules(config)
    assert rules.corrections(["implemnt"]) == {"implement"}
    assert plain_corrections(rules.specs, ["implemnt"], rules.options) == {"implement"}
    assert rules.corrections(["implements", "implemnt"]) == {"implement"}
    # 'implements' is also a typo of 'implement', but its rule reads it exactly
    assert rules.corrections(["implements"]) == frozenset()
    assert plain_corrections(rules.specs, ["implements"], rules.options) == frozenset()
    classifier = Classifier(config)
    text = "implemnt fix"
    result = classifier.classify(text)
    explained = classifier.explain(text)
    assert explained.result == result
    assert explained.winner == result.matched_rule == 0  # (edit: 'implements' not read)
    plain = {
        "model": {"min_probability": 0.6},
        "rules": [
            {"intent": "edit", "priority": 5, "predicted": ["edit"]},
            {"intent": "plan", "priority": 6, "predicted": ["plan"]},
            {"intent": "review", "keywords": ["review", "implement", "implements"]},
        ],
    }
    got = result.model_dump(mode="json", exclude_none=True)
    assert got == reference.classify_extended(text, plain, set(), model.to_data())


def test_an_untyped_rule_or_a_han_keyword_gives_no_correction(tmp_path: Path) -> None:
    toml = (
        TOML_RULES.replace(
            'keywords = ["review"]', 'keywords = ["review", "修改代码"]\ntypo = false'
        )
        + "\n[classification.options]\nhangul_han_typos = false\n"
    )
    rules = compile_rules(load_config(_write(tmp_path, toml)))
    assert plain_corrections(rules.specs, ["reveiw", "修改代吗"], rules.options) == frozenset()
    toml = toml.replace("typo = false", "typo = true")
    rules = compile_rules(load_config(_write(tmp_path, toml)))
    assert plain_corrections(rules.specs, ["reveiw", "修改代吗"], rules.options) == {"review"}


def test_the_shipped_kind_of_check_passes_with_a_model(tmp_path: Path) -> None:
    check_no_unreachable_rules(load_config(_write(tmp_path)))


@pytest.mark.parametrize(
    ("toml", "model_text", "message"),
    [
        (TOML_RULES.replace('file = "m.json"', 'file = "missing.json"'), None, "no such file"),
        (TOML_RULES.replace('file = "m.json"', 'file = "."'), None, "is a directory"),
        (TOML_RULES, "{not json", "not a JSON model file"),
        (TOML_RULES, '{"format": "x"}', "unexpected keys"),
        (TOML_RULES.replace('["plan"]', '["deploy"]'), None, "unknown label 'deploy'"),
        (TOML_RULES.replace("min_probability = 0.6", "min_probability = 0"), None, "number > 0"),
        (TOML_RULES.replace("min_probability = 0.6", 'min_probability = "0.6"'), None, "number"),
        (
            TOML_RULES.split("[classification.model]")[0]
            + TOML_RULES.split("min_probability = 0.6")[1],
            None,
            "classification.rules[0].predicted: needs a [classification.model]",
        ),
    ],
)
def test_a_bad_model_table_is_a_config_error_naming_the_key(
    tmp_path: Path, toml: str, model_text: str | None, message: str
) -> None:
    path = _write(tmp_path, toml)
    if model_text is not None:
        (tmp_path / "m.json").write_text(model_text, encoding="utf-8")
    with pytest.raises(ConfigError, match=message.replace("[", r"\[")) as caught:
        load_config(path)
    assert str(path) in str(caught.value)


def test_a_changed_model_file_is_a_cache_miss(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SMISTA_CACHE_DIR", str(tmp_path / "cache"))
    path = _write(tmp_path)
    first = load_rules(path)
    assert load_rules(path) == first  # a hit
    other = _model({"fix": _row(plan=9000)})
    (tmp_path / "m.json").write_text(json.dumps(other.to_data()), encoding="utf-8")
    again = load_rules(path)
    assert again.options.model == other
    (tmp_path / "m.json").unlink()
    with pytest.raises(ConfigError, match="no such file"):
        load_rules(path)


def test_a_large_text_reads_its_corrections_on_the_pure_path(tmp_path: Path) -> None:
    config = load_config(_write(tmp_path, TOML_RULES.replace('["review"]', '["review", "fixing"]')))
    rules = compile_rules(config)
    pure = CompiledRules(rules.specs, rules.default_label, accelerated=False, options=rules.options)
    text = "reveiw " + "x " * (1 << 20)
    assert pure.match_text(text).label == rules.match_text(text).label == "review"


def test_a_model_table_is_equal_by_what_is_written() -> None:
    table = ModelTable(file="m.json", min_probability=0.7)
    loaded = table.with_weights(MODEL, "m.json", "digest")
    assert loaded == table
    assert hash(loaded) == hash(table)
    assert loaded.path == "m.json"
    assert loaded.digest == "digest"
    assert table.__eq__("m.json") is NotImplemented
    assert ModelTable(file="m.json") != table


# An edit read at about 0.60: e^s / (e^s + 6) with s = 2250 / 1024.
HALF_SURE = _model({"meh": _row(edit=2250), "hmm": _row(chat=2250)})


def test_a_label_may_have_its_own_bar(tmp_path: Path) -> None:
    """min_probability_by_label (smista extension): a listed label needs its own bar,
    the others min_probability; the gate, the match and the trace all read it."""
    assert 0.55 < HALF_SURE.predict(["meh"]).probability < 0.65
    toml = TOML_RULES.replace("min_probability = 0.6", "min_probability = 0.7").replace(
        '[[classification.rules]]\nintent = "plan"',
        '[[classification.rules]]\nintent = "chat"\npriority = 4\npredicted = ["chat"]\n\n'
        '[[classification.rules]]\nintent = "plan"',
    )
    plain = Classifier(load_config(_write(tmp_path, toml, HALF_SURE)))
    assert plain.classify("meh").reason == "no rule matched; default intent 'chat'"
    barred = toml.replace(
        "min_probability = 0.7", "min_probability = 0.7\nmin_probability_by_label = { EDIT = 0.5 }"
    )
    config = load_config(_write(tmp_path, barred, HALF_SURE))
    assert config.model is not None
    assert config.model.thresholds() == (("edit", 0.5),)
    assert config.model_dump(mode="json")["model"] == {
        "file": "m.json",
        "min_probability": 0.7,
        "min_probability_by_label": {"EDIT": 0.5},
    }
    classifier = Classifier(config)
    assert classifier.classify("meh").reason.startswith("text model 'edit' at 0.6")
    assert classifier.classify("hmm").reason == "no rule matched; default intent 'chat'"
    options = compile_rules(config).options
    assert options.min_for("edit") == 0.5
    assert options.min_for("chat") == 0.7
    trace = PREDICTED.trace(
        PREDICTED.compile(["chat", "edit"], typo=True), PromptView("hmm", options=options)
    )
    assert trace.endswith("wanted chat at 0.70 or more, or edit at 0.50 or more")
    assert options_from_data(options_to_data(options)) == options
    assert ModelTable(file="m.json") != config.model


def test_a_bar_no_predicted_rule_reads_is_linted(tmp_path: Path) -> None:
    from smista.authoring.lints import lint_classification

    toml = TOML_RULES.replace(
        "min_probability = 0.6",
        "min_probability = 0.6\nmin_probability_by_label = { Edit = 0.5, Skill = 0.4 }",
    )
    lints = [
        x
        for x in lint_classification(load_config(_write(tmp_path, toml)))
        if x.code == "unused-bar"
    ]
    assert [(x.key, x.severity.value) for x in lints] == [
        ("classification.model.min_probability_by_label.Skill", "warning")
    ]
    assert "no rule lists 'skill' in predicted" in lints[0].message
    assert not [
        x for x in lint_classification(load_config(_write(tmp_path))) if x.code == "unused-bar"
    ]


@pytest.mark.parametrize(
    ("bars", "message"),
    [
        ("{ deploy = 0.5 }", "min_probability_by_label.deploy: unknown label 'deploy'"),
        (
            "{ edit = 0.5, EDIT = 0.6 }",
            "min_probability_by_label: label 'edit' is given two bars \\(as 'edit' and 'EDIT'\\)",
        ),
        ("{ edit = 0 }", "number > 0"),
        ("{ edit = 1.5 }", "min_probability_by_label.edit: expected a number <= 1.0, got 1.5"),
        ('{ edit = "0.5" }', "number"),
        ("0.5", "min_probability_by_label: expected a table, got 0.5"),
    ],
)
def test_a_bad_label_bar_is_a_config_error_naming_the_key(
    tmp_path: Path, bars: str, message: str
) -> None:
    toml = TOML_RULES.replace(
        "min_probability = 0.6", f"min_probability = 0.6\nmin_probability_by_label = {bars}"
    )
    path = _write(tmp_path, toml)
    with pytest.raises(ConfigError, match=message) as caught:
        load_config(path)
    assert str(path) in str(caught.value)
    assert "min_probability_by_label" in str(caught.value)


def test_bad_label_bars_in_compiled_options_are_refused() -> None:
    data = options_to_data(PlanOptions(model=MODEL, model_min=0.7))
    assert options_from_data((*data, (("edit", 0.5),))).min_for("edit") == 0.5
    for bars in ("x", (("edit", "0.5"),), (("edit",),), ((1, 0.5),)):
        with pytest.raises(ValueError, match="bad model"):
            options_from_data((*data, bars))


def test_the_predicted_gate_names_the_one_confident_label() -> None:
    condition = PREDICTED.compile(["edit", "plan"], typo=True)
    assert PREDICTED.gate(condition) == frozenset({"edit", "plan"})
    plan = PREDICTED.gate_plan(frozenset({"edit", "plan"}))
    assert PREDICTED.present(_view("fix"), plan) == {"edit"}
    # (each label's answer is made once, with the plan, not on every prompt)
    assert PREDICTED.present(_view("fix"), plan) is plan["edit"]
    assert PREDICTED.present(_view("fix"), PREDICTED.gate_plan(frozenset({"plan"}))) == frozenset()
    assert PREDICTED.present(_view("fix", minimum=1.0), plan) == frozenset()
    assert PREDICTED.present(_view("fix", model=None), plan) == frozenset()


# -- the compiled sums (C FeatureTable) against the plain statement -------------------

compiled = pytest.mark.skipif(_FeatureTable is None, reason="smista.core._speedups is not built")

# Words of every kind the tokenizer and the model treat apart: ASCII, accented Latin,
# Cyrillic, final sigma, the Turkish dotted I (lowercases to two characters), Han, kana,
# Hangul, Thai (spaceless scripts: character pairs), digits, and separators.
TEXT_ALPHABET = st.sampled_from(
    list("abcfixFIX019 .-_/'`\n")
    + list("éÉçÇпРИвет")
    + ["Σ", "σ", "ς", "İ", "K", "Ａ", "ꞵ", "Ꞵ"]
    + list("修改代码计划テストレビュー수정ทดสอบ")
    + ["🙂", "𝐀", "\u0301"]
)
PAIR_WORDS = ["修改", "改代", "代码", "计划", "テス", "スト", "수정", "ทด", "สอ", "i\u0307", "𝐀𝐀"]


def _sample_model(data: st.DataObject, *, pairs: bool = True) -> TextModel:
    """A model whose features are words and pairs the texts below hold, and some they don't."""
    words = ["fix", "the", "a", "0", "19", "café", "привет", "σσ", "ς", "i\u0307", "修改代码"]
    words += ["テスト", "ทดสอบ", "review", "k", "ａ", "ꞵ", "#ab", "x" * 300, "é" * 80]
    chosen = data.draw(st.lists(st.sampled_from(words), unique=True, max_size=len(words)))
    if pairs:
        chosen += ["#" + p for p in data.draw(st.lists(st.sampled_from(PAIR_WORDS), unique=True))]
    row = st.lists(st.integers(-32768, 32767), min_size=len(LABELS), max_size=len(LABELS))
    weights = {f: data.draw(row) for f in chosen}
    bias = data.draw(st.lists(st.floats(-3, 3), min_size=len(LABELS), max_size=len(LABELS)))
    return TextModel(LABELS, bias, data.draw(st.sampled_from([1.0, 1024.0, 4096.0])), weights)


def _plain_sums(model: TextModel, known: frozenset[str]) -> tuple[int, ...]:
    lanes = range(len(model.labels))
    return (len(known), *(sum(model.weights[f][lane] for f in known) for lane in lanes))


def _agrees(model: TextModel, text: str, corrected: frozenset[str]) -> None:
    """The compiled table and read() give what the plain path gives for tokenize(text)."""
    tokens = tokenize(text)
    plain = model.known(tokens, corrected)
    assert plain == frozenset(model.weights) & (features(tokens) | corrected), (
        "known(): the tokens' features and the corrected words"
    )
    expected = model.predict(tokens, corrected)
    assert model.read(text, corrected) == expected
    assert model.read(text, corrected, tokens) == expected
    if _FeatureTable is None:
        return
    table = _FeatureTable(model.weights, len(model.labels), MAX_TOKENS)
    known, sums = table.known(text, corrected), table.sums(text, corrected)
    if known is None:  # a token read holds U+03A3: Python decides
        assert sums is None
        assert "Σ" in text
        _scan_agrees(model, table, text, corrected, None)  # (the scan gives no ids either)
        return
    assert known == plain
    assert sums == _plain_sums(model, plain)
    _scan_agrees(model, table, text, corrected, sums)


def _scan_tables() -> Iterator[object]:
    """Token tables whose scans take each way a token can go: every token probed (no
    bounds), most too long or too foreign to be (read by the scan's key or from the
    text), every key hashing alike (the scan's hash is then not the features')."""
    assert _TokenCodes is not None
    yield _TokenCodes(64)
    yield _TokenCodes(64, max_len=3, alphabet="abcfix", max_foreign=0)
    yield _TokenCodes(64, max_len=1, alphabet="", max_foreign=0)
    yield _TokenCodes(64, collide=True)


def _scan_agrees(
    model: TextModel,
    table: object,
    text: str,
    corrected: frozenset[str],
    sums: tuple[int, ...] | None,
) -> None:
    """The ids the engine's scan reads on its pass (TokenCodes.fold with the table) give
    the sums of the table's own reading, and read() gives the plain prediction with them;
    the scan's own findings are those of a scan without the table."""
    for codes in _scan_tables():
        unknown = codes.fold(text, [], set(), set(), {})  # type: ignore[attr-defined]
        again, ids = codes.fold(text, [], set(), set(), {}, table)  # type: ignore[attr-defined]
        assert again == unknown
        if sums is None:
            assert ids is None
            continue
        assert ids is not None
        assert table.sums_of(ids, corrected) == sums  # type: ignore[attr-defined]
        assert model.read(text, corrected, None, ids) == model.predict(tokenize(text), corrected)
    # past the tokens a table reads (two here): the same tokens read either way
    assert _FeatureTable is not None
    short = _FeatureTable(model.weights, len(model.labels), 2)
    for codes in _scan_tables():
        _, ids = codes.fold(text, [], set(), set(), {}, short)  # type: ignore[attr-defined]
        expected = short.sums(text, corrected)
        assert (short.sums_of(ids, corrected) if ids is not None else None) == expected


def _same_top(bias: tuple[float, ...], scale: float, sums: tuple[int, ...]) -> None:
    """softmax_top gives _top(_softmax(...)): the same label and the same bits."""
    labels = tuple(f"l{i}" for i in range(len(bias)))
    model = TextModel(labels, bias, scale, {})
    expected = model._top(model._softmax(sums[0], sums[1:]))
    top = softmax_top(model.bias, model.scale, sums)
    if top is None:  # a score past the floats' range: Python decides
        assert not all(map(math.isfinite, model._softmax(sums[0], sums[1:])))
        return
    index, probability = top
    assert (labels[index], probability.hex()) == (expected.label, expected.probability.hex())


@compiled
@settings(max_examples=1000, deadline=None)
@given(
    data=st.data(),
    lanes=st.integers(1, 40),
    scale=st.one_of(st.sampled_from([1.0, 1024.0, 4096.0]), st.floats(1e-3, 1e6)),
    count=st.one_of(st.integers(0, 3), st.integers(0, 10**6)),
)
def test_softmax_top_gives_the_plain_top_bit_for_bit(
    data: st.DataObject, lanes: int, scale: float, count: int
) -> None:
    """Across label counts (past the 32 held on the stack), biases with ties and near
    ties, scales and sums far past any model's."""
    biases = st.one_of(
        st.sampled_from([0.0, 0.5, -0.5, 0.3, math.nextafter(0.3, 1), 5e-324, -745.0, 745.0]),
        st.floats(-1e3, 1e3),
    )
    sum_values = st.one_of(st.integers(-3, 3), st.integers(-(2**40), 2**40))
    bias = tuple(data.draw(st.lists(biases, min_size=lanes, max_size=lanes)))
    sums = tuple(data.draw(st.lists(sum_values, min_size=lanes, max_size=lanes)))
    _same_top(bias, scale, (count, *sums))


@compiled
def test_softmax_top_edge_cases() -> None:
    # a larger score whose probability rounds to the top one: the first label wins
    _same_top((0.0, 5e-324), 1.0, (0, 0, 0))
    _same_top((0.3, math.nextafter(0.3, 1), 0.3), 1.0, (0, 0, 0, 0))
    _same_top((1.0, math.nextafter(1.0, 2)), 1.0, (0, 0, 0))
    _same_top((0.0,) * 7, 4096.0, (3, 5, 5, 9, 9, 1, 9, 0))  # exact ties
    _same_top((0.0, 0.0), 1.0, (1, -(10**300), 10**300))  # one lane's exp underflows
    # a score past the floats' range: None, and read() gives the plain answer
    assert softmax_top((0.0, 1.0), 5e-324, (1, 3, 0)) is None
    assert softmax_top((-1e308, 0.0), 1e-10, (1, -(10**300), 0)) is None
    model = TextModel(LABELS, (0.5, 0.25, 0, 0, 0, 0, -0.5), 5e-324, {"fix": _row(edit=-3)})
    assert softmax_top(model.bias, model.scale, (1, *_row(edit=-3))) is None
    assert model.read("fix it", frozenset()) == model.predict(["fix", "it"])
    assert model.read("fix it", frozenset()).label == "chat"
    with pytest.raises(TypeError):
        softmax_top((0.0,), 1.0, (0,))  # one sum short
    with pytest.raises(TypeError):
        softmax_top((), 1.0, (0,))  # no label
    with pytest.raises(TypeError):
        softmax_top([0.0], 1.0, (0, 0))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        softmax_top((0.0,), 1.0, (0, 0.5))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        softmax_top((0,), 1.0, (0, 0))
    with pytest.raises(TypeError):
        softmax_top((0.0,), 1.0, (0.0, 0))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        softmax_top((0.0,), "1", (0, 0))  # type: ignore[arg-type]
    with pytest.raises(OverflowError):
        softmax_top((0.0,), 1.0, (10**400, 0))
    with pytest.raises(OverflowError):
        softmax_top((0.0,), 1.0, (1, 10**400))


@compiled
@settings(max_examples=2000, deadline=None)
@given(
    label=st.one_of(st.sampled_from(["edit", "édit", "план", "𝔭lan", ""]), st.text(max_size=8)),
    p=st.one_of(
        st.floats(0.0, 1.0),
        st.integers(0, 200).map(lambda k: k / 200),  # the midpoints, 0.125 and its kin exact
        st.floats(allow_nan=True, allow_infinity=True),
    ),
    step=st.sampled_from([-1, 0, 1]),
)
def test_the_walk_shows_a_probability_as_python_does(label: str, p: float, step: int) -> None:
    """The walk writes the model's reading into a reason without dtoa: the label in its own
    width and the same two decimals as f"{p:.2f}" (correctly rounded, ties to even), next to
    every midpoint too."""
    if step and not math.isnan(p):
        p = math.nextafter(p, math.copysign(math.inf, step))
    assert shown_probability(label, p) == f"{label} {p:.2f}"


@compiled
def test_shown_probability_edge_cases() -> None:
    for p in (0.125, 0.375, 0.625, 0.875, 0.005, 0.015, 0.995, 0.0, 1.0, -0.0, 5e-324):
        for q in (math.nextafter(p, -1.0), p, math.nextafter(p, 2.0)):
            assert shown_probability("edit", q) == f"edit {q:.2f}"
    assert [shown_probability("x", k / 100) for k in range(101)] == [
        f"x {k / 100:.2f}" for k in range(101)
    ]
    assert shown_probability("план", math.nan) == "план nan"
    assert shown_probability("edit", 1.5) == "edit 1.50"
    with pytest.raises(TypeError):
        shown_probability("edit", "0.5")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        shown_probability(b"edit", 0.5)  # type: ignore[arg-type]


@settings(max_examples=500, deadline=None)
@given(data=st.data(), text=st.text(alphabet=TEXT_ALPHABET, max_size=60))
def test_read_gives_the_plain_prediction(data: st.DataObject, text: str) -> None:
    model = _sample_model(data, pairs=data.draw(st.booleans()))
    vocabulary = [*sorted(model.weights), "fix", "修改代码", "unknown"]
    corrected = frozenset(data.draw(st.lists(st.sampled_from(vocabulary), max_size=3)))
    _agrees(model, text, corrected)


@settings(max_examples=200, deadline=None)
@given(model=text_models(), data=st.data())
def test_read_gives_the_plain_prediction_for_generated_models(
    model: TextModel, data: st.DataObject
) -> None:
    vocabulary = sorted(f.lstrip("#") for f in model.weights) or ["x"]
    words = data.draw(st.lists(st.sampled_from([*vocabulary, "zz", "修改"]), max_size=12))
    separators = data.draw(st.sampled_from([" ", "\n", ", ", "-"]))
    text = separators.join(w.upper() if data.draw(st.booleans()) else w for w in words)
    corrected = frozenset(data.draw(st.lists(st.sampled_from(vocabulary), max_size=2)))
    _agrees(model, text, corrected)


# Token characters only: long tokens (past the 64 characters the compiled table lowercases
# at a time), spaceless or not, their pairs across every chunk boundary.
LONG_TOKEN_ALPHABET = st.sampled_from(
    list("修改代码计划テスト수정ทดสอบ") + list("xéпİΣσa") + ["𝐀", "\u0301"]
)


@settings(max_examples=300, deadline=None)
@given(
    data=st.data(),
    tokens=st.lists(st.text(alphabet=LONG_TOKEN_ALPHABET, min_size=50, max_size=300), max_size=3),
)
def test_read_gives_the_plain_prediction_for_long_tokens(
    data: st.DataObject, tokens: list[str]
) -> None:
    model = _sample_model(data, pairs=data.draw(st.booleans()))
    if data.draw(st.booleans()):  # one of them a feature (as long as the longest ones)
        tokens.append(data.draw(st.sampled_from(["x" * 300, "é" * 80])))
    _agrees(model, " ".join(tokens), frozenset())


@compiled
def test_the_feature_table_reads_a_huge_token_in_bounded_memory() -> None:
    """A token of millions of characters is lowercased a chunk at a time: no buffer of
    its length (the library's input is unbounded)."""
    import tracemalloc

    assert _FeatureTable is not None
    table = _FeatureTable({"#修改": (1, 2), "#改修": (3, 4), "é": (5, 6)}, 2, 10)
    for text, expected in [
        ("修改" * 1_500_000, (2, 4, 6)),
        ("é" * 3_000_000 + "修", (0, 0, 0)),  # spaceless (Han): pairs, none known
        ("É" * 3_000_000, (0, 0, 0)),
        ("é" * 3_000_000 + "Σ", None),  # a capital sigma, at its very end: Python decides
    ]:
        tracemalloc.start()
        try:
            assert table.sums(text, ()) == expected
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 1 << 20, peak


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   \n\t .,;",
        "fix FIX Fix fIx the the the",  # duplicates count once
        "修改代码 修改代码 请修改代码",  # a spaceless token, its pairs, duplicates
        "ทดสอบ テストレビュー 수정",  # Thai, kana, Hangul
        "İx café ПРИВЕТ",  # İ lowercases to two characters; Cyrillic and accents are whole tokens
        "σσ ΣΣ",  # a capital sigma: Python decides
        "Ａ K Ꞵ",  # fullwidth, Kelvin sign, a Latin capital whose lowercase is below U+2E80
        "x" * 300 + " " + "é" * 80 + " " + "x" * 301,  # longest features, and longer tokens
        "é" * 63 + "修改" + "é" * 9,  # a long token's pair across its first 64 characters
        "a🙂b 𝐀𝐀 e\u0301",  # an emoji separates; a mathematical letter; a combining mark
    ],
)
def test_read_edge_cases(text: str) -> None:
    weights = {
        f: _row(edit=i * 97 - 300, plan=-i * 31, chat=i)
        for i, f in enumerate(
            [
                *(
                    "fix",
                    "the",
                    "修改代码",
                    "#修改",
                    "#代码",
                    "#请修",
                    "ทดสอบ",
                    "#ทด",
                    "#テス",
                    "#수정",
                ),
                *(
                    "i\u0307x",
                    "café",
                    "привет",
                    "σσ",
                    "ａ",
                    "k",
                    "ꞵ",
                    "x" * 300,
                    "é" * 80,
                    "a",
                    "b",
                ),
                *("𝐀𝐀", "#𝐀𝐀", "e\u0301"),
            ]
        )
    }
    model = _model(weights, bias=(0.5, 0.25, 0, 0, 0, 0, -0.5))
    for corrected in (frozenset(), frozenset({"fix", "review"}), frozenset({"修改代码"})):
        _agrees(model, text, corrected)


def test_read_counts_the_first_tokens_only() -> None:
    model = _model({"late": _row(plan=30000), "w": _row(edit=1)})
    head = " ".join(["w"] * MAX_TOKENS)
    assert model.read(head + " late") == model.predict(["w"]) != model.predict(["w", "late"])
    # a capital sigma past the tokens read does not matter either
    _agrees(model, head + " late ΣΣ", frozenset())
    _agrees(model, "late " + head, frozenset())
    _agrees(model, head, frozenset({"late"}))  # a correction is read wherever it comes from


def test_a_model_without_pair_features_reads_no_pairs() -> None:
    model = _model({"修改代码": _row(edit=9000), "#修": _row(plan=9000), "##修改": _row(plan=9)})
    assert model.read("修改代码") == model.predict(["修改代码"])
    _agrees(model, "修改代码 #修改", frozenset())


def test_a_model_with_no_features_or_no_known_one_leaves_the_biases() -> None:
    for model in (_model({}), _model({"fix": _row(edit=1)}, bias=(0, 1, 0, 0, 0, 0, 0))):
        assert model.read("nothing known here") == model.predict([])
        _agrees(model, "", frozenset())


def test_a_correction_that_is_a_token_or_a_pair_counts_once() -> None:
    model = _model({"fix": _row(edit=9000), "#修改": _row(plan=9000)})
    _agrees(model, "fix 修改", frozenset({"fix", "#修改"}))
    assert model.known(["fix", "修改"], {"fix", "#修改"}) == {"fix", "#修改"}


def test_lanes_that_would_carry_are_summed_one_by_one() -> None:
    many = 1 << 16  # known features enough to carry out of a 32-bit lane
    weights = {f"w{i}": [32767, -32768] for i in range(many)}
    model = TextModel(("a", "b"), (0.0, 0.0), 1.0, weights)
    corrected = frozenset(weights)
    probs = model.probabilities([], corrected)
    assert probs == model._softmax(many, (32767 * many, -32768 * many)) == (1.0, 0.0)
    flipped = TextModel(("a", "b"), (0.0, 0.0), 1.0, {f: [-32768, 32767] for f in weights})
    assert flipped.probabilities([], corrected) == (0.0, 1.0)
    assert model.read("", corrected) == model.predict([], corrected)
    if _FeatureTable is not None:
        table = _FeatureTable(weights, 2, MAX_TOKENS)
        assert table.sums("", corrected) == (many, 32767 * many, -32768 * many)


def test_read_builds_its_table_once_and_pickles_without_it() -> None:
    model = _model({"fix": _row(edit=8000)})
    assert model.read("fix it").label == "edit"
    table = model._table
    assert model.read("fix it again").label == "edit"
    assert model._table is table
    assert (table is None) == (_FeatureTable is None)
    again = pickle.loads(pickle.dumps(model))
    assert again == model
    assert again._table is False


@compiled
def test_the_feature_table_refuses_what_it_cannot_read() -> None:
    assert _FeatureTable is not None
    table = _FeatureTable({"fix": (1, 2)}, 2, 10)
    assert len(table) == 1
    assert table.sums("fix fix", ()) == (1, 1, 2)
    assert table.sums("fix", ["fix"]) == (1, 1, 2)
    with pytest.raises(TypeError, match="corrected words must be str"):
        table.sums("fix", [1])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="iterable"):
        table.sums("fix", 3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="takes a str"):
        table.sums(b"fix", ())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="takes a str"):
        table.known("fix")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        _FeatureTable(["fix"], 2, 10)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="features must be str"):
        _FeatureTable({1: (1, 2)}, 2, 10)  # type: ignore[dict-item]
    with pytest.raises(TypeError, match="sequences of int"):
        _FeatureTable({"fix": 1}, 2, 10)
    with pytest.raises(ValueError, match="needs 2 weights"):
        _FeatureTable({"fix": (1,)}, 2, 10)
    with pytest.raises(ValueError, match=r"\[-32768, 32767\]"):
        _FeatureTable({"fix": (1, 40000)}, 2, 10)
    with pytest.raises(TypeError):
        _FeatureTable({"fix": (1, "x")}, 2, 10)
    with pytest.raises(ValueError, match="lanes"):
        _FeatureTable({}, 0, 10)
    with pytest.raises(ValueError, match="lanes"):
        _FeatureTable({}, 1, -1)
    assert _FeatureTable({"fix": (1,)}, 1, 0).sums("fix", ()) == (0, 0)
    assert table.sums_of(b"", ["fix"]) == (1, 1, 2)
    assert table.sums_of(b"\0\0\0\0" * 3, ()) == (1, 1, 2)  # (each id counts once)
    with pytest.raises(ValueError, match="ids of this table"):
        table.sums_of(b"\1\0\0\0", ())  # no feature 1
    with pytest.raises(ValueError, match="32-bit ids"):
        table.sums_of(b"\0\0", ())  # half an id
    with pytest.raises(TypeError, match="takes bytes"):
        table.sums_of("fix", ())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="corrected words must be str"):
        table.sums_of(b"", [1])  # type: ignore[list-item]
    assert _TokenCodes is not None
    with pytest.raises(TypeError, match="must be a FeatureTable"):
        _TokenCodes(8).fold("fix", [], set(), set(), {}, {"fix": (1, 2)})  # type: ignore[call-overload]
    lone = _FeatureTable({"\ud800x": (5,), "x\udfff": (7,)}, 1, 10)
    assert lone.sums("x", ["\ud800x", "x\udfff", "\ud800"]) == (2, 12)


@compiled
def test_the_feature_table_reads_a_snapshot_of_the_weights() -> None:
    """A row whose iteration changes the weights (Python code the C build runs) cannot pull
    the table's reading from under it: it reads the items as they were."""
    assert _FeatureTable is not None
    weights: dict[str, object] = {}

    class Meddling:
        def __iter__(self) -> Iterator[int]:
            weights.clear()
            weights.update({f"new{i}": (9,) for i in range(50)})
            return iter((3,))

    weights.update({"fix": Meddling(), "bug": (4,)})
    table = _FeatureTable(weights, 1, 10)
    assert len(table) == 2
    assert table.sums("fix the bug", ()) == (2, 7)


@compiled
def test_the_scan_gives_no_feature_ids_when_a_read_token_holds_sigma() -> None:
    """U+03A3 lowercases by context, which the C reading does not follow: fold's ids are
    None when one of the tokens the table reads holds it (Python decides), and bytes when
    it lies past them."""
    assert _TokenCodes is not None
    assert _FeatureTable is not None
    table = _FeatureTable({"a": (1,), "b": (2,)}, 1, 2)
    assert _TokenCodes(64).fold("a Σ b", [], set(), set(), {}, table)[1] is None
    _, ids = _TokenCodes(64).fold("a b Σ", [], set(), set(), {}, table)
    assert isinstance(ids, bytes)
    assert table.sums_of(ids, frozenset()) == table.sums("a b Σ", frozenset())


@compiled
@settings(max_examples=400, deadline=None)
@given(data=st.data(), text=st.text(alphabet=TEXT_ALPHABET, max_size=60))
def test_top_of_is_softmax_top_of_the_sums(data: st.DataObject, text: str) -> None:
    """FeatureTable.top_of (the sums and the softmax in one call, which read() takes with
    the scan's ids) gives softmax_top(bias, scale, sums_of(...)): the same label, the
    same bits, None alike (a score past the floats)."""
    assert _FeatureTable is not None
    assert _TokenCodes is not None
    model = _sample_model(data, pairs=data.draw(st.booleans()))
    vocabulary = [*sorted(model.weights), "fix", "unknown"]
    corrected = frozenset(data.draw(st.lists(st.sampled_from(vocabulary), max_size=3)))
    biases = st.one_of(st.floats(-3, 3), st.sampled_from([0.0, 745.0, -745.0, 1e308]))
    bias = tuple(data.draw(st.lists(biases, min_size=len(LABELS), max_size=len(LABELS))))
    scale = data.draw(st.one_of(st.sampled_from([1.0, 1024.0, 5e-324]), st.floats(1e-3, 1e6)))
    table = _FeatureTable(model.weights, len(LABELS), MAX_TOKENS)
    _, ids = _TokenCodes(64).fold(text, [], set(), set(), {}, table)
    if ids is None:  # (a token holds U+03A3: no ids, Python reads the text)
        return
    _same_top_of(table, ids, corrected, bias, scale)


def _same_top_of(
    table: object, ids: bytes, corrected: frozenset[str], bias: tuple[float, ...], scale: float
) -> None:
    expected = softmax_top(bias, scale, table.sums_of(ids, corrected))  # type: ignore[attr-defined]
    got = table.top_of(ids, corrected, bias, scale)  # type: ignore[attr-defined]
    if expected is None:
        assert got is None
        return
    assert got is not None
    assert (got[0], got[1].hex()) == (expected[0], expected[1].hex())


@compiled
def test_top_of_edge_cases() -> None:
    assert _FeatureTable is not None
    ids = (0).to_bytes(4, "little") + (1).to_bytes(4, "little")
    table = _FeatureTable({"fix": _row(edit=8000), "why": _row(chat=9000)}, len(LABELS), 8)
    bias = (0.5, 0.25, 0.0, 0.0, 0.0, 0.0, -0.5)
    # no feature at all (no division by a zero norm): the biases alone decide
    _same_top_of(table, b"", frozenset(), bias, 1024.0)
    assert table.top_of(b"", frozenset(), bias, 1024.0)[0] == 0  # type: ignore[index]
    _same_top_of(table, ids, frozenset(), bias, 1024.0)
    _same_top_of(table, ids[:4], frozenset({"why"}), bias, 1.0)  # a corrected word
    _same_top_of(table, ids, frozenset(), bias, 5e-324)  # a score past the floats: None
    assert table.top_of(ids, frozenset(), bias, 5e-324) is None
    # ... and read() with the scan's ids gives the plain answer then (its sums, in Python)
    model = TextModel(LABELS, (0.5, 0.25, 0, 0, 0, 0, -0.5), 5e-324, {"fix": _row(edit=-3)})
    _, read_ids = _TokenCodes(64).fold("fix it", [], set(), set(), {}, model.feature_table())
    assert model.read("fix it", frozenset(), None, read_ids) == model.predict(["fix", "it"])
    # past the 32 labels held on the stack
    wide = _FeatureTable({"fix": list(range(40)), "why": [-n for n in range(40)]}, 40, 8)
    wide_bias = tuple(float(n % 3) for n in range(40))
    _same_top_of(wide, ids[:4], frozenset(), wide_bias, 7.0)
    _same_top_of(wide, ids[4:], frozenset(), wide_bias, 7.0)
    with pytest.raises(TypeError):
        table.top_of(ids, frozenset(), bias[:-1], 1.0)  # one bias short
    with pytest.raises(TypeError):
        table.top_of(ids, frozenset(), (0,) * len(LABELS), 1.0)  # not floats
    with pytest.raises(TypeError):
        table.top_of(ids, frozenset(), list(bias), 1.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="32-bit ids"):
        table.top_of(ids[:3], frozenset(), bias, 1.0)  # not 32-bit ids
    with pytest.raises(ValueError, match="ids of this table"):
        table.top_of((9).to_bytes(4, "little"), frozenset(), bias, 1.0)  # not of this table


@compiled
def test_the_compiled_pairs_are_made_in_order() -> None:
    """The pairs the C calls give (made by hand, not by a format): fold's (unknown
    tokens, feature ids), softmax_top's and top_of's (place, probability)."""
    assert _FeatureTable is not None
    assert _TokenCodes is not None
    table = _FeatureTable({"fix": _row(edit=8000)}, len(LABELS), 8)
    got = _TokenCodes(64).fold("fix zz", [], set(), set(), {}, table)
    assert type(got) is tuple
    assert len(got) == 2
    unknown, ids = got
    assert sorted(unknown) == ["fix", "zz"]
    assert ids == (0).to_bytes(4, "little")
    bias = (0.0,) * len(LABELS)
    for top in (
        softmax_top(bias, 1024.0, table.sums_of(ids, ())),
        table.top_of(ids, (), bias, 1024.0),
    ):
        assert type(top) is tuple
        assert type(top[0]) is int
        assert type(top[1]) is float
        assert LABELS[top[0]] == "edit"
