"""``POST /v1/route`` over loopback, and the claude-code-router script of docs/hosts.md against it."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("uvicorn")

from smista.server.route import ccr_model
from tests.conftest import DATA, ROOT
from tests.live import LiveServer

CCR = DATA / "hosts" / "ccr"

POLICY = """
[routing.default]
model = "deepseek/deepseek-chat"

[[routing.rules]]
name = "plans think hard"
priority = 10
intent = "plan"
model = "openrouter/anthropic/claude-opus-4.1"
fallbacks = ["deepseek/deepseek-reasoner"]
"""


def body(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((CCR / name).read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Any:
    config = tmp_path_factory.mktemp("route") / "smista.toml"
    config.write_text(POLICY, encoding="utf-8")
    with LiveServer(["--config", str(config)]) as server:
        yield server


def post(live: LiveServer, payload: object) -> tuple[int, dict[str, Any]]:
    with live.client() as c:
        r = c.post("/v1/route", json=payload)
    return r.status_code, r.json()


def test_ccr_body_of_a_plan_turn_routes_to_the_plan_model(live: LiveServer) -> None:
    """The last user message is a tool result: the turn's user text is the plan prompt."""
    status, answer = post(live, body("anthropic-plan.json"))
    assert status == 200
    assert answer["model"] == "openrouter,anthropic/claude-opus-4.1"
    assert answer["model_ref"] == "openrouter/anthropic/claude-opus-4.1"
    assert answer["fallbacks"] == ["deepseek,deepseek-reasoner"]
    assert answer["intent"] == "plan"
    assert answer["matched_rule"] == "plans think hard"
    assert answer["reason"] == "rule 'plans think hard' matched on intent"
    assert answer["housekeeping"] is None


def test_an_edit_turn_takes_the_default_route(live: LiveServer) -> None:
    """The system prompt and the CLAUDE.md reminder mention fixing; the user asked to fix."""
    status, answer = post(live, body("anthropic-edit.json"))
    assert status == 200
    assert (answer["model"], answer["intent"]) == ("deepseek,deepseek-chat", "edit")


@pytest.mark.parametrize("name", ["openai-chat-plan.json", "responses-plan.json"])
def test_chat_and_responses_bodies_route_like_the_anthropic_one(
    live: LiveServer, name: str
) -> None:
    status, answer = post(live, body(name))
    assert status == 200
    assert (answer["model"], answer["intent"]) == ("openrouter,anthropic/claude-opus-4.1", "plan")


def test_housekeeping_and_user_choices_get_no_opinion(live: LiveServer) -> None:
    status, title = post(live, body("anthropic-title.json"))
    assert status == 200
    assert title["model"] is None
    assert title["housekeeping"] == "title"
    assert title["reason"].startswith("housekeeping call (title")
    chosen = {**body("anthropic-plan.json"), "model": "deepseek,deepseek-reasoner"}
    status, answer = post(live, chosen)
    assert (status, answer["model"], answer["intent"]) == (200, None, "plan")
    assert answer["reason"] == "the request already names 'deepseek,deepseek-reasoner'"


def test_bad_bodies_are_422_with_the_key_path(live: LiveServer) -> None:
    bad = body("anthropic-edit.json")
    bad["messages"][0]["content"] = 42
    status, answer = post(live, bad)
    assert status == 422
    assert answer["error"]["code"] == "invalid_request"
    assert answer["error"]["details"][0]["loc"] == "messages[0].content"
    status, answer = post(live, {"model": "x", "max_tokens": 5})
    assert status == 422
    assert "'messages'" in answer["error"]["details"][0]["message"]
    assert post(live, {"messages": "hi"})[0] == 422


def test_the_prompt_limit_holds_for_the_turn_text(tmp_path: Path) -> None:
    config = tmp_path / "smista.toml"
    config.write_text(POLICY, encoding="utf-8")
    long = body("anthropic-edit.json")
    long["messages"][0]["content"][1]["text"] = "fix " * 100
    with LiveServer(["--config", str(config), "--max-prompt-chars", "300"]) as server:
        status, answer = post(server, long)
        assert (status, answer["error"]["code"]) == (422, "prompt_too_large")
        status, answer = post(server, body("anthropic-edit.json"))  # its reminder is stripped
        assert (status, answer["intent"]) == (200, "edit")


def test_without_a_policy_there_is_no_opinion(tmp_path: Path) -> None:
    config = tmp_path / "smista.toml"
    config.write_text("# no [routing]\n", encoding="utf-8")
    with LiveServer(["--config", str(config)]) as server:
        status, answer = post(server, body("anthropic-plan.json"))
    assert (status, answer["model"], answer["intent"]) == (200, None, "plan")
    assert answer["reason"] == "no routing policy configured"


def test_route_is_in_the_openapi_document(live: LiveServer) -> None:
    with live.client() as c:
        doc = c.get("/openapi.json").json()
    op = doc["paths"]["/v1/route"]["post"]
    assert op["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "RouteAnswer"
    )


def test_ccr_model_form() -> None:
    assert (
        ccr_model("openrouter/anthropic/claude-opus-4.1") == "openrouter,anthropic/claude-opus-4.1"
    )


# -- the claude-code-router script from docs/hosts.md ---------------------------------


def ccr_script() -> str:
    """The ``js`` block under the claude-code-router section of docs/hosts.md."""
    text = (ROOT / "docs" / "hosts.md").read_text(encoding="utf-8")
    section = text.split("## claude-code-router", 1)[1].split("\n## ", 1)[0]
    (script,) = re.findall(r"```js\n(.*?)```", section, re.DOTALL)
    return str(script)


HARNESS = """
const router = require(process.argv[2]);
const body = JSON.parse(require("fs").readFileSync(0, "utf8"));
const tokenCount = Number(process.env.TOKENS || 100);
const settings = { Router: { default: "deepseek,deepseek-chat", longContext: "gemini,gemini-2.5-pro" } };
(async () => {
  // CCR's classic call, then the (config, context) form of newer releases.
  const classic = await router({ body, tokenCount, log: console }, settings, { event: null });
  const modern = await router(settings, { request: { body }, scenario: "default", tokenCount });
  process.stdout.write(JSON.stringify({ classic, modern }));
})();
"""


def run_script(tmp_path: Path, payload: object, url: str, tokens: int = 100) -> dict[str, Any]:
    script = tmp_path / "smista-router.js"
    script.write_text(ccr_script(), encoding="utf-8")
    harness = tmp_path / "harness.js"
    harness.write_text(HARNESS, encoding="utf-8")
    node = shutil.which("node")
    assert node is not None
    proc = subprocess.run(
        [node, str(harness), str(script)],
        input=json.dumps(payload).encode(),
        capture_output=True,
        timeout=60,
        check=False,
        env={"PATH": "/usr/bin:/bin", "SMISTA_URL": url, "TOKENS": str(tokens)},
    )
    assert proc.returncode == 0, proc.stderr
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js, as CCR does")
def test_the_documented_ccr_script_routes_through_the_service(
    live: LiveServer, tmp_path: Path
) -> None:
    url = f"http://127.0.0.1:{live.port}/v1/route"
    assert run_script(tmp_path, body("anthropic-plan.json"), url) == {
        "classic": "openrouter,anthropic/claude-opus-4.1",
        "modern": "openrouter,anthropic/claude-opus-4.1",
    }
    # A Haiku background call is left to CCR without asking smista ...
    haiku_plan = {**body("anthropic-plan.json"), "model": "claude-3-5-haiku-20241022"}
    assert run_script(tmp_path, haiku_plan, url) == {"classic": None, "modern": None}
    # ... and so are sub-agent tags and long contexts (CCR's own routes) ...
    tagged = body("anthropic-plan.json")
    tagged["system"].insert(
        1, {"type": "text", "text": "<CCR-SUBAGENT-MODEL>a,b</CCR-SUBAGENT-MODEL>"}
    )
    assert run_script(tmp_path, tagged, url) == {"classic": None, "modern": None}
    long = run_script(tmp_path, body("anthropic-plan.json"), url, tokens=70000)
    assert long == {"classic": None, "modern": None}
    # ... and a housekeeping call to another model gets smista's "no opinion".
    title = {**body("anthropic-title.json"), "model": "claude-sonnet-4-5-20250929"}
    assert run_script(tmp_path, title, url) == {"classic": None, "modern": None}


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js, as CCR does")
def test_the_documented_ccr_script_fails_open_when_smista_is_down(tmp_path: Path) -> None:
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1/route"
    assert run_script(tmp_path, body("anthropic-plan.json"), url) == {
        "classic": None,
        "modern": None,
    }
