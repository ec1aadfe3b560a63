"""``--messages FILE|-`` on classify, explain and preview, and ``messages`` lines in batch."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from smista.config.defaults import default_classifier
from smista.config.settings import parse_settings
from smista.core.classifier import Classifier
from smista.core.workspace import Workspace
from smista.decision.preview import build_preview
from tests.preview_config import ROUTING

RunCli = Callable[..., subprocess.CompletedProcess[bytes]]
DATA = Path(__file__).resolve().parent / "data" / "turns"
SESSION = DATA / "claude_code_session.json"
CLASSIFIER = default_classifier()


def library(path: Path) -> dict[str, object]:
    return CLASSIFIER.classify_turn(json.loads(path.read_text("utf-8"))).to_wire()


@pytest.mark.parametrize("name", sorted(p.name for p in DATA.glob("*.json")))
def test_classify_messages_json_is_the_library_answer(run_cli: RunCli, name: str) -> None:
    r = run_cli(["classify", "--json", "--messages", str(DATA / name)])
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == library(DATA / name)


def test_messages_from_stdin_and_the_text_form(run_cli: RunCli) -> None:
    r = run_cli(["classify", "--messages", "-"], stdin=SESSION.read_bytes())
    assert r.returncode == 0, r.stderr
    out = r.stdout.decode()
    assert "intent:     edit (inferred)" in out
    assert "reason:     follow-up: 'ok do it' continues the previous turn" in out
    assert "stripped:   4 span(s): system-reminder, ide-context" in out


def test_explain_messages_shows_the_stripped_spans_and_both_traces(run_cli: RunCli) -> None:
    r = run_cli(["explain", "--messages", str(SESSION)])
    assert r.returncode == 0, r.stderr
    out = r.stdout.decode()
    assert "current user text: 'ok do it'" in out
    assert "[system-reminder] message 0:" in out
    assert "[ide-context] message 0:" in out
    assert "follow-up: the current text is a continuation phrase" in out
    assert "'the login test fails since yesterday, fix it'" in out
    j = run_cli(["explain", "--json", "--messages", str(SESSION)])
    doc = json.loads(j.stdout)
    assert [s["name"] for s in doc["stripped"]][:2] == ["system-reminder", "system-reminder"]
    assert doc["follow_up"] == "continuation"
    assert doc["previous"]["winner"] is not None


def test_bare_text_answers_are_unchanged(run_cli: RunCli) -> None:
    r = run_cli(["classify", "--json", "fix the bug"])
    assert json.loads(r.stdout) == CLASSIFIER.classify("fix the bug").to_wire()


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        (
            ["classify", "x", "--messages", "-"],
            b"[]",
            "give exactly one of TEXT and --messages FILE",
        ),
        (["classify"], None, "give exactly one of TEXT and --messages FILE"),
        (["classify", "--messages", "-"], b"[{", "stdin: not valid JSON"),
        (["explain", "--messages", "-"], b"\xff", "stdin: not valid UTF-8"),
        (
            ["classify", "--messages", "/no/such/file.json"],
            None,
            "messages file /no/such/file.json:",
        ),
        (
            ["classify", "--messages", "-"],
            b'[{"role": "wizard", "content": "x"}]',
            "messages[0].role: unknown role 'wizard'",
        ),
        (
            ["explain", "--messages", "-"],
            b'{"messages": [{"role": "user", "content": 3}]}',
            "messages[0].content: expected a string, null or an array",
        ),
        (["classify", "--messages", "-"], b'{"model": "m"}', "expected a string, an array"),
    ],
)
def test_bad_messages_are_one_line_errors(
    run_cli: RunCli, args: list[str], stdin: bytes | None, message: str
) -> None:
    r = run_cli(args, stdin=stdin)
    assert r.returncode == 2
    err = r.stderr.decode()
    assert err.count("\n") == 1
    assert message in err
    assert "Traceback" not in err


def test_preview_messages_json_is_build_preview(run_cli: RunCli, tmp_path: Path) -> None:
    config = tmp_path / "smista.toml"
    config.write_text(ROUTING, "utf-8")
    turn = [
        {"role": "user", "content": "refactor the session handling"},
        {"role": "assistant", "content": "Which module?"},
        {"role": "user", "content": "go ahead"},
    ]
    args = ["preview", "--json", "--config", str(config), "--messages", "-", "--cwd", "/repo"]
    args += ["--path", "src/auth/a.rs"]
    r = run_cli(args, stdin=json.dumps(turn).encode())
    assert r.returncode == 0, r.stderr
    settings = parse_settings(ROUTING)
    classifier = Classifier(settings.classification)
    workspace = Workspace(root="/repo", referenced_paths=("src/auth/a.rs",))
    found = classifier.classify_turn(turn, workspace=workspace)
    want = build_preview(
        "go ahead",
        classification=classifier,
        routing=settings.routing,
        workspace=workspace,
        result=found.classification,
        turn=found.info(),
    )
    assert json.loads(r.stdout) == want.to_json_dict()
    assert json.loads(r.stdout)["routing"]["matched_rule"] == "auth edits use Claude"


def test_batch_lines_with_messages(run_cli: RunCli) -> None:
    session = json.loads(SESSION.read_text("utf-8"))
    lines = [
        {"id": 1, "text": "fix the bug"},
        {"id": 2, "messages": session},
        {"id": 3, "messages": [{"role": "bad"}]},
        {"id": 4, "messages": [], "text": "x"},
    ]
    stdin = "".join(json.dumps(x) + "\n" for x in lines).encode()
    for workers in ("1", "2"):
        r = run_cli(["batch", "--workers", workers], stdin=stdin)
        assert r.returncode == 0, r.stderr
        out = [json.loads(x) for x in r.stdout.decode().splitlines()]
        assert out[0] == {"id": 1, **CLASSIFIER.classify("fix the bug").to_wire()}
        assert out[1] == {"id": 2, **CLASSIFIER.classify_turn(session).to_wire()}
        assert out[2]["error"].startswith("messages[0].role: unknown role 'bad'")
        assert out[3] == {"id": 4, "line": 4, "error": "give exactly one of 'text' and 'messages'"}


def test_batch_reads_the_rules_files_turns_table(run_cli: RunCli, tmp_path: Path) -> None:
    rules = tmp_path / "rules.toml"
    rules.write_text(
        '[classification]\n[[classification.rules]]\nintent = "edit"\nkeywords = ["fix"]\n'
        "[classification.turns]\nfollow_up = false\n",
        "utf-8",
    )
    turn = [{"role": "user", "content": "fix it"}, {"role": "user", "content": "ok"}]
    stdin = (json.dumps({"messages": turn}) + "\n").encode()
    r = run_cli(["batch", "--rules", str(rules)], stdin=stdin)
    assert json.loads(r.stdout)["turn"]["follow_up"] is False
    c = run_cli(["classify", "--json", "--rules", str(rules), "--messages", "-"], stdin=stdin[:-1])
    assert json.loads(c.stdout)["turn"]["follow_up"] is False


def test_a_messages_path_that_is_not_a_regular_file_is_refused_at_once(
    run_cli: RunCli, tmp_path: Path
) -> None:
    """A FIFO with no writer cannot hang --messages (it is refused before a byte is read)."""
    fifo = tmp_path / "turn.fifo"
    os.mkfifo(fifo)
    r = run_cli(["classify", "--messages", str(fifo)], timeout=30)
    assert r.returncode == 2
    assert r.stderr.decode() == (
        f"smista classify: error: messages file {fifo}: is a FIFO, not a regular file\n"
    )
