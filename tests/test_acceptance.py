"""The upstream project's acceptance cases (tests/data/upstream_cases.jsonl), exact match."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from smista import ClassificationConfig, Classifier, Workspace

CASES = [
    json.loads(line)
    for line in (Path(__file__).parent / "data" / "upstream_cases.jsonl")
    .read_text("utf-8")
    .splitlines()
    if line.strip()
]


@pytest.mark.parametrize("case", CASES, ids=[c["case"] for c in CASES])
def test_upstream_case(case: dict[str, Any]) -> None:
    """Each upstream case gives exactly the expected wire JSON."""
    classifier = Classifier(ClassificationConfig.model_validate(case["config"]))
    result = classifier.classify(
        case["prompt"],
        command=case["command"],
        workspace=Workspace.model_validate(case["workspace"]),
    )
    assert result.model_dump(mode="json", exclude_none=True) == case["expected"]
    assert list(result.to_wire()) == list(case["expected"])  # key order too


def test_every_case_is_loaded() -> None:
    """The data file is not silently empty."""
    assert len(CASES) >= 15
