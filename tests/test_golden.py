"""Golden cases: loading TOML/JSONL, running them, `smista test`, the pytest plugin."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from smista.authoring.golden import GoldenCase, load_cases, parse_cases, run_case, run_cases
from smista.authoring.pytest_plugin import (
    AssertGolden,
    GoldenCaseRun,
    golden_cases,
    golden_params,
)
from smista.config.load import load_config
from smista.core.classifier import Classifier
from smista.core.errors import ConfigError
from smista.core.intent import TaskIntent

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
RunCli = Callable[..., subprocess.CompletedProcess[bytes]]

RULES = DATA / "eval_rules.toml"


def test_jsonl_and_toml_cases_load_with_locations() -> None:
    """JSONL cases are labelled by line (blank lines skipped), TOML by index or name."""
    jsonl = load_cases(DATA / "eval_cases.jsonl")
    assert [w for w, _ in jsonl][:6] == [
        "line 1",
        "line 2",
        "line 3",
        "line 4",
        "line 5",
        "line 7",
    ]
    toml = load_cases(DATA / "eval_cases.toml")
    assert [w for w, _ in toml] == [
        "cases[0]",
        "cases[1]",
        "cases[2] (plan-loses-to-fix)",
        "cases[3]",
    ]
    assert toml[3].case.command is TaskIntent.SUMMARIZE  # read case-insensitively


@pytest.mark.parametrize(
    ("text", "jsonl", "key"),
    [
        ('{"text": "x", "intent": "deploy"}', True, "line 1.intent"),
        ('{"text": "x"}', True, "line 1.intent"),
        ('{"text": "x", "intent": "chat", "extra": 1}', True, "line 1.extra"),
        ("not json", True, "line 1"),
        (
            '[[cases]]\ntext = "x"\nintent = "chat"\ncommand = "nope"\n',
            False,
            "cases[0].command",
        ),
        ('[[cases]]\ntext = 3\nintent = "chat"\n', False, "cases[0].text"),
        ("[other]\n", False, ""),
    ],
)
def test_bad_cases_raise_config_errors_with_key_paths(text: str, jsonl: bool, key: str) -> None:
    """Every malformed case names the file and where the problem is."""
    with pytest.raises(ConfigError) as info:
        parse_cases(text, "cases.x", jsonl=jsonl)
    assert info.value.path == "cases.x"
    assert info.value.errors[0][0] == key


def test_run_case_reports_every_mismatch() -> None:
    """Intent, matched_rule and confidence are compared only when given."""
    classifier = Classifier(load_config(RULES))
    ok = run_case(
        classifier,
        GoldenCase(text="review it", intent=TaskIntent.REVIEW, matched_rule=0),
    )
    assert ok.passed
    bad = run_case(
        classifier,
        GoldenCase(text="review it", intent=TaskIntent.EDIT, matched_rule=1, confidence="high"),
    )
    assert bad.problems == (
        "expected intent edit, got review",
        "expected matched_rule 1, got 0",
        "expected confidence high, got medium",
    )
    outcomes = run_cases(classifier, load_cases(DATA / "eval_cases.toml"))
    assert [o.passed for o in outcomes] == [True, True, False, True]


def test_smista_test_passes_and_fails_with_traces(run_cli: RunCli, tmp_path: Path) -> None:
    """Failures print what differed and the explain trace; exit 1; --min-accuracy."""
    proc = run_cli(["test", str(RULES), "--cases", str(DATA / "eval_cases.toml")])
    assert proc.returncode == 1
    out = proc.stdout.decode()
    assert "FAIL" in out
    assert "cases[2] (plan-loses-to-fix)" in out
    assert "expected intent plan, got edit" in out
    assert "rules in evaluation order" in out
    assert "<- winner" in out
    assert "3/4 cases passed (75.0%)" in out
    relaxed = run_cli(
        [
            "test",
            str(RULES),
            "--cases",
            str(DATA / "eval_cases.toml"),
            "--min-accuracy",
            "0.7",
        ]
    )
    assert relaxed.returncode == 0
    passing = tmp_path / "ok.jsonl"
    passing.write_text(json.dumps({"text": "fix it", "intent": "edit"}) + "\n")
    good = run_cli(["test", str(RULES), "--cases", str(passing)])
    assert good.returncode == 0
    assert b"1/1 cases passed" in good.stdout
    doc = json.loads(
        run_cli(["test", str(RULES), "--cases", str(DATA / "eval_cases.toml"), "--json"]).stdout
    )
    assert (doc["passed"], doc["failed"], doc["ok"]) == (3, 1, False)
    assert doc["failures"][0]["result"]["intent"] == "edit"


def test_smista_test_rejects_bad_input_with_one_line(run_cli: RunCli, tmp_path: Path) -> None:
    """Unreadable case files are a one-line error and exit 2."""
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "x", "intent": "deploy"}\n')
    proc = run_cli(["test", str(RULES), "--cases", str(bad)])
    assert proc.returncode == 2
    assert proc.stderr.decode().count("\n") == 1
    assert "line 1.intent" in proc.stderr.decode()


def test_pytest_plugin_parametrizes_cases_with_ids() -> None:
    """golden_params gives one param per case, ids from the case file."""
    params = golden_params(RULES, DATA / "eval_cases.toml")
    assert [p.id for p in params] == [  # type: ignore[attr-defined]
        "cases[0]",
        "cases[1]",
        "cases[2] (plan-loses-to-fix)",
        "cases[3]",
    ]
    failing = params[2].values[0]  # type: ignore[attr-defined]
    assert isinstance(failing, GoldenCaseRun)
    with pytest.raises(AssertionError, match="expected intent plan, got edit"):
        failing.check()


@golden_cases(RULES, DATA / "eval_cases.jsonl")
def test_pytest_plugin_decorator_runs_each_case(golden_case: GoldenCaseRun) -> None:
    """The decorator form, as a user writes it (failures are expected ones here)."""
    outcome = golden_case.outcome()
    known_misses = {"plan the fix", "summarize <b>it</b> & more", "review and fix"}
    assert outcome.passed is (golden_case.case.text not in known_misses)


def test_assert_golden_fixture(assert_golden: AssertGolden) -> None:
    """The fixture passes at a low enough bar and lists every miss otherwise."""
    assert_golden(RULES, DATA / "eval_cases.jsonl", min_accuracy=0.5)
    with pytest.raises(AssertionError) as info:
        assert_golden(RULES, DATA / "eval_cases.jsonl")
    assert "3/7 golden cases failed" in str(info.value)
    assert "plan the fix" in str(info.value)


def test_shipped_default_cases_file_is_large_and_valid() -> None:
    """rules/default.cases.toml has at least 300 labelled prompts across all intents."""
    cases = load_cases(ROOT / "rules" / "default.cases.toml")
    assert len(cases) >= 300
    assert {c.intent for _, c in cases} == set(TaskIntent)
