"""Golden cases: labelled prompts a rule file must classify as expected.

Edge module: reads case files (TOML ``[[cases]]`` tables or JSONL, one object a
line) into :class:`GoldenCase` models, and runs them against a
:class:`~smista.core.classifier.Classifier`. Errors name the file and the key path
(``cases[3].intent`` or ``line 7.intent``) like configuration errors do.
Never calls a model; running cases is pure.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, JsonValue, StrictInt, StrictStr, field_validator

from smista.config._files import CASES_LIMIT, read_text, unreadable
from smista.config._toml import InvalidToml, parse_toml
from smista.core.classifier import Classifier
from smista.core.errors import ConfigError
from smista.core.intent import Confidence, TaskIntent
from smista.core.result import Classification

__all__ = [
    "CaseOutcome",
    "GoldenCase",
    "LabelledCase",
    "cases_from_data",
    "load_cases",
    "parse_cases",
    "run_case",
    "run_cases",
]


class GoldenCase(BaseModel):
    """One labelled request and what the rules must answer for it.

    ``command`` is an explicit intent (read case-insensitively, as on the
    command line); ``contexts`` names available context kinds; ``intent`` is
    the expected intent, and ``matched_rule``/``confidence`` are checked only
    when given. ``name`` labels the case in reports; ``id`` (any JSON value,
    as in ``smista batch`` input, so labelled batch data is a case file) labels
    it when there is no name.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: StrictStr
    intent: TaskIntent
    command: TaskIntent | None = None
    contexts: tuple[StrictStr, ...] = ()
    matched_rule: StrictInt | None = Field(default=None, ge=0)
    confidence: Confidence | None = None
    name: StrictStr | None = None
    id: JsonValue = None

    @field_validator("command", mode="before")
    @classmethod
    def _parse_command(cls, value: object) -> object:
        if isinstance(value, str):
            return TaskIntent.parse(value)
        return value


class LabelledCase(NamedTuple):
    """A case and where it came from (``cases[3]``, ``line 7`` or its name)."""

    where: str
    case: GoldenCase


class CaseOutcome(NamedTuple):
    """The result of running one case: what came back and what differed."""

    where: str
    case: GoldenCase
    result: Classification
    problems: tuple[str, ...]

    @property
    def passed(self) -> bool:
        return not self.problems


def _validate(data: Any, loc: str, source: str | None) -> GoldenCase:
    from pydantic import ValidationError

    from smista.config.load import config_error_from_validation

    if not isinstance(data, Mapping):
        raise ConfigError([(loc, "expected a table (object) with text and intent")], source)
    try:
        return GoldenCase.model_validate(data)
    except ValidationError as exc:
        raise config_error_from_validation(exc, GoldenCase, (loc,), source) from None
    except ValueError as exc:  # TaskIntent.parse on ``command``
        raise ConfigError([(f"{loc}.command", str(exc))], source) from None


def _label(case: GoldenCase, loc: str) -> str:
    if case.name:
        return f"{loc} ({case.name})"
    if case.id is not None:
        return f"{loc} (id {json.dumps(case.id, ensure_ascii=False)})"
    return loc


def cases_from_data(data: Any, source: str | None = None) -> list[LabelledCase]:
    """Cases from a parsed TOML document ``{"cases": [...]}``."""
    if not isinstance(data, Mapping) or "cases" not in data:
        raise ConfigError([("", "expected [[cases]] tables (a golden case file)")], source)
    extra = [key for key in data if key != "cases"]
    if extra:
        raise ConfigError(
            [(key, "unknown table; expected only [[cases]]") for key in extra], source
        )
    rows = data["cases"]
    if not isinstance(rows, list):
        raise ConfigError([("cases", "expected an array of tables ([[cases]])")], source)
    out: list[LabelledCase] = []
    for i, row in enumerate(rows):
        loc = f"cases[{i}]"
        case = _validate(row, loc, source)
        out.append(LabelledCase(_label(case, loc), case))
    return out


def json_line(line: str, loc: str, source: str | None) -> Any:
    """One JSONL line's value; a :class:`ConfigError` at ``loc`` ("line 3") when it
    is not JSON or is nested too deeply for the decoder. (Shared with
    :mod:`smista.authoring.evaluate`'s annotated lines; not public API.)"""
    try:
        return json.loads(line)
    except json.JSONDecodeError as exc:
        raise ConfigError([(loc, f"invalid JSON: {exc.msg}")], source) from None
    except RecursionError:
        raise ConfigError([(loc, "invalid JSON: nested too deeply")], source) from None


def _jsonl_cases(text: str, source: str | None) -> list[LabelledCase]:
    out: list[LabelledCase] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        loc = f"line {number}"
        case = _validate(json_line(line, loc, source), loc, source)
        out.append(LabelledCase(_label(case, loc), case))
    return out


def parse_cases(
    text: str, source: str | None = None, *, jsonl: bool | None = None
) -> list[LabelledCase]:
    """Cases from TOML or JSONL text (``jsonl=None``: guess from the suffix)."""
    if jsonl is None:
        jsonl = source is not None and source.lower().endswith((".jsonl", ".ndjson", ".json"))
    if jsonl:
        return _jsonl_cases(text, source)
    try:
        data = parse_toml(text)
    except InvalidToml as exc:
        raise ConfigError([("", str(exc))], source) from None
    return cases_from_data(data, source)


def load_cases(path: str | Path) -> list[LabelledCase]:
    """Cases from a ``.toml`` or ``.jsonl`` file."""
    return parse_cases(read_case_file(path), str(path))


def read_case_file(path: str | Path) -> str:
    """The text of a case file; unreadable or not UTF-8 is a :class:`ConfigError` naming it."""
    try:
        return read_text(path, CASES_LIMIT)
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError([("", unreadable(exc))], str(path)) from None


def run_case(classifier: Classifier, case: GoldenCase, where: str = "") -> CaseOutcome:
    """Classify ``case`` and list every expectation it misses."""
    result = classifier.classify(case.text, command=case.command, contexts=case.contexts)
    problems: list[str] = []
    if result.intent != case.intent:
        problems.append(f"expected intent {case.intent.value}, got {result.intent.value}")
    if case.matched_rule is not None and result.matched_rule != case.matched_rule:
        problems.append(f"expected matched_rule {case.matched_rule}, got {result.matched_rule}")
    if case.confidence is not None and result.confidence != case.confidence:
        got = result.confidence.value if result.confidence else None
        problems.append(f"expected confidence {case.confidence.value}, got {got}")
    return CaseOutcome(where, case, result, tuple(problems))


def run_cases(
    classifier: Classifier, cases: Iterable[LabelledCase] | Sequence[LabelledCase]
) -> list[CaseOutcome]:
    """Run every case, in order."""
    return [run_case(classifier, case, where) for where, case in cases]
