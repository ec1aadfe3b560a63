"""``POST /v1/preview`` over loopback, with a real loopback decision-model server."""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("uvicorn")

from smista.config.settings import parse_settings
from smista.core.workspace import Workspace
from smista.decision.preview import build_preview, conversation_for
from smista.decision.providers import build_stage
from smista.decision.state import messages_from_records
from tests.decision_server import decision_server, refused_url
from tests.live import LiveServer
from tests.preview_config import ROUTING, SWITCH, decision_table

KEY = "sk-server-secret-5d1e"
KEY_ENV = "SMISTA_TEST_DECISION_KEY"


def decision(url: str) -> str:
    return decision_table(url, provider="openai", key_env=KEY_ENV)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "smista.toml"
    path.write_text(text, "utf-8")
    return path


BODY: dict[str, Any] = {
    "text": "refactor the session handling",
    "workspace": {"root": "/repo", "git_branch": "main", "referenced_paths": ["src/auth/a.rs"]},
    "active_model": "openai/mini",
    "history": [
        {"role": "user", "content": "earlier task"},
        {"role": "tool", "content": "ignored"},
        {"role": "assistant", "content": "done"},
    ],
}


def in_process(config_text: str, body: dict[str, Any], env: dict[str, str]) -> dict[str, Any]:
    settings = parse_settings(config_text)
    workspace = Workspace.model_validate(body["workspace"]) if "workspace" in body else None
    outcome = None
    if settings.decision.enabled and not body.get("skip_decision"):
        stage = build_stage(settings.decision, environ=env)
        assert stage is not None
        history = messages_from_records(body.get("history", []))
        conversation = conversation_for(body["text"], history=history, workspace=workspace)
        outcome = stage.classify_sync(conversation)
    preview = build_preview(
        body["text"],
        classification=settings.classification,
        routing=settings.routing,
        switch=settings.decision.switch,
        decision=outcome,
        command=body.get("command"),
        contexts=body.get("contexts", ()),
        workspace=workspace,
        explicit_model=body.get("explicit_model"),
        active_model=body.get("active_model"),
    )
    return preview.to_json_dict()


def test_preview_with_a_decision_model_equals_the_library(tmp_path: Path) -> None:
    """Classification, decision, routing and switch: exactly build_preview's answer."""
    with decision_server(expected_key=KEY, category="complex", probability=0.95) as (url, b):
        text = ROUTING + decision(url) + SWITCH
        config = write(tmp_path, text)
        env = {KEY_ENV: KEY}
        with LiveServer(["--config", str(config)], env=env) as live, live.client() as c:
            r = c.post("/v1/preview", json=BODY, headers={"X-Request-Id": "pv-1"})
            assert r.status_code == 200
            got = r.json()
            assert got == in_process(text, BODY, env)
            assert got["decision"]["status"] == "ok"
            assert got["routing"]["matched_rule"] == "auth edits use Claude"
            assert got["switch"]["switched"] is True
            sent = b.requests[0].body["messages"][-1]["content"]
            assert "ignored" not in sent  # only user/assistant text reaches the model
            rec = live.wait_for(
                lambda x: x.get("event") == "decision" and x.get("request_id") == "pv-1"
            )
            assert rec["route"] == "anthropic/claude-sonnet"
            assert rec["decision_status"] == "ok"
            log = live.log_text()
        assert KEY not in log
        assert "session handling" not in log


def test_preview_fails_open_when_the_decision_model_fails(tmp_path: Path) -> None:
    """A 500 or a refused connection: decision unavailable, rules still route, 200."""
    with decision_server(fault="500") as (url, _):
        for base in (url, refused_url()):
            config = write(tmp_path, ROUTING + decision(base))
            live = LiveServer(["--config", str(config)], env={KEY_ENV: KEY})
            with live, live.client() as c:
                r = c.post("/v1/preview", json=BODY)
            assert r.status_code == 200
            got = r.json()
            assert got["decision"]["status"] == "unavailable"
            assert got["decision"]["reason"].startswith("decision unavailable: ")
            assert got["routing"]["model"] == "claude-sonnet"


def test_skip_decision_calls_no_model(tmp_path: Path) -> None:
    """skip_decision routes on the rules alone without contacting the decision model."""
    with decision_server() as (url, b):
        config = write(tmp_path, ROUTING + decision(url))
        live = LiveServer(["--config", str(config)], env={KEY_ENV: KEY})
        with live, live.client() as c:
            r = c.post("/v1/preview", json={**BODY, "skip_decision": True})
        assert (
            r.json()["decision"]["status"] == "skipped"
        )  # issue 15: a configured stage is skipped, not disabled
        assert b.requests == []


def test_preview_matches_the_cli(tmp_path: Path, run_cli) -> None:
    """The HTTP answer is what ``smista preview --json`` prints for the same inputs."""
    config = write(tmp_path, ROUTING + SWITCH)
    args = ["preview", "--json", "--config", str(config), "--cwd", "/repo"]
    args += ["--branch", "main", "--path", "src/auth/a.rs", "--active-model", "openai/std"]
    proc = run_cli([*args, "--context", "git_diff", "refactor the auth"])
    assert proc.returncode == 0, proc.stderr
    body = {
        "text": "refactor the auth",
        "contexts": ["git_diff"],
        "workspace": {"root": "/repo", "git_branch": "main", "referenced_paths": ["src/auth/a.rs"]},
        "active_model": "openai/std",
    }
    with LiveServer(["--config", str(config)]) as live, live.client() as c:
        r = c.post("/v1/preview", json=body)
    assert r.json() == json.loads(proc.stdout)


def test_no_route_and_bad_overrides_are_422(tmp_path: Path) -> None:
    """No [routing] means no route (422 no_route); a malformed override is a 422 too."""
    config = write(tmp_path, "[classification]\n")
    with LiveServer(["--config", str(config)]) as live, live.client() as c:
        r = c.post("/v1/preview", json={"text": "hello"})
        assert (r.status_code, r.json()["error"]["code"]) == (422, "no_route")
        ok = c.post("/v1/preview", json={"text": "hello", "explicit_model": "a/b/c"})
        assert ok.status_code == 200
        assert ok.json()["routing"]["override_used"] is True
        for model in ("nomodel", "/model", "provider/", "/"):
            bad = c.post("/v1/preview", json={"text": "hello", "explicit_model": model})
            assert bad.status_code == 422
            assert bad.json()["error"]["details"] == [
                {
                    "loc": "explicit_model",
                    "message": "explicit_model must be 'provider/model', "
                    "e.g. 'anthropic/claude-sonnet'",
                }
            ]
        blank = c.post("/v1/preview", json={"text": "hello", "contexts": [""]})
        assert blank.json()["error"]["details"] == [
            {"loc": "contexts[0]", "message": "a context kind cannot be empty"}
        ]


def test_routing_reloads_and_a_bad_decision_section_keeps_the_old(tmp_path: Path) -> None:
    """SIGHUP picks up a new [routing]; an invalid [decision] is refused at reload."""
    config = write(tmp_path, ROUTING)
    with LiveServer(["--config", str(config)]) as live, live.client() as c:
        hello = {"text": "hello"}
        assert c.post("/v1/preview", json=hello).json()["routing"]["model"] == "mock-local"
        mark = live.mark()
        config.write_text(ROUTING.replace("ollama/mock-local", "ollama/other"), "utf-8")
        live.signal(signal.SIGHUP)
        live.wait_for(lambda r: r.get("event") == "reloaded", start=mark)
        assert c.post("/v1/preview", json=hello).json()["routing"]["model"] == "other"
        mark = live.mark()
        config.write_text(ROUTING + "\n[decision]\nenabled = true\n", "utf-8")
        live.signal(signal.SIGHUP)
        rec = live.wait_for(lambda r: r.get("event") == "reload_failed", start=mark)
        assert {e["loc"] for e in rec["errors"]} >= {"decision.provider"}
        assert c.post("/v1/preview", json=hello).json()["routing"]["model"] == "other"


def test_a_missing_decision_key_stops_the_start(tmp_path: Path, run_cli) -> None:
    """The key variable is checked when the stage is built: one line, exit 2."""
    config = write(tmp_path, ROUTING + decision("http://127.0.0.1:9"))
    proc = run_cli(["serve", "--port", "0", "--config", str(config)], timeout=30)
    assert proc.returncode == 2
    lines = proc.stderr.decode().splitlines()
    assert len(lines) == 1
    assert "decision.api_key_env" in lines[0]
