"""smista check: each lint fires on a file with the problem, and not on a clean one."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from smista.authoring.check import Finding, Severity, check_text, failed, summary
from smista.authoring.lints import covers, unreachable_rules
from smista.core.rules import ClassificationConfig, ClassificationRule

ROOT = Path(__file__).resolve().parent.parent
RunCli = Callable[..., subprocess.CompletedProcess[bytes]]

HEADER = '[classification]\ndefault_intent = "chat"\n'


def rules_toml(*rules: str) -> str:
    return HEADER + "".join(f"\n[[classification.rules]]\n{r}\n" for r in rules)


def codes(findings: list[Finding], severity: Severity | None = None) -> list[str]:
    return [f.code for f in findings if severity is None or f.severity == severity]


def lint(*rules: str, known: tuple[str, ...] = ()) -> list[Finding]:
    return check_text(rules_toml(*rules), "rules.toml", known_contexts=known)


CLEAN = (
    'intent = "review"\npriority = 10\nkeywords = ["review", "reviews", "reviewing"]\n'
    'requires_any_context = ["git_diff"]',
    'intent = "review"\npriority = 20\nkeywords = ["review", "reviews", "reviewing"]',
    'intent = "edit"\npriority = 30\nkeywords = ["fix", "fixes", "fixing"]',
)


def test_a_clean_file_has_no_errors_or_warnings() -> None:
    """A well-formed pack passes even --strict; only notes may remain."""
    findings = lint(*CLEAN)
    assert codes(findings, Severity.ERROR) == []
    assert codes(findings, Severity.WARNING) == []
    assert not failed(findings, strict=True)


def test_structural_errors_reuse_the_loader_messages_with_rule_index() -> None:
    """Unknown keys, wrong types and unknown intents are errors naming the key path."""
    findings = lint('intent = "deploy"\nkeywrods = ["x"]', 'intent = "edit"\npriority = -1')
    assert {f.key for f in findings} == {
        "classification.rules[0].intent",
        "classification.rules[0].keywrods",
        "classification.rules[1].priority",
    }
    assert all(f.severity is Severity.ERROR and f.code == "invalid" for f in findings)
    by_key = {f.key: f for f in findings}
    assert by_key["classification.rules[0].keywrods"].rule == 0
    assert by_key["classification.rules[1].priority"].rule == 1
    assert "unknown key" in by_key["classification.rules[0].keywrods"].message
    assert "expected a number >= 0" in by_key["classification.rules[1].priority"].message


def test_invalid_toml_and_unknown_tables_are_errors() -> None:
    """Broken TOML and tables smista does not know are reported, not raised."""
    assert codes(check_text("[classification\n", "x.toml")) == ["invalid"]
    findings = check_text("[clasification]\n", "x.toml")
    assert [f.key for f in findings] == ["clasification"]
    assert "unknown table" in findings[0].message


def test_empty_keyword_is_an_error_and_says_when_the_rule_is_dead() -> None:
    """An empty keyword never matches; alone, it makes its rule never match."""
    alone = lint('intent = "edit"\nkeywords = [""]')
    assert codes(alone, Severity.ERROR) == ["empty-keyword"]
    assert "never matches" in alone[0].message
    assert "no other keyword" in alone[0].message
    mixed = [
        f for f in lint('intent = "edit"\nkeywords = ["fix", ""]') if f.code == "empty-keyword"
    ]
    assert mixed[0].key == "classification.rules[0].keywords[1]"
    assert "no other keyword" not in mixed[0].message
    assert "empty-keyword" not in codes(lint(*CLEAN))


@pytest.mark.parametrize("keyword", ["security review", "code-review", "tl;dr", " fix"])
def test_keywords_with_separators_are_errors_explaining_tokens(keyword: str) -> None:
    """Whitespace or punctuation inside a keyword means it cannot match as written."""
    findings = lint(f'intent = "review"\nkeywords = [{json.dumps(keyword)}]')
    hits = [f for f in findings if f.code == "unmatchable-keyword"]
    assert len(hits) == 1
    assert hits[0].severity is Severity.ERROR
    assert "separate tokens" in hits[0].message
    assert "unmatchable-keyword" not in codes(lint(*CLEAN))


def test_inflection_note_names_the_missing_forms() -> None:
    """A keyword without its -s/-ing/-ed forms gets a note (never a failure)."""
    findings = lint('intent = "review"\nkeywords = ["review"]')
    notes = [f for f in findings if f.code == "inflection"]
    assert len(notes) == 1
    assert notes[0].severity is Severity.INFO
    assert "'reviews'" in notes[0].message
    assert "'reviewing'" in notes[0].message
    assert not failed(findings, strict=True)
    listed = lint('intent = "review"\nkeywords = ["review", "reviews", "reviewing", "reviewed"]')
    assert "inflection" not in codes(listed)


def test_rule_after_a_catch_all_is_unreachable() -> None:
    """A conditionless rule tried first shadows every later rule."""
    findings = lint('intent = "chat"\npriority = 1', 'intent = "edit"\nkeywords = ["fix"]')
    hits = [f for f in findings if f.code == "unreachable-rule"]
    assert [(f.rule, f.severity) for f in hits] == [(1, Severity.WARNING)]
    assert "catch-all rule 0" in hits[0].message
    assert failed(findings, strict=True)
    assert not failed(findings)
    # the same catch-all placed last shadows nothing
    later = lint(
        'intent = "chat"\npriority = 99',
        'intent = "edit"\npriority = 1\nkeywords = ["fix"]',
    )
    assert "unreachable-rule" not in codes(later)


def test_rule_whose_conditions_include_an_earlier_rules_is_unreachable() -> None:
    """Earlier rule with a superset of keywords and no narrower contexts always wins."""
    findings = lint(
        'intent = "plan"\npriority = 1\nkeywords = ["plan", "design"]',
        'intent = "edit"\npriority = 2\nkeywords = ["DESIGN"]\nrequires_any_context = ["git_diff"]',
    )
    hits = [f for f in findings if f.code == "unreachable-rule"]
    assert [f.rule for f in hits] == [1]
    assert "rule 0 (plan, priority 1)" in hits[0].message
    # an earlier rule needing a context the later one does not need covers nothing
    narrower = lint(
        'intent = "plan"\npriority = 1\nkeywords = ["plan"]\nrequires_any_context = ["git_diff"]',
        'intent = "edit"\npriority = 2\nkeywords = ["plan"]',
    )
    assert "unreachable-rule" not in codes(narrower)


def test_covers_is_exactly_the_subset_relation() -> None:
    """covers() on hand-built rules: keywords and contexts both must be included."""
    r = ClassificationRule
    assert covers(r(intent="plan"), r(intent="edit", keywords=("x",)))
    assert covers(r(intent="plan", keywords=("a", "b")), r(intent="edit", keywords=("A",)))
    assert not covers(r(intent="plan", keywords=("a",)), r(intent="edit"))
    assert not covers(r(intent="plan", keywords=("a",)), r(intent="edit", keywords=("a", "b")))
    assert covers(
        r(intent="plan", requires_any_context=("git_diff", "active_file")),
        r(intent="edit", requires_any_context=("git_diff",)),
    )
    assert not covers(r(intent="plan", keywords=("",)), r(intent="edit", keywords=("x",)))
    config = ClassificationConfig(
        rules=(
            r(intent="plan", priority=5),
            r(intent="edit", priority=1, keywords=("x",)),
        )
    )
    assert unreachable_rules(config) == {}  # the catch-all is tried last


def test_a_wildcard_command_rule_covers_only_rules_that_need_a_command() -> None:
    """commands = ["*"] holds on every slash command, never on a prompt without one."""
    r = ClassificationRule
    anything = r(intent="skill", commands=("*",))
    assert not covers(anything, r(intent="edit", keywords=("fix",)))
    assert covers(anything, r(intent="review", commands=("/review",)))
    assert covers(r(intent="plan", commands=("plan",)), r(intent="plan", commands=("/PLAN",)))
    assert not covers(r(intent="plan", commands=("plan",)), r(intent="chat", commands=("*",)))
    findings = lint(
        'intent = "skill"\npriority = 1\ncommands = ["*"]',
        'intent = "edit"\npriority = 2\nkeywords = ["fix"]',
        'intent = "review"\npriority = 3\ncommands = ["review"]',
    )
    assert [f.rule for f in findings if f.code == "unreachable-rule"] == [2]


def test_duplicate_keyword_within_a_rule_is_a_warning() -> None:
    """The same keyword twice in one rule (ignoring case) changes nothing."""
    findings = lint('intent = "edit"\nkeywords = ["fix", "Fix"]')
    hits = [f for f in findings if f.code == "duplicate-keyword"]
    assert [(f.key, f.severity) for f in hits] == [
        ("classification.rules[0].keywords[1]", Severity.WARNING)
    ]


def test_duplicate_keyword_across_intents_says_which_rule_wins() -> None:
    """A keyword also in an earlier rule of another intent never decides the later."""
    findings = lint(
        'intent = "plan"\npriority = 1\nkeywords = ["design"]',
        'intent = "edit"\npriority = 2\nkeywords = ["design", "fix"]',
    )
    hits = [f for f in findings if f.code == "duplicate-keyword"]
    assert [(f.key, f.severity) for f in hits] == [
        ("classification.rules[1].keywords[0]", Severity.WARNING)
    ]
    assert "rule 0 (plan)" in hits[0].message
    assert "always wins" in hits[0].message


def test_layered_duplicates_behind_a_context_are_only_notes() -> None:
    """The same keyword first with a context, then without, is a deliberate layering."""
    findings = lint(*CLEAN)
    assert "duplicate-keyword" not in codes(findings, Severity.WARNING)
    other = lint(
        'intent = "review"\npriority = 1\nkeywords = ["fix"]\nrequires_any_context = ["git_diff"]',
        'intent = "edit"\npriority = 2\nkeywords = ["fix"]',
    )
    notes = [f for f in other if f.code == "duplicate-keyword"]
    assert [f.severity for f in notes] == [Severity.INFO]
    assert "'git_diff'" in notes[0].message


def test_priority_ties_between_intents_that_can_overlap_are_warnings() -> None:
    """Two intents at one priority depend on file order."""
    findings = lint(
        'intent = "plan"\npriority = 5\nkeywords = ["plan"]',
        'intent = "edit"\npriority = 5\nkeywords = ["fix"]',
    )
    hits = [f for f in findings if f.code == "priority-tie"]
    assert [(f.rule, f.key) for f in hits] == [(1, "classification.rules[1].priority")]
    assert "comes first in the file" in hits[0].message
    # same intent, or a rule that can never match, is no tie worth reporting
    same = lint(
        'intent = "edit"\npriority = 5\nkeywords = ["a"]',
        'intent = "edit"\npriority = 5\nkeywords = ["b"]',
    )
    assert "priority-tie" not in codes(same)
    dead = lint(
        'intent = "plan"\npriority = 5\nkeywords = [""]',
        'intent = "edit"\npriority = 5\nkeywords = ["b"]',
    )
    assert "priority-tie" not in codes(dead)


def test_keywords_of_different_intents_within_typo_distance_collide() -> None:
    """Writing one keyword correctly would match the other's typo: a warning."""
    findings = lint(
        'intent = "skill"\npriority = 1\nkeywords = ["skill"]',
        'intent = "chat"\npriority = 2\nkeywords = ["still"]',
    )
    hits = [f for f in findings if f.code == "typo-collision"]
    assert [(f.rule, f.severity) for f in hits] == [(0, Severity.WARNING)]
    assert "'skill'" in hits[0].message
    assert "'still'" in hits[0].message
    # same intent, containment, or exact-only short keywords do not collide
    quiet = lint(
        'intent = "review"\npriority = 1\nkeywords = ["review", "reviews", "audit"]',
        'intent = "edit"\npriority = 2\nkeywords = ["preview", "edit"]',
    )
    assert "typo-collision" not in codes(quiet, Severity.WARNING)


def test_keywords_two_typos_apart_get_a_note() -> None:
    """One misspelling may sit within the cap of both keywords: a note."""
    findings = lint(
        'intent = "review"\npriority = 1\nkeywords = ["inspect"]',
        'intent = "edit"\npriority = 2\nkeywords = ["insert"]',
    )
    notes = [f for f in findings if f.code == "typo-collision"]
    assert [f.severity for f in notes] == [Severity.INFO]


def test_unknown_context_kinds_are_warnings_unless_declared() -> None:
    """Context kinds must come from the workspace or be declared by the user."""
    rule = 'intent = "review"\nkeywords = ["review"]\nrequires_any_context = ["pull_request"]'
    findings = lint(rule)
    hits = [f for f in findings if f.code == "unknown-context"]
    assert [(f.key, f.severity) for f in hits] == [
        ("classification.rules[0].requires_any_context[0]", Severity.WARNING)
    ]
    assert "never matches" in hits[0].message
    assert "unknown-context" not in codes(lint(rule, known=("pull_request",)))
    assert "unknown-context" not in codes(lint(*CLEAN))
    case = lint('intent = "review"\nrequires_any_context = ["Git_Diff", "git_diff", "git_diff"]')
    assert codes(case, Severity.WARNING) == ["unknown-context", "duplicate-context"]


def test_files_without_classification_are_reported_not_failed() -> None:
    """A valid [tiers]-only file gets a note, not a failure."""
    findings = check_text('[tiers]\ndefault_tier = "normal"\n', "tiers.toml")
    assert codes(findings) == ["no-classification"]
    assert not failed(findings, strict=True)


def test_tiers_section_is_validated() -> None:
    """[tiers] is checked structurally and semantically, with key paths."""
    findings = check_text("[tiers]\nfoo = 1\n", "tiers.toml")
    assert [(f.code, f.key) for f in findings if f.code == "invalid"] == [("invalid", "tiers.foo")]
    assert failed(findings, strict=False)
    bad_default = check_text('[tiers]\ndefault_tier = "nope"\n', "tiers.toml")
    assert any(f.severity == "error" and f.key.startswith("tiers.") for f in bad_default)


def test_golden_case_files_are_validated_structurally() -> None:
    """[[cases]] files are recognised; bad cases are errors with key paths."""
    good = check_text('[[cases]]\ntext = "hi"\nintent = "chat"\n', "c.toml")
    assert codes(good) == ["case-file"]
    bad = check_text('[[cases]]\ntext = "hi"\nintent = "nope"\n', "c.toml")
    assert [(f.key, f.code) for f in bad] == [("cases[0].intent", "invalid")]


def test_summary_counts_by_severity() -> None:
    """The summary line counts errors, warnings and notes."""
    findings = lint('intent = "edit"\nkeywords = ["", "fix", "fix"]')
    assert summary(findings, 1).startswith("1 file(s): 1 error(s), 1 warning(s)")


def test_shipped_packs_pass_check_strict(run_cli: RunCli) -> None:
    """CI's gate: every shipped TOML file passes `smista check --strict`."""
    files = sorted(str(p) for p in (ROOT / "rules").glob("*.toml"))
    proc = run_cli(["check", "--strict", *files])
    assert proc.returncode == 0, proc.stdout.decode() + proc.stderr.decode()
    assert b"0 error(s), 0 warning(s)" in proc.stdout


def test_cli_exit_codes_json_and_declared_contexts(run_cli: RunCli, tmp_path: Path) -> None:
    """Warnings fail only with --strict; --json lists findings; kinds are declarable."""
    path = tmp_path / "rules.toml"
    path.write_text(
        rules_toml('intent = "review"\nkeywords = ["review"]\nrequires_any_context = ["pr"]')
    )
    assert run_cli(["check", str(path)]).returncode == 0
    strict = run_cli(["check", "--strict", str(path)])
    assert strict.returncode == 1
    assert b"warning[unknown-context]" in strict.stdout
    assert b"classification.rules[0].requires_any_context[0]" in strict.stdout
    assert run_cli(["check", "--strict", "--context-kind", "pr", str(path)]).returncode == 0
    env = dict(os.environ, PYTHONPATH=str(ROOT), SMISTA_CONTEXT_KINDS="pr, other")
    assert run_cli(["check", "--strict", str(path)], env=env).returncode == 0
    doc = json.loads(run_cli(["check", "--json", "--strict", str(path)]).stdout)
    assert doc["ok"] is False
    finding = next(f for f in doc["findings"] if f["code"] == "unknown-context")
    assert finding == {
        "file": str(path),
        "rule": 0,
        "key": "classification.rules[0].requires_any_context[0]",
        "severity": "warning",
        "code": "unknown-context",
        "message": finding["message"],
    }


def test_cli_reports_errors_and_missing_files(run_cli: RunCli, tmp_path: Path) -> None:
    """An error fails without --strict; a missing file is an error, not a crash."""
    path = tmp_path / "bad.toml"
    path.write_text(rules_toml('intent = "edit"\nkeywords = ["code review"]'))
    proc = run_cli(["check", str(path), str(tmp_path / "missing.toml")])
    assert proc.returncode == 1
    out = proc.stdout.decode()
    assert "error[unmatchable-keyword]" in out
    assert "no such file" in out
    assert proc.stderr == b""


def test_cli_checks_a_directory_and_shows_notes_with_verbose(
    run_cli: RunCli, tmp_path: Path
) -> None:
    """A directory argument means its *.toml files; --verbose prints notes."""
    (tmp_path / "a.toml").write_text(rules_toml('intent = "review"\nkeywords = ["review"]'))
    (tmp_path / "b.toml").write_text("[tiers]\n")
    quiet = run_cli(["check", str(tmp_path)])
    assert quiet.returncode == 0
    assert b"2 file(s)" in quiet.stdout
    assert b"info[" not in quiet.stdout
    assert b"--verbose" in quiet.stdout
    loud = run_cli(["check", "-v", str(tmp_path)])
    assert b"info[inflection]" in loud.stdout
    assert b"info[no-classification]" in loud.stdout
