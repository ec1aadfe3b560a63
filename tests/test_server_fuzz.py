"""Property-based fuzzing of the live HTTP service from its own OpenAPI document.

schemathesis generates valid and invalid requests for every operation of the
OpenAPI document and sends them over loopback to a real ``smista serve``: no
answer may be a 5xx, and every answer must match the documented status codes,
content type, headers and schema. The document is built at collection time
with the same function and settings as the server's, and a test checks that
it is exactly what the server serves at ``/openapi.json``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("uvicorn")
schemathesis = pytest.importorskip("schemathesis")

from hypothesis import HealthCheck, settings  # noqa: E402

from smista.server.auth import BearerToken  # noqa: E402
from smista.server.openapi import build_openapi  # noqa: E402
from smista.server.plugins import available_endpoints  # noqa: E402
from smista.server.settings import ServerSettings  # noqa: E402
from tests.decision_server import refused_url  # noqa: E402
from tests.live import LiveServer  # noqa: E402

TOKEN = "fuzz-token-0123456789"
ARGS = ["--max-batch", "20", "--max-prompt-chars", "2000", "--log-level", "warning"]
DOC = build_openapi(
    ServerSettings(max_batch=20, max_prompt_chars=2000, token=BearerToken(TOKEN)),
    available_endpoints(),
)
schema = schemathesis.openapi.from_dict(DOC)


# /v1/preview needs a route for every request (else 422 no_route, a config
# condition, not a bad request); the decision stage points at a closed port, so
# every preview also exercises the fail-open path.
CONFIG = """
[routing.default]
model = "ollama/local"

[[routing.rules]]
name = "edits"
intent = "edit"
paths = ["src/**"]
model = "anthropic/claude"

[decision]
enabled = true
provider = "openai"
base_url = "{url}/v1"
model = "jev"
timeout_s = 1

[decision.switch]
simple = "a/simple"
standard = "a/standard"
complex = "a/complex"
"""


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    config = tmp_path_factory.mktemp("fuzz") / "smista.toml"
    config.write_text(CONFIG.format(url=refused_url()), "utf-8")
    args = [*ARGS, "--config", str(config)]
    with LiveServer(args, env={"SMISTA_API_TOKEN": TOKEN}) as server:
        yield server


def test_the_fuzzed_document_is_the_served_one(live: LiveServer) -> None:
    """The document fuzzed here is byte-for-byte the server's /openapi.json."""
    with live.client() as c:
        assert c.get("/openapi.json").json() == DOC


@schema.parametrize()  # type: ignore[untyped-decorator]
@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
def test_every_answer_is_documented_and_never_5xx(case: Any, live: LiveServer) -> None:
    """Generated requests get documented, schema-conforming, non-5xx answers."""
    case.call_and_validate(base_url=live.url, headers={"Authorization": f"Bearer {TOKEN}"})
