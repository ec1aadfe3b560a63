"""Reading configuration files (TOML) into validated models.

I/O edge: reads files; imports the core, never the reverse. A config file is a
TOML document whose top-level tables are the sections smista knows
(``classification``, ``routing``, ``decision``, ``tiers``); anything else is an
error, so nothing a user wrote is silently ignored. Every error names the file,
the TOML key path (``classification.rules[2].keywrods``) and what was expected.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from smista.config._files import (
    CONFIG_LIMIT,
    MODEL_LIMIT,
    InputFileError,
    model_path,
    read_bounded,
    unreadable,
)
from smista.config._toml import InvalidToml, parse_toml
from smista.core.errors import ConfigError
from smista.core.rules import ClassificationConfig

__all__ = [
    "SECTIONS",
    "config_error_from_validation",
    "format_loc",
    "load_config",
    "load_document",
    "parse_config",
    "parse_document",
    "read_source",
    "validate_section",
    "with_model",
]

SECTIONS: tuple[str, ...] = ("classification", "routing", "decision", "tiers")
"""Top-level tables a smista config file may hold."""

M = TypeVar("M", bound=BaseModel)


def format_loc(loc: Sequence[str | int]) -> str:
    """``("classification", "rules", 2, "keywrods")`` -> ``classification.rules[2].keywrods``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def read_source(path: str | Path) -> tuple[str, bytes]:
    """A TOML file's text and the exact bytes it was decoded from.

    A missing, unreadable or non-UTF-8 file is a :class:`ConfigError` naming it.
    """
    name = str(path)
    if not name:
        raise ConfigError([("", "empty file name, expected the path of a TOML file")], "''")
    try:
        raw = read_bounded(path, CONFIG_LIMIT)
    except IsADirectoryError:
        raise ConfigError([("", "is a directory, expected a TOML file")], name) from None
    except InputFileError as exc:
        raise ConfigError([("", f"{exc.strerror}, expected a TOML file")], name) from None
    except OSError as exc:
        raise ConfigError([("", unreadable(exc))], name) from None
    try:
        return raw.decode("utf-8"), raw
    except UnicodeDecodeError as exc:
        raise ConfigError(
            [("", f"not valid UTF-8 (byte {exc.start}); TOML files must be UTF-8")], name
        ) from None


def load_document(path: str | Path, *, known_tables_only: bool = True) -> dict[str, Any]:
    """Read and parse a TOML file, checking its top-level tables (see :func:`parse_document`)."""
    name = str(path)
    text, _ = read_source(path)
    return parse_document(text, name, known_tables_only=known_tables_only)


def parse_document(
    text: str, source: str | None = None, *, known_tables_only: bool = True
) -> dict[str, Any]:
    """Parse TOML text.

    With ``known_tables_only`` (a smista config file) every top-level table
    must be one of :data:`SECTIONS`. Without it (reading only the
    ``[classification]`` of a host's larger config.toml, which also holds
    ``[router]``, ``[tools]``, ``[privacy]`` ...) other tables are left to
    their owners.
    """
    try:
        data = parse_toml(text)
    except InvalidToml as exc:
        raise ConfigError([("", str(exc))], source) from None
    if not known_tables_only:
        return data
    unknown = [key for key in data if key not in SECTIONS]
    if unknown:
        expected = ", ".join(f"[{s}]" for s in SECTIONS)
        raise ConfigError(
            [(key, f"unknown table; expected one of {expected}") for key in unknown], source
        )
    return data


def validate_section(
    model: type[M],
    data: Any,
    section: str,
    source: str | None = None,
) -> M:
    """Validate one section of a document with ``model``; errors carry key paths."""
    if not isinstance(data, Mapping):
        raise ConfigError([(section, f"expected a table, got {_kind(data)}")], source)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise config_error_from_validation(exc, model, (section,), source) from None


def parse_config(text: str, source: str | None = None) -> ClassificationConfig:
    """The ``[classification]`` section of TOML text (other top-level tables are not read)."""
    return _classification(parse_document(text, source, known_tables_only=False), source)


def load_config(path: str | Path) -> ClassificationConfig:
    """The ``[classification]`` section of a TOML file: a rules file, a smista config, or
    a host's larger config.toml whose other tables belong to the host."""
    return _classification(load_document(path, known_tables_only=False), str(path))


def _classification(data: Mapping[str, Any], source: str | None) -> ClassificationConfig:
    if "classification" not in data:
        raise ConfigError(
            [("", "expected a [classification] table (with [[classification.rules]])")],
            source,
        )
    config = validate_section(
        ClassificationConfig, data["classification"], "classification", source
    )
    return with_model(config, source)


def with_model(config: ClassificationConfig, source: str | None) -> ClassificationConfig:
    """Read ``[classification.model]``'s file; check every label a rule reads the model
    for (the kinds that ``reads_model``: ``predicted``, ``likeliest``) against it."""
    from smista.config.rulecache import digest
    from smista.core.conditions.registry import model_conditions
    from smista.core.textmodel import TextModel

    table = config.model
    users = [
        (i, key, value)
        for i, rule in enumerate(config.rules)
        for key, value in model_conditions(rule)
    ]
    if table is None:
        if users:
            at = f"classification.rules[{users[0][0]}].{users[0][1]}"
            raise ConfigError(
                [(at, "needs a [classification.model] table naming a model file")], source
            )
        return config
    where = "classification.model.file"
    if not table.file:
        raise ConfigError([(where, "the model file name is empty")], source)
    path = model_path(table.file, source)
    try:
        raw = read_bounded(path, MODEL_LIMIT)
    except IsADirectoryError:
        raise ConfigError(
            [(where, f"{path} is a directory, expected a model file")], source
        ) from None
    except InputFileError as exc:
        raise ConfigError(
            [(where, f"{path}: {exc.strerror}, expected a model file")], source
        ) from None
    except OSError as exc:
        raise ConfigError([(where, f"{path}: {unreadable(exc)}")], source) from None
    import json

    try:
        model = TextModel.from_data(json.loads(raw.decode("utf-8")))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise ConfigError([(where, f"{path}: not a JSON model file ({exc})")], source) from None
    except ValueError as exc:
        raise ConfigError([(where, f"{path}: {exc}")], source) from None
    for label in table.min_probability_by_label:
        if label.strip().lower() not in model.labels:
            labels = ", ".join(model.labels)
            at = f"classification.model.min_probability_by_label.{label}"
            raise ConfigError([(at, f"unknown label {label!r}; the model gives {labels}")], source)
    for i, key, value in users:
        for j, label in enumerate(value):
            if label.strip().lower() not in model.labels:
                labels = ", ".join(model.labels)
                at = f"classification.rules[{i}].{key}[{j}]"
                raise ConfigError(
                    [(at, f"unknown label {label!r}; the model gives {labels}")], source
                )
    return config.model_copy(update={"model": table.with_weights(model, table.file, digest(raw))})


# ---------------------------------------------------------------------------
# pydantic errors -> readable messages


def config_error_from_validation(
    exc: ValidationError,
    model: type[BaseModel],
    prefix: Sequence[str | int] = (),
    source: str | None = None,
    *,
    json_terms: bool = False,
) -> ConfigError:
    """Turn a pydantic ``ValidationError`` into a :class:`ConfigError` with key paths.

    Messages speak TOML (``a table``); ``json_terms`` words them for a JSON
    document instead (``an object``).
    """
    errors: list[tuple[str, str]] = []
    for err in exc.errors(include_url=False):
        loc = tuple(p for p in err["loc"] if not _is_internal_loc(p))
        message = _message(err, model, loc)
        if json_terms:
            message = message.replace("a table", "an object")
        errors.append((format_loc((*prefix, *loc)), message))
    return ConfigError(errors, source)


def _is_internal_loc(part: str | int) -> bool:
    # pydantic adds tags such as "function-after[...]" or union member names.
    return isinstance(part, str) and ("[" in part or part.startswith("function-"))


_KIND = {
    bool: "a boolean",
    int: "an integer",
    float: "a float",
    str: "a string",
    list: "an array",
    tuple: "an array",
    dict: "a table",
}


def _kind(value: object) -> str:
    for typ, word in _KIND.items():
        if type(value) is typ:
            return word
    return type(value).__name__


def _spelt(value: object) -> str:
    """``value`` as TOML and JSON write it where they differ from Python (``true``,
    ``false``, ``null``), else as Python writes it (strings quoted, as messages quote)."""
    if value is True or value is False:
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_spelt(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_spelt(v)}" for k, v in value.items()) + "}"
    return repr(value)


def _got(value: object) -> str:
    text = _spelt(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{_kind(value)} {text}" if isinstance(value, (list, dict)) else text


def _message(err: Any, model: type[BaseModel], loc: tuple[str | int, ...]) -> str:
    kind = err["type"]
    value = err.get("input")
    ctx = err.get("ctx") or {}
    if kind == "extra_forbidden":
        allowed = _allowed_keys(model, loc[:-1])
        hint = f"; expected one of: {', '.join(allowed)}" if allowed else ""
        return f"unknown key{hint}"
    if kind == "missing":
        return "missing required key"
    if kind == "enum":
        return f"expected one of {ctx.get('expected', '?')}, got {_got(value)}"
    if kind == "literal_error":
        return f"expected {ctx.get('expected', '?')}, got {_got(value)}"
    if kind in {"int_type", "int_parsing", "int_from_float"}:
        return f"expected an integer, got {_got(value)}"
    if kind in {"greater_than_equal", "less_than_equal", "greater_than", "less_than"}:
        bounds = {
            "greater_than_equal": f">= {ctx.get('ge')}",
            "less_than_equal": f"<= {ctx.get('le')}",
            "greater_than": f"> {ctx.get('gt')}",
            "less_than": f"< {ctx.get('lt')}",
        }[kind]
        return f"expected a number {bounds}, got {_got(value)}"
    if kind == "string_type":
        return f"expected a string, got {_got(value)}"
    if kind in {"bool_type", "bool_parsing"}:
        return f"expected a boolean, got {_got(value)}"
    if kind in {"float_type", "float_parsing", "finite_number"}:
        return f"expected a number, got {_got(value)}"
    if kind in {"list_type", "tuple_type", "set_type", "frozen_set_type"}:
        return f"expected an array, got {_got(value)}"
    if kind in {"model_type", "model_attributes_type", "dict_type", "mapping_type"}:
        return f"expected a table, got {_got(value)}"
    message = str(err.get("msg", "invalid value"))
    if message.startswith("Value error, "):
        message = message[len("Value error, ") :]
    return message[:1].lower() + message[1:]


def _allowed_keys(model: type[BaseModel], loc: tuple[str | int, ...]) -> list[str]:
    """Field names of the model found at ``loc`` inside ``model`` (best effort)."""
    target: Any = model
    for part in loc:
        target = _unwrap(target)
        if isinstance(part, int):
            args = typing.get_args(target)
            target = args[0] if args else None
        elif isinstance(target, type) and issubclass(target, BaseModel):
            field = target.model_fields.get(part)
            target = field.annotation if field is not None else None
        elif typing.get_origin(target) in (dict, Mapping):
            args = typing.get_args(target)
            target = args[1] if len(args) == 2 else None
        else:
            return []
    target = _unwrap(target)
    if isinstance(target, type) and issubclass(target, BaseModel):
        return [f.alias or name for name, f in target.model_fields.items()]
    return []


def _unwrap(annotation: Any) -> Any:
    """Strip ``Annotated`` and ``Optional`` wrappers down to the model or container type."""
    while True:
        origin = typing.get_origin(annotation)
        if origin is typing.Annotated:
            annotation = typing.get_args(annotation)[0]
        elif origin in (typing.Union, types.UnionType):
            members = [a for a in typing.get_args(annotation) if a is not type(None)]
            models = [a for a in members if isinstance(a, type) and issubclass(a, BaseModel)]
            annotation = models[0] if models else members[0]
        else:
            return annotation
