"""Bearer-token authentication of the HTTP service and the loopback rule."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("uvicorn")

from smista.server.auth import BearerToken, is_loopback
from tests.live import LiveServer

TOKEN = "s3cr3t-t0ken-value-for-tests"
UNAUTHORIZED = {"error": {"code": "unauthorized", "message": "unauthorized"}}


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    with LiveServer(env={"SMISTA_API_TOKEN": TOKEN}) as live:
        yield live


@pytest.mark.parametrize(
    "header",
    [
        None,
        "",
        "Bearer",
        f"Basic {TOKEN}",
        f"Bearer {TOKEN}x",
        f"Bearer {TOKEN[:-1]}",
        f"Token {TOKEN}",
        "Bearer wrong",
    ],
)
def test_wrong_or_missing_token_is_401_without_details(server: LiveServer, header) -> None:
    """Every /v1 endpoint answers a bare 401 unless the exact token is presented."""
    headers = {} if header is None else {"Authorization": header}
    with server.client(headers=headers) as c:
        answers = [
            c.post("/v1/classify", json={"text": "hi"}),
            c.post("/v1/classify/batch", json={"items": []}),
            c.get("/v1/rules"),
            c.post("/v1/classify", content=b"not json"),
        ]
    for r in answers:
        assert (r.status_code, r.json()) == (401, UNAUTHORIZED)
        assert r.headers["www-authenticate"] == "Bearer"


@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "BEARER"])
def test_the_right_token_is_accepted(server: LiveServer, scheme: str) -> None:
    """The token opens every /v1 endpoint; the scheme is case-insensitive."""
    with server.client(headers={"Authorization": f"{scheme} {TOKEN}"}) as c:
        assert c.post("/v1/classify", json={"text": "fix it"}).json()["intent"] == "edit"
        assert c.get("/v1/rules").status_code == 200


def test_health_and_openapi_need_no_token(server: LiveServer) -> None:
    """Liveness and the API description stay open; the document shows the scheme."""
    with server.client() as c:
        assert c.get("/healthz").status_code == 200
        doc = c.get("/openapi.json").json()
    assert doc["components"]["securitySchemes"]["bearerAuth"]["scheme"] == "bearer"
    assert doc["paths"]["/v1/classify"]["post"]["security"] == [{"bearerAuth": []}]
    assert "401" in doc["paths"]["/v1/rules"]["get"]["responses"]


def test_the_token_never_appears_in_logs(server: LiveServer) -> None:
    """Neither a right nor a wrong token is ever logged."""
    with server.client(headers={"Authorization": f"Bearer {TOKEN}"}) as c:
        c.post("/v1/classify", json={"text": "review"}, headers={"X-Request-Id": "tok"})
    with server.client(headers={"Authorization": "Bearer not-the-token-zz"}) as c:
        c.get("/v1/rules", headers={"X-Request-Id": "bad"})
    server.wait_for(lambda x: x.get("request_id") == "bad" and x.get("event") == "access")
    text = server.log_text()
    assert TOKEN not in text
    assert "not-the-token-zz" not in text


def test_non_loopback_without_token_refuses_to_start(run_cli) -> None:
    """Binding a non-loopback address without SMISTA_API_TOKEN fails with one line."""
    from tests.conftest import cli_env

    env = cli_env()
    env.pop("SMISTA_API_TOKEN", None)
    for host in ["0.0.0.0", "::", "192.0.2.1", "example.com"]:
        proc = run_cli(["serve", "--host", host, "--port", "0"], env=env, timeout=30)
        assert proc.returncode == 2
        lines = proc.stderr.decode().splitlines()
        assert len(lines) == 1, lines
        assert lines[0].startswith("smista serve: error: refusing to listen on")
        assert "SMISTA_API_TOKEN" in lines[0]


def test_blank_token_counts_as_no_token(run_cli) -> None:
    """A token of only whitespace does not satisfy the non-loopback rule."""
    from tests.conftest import cli_env

    proc = run_cli(
        ["serve", "--host", "0.0.0.0", "--port", "0"],
        env=cli_env(SMISTA_API_TOKEN="  \n"),
        timeout=30,
    )
    assert proc.returncode == 2


def test_non_loopback_with_token_serves_and_requires_it() -> None:
    """With a token the service binds all interfaces and still checks the token."""
    with LiveServer(host="0.0.0.0", env={"SMISTA_API_TOKEN": TOKEN}) as live:
        with live.client() as c:
            assert c.get("/v1/rules").status_code == 401
        with live.client(headers={"Authorization": f"Bearer {TOKEN}"}) as c:
            assert c.get("/v1/rules").status_code == 200


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.1.2.3", True),
        ("localhost", True),
        ("::1", True),
        ("[::1]", True),
        ("0.0.0.0", False),
        ("::", False),
        ("10.0.0.1", False),
        ("my-host.internal", False),
    ],
)
def test_is_loopback(host: str, loopback: bool) -> None:
    """Only loopback addresses (and the name localhost) count as loopback."""
    assert is_loopback(host) is loopback


def test_bearer_token_hides_its_value() -> None:
    """The token object's repr never shows the secret."""
    assert TOKEN not in repr(BearerToken(TOKEN))
    assert BearerToken(TOKEN).accepts(f"Bearer {TOKEN}".encode())
    assert not BearerToken(TOKEN).accepts(None)
