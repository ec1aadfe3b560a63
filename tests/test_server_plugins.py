"""Pluggable POST endpoints: mounted, documented, built per rule generation, served."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("uvicorn")

from pydantic import BaseModel, ConfigDict, StrictStr

from smista.config.defaults import default_classifier
from smista.core.classifier import Classifier
from smista.core.errors import ConfigError
from smista.server.app import create_app
from smista.server.errors import ApiError
from smista.server.openapi import build_openapi
from smista.server.plugins import ENDPOINT_MODULES, Handled, RequestContext
from smista.server.settings import ServerSettings
from tests.live import ThreadServer


class ShoutRequest(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    text: StrictStr


class ShoutResponse(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    intent: StrictStr
    shout: StrictStr
    generation_rules: int


RULES = len(default_classifier().config.rules)
builds: list[Any] = []
commits: list[Any] = []


class Shout:
    """A small real endpoint: classifies, then shouts the text back."""

    name = "shout"
    path = "/v1/shout"
    summary = "Classify and shout."
    request_model = ShoutRequest
    response_model = ShoutResponse
    prompt_fields = ("text",)
    error_statuses: Mapping[int, str] = {409: "Refuses to shout 'quiet'."}

    def build(
        self,
        document: Mapping[str, Any],
        source: str | None,
        classifier: Classifier,
        previous: Any,
    ) -> object:
        routing = document.get("routing", {})
        if routing.get("shout") == "broken":
            raise ConfigError([("routing.shout", "expected anything but 'broken'")], source)
        builds.append(previous)
        return len(classifier.config.rules)

    def commit(self, runtime: Any) -> None:
        commits.append(runtime)

    async def handle(self, runtime: Any, request: Any, ctx: RequestContext) -> Handled:
        if request.text == "quiet":
            raise ApiError(409, "too_quiet", "refusing to shout 'quiet'")
        intent = ctx.classifier.classify(request.text).intent
        return Handled(
            ShoutResponse(intent=intent, shout=request.text.upper(), generation_rules=runtime),
            {"intent": intent},
        )


def test_the_real_endpoint_modules_are_the_preview_and_tier_ones() -> None:
    """The service looks for /v1/preview, /v1/tier and /v1/route in their own modules."""
    assert ENDPOINT_MODULES == (
        "smista.server.preview",
        "smista.server.tier",
        "smista.server.route",
    )


def test_a_plugged_endpoint_is_served_and_documented() -> None:
    """It answers over HTTP; its shapes and statuses are in the document."""
    app = create_app(ServerSettings(), endpoints=[Shout()])
    with ThreadServer(app) as live, live.client() as c:
        r = c.post("/v1/shout", json={"text": "please fix this"})
        assert r.status_code == 200
        assert r.json() == {
            "intent": "edit",
            "shout": "PLEASE FIX THIS",
            "generation_rules": RULES,
        }
        assert len(r.headers["x-smista-rules-sha256"]) == 64
        refused = c.post("/v1/shout", json={"text": "quiet"})
        assert (refused.status_code, refused.json()["error"]["code"]) == (
            409,
            "too_quiet",
        )
        bad = c.post("/v1/shout", json={"txt": "x"})
        assert bad.status_code == 422
        doc = c.get("/openapi.json").json()
    op = doc["paths"]["/v1/shout"]["post"]
    assert {"200", "400", "409", "413", "415", "421", "422", "500"} == set(op["responses"])
    schemas = doc["components"]["schemas"]
    assert {"ShoutRequest", "ShoutResponse"} <= set(schemas)
    assert schemas["ShoutRequest"]["properties"]["text"]["maxLength"] == 1024 * 1024
    assert doc == build_openapi(ServerSettings(), [Shout()])


def test_the_prompt_limit_applies_to_plugged_endpoints() -> None:
    """A plugged request's text is held to the same prompt limit."""
    app = create_app(ServerSettings(max_prompt_chars=5), endpoints=[Shout()])
    with ThreadServer(app) as live, live.client() as c:
        r = c.post("/v1/shout", json={"text": "too long"})
    assert (r.status_code, r.json()["error"]["code"]) == (422, "prompt_too_large")


def test_a_broken_section_stops_the_start_and_fails_a_reload(tmp_path: Path) -> None:
    """The endpoint's build runs at load and at every reload, under the same rules."""
    config = tmp_path / "smista.toml"
    config.write_text('[routing]\nshout = "broken"\n', "utf-8")
    with pytest.raises(ConfigError, match=r"routing\.shout"):
        create_app(ServerSettings(config_path=str(config)), endpoints=[Shout()])
    config.write_text('[routing]\nshout = "fine"\n', "utf-8")
    app = create_app(ServerSettings(config_path=str(config)), endpoints=[Shout()])
    holder = app.state.holder
    config.write_text('[routing]\nshout = "broken"\n', "utf-8")
    with pytest.raises(ConfigError):
        holder.reload()
    assert holder.current.generation == 1
    config.write_text('[routing]\nshout = "again"\n', "utf-8")
    builds.clear()
    commits.clear()
    assert holder.reload().generation == 2
    assert builds == [RULES]  # the new build saw the runtime it replaces
    assert commits == [RULES]  # and was committed once in service
