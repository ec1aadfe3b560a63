"""Turns on the HTTP API: the ``messages`` field of ``/v1/classify``, its batch and preview.

I/O-free adapter between the request models and :mod:`smista.core.turns`: parses a
body's ``messages`` with the service's ``[classification.turns]`` settings and
turns a :class:`~smista.core.turns.TurnError` into a 422 naming the field inside the
body (``items[2].messages[0].role``). Never quotes the payload's text.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import StrictStr, WithJsonSchema

from smista.config.load import format_loc
from smista.core.classifier import Classifier
from smista.core.turns import PAYLOAD_SCHEMA, Turn, TurnError, parse_turn
from smista.server.errors import ApiError

__all__ = [
    "MESSAGES_HELP",
    "ONE_OF_TEXT_OR_MESSAGES",
    "Messages",
    "OptionalText",
    "one_input",
    "request_turn",
]

MESSAGES_HELP = (
    "A whole turn instead of text: OpenAI chat messages, an Anthropic Messages body or "
    "an OpenAI Responses input (an array, or the request object itself), auto-detected. "
    "Give exactly one of text and messages. The answer then has a 'turn' object."
)


def request_turn(classifier: Classifier, messages: object, *prefix: str | int) -> Turn:
    """``messages`` read as a turn, or a 422 :class:`ApiError` at ``prefix + messages...``."""
    try:
        return parse_turn(messages, classifier.config.turns)
    except TurnError as exc:
        loc = format_loc((*prefix, "messages", *exc.path))
        raise ApiError(
            422,
            "invalid_request",
            "messages is not a known message format",
            [(loc, exc.detail)],
        ) from None


def one_input(data: Any, text: str = "text") -> Any:
    """A ``mode="before"`` check: ``text``/``messages`` present are never null."""
    if isinstance(data, dict):
        for key in (text, "messages"):
            if key in data and data[key] is None:
                raise ValueError(
                    f"'{key}' must not be null; give exactly one of '{text}' and 'messages'"
                )
    return data


ONE_OF_TEXT_OR_MESSAGES: dict[str, Any] = {
    "oneOf": [{"required": ["text"]}, {"required": ["messages"]}]
}
"""The object-level rule, for the schema (``json_schema_extra``)."""

Messages = Annotated[list[Any] | dict[str, Any] | None, WithJsonSchema(PAYLOAD_SCHEMA)]
"""A request's ``messages`` field; described by :data:`smista.core.turns.PAYLOAD_SCHEMA`."""

OptionalText = Annotated[StrictStr | None, WithJsonSchema({"type": "string"})]
"""A ``text`` field that may be absent (when ``messages`` is given) but never null."""
