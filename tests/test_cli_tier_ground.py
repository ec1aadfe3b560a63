"""`smista tier` and `smista ground`: output, exit statuses, stdin, fail-open config errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from smista.cli import main
from tests.chat_server import ChatServer
from tests.conftest import RunCli


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


# -- smista tier ---------------------------------------------------------------------------


def test_tier_prints_tier_model_reason_outcome(capsys: pytest.CaptureFixture[str]) -> None:
    """The shipped pack routes a concurrency bug to the hard tier."""
    code, out, _ = run(capsys, "tier", "fix the race condition in the scheduler")
    assert code == 0
    lines = dict(line.split(":", 1) for line in out.splitlines())
    assert lines["tier"].strip() == "hard"
    assert lines["model"].strip() == "@task_hard"
    assert lines["reason"].strip() == "keyword 'race' matched rule 1"
    assert lines["outcome"].strip() == "routed"
    assert "latency" in lines


def test_tier_json_is_the_full_decision(capsys: pytest.CaptureFixture[str]) -> None:
    """--json prints the decision record, with the solution space considered."""
    code, out, _ = run(
        capsys, "tier", "--json", "--solution-space", "exact names given", "tidy the module names"
    )
    data = json.loads(out)
    assert code == 0
    assert data["outcome"] == "default_tier_used"
    assert data["selected_tier"] == "normal"
    assert data["model"] == "@task"
    assert data["solution_space_preview"] == "exact names given"
    assert data["classifier"] == "rules"


@pytest.mark.parametrize(
    ("args", "outcome", "model"),
    [
        (["--model", "vendor/model-x"], "explicit_model_preserved", "(unchanged)"),
        (["--model", "@task"], "routed", "@task_cheap"),
        (["--role", "smol"], "explicit_model_preserved", "(unchanged)"),
        (["--role", "@hard"], "routed", "@task_cheap"),
        (["--role", "task", "--model", "vendor/model-x"], "routed", "@task_cheap"),
    ],
)
def test_tier_explicit_model_policy(
    capsys: pytest.CaptureFixture[str], args: list[str], outcome: str, model: str
) -> None:
    """Concrete selectors and foreign roles are preserved; task and tier roles route."""
    code, out, _ = run(capsys, "tier", *args, "rename foo to bar")
    assert code == 0
    assert f"outcome: {outcome}" in out
    assert f"model:   {model}" in out


def test_tier_bad_config_fails_open_or_strict(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A malformed [tiers] is a config error (exit 2); --fail-open prints router_disabled."""
    bad = tmp_path / "bad.toml"
    bad.write_text("[tiers]\nenabled = 'yes'\n", encoding="utf-8")
    code, out, err = run(capsys, "tier", "--fail-open", "--config", str(bad), "fix it")
    assert code == 0
    assert "outcome: router_disabled" in out
    assert "model:   (unchanged)" in out
    assert err.count("\n") == 1
    assert f"{bad}: tiers.enabled: expected a boolean" in err
    code, out, err = run(capsys, "tier", "--config", str(bad), "fix it")
    assert code == 2
    assert out == ""
    assert err.startswith("smista tier: error: ")
    assert "tiers.enabled" in err


def test_tier_both_stdin_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    """TASK and --solution-space cannot both read stdin."""
    code, _, err = run(capsys, "tier", "--solution-space", "-", "-")
    assert code == 2
    assert "only one of TASK and --solution-space" in err


def llm_config(path: Path, url: str, timeout_ms: int) -> Path:
    path.write_text(
        "[tiers]\nclassifier = 'llm'\ndefault_tier = 'normal'\n"
        "[tiers.models]\ncheap = 'm-cheap'\nnormal = 'm-normal'\nhard = 'm-hard'\n"
        f"[tiers.llm]\nmodel = 'tiny'\nendpoint = '{url}'\ntimeout_ms = {timeout_ms}\n",
        encoding="utf-8",
    )
    return path


def test_tier_cli_with_llm_classifier(
    run_cli: RunCli, chat_server: ChatServer, tmp_path: Path
) -> None:
    """End to end: the command reads the task from stdin and asks the real endpoint."""
    chat_server.reply = '{"tier": "hard", "reason": "unknown cause"}'
    config = llm_config(tmp_path / "llm.toml", chat_server.url, 20_000)
    proc = run_cli(
        ["tier", "--config", str(config), "--json", "-"], stdin=b"debug the flaky deploy"
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert (data["outcome"], data["model"], data["reason"]) == ("routed", "m-hard", "unknown cause")
    assert data["classifier_model"] == "tiny"
    assert (
        chat_server.requests[0]["body"]["messages"][1]["content"] == "Task:\ndebug the flaky deploy"
    )


def test_tier_cli_timeout_fails_open(
    run_cli: RunCli, chat_server: ChatServer, tmp_path: Path
) -> None:
    """A slow classifier: classifier_timeout, the default tier's model, exit 0."""
    chat_server.mode = "slow"
    config = llm_config(tmp_path / "llm.toml", chat_server.url, 300)
    proc = run_cli(["tier", "--config", str(config), "some task"])
    out = proc.stdout.decode()
    assert proc.returncode == 0, proc.stderr
    assert "outcome: classifier_timeout" in out
    assert "model:   m-normal" in out


# -- smista ground -------------------------------------------------------------------------


def test_ground_text_report(capsys: pytest.CaptureFixture[str]) -> None:
    """Score, abstention, missing and weak keys, reason."""
    code, out, _ = run(capsys, "ground", "--required", "a,b,c", '{"a":"x","b":"TODO"}')
    assert code == 0
    assert out.splitlines() == [
        "score:   0.333",
        "abstain: yes (threshold 0.5)",
        "missing: c",
        "weak:    b",
        "reason:  missing required keys: c; placeholder-like values: b",
    ]


def test_ground_json_and_fail_on_abstain(capsys: pytest.CaptureFixture[str]) -> None:
    """--json is the report plus abstain/threshold; --fail-on-abstain exits 1 only when abstaining."""
    code, out, _ = run(
        capsys,
        "ground",
        "--json",
        "--fail-on-abstain",
        "--required",
        "a,b,c",
        '{"a":"x","b":"TODO"}',
    )
    assert code == 1
    assert json.loads(out) == {
        "score": 0.33333333333333337,
        "missing_keys": ["c"],
        "weak_keys": ["b"],
        "reason": "missing required keys: c; placeholder-like values: b",
        "abstain": True,
        "threshold": 0.5,
    }
    code, out, _ = run(capsys, "ground", "--fail-on-abstain", "--required", "path", '{"path":"/x"}')
    assert code == 0
    assert "abstain: no" in out


@pytest.mark.parametrize(
    ("threshold", "abstain", "shown"),
    [("0.9", True, 0.9), ("0", False, 0.5), ("-1", False, 0.5), ("2", True, 1.0)],
)
def test_ground_threshold_is_clamped(
    capsys: pytest.CaptureFixture[str], threshold: str, abstain: bool, shown: float
) -> None:
    """--threshold: <= 0 means 0.5, above 1 means 1; abstention is strictly below."""
    code, out, _ = run(
        capsys,
        "ground",
        "--json",
        f"--threshold={threshold}",
        "--required",
        "a,b",
        '{"a":"v"}',
    )
    data = json.loads(out)
    assert code == 0
    assert data["score"] == 0.5
    assert (data["abstain"], data["threshold"]) == (abstain, shown)


def test_ground_threshold_nan_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    """NaN would never abstain (so --fail-on-abstain could never fail) and --json would
    print it as NaN, which is not JSON: it is refused instead."""
    code, out, err = run(
        capsys,
        "ground",
        "--json",
        "--fail-on-abstain",
        "--threshold",
        "nan",
        "--required",
        "a",
        "{}",
    )
    assert (code, out) == (2, "")
    assert err == "smista ground: error: --threshold must be a number, got 'nan'\n"


def test_ground_required_parsing(capsys: pytest.CaptureFixture[str]) -> None:
    """Repeated --required values join; blanks are dropped; '' means no required keys."""
    code, out, _ = run(capsys, "ground", "--json", "--required", " a , ,b", "--required", "c", "{}")
    assert json.loads(out)["missing_keys"] == ["a", "b", "c"]
    code, out, _ = run(capsys, "ground", "--json", "--required", "", "{}")
    assert json.loads(out)["score"] == 1.0
    assert code == 0


@pytest.mark.parametrize(
    ("params", "fragment"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "got an array"),
        ("null", "got null"),
        ('{"a": NaN}', "NaN"),
    ],
)
def test_ground_rejects_bad_params(
    capsys: pytest.CaptureFixture[str], params: str, fragment: str
) -> None:
    """PARAMS_JSON must be a JSON object: one-line error, exit 2."""
    code, out, err = run(capsys, "ground", "--required", "a", params)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    assert fragment in err


def test_ground_reads_stdin_and_requires_required(run_cli: RunCli) -> None:
    """PARAMS_JSON '-' reads stdin; --required is mandatory (usage error, exit 2)."""
    proc = run_cli(
        ["ground", "--json", "--required", "target", "-"], stdin=b'{"target": "<your-target>"}'
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["weak_keys"] == ["target"]
    proc = run_cli(["ground", "{}"])
    assert proc.returncode == 2
    assert b"--required" in proc.stderr
    assert b"Traceback" not in proc.stderr
