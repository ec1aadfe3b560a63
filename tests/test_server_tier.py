"""``POST /v1/tier`` over loopback: the tier router's decisions, reloads, limits."""

from __future__ import annotations

import json
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("uvicorn")

from smista.tiers.loader import default_tiers, parse_tiers
from smista.tiers.request import TierRequest
from smista.tiers.router import TierRouter
from tests.live import LiveServer

VOLATILE = ("timestamp", "latency_ms")

TIERS_A = """\
[tiers]
enabled = true
default_tier = "normal"
classifier = "rules"

[tiers.models]
cheap = "small-model"
normal = "medium-model"
hard = "big-model"

[[tiers.rules]]
tier = "hard"
keywords = ["deadlock"]

[[tiers.rules]]
tier = "cheap"
keywords = ["rename"]
"""

TIERS_B = TIERS_A.replace('hard = "big-model"', 'hard = "huge-model"')
TIERS_BAD = TIERS_A.replace('default_tier = "normal"', 'default_tier = "medium"')


def stable(decision: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in decision.items() if k not in VOLATILE}


def in_process(config: Any, **request: Any) -> dict[str, Any]:
    router = TierRouter(config)
    contexts = frozenset(request.pop("contexts", ()))
    return stable(router.route_sync(TierRequest(**request, contexts=contexts)).as_dict())


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    with LiveServer() as live:
        yield live


@pytest.mark.parametrize(
    "request_body",
    [
        {"task": "investigate the intermittent deadlock in the scheduler"},
        {"task": "rename the variable foo to bar across the repo"},
        {"task": "add a field to the form", "solution_space": "one obvious way"},
        {"task": "fix it", "model": "provider/concrete-model"},
        {"task": "fix it", "role": "smol"},
        {"task": "fix it", "role": "task", "model": "x"},
        {},
        {"task": None, "solution_space": ""},
    ],
    ids=["hard", "cheap", "default", "explicit", "role", "task-role", "empty", "blank"],
)
def test_tier_answers_the_routers_decision(server: LiveServer, request_body) -> None:
    """With no config the shipped tier pack decides, exactly as in-process."""
    with server.client() as c:
        r = c.post("/v1/tier", json=request_body)
    assert r.status_code == 200
    got = r.json()
    assert stable(got) == in_process(default_tiers(), **request_body)
    assert set(VOLATILE) <= set(got)


def test_tier_logs_no_task_text(server: LiveServer) -> None:
    """The decision record has the outcome and tier but not the task."""
    with server.client() as c:
        c.post(
            "/v1/tier",
            json={"task": "diagnose the quokkabug leak"},
            headers={"X-Request-Id": "tier-1"},
        )
    rec = server.wait_for(
        lambda r: r.get("event") == "decision" and r.get("request_id") == "tier-1"
    )
    assert rec["message"] == "tier"
    assert rec["outcome"] == "routed"
    assert rec["selected_tier"] == "hard"
    assert "quokkabug" not in server.log_text()


def test_tier_is_documented(server: LiveServer) -> None:
    """/openapi.json has the tier operation with its shapes and the prompt limit."""
    with server.client() as c:
        doc = c.get("/openapi.json").json()
    op = doc["paths"]["/v1/tier"]["post"]
    assert op["operationId"] == "tier"
    schemas = doc["components"]["schemas"]
    task = schemas["TierBody"]["properties"]["task"]["anyOf"]
    assert {"type": "string", "maxLength": 1024 * 1024} in task
    assert "outcome" in schemas["TierAnswer"]["required"]


def test_tier_matches_the_cli(server: LiveServer, run_cli) -> None:
    """The HTTP answer is the object ``smista tier --json`` prints."""
    task = "migrate the billing service to the new architecture"
    proc = run_cli(["tier", "--json", task])
    assert proc.returncode == 0
    with server.client() as c:
        r = c.post("/v1/tier", json={"task": task})
    assert stable(r.json()) == stable(json.loads(proc.stdout))


def test_tier_config_reloads_and_bad_tiers_keep_the_old(tmp_path: Path) -> None:
    """[tiers] from --config: a reload switches models; a broken table is refused."""
    config = tmp_path / "smista.toml"
    config.write_text(TIERS_A, "utf-8")
    body = {"task": "a deadlock in the cache"}
    with LiveServer(["--config", str(config)]) as live, live.client() as c:
        assert c.post("/v1/tier", json=body).json()["model"] == "big-model"
        mark = live.mark()
        config.write_text(TIERS_B, "utf-8")
        live.signal(signal.SIGHUP)
        live.wait_for(lambda r: r.get("event") == "reloaded", start=mark)
        got = c.post("/v1/tier", json=body).json()
        assert stable(got) == in_process(parse_tiers(TIERS_B), **body)
        assert got["model"] == "huge-model"

        mark = live.mark()
        config.write_text(TIERS_BAD, "utf-8")
        live.signal(signal.SIGHUP)
        rec = live.wait_for(lambda r: r.get("event") == "reload_failed", start=mark)
        assert [e["loc"] for e in rec["errors"]] == ["tiers.default_tier"]
        assert c.post("/v1/tier", json=body).json()["model"] == "huge-model"


def test_a_bad_tiers_table_stops_the_start(run_cli, tmp_path: Path) -> None:
    """A broken [tiers] at start is one error line with its key path; exit 2."""
    config = tmp_path / "smista.toml"
    config.write_text(TIERS_BAD, "utf-8")
    proc = run_cli(["serve", "--port", "0", "--config", str(config)], timeout=30)
    assert proc.returncode == 2
    assert "tiers.default_tier" in proc.stderr.decode()


def test_task_over_the_prompt_limit_is_422() -> None:
    """The task and solution space are held to --max-prompt-chars."""
    with LiveServer(["--max-prompt-chars", "10"]) as live, live.client() as c:
        r = c.post("/v1/tier", json={"task": "ok", "solution_space": "x" * 11})
    assert r.status_code == 422
    assert r.json()["error"]["details"][0]["loc"] == "solution_space"
