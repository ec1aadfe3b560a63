"""Golden cases as pytest tests, for users' own rule files.

Edge module (reads rule and case files; imports pytest). Two ways to use it:

* one test per case, ids from the case file::

      from smista.authoring.pytest_plugin import golden_cases

      @golden_cases("rules/my.toml", "rules/my.cases.toml")
      def test_my_rules(golden_case):
          golden_case.check()

* the whole file at once, through the ``assert_golden`` fixture (enable the
  plugin with ``pytest_plugins = ["smista.authoring.pytest_plugin"]`` in conftest.py)::

      def test_pack(assert_golden):
          assert_golden("rules/my.toml", "rules/my.cases.toml", min_accuracy=0.9)

A failure shows what differed and the full decision trace of ``smista explain``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest

from smista.authoring.golden import CaseOutcome, GoldenCase, load_cases, run_case
from smista.cli._render import render_explanation
from smista.config.load import load_config
from smista.core.classifier import Classifier

__all__ = [
    "AssertGolden",
    "GoldenCaseRun",
    "assert_golden",
    "golden_cases",
    "golden_params",
]


@cache
def _classifier(rules: str) -> Classifier:
    return Classifier(load_config(rules))


def _failure_text(classifier: Classifier, outcome: CaseOutcome) -> str:
    case = outcome.case
    trace = render_explanation(
        classifier.explain(case.text, command=case.command, contexts=case.contexts)
    )
    lines = [f"{outcome.where}: {case.text!r}", *(f"  {p}" for p in outcome.problems)]
    lines += [f"    {line}" for line in trace.splitlines()]
    return "\n".join(lines)


class GoldenCaseRun:
    """One golden case bound to its rule file; :meth:`check` runs it."""

    def __init__(self, rules: str, where: str, case: GoldenCase) -> None:
        self.rules = rules
        self.where = where
        self.case = case

    def __repr__(self) -> str:
        return f"GoldenCaseRun({self.where!r}, {self.case.text!r})"

    def outcome(self) -> CaseOutcome:
        return run_case(_classifier(self.rules), self.case, self.where)

    def check(self) -> None:
        """Raise ``AssertionError`` (with the decision trace) unless the case passes."""
        outcome = self.outcome()
        if not outcome.passed:
            raise AssertionError(_failure_text(_classifier(self.rules), outcome))


def golden_params(rules: str | Path, cases: str | Path) -> list[object]:
    """``pytest.param`` objects, one per case, with the case's location as id."""
    return [
        pytest.param(GoldenCaseRun(str(rules), where, case), id=where)
        for where, case in load_cases(cases)
    ]


def golden_cases(
    rules: str | Path, cases: str | Path, argname: str = "golden_case"
) -> pytest.MarkDecorator:
    """Parametrize a test with every case of ``cases`` bound to ``rules``."""
    return pytest.mark.parametrize(argname, golden_params(rules, cases))


AssertGolden = Callable[..., None]


def _assert_golden(rules: str | Path, cases: str | Path, *, min_accuracy: float = 1.0) -> None:
    classifier = _classifier(str(rules))
    outcomes = [run_case(classifier, case, where) for where, case in load_cases(cases)]
    failures = [o for o in outcomes if not o.passed]
    accuracy = 1 - len(failures) / len(outcomes) if outcomes else 1.0
    if accuracy < min_accuracy:
        body = "\n\n".join(_failure_text(classifier, o) for o in failures)
        raise AssertionError(
            f"{len(failures)}/{len(outcomes)} golden cases failed "
            f"(accuracy {accuracy:.1%}, "
            f"required {min_accuracy:.1%}):\n\n{body}"
        )


@pytest.fixture
def assert_golden() -> AssertGolden:
    """``assert_golden(rules, cases, min_accuracy=1.0)``: fail listing misses."""
    return _assert_golden
