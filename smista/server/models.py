"""Request and response models of the HTTP service (the shapes in ``/openapi.json``).

Pure data (pydantic v2, frozen, unknown keys rejected). Responses that the
library already defines (the classification, through its pydantic model
:class:`~smista.core.resultmodel.ClassificationModel`) are reused as they are, so
``/v1/classify`` answers exactly the library's wire JSON.
Never performs I/O.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictInt, StrictStr

from smista.core.intent import TaskIntent
from smista.core.resultmodel import ClassificationModel
from smista.core.rules import ClassificationConfig
from smista.core.turnclassify import TurnInfo
from smista.core.workspace import Workspace
from smista.server.turns import Messages, TextOrMessages

__all__ = [
    "BLANK_CONTEXT",
    "BatchRequest",
    "BatchResponse",
    "ClassifyAnswer",
    "ClassifyRequest",
    "ContextKind",
    "ErrorBody",
    "ErrorDetail",
    "ErrorResponse",
    "Health",
    "RulesInfo",
]


BLANK_CONTEXT = "a context kind cannot be empty"
"""The message for a blank context name (the CLI's ``--context ''`` says the same)."""


def _context_kind(name: str) -> str:
    if not name or name.isspace():
        raise ValueError(BLANK_CONTEXT)
    return name


ContextKind = Annotated[
    StrictStr, AfterValidator(_context_kind), Field(json_schema_extra={"pattern": r"\S"})
]
"""A context kind in a request: a string with a non-blank character (``git_diff``)."""


class ClassifyRequest(TextOrMessages):
    """One request to classify: the prompt, and what the host knows around it."""

    messages: Messages = Field(
        default=None,
        description=(
            "A whole turn instead of text: OpenAI chat messages, an Anthropic Messages body "
            "or an OpenAI Responses input (an array, or the request object itself), "
            "auto-detected. Give exactly one of text and messages; the answer then has a "
            "'turn' object."
        ),
    )
    command: TaskIntent | None = Field(
        default=None,
        description="An explicit intent chosen by the user; wins over every rule.",
    )
    contexts: tuple[ContextKind, ...] = Field(
        default=(),
        description="Context kinds available to the request, e.g. git_diff.",
        fail_fast=True,
    )
    workspace: Workspace | None = Field(
        default=None,
        description="The working-tree snapshot; adds the context kinds it provides.",
    )


class ClassifyAnswer(ClassificationModel):
    """A classification; with ``turn`` when the request gave ``messages``."""

    turn: TurnInfo | None = Field(
        default=None, description="What the turn was read as (only when messages was given)."
    )


class BatchRequest(BaseModel):
    """Several requests classified against one rule set, answered in order."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    items: tuple[ClassifyRequest, ...] = Field(fail_fast=True)


class BatchResponse(BaseModel):
    """One classification per request item, in the items' order."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    results: tuple[ClassifyAnswer, ...]


class Health(BaseModel):
    """The service is up and serving a rule set."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    status: StrictStr = Field(description='Always "ok" when the service answers.')
    generation: StrictInt = Field(ge=1, description="Rule-set generation (1 at start).")


class RulesInfo(BaseModel):
    """The rule set currently served."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    source: StrictStr = Field(description="Path of the file the rules were read from.")
    sha256: StrictStr = Field(
        pattern="^[0-9a-f]{64}$", description="SHA-256 of that file's bytes, in hex."
    )
    loaded_at: StrictStr = Field(description="When it was loaded (RFC 3339, UTC).")
    rule_count: StrictInt = Field(ge=0, description="Number of classification rules.")
    default_intent: TaskIntent = Field(description="The intent used when no rule matches.")
    generation: StrictInt = Field(
        ge=1, description="1 for the rules loaded at start, +1 per successful reload."
    )
    classification: ClassificationConfig = Field(
        description="The rule set itself, as loaded (the [classification] wire shape)."
    )
    config: StrictStr | None = Field(
        default=None, description="The --config file, when the service has one."
    )
    config_sha256: StrictStr | None = Field(
        default=None,
        pattern="^[0-9a-f]{64}$",
        description="SHA-256 of the --config file.",
    )


class ErrorDetail(BaseModel):
    """One problem with a request body: where it is and what was expected."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    loc: StrictStr = Field(description="Key path inside the body, e.g. items[2].text.")
    message: StrictStr


class ErrorBody(BaseModel):
    """A machine-readable code, a readable message and, for bad bodies, the details."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    code: StrictStr = Field(
        description=(
            "invalid_json, invalid_request, body_too_large, prompt_too_large, "
            "batch_too_large, unauthorized, not_found, method_not_allowed, "
            "internal_error, or an endpoint's own code."
        )
    )
    message: StrictStr
    details: tuple[ErrorDetail, ...] | None = None


class ErrorResponse(BaseModel):
    """Every error the service answers has this shape."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    error: ErrorBody
