"""The pydantic model of a classification: the one statement of its fields' types.

Pure data (pydantic v2, frozen, unknown keys rejected). The public
:class:`smista.core.result.Classification` is a plain immutable class so that
classifying never loads pydantic; it defers to this model for everything that
needs validation or a schema: lax or invalid construction (the exact errors
of a pydantic model), ``model_validate``/``model_validate_json``, JSON Schema,
and its use as a field type of other pydantic models (:func:`core_schema_of`).
The class is named ``Classification`` too, so schemas and error titles read as
they always have; import it as :data:`ClassificationModel`. The server's
``ClassifyAnswer`` extends it. Never performs I/O.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, GetCoreSchemaHandler, StrictInt
from pydantic_core import core_schema

from smista.core import result
from smista.core.intent import Confidence, IntentSource, TaskIntent

if TYPE_CHECKING:
    from pydantic import SerializerFunctionWrapHandler, ValidatorFunctionWrapHandler

__all__ = ["ClassificationModel", "core_schema_of"]


class Classification(BaseModel):
    __doc__ = result.Classification.__doc__

    model_config = ConfigDict(frozen=True, extra="forbid")

    intent: TaskIntent
    source: IntentSource
    reason: str
    matched_rule: StrictInt | None = Field(default=None, ge=0)
    confidence: Confidence | None = None


ClassificationModel = Classification
"""The pydantic model (its ``__name__`` is ``Classification``)."""


def core_schema_of(
    cls: type[result.Classification], handler: GetCoreSchemaHandler
) -> core_schema.CoreSchema:
    """The pydantic core schema of the plain class: the model's, converting both ways.

    Validation accepts an instance as it is and anything else through the
    model; serialization goes through the model's serializer (so ``mode``,
    ``exclude_none``, ``include`` ... behave as for a model field), and the
    JSON Schema in either mode is the model's.
    """
    model = handler.generate_schema(ClassificationModel)

    def validate(value: Any, inner: ValidatorFunctionWrapHandler) -> result.Classification:
        if isinstance(value, cls):
            return value
        return cls._of_model(inner(value))

    def serialize(value: Any, inner: SerializerFunctionWrapHandler) -> Any:
        return inner(value._as_model() if isinstance(value, cls) else value)

    return core_schema.no_info_wrap_validator_function(
        validate,
        model,
        serialization=core_schema.wrap_serializer_function_ser_schema(serialize, schema=model),
    )
