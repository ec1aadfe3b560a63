"""Web pages are kept out of a token-less service on loopback (docs/http.md, "Requests
from browsers"): POST bodies must be declared JSON (415 otherwise: no cross-site
"simple" request reaches a handler), and on loopback only loopback ``Host`` names are
answered (421 otherwise: DNS rebinding cannot read answers), unless ``--allow-host``.

Everything over real loopback, against a real ``smista serve``.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

pytest.importorskip("uvicorn")

from smista.server.auth import HostCheck, host_name
from smista.server.body import is_json_type
from tests.conftest import RunCli, cli_env
from tests.live import LiveServer

POSTS = {
    "/v1/classify": {"text": "fix the login bug"},
    "/v1/classify/batch": {"items": [{"text": "fix the login bug"}]},
    "/v1/preview": {"text": "fix the login bug", "skip_decision": True},
    "/v1/tier": {"task": "fix the flaky test"},
    "/v1/route": {"messages": [{"role": "user", "content": "plan the migration"}]},
}
CONFIG = '[routing.default]\nmodel = "anthropic/claude-sonnet"\n'


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    config = tmp_path_factory.mktemp("browsers") / "smista.toml"
    config.write_text(CONFIG, encoding="utf-8")
    with LiveServer(["--config", str(config)]) as live:
        yield live


def bare_client(live: LiveServer) -> httpx.Client:
    """A client without the JSON default header of ``LiveServer.client``."""
    return httpx.Client(base_url=live.url, timeout=30.0)


# -- the JSON Content-Type of POST bodies ---------------------------------------------


@pytest.mark.parametrize("path", list(POSTS))
@pytest.mark.parametrize(
    "content_type",
    [
        None,
        "text/plain",
        "text/plain;charset=UTF-8",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "text/json",
        "application/jsonx",
        "",
    ],
)
def test_a_body_not_declared_json_is_415(
    server: LiveServer, path: str, content_type: str | None
) -> None:
    """What a page may send across sites without a preflight never reaches a handler."""
    import json

    headers = {} if content_type is None else {"content-type": content_type}
    with bare_client(server) as c:
        r = c.post(path, content=json.dumps(POSTS[path]).encode(), headers=headers)
    assert r.status_code == 415, r.text
    assert r.headers["content-type"] == "application/json"
    assert r.headers["accept-post"] == "application/json"
    error = r.json()["error"]
    assert error["code"] == "unsupported_media_type"
    assert "Content-Type: application/json" in error["message"]
    assert "\n" not in error["message"]


@pytest.mark.parametrize(
    "content_type",
    ["application/json", "Application/JSON; charset=utf-8", "application/vnd.smista+json"],
)
def test_json_bodies_are_answered_on_every_post(server: LiveServer, content_type: str) -> None:
    import json

    with bare_client(server) as c:
        for path, body in POSTS.items():
            r = c.post(path, content=json.dumps(body), headers={"content-type": content_type})
            assert r.status_code == 200, (path, r.text)


def test_the_media_type_check_leaves_other_answers_alone(server: LiveServer) -> None:
    """GETs need no Content-Type; a POST to a GET route is still a 405, an unknown
    path a 404."""
    with bare_client(server) as c:
        assert c.get("/v1/rules").status_code == 200
        assert c.get("/healthz").status_code == 200
        wrong = c.post("/v1/rules", content=b"x", headers={"content-type": "text/plain"})
        missing = c.post("/v1/nope", content=b"x", headers={"content-type": "text/plain"})
    assert (wrong.status_code, missing.status_code) == (405, 404)


@pytest.mark.parametrize(
    ("value", "json"),
    [
        (b"application/json", True),
        (b"application/json; charset=utf-8", True),
        (b" APPLICATION/JSON ", True),
        (b"application/problem+json", True),
        (None, False),
        (b"", False),
        (b"text/plain", False),
        (b"application/json-seq", False),
        (b"text/x+json", False),
    ],
)
def test_is_json_type(value: bytes | None, json: bool) -> None:
    assert is_json_type(value) is json


# -- the Host check on loopback --------------------------------------------------------


def _get(live: LiveServer, path: str, host: str | None) -> httpx.Response:
    with live.client() as c:
        headers = {} if host is None else {"host": host}
        if path == "/healthz" or path == "/openapi.json":
            return c.get(path, headers=headers)
        return c.post(path, json=POSTS[path], headers=headers)


@pytest.mark.parametrize("path", ["/v1/classify", "/v1/preview", "/healthz", "/openapi.json"])
@pytest.mark.parametrize(
    "host", ["evil.example", "evil.example:8787", "127.0.0.1.nip.io", "localhost.evil", "[::2]"]
)
def test_a_foreign_host_on_loopback_is_421(server: LiveServer, path: str, host: str) -> None:
    """A rebound name reads nothing, not even the health or the API description."""
    r = _get(server, path, host)
    assert r.status_code == 421, r.text
    error = r.json()["error"]
    assert error["code"] == "misdirected_request"
    assert "--allow-host" in error["message"]
    assert host not in error["message"]  # nothing the client sent is echoed


@pytest.mark.parametrize(
    "host",
    [
        "localhost",
        "LOCALHOST:{port}",
        "localhost.",
        "127.0.0.1",
        "127.0.0.1:{port}",
        "127.9.9.9:1",
        "[::1]",
        "[::1]:{port}",
    ],
)
def test_loopback_names_are_answered(server: LiveServer, host: str) -> None:
    for path in ("/v1/classify", "/healthz"):
        assert _get(server, path, host.format(port=server.port)).status_code == 200


def test_allow_host_adds_names() -> None:
    allow = ["--allow-host", "Smista.Internal", "--allow-host", "10.1.2.3"]
    with LiveServer([*allow, "--allow-host", "[FE80::1]"]) as live:
        for host in (
            "smista.internal",
            "SMISTA.INTERNAL:443",
            "10.1.2.3:8787",
            "[fe80::1]:80",
            "localhost",
        ):
            assert _get(live, "/v1/classify", host).status_code == 200, host
        for host in ("other.internal", "smista.internal.evil", "10.1.2.4"):
            assert _get(live, "/v1/classify", host).status_code == 421, host
        doc = _get(live, "/openapi.json", None).json()
    assert "421" in doc["paths"]["/v1/classify"]["post"]["responses"]
    assert "415" in doc["paths"]["/v1/classify"]["post"]["responses"]
    assert "415" not in doc["paths"]["/healthz"]["get"]["responses"]


def test_allow_any_host_turns_the_check_off() -> None:
    with LiveServer(["--allow-host", "*"]) as live:
        assert _get(live, "/v1/classify", "anything.example").status_code == 200


def test_off_loopback_the_token_guards_and_no_host_is_checked() -> None:
    """Bound to every interface (a token is required there), any Host is answered."""
    token = "browsers-test-token-0123"
    with (
        LiveServer(host="0.0.0.0", env={"SMISTA_API_TOKEN": token}) as live,
        live.client(headers={"authorization": f"Bearer {token}"}) as c,
    ):
        r = c.post("/v1/classify", json={"text": "x"}, headers={"host": "box.example"})
        doc = c.get("/openapi.json").json()
    assert r.status_code == 200
    assert "421" not in doc["paths"]["/v1/classify"]["post"]["responses"]


@pytest.mark.parametrize(
    ("value", "name"),
    [
        ("localhost", "localhost"),
        ("LocalHost:8787", "localhost"),
        ("example.com.", "example.com"),
        ("[::1]", "::1"),
        ("[::1]:80", "::1"),
        ("[::1]x", None),
        ("[::1", None),
        ("host:port", None),
        ("host:", None),
        (":80", None),
        ("", None),
    ],
)
def test_host_name(value: str, name: str | None) -> None:
    assert host_name(value) == name


def test_a_request_without_host_is_answered() -> None:
    """No browser omits Host; HTTP/1.0 clients may."""
    check = HostCheck()
    assert check.accepts(None)
    assert check.accepts(b"127.0.0.1:1")
    assert not check.accepts(b"evil.example")
    assert not check.accepts(b"evil.example")  # remembered verdicts agree


@pytest.mark.parametrize("bad", ["a:80", "", "x y", "http://a", "[::1", "user@host"])
def test_a_bad_allow_host_is_one_line(run_cli: RunCli, bad: str) -> None:
    done = run_cli(["serve", "--port", "0", "--allow-host", bad], env=cli_env(), timeout=30)
    err = done.stderr.decode()
    assert done.returncode == 2, err
    assert err.count("\n") == 1
    assert err.startswith("smista serve: error: argument --allow-host: expected a host name")
