"""The real `smista` entry point: classify, explain, errors (one line, exit 2, no traceback)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from smista.cli import main
from tests.conftest import RunCli

RULES = """
[classification]
default_intent = "chat"

[[classification.rules]]
intent = "review"
priority = 10
keywords = ["review", "audit"]
requires_any_context = ["git_diff"]

[[classification.rules]]
intent = "edit"
priority = 20
keywords = ["refactor", "implement"]
"""


@pytest.fixture
def rules(tmp_path: Path) -> Path:
    path = tmp_path / "rules.toml"
    path.write_text(RULES, encoding="utf-8")
    return path


def assert_one_line_error(proc, fragment: str) -> None:
    err = proc.stderr.decode()
    assert proc.returncode == 2, err
    assert err.count("\n") == 1, err
    assert "Traceback" not in err
    assert fragment in err


def test_classify_json_is_the_wire_format(run_cli: RunCli, rules: Path) -> None:
    """--json prints exactly the library's wire JSON."""
    proc = run_cli(
        ["classify", "--rules", str(rules), "--context", "git_diff", "--json", "review my changes"]
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {
        "intent": "review",
        "source": "inferred",
        "reason": "keyword 'review' and context 'git_diff' matched rule 0",
        "matched_rule": 0,
        "confidence": "high",
    }


def test_classify_for_a_person(run_cli: RunCli, rules: Path) -> None:
    """Without --json the intent, confidence and reason are printed readably."""
    proc = run_cli(["classify", "--rules", str(rules), "impelment it"])
    out = proc.stdout.decode()
    assert proc.returncode == 0
    assert "edit" in out
    assert "medium" in out
    assert "keyword 'implement' matched rule 1" in out


def test_classify_with_command(run_cli: RunCli, rules: Path) -> None:
    """--command overrides rules and is read case-insensitively."""
    proc = run_cli(["classify", "--rules", str(rules), "--command", "Plan", "--json", "review"])
    assert json.loads(proc.stdout) == {
        "intent": "plan",
        "source": "explicit",
        "reason": "explicit command 'plan'",
    }


def test_classify_default_rules(run_cli: RunCli) -> None:
    """Without --rules the shipped pack is used."""
    proc = run_cli(["classify", "--json", "fix the login bug"])
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["intent"] == "edit"


def test_classify_reads_stdin(run_cli: RunCli, rules: Path) -> None:
    """TEXT '-' reads the prompt from stdin as UTF-8."""
    proc = run_cli(
        ["classify", "--rules", str(rules), "--json", "-"], stdin="please refactor ünïcode".encode()
    )
    assert json.loads(proc.stdout)["intent"] == "edit"


def test_empty_prompt(run_cli: RunCli, rules: Path) -> None:
    """An empty prompt is the default intent."""
    proc = run_cli(["classify", "--rules", str(rules), "--json", ""])
    assert json.loads(proc.stdout)["reason"] == "no rule matched; default intent 'chat'"


def test_ten_megabyte_prompt_on_stdin(run_cli: RunCli, rules: Path) -> None:
    """A 10 MB prompt works through stdin."""
    text = ("word " * 2_000_000 + "refactor").encode()
    proc = run_cli(["classify", "--rules", str(rules), "--json", "-"], stdin=text)
    assert proc.returncode == 0, proc.stderr[-500:]
    assert json.loads(proc.stdout)["intent"] == "edit"


def test_invalid_utf8_on_stdin(run_cli: RunCli, rules: Path) -> None:
    """Invalid UTF-8 on stdin is one readable error line."""
    assert_one_line_error(
        run_cli(["classify", "--rules", str(rules), "-"], stdin=b"fix \xff\xfe"), "UTF-8"
    )


@pytest.mark.parametrize(
    "args",
    [
        ["classify", "-"],
        ["classify", "--messages", "-"],
        ["batch"],
        ["batch", "{cases}"],
        ["tier", "-"],
    ],
)
def test_closed_stdin_is_one_line(args: list[str], tmp_path: Path) -> None:
    """With descriptor 0 closed (``<&-``), a command reading stdin says so in one line;
    ``batch FILE`` does not need stdin at all."""
    import subprocess
    import sys

    from tests.conftest import cli_env

    cases = tmp_path / "in.jsonl"
    cases.write_text('{"text": "fix the bug"}\n', encoding="utf-8")
    argv = [arg.replace("{cases}", str(cases)) for arg in args]
    proc = subprocess.run(
        [sys.executable, "-m", "smista", *argv],
        stdin=None,
        capture_output=True,
        env=cli_env(),
        timeout=60,
        check=False,
        preexec_fn=lambda: os.close(0),
    )
    if "{cases}" in args:
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout)["intent"] == "edit"
        return
    assert_one_line_error(proc, "standard input is closed")


def test_hook_with_closed_stdin_fails_open_with_a_readable_note() -> None:
    """The hook still exits 0 and prints nothing; its note says what happened."""
    import subprocess
    import sys

    from tests.conftest import cli_env

    proc = subprocess.run(
        [sys.executable, "-m", "smista", "hook", "claude-code"],
        capture_output=True,
        env=cli_env(),
        timeout=60,
        check=False,
        preexec_fn=lambda: os.close(0),
    )
    assert proc.returncode == 0
    assert proc.stdout == b""
    assert proc.stderr.decode() == (
        "smista hook claude-code: no opinion: cannot read stdin: standard input is closed\n"
    )


def test_invalid_utf8_in_argv(run_cli: RunCli, rules: Path) -> None:
    """Undecodable bytes on the command line are one readable error line."""
    assert_one_line_error(
        run_cli([b"classify", b"--rules", str(rules).encode(), b"fix \xff"]), "UTF-8"
    )


def test_write_failure_is_one_line(rules: Path) -> None:
    """A full disk on stdout is reported in one line, exit 1, no traceback."""
    import subprocess
    import sys

    from tests.conftest import cli_env

    with open("/dev/full", "wb") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "smista", "classify", "--rules", str(rules), "--json", "fix"],
            stdout=full,
            stderr=subprocess.PIPE,
            env=cli_env(),
            check=False,
        )
    err = proc.stderr.decode()
    assert proc.returncode == 1, err
    assert "Traceback" not in err
    assert "No space left on device" in err


def test_malformed_toml(run_cli: RunCli, tmp_path: Path) -> None:
    """A TOML syntax error names the file."""
    bad = tmp_path / "bad.toml"
    bad.write_text("[classification\n")
    assert_one_line_error(run_cli(["classify", "--rules", str(bad), "x"]), str(bad))


def test_unknown_key(run_cli: RunCli, tmp_path: Path) -> None:
    """A misspelt key is reported with its key path."""
    bad = tmp_path / "bad.toml"
    bad.write_text('[[classification.rules]]\nintent = "edit"\nkeywrods = ["x"]\n')
    assert_one_line_error(
        run_cli(["classify", "--rules", str(bad), "x"]), "classification.rules[0].keywrods"
    )


def test_bad_intent_in_rules(run_cli: RunCli, tmp_path: Path) -> None:
    """An unknown intent in the file is reported with the allowed names."""
    bad = tmp_path / "bad.toml"
    bad.write_text('[[classification.rules]]\nintent = "deploy"\n')
    assert_one_line_error(run_cli(["classify", "--rules", str(bad), "x"]), "'deploy'")


@pytest.mark.parametrize("name", ["classify", "explain"])
def test_a_bad_rules_file_is_reported_with_command_too(
    run_cli: RunCli, tmp_path: Path, name: str
) -> None:
    """--command needs no rule, but a --rules file given with it is still read, not ignored."""
    missing = tmp_path / "missing.toml"
    assert_one_line_error(
        run_cli([name, "--rules", str(missing), "--command", "plan", "x"]),
        f"{missing}: no such file",
    )


def test_bad_command(run_cli: RunCli) -> None:
    """An unknown --command is a one-line error."""
    assert_one_line_error(
        run_cli(["classify", "--command", "deploy", "x"]), "unknown task intent: 'deploy'"
    )


def test_missing_rules_file(run_cli: RunCli, tmp_path: Path) -> None:
    """A missing file is a one-line error."""
    assert_one_line_error(
        run_cli(["classify", "--rules", str(tmp_path / "none.toml"), "x"]), "no such file"
    )


def test_usage_errors(run_cli: RunCli) -> None:
    """Missing arguments and unknown commands are one line, exit 2."""
    assert_one_line_error(run_cli(["classify"]), "TEXT")
    assert_one_line_error(run_cli(["frobnicate"]), "unknown command")
    assert_one_line_error(run_cli(["classify", "--bogus", "x"]), "--bogus")


def test_help_and_version(run_cli: RunCli) -> None:
    """--help lists commands; --version prints the version."""
    proc = run_cli(["--help"])
    assert proc.returncode == 0
    assert b"classify" in proc.stdout
    assert run_cli(["--version"]).stdout.startswith(b"smista ")


def test_explain_shows_tokens_rules_and_winner(run_cli: RunCli, rules: Path) -> None:
    """explain prints tokens, each rule in order with its conditions, and the winner."""
    proc = run_cli(["explain", "--rules", str(rules), "reviewing and impelment"])
    out = proc.stdout.decode()
    assert proc.returncode == 0, proc.stderr
    assert "'reviewing'" in out
    assert "token contains the keyword" in out
    assert "typo at OSA distance 1" in out
    assert "<- winner" in out
    assert out.index("rule 0") < out.index("rule 1")


def test_explain_json(run_cli: RunCli, rules: Path) -> None:
    """explain --json is the structured trace."""
    proc = run_cli(["explain", "--rules", str(rules), "--context", "git_diff", "--json", "audit"])
    trace = json.loads(proc.stdout)
    assert trace["winner"] == 0
    assert trace["result"]["confidence"] == "high"
    assert trace["rules"][0]["context"] == "git_diff"


def test_main_in_process(capsys: pytest.CaptureFixture[str], rules: Path) -> None:
    """main() can be called directly and returns the exit status."""
    assert main(["classify", "--rules", str(rules), "--json", "refactor"]) == 0
    assert json.loads(capsys.readouterr().out)["intent"] == "edit"
    assert main(["classify", "--rules", str(rules)]) == 2


def test_serve_watch_interval_without_watch_is_refused_not_ignored(run_cli: RunCli) -> None:
    """Without --watch nothing is polled, so the interval would silently do nothing."""
    assert_one_line_error(
        run_cli(["serve", "--port", "0", "--watch-interval", "5"], timeout=60),
        "smista serve: error: --watch-interval needs --watch",
    )
