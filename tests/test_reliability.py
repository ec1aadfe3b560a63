"""Reliability against real processes on loopback: special files, slow and abusive clients,
oversized work, reloads of files being written, binding, and a key never leaking.

Each test starts the real ``smista`` CLI or ``smista serve`` and speaks to it over
loopback sockets. Subprocess timeouts are hang guards, not timing assertions.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("uvicorn")

from tests.conftest import ROOT, cli_env
from tests.decision_server import decision_server
from tests.live import LiveServer, recv_all
from tests.preview_config import ROUTING, decision_table
from tests.test_secrets import KEY, leaks

HANG_GUARD = 20.0


def smista(*args: str, stdin: bytes = b"", env: dict[str, str] | None = None) -> tuple[int, str]:
    """Run the CLI; its exit status and stderr (stdout too for ``check``, which reports there)."""
    done = subprocess.run(
        [sys.executable, "-m", "smista", *args],
        input=stdin,
        capture_output=True,
        env=cli_env(**(env or {})),
        timeout=HANG_GUARD,
        cwd=ROOT,
    )
    out = done.stderr + (done.stdout if args[0] == "check" else b"")
    return done.returncode, out.decode("utf-8", "replace")


@pytest.fixture(scope="module")
def specials(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    base = tmp_path_factory.mktemp("specials")
    fifo = base / "rules.fifo"
    os.mkfifo(fifo)
    sparse = base / "sparse.toml"
    with sparse.open("wb") as fh:
        fh.truncate(2 << 30)  # 2 GiB of holes: no disk used
    directory = base / "dir.toml"
    directory.mkdir()
    return {
        "fifo": str(fifo),
        "/dev/zero": "/dev/zero",
        "sparse": str(sparse),
        "directory": str(directory),
    }


COMMANDS = [
    ("classify", ["classify", "--rules", "{}", "fix the login bug"]),
    ("check", ["check", "{}"]),
    ("test", ["test", "rules/default.toml", "--cases", "{}"]),
    ("eval", ["eval", "{}"]),
    ("batch", ["batch", "{}"]),
    ("tier", ["tier", "--config", "{}", "fix it"]),
    ("preview", ["preview", "--config", "{}", "fix it"]),
    ("serve", ["serve", "--port", "0", "--rules", "{}"]),
]


@pytest.mark.parametrize("kind", ["fifo", "/dev/zero", "sparse", "directory"])
@pytest.mark.parametrize(("name", "template"), COMMANDS, ids=[c[0] for c in COMMANDS])
def test_special_files_are_refused_in_one_line(
    specials: dict[str, str], kind: str, name: str, template: list[str]
) -> None:
    """A FIFO, /dev/zero, a 2 GiB sparse file or a directory: a one-line refusal, no hang."""
    if (name, kind) == ("check", "directory"):
        pytest.skip("check lints the *.toml files of a directory (none here)")
    path = specials[kind]
    code, err = smista(*[a.replace("{}", path) for a in template])
    lines = [line for line in err.splitlines() if line.strip()]
    assert code != 0, (name, kind, err)
    if name == "check":  # check reports per file, then its summary line
        assert "not a regular file" in err or "limit" in err, err
        return
    assert len(lines) == 1, (name, kind, err)
    assert "Traceback" not in err
    assert "MemoryError" not in err


def test_a_huge_line_on_stdin_stops_batch_in_one_line() -> None:
    code, err = smista("batch", stdin=b"\0" * (65 << 20))
    assert code == 2
    assert err.strip() == (
        "smista batch: error: input line 1 is longer than 67108864 bytes (is the input JSONL?)"
    )


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    args = ["--header-timeout", "1", "--body-timeout", "1", "--max-connections", "40"]
    with LiveServer(args) as live:
        yield live


def json_body(raw: bytes) -> dict[str, object]:
    head, _, body = raw.partition(b"\r\n\r\n")
    assert b"content-type: application/json" in head.lower()
    data = json.loads(body)
    assert isinstance(data, dict)
    return data


def test_a_slow_header_gets_a_json_408_and_is_closed(server: LiveServer) -> None:
    with server.connect() as sock:
        sock.sendall(
            b"POST /v1/classify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        )  # never finishes
        raw = recv_all(sock)
    assert raw.startswith(b"HTTP/1.1 408 ")
    assert json_body(raw)["error"] == {
        "code": "header_timeout",
        "message": "request head not received within 1 s",
    }


def test_a_stalled_body_is_cut_off(server: LiveServer) -> None:
    with server.connect() as sock:
        sock.sendall(
            b"POST /v1/classify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
        )
        assert recv_all(sock) == b""  # closed, nobody left to answer
    with server.client() as c:
        assert c.get("/healthz").status_code == 200


def test_garbage_http_gets_a_json_400(server: LiveServer) -> None:
    with server.connect() as sock:
        sock.sendall(b"NOT HTTP AT ALL\r\n\r\n")
        raw = recv_all(sock)
    assert raw.startswith(b"HTTP/1.1 400 ")
    assert json_body(raw)["error"]["code"] == "invalid_http"  # type: ignore[index]


def test_connections_over_the_limit_get_a_json_503_and_the_service_survives(
    server: LiveServer,
) -> None:
    """60 idle connections against a limit of 40: the extra ones are refused, in JSON."""
    socks = [server.connect() for _ in range(60)]
    try:
        refused = 0
        for sock in socks[40:]:
            raw = recv_all(sock)
            if raw.startswith(b"HTTP/1.1 503 "):
                assert json_body(raw)["error"]["code"] == "too_many_connections"  # type: ignore[index]
                refused += 1
        assert refused >= 1
    finally:
        for sock in socks:
            sock.close()
    with server.client() as c:
        assert c.get("/healthz").status_code == 200


def test_work_over_the_count_limits_is_refused_before_validation(server: LiveServer) -> None:
    """Count limits answer before any item is validated; errors are few and JSON."""
    with server.client() as c:
        r = c.post("/v1/classify/batch", json={"items": [1] * 200_000})
        assert (r.status_code, r.json()["error"]["code"]) == (422, "batch_too_large")
        r = c.post("/v1/classify", json={"text": "x", "contexts": [1] * 300_000})
        assert (r.status_code, r.json()["error"]["code"]) == (422, "too_many_items")
        assert r.json()["error"]["details"][0]["loc"] == "contexts"
        items = [{"text": "x", "contexts": [1] * 300} for _ in range(1000)]  # ~0.9 MB
        r = c.post("/v1/classify/batch", json={"items": items})
        assert r.status_code == 422
        assert len(r.json()["error"]["details"]) == 1  # validation stopped at the first
        r = c.post("/v1/classify", json={"text": "x", **{f"k{i}": 1 for i in range(5000)}})
        assert (r.status_code, r.json()["error"]["code"]) == (422, "too_many_items")
        assert c.get("/healthz").status_code == 200


def test_ipv6_loopback_in_brackets_binds() -> None:
    try:
        probe = socket.socket(socket.AF_INET6)
        probe.bind(("::1", 0))
        probe.close()
    except OSError:
        pytest.skip("no IPv6 loopback here")
    with LiveServer(host="[::1]", connect_host="[::1]") as live, live.client() as c:
        assert c.get("/healthz").status_code == 200


def test_an_address_in_use_fails_in_one_line() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, err = smista("serve", "--port", str(port))
    assert code == 1
    assert (
        err.strip()
        == f"smista serve: error: cannot listen on 127.0.0.1:{port}: Address already in use"
    )


RULES = '[classification]\ndefault_intent = "chat"\n\n'
RULE = '[[classification.rules]]\nintent = "edit"\nkeywords = ["kw{n}"]\n\n'


def test_a_file_written_in_place_is_never_served_half_written(tmp_path: Path) -> None:
    """--watch while a writer rewrites the pack in place, a few bytes at a time.

    The writer pauses 5 ms between writes and the service waits for 0.5 s of
    quiet (``--watch-settle``): a hundredfold margin, so that a writer thread
    held up by a loaded CI machine is not mistaken for one that stopped.
    """
    rules = tmp_path / "rules.toml"
    full = RULES + "".join(RULE.format(n=n) for n in range(40))
    rules.write_text(full)
    args = ["--rules", str(rules), "--watch", "--watch-interval", "0.02", "--watch-settle", "0.5"]
    with LiveServer(args) as live, live.client() as c:
        counts: set[int] = set()
        stop = threading.Event()

        def poll() -> None:
            while not stop.wait(0.01):
                counts.add(c.get("/v1/rules").json()["rule_count"])

        poller = threading.Thread(target=poll)
        poller.start()
        for _ in range(3):
            with rules.open("r+b") as fh:  # truncate, then trickle the same bytes back
                fh.truncate(0)
                data = full.encode()
                for start in range(0, len(data), 64):
                    fh.write(data[start : start + 64])
                    fh.flush()
                    time.sleep(0.005)
        time.sleep(1.5)
        stop.set()
        poller.join()
    assert counts == {40}, counts


def test_a_failing_watch_tick_is_logged_and_watching_goes_on(tmp_path: Path) -> None:
    """A rules file replaced by a FIFO: logged, refused, and a later fix is picked up."""
    rules = tmp_path / "rules.toml"
    rules.write_text(RULES + RULE.format(n=1))
    args = ["--rules", str(rules), "--watch", "--watch-interval", "0.02"]
    with LiveServer(args) as live, live.client() as c:
        mark = live.mark()
        rules.unlink()
        os.mkfifo(rules)
        live.wait_for(lambda r: r.get("event") == "reload_failed", start=mark)
        rules.unlink()
        rules.write_text(RULES + RULE.format(n=1) + RULE.format(n=2))
        live.wait_for(lambda r: r.get("event") == "reloaded", start=mark)
        assert c.get("/v1/rules").json()["rule_count"] == 2


@pytest.mark.parametrize(
    "fault", ["echo_reason", "echo_unicode", "echo_basic", "echo_wrapped", "echo_model"]
)
def test_a_key_echoed_upstream_never_reaches_the_client_or_the_log(
    tmp_path: Path, fault: str
) -> None:
    """/v1/preview with the decision stage against an upstream echoing the key."""
    with decision_server(fault=fault, expected_key=KEY) as (url, upstream):
        config = tmp_path / "smista.toml"
        config.write_text(
            ROUTING + decision_table(url, provider="openai", key_env="SMISTA_LEAK_KEY")
        )
        args = ["--config", str(config), "--log-level", "debug"]
        env = {"SMISTA_LEAK_KEY": KEY}
        with LiveServer(args, env=env) as live, live.client() as c:
            r = c.post("/v1/preview", json={"text": "refactor the session handling"})
            assert r.status_code == 200, r.text
            assert upstream.requests
            assert not leaks(r.text), r.text
            live.stop()
            log = live.log_text()
            assert not leaks(log), log[-2000:]


def test_a_non_ascii_key_is_a_config_error_not_a_500(tmp_path: Path) -> None:
    config = tmp_path / "smista.toml"
    config.write_text(
        '[decision]\nenabled = true\nprovider = "openai"\n'
        'base_url = "http://127.0.0.1:9/v1"\nmodel = "m"\napi_key_env = "SMISTA_BAD_KEY"\n'
    )
    code, err = smista(
        "preview", "--config", str(config), "fix it", env={"SMISTA_BAD_KEY": "sk-caf\u00e9-123456"}
    )
    assert code == 2
    assert "printable ASCII" in err
    assert "caf" not in err
