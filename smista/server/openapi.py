"""The service's OpenAPI 3.1 document, written from the pydantic models.

Pure (builds a dict). Every request body and every response, errors included,
is described by the JSON Schema of the model that produces or validates it
(``model_json_schema``), so the document cannot drift from the code. The
configured limits appear as ``maxLength`` / ``maxItems``, the bearer
scheme appears only when the service requires a token, and the 421 of the
``Host`` check only when the service has one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from smista import __version__
from smista.server.models import (
    BatchRequest,
    BatchResponse,
    ClassifyAnswer,
    ClassifyRequest,
    ErrorResponse,
    Health,
    RulesInfo,
)
from smista.server.plugins import Endpoint
from smista.server.settings import ServerSettings

__all__ = ["RESPONSE_HEADERS", "build_openapi"]

RESPONSE_HEADERS: dict[str, str] = {
    "X-Request-Id": "The request's id, as in the service's logs.",
    "X-Smista-Rules-Sha256": "SHA-256 of the rules file that answered.",
}
"""Headers on every answer of a ``/v1`` endpoint that used the rules."""

_REF = "#/components/schemas/{model}"

Mode = Literal["validation", "serialization"]


def _error(description: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": _REF.format(model="ErrorResponse")}}},
    }


def _ok(ref: Mapping[str, Any], description: str, *, rules_headers: bool) -> dict[str, Any]:
    headers = dict(RESPONSE_HEADERS) if rules_headers else {}
    out: dict[str, Any] = {
        "description": description,
        "content": {"application/json": {"schema": dict(ref)}},
    }
    if headers:
        out["headers"] = {
            name: {"description": text, "required": True, "schema": {"type": "string"}}
            for name, text in headers.items()
        }
    return out


def _operation(
    op_id: str,
    summary: str,
    ok: dict[str, Any],
    *,
    body: Mapping[str, Any] | None,
    secured: bool,
    host_checked: bool,
    extra_errors: Mapping[int, str] = {},
) -> dict[str, Any]:
    responses: dict[str, Any] = {"200": ok}
    if body is not None:
        responses["400"] = _error("The body is not valid JSON.")
    if secured:
        responses["401"] = _error("Missing or wrong bearer token.")
    if body is not None:
        responses["413"] = _error("The body is larger than the service accepts.")
        responses["415"] = _error("The body is not sent as JSON (Content-Type: application/json).")
    if host_checked:
        responses["421"] = _error(
            "The Host header names a host this service does not answer (on loopback: "
            "localhost, 127.0.0.1, [::1] and the --allow-host names)."
        )
    if body is not None:
        responses["422"] = _error(
            "The body does not match the request schema (a prompt or batch over "
            "its limit included)."
        )
    for status, text in sorted(extra_errors.items()):
        known = responses.get(str(status))
        responses[str(status)] = _error(f"{known['description']} Or {text}" if known else text)
    responses["500"] = _error("An internal error (no details are given).")
    op: dict[str, Any] = {
        "operationId": op_id,
        "summary": summary,
        "responses": responses,
    }
    if body is not None:
        op["requestBody"] = {
            "required": True,
            "content": {"application/json": {"schema": body}},
        }
    if secured:
        op["security"] = [{"bearerAuth": []}]
    return op


def build_openapi(settings: ServerSettings, endpoints: Sequence[Endpoint] = ()) -> dict[str, Any]:
    """The OpenAPI document of a service running with ``settings`` and ``endpoints``."""
    models: list[tuple[type[BaseModel], Mode]] = [
        (ClassifyRequest, "validation"),
        (BatchRequest, "validation"),
        (ClassifyAnswer, "serialization"),
        (BatchResponse, "serialization"),
        (Health, "serialization"),
        (RulesInfo, "serialization"),
        (ErrorResponse, "serialization"),
    ]
    for ep in endpoints:
        models += [
            (ep.request_model, "validation"),
            (ep.response_model, "serialization"),
        ]
    refs, defs = models_json_schema(models, ref_template=_REF)
    schemas: dict[str, Any] = defs.get("$defs", {})

    def ref(model: type[BaseModel], mode: Mode) -> Mapping[str, Any]:
        return refs[(model, mode)]

    request_schema = schemas[str(ref(ClassifyRequest, "validation")["$ref"]).rsplit("/", 1)[1]]
    text_prop = request_schema["properties"]["text"]
    for option in text_prop.get("anyOf", [text_prop]):
        if option.get("type") == "string":
            option["maxLength"] = settings.max_prompt_chars
    batch_schema = schemas[str(ref(BatchRequest, "validation")["$ref"]).rsplit("/", 1)[1]]
    batch_schema["properties"]["items"]["maxItems"] = settings.max_batch

    for ep in endpoints:
        name = str(ref(ep.request_model, "validation")["$ref"]).rsplit("/", 1)[1]
        for field in ep.prompt_fields:
            prop = schemas[name]["properties"][field]
            for option in prop.get("anyOf", [prop]):
                if option.get("type") == "string":
                    option["maxLength"] = settings.max_prompt_chars

    secured = settings.token is not None
    checked = settings.host_check() is not None
    paths: dict[str, Any] = {
        "/v1/classify": {
            "post": _operation(
                "classify",
                "Classify one request (the library's wire JSON; plus 'turn' for messages).",
                _ok(
                    ref(ClassifyAnswer, "serialization"),
                    "The classification.",
                    rules_headers=True,
                ),
                body=ref(ClassifyRequest, "validation"),
                secured=secured,
                host_checked=checked,
            )
        },
        "/v1/classify/batch": {
            "post": _operation(
                "classify_batch",
                "Classify several requests with one rule set; results in order.",
                _ok(
                    ref(BatchResponse, "serialization"),
                    "One result per item.",
                    rules_headers=True,
                ),
                body=ref(BatchRequest, "validation"),
                secured=secured,
                host_checked=checked,
            )
        },
    }
    for ep in endpoints:
        paths[ep.path] = {
            "post": _operation(
                ep.name,
                ep.summary,
                _ok(
                    ref(ep.response_model, "serialization"),
                    "The answer.",
                    rules_headers=True,
                ),
                body=ref(ep.request_model, "validation"),
                secured=secured,
                host_checked=checked,
                extra_errors=ep.error_statuses,
            )
        }
    paths["/v1/rules"] = {
        "get": _operation(
            "rules",
            "The rule set in service: source file, hash, load time, rule count.",
            _ok(ref(RulesInfo, "serialization"), "The rule set.", rules_headers=True),
            body=None,
            secured=secured,
            host_checked=checked,
        )
    }
    paths["/healthz"] = {
        "get": _operation(
            "healthz",
            "Liveness: the service is up (never needs a token).",
            _ok(ref(Health, "serialization"), "Up.", rules_headers=False),
            body=None,
            secured=False,
            host_checked=checked,
        )
    }
    doc: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {
            "title": "smista",
            "version": __version__,
            "description": "Intent classification for coding-agent requests.",
        },
        "paths": paths,
        "components": {"schemas": schemas},
    }
    if secured:
        doc["components"]["securitySchemes"] = {"bearerAuth": {"type": "http", "scheme": "bearer"}}
    return doc
