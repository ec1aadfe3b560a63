"""``Classification`` is a plain immutable class with the surface of the frozen pydantic
model it replaced.

Every behaviour is compared against that model itself
(:class:`smista.core.resultmodel.ClassificationModel`, the one statement of the
fields): repr and str, equality and hash, dumps (python and JSON, with and
without ``exclude_none``, byte for byte), validation and its errors, and its use
as a field type inside other pydantic models, JSON Schema included.
"""

from __future__ import annotations

import copy
import pickle
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from smista.core.intent import Confidence, IntentSource, TaskIntent
from smista.core.result import FIELDS, Classification, trusted
from smista.core.resultmodel import ClassificationModel

fields = st.fixed_dictionaries(
    {
        "intent": st.sampled_from(list(TaskIntent)),
        "source": st.sampled_from(list(IntentSource)),
        "reason": st.text(),
        "matched_rule": st.none() | st.integers(0, 2**40),
        "confidence": st.none() | st.sampled_from(list(Confidence)),
    }
)


def pair(data: dict[str, Any]) -> tuple[Classification, ClassificationModel]:
    return Classification(**data), ClassificationModel(**data)


def test_fields_are_the_models() -> None:
    """The plain class holds exactly the model's fields, in the model's order."""
    assert tuple(ClassificationModel.model_fields) == FIELDS
    assert set(Classification.__slots__) == set(FIELDS)
    assert ClassificationModel.__name__ == "Classification"
    assert ClassificationModel.__doc__ == Classification.__doc__


@given(fields)
def test_same_surface_as_the_model(data: dict[str, Any]) -> None:
    """repr, str, dumps and JSON are those of the pydantic model, byte for byte."""
    plain, model = pair(data)
    assert repr(plain) == repr(model)
    assert str(plain) == str(model)
    for mode in ("python", "json"):
        for exclude_none in (False, True):
            got = plain.model_dump(mode=mode, exclude_none=exclude_none)
            want = model.model_dump(mode=mode, exclude_none=exclude_none)
            assert got == want
            assert list(got) == list(want)
            assert [type(v) for v in got.values()] == [type(v) for v in want.values()]
    for exclude_none in (False, True):
        assert plain.model_dump_json(exclude_none=exclude_none) == model.model_dump_json(
            exclude_none=exclude_none
        )
    assert plain.model_dump_json(indent=2) == model.model_dump_json(indent=2)
    assert plain.model_dump(include={"intent"}) == model.model_dump(include={"intent"})
    assert plain.to_wire() == model.model_dump(mode="json", exclude_none=True)
    assert hash(plain) == hash(model)


@given(fields)
def test_round_trips(data: dict[str, Any]) -> None:
    """JSON, dict, pickle and copy round trips give an equal value."""
    plain = Classification(**data)
    assert Classification.model_validate_json(plain.model_dump_json()) == plain
    assert Classification.model_validate_json(plain.model_dump_json(exclude_none=True)) == plain
    assert Classification.model_validate(plain.model_dump(mode="json")) == plain
    assert Classification.model_validate(plain) is plain
    assert pickle.loads(pickle.dumps(plain)) == plain
    assert copy.copy(plain) == plain
    assert copy.deepcopy(plain) == plain


def test_equality_and_hash() -> None:
    a = Classification(intent=TaskIntent.EDIT, source=IntentSource.INFERRED, reason="x")
    b = Classification(intent=TaskIntent.EDIT, source=IntentSource.INFERRED, reason="x")
    c = Classification(intent=TaskIntent.EDIT, source=IntentSource.EXPLICIT, reason="x")
    assert a == b
    assert hash(a) == hash(b)
    assert len({a, b, c}) == 2
    assert a != c
    assert a != ClassificationModel(intent="edit", source="inferred", reason="x")
    assert a != a.to_wire()


def test_frozen() -> None:
    """Assignment and deletion raise the model's frozen-instance error."""
    plain, model = pair({"intent": TaskIntent.CHAT, "source": IntentSource.EXPLICIT, "reason": "r"})
    for name, value in (("reason", "other"), ("intent", TaskIntent.EDIT), ("new", 1)):
        with pytest.raises(ValidationError) as got:
            setattr(plain, name, value)
        with pytest.raises(ValidationError) as want:
            setattr(model, name, value)
        assert str(got.value) == str(want.value)
        assert "frozen_instance" in str(got.value)
    with pytest.raises(ValidationError, match="frozen"):
        del plain.reason
    assert plain.reason == "r"


BAD: list[dict[str, Any]] = [
    {"intent": "nope", "source": "inferred", "reason": "x"},
    {"intent": "edit", "source": "guessed", "reason": "x"},
    {"intent": "edit", "source": "inferred", "reason": 3},
    {"intent": "edit", "source": "inferred", "reason": "x", "matched_rule": -1},
    {"intent": "edit", "source": "inferred", "reason": "x", "matched_rule": True},
    {"intent": "edit", "source": "inferred", "reason": "x", "matched_rule": "3"},
    {"intent": "edit", "source": "inferred", "reason": "x", "matched_rule": 1.0},
    {"intent": "edit", "source": "inferred", "reason": "x", "confidence": "very"},
    {"intent": "edit", "source": "inferred", "reason": "x", "extra": 1},
    {"intent": "edit"},
    {},
]


@pytest.mark.parametrize("data", BAD)
def test_invalid_values_raise_the_models_error(data: dict[str, Any]) -> None:
    """Construction and model_validate reject what the model rejects, with its message."""
    with pytest.raises(ValidationError) as want:
        ClassificationModel(**data)
    with pytest.raises(ValidationError) as got:
        Classification(**data)
    assert str(got.value) == str(want.value)
    with pytest.raises(ValidationError) as got:
        Classification.model_validate(data)
    assert str(got.value) == str(want.value)
    assert " for Classification\n" in str(got.value)


def test_positional_arguments_are_refused() -> None:
    with pytest.raises(TypeError):
        Classification(TaskIntent.EDIT)  # type: ignore[call-arg]


def test_lax_values_are_coerced_as_the_model_does() -> None:
    """Names for the enums are read as the model reads them (e.g. from JSON)."""
    data = {"intent": "edit", "source": "inferred", "reason": "x", "confidence": "low"}
    plain, model = pair(data)
    assert plain.intent is TaskIntent.EDIT
    assert plain.confidence is Confidence.LOW
    assert plain.model_dump() == model.model_dump()


def test_model_copy_validates_updates() -> None:
    plain = Classification(intent=TaskIntent.EDIT, source=IntentSource.INFERRED, reason="x")
    assert plain.model_copy() is plain
    moved = plain.model_copy(update={"reason": "y", "matched_rule": 2})
    assert (moved.reason, moved.matched_rule, moved.intent) == ("y", 2, TaskIntent.EDIT)
    with pytest.raises(ValidationError):
        plain.model_copy(update={"matched_rule": -2})


def test_unencodable_reason_dumps_as_the_model() -> None:
    """A lone surrogate (not UTF-8) goes through the model's own serializer."""
    data = {"intent": TaskIntent.EDIT, "source": IntentSource.INFERRED, "reason": "a\ud800"}
    plain, model = pair(data)
    try:
        want: object = model.model_dump_json()
    except Exception as exc:
        with pytest.raises(type(exc)):
            plain.model_dump_json()
    else:
        assert plain.model_dump_json() == want


class WithPlain(BaseModel):
    model_config = ConfigDict(frozen=True)
    result: Classification
    maybe: Classification | None = None


class WithModel(BaseModel):
    model_config = ConfigDict(frozen=True)
    result: ClassificationModel
    maybe: ClassificationModel | None = None


@given(fields)
def test_works_as_a_pydantic_field(data: dict[str, Any]) -> None:
    """Inside a pydantic model it validates, dumps and round-trips as the model field did."""
    plain, model = pair(data)
    outer = WithPlain(result=plain)
    assert outer.result is plain
    ref = WithModel(result=model)
    for mode in ("python", "json"):
        for exclude_none in (False, True):
            assert outer.model_dump(mode=mode, exclude_none=exclude_none) == ref.model_dump(
                mode=mode, exclude_none=exclude_none
            )
        assert outer.model_dump(mode=mode, include={"result": {"intent"}}) == ref.model_dump(
            mode=mode, include={"result": {"intent"}}
        )
    assert outer.model_dump_json() == ref.model_dump_json()
    assert outer.model_dump_json(exclude_none=True) == ref.model_dump_json(exclude_none=True)
    again = WithPlain.model_validate_json(outer.model_dump_json())
    assert again == outer
    assert type(again.result) is Classification
    assert WithPlain.model_validate(ref.model_dump()).result == plain


def test_field_errors_and_schema_are_the_models() -> None:
    """Validation errors inside another model, and JSON Schema in both modes, are unchanged."""
    bad = {"result": {"intent": "nope", "source": "inferred", "reason": 1}}
    with pytest.raises(ValidationError) as got:
        WithPlain.model_validate(bad)
    with pytest.raises(ValidationError) as want:
        WithModel.model_validate(bad)
    assert str(got.value).replace("WithPlain", "X") == str(want.value).replace("WithModel", "X")
    for mode in ("validation", "serialization"):
        got_schema = WithPlain.model_json_schema(mode=mode)
        want_schema = WithModel.model_json_schema(mode=mode)
        assert got_schema["$defs"] == want_schema["$defs"]
        assert got_schema["properties"] == want_schema["properties"]
        assert TypeAdapter(Classification).json_schema(mode=mode) == (
            ClassificationModel.model_json_schema(mode=mode)
        )
    assert Classification.model_json_schema() == ClassificationModel.model_json_schema()


@given(
    intent=st.sampled_from(TaskIntent),
    source=st.sampled_from(IntentSource),
    reason=st.text(max_size=20),
    rule=st.one_of(st.none(), st.integers(0, 10**6)),
    confidence=st.one_of(st.none(), st.sampled_from(Confidence)),
)
def test_trusted_is_the_checked_constructor_for_engine_fields(
    intent: TaskIntent, source: IntentSource, reason: str, rule: int | None, confidence: Any
) -> None:
    """The classify path's constructor of a new outcome builds what Classification() does."""
    made = trusted(intent, source, reason, rule, confidence)
    checked = Classification(
        intent=intent, source=source, reason=reason, matched_rule=rule, confidence=confidence
    )
    assert type(made) is Classification
    assert made == checked
    assert made.model_dump() == checked.model_dump()


def test_trusted_checks_what_it_does_not_trust() -> None:
    """A rule index or a reason of another shape goes through the checked constructor."""
    edit, inferred, low = TaskIntent.EDIT, IntentSource.INFERRED, Confidence.LOW
    with pytest.raises(ValidationError):
        trusted(edit, inferred, "fine", -1, low)
    with pytest.raises(ValidationError):
        trusted(edit, inferred, None, 3, low)  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        trusted(edit, inferred, "fine", True, low)


def _built(make: Any) -> tuple[str, Any]:
    """What ``make()`` gives: the result's fields and their types, or its error's type."""
    try:
        made = make()
    except ValidationError:
        return "invalid", None
    return "made", (made, [(type(v), v) for v in made._values()])


@given(
    intent=st.one_of(st.sampled_from(TaskIntent), st.sampled_from([i.value for i in TaskIntent])),
    source=st.one_of(st.sampled_from(IntentSource), st.sampled_from(["inferred", "dunno"])),
    reason=st.one_of(st.text(max_size=8), st.none(), st.integers(-1, 3)),
    rule=st.one_of(st.none(), st.integers(-2, 10**6), st.booleans(), st.just("3")),
    confidence=st.one_of(st.none(), st.sampled_from(Confidence), st.sampled_from(["high", "x"])),
)
def test_trusted_is_the_checked_constructor_for_any_fields(
    intent: Any, source: Any, reason: Any, rule: Any, confidence: Any
) -> None:
    """Fields of another shape (an enum's value for its member, an index as a str ...) are
    validated, coerced or refused, as Classification() does: trusted() never keeps them."""
    got = _built(lambda: trusted(intent, source, reason, rule, confidence))
    want = _built(
        lambda: Classification(
            intent=intent, source=source, reason=reason, matched_rule=rule, confidence=confidence
        )
    )
    assert got == want
