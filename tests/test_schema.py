"""smista schema: committed files are current, accept shipped packs, reject broken."""

from __future__ import annotations

import json
import subprocess
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from smista.cli.schema import render
from smista.config.load import SECTIONS
from smista.config.schema import DRAFT4, DRAFT_2020_12, config_schema, to_draft4

ROOT = Path(__file__).resolve().parent.parent
RunCli = Callable[..., subprocess.CompletedProcess[bytes]]

SCHEMA_DIR = ROOT / "schema"
COMMITTED = {
    "smista.schema.json": {},
    "smista.draft4.schema.json": {"draft4": True},
    "smista.cases.schema.json": {"cases": True},
    "smista.cases.draft4.schema.json": {"cases": True, "draft4": True},
}
PACKS = sorted(p for p in (ROOT / "rules").glob("*.toml") if not p.name.endswith(".cases.toml"))

CASE_FILES = sorted((ROOT / "rules").glob("*.cases.toml"))


def validators(name: str) -> list[Any]:
    """Draft 2020-12 and Draft 4 validators for the config or the case schema."""
    stem = "smista.cases" if name == "cases" else "smista"
    return [
        jsonschema.Draft202012Validator(
            json.loads((SCHEMA_DIR / f"{stem}.schema.json").read_text())
        ),
        jsonschema.Draft4Validator(
            json.loads((SCHEMA_DIR / f"{stem}.draft4.schema.json").read_text())
        ),
    ]


@pytest.mark.parametrize(("filename", "options"), COMMITTED.items())
def test_committed_schema_files_are_up_to_date(filename: str, options: dict[str, bool]) -> None:
    """Regenerate with: smista schema [--draft4] [--cases] > schema/<file>."""
    assert (SCHEMA_DIR / filename).read_text(encoding="utf-8") == render(**options)


@pytest.mark.parametrize("name", ["config", "cases"])
def test_schemas_are_valid_under_their_own_metaschema(name: str) -> None:
    """Each schema is itself a valid Draft 2020-12 / Draft 4 schema."""
    for validator in validators(name):
        type(validator).check_schema(validator.schema)
    assert validators(name)[0].schema["$schema"] == DRAFT_2020_12
    assert validators(name)[1].schema["$schema"] == DRAFT4


def test_draft4_form_has_no_newer_keywords() -> None:
    """Taplo's Draft 4 reader needs `definitions`, not `$defs`/`const`/`prefixItems`."""
    text = (SCHEMA_DIR / "smista.draft4.schema.json").read_text()
    for keyword in ('"$defs"', '"const"', '"prefixItems"', "#/$defs/"):
        assert keyword not in text


def test_to_draft4_rewrites_newer_keywords() -> None:
    """const, numeric exclusive bounds, prefixItems and $ref siblings are translated."""
    source = {
        "$defs": {"A": {"const": 1}},
        "properties": {
            "a": {"$ref": "#/$defs/A", "default": 1},
            "n": {"exclusiveMinimum": 0},
            "t": {"prefixItems": [{"type": "string"}], "items": False},
        },
    }
    out = to_draft4(source)
    assert out["definitions"] == {"A": {"enum": [1]}}
    assert out["properties"]["a"] == {
        "allOf": [{"$ref": "#/definitions/A"}],
        "default": 1,
    }
    assert out["properties"]["n"] == {"minimum": 0, "exclusiveMinimum": True}
    assert out["properties"]["t"] == {
        "items": [{"type": "string"}],
        "additionalItems": False,
    }


def test_every_section_is_a_property_and_nothing_else_is_allowed() -> None:
    """Top-level keys are the known sections; unmodelled ones are plain tables."""
    schema = config_schema()
    assert list(schema["properties"]) == list(SECTIONS)
    assert schema["additionalProperties"] is False
    assert schema["properties"]["classification"] == {"$ref": "#/$defs/ClassificationConfig"}


@pytest.mark.parametrize("pack", PACKS, ids=lambda p: p.name)
def test_schema_validates_every_shipped_pack(pack: Path) -> None:
    """Both schema forms accept the shipped rule packs."""
    data = tomllib.loads(pack.read_text(encoding="utf-8"))
    for validator in validators("config"):
        assert list(validator.iter_errors(data)) == []


@pytest.mark.parametrize("cases", CASE_FILES, ids=lambda p: p.name)
def test_case_schema_validates_shipped_case_files(cases: Path) -> None:
    """The case schema accepts the shipped golden cases."""
    data = tomllib.loads(cases.read_text(encoding="utf-8"))
    for validator in validators("cases"):
        assert list(validator.iter_errors(data)) == []


RULE = '[classification]\n[[classification.rules]]\nintent = "edit"\n'
BROKEN = {
    "unknown table": "[clasification]\n",
    "unknown intent": '[classification]\n[[classification.rules]]\nintent = "deploy"\n',
    "unknown rule key": RULE + 'keywrods = ["x"]\n',
    "negative priority": RULE + "priority = -1\n",
    "priority too big": RULE + "priority = 4294967296\n",
    "keyword not a string": RULE + "keywords = [1]\n",
    "missing intent": '[classification]\n[[classification.rules]]\nkeywords = ["x"]\n',
    "bad default": '[classification]\ndefault_intent = "Chat"\n',
}


@pytest.mark.parametrize("text", BROKEN.values(), ids=BROKEN.keys())
def test_schema_rejects_broken_configs(text: str) -> None:
    """Both schema forms reject what the loader rejects."""
    data = tomllib.loads(text)
    for validator in validators("config"):
        assert list(validator.iter_errors(data)), text


def test_schema_cli_prints_both_drafts(run_cli: RunCli) -> None:
    """`smista schema` prints 2020-12 JSON; --draft4 the Taplo form."""
    modern = json.loads(run_cli(["schema"]).stdout)
    old = json.loads(run_cli(["schema", "--draft4"]).stdout)
    assert modern["$schema"] == DRAFT_2020_12
    assert old["$schema"] == DRAFT4
    assert "definitions" in old
    assert "$defs" in modern
