"""The classification result, with the original's exact wire JSON.

Pure data: a small immutable class (slots; assignment raises), not a pydantic
model, so ``import smista; smista.classify(...)`` never imports pydantic. It
keeps the surface it had as a frozen pydantic model: the fields, equality,
hash, ``repr``, ``to_wire()``, ``model_dump(mode=..., exclude_none=...)``,
``model_dump_json(exclude_none=...)`` (byte-identical output), ``model_validate``,
``model_validate_json``, ``model_copy`` and ``model_json_schema``, and it works
as a field type inside pydantic models (``__get_pydantic_core_schema__``).

What the fields mean (types, bounds, JSON Schema, validation errors) has one
home, the pydantic model :class:`smista.core.resultmodel.ClassificationModel`;
this class only recognises values that model would accept unchanged (exact
enum members, ``str``, a non-negative ``int``) and hands everything else to it,
loading pydantic then. ``model_dump(mode="json", exclude_none=True)`` gives the
original's keys in its order, with ``matched_rule`` and ``confidence`` absent
when ``None``. Must never import pydantic at import time or on the
classify path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from smista.core import wire
from smista.core.intent import Confidence, IntentSource, TaskIntent

if TYPE_CHECKING:
    from pydantic import GetCoreSchemaHandler
    from pydantic_core import CoreSchema

    from smista.core.resultmodel import ClassificationModel

__all__ = ["FIELDS", "Classification"]

FIELDS: tuple[str, ...] = ("intent", "source", "reason", "matched_rule", "confidence")
"""The fields in wire order (the fields of :class:`ClassificationModel`; a test checks)."""

_OPTIONAL = frozenset(("matched_rule", "confidence"))
_set = object.__setattr__


def _model() -> type[ClassificationModel]:
    from smista.core.resultmodel import ClassificationModel

    return ClassificationModel


class Classification:
    """What kind of work a request is, where that came from, and why."""

    __slots__ = ("confidence", "intent", "matched_rule", "reason", "source")

    intent: TaskIntent
    source: IntentSource
    reason: str
    matched_rule: int | None
    confidence: Confidence | None

    if TYPE_CHECKING:

        def __init__(
            self,
            *,
            intent: TaskIntent,
            source: IntentSource,
            reason: str,
            matched_rule: int | None = None,
            confidence: Confidence | None = None,
        ) -> None: ...

    else:

        def __init__(self, /, **data: Any) -> None:
            intent = data.get("intent")
            source = data.get("source")
            reason = data.get("reason")
            rule = data.get("matched_rule")
            confidence = data.get("confidence")
            if len(data) == 3 + ("matched_rule" in data) + ("confidence" in data) and _as_given(
                intent, source, reason, rule, confidence
            ):
                _set(self, "intent", intent)
                _set(self, "source", source)
                _set(self, "reason", reason)
                _set(self, "matched_rule", rule)
                _set(self, "confidence", confidence)
                return
            # Anything else: the pydantic model validates (lax coercion or its errors).
            self._fill(_model().model_validate(data))

    def _fill(self, model: ClassificationModel) -> None:
        for name in FIELDS:
            _set(self, name, getattr(model, name))

    @classmethod
    def _of_model(cls, model: ClassificationModel) -> Classification:
        self = cls.__new__(cls)
        self._fill(model)
        return self

    def _as_model(self) -> ClassificationModel:
        return _model().model_construct(**{name: getattr(self, name) for name in FIELDS})

    # -- immutability, equality, hashing, pickling --------------------------------------

    def __setattr__(self, name: str, value: object) -> None:
        # The frozen pydantic model raises its own error (ValidationError,
        # frozen_instance), always: nothing is ever set on this object.
        setattr(self._as_model(), name, value)

    def __delattr__(self, name: str) -> None:
        delattr(self._as_model(), name)  # raises likewise

    def _values(self) -> tuple[object, ...]:
        return (self.intent, self.source, self.reason, self.matched_rule, self.confidence)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, Classification)
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __reduce__(self) -> tuple[Any, tuple[object, ...]]:
        return (_restore, self._values())

    def __copy__(self) -> Classification:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> Classification:
        return self

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._repr_fields(', ')})"

    def __str__(self) -> str:
        return self._repr_fields(" ")

    def _repr_fields(self, sep: str) -> str:
        return sep.join(f"{name}={getattr(self, name)!r}" for name in FIELDS)

    # -- wire and pydantic-compatible dumps -----------------------------------------------

    def to_wire(self) -> dict[str, object]:
        """The original's JSON object (``None`` fields omitted)."""
        return wire.classification(
            self.intent.value,
            self.source.value,
            self.reason,
            self.matched_rule,
            None if self.confidence is None else self.confidence.value,
        )

    def model_dump(
        self, *, mode: str = "python", exclude_none: bool = False, **options: Any
    ) -> dict[str, Any]:
        """The fields as a dict, as pydantic's ``model_dump`` gives them.

        ``mode="json"`` gives enum values; ``exclude_none`` drops ``None`` fields.
        Any other pydantic option (``include``, ``exclude`` ...) is served by the
        pydantic model.
        """
        if options or mode not in ("python", "json"):
            return self._as_model().model_dump(mode=mode, exclude_none=exclude_none, **options)
        if mode == "json":
            data: dict[str, Any] = {
                "intent": self.intent.value,
                "source": self.source.value,
                "reason": self.reason,
                "matched_rule": self.matched_rule,
                "confidence": None if self.confidence is None else self.confidence.value,
            }
        else:
            data = {name: getattr(self, name) for name in FIELDS}
        if exclude_none:
            for name in _OPTIONAL:
                if data[name] is None:
                    del data[name]
        return data

    def model_dump_json(self, *, exclude_none: bool = False, **options: Any) -> str:
        """Compact JSON, byte for byte what pydantic's ``model_dump_json`` gives."""
        if options or not (self.reason.isascii() or _utf8(self.reason)):
            return self._as_model().model_dump_json(exclude_none=exclude_none, **options)
        import json  # not at import: classifying never serializes

        data = self.to_wire() if exclude_none else self.model_dump(mode="json")
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"))

    def model_copy(
        self, *, update: dict[str, Any] | None = None, deep: bool = False
    ) -> Classification:
        """A copy with ``update`` applied (validated; an immutable value needs no deep copy)."""
        del deep
        if not update:
            return self
        return type(self)(**{**{name: getattr(self, name) for name in FIELDS}, **update})

    @classmethod
    def model_validate(cls, obj: Any, **options: Any) -> Classification:
        """A classification from a dict (or one as is), validated as the pydantic model does."""
        if type(obj) is cls and not options:
            return obj
        return cls._of_model(_model().model_validate(obj, **options))

    @classmethod
    def model_validate_json(cls, data: str | bytes | bytearray, **options: Any) -> Classification:
        """A classification from JSON text, validated as the pydantic model does."""
        return cls._of_model(_model().model_validate_json(data, **options))

    @classmethod
    def model_json_schema(cls, **options: Any) -> dict[str, Any]:
        """The JSON Schema (the pydantic model's)."""
        return _model().model_json_schema(**options)

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        from smista.core.resultmodel import core_schema_of

        return core_schema_of(cls, handler)


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


_SLOTS = tuple(getattr(Classification, name).__set__ for name in FIELDS)


def _as_given(
    intent: object, source: object, reason: object, rule: object, confidence: object
) -> bool:
    """Whether the fields are of the shapes the model accepts unchanged (exact enum members,
    a ``str``, no rule or a non-negative ``int``): then they are set as they are."""
    return (
        type(intent) is TaskIntent
        and type(source) is IntentSource
        and type(reason) is str
        and (rule is None or (type(rule) is int and rule >= 0))
        and (confidence is None or type(confidence) is Confidence)
    )


def trusted(
    intent: TaskIntent,
    source: IntentSource,
    reason: str,
    matched_rule: int | None,
    confidence: Confidence | None,
) -> Classification:
    """``Classification(...)`` of these fields, for a new outcome on the classify path,
    without the keyword arguments: fields of the shapes the model accepts unchanged (exact
    enum members, a ``str``, a non-negative ``int``: what the classify path gives) are set
    as they are; anything else is built, and validated, the usual way."""
    if not _as_given(intent, source, reason, matched_rule, confidence):
        return Classification(
            intent=intent,
            source=source,
            reason=reason,
            matched_rule=matched_rule,
            confidence=confidence,
        )
    self = object.__new__(Classification)
    set_intent, set_source, set_reason, set_rule, set_confidence = _SLOTS
    set_intent(self, intent)
    set_source(self, source)
    set_reason(self, reason)
    set_rule(self, matched_rule)
    set_confidence(self, confidence)
    return self


def _restore(*fields: Any) -> Classification:
    """What a pickled :class:`Classification` is rebuilt with: its ``__reduce__`` names this
    function, as every version has, so pickles load across versions."""
    return trusted(*fields)
