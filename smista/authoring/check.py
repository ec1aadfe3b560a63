"""``smista check`` without the I/O: TOML text in, findings out.

Takes the text of a file and its name and returns :class:`Finding` records
(file, rule index, key path, severity, code, message). A config file gets
structural validation of every registered section (the same messages as
loading it) and, when it has ``[classification]``, the lints of
:mod:`smista.authoring.lints`; a golden case file (``[[cases]]``) gets structural
validation. Never reads files, the environment or a model; never raises for a
bad document (problems are findings).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from typing import Any, NamedTuple

from smista.authoring.lints import Severity, lint_classification
from smista.config._toml import InvalidToml, parse_toml
from smista.core.errors import ConfigError

__all__ = ["Finding", "Severity", "check_document", "check_text", "failed", "summary"]

_RULE_IN_KEY = re.compile(r"^classification\.rules\[(\d+)\]")


class Finding(NamedTuple):
    """One problem found in one file."""

    file: str
    rule: int | None
    key: str
    severity: Severity
    code: str
    message: str

    def to_json(self) -> dict[str, object]:
        return {
            "file": self.file,
            "rule": self.rule,
            "key": self.key,
            "severity": self.severity.value,
            "code": self.code,
            "message": self.message,
        }

    def render(self) -> str:
        where = f"{self.file}: {self.key}" if self.key else self.file
        return f"{where}: {self.severity.value}[{self.code}]: {self.message}"


def _rule_of(key: str) -> int | None:
    match = _RULE_IN_KEY.match(key)
    return int(match.group(1)) if match else None


def _from_config_error(exc: ConfigError, file: str) -> list[Finding]:
    return [
        Finding(file, _rule_of(key), key, Severity.ERROR, "invalid", message)
        for key, message in exc.errors
    ]


def _info(file: str, code: str, message: str, key: str = "") -> Finding:
    return Finding(file, None, key, Severity.INFO, code, message)


def check_text(text: str, file: str, *, known_contexts: Collection[str] = ()) -> list[Finding]:
    """Findings for the TOML ``text`` of ``file`` (a config or a golden case file)."""
    try:
        data = parse_toml(text)
    except InvalidToml as exc:
        return [Finding(file, None, "", Severity.ERROR, "invalid", str(exc))]
    return check_document(data, file, known_contexts=known_contexts)


def check_document(
    data: Mapping[str, Any], file: str, *, known_contexts: Collection[str] = ()
) -> list[Finding]:
    """Findings for a parsed TOML document."""
    if "cases" in data:
        return _check_cases(data, file)
    from smista.config.load import SECTIONS, validate_section
    from smista.config.sections import SECTION_MODELS

    unknown = [key for key in data if key not in SECTIONS]
    if unknown:
        expected = ", ".join(f"[{s}]" for s in SECTIONS)
        return [
            Finding(
                file,
                None,
                key,
                Severity.ERROR,
                "invalid",
                f"unknown table; expected one of {expected} (or [[cases]] in a case file)",
            )
            for key in unknown
        ]
    findings: list[Finding] = []
    models: dict[str, Any] = {}
    for section in SECTIONS:
        if section not in data:
            continue
        model = SECTION_MODELS.get(section)
        if model is None:
            findings.append(
                _info(
                    file,
                    "unchecked-section",
                    f"[{section}] is not validated by this version of smista check",
                    section,
                )
            )
            continue
        try:
            models[section] = validate_section(model, data[section], section, file)
        except ConfigError as exc:
            findings.extend(_from_config_error(exc, file))
            continue
        # Sections with semantic checks beyond structure (routing, decision).
        problems = getattr(models[section], "problems", None)
        if callable(problems):
            findings.extend(
                Finding(file, None, f"{section}.{key}", Severity.ERROR, "invalid", message)
                for key, message in problems()
            )
    config = models.get("classification")
    if config is not None:
        from smista.config.load import with_model

        try:  # (as loading does: the model file is read, and the labels rules read checked)
            config = with_model(config, file)
        except ConfigError as exc:
            findings.extend(_from_config_error(exc, file))
        findings.extend(
            Finding(file, lint.rule, lint.key, lint.severity, lint.code, lint.message)
            for lint in lint_classification(config, known_contexts=known_contexts)
        )
    elif "classification" not in data:
        findings.append(
            _info(
                file,
                "no-classification",
                "no [classification] table: classification lints skipped",
            )
        )
    return findings


def _check_cases(data: Mapping[str, Any], file: str) -> list[Finding]:
    from smista.authoring.golden import cases_from_data

    try:
        cases = cases_from_data(data, file)
    except ConfigError as exc:
        return _from_config_error(exc, file)
    return [
        _info(
            file,
            "case-file",
            f"golden case file: {len(cases)} case(s), structure valid",
        )
    ]


def failed(findings: Iterable[Finding], *, strict: bool = False) -> bool:
    """Whether ``findings`` fail the check (errors; warnings too when ``strict``)."""
    failing = {Severity.ERROR, Severity.WARNING} if strict else {Severity.ERROR}
    return any(f.severity in failing for f in findings)


def summary(findings: Iterable[Finding], files: int) -> str:
    """``2 file(s): 1 error(s), 0 warning(s), 3 note(s)``."""
    counts = dict.fromkeys(Severity, 0)
    for finding in findings:
        counts[finding.severity] += 1
    return (
        f"{files} file(s): {counts[Severity.ERROR]} error(s), "
        f"{counts[Severity.WARNING]} warning(s), {counts[Severity.INFO]} note(s)"
    )
