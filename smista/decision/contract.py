"""The provider-neutral decision contract: requests, answers, the evaluator protocol.

Pure. A :class:`DecisionRequest` carries a model id, a JSON state and named
questions (``choice`` with criteria, ``noul`` probability, ``score``); a
:class:`DecisionResponse` carries one :class:`Answer` per question, the model
that answered and its token usage. No task-specific type belongs here.

:func:`validate_response` is the protocol check every provider applies (the
answer set must match the questions, types must agree, probabilities must be
finite and in [0, 1]); :func:`response_from_json` reads the wire JSON of a
response. Both raise :class:`~smista.core.errors.EvaluatorResponseError` with a
precise, secret-free reason.
"""

from __future__ import annotations

import json
import math
from typing import Annotated, Any, Literal, Protocol

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictFloat,
    StrictStr,
    ValidationError,
    field_validator,
)

from smista.core.decisionresult import Usage
from smista.core.errors import EvaluatorResponseError

__all__ = [
    "Answer",
    "DecisionRequest",
    "DecisionResponse",
    "Evaluator",
    "Question",
    "QuestionType",
    "describe_validation_error",
    "loads_strict",
    "response_from_json",
    "validate_response",
]

QuestionType = Literal["choice", "noul", "score"]


class Question(BaseModel):
    """One named question: a ``choice`` among ``criteria`` labels, a ``noul`` or a ``score``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: QuestionType
    instructions: Annotated[StrictStr, Field(min_length=1)]
    criteria: dict[StrictStr, StrictStr] | None = None


class DecisionRequest(BaseModel):
    """What an evaluator is asked: model id, JSON state (text) and questions."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: Annotated[StrictStr, Field(min_length=1)]
    state: StrictStr
    """The state as serialized JSON text (any JSON value)."""
    questions: dict[Annotated[StrictStr, Field(min_length=1)], Question]

    @field_validator("state")
    @classmethod
    def _state_is_json(cls, value: str) -> str:
        try:
            loads_strict(value)
        except ValueError:
            raise ValueError("decision state must be valid JSON") from None
        return value

    def state_value(self) -> Any:
        """The state decoded from its JSON text."""
        return loads_strict(self.state)

    def questions_value(self) -> dict[str, Any]:
        """The questions as JSON values, unset fields left out (what every provider sends)."""
        return {
            qid: q.model_dump(mode="json", exclude_none=True) for qid, q in self.questions.items()
        }


Number = StrictFloat


class Answer(BaseModel):
    """One answer. Which fields matter depends on ``type``; the rest stay ``None``."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    type: StrictStr
    choice: StrictStr | None = None
    probabilities: dict[StrictStr, Number] | None = None
    confidence: Number | None = None
    noul: Number | None = None
    score: Number | None = None
    legend: dict[StrictStr, StrictStr] | None = None


class DecisionResponse(BaseModel):
    """What an evaluator answered."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    model: Annotated[StrictStr, Field(min_length=1)]
    answers: dict[StrictStr, Answer]
    usage: Usage = Usage()


class Evaluator(Protocol):
    """A decision-model provider. ``evaluate`` raises only ``EvaluatorError`` subclasses."""

    @property
    def id(self) -> str:
        """The provider id, e.g. ``systemone``."""
        ...

    async def evaluate(self, request: DecisionRequest) -> DecisionResponse:
        """Ask ``request``'s questions; the response is already protocol-validated."""
        ...


# ---------------------------------------------------------------------------
# wire parsing and validation


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not valid JSON")


def loads_strict(text: str | bytes) -> Any:
    """``json.loads`` that rejects ``NaN`` / ``Infinity`` (not JSON).

    Raises ``ValueError`` for anything that is not JSON, including nesting too
    deep to decode.
    """
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None


_TYPE_WORDS = {
    "string_type": "a string",
    "float_type": "a number",
    "int_type": "an integer",
    "dict_type": "an object",
    "model_type": "an object",
}


def _as_json(value: object) -> str:
    """``value`` as the reply wrote it (``true``, ``"high"``), not as Python shows it; a
    character UTF-8 cannot carry (a lone surrogate) stays escaped, so the reason that
    quotes it can always be encoded."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def describe_validation_error(exc: ValidationError, prefix: str = "") -> str:
    """The first pydantic error as ``path: expected X, got Y`` (values abridged)."""
    err = exc.errors(include_url=False)[0]
    path = prefix
    for part in err["loc"]:
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            path += f".{part}" if path else str(part)
    kind = err["type"]
    if kind == "missing":
        what = "is missing"
    elif kind in _TYPE_WORDS:
        got = _as_json(err.get("input"))
        got = got if len(got) <= 40 else got[:37] + "..."
        what = f"expected {_TYPE_WORDS[kind]}, got {got}"
    else:
        what = str(err.get("msg", "is invalid")).lower()
    return f"{path} {what}" if kind == "missing" else f"{path}: {what}"


def response_from_json(data: Any) -> DecisionResponse:
    """A :class:`DecisionResponse` from decoded wire JSON (``model``, ``answers``, ``usage``)."""
    if not isinstance(data, dict):
        raise EvaluatorResponseError("invalid response: expected a JSON object")
    if data.get("answers") is None:
        raise EvaluatorResponseError("invalid response: answers is missing")
    if data.get("usage") is None:
        data = {**data, "usage": {}}
    try:
        return DecisionResponse.model_validate(data)
    except ValidationError as exc:
        raise EvaluatorResponseError(
            f"invalid response: {describe_validation_error(exc)}"
        ) from None


def _is_probability(value: float | None) -> bool:
    return value is not None and math.isfinite(value) and 0.0 <= value <= 1.0


def validate_response(request: DecisionRequest, response: DecisionResponse) -> None:
    """Check ``response`` answers exactly ``request``'s questions with valid values."""
    if len(response.answers) != len(request.questions):
        raise EvaluatorResponseError(
            f"answer count does not match request ({len(request.questions)} questions, "
            f"{len(response.answers)} answers)"
        )
    for qid, question in request.questions.items():
        answer = response.answers.get(qid)
        if answer is None:
            raise EvaluatorResponseError(f"missing answer '{qid}'")
        if answer.type != question.type:
            raise EvaluatorResponseError(
                f"answer '{qid}' has type {answer.type!r}, expected '{question.type}'"
            )
        _check_answer(qid, answer)


def _check_answer(qid: str, answer: Answer) -> None:
    def bad(what: str) -> EvaluatorResponseError:
        return EvaluatorResponseError(f"answer '{qid}' {what}")

    if answer.type == "choice":
        if not answer.choice:
            raise bad("has no choice")
        if not answer.probabilities:
            raise bad("has no probabilities")
        if answer.confidence is None:
            raise bad("has no confidence")
        if not _is_probability(answer.confidence):
            raise bad(f"confidence {answer.confidence!r} is not a probability in [0, 1]")
        for label, p in answer.probabilities.items():
            if not _is_probability(p):
                raise bad(f"probability of {label!r} ({p!r}) is not in [0, 1]")
    elif answer.type == "noul":
        if answer.noul is None:
            raise bad("has no noul value")
        if not _is_probability(answer.noul):
            raise bad(f"noul {answer.noul!r} is not a probability in [0, 1]")
    elif answer.type == "score":
        if answer.score is None or not math.isfinite(answer.score):
            raise bad(f"score {answer.score!r} is not a finite number")
        if not _is_probability(answer.confidence):
            raise bad(f"confidence {answer.confidence!r} is not a probability in [0, 1]")
    else:
        raise bad(f"has unsupported type {answer.type!r}")
