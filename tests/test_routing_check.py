"""smista check and smista schema know [routing] and [decision]."""

from __future__ import annotations

import json
import tomllib

import jsonschema

from smista.authoring.check import check_text
from smista.config.schema import config_schema

CONFIG = """
[routing.default]
model = "ollama/mock-local"
[[routing.rules]]
name = "auth"
intent = "edit"
paths = ["src/auth/**"]
complexity = "complex"
model = "anthropic/claude-sonnet"

[decision]
enabled = true
provider = "openai"
base_url = "http://127.0.0.1:11434/v1"
model = "qwen"

[decision.switch]
simple = "a/s"
standard = "a/m"
complex = "a/l"
"""


def test_check_validates_routing_and_decision_semantics() -> None:
    """Invalid globs, duplicate names and an incomplete enabled stage are errors."""
    text = (
        '[[routing.rules]]\nname = "r"\npaths = ["["]\nmodel = "a/b"\n'
        '[[routing.rules]]\nname = "r"\nmodel = "a/c"\n'
        "[decision]\nenabled = true\n"
    )
    findings = [(f.key, f.severity.value, f.code) for f in check_text(text, "c.toml")]
    assert [f for f in findings if f[1] == "error"] == [
        ("routing.rules[0].paths[0]", "error", "invalid"),
        ("routing.rules[1].name", "error", "invalid"),
        ("decision.provider", "error", "invalid"),
        ("decision.base_url", "error", "invalid"),
        ("decision.model", "error", "invalid"),
    ]


def test_check_reports_structure_errors_with_key_paths() -> None:
    """A misspelt routing key is an error at its path."""
    findings = check_text('[routing.default]\nmodle = "a/b"\n', "c.toml")
    keys = [f.key for f in findings if f.severity.value == "error"]
    assert "routing.default.modle" in keys


def test_valid_routing_and_decision_pass_check() -> None:
    """No errors (and the sections are no longer 'unchecked')."""
    findings = check_text(CONFIG, "c.toml")
    assert [f for f in findings if f.severity.value == "error"] == []
    assert "unchecked-section" not in [f.code for f in findings]


def test_schema_describes_routing_and_decision() -> None:
    """The config schema accepts a full routing/decision config and rejects a bad tier."""
    schema = config_schema()
    validator = jsonschema.Draft202012Validator(schema)
    assert list(validator.iter_errors(tomllib.loads(CONFIG))) == []
    bad = tomllib.loads(CONFIG.replace('complexity = "complex"', 'complexity = "huge"'))
    assert list(validator.iter_errors(bad)) != []
    assert "RoutingPolicy" in json.dumps(schema)
    assert "DecisionConfig" in json.dumps(schema)
