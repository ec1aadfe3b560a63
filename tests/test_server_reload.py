"""Hot reload of the HTTP service: SIGHUP, --watch, good and bad rules, in flight."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("uvicorn")

from smista.config.load import parse_config
from smista.core.classifier import Classifier
from tests.live import LiveServer

RULES_A = """\
[classification]
default_intent = "chat"

[[classification.rules]]
intent = "edit"
keywords = ["zebra"]
"""

RULES_B = """\
[classification]
default_intent = "plan"

[[classification.rules]]
intent = "review"
keywords = ["zebra"]

[[classification.rules]]
intent = "summarize"
keywords = ["giraffe"]
"""

RULES_BAD = """\
[classification]
[[classification.rules]]
intent = "deploy"
keywords = ["zebra"]
"""

CLASSIFIERS = {
    hashlib.sha256(text.encode()).hexdigest(): Classifier(parse_config(text))
    for text in (RULES_A, RULES_B)
}
SHA_A, SHA_B = list(CLASSIFIERS)
BATCH = [{"text": "zebra"}, {"text": "giraffe"}, {"text": "hello"}, {"text": "a zebra"}]


def wire(sha: str, text: str) -> dict[str, object]:
    return CLASSIFIERS[sha].classify(text).to_wire()


def write(path: Path, text: str) -> None:
    """Replace the file atomically, as editors and deploy tools do."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(text, "utf-8")
    os.replace(tmp, path)


def reload_via_sighup(live: LiveServer, path: Path, text: str, outcome: str) -> dict[str, Any]:
    mark = live.mark()
    write(path, text)
    live.signal(signal.SIGHUP)
    return live.wait_for(lambda r: r.get("event") == outcome, start=mark)


@pytest.fixture
def rules(tmp_path: Path) -> Path:
    path = tmp_path / "rules.toml"
    path.write_text(RULES_A, "utf-8")
    return path


def test_sighup_swaps_in_valid_rules(rules: Path) -> None:
    """After SIGHUP with new valid rules, answers and /v1/rules follow the new file."""
    with LiveServer(["--rules", str(rules)]) as live, live.client() as c:
        assert c.post("/v1/classify", json={"text": "zebra"}).json()["intent"] == "edit"
        rec = reload_via_sighup(live, rules, RULES_B, "reloaded")
        assert (rec["trigger"], rec["sha256"], rec["generation"]) == (
            "sighup",
            SHA_B,
            2,
        )
        assert c.post("/v1/classify", json={"text": "zebra"}).json() == wire(SHA_B, "zebra")
        info = c.get("/v1/rules").json()
        assert (info["sha256"], info["rule_count"], info["generation"]) == (SHA_B, 2, 2)
        assert info["default_intent"] == "plan"
        assert c.get("/healthz").json()["generation"] == 2


def test_sighup_with_invalid_rules_keeps_the_old_ones(rules: Path) -> None:
    """An invalid file is reported (file + key path) and the old rules keep serving."""
    with LiveServer(["--rules", str(rules)]) as live, live.client() as c:
        before = c.get("/v1/rules").json()
        rec = reload_via_sighup(live, rules, RULES_BAD, "reload_failed")
        assert rec["level"] == "error"
        assert rec["file"] == str(rules)
        assert [e["loc"] for e in rec["errors"]] == ["classification.rules[0].intent"]
        assert c.get("/v1/rules").json() == before
        assert c.post("/v1/classify", json={"text": "zebra"}).json() == wire(SHA_A, "zebra")
        rules.unlink()
        live.signal(signal.SIGHUP)
        gone = live.wait_for(lambda r: r.get("event") == "reload_failed" and r is not rec)
        assert gone["errors"] == [{"loc": "", "message": "no such file"}]
        assert c.get("/v1/rules").json() == before


def test_watch_reloads_on_change_and_reports_bad_content_once(rules: Path) -> None:
    """--watch picks up a change; a broken file is logged once, the old rules stay."""
    args = ["--rules", str(rules), "--watch", "--watch-interval", "0.05"]
    with LiveServer(args) as live, live.client() as c:
        mark = live.mark()
        write(rules, RULES_B)
        rec = live.wait_for(lambda r: r.get("event") == "reloaded", start=mark)
        assert (rec["trigger"], rec["sha256"]) == ("watch", SHA_B)
        assert c.post("/v1/classify", json={"text": "zebra"}).json()["intent"] == "review"

        mark = live.mark()
        write(rules, RULES_BAD)
        live.wait_for(lambda r: r.get("event") == "reload_failed", start=mark)
        os.utime(rules, ns=(1, 1))  # touched, same content: not retried
        assert c.get("/v1/rules").json()["sha256"] == SHA_B

        mark = live.mark()
        write(rules, RULES_A)
        rec = live.wait_for(lambda r: r.get("event") == "reloaded", start=mark)
        assert rec["sha256"] == SHA_A
        assert rec["generation"] == 3
        assert len(live.find(lambda r: r.get("event") == "reload_failed")) == 1


def test_config_file_rules_and_watch(tmp_path: Path) -> None:
    """With --config, the config's [classification] serves and is watched."""
    config = tmp_path / "smista.toml"
    config.write_text(RULES_A, "utf-8")
    args = ["--config", str(config), "--watch", "--watch-interval", "0.05"]
    with LiveServer(args) as live, live.client() as c:
        info = c.get("/v1/rules").json()
        assert (info["source"], info["config"], info["sha256"]) == (str(config),) * 2 + (SHA_A,)
        mark = live.mark()
        write(config, RULES_B)
        live.wait_for(lambda r: r.get("event") == "reloaded", start=mark)
        assert c.post("/v1/classify", json={"text": "giraffe"}).json()["intent"] == "summarize"


def test_invalid_rules_at_start_stop_the_service_with_one_line(run_cli, tmp_path) -> None:
    """A bad rules file at start is one error line naming file and key path; exit 2."""
    bad = tmp_path / "bad.toml"
    bad.write_text(RULES_BAD, "utf-8")
    proc = run_cli(["serve", "--port", "0", "--rules", str(bad)], timeout=30)
    assert proc.returncode == 2
    lines = proc.stderr.decode().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("smista serve: error: ")
    assert str(bad) in lines[0]
    assert "classification.rules[0].intent" in lines[0]


def test_requests_in_flight_finish_on_the_rules_they_started_with(rules: Path) -> None:
    """A request whose headers arrived before a reload is answered by the old rules."""
    with LiveServer(["--rules", str(rules)]) as live:
        body = json.dumps({"text": "zebra"}).encode()
        with live.connect() as sock:
            sock.sendall(
                b"POST /v1/classify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nExpect: 100-continue\r\n"
                b"Content-Type: application/json\r\n"
                + f"Content-Length: {len(body)}\r\n\r\n".encode()
            )
            assert read_until(sock, b"\r\n\r\n").startswith(b"HTTP/1.1 100 ")
            reload_via_sighup(live, rules, RULES_B, "reloaded")
            with live.client() as c:  # new requests already see B
                assert c.post("/v1/classify", json={"text": "zebra"}).json()["intent"] == "review"
            sock.sendall(body)
            head, answer = read_response(sock)
        assert head.startswith(b"HTTP/1.1 200 ")
        assert f"x-smista-rules-sha256: {SHA_A}".encode() in head.lower()
        assert json.loads(answer) == wire(SHA_A, "zebra")


def test_reloads_under_load_never_mix_rule_sets(rules: Path) -> None:
    """While clients hammer the service through many reloads (some invalid), every
    answer is 200 and equals the answer of the one rule set named in its header."""
    stop = threading.Event()
    problems: list[str] = []
    seen: set[str] = set()

    def hammer() -> None:
        with live.client() as c:
            while not stop.is_set():
                one = c.post("/v1/classify", json={"text": "zebra"})
                many = c.post("/v1/classify/batch", json={"items": BATCH})
                for r in (one, many):
                    if r.status_code != 200:
                        problems.append(f"{r.status_code} {r.text}")
                        return
                sha1 = one.headers["x-smista-rules-sha256"]
                sha2 = many.headers["x-smista-rules-sha256"]
                seen.update((sha1, sha2))
                if one.json() != wire(sha1, "zebra"):
                    problems.append(f"single answer not from {sha1}")
                if many.json()["results"] != [wire(sha2, i["text"]) for i in BATCH]:
                    problems.append(f"batch answer not wholly from {sha2}")

    with LiveServer(["--rules", str(rules)]) as live:
        threads = [threading.Thread(target=hammer) for _ in range(3)]
        for t in threads:
            t.start()
        try:
            with live.client() as c:
                for i in range(12):
                    text, sha = (RULES_B, SHA_B) if i % 2 == 0 else (RULES_A, SHA_A)
                    reload_via_sighup(live, rules, text, "reloaded")
                    assert c.get("/v1/rules").json()["sha256"] == sha
                    if i % 4 == 1:
                        reload_via_sighup(live, rules, RULES_BAD, "reload_failed")
                        assert c.get("/v1/rules").json()["sha256"] == sha
        finally:
            stop.set()
            for t in threads:
                t.join()
    assert problems == []
    assert seen <= {SHA_A, SHA_B}


def read_until(sock, marker: bytes) -> bytes:
    data = b""
    while marker not in data:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


def read_response(sock) -> tuple[bytes, bytes]:
    """Head and body of one HTTP/1.1 response with a Content-Length."""
    data = read_until(sock, b"\r\n\r\n")
    head, _, rest = data.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        rest += chunk
    return head, rest[:length]


def _scripted_reads(
    monkeypatch: pytest.MonkeyPatch, contents: list[bytes]
) -> tuple[list[float], list[str]]:
    """``state._read`` fed ``contents`` one read at a time; records its sleeps and reads."""
    from smista.server import state

    sleeps: list[float] = []
    reads: list[str] = []

    def read(path: str) -> tuple[str, bytes]:
        raw = contents[min(len(reads), len(contents) - 1)]
        reads.append(path)
        return raw.decode(), raw

    monkeypatch.setattr(state, "read_source", read)
    monkeypatch.setattr(time, "sleep", sleeps.append)
    return sleeps, reads


def test_a_reload_waits_for_two_reads_that_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    from smista.server.state import _read

    half, whole = RULES_A[:40].encode(), RULES_A.encode()
    sleeps, reads = _scripted_reads(monkeypatch, [half, whole, whole])
    text, source = _read("rules.toml", 0.25)
    assert text == RULES_A
    assert len(reads) == 3
    assert sleeps == [0.25, 0.25]
    assert source.sha256 == hashlib.sha256(whole).hexdigest()


def test_a_file_still_changing_fails_the_reload(monkeypatch: pytest.MonkeyPatch) -> None:
    from smista.core.errors import ConfigError
    from smista.server.state import STABLE_TRIES, _read

    growing = [RULES_A[:n].encode() for n in range(1, 20)]
    sleeps, reads = _scripted_reads(monkeypatch, growing)
    with pytest.raises(ConfigError, match="still being written"):
        _read("rules.toml", 0.05)
    assert len(sleeps) == STABLE_TRIES
    assert len(reads) == STABLE_TRIES + 1


def test_a_first_load_reads_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from smista.server.state import _read

    sleeps, reads = _scripted_reads(monkeypatch, [RULES_A.encode(), b""])
    assert _read("rules.toml")[0] == RULES_A
    assert (sleeps, len(reads)) == ([], 1)
