"""The JSON Schema of a smista config file (and of a golden case file).

Pure: builds dictionaries from the pydantic models; never performs I/O. The
top-level object has one property per section in :data:`smista.config.load.SECTIONS`:
a section registered in :data:`smista.config.sections.SECTION_MODELS` is described by
its model, any other by a plain table, so registering a model is all it takes
to describe a new section. :func:`to_draft4` rewrites a Draft 2020-12 schema
into the Draft 4 dialect that Taplo (Even Better TOML) understands.
"""

from __future__ import annotations

import copy
from typing import Any

from pydantic import BaseModel

__all__ = ["DRAFT4", "DRAFT_2020_12", "cases_schema", "config_schema", "to_draft4"]

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
DRAFT4 = "http://json-schema.org/draft-04/schema#"


def _model_schemas(
    models: dict[str, type[BaseModel]],
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(property name -> ``$ref`` schema, shared ``$defs``) for ``models``."""
    defs: dict[str, Any] = {}
    props: dict[str, Any] = {}
    for name, model in models.items():
        schema = model.model_json_schema(ref_template="#/$defs/{model}")
        defs.update(schema.pop("$defs", {}))
        title = str(schema.get("title", model.__name__))
        defs[title] = schema
        props[name] = {"$ref": f"#/$defs/{title}"}
    return props, defs


def config_schema(*, draft4: bool = False) -> dict[str, Any]:
    """The schema of a config file: every known section, nothing else."""
    from smista.config.load import SECTIONS
    from smista.config.sections import SECTION_MODELS

    known = {name: SECTION_MODELS[name] for name in SECTIONS if name in SECTION_MODELS}
    props, defs = _model_schemas(known)
    properties: dict[str, Any] = {}
    for name in SECTIONS:
        properties[name] = props.get(
            name,
            {
                "type": "object",
                "description": f"The [{name}] section (not described yet).",
            },
        )
    schema: dict[str, Any] = {
        "$schema": DRAFT_2020_12,
        "title": "smista configuration",
        "description": (
            "A smista config or rules file: top-level tables "
            + ", ".join(f"[{s}]" for s in SECTIONS)
            + "."
        ),
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
        "$defs": dict(sorted(defs.items())),
    }
    return to_draft4(schema) if draft4 else schema


def cases_schema(*, draft4: bool = False) -> dict[str, Any]:
    """The schema of a golden case file (``[[cases]]`` tables)."""
    from smista.authoring.golden import GoldenCase

    props, defs = _model_schemas({"case": GoldenCase})
    schema: dict[str, Any] = {
        "$schema": DRAFT_2020_12,
        "title": "smista golden cases",
        "description": "Labelled prompts for `smista test` and `smista eval`.",
        "type": "object",
        "properties": {"cases": {"type": "array", "items": props["case"]}},
        "required": ["cases"],
        "additionalProperties": False,
        "$defs": dict(sorted(defs.items())),
    }
    return to_draft4(schema) if draft4 else schema


def to_draft4(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` (Draft 2020-12, as pydantic writes it) rewritten for Draft 4."""
    out = _draft4(copy.deepcopy(schema))
    out["$schema"] = DRAFT4
    return out  # type: ignore[no-any-return]


def _draft4(node: Any) -> Any:
    if isinstance(node, list):
        return [_draft4(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "$defs":
            out["definitions"] = {k: _draft4(v) for k, v in value.items()}
        elif key == "$ref" and isinstance(value, str):
            out["$ref"] = value.replace("#/$defs/", "#/definitions/")
        elif key == "const":
            out["enum"] = [value]
        elif key in ("exclusiveMinimum", "exclusiveMaximum") and not isinstance(value, bool):
            out["minimum" if key == "exclusiveMinimum" else "maximum"] = value
            out[key] = True
        elif key == "prefixItems":
            out["items"] = _draft4(value)
        elif key == "items" and value is False:
            out["additionalItems"] = False
        elif key == "examples":
            continue
        else:
            out[key] = _draft4(value)
    if "$ref" in out and len(out) > 1:
        ref = out.pop("$ref")
        out = {"allOf": [{"$ref": ref}], **out}
    return out
